"""Pictures of the continuous-torque Stokes swimmer (softmech.scenarios.torque_swimmer), made
from recorded arrays: the midlines over the last analysed beat with the measured wave envelope,
the centre of mass against time with the measured and predicted speeds, a top-view video; and
`TorqueSwimmerReport`, its part of `softmech run` (softmech.commands.reports).

Array arguments (one world): time (n,) [s], com (n, 3) [m], positions (n, n_nodes, 3) [m].
"""
import os

import numpy as np

from softmech.text import NOT_MEASURED, measured
from softmech.viz.figures import figure, save
from softmech.viz.swimmer import SwimmerReport


def plot_midlines(path, positions, *, arc_length, amplitude, length, wavelength):
    """Midlines of one beat in the frame of their mean centre (x along the initial axis), coloured
    by phase, with the fitted envelope +-A(s) of the curvature wave; arc_length (n_vor,) [m]
    from the head (the last node), amplitude (n_vor,) [m]; returns path."""
    import matplotlib

    fig, ax = figure(size=(8.0, 3.2))
    cmap = matplotlib.colormaps["viridis"]
    centred = positions[..., :2] - positions[..., :2].mean(axis=(0, 1))
    for i, x in enumerate(centred):
        ax.plot(x[:, 0], x[:, 1], color=cmap(i / max(len(centred) - 1, 1)), lw=0.9)
    x_env = centred[:, -1, 0].mean() - arc_length        # head at the mean head position
    ax.plot(x_env, amplitude, "k--", lw=1.0, label="fitted amplitude A(s) = |kappa|(s) / k^2")
    ax.plot(x_env, -amplitude, "k--", lw=1.0)
    ax.plot(centred[0, -1, 0], centred[0, -1, 1], "ko", ms=3, label="head")
    ax.set_xlabel("x [m] (swimming towards +x)")
    ax.set_ylabel("y [m] (scale exaggerated)")
    ax.set_title(f"Midlines over one beat (colour: phase), L = {length:g} m, "
                 f"wavelength {wavelength:.3g} m")
    ax.legend(loc="upper right", fontsize="small")
    return save(fig, path, dpi=120)


def plot_centre(path, time, com, *, period, window, speed, taylor):
    """Centre of mass x and y [m] against time in periods, with lines of the measured mean speed
    over the window (t0, t1) [s] and of Taylor's speed through the same start; returns path."""
    fig, (top, bottom) = figure(rows=2)
    rel = com[:, :2] - com[0, :2]
    beats = time / period
    top.plot(beats, rel[:, 0], color="C0", label="centre of mass x")
    t0, t1 = window
    i0 = int(np.argmin(np.abs(time - t0)))
    span = np.array([t0, t1])
    top.plot(span / period, rel[i0, 0] + speed * (span - t0), "C1--",
             label=f"mean speed {speed:.4g} m/s (periods {t0 / period:g}-{t1 / period:g})")
    top.plot(span / period, rel[i0, 0] + taylor * (span - t0), "C3:",
             label=f"Taylor (c_n/c_t - 1) omega k <A^2> / 2 = {taylor:.4g} m/s")
    top.set_ylabel("x - x(0) [m]")
    top.legend(loc="upper left", fontsize="small")
    bottom.plot(beats, rel[:, 1], color="C2", label="centre of mass y")
    bottom.set_ylabel("y - y(0) [m]")
    bottom.set_xlabel("beats t / T [-]")
    bottom.legend(loc="upper left", fontsize="small")
    return save(fig, path, dpi=120)


