"""What every report of `softmech run` shares (softmech.commands.reports holds the protocol
and picks a scene's report): the generic report (centre of mass and energies), the assembly
report (every body's pose, a still and a video), the number of samples and the energy plot.
The scene-specific reports build on these (softmech.commands.reports, discrete_reports,
underwater_report; softmech.viz.swimmer, softmech.viz.torque_swimmer)."""
import os

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
    def plot(data, info, output_dir):
        return []


class AssemblyReport(GenericReport):
    """A scene with rigid bodies or joints: every body's pose is recorded, and the centre of
    mass of every body (com.png), a still (<scene>.png) and a video (<scene>.mp4) of all
    bodies and joints are made from results.h5 (softmech.commands.render)."""

    body_fields = ("com", "positions", "directors")
    """Fields recorded for every rod and rigid body (with the energies of info.rod)."""
    video_seconds = 10.0
    """Longest video [s]: a longer run is played faster than real time."""

    @classmethod
    def record_fields(cls, scene, info):
        return tuple(f"{b.name}.{f}" for b in scene.rods + scene.rigid_bodies
                     for f in cls.body_fields) + tuple(f"{info.rod}.{f}" for f in ENERGY_FIELDS)

    @classmethod
    def plot(cls, data, info, output_dir, prepare=None):
        """prepare: None, or a function RenderData -> RenderData applied before drawing the
        still and the video (e.g. softmech.viz.underwater.revolve_shells)."""
        from softmech.commands import render
        from softmech.viz.geometry import View
        from softmech.viz.plots import plot_com
        from softmech.viz.source import ground_height, read_results

        scene = read_results(os.path.join(output_dir, "results.h5"))
        view, world = View(), 0
        duration = float(scene.time[-1] - scene.time[0])
        speed = max(1.0, duration / cls.video_seconds)
        files = [plot_com(scene.results, os.path.join(output_dir, "com.png"), world=world)]
        if prepare is not None:
            scene = prepare(scene)
        floor = ground_height(scene, world, view.up)
        files.append(render.render_still(scene, output_dir, "tubes", world, None, view, floor,
                                         render.STILL_SIZE + (9, 0.3)))
        files.append(render.render_video(scene, output_dir, "tubes", world, view, floor,
                                         render.VIDEO_SIZE + (9, 0.3), 25.0, speed,
                                         progress=False))
        return files


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
