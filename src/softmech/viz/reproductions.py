"""Figures of the reference papers' reproductions (docs/reproductions.md): softmech's curves
with the paper's numbers drawn on the same axes, so that a reader compares them without the
paper at hand. The papers' own figures are images that the reference texts do not carry; what
the texts (or the papers' scripts) give as numbers is drawn as the reference.

Each function takes plain arrays (shapes and units in its docstring) and writes a PNG
atomically; softmech.validation.paper_figures gathers their data from the validation cases'
runs (`softmech validate --papers --figures DIR`).
"""
import numpy as np

from softmech.viz.figures import figure, save

_DPI = 110


def _reference_band(ax, value, tolerance, label):
    """The paper's number as a dashed horizontal line and its tolerance (same unit) as a
    shaded band."""
    ax.axhspan(value - tolerance, value + tolerance, color="tab:orange", alpha=0.18, lw=0)
    ax.axhline(value, color="tab:orange", ls="--", lw=1.5, label=label)


def snake_figure(path, time, com, period, forward_reference, lateral_reference,
                 forward_tolerance, lateral_tolerance):
    """The ME498 snake (handout section 2.2.6): left, the centre of mass's track over the run
    [m], periods 3-6 (the handout's window) drawn bold; right, the mean forward and lateral
    speeds [m/s] of each whole period along and across the direction of travel
    (scenarios.snake.travel_velocities), with the handout's means over periods 3-6 and the
    tolerances of the validation cases as bands.

    time (n,) [s]; com (1, n, 3) [m]; period [s]; references and tolerances [m/s]."""
    from softmech.scenarios.snake import travel_velocities

    fig, _ = figure(0, size=(10.0, 4.0))
    track, speeds = fig.subplots(1, 2)
    xy = np.asarray(com)[0, :, :2]
    window = (time >= 3 * period) & (time <= 6 * period)
    track.plot(xy[:, 0], xy[:, 1], color="0.6", lw=1.0, label="whole run")
    track.plot(xy[window, 0], xy[window, 1], color="tab:blue", lw=2.0, label="periods 3-6")
    track.set_aspect("equal", adjustable="datalim")
    track.set_xlabel("x [m]")
    track.set_ylabel("y [m]")
    track.set_title("centre of mass", fontsize=10)
    track.legend(fontsize=8)

    whole = int(np.floor(time[-1] / period + 1e-9))
    periods = np.arange(1, whole)
    per_period = [travel_velocities(time, com, period, k, k + 1) for k in periods]
    forward = [float(v[0][0]) for v in per_period]
    lateral = [float(v[1][0]) for v in per_period]
    mean_forward, mean_lateral, _ = travel_velocities(time, com, period, 3, 6)
    centres = periods + 0.5
    speeds.plot(centres, forward, "o-", color="tab:blue", label="softmech, forward, per period")
    speeds.plot(centres, lateral, "s-", color="tab:green", label="softmech, lateral, per period")
    speeds.plot([3, 6], [mean_forward[0]] * 2, color="tab:blue", lw=3, alpha=0.5,
                label=f"softmech, periods 3-6: {mean_forward[0]:.3f}, {mean_lateral[0]:+.4f}")
    speeds.plot([3, 6], [mean_lateral[0]] * 2, color="tab:green", lw=3, alpha=0.5)
    _reference_band(speeds, forward_reference, forward_tolerance * forward_reference,
                    f"handout: {forward_reference} m/s (band: {100 * forward_tolerance:g} %)")
    _reference_band(speeds, lateral_reference, lateral_tolerance,
                    f"course data: {lateral_reference} m/s (band: {lateral_tolerance:g} m/s)")
    speeds.set_xlabel("period")
    speeds.set_ylabel("speed along / across the travel [m/s]")
    speeds.set_title("mean speeds: softmech against the ME498 reference", fontsize=10)
    speeds.legend(fontsize=7, loc="center right")
    return save(fig, path, dpi=_DPI)


def muscle_pairs_figure(path, speeds, layout, paper_layout, reference_speed, tolerance):
    """Zhang et al. 2019, Fig. 3b: left, the Table 2 snake's mean forward speeds [m/s] over
    periods 3-6 driven by the continuous torque wave and by four muscle pairs (the continuous
    gait's projection with overlapping and with disjoint spans, the paper's own four pairs as
    couples and as its glued muscle rods), with the paper's ~0.58 m/s for the continuous snake
    and four pairs alike and the case's tolerance (10 % of the continuous snake) as a band;
    right, the spans [vertebrae] of the projection's pairs beside the paper's code's.

    speeds: dict as softmech.validation.papers.muscle_pair_speeds; layout, paper_layout (4, 4)
    rows (start, length, force [N], phase)."""
    fig, _ = figure(0, size=(10.0, 4.0))
    bars, spans = fig.subplots(1, 2, width_ratios=(1.3, 1.0))
    names = [("continuous", "continuous\ntorque"), ("overlapping", "4 pairs\nprojection"),
             ("non_overlapping", "4 pairs\ndisjoint"), ("paper_code", "paper's pairs\ncouples"),
             ("paper_code_rods", "paper's pairs\nmuscle rods")]
    values = [speeds[k] for k, _ in names]
    colors = ["0.5", "tab:blue", "tab:cyan", "tab:purple", "tab:pink"]
    bars.bar(range(len(values)), values, color=colors)
    for i, v in enumerate(values):
        bars.text(i, v, f"{v:.3f}\n{v / speeds['continuous']:.0%}", ha="center",
                  va="bottom", fontsize=7)
    _reference_band(bars, reference_speed, tolerance * speeds["continuous"],
                    f"paper: ~{reference_speed} m/s, continuous and 4 pairs "
                    f"(band: {100 * tolerance:g} %)")
    bars.set_xticks(range(len(values)), [label for _, label in names], fontsize=7)
    bars.set_ylabel("mean forward speed, periods 3-6 [m/s]")
    bars.set_ylim(0.0, 1.25 * max(values + [reference_speed]))
    bars.set_title("softmech's snake against the paper's", fontsize=10)
    bars.legend(fontsize=7, loc="upper right")

    for offset, rows, color, label in ((0.15, layout, "tab:blue", "softmech's projection"),
                                       (-0.15, paper_layout, "tab:purple", "paper's code")):
        rows = np.asarray(rows)
        for k, (start, length) in enumerate(rows[:, :2]):
            spans.plot([start, start + length], [k + 1 + offset] * 2, color=color, lw=5,
                       solid_capstyle="butt", label=label if k == 0 else None)
    spans.set_yticks(range(1, len(layout) + 1), [f"pair {k}" for k in
                                                 range(1, len(layout) + 1)])
    spans.invert_yaxis()
    spans.set_xlabel("vertebra (head to tail)")
    spans.set_title("the four pairs' spans", fontsize=10)
    spans.legend(fontsize=7)
    return save(fig, path, dpi=_DPI)


