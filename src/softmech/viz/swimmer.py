"""Pictures of the bio-hybrid swimmer (softmech.scenarios.swimmer), made from recorded arrays:
the centre's displacement over the beats (Zhang et al. 2019, Fig. 2b), the flagellum's midlines
over one beat (Fig. 2d) and a top-view video; and `SwimmerReport`, the swimmer's part of
`softmech run` (commands/run.py). Lengths are drawn in micrometres.

Array arguments (one world): time (n,) [s], com (n, 3) [m]; positions (n, n_nodes, 3) [m];
node_radius (n_nodes,) [m].
"""
import os

import numpy as np

from softmech.viz.figures import figure, save
from softmech.viz.snake import body_outline

UM = 1e6


def node_radius(elem_radius):
    """Per-node radius [m] (n_nodes,) from per-element radii (n_elems,): the larger neighbour."""
    r = np.asarray(elem_radius, dtype=float)
    return np.maximum(np.concatenate([r[:1], r]), np.concatenate([r, r[-1:]]))


def plot_displacement(path, time, net, forward, *, period, speed):
    """Centre-of-mass displacement [um] against beats: its length and its component along the
    initial axis (head first); returns path."""
    fig, ax = figure()
    ax.plot(time / period, net * UM, color="C0", label="|displacement| of the centre")
    ax.plot(time / period, forward * UM, color="C1", ls="--", label="along the initial axis (head first)")
    ax.set_xlabel("beats t f [-]")
    ax.set_ylabel("centre displacement [um]")
    ax.set_title(f"Bio-hybrid swimmer: {speed * UM:.1f} um/s ({speed * period * UM:.1f} um per beat)")
    ax.legend(loc="upper left")
    return save(fig, path, dpi=120)


def plot_midlines(path, positions, *, radius):
    """Midlines of one beat (the last recorded one), in the frame of their mean centre, coloured
    by phase, with the body at the start of the beat; returns path."""
    import matplotlib

    fig, ax = figure(size=(7.0, 3.6))
    cmap = matplotlib.colormaps["viridis"]
    centred = positions - np.append(positions[:, :, :2].mean(axis=(0, 1)), 0.0)
    n = len(centred)
    ax.fill(*(body_outline(centred[0], radius[:, None]) * UM).T, color="0.85", ec="0.4", lw=0.6,
            label="body at the beat's start")
    for i, x in enumerate(centred):
        ax.plot(x[:, 0] * UM, x[:, 1] * UM, color=cmap(i / max(n - 1, 1)), lw=0.9)
    ax.plot(centred[0, 0, 0] * UM, centred[0, 0, 1] * UM, "ko", ms=3, label="head")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [um]")
    ax.set_ylabel("y [um]")
    ax.set_title("Midlines over one beat (colour: phase)")
    ax.legend(loc="upper right", fontsize="small")
    return save(fig, path, dpi=120)


def top_view_frames(frame_time, positions, *, radius, time, com, size_px=(960, 480), dpi=100):
    """Frames (RGBA uint8, figure_frames) of a top-view video: body outline, centre track,
    clock."""
    from softmech.viz.video import figure_frames

    width, height = size_px
    fig, ax = figure(size=(width / dpi, height / dpi))
    fig.set_dpi(dpi)
    xy = positions[..., :2] * UM
    pad = 4 * radius.max() * UM
    ax.set_xlim(xy[..., 0].min() - pad, xy[..., 0].max() + pad)
    ax.set_ylim(xy[..., 1].min() - pad, xy[..., 1].max() + pad)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [um] (swimming towards -x)")
    ax.set_ylabel("y [um]")
    body = ax.fill(*(body_outline(positions[0], radius[:, None]) * UM).T, color="C2", ec="k",
                   lw=0.8)[0]
    track, = ax.plot([], [], color="C3", lw=1.2, label="centre of mass")
    ax.legend(loc="upper right", fontsize="small")
    clock = ax.set_title("")

    def update(i):
        body.set_xy(body_outline(positions[i], radius[:, None]) * UM)
        upto = np.searchsorted(time, frame_time[i], side="right")
        track.set_data(com[:upto, 0] * UM, com[:upto, 1] * UM)
        clock.set_text(f"bio-hybrid swimmer, top view    t = {frame_time[i]:6.3f} s")

    return figure_frames(fig, update, len(frame_time), artists=[body, track, clock])


class SwimmerReport:
    """`softmech run swimmer`: centre displacement and mean speed, midlines, video."""

    fields = ("com", "positions")
    samples_per_period = 20

    @classmethod
    def record_fields(cls, scene, info):
        """Results keys recorded into results.h5 (the report protocol of
        softmech.commands.run): `fields` and the energies of the swimmer's rod."""
        from softmech.viz.plots import ENERGY_FIELDS

        return tuple(f"{info.rod}.{f}" for f in cls.fields + ENERGY_FIELDS)

    @classmethod
    def sample_interval(cls, info):
        return info.period / cls.samples_per_period

    @staticmethod
    def derive(data, info):
        from softmech.scenarios.swimmer import centre_track

        net, forward, speed = centre_track(data["time"], data[f"{info.rod}.com"][0], info.period)
        data["net_displacement"], data["forward_displacement"] = net, forward
        data["mean_speed"] = np.array([speed])
        return {"mean_speed": speed, "displacement": float(net[-1]),
                "axial_displacement": float(forward[-1]),
                "cycles": float(data["time"][-1] / info.period)}

    @staticmethod
    def summary(m):
        return [f"speed {m['mean_speed'] * UM:.2f} um/s (distance per beat x frequency), centre "
                f"displacement {m['displacement'] * UM:.1f} um ({m['axial_displacement'] * UM:.1f} um "
                f"along the initial axis, head first) over {m['cycles']:g} beats"]

    @classmethod
    def plot(cls, data, info, output_dir):
        t, x = data["time"], data[f"{info.rod}.positions"][0]
        radius = node_radius(info.elem_radius)
        k = cls.samples_per_period
        last = x[-k - 1:] if len(x) > k else x
        files = [plot_displacement(os.path.join(output_dir, "displacement.png"), t,
                                   data["net_displacement"], data["forward_displacement"],
                                   period=info.period,
                                   speed=float(data["mean_speed"][0])),
                 plot_midlines(os.path.join(output_dir, "midlines.png"), last, radius=radius)]
        return files

    @staticmethod
    def video(data, info, output_dir):
        """swimmer.mp4: the top view, one frame per sample at 25 frames/s."""
        from softmech.commands.report_base import Video
        from softmech.viz.video import write_video

        t, rod = data["time"], info.rod
        x, com = data[f"{rod}.positions"][0], data[f"{rod}.com"][0]
        return Video(len(t), lambda: write_video(
            top_view_frames(t, x, radius=node_radius(info.elem_radius), time=t, com=com),
            os.path.join(output_dir, "swimmer.mp4"), fps=25.0))
