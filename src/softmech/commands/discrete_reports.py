"""`softmech run` reports of the scenes of discrete rods and shells (implicit integration):
what they record, derive and draw (softmech.commands.run holds the reports' protocol)."""
import os

import numpy as np

from softmech.commands.report_base import AssemblyReport
from softmech.scenarios.discrete import FALLING_ROD
from softmech.viz.figures import figure, save
from softmech.viz.plots import ENERGY_FIELDS

MM = 1e3


class DiscreteReport(AssemblyReport):
    """Any scene of discrete rods and shells: every body's positions and centre of mass, the
    energies of info.rod; com.png, a still and a video (the assembly report's pictures)."""

    body_fields = ("com", "positions")

    @classmethod
    def record_fields(cls, scene, info):
        return tuple(f"{b.name}.{f}" for b in scene.implicit_bodies
                     for f in cls.body_fields) + tuple(f"{info.rod}.{f}" for f in ENERGY_FIELDS)


def chord_deviation(positions):
    """Largest distance [m] of a rod's nodes from the chord through its end nodes, per sample:
    positions (n_samples, n_nodes, 3) -> (n_samples,). 0 for a straight rod."""
    a, b = positions[:, :1], positions[:, -1:]
    u = (b - a) / np.linalg.norm(b - a, axis=2, keepdims=True)
    rel = positions - a
    perp = rel - np.sum(rel * u, axis=2, keepdims=True) * u
    return np.linalg.norm(perp, axis=2).max(axis=1)


class FallingRodReport(DiscreteReport):
    """falling_rod: how far each rod bends out of straight (largest distance of a node from its
    chord) and its lowest point, over time; the soft rod's largest bend against the stiff's."""

    RODS = ("soft", "stiff")
    derived_units = {f"{name}_{key}": "m" for name in RODS for key in ("bend", "lowest")}
    """Units of the derived time series (results.h5 /derived)."""

    @staticmethod
    def sample_interval(info):
        return 2e-3

    @classmethod
    def derive(cls, data, info):
        metrics = {}
        for name in cls.RODS:
            x = data[f"{name}.positions"][0]
            data[f"{name}_bend"] = chord_deviation(x)
            data[f"{name}_lowest"] = x[:, :, 2].min(axis=1)
            metrics[f"{name}_max_bend"] = float(data[f"{name}_bend"].max())
            # first touch: a node's centre within the rod's radius (the contact distance)
            touch = np.flatnonzero(data[f"{name}_lowest"] <= FALLING_ROD["radius"] * 1.0001)
            metrics[f"{name}_landing_time"] = float(data["time"][touch[0]]) if touch.size else None
        return metrics

    @staticmethod
    def summary(m):
        return [f"largest bend out of straight: soft {m['soft_max_bend'] * MM:.3f} mm, stiff "
                f"{m['stiff_max_bend'] * MM:.4f} mm; first touch at t = {m['soft_landing_time']} s"
                f" (soft), {m['stiff_landing_time']} s (stiff)"]

    @classmethod
    def plot(cls, data, info, output_dir):
        files = super().plot(data, info, output_dir)
        t = data["time"]
        fig, (ax, bx) = figure(rows=2)
        for name, color in zip(cls.RODS, ("C1", "C0")):
            ax.plot(t, data[f"{name}_bend"] * MM, color=color, label=f"{name} rod")
            bx.plot(t, data[f"{name}_lowest"] * MM, color=color, label=f"{name} rod")
        ax.set_ylabel("bend: largest distance\nfrom the chord [mm]")
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.set_title("Falling rods: the soft one bends on impact, the stiff one hardly")
        ax.legend(loc="upper right")
        bx.set_xlabel("time t [s]")
        bx.set_ylabel("lowest point z [mm]")
        bx.legend(loc="upper right")
        return files + [save(fig, os.path.join(output_dir, "bend.png"), dpi=120)]


DISCRETE_REPORTS = {"falling_rod": FallingRodReport}
"""Template name -> report, merged into softmech.commands.run.REPORTS."""
