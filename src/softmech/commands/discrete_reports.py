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
    """Any scene of discrete rods and shells, alone or beside Cosserat rods and rigid bodies (a
    mixed scene, the unified engine): every discrete body's positions and centre of mass, the
    other bodies' fields of the assembly report, the energies of info.rod; com.png, a still and
    a video (the assembly report's pictures)."""

    body_fields = ("com", "positions")
    """A discrete rod or shell has no directors (its frames are edge-wise)."""

    @classmethod
    def record_fields(cls, scene, info):
        others = tuple(f"{b.name}.{f}" for b in scene.rods + scene.rigid_bodies
                       for f in AssemblyReport.body_fields)
        return others + tuple(f"{b.name}.{f}" for b in scene.implicit_bodies
                              for f in cls.body_fields) + tuple(f"{info.rod}.{f}"
                                                                for f in ENERGY_FIELDS)


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
    def still_time(data, info):
        """The impact: the sample of the soft rod's largest bend [s]."""
        return float(data["time"][int(np.argmax(data["soft_bend"]))])

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


def second_half(t):
    """Mask of the samples in the run's second half (t >= t_end / 2): after the start-up; every
    sample when the second half holds fewer than two (a run of a few samples)."""
    late = t >= 0.5 * t[-1]
    return late if np.count_nonzero(late) >= 2 else np.ones_like(late)


class MantaReport(DiscreteReport):
    """manta: the flapping (the wingtips' heights against the body's centre) and the swimming
    (the centre of mass along +y); headline: the mean forward speed over the run's second half
    and the wingtips' flapping amplitude there."""

    derived_units = {"left_tip_height": "m", "right_tip_height": "m", "forward": "m"}

    @staticmethod
    def sample_interval(info):
        return 0.02

    @classmethod
    def derive(cls, data, info):
        t, x = data["time"], data[f"{info.rod}.positions"][0]
        com = data[f"{info.rod}.com"][0]
        left, right = int(np.argmin(x[0, :, 0])), int(np.argmax(x[0, :, 0]))   # the wingtips
        data["left_tip_height"] = x[:, left, 2] - com[:, 2]
        data["right_tip_height"] = x[:, right, 2] - com[:, 2]
        data["forward"] = com[:, 1] - com[0, 1]
        late = second_half(t)
        speed = (com[-1, 1] - com[late][0, 1]) / (t[-1] - t[late][0])
        tip = data["right_tip_height"][late]
        return {"forward_speed": float(speed), "flapping_amplitude": float(np.ptp(tip) / 2),
                "sideways_drift": float(com[-1, 0] - com[0, 0])}

    @staticmethod
    def summary(m):
        return [f"swims forward (+y) at {m['forward_speed'] * MM:.2f} mm/s (second half of the "
                f"run), wingtips flapping +-{m['flapping_amplitude'] * MM:.1f} mm about the body, "
                f"sideways drift {m['sideways_drift'] * MM:+.3f} mm"]

    @classmethod
    def plot(cls, data, info, output_dir):
        files = super().plot(data, info, output_dir)
        t = data["time"]
        fig, (ax, bx) = figure(rows=2)
        ax.plot(t, data["left_tip_height"] * MM, color="C0", label="left wingtip")
        ax.plot(t, data["right_tip_height"] * MM, color="C1", ls="--", label="right wingtip")
        ax.set_ylabel("height above the\ncentre of mass [mm]")
        ax.set_title("Manta: the wings flap, the body swims forward")
        ax.legend(loc="upper right")
        bx.plot(t, data["forward"] * MM, color="C2")
        bx.set_xlabel("time t [s]")
        bx.set_ylabel("forward (+y) travel\nof the centre of mass [mm]")
        return files + [save(fig, os.path.join(output_dir, "flapping.png"), dpi=120)]


class ParachuteReport(DiscreteReport):
    """parachute: the payload's fall speed against free fall (g t) and the flat canopy's
    terminal speed (softmech.scenarios.shells.ParachuteInfo.terminal_speed)."""

    derived_units = {"fall_speed": "m/s"}

    @staticmethod
    def sample_interval(info):
        return 0.01

    @classmethod
    def derive(cls, data, info):
        rod, node = info.payload
        t = data["time"]
        z = data[f"{rod}.positions"][0][:, node, 2]
        data["fall_speed"] = -np.gradient(z, t, edge_order=2)     # exact for a quadratic z(t)
        return {"fall_speed": float(data["fall_speed"][-1]), "free_fall_speed": info.gravity * t[-1],
                "terminal_speed": info.terminal_speed, "time": float(t[-1])}

    @staticmethod
    def summary(m):
        return [f"falls at {m['fall_speed']:.2f} m/s at t = {m['time']:g} s (free fall: "
                f"{m['free_fall_speed']:.2f} m/s; the flat canopy's terminal speed "
                f"{m['terminal_speed']:.2f} m/s)"]

    @classmethod
    def plot(cls, data, info, output_dir):
        files = super().plot(data, info, output_dir)
        t = data["time"]
        fig, ax = figure()
        ax.plot(t, data["fall_speed"], color="C0", label="payload")
        ax.plot(t, info.gravity * t, color="0.5", ls=":", label="free fall g t")
        ax.axhline(info.terminal_speed, color="C3", ls="--", label="terminal speed, flat canopy")
        ax.set_ylim(0, 1.2 * max(info.terminal_speed, float(data["fall_speed"].max())))
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("fall speed [m/s]")
        ax.set_title("Parachute: the canopy slows the fall")
        ax.legend(loc="lower right")
        return files + [save(fig, os.path.join(output_dir, "fall_speed.png"), dpi=120)]


class PneunetReport(DiscreteReport):
    """pneunet: how far each actuator curls (the angle between its first and last edges) over
    time; headline: the final curl of each."""

    derived_units = {"curl": "deg"}
    """`curl` (n_rods, n_samples): each discrete rod's curl, rods in name order."""

    @staticmethod
    def sample_interval(info):
        return 0.02

    @staticmethod
    def curl(x):
        """Angle [deg] between the first and the last edge of a rod, per sample; x (n, m, 3)."""
        a, b = x[:, 1] - x[:, 0], x[:, -1] - x[:, -2]
        c = np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
        return np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))

    @staticmethod
    def rods(data):
        """Names of the recorded rods (every body with positions), sorted."""
        return sorted(k[:-len(".positions")] for k in data if k.endswith(".positions"))

    @classmethod
    def derive(cls, data, info):
        names = cls.rods(data)
        data["curl"] = np.stack([cls.curl(data[f"{n}.positions"][0]) for n in names])
        return {f"{n}_curl": float(c[-1]) for n, c in zip(names, data["curl"])}

    @staticmethod
    def summary(m):
        return ["curl (first to last edge) at the end: " + ", ".join(
            f"{k[:-len('_curl')]} {v:.0f} deg" for k, v in m.items())]

    @classmethod
    def plot(cls, data, info, output_dir):
        files = super().plot(data, info, output_dir)
        t = data["time"]
        fig, ax = figure()
        for name, curl in zip(cls.rods(data), data["curl"]):
            ax.plot(t, curl, label=name)
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("curl: angle between the\nfirst and last edge [deg]")
        ax.set_title("PneuNet actuators curl as their natural curvature ramps up")
        ax.legend(loc="upper left")
        return files + [save(fig, os.path.join(output_dir, "curl.png"), dpi=120)]


DISCRETE_REPORTS = {"falling_rod": FallingRodReport, "manta": MantaReport,
                    "parachute": ParachuteReport, "pneunet": PneunetReport}
"""Template name -> report, merged into softmech.commands.run.REPORTS."""
