"""What every report of `softmech run` shares (softmech.commands.reports holds the protocol
and picks a scene's report): the generic report (centre of mass and energies), the assembly
report (every body's pose, a still and a video), the number of samples, the energy plot and
the Video a report hands to the run command (which writes it after the plots).
The scene-specific reports build on these (softmech.commands.reports, discrete_reports,
underwater_report; softmech.viz.swimmer, softmech.viz.torque_swimmer)."""
import os
from typing import Callable, NamedTuple

import numpy as np

from softmech.viz.plots import ENERGY_FIELDS

N_SAMPLES = 200
"""Recorded samples per run (the record interval is duration / N_SAMPLES, at least one step)."""


class GenericReport:
    """Any scene: records the centre of mass and every rod's positions; no scene-specific
    metrics or plots."""

    fields = ("com",)
    """Fields of info.rod recorded (with the energies) into results.h5."""
    rod_fields = ("positions",)
    """Fields recorded for every rod, so that `softmech view` and `softmech render` can draw
    any scene's run."""

    @classmethod
    def record_fields(cls, scene, info):
        """Results keys recorded into results.h5: `fields` and the energies of info.rod, and
        `rod_fields` of every rod."""
        own = tuple(f"{info.rod}.{f}" for f in cls.fields + ENERGY_FIELDS)
        every = tuple(f"{r.name}.{f}" for r in scene.rods for f in cls.rod_fields)
        return tuple(dict.fromkeys(own + every))

    @staticmethod
    def sample_interval(info):
        """Record interval [s]: N_SAMPLES samples over the run."""
        return info.duration / N_SAMPLES

    @staticmethod
    def derive(data, info):
        return {}

    @staticmethod
    def summary(metrics):
        return []

    @staticmethod
    def warnings(metrics):
        """Lines that `softmech run` prints as warnings (e.g. a static result that has not
        settled); none by default."""
        return []

    @staticmethod
    def plot(data, info, output_dir):
        return []

    @staticmethod
    def video(data, info, output_dir):
        """The scene's Video, written after the plots; None: no video."""
        return None


class Video(NamedTuple):
    """A video a report asks for: its number of frames (announced before it is drawn, the
    slowest part of a run's output) and write() -> the path written (.mp4, or .gif)."""
    n_frames: int
    write: Callable[[], str]


class AssemblyReport(GenericReport):
    """A scene with rigid bodies or joints: every body's pose is recorded, and the centre of
    mass of every body (com.png), a still (<scene>_tubes_t<T>s.png) and a video
    (<scene>_tubes.mp4) of all bodies and joints are made from results.h5
    (softmech.commands.render)."""

    body_fields = ("com", "positions", "directors")
    """Fields recorded for every rod and rigid body (with the energies of info.rod)."""
    video_seconds = (4.0, 10.0)
    """Shortest and longest video [s]: a shorter run is played in slow motion (a 0.4 s run
    over 4 s: 100 frames, not 10), a longer one faster than real time."""

    @classmethod
    def record_fields(cls, scene, info):
        return tuple(f"{b.name}.{f}" for b in scene.rods + scene.rigid_bodies
                     for f in cls.body_fields) + tuple(f"{info.rod}.{f}" for f in ENERGY_FIELDS)

    @classmethod
    def plot(cls, data, info, output_dir, prepare=None):
        """com.png and the still. prepare: None, or a function RenderData -> RenderData applied
        before drawing the still and the video (e.g. softmech.viz.underwater.revolve_shells)."""
        from softmech.viz.plots import plot_com

        raw, scene, floor = cls._pictured(output_dir, prepare)
        return [plot_com(raw.results, os.path.join(output_dir, "com.png"), world=0),
                tube_still(scene, output_dir, floor, cls.still_time(data, info))]

    @staticmethod
    def still_time(data, info):
        """Time [s] of the still: the moment that shows the result (e.g. an impact); None:
        the last sample."""
        return None

    @classmethod
    def video(cls, data, info, output_dir, prepare=None):
        """The tubes video at 25 frames/s, as long as the run within video_seconds (slow
        motion below, faster than real time above)."""
        _, scene, floor = cls._pictured(output_dir, prepare)
        return tube_video(scene, output_dir, floor, 25.0,
                          video_speed(scene.time, *cls.video_seconds))

    @staticmethod
    def _pictured(output_dir, prepare):
        """(the run's results.h5 as softmech.viz.source.RenderData, the same prepared for
        drawing, the height [m] of the floor under the prepared bodies or None)."""
        from softmech.viz.geometry import View
        from softmech.viz.source import ground_height, read_results

        raw = read_results(os.path.join(output_dir, "results.h5"))
        scene = raw if prepare is None else prepare(raw)
        return raw, scene, ground_height(scene, 0, View().up)


def tube_still(scene, output_dir, floor, time=None):
    """The still of world 0 at the sample nearest to `time` [s] (None: the last), drawn as
    tubes (softmech render's defaults); returns its path. scene:
    softmech.viz.source.RenderData; floor: height [m] or None."""
    from softmech.commands import render
    from softmech.viz.geometry import View

    return render.render_still(scene, output_dir, "tubes", 0, time, View(), floor,
                               render.STILL_SIZE + (9, 0.3))


def video_speed(time, shortest, longest):
    """Simulated seconds per second of video [-] that play the samples `time` (n,) [s] in
    `shortest` to `longest` seconds: real time (1) when the run lasts that long, slow motion
    (< 1) for a shorter run, faster (> 1) for a longer one."""
    duration = float(time[-1] - time[0]) if len(time) > 1 else 0.0
    if duration <= 0.0:
        return 1.0
    return duration / min(max(duration, shortest), longest)


def tube_video(scene, output_dir, floor, fps, speed):
    """The Video of world 0 drawn as tubes: fps frames [1/s] showing `speed` simulated seconds
    per second (softmech render --video)."""
    from softmech.commands import render
    from softmech.viz.geometry import View
    from softmech.viz.source import frame_samples

    return Video(len(frame_samples(scene.time, fps, speed)), lambda: render.render_video(
        scene, output_dir, "tubes", 0, View(), floor, render.VIDEO_SIZE + (9, 0.3), fps, speed,
        progress=False))


def video_frames(time, positions, frame_every):
    """Every k-th sample (k = frame_every / sample interval, rounded, at least 1) and the last one:
    time (n,) [s], positions (n, ...) -> (frame_time (m,) [s], frame positions (m, ...))."""
    k = max(1, int(round(frame_every / (time[1] - time[0])))) if len(time) > 1 else 1
    index = np.arange(0, len(time), k)
    if index[-1] != len(time) - 1:
        index = np.append(index, len(time) - 1)
    return time[index], positions[index]



def plot_energy(data, info, path):
    """Energies of info.rod in world 0 over time (softmech.viz.plots.plot_energies); returns path."""
    from softmech.viz.plots import plot_energies

    return plot_energies(data, path, world=0, rod=info.rod)
