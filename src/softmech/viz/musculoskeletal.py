"""Plots of the musculoskeletal scenes: the elbow (softmech.scenarios.elbow) -- flexion angle
and biceps cross-section over time, the isometric force-length map (Zhang et al. 2019, Fig.
1c) -- and the walkers (softmech.scenarios.walker) -- displacement and speed against
stimulation frequency (Fig. 2i)."""
import numpy as np

from softmech.viz.figures import figure, save


def plot_flexion(path, time, angle, section):
    """Flexion angle [deg] and cross-section growth A / A(0) - 1 [%] against time [s], time (n,),
    angle (n,), section (n,) [m^2]; the moment the elbow first reaches 90 deg is marked in both
    panels with softmech's growth there, beside the paper's ~28 % and the experiments' 30-34 %
    at 90 deg (Zhang et al. 2019, Fig. 1). Returns path."""
    from softmech.scenarios.elbow import first_crossing

    fig, (ax, bx) = figure(2)
    ax.plot(time, angle, color="C0")
    ax.axhline(90.0, color="k", lw=1, ls=":", label="90 deg")
    ax.set_ylabel("elbow flexion [deg]")
    growth = 100.0 * (np.asarray(section) / section[0] - 1.0)
    bx.plot(time, growth, color="C1", label="biceps cross-section (model)")
    bx.axhspan(30.0, 34.0, color="0.9", label="experiments at 90 deg: 30-34 %")
    bx.axhline(28.0, color="C3", lw=1, ls="--", label="Zhang et al. 2019 at 90 deg: ~28 %")
    t90 = first_crossing(np.asarray(angle), np.asarray(time))
    if np.isfinite(t90):
        g90 = first_crossing(np.asarray(angle), growth)
        for axis in (ax, bx):
            axis.axvline(t90, color="k", lw=1, ls=":")
        bx.plot([t90], [g90], "o", color="C1", label=f"softmech at 90 deg: {g90:.1f} %")
    ax.legend(loc="lower right")
    bx.set_xlabel("time t [s]")
    bx.set_ylabel("cross-section growth [%]")
    bx.legend(loc="upper left")
    ax.set_title("Elbow flexion by the biceps")
    return save(fig, path, dpi=120)


def plot_isometric(path, eta_grid, force_curve, eta, force):
    """Isometric map: the force-length curve F / F_max against eta and the simulated
    equilibria (eta, F_set / F_max); returns path."""
    fig, ax = figure(1)
    ax.plot(eta_grid, force_curve, color="k", lw=1, label="active + passive + elastic curve")
    ax.plot(eta, force, "o", color="C0", label="simulated equilibria (one rod per world)")
    ax.set_xlabel("stretch eta = L / L0 [-]")
    ax.set_ylabel("F_set / F_max [-]")
    ax.set_ylim(0.0, 2.0)
    ax.set_title("Isometric force-length map (cf. Zhang et al. 2019, Fig. 1c)")
    ax.legend(loc="upper left")
    return save(fig, path, dpi=120)


def plot_walker(path, time, displacement, frequencies, speed):
    """Each walker's centre-of-mass displacement along x [mm] over time [s] (top) and its mean
    speed [um/s] against stimulation frequency [Hz] (bottom); returns path."""
    fig, (ax, bx) = figure(2, sharex=False)
    for d, f in zip(displacement, frequencies):
        ax.plot(time, 1e3 * d, label=f"{f:g} Hz")
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("displacement along x [mm]")
    ax.legend(loc="upper left")
    ax.set_title("Bio-hybrid walkers under |sin| stimulation")
    bx.plot(frequencies, 1e6 * np.asarray(speed), "o-", color="C3")
    bx.axhline(0.0, color="k", lw=1, ls=":")
    bx.set_xlabel("stimulation frequency f [Hz]")
    bx.set_ylabel("mean speed [um/s]")
    return save(fig, path, dpi=120)


def plot_wing_angles(path, time, dorsoventral, anteroposterior, elbow, initiation, frequency,
                     bird=None, bird_label="bird"):
    """The wing's three joint angles [deg] against time [s] (cf. Zhang et al. 2019, Fig. 4e),
    the initiation phase shaded and the downstroke (first 55 % of the cycle) marked; bird
    (optional): a bird's ranges over a wingbeat {'dorsoventral': (min, max), 'elbow': (min,
    max), 'anteroposterior': excursion} [deg], drawn beside the curves over the cycle (ranges
    as bands between dashed lines, the excursion as a band of that height centred on ours;
    nothing when the run ends within the initiation); returns path."""
    fig, ax = figure(1)
    ax.axvspan(0.0, initiation, color="0.93", label="initiation")
    down = initiation + 0.55 / frequency
    ax.axvspan(initiation, min(down, time[-1]), color="#dce9f5", label="downstroke")
    curves = (("dorsoventral", dorsoventral, "C0", "dorsoventral (shoulder, + up)"),
              ("anteroposterior", anteroposterior, "C1", "anteroposterior (shoulder, + forward)"),
              ("elbow", elbow, "C2", "elbow (180 = straight)"))
    for key, angle, color, label in curves:
        ax.plot(time, angle, color=color, label=label)
    if bird is not None and time[-1] > initiation:     # the bird's wingbeat: after the initiation
        t0, t1 = initiation, time[-1]
        for key, angle, color, _ in curves:
            band = bird[key]
            if np.ndim(band) == 0:       # an excursion only: centred on ours over the cycle
                cycle = np.asarray(angle)[np.asarray(time) >= initiation]
                mid = 0.5 * (cycle.min() + cycle.max())
                band = (mid - band / 2, mid + band / 2)
            ax.fill_between([t0, t1], *band, color=color, alpha=0.12, lw=0)
            for v in band:
                ax.hlines(v, t0, t1, color=color, lw=1, ls="--")
        ax.plot([], [], color="0.4", ls="--", label=f"{bird_label}: range over a wingbeat")
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("joint angle [deg]")
    ax.set_title("Feathered wing: joint angles through one flapping cycle")
    low, high = ax.get_ylim()
    ax.set_ylim(low, high + 0.45 * (high - low))     # room above the curves for the legend
    ax.legend(loc="upper center", ncol=2, fontsize="x-small")
    return save(fig, path, dpi=120)