def fig8_figure(path, moduli, rod_tips, hinge_moduli, hinge_tips, published, euler_bernoulli):
    """MAT-DiSMech, Fig. 8: the strip cantilever's tip deflection over Euler-Bernoulli's, minus
    one [%], against Young's modulus [Pa]; softmech's rod and hinge shell (lines) beside the
    published values of the figure's script (markers; mid-edge shell published only).

    moduli (12,) [Pa] with rod_tips (12,) [m]; hinge_moduli (k,) with hinge_tips (k,) [m];
    published: dict model -> tips (12,) [m] at `moduli`; euler_bernoulli: E -> deflection [m]."""
    fig, ax = figure(1, size=(7.0, 4.2))

    def excess(E, tips):
        return 100.0 * (-np.asarray(tips) / euler_bernoulli(np.asarray(E)) - 1.0)

    for model, color, marker in (("rod", "tab:blue", "o"), ("hinge", "tab:red", "s"),
                                 ("midedge", "tab:green", "^")):
        ax.plot(moduli, excess(moduli, published[model]), marker, color=color, mfc="none",
                ms=7, label=f"published (DisMech), {model}")
    ax.plot(moduli, excess(moduli, rod_tips), "-", color="tab:blue", label="softmech, rod")
    ax.plot(hinge_moduli, excess(hinge_moduli, hinge_tips), "-", color="tab:red",
            label="softmech, hinge shell")
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("Young's modulus E [Pa]")
    ax.set_ylabel("tip deflection over Euler-Bernoulli - 1 [%]")
    ax.set_title("Cantilever under self-weight (MAT-DiSMech Fig. 8)", fontsize=10)
    ax.legend(fontsize=7)
    return save(fig, path, dpi=_DPI)


def walker_speedups_figure(path, frequencies, speeds_best, speeds_original, paper_speedup,
                           required_speedup):
    """Zhang et al. 2019, Fig. 2i: left, the original and the optimized walkers' mean speeds
    [um/s] at each stimulation frequency [Hz]; right, the speed-ups best / original against the
    paper's (~2.5x at every frequency, dashed) and the least one issue 28 asks for (dotted).

    frequencies (k,) [Hz]; speeds_best, speeds_original (k,) [m/s]."""
    frequencies = np.asarray(frequencies, dtype=float)
    best, original = (1e6 * np.asarray(s, dtype=float) for s in (speeds_best, speeds_original))
    fig, _ = figure(0, size=(10.0, 4.0))
    speeds, ratios = fig.subplots(1, 2)
    x = np.arange(len(frequencies))
    speeds.bar(x - 0.2, original, 0.4, color="0.55", label="original design")
    speeds.bar(x + 0.2, best, 0.4, color="tab:blue", label="campaign's best design")
    speeds.axhline(0.0, color="black", lw=0.8)
    speeds.set_xticks(x, [f"{f:g} Hz" for f in frequencies])
    speeds.set_ylabel("mean speed along +x [um/s]")
    speeds.set_title("softmech's walkers", fontsize=10)
    speeds.legend(fontsize=8)
    ratio = best / original
    ratios.bar(x, ratio, 0.5, color=np.where(ratio >= required_speedup, "tab:green", "tab:red"))
    for i, r in enumerate(ratio):
        ratios.text(i, max(r, 0.0), f"{r:.2f}x", ha="center", va="bottom", fontsize=8)
    ratios.axhline(paper_speedup, color="tab:orange", ls="--", lw=1.5,
                   label=f"paper: ~{paper_speedup:g}x at every frequency")
    ratios.axhline(required_speedup, color="black", ls=":", lw=1.0,
                   label=f"issue 28: >= {required_speedup:g}x at each")
    ratios.axhline(1.0, color="black", lw=0.8)
    ratios.set_xticks(x, [f"{f:g} Hz" for f in frequencies])
    ratios.set_ylabel("speed-up, best / original [-]")
    ratios.set_ylim(min(0.0, 1.1 * ratio.min()), 1.2 * max(paper_speedup, ratio.max()))
    ratios.set_title("against the paper's speed-up (Fig. 2i)", fontsize=10)
    ratios.legend(fontsize=8, loc="upper left")
    return save(fig, path, dpi=_DPI)