class TorqueSwimmerReport(SwimmerReport):
    """`softmech run torque_swimmer`: speed, wave amplitude and wavelength measured from the
    midlines, Taylor's speed for them and the RFT quadrature of the recorded shapes; midlines,
    centre of mass against time, video. Records like the bio-hybrid swimmer's report (the
    rod's `fields` and energies, `samples_per_period` samples per beat)."""

    fields = ("com", "positions", "velocities")
    samples_per_period = 40
    derived_units = {"analysis_window": "s", "swimming_speed": "m/s", "taylor_speed": "m/s",
                     "rft_speed": "m/s", "wave_number": "1/m", "wave_amplitude": "m",
                     "effective_amplitude": "m", "amplitude_profile": "m",
                     "profile_arc_length": "m (from the head)"}

    @staticmethod
    def derive(data, info):
        """Adds the measured wave and speeds to data (softmech.scenarios.torque_swimmer.analyse
        over analysis_window); returns the metrics."""
        from softmech.scenarios.torque_swimmer import analyse, analysis_window

        first, last = analysis_window(info.duration, info.period)
        rod = info.rod
        m = analyse(data["time"], data[f"{rod}.com"][0], data[f"{rod}.positions"][0],
                    data[f"{rod}.velocities"][0], info, first, last)
        data["analysis_window"] = np.array([first, last]) * info.period
        data["amplitude_profile"], data["profile_arc_length"] = m.pop("amplitude_profile"), \
            m.pop("arc_length")
        for key, name in (("speed", "swimming_speed"), ("taylor_speed", "taylor_speed"),
                          ("rft_speed", "rft_speed"), ("k", "wave_number"),
                          ("peak_amplitude", "wave_amplitude"),
                          ("effective_amplitude", "effective_amplitude")):
            data[name] = np.array([m[key]])
        m["analysis_window"] = [first * info.period, last * info.period]
        m["steady"] = bool(first >= 2)          # a whole beat after the muscles' ramp-up
        return m

    @staticmethod
    def summary(m):
        t0, t1 = m["analysis_window"]
        return [f"speed {measured(m['speed'], '.4g', 'm/s', NOT_MEASURED + ' (no whole beat)')} "
                f"head first over t = {t0:g}-{t1:g} s (RFT quadrature of the recorded shapes "
                f"{measured(m['rft_speed'], '.4g', 'm/s')})",
                f"wave: wavelength {m['wavelength']:.4g} m, amplitude {m['peak_amplitude']:.4g} m "
                f"(peak; effective sqrt<A^2> {m['effective_amplitude']:.4g} m), k A = "
                f"{m['k'] * m['peak_amplitude']:.3g}",
                f"Taylor's small-amplitude speed {m['taylor_speed']:.4g} m/s: "
                f"{measured(m['relative_difference'], '+.1%')}; rho A omega / c_n = "
                f"{m['inertia_ratio']:.2g}, Re = {m['reynolds']:.2g} (peak lateral velocity), "
                f"{measured(m['swimming_reynolds'], '.2g')} (swimming speed)"] + ([] if m["steady"] else [
                    "run shorter than 3 periods: the window includes the muscles' ramp-up, "
                    "so these are not the steady beat's numbers"])

    @classmethod
    def plot(cls, data, info, output_dir):
        t, rod = data["time"], info.rod
        x, com = data[f"{rod}.positions"][0], data[f"{rod}.com"][0]
        t0, t1 = data["analysis_window"]
        beat = (t >= t1 - info.period - 1e-9) & (t < t1 - 1e-9)
        files = [plot_midlines(os.path.join(output_dir, "midlines.png"), x[beat],
                               arc_length=data["profile_arc_length"],
                               amplitude=data["amplitude_profile"], length=info.length,
                               wavelength=info.wavelength),
                 plot_centre(os.path.join(output_dir, "centre.png"), t, com, period=info.period,
                             window=(t0, t1), speed=float(data["swimming_speed"][0]),
                             taylor=float(data["taylor_speed"][0]))]
        return files

    @staticmethod
    def video(data, info, output_dir):
        """torque_swimmer.mp4: the top view, one frame per sample at 25 frames/s."""
        from softmech.commands.report_base import Video
        from softmech.viz.snake import top_view_frames
        from softmech.viz.video import write_video

        t, rod = data["time"], info.rod
        x, com = data[f"{rod}.positions"][0], data[f"{rod}.com"][0]
        return Video(len(t), lambda: write_video(
            top_view_frames(t, x, radius=info.radius, time=t, com=com, title="torque swimmer"),
            os.path.join(output_dir, "torque_swimmer.mp4"), fps=25.0))
