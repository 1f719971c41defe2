"""The panels of the handout's Fig. 4 (ME498, section 2.2.6) for a snake gait campaign, drawn from
arrays (the campaign log and a recorded run of the best gait), never from live objects:

- fitness.png: best-so-far (solid blue), generation-best (solid red) and generation-mean (dashed
  black) fitness vs generation (Fig. 4e);
- velocities.png: forward and lateral centre-of-mass velocity vs normalized time t/T (Fig. 4f);
- envelope.png: gait envelope over one period, body outlines overlaid, head and tail traces in
  red (Fig. 4g);
- snapshots.png: the snake at four instants, top view (Fig. 4a-d).
Each function writes one PNG and returns its path.
"""
import numpy as np


def _figure(rows=1, cols=1, size=(7.0, 4.2), **kwargs):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # A bare Figure on the Agg canvas: no pyplot global state, no display needed.
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, cols, **kwargs)


def _save(fig, path):
    """Write fig to path atomically (softmech.viz.figures.save); returns path."""
    from softmech.viz.figures import save
    return save(fig, path, dpi=120)


def plot_fitness(generations, best, generation_best, mean, path, reference=None,
                 ylabel="fitness: mean forward speed [m/s]", reference_label=None):
    """Fitness vs generation: arrays (n_generations,) each; reference: a speed [m/s] drawn
    as a dotted line (the published optimum's), or None, named by reference_label (default:
    "published optimum"); ylabel: what the fitness is."""
    fig, ax = _figure()
    ax.grid(True, alpha=0.3)
    ax.plot(generations, best, "-", color="C0", lw=2, label="best so far")
    ax.plot(generations, generation_best, "-", color="C3", lw=1.2, label="best of the generation")
    ax.plot(generations, mean, "--", color="k", lw=1.2, label="mean of the generation")
    if reference is not None:
        ax.axhline(reference, color="0.5", ls=":", lw=1.2,
                   label=f"{reference_label or 'published optimum'} {reference:.3g} m/s")
    ax.set_xlabel("generation")
    ax.set_ylabel(ylabel)
    unit = ylabel.rsplit("[", 1)[1].rstrip("]") if ylabel.endswith("]") else ""
    unit = f" {unit}" if unit else ""
    ax.set_title(f"CMA-ES campaign: best {np.nanmax(best):.4g}{unit} after {len(generations)} "
                 "generations")
    ax.legend(loc="lower right")
    return _save(fig, path)


def plot_velocities(time, com_velocity, period, path, labels, window=None):
    """Forward (x) and lateral (y) centre-of-mass velocity [m/s] vs t/T. com_velocity (B,
    n_samples, 3): the first gait is drawn boldly, the others (e.g. the published optimum) thin
    and dashed; labels (B,); window: (t_a, t_b) [s] of the fitness average, shaded."""
    fig, ax = _figure(size=(7.5, 4.4))
    ax.grid(True, alpha=0.3)
    tau = np.asarray(time) / period
    for b, label in enumerate(labels):
        style = dict(lw=1.6) if b == 0 else dict(lw=0.9, ls="--", alpha=0.8)
        ax.plot(tau, com_velocity[b, :, 0], color="C3" if b == 0 else "salmon",
                label=f"forward, {label}", **style)
        ax.plot(tau, com_velocity[b, :, 1], color="C0" if b == 0 else "lightsteelblue",
                label=f"lateral, {label}", **style)
    if window is not None:
        ax.axvspan(window[0] / period, window[1] / period, color="0.92", zorder=0,
                   label="fitness window")
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xlabel("normalized time t / T")
    ax.set_ylabel("centre-of-mass velocity [m/s]")
    ax.set_title("Forward (x) and lateral (y) centre-of-mass velocity")
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.3 * (high - low))        # head room for the legend
    ax.legend(loc="upper center", fontsize="small", ncol=3)
    return _save(fig, path)


