"""Pictures of the slithering snake, made from recorded arrays (never from a live simulation):
the centre-of-mass track with body outlines, the forward / lateral velocities, and the frames of
a top-view video. The ground is the x-y plane; "forward" is +x (the snake starts along +x with
its head, the last node, in front) and "lateral" is y.

Array arguments (one world):

    time (n,) [s], com (n, 3) [m], com_velocity (n, 3) [m/s]: the finely sampled series;
    frame_time (m,) [s], positions (m, n_nodes, 3) [m]: the coarser samples of the body.

"""
import numpy as np

from softmech.viz.figures import figure, save

TIME_COLORMAP = "viridis"


def body_outline(positions, radius):
    """Closed polygon (..., 2 n_nodes + 1, 2) [m] of the body seen from above: the
    centreline's x-y offset by +-radius along its in-plane normal. positions (...,
    n_nodes, 3) [m] (one body, or one per frame: the same numbers as one at a time),
    radius [m] (a number, or per node (n_nodes, 1))."""
    xy = np.asarray(positions, dtype=float)[..., :2]
    tangent = np.gradient(xy, axis=-2)
    tangent /= np.maximum(np.linalg.norm(tangent, axis=-1, keepdims=True), 1e-300)
    normal = np.stack([-tangent[..., 1], tangent[..., 0]], axis=-1)
    left, right = xy + radius * normal, xy - radius * normal
    return np.concatenate([left, right[..., ::-1, :], left[..., :1, :]], axis=-2)


def snapshot_indices(frame_time, every):
    """Indices of the frames closest to t = 0, every, 2 every, ... <= frame_time[-1]."""
    targets = np.arange(0.0, frame_time[-1] + 1e-9, every)
    return sorted({int(np.argmin(np.abs(frame_time - t))) for t in targets})


def plot_com_track(path, time, com, frame_time, positions, *, radius, snapshot_every=2.0,
                   title="Snake: centre-of-mass track (top view)"):
    """Top view (x-y, equal aspect) of the centre-of-mass track, with the body outlined at
    t = 0, snapshot_every, 2 snapshot_every, ... [s] (coloured by time, head marked). Writes
    `path` (PNG) and returns it."""
    import matplotlib

    shown = snapshot_indices(frame_time, snapshot_every)
    outlines = [body_outline(positions[k], radius) for k in shown]
    points = np.concatenate(outlines + [com[:, :2]])
    lo, hi = points.min(axis=0), points.max(axis=0)
    span = np.maximum(hi - lo, 1e-3)
    xlim = (lo[0] - 0.05 * span[0], hi[0] + 0.05 * span[0])
    ylim = (lo[1] - 0.15 * span[1] - 0.05, hi[1] + 0.1 * span[1])
    # figure height from the track's aspect ratio: axes ~ 8.6 in wide, ~1.4 in of title, labels
    # and legend
    aspect = (ylim[1] - ylim[0]) / (xlim[1] - xlim[0])
    fig, ax = figure(size=(9.0, float(np.clip(8.6 * aspect + 1.4, 2.6, 9.0))))
    cmap = matplotlib.colormaps[TIME_COLORMAP]
    t_end = max(float(frame_time[-1]), 1e-12)
    for k, outline in zip(shown, outlines):
        color = cmap(0.9 * frame_time[k] / t_end)
        ax.fill(outline[:, 0], outline[:, 1], color=color, alpha=0.85, lw=0.8, ec="k")
        ax.plot(*positions[k, -1, :2], "o", ms=4, color="k", zorder=4)
        # label under the body (bodies at different times are apart along x, not along y)
        ax.annotate(f"t = {frame_time[k]:.3g} s", (outline[:, 0].mean(), outline[:, 1].min()),
                    xytext=(0, -4), textcoords="offset points", ha="center", va="top",
                    fontsize="small")
    ax.plot(com[:, 0], com[:, 1], color="C3", lw=1.6, zorder=5)
    ax.plot(*com[0, :2], "s", color="C3", ms=5, zorder=6)
    ax.plot(*com[-1, :2], ">", color="C3", ms=6, zorder=6)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x (forward) [m]")
    ax.set_ylabel("y (lateral) [m]")
    ax.set_title(title)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Line2D([], [], color="C3", lw=1.6, marker=">", ms=6,
                      label=f"centre of mass ({time[0]:.3g} s to {time[-1]:.3g} s)"),
               Line2D([], [], color="k", marker="o", ms=4, ls="", label="head"),
               Patch(fc=cmap(0.45), ec="k", label="body outline (colour: time)")]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize="small")
    return save(fig, path)