def plot_envelope(time, positions, period, first, path, n_outlines=16):
    """Gait envelope over the period [first, first + 1] T: centrelines (n_samples, n+1, 3) [m] at
    n_outlines instants (coloured by phase), head (last node) and tail (first node) traces."""
    time = np.asarray(time)
    inside = np.flatnonzero((time >= first * period - 1e-9) & (time <= (first + 1) * period + 1e-9))
    if inside.size < 2:
        raise ValueError(f"first = {first!r} is not allowed: the recording does not cover the "
                         f"period [{first}, {first + 1}] T")
    xy = positions[inside][..., :2]
    pad = 0.05
    xlim = (xy[..., 0].min() - pad, xy[..., 0].max() + pad)
    ylim = (xy[..., 1].min() - pad, xy[..., 1].max() + pad)
    aspect = (ylim[1] - ylim[0]) / (xlim[1] - xlim[0])
    fig, ax = _figure(size=(8.0, 1.6 + 6.5 * aspect))
    ax.grid(True, alpha=0.3)
    from matplotlib import cm
    picks = inside[np.linspace(0, inside.size - 1, n_outlines).round().astype(int)]
    for k, i in enumerate(picks):
        phase = (time[i] / period) - first
        ax.plot(positions[i, :, 0], positions[i, :, 1], color=cm.viridis(phase), lw=1.2,
                alpha=0.85)
    head, tail = positions[inside, -1], positions[inside, 0]
    ax.plot(head[:, 0], head[:, 1], color="C3", lw=2.0, label="head trace")
    ax.plot(tail[:, 0], tail[:, 1], color="C3", lw=2.0, ls="--", label="tail trace")
    ax.plot(*positions[picks[0], -1, :2], "o", color="C3", ms=5, label="head at the start")
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xlabel("x [m] (forward)")
    ax.set_ylabel("y [m]")
    ax.set_title(f"Gait envelope over one period (t/T from {first:g} to {first + 1:g}; "
                 "colour: phase)")
    from matplotlib.colors import Normalize
    fig.colorbar(cm.ScalarMappable(norm=Normalize(0, 1), cmap="viridis"), ax=ax, shrink=0.7,
                 label="phase within the period")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3,
               fontsize="small")
    return _save(fig, path)


def plot_snapshots(time, positions, com, instants, period, path, radius=0.025):
    """The snake at four instants [s] (top view, same axes), with the centre-of-mass track so
    far: positions (n_samples, n+1, 3) [m], com (n_samples, 3) [m], radius [m] for the width."""
    time = np.asarray(time)
    x_all, y_all = positions[..., 0], positions[..., 1]
    pad = 0.1
    xlim = (x_all.min() - pad, x_all.max() + pad)
    ylim = (y_all.min() - pad, y_all.max() + pad)
    # one long strip per instant: the track is much longer than wide
    aspect = (ylim[1] - ylim[0]) / (xlim[1] - xlim[0])
    fig, axes = _figure(len(instants), 1, size=(9.0, 1.0 + len(instants) * (0.5 + 8.0 * aspect)),
                        sharex=True)
    for ax, t in zip(np.atleast_1d(axes), instants):
        i = int(np.argmin(np.abs(time - t)))
        ax.grid(True, alpha=0.3)
        ax.plot(positions[0, :, 0], positions[0, :, 1], color="0.8", lw=3, solid_capstyle="round",
                label="start")
        ax.plot(com[:i + 1, 0], com[:i + 1, 1], color="C1", lw=1, label="centre-of-mass track")
        ax.plot(positions[i, :, 0], positions[i, :, 1], color="C2", lw=3.5, solid_capstyle="round",
                label="body")
        ax.plot(*positions[i, -1, :2], "o", color="k", ms=4, label="head")
        ax.text(0.005, 0.92, f"t = {time[i]:.2f} s (t/T = {time[i] / period:.2f})",
                transform=ax.transAxes, va="top", fontsize="small",
                bbox=dict(boxstyle="round", fc="white", ec="0.8", alpha=0.9))
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_ylabel("y [m]")
    np.atleast_1d(axes)[-1].set_xlabel("x [m] (forward)")
    handles, labels = np.atleast_1d(axes)[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize="small")
    fig.suptitle(f"Snake with the best gait, top view (body radius {radius * 1e3:g} mm)")
    return _save(fig, path)


def axis_label(name, unit):
    """'name [unit]', or the bare name when the unit is not known ("")."""
    return f"{name} [{unit}]" if unit else name


def plot_sweep(table, names, objective, path, units=None):
    """A sweep's objective against each parameter: one panel per parameter, one dot per run.
    table: {column: (n_runs,)}; names: the parameter columns; objective: the plotted column;
    units: {column: unit} for the axis labels (Study.units())."""
    units = units or {}
    fig, axes = _figure(1, len(names), size=(4.2 * len(names), 3.6), squeeze=False)
    for ax, name in zip(axes[0], names):
        ax.grid(True, alpha=0.3)
        x = np.asarray(table[name], dtype=float)
        ax.plot(x, table[objective], "o", color="C0", ms=4)
        if x.min() > 0 and x.max() > 30 * x.min():       # spans decades: log axis
            ax.set_xscale("log")
        ax.set_xlabel(axis_label(name, units.get(name, "")))
        ax.set_ylabel(axis_label(objective, units.get(objective, "")))
    fig.suptitle(f"sweep: {objective} over {len(table[objective])} runs")
    return _save(fig, path)