def plot_velocities(path, time, com_velocity, *, period, window, mean_forward, mean_lateral,
                    reference_speed=None, ramp_time=None, travel=None):
    """Forward (x) and lateral (y) centre-of-mass velocities [m/s] over time, with their means
    over `window` = (t0, t1) [s] drawn over that window, the reference forward speed (dashed),
    and the muscle ramp shaded. travel: None or (heading [deg], mean lateral speed across the
    direction of travel [m/s], reference lateral speed [m/s]) (travel_velocities): the lateral
    panel then also shows the velocity across that direction and its mean. Writes `path` (PNG)
    and returns it."""
    fig, (top, bottom) = figure(rows=2, size=(10.0, 5.6))
    t0, t1 = window
    for ax, k, mean, name in ((top, 0, mean_forward, "forward"),
                              (bottom, 1, mean_lateral, "lateral")):
        ax.plot(time, com_velocity[:, k], color="C0", lw=1.0, label=f"{name} velocity")
        ax.axhline(0.0, color="0.5", lw=0.6)
        ax.plot([t0, t1], [mean, mean], color="C3", lw=2.2,
                label=f"mean over t = {t0:.3g}-{t1:.3g} s: {mean:+.3f} m/s")
        ax.axvspan(t0, t1, color="C3", alpha=0.06)
        if ramp_time:
            ax.axvspan(0.0, min(ramp_time, time[-1]), color="0.85", alpha=0.6,
                       label="muscle ramp")
        ax.grid(True, alpha=0.3)
    if travel is not None and np.isfinite(travel[0]):
        heading, across_mean, reference_lateral = travel
        h = np.radians(heading)
        across = -com_velocity[:, 0] * np.sin(h) + com_velocity[:, 1] * np.cos(h)
        bottom.plot(time, across, color="C2", lw=0.8, alpha=0.8,
                    label=f"across the direction of travel ({heading:+.1f} deg)")
        bottom.plot([t0, t1], [across_mean, across_mean], color="C2", lw=2.2, ls="--",
                    label=f"its mean: {across_mean:+.4f} m/s (course {reference_lateral:+g})")
    if reference_speed is not None:
        top.axhline(reference_speed, color="k", ls="--", lw=1.0,
                    label=f"reference {reference_speed:g} m/s (ME498 handout)")
    top.set_ylabel("forward $v_x$ [m/s]")
    bottom.set_ylabel("lateral $v_y$ [m/s]")
    bottom.set_xlabel(f"time t [s]   (muscle period T = {period:g} s)")
    top.set_title("Snake: centre-of-mass velocity")
    for ax in (top, bottom):
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    if period > 0:
        ticks = np.arange(0.0, time[-1] + 1e-9, period)
        if 2 <= len(ticks) <= 25:
            bottom.set_xticks(ticks)
    return save(fig, path)


def top_view_frames(frame_time, positions, *, radius, time=None, com=None, size_px=(960, 480),
                    dpi=100, title="snake", workers=None):
    """Frames of a top-view video: the body outline at each frame time, the centre-of-mass track
    so far, the clock; fixed axes (equal aspect) covering the whole run. Yields RGBA uint8 arrays
    of shape (size_px[1], size_px[0], 4). time/com: the finely sampled track (optional); title:
    the body's name in the clock line; workers: see softmech.viz.frame_workers.frames_in_order."""
    from softmech.viz.video import figure_frames

    width, height = size_px
    fig, ax = figure(size=(width / dpi, height / dpi), layout=None)
    fig.set_dpi(dpi)
    box = (0.08, 0.11, 0.98, 0.93)              # left, bottom, right, top (figure fractions)
    fig.subplots_adjust(left=box[0], bottom=box[1], right=box[2], top=box[3])
    # fixed limits covering the whole run, widened so that 1 m is as long along x as along y
    xy = positions[..., :2]
    lo, hi = xy.min(axis=(0, 1)) - 4 * radius, xy.max(axis=(0, 1)) + 4 * radius
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    box_aspect = (box[3] - box[1]) * height / ((box[2] - box[0]) * width)      # height / width
    half = np.maximum(half, half[::-1] * np.array([1.0 / box_aspect, box_aspect]))
    ax.set_xlim(centre[0] - half[0], centre[0] + half[0])
    ax.set_ylim(centre[1] - half[1], centre[1] + half[1])
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("x (forward) [m]")
    ax.set_ylabel("y (lateral) [m]")
    ax.grid(True, alpha=0.3)
    outlines = body_outline(positions, radius)     # of every frame at once
    body = ax.fill(*outlines[0].T, color="C2", ec="k", lw=0.8)[0]
    head, = ax.plot([], [], "o", color="k", ms=4, label="head")
    track, = ax.plot([], [], color="C3", lw=1.2, label="centre of mass")
    ax.legend(loc="upper right", fontsize="small")

    def update(i):
        body.set_xy(outlines[i])
        head.set_data([positions[i, -1, 0]], [positions[i, -1, 1]])
        if com is not None:
            upto = np.searchsorted(time, frame_time[i], side="right")
            track.set_data(com[:upto, 0], com[:upto, 1])

    # the clock line: its fixed start drawn once, the time stamped per frame
    fixed, ends = f"{title}, top view    t = ", [f"{t:5.2f} s" for t in frame_time]
    # at the axes' top (y = 1, where matplotlib places it when no tick label is above the
    # axes): placed by hand, the title spares the drawing the search for what is above the
    # axes (the y axis' tight box: ~1/3 of the figure's one full drawing)
    clock = (ax.set_title(fixed + ends[0], y=1.0), fixed, ends)
    return figure_frames(fig, update, len(frame_time), artists=[body, head, track],
                         workers=workers, clock=clock)
