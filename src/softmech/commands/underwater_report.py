"""`PoseidronReport`: the underwater robots' part of `softmech run` (softmech.scenarios.poseidron:
the PoseiDRONE, Quadropus and Monopus): surge velocity, mantle radius, cavity volume and eq. 29's
turning against time (plots: softmech.viz.underwater), the power budget of eqs. 26-27 with the
quasi-propulsive efficiency and the loads on the root (Fig. 14; recorded by
softmech.scenarios.underwater_power), with the assembly report's 3D still and video of every
body, the mantle drawn as the surface of revolution of its meridian."""
import os

import numpy as np

from softmech.commands.report_base import AssemblyReport
from softmech.text import count
from softmech.viz.figures import figure, save
from softmech.viz.underwater import mantle_geometry, plot_power, plot_turning, revolve_shells


class PoseidronReport:
    """`softmech run poseidron`: surge velocity and its mean over the pulsations after the
    first two, mantle radius and cavity volume against time; a 3D still and video."""

    samples_per_period = 40

    @classmethod
    def record_fields(cls, scene, info):
        own = (f"{info.body}.velocities",)
        if info.length > 0:                             # eq. 29 needs the root's rotation rate
            own += (f"{info.body}.angular_velocities",)
        return own + AssemblyReport.record_fields(scene, info)

    @staticmethod
    def recorders(scene, info):
        """sm.Recorder of eq. 26's P_out and eq. 27's P_in [W] and of the arms' and the
        mantle's force along the axis on the root [N] (softmech.scenarios.underwater_power)."""
        from softmech.scenarios.underwater_power import budget_recorders

        return budget_recorders(info.body, info.axis)

    @classmethod
    def sample_interval(cls, info):
        return 1.0 / (info.frequency * cls.samples_per_period)

    @staticmethod
    def derive(data, info):
        from softmech.scenarios.poseidron import surge

        t = data["time"]
        V, mean = surge(t, data[f"{info.body}.velocities"][0, :, 0], info.axis, info.frequency)
        root_x = data[f"{info.body}.positions"][0, :, 0]
        root_Q = data[f"{info.body}.directors"][0, :, 0]
        origin_body = root_Q[0] @ (np.asarray(info.origin) - root_x[0])
        radius, volume = mantle_geometry(root_x, root_Q, data[f"{info.rod}.positions"][0],
                                         info.axis, origin_body)
        data["surge_velocity"], data["mantle_radius"], data["cavity_volume"] = V, radius, volume
        data["mean_surge_velocity"] = np.array([mean])
        a0 = root_Q[0] @ np.asarray(info.axis)                # the axis in the root's frame
        heading = np.degrees(np.arccos(np.clip(root_Q[:, :, :].transpose(0, 2, 1) @ a0
                                               @ np.asarray(info.axis), -1.0, 1.0)))
        data["heading_change"] = heading
        metrics = {"mean_surge_velocity": mean, "frequency": info.frequency,
                   "volume_change": float(volume.max() - volume.min()),
                   "heading_change_deg": float(heading[-1]),
                   "cycles": float(t[-1] * info.frequency)}
        if info.length > 0:
            metrics.update(_turning(data, info, root_x, root_Q, origin_body))
        if "power_out" in data:
            metrics.update(_efficiency(data, info))
        return metrics

    @staticmethod
    def summary(m):
        lines = [(f"{m['frequency']:g} pulsations/s: mean surge velocity "
                  f"{m['mean_surge_velocity']:.4f} m/s over the pulsations after the first two "
                  f"({count(m['cycles'])} in all); cavity volume swing "
                  f"{m['volume_change'] * 1e6:.1f} "
                  f"cm^3; heading turned by {m['heading_change_deg']:.1f} deg")]
        if "peak_turn_rate" in m:
            lines.append(f"eq. 29: turning rate |w| up to {m['peak_turn_rate']:.3f} rad/s; "
                         f"turning radius (per length {m['length']:.3f} m) median "
                         f"{m['turning_radius_median']:.2f}, smallest "
                         f"{m['turning_radius_min']:.2f} while |w| >= 1/4 of its peak "
                         "(Renda et al. Fig. 17: ~1 as the turn starts, falling to ~0.3)")
        if "quasi_propulsive_efficiency" in m:
            lines.append(f"eqs. 26-27: quasi-propulsive efficiency "
                         f"{100 * m['quasi_propulsive_efficiency']:.1f} % (mean P_out "
                         f"{1e3 * m['mean_power_out']:.2f} mW, P_in {1e3 * m['mean_power_in']:.2f}"
                         f" mW from t = {m['steady_from']:.2f} s; Renda et al.'s Quadropus: 31 %)")
        return lines

    @classmethod
    def plot(cls, data, info, output_dir):
        t = data["time"]
        fig, axes = figure(3)
        axes[0].plot(t, data["surge_velocity"] * 100, color="C0", label="surge velocity")
        mean = float(data["mean_surge_velocity"][0])
        axes[0].axhline(mean * 100, color="k", ls="--", lw=1,
                        label=f"mean after 2 pulsations: {mean * 100:.2f} cm/s")
        axes[0].set_ylabel("V [cm/s]")
        axes[0].legend(loc="upper left")
        axes[0].set_title(f"{info.title} at {info.frequency:g} pulsations/s (Renda et al. 2018)")
        axes[1].plot(t, data["mantle_radius"] * 1e3, color="C1")
        axes[1].set_ylabel("mid-mantle radius r [mm]")
        axes[2].plot(t, data["cavity_volume"] * 1e6, color="C2")
        axes[2].set_ylabel("cavity volume U [cm^3]")
        axes[2].set_xlabel("time t [s]")
        files = [save(fig, os.path.join(output_dir, "surge.png"), dpi=120)]
        if "power_out" in data and "steady_from" in data:
            files.append(plot_power(t, data, float(data["steady_from"][0]),
                                    os.path.join(output_dir, "power.png"), info.title))
        if "turning_radius" in data:
            files.append(plot_turning(t, data["turning_radius"], data["turning_rate"],
                                      os.path.join(output_dir, "turning.png"), info.title))
        return files + AssemblyReport.plot(data, info, output_dir, prepare=revolve_shells)

    @staticmethod
    def video(data, info, output_dir):
        """The assembly report's video, the mantle drawn as the surface of its meridian."""
        return AssemblyReport.video(data, info, output_dir, prepare=revolve_shells)


def _turning(data, info, root_x, root_Q, origin_body):
    """Eq. 29's turning radius and rate of the root (series into `data`, summary returned), at
    the root frame's origin (where the mantle's cup sits: the paper's g_r)."""
    from softmech.scenarios.poseidron import turning, turning_summary

    Q = root_Q
    w = np.einsum("nji,nj->ni", Q, data[f"{info.body}.angular_velocities"][0, :, 0])  # lab
    v = data[f"{info.body}.velocities"][0, :, 0] + np.cross(w, np.einsum("nji,j->ni", Q,
                                                                          origin_body))
    r, m = turning(v, w, info.length)
    data["turning_radius"], data["turning_rate"] = r, m
    peak, median, smallest = turning_summary(r, m)
    return {"peak_turn_rate": peak, "turning_radius_median": median,
            "turning_radius_min": smallest, "length": info.length}


def _efficiency(data, info):
    """Eqs. 26-27's quasi-propulsive efficiency over the whole pulsations from info.steady_start
    (0: after the first two pulsations) to the end, and the mean powers there."""
    from softmech.scenarios.underwater_power import quasi_propulsive_efficiency

    t = data["time"]
    period = 1.0 / info.frequency
    start = info.steady_start if info.steady_start > 0 else 2 * period
    window = (np.ceil(start / period - 1e-9) * period, np.floor(t[-1] / period + 1e-9) * period)
    if window[1] - window[0] < period - 1e-9:
        return {}                       # the run is too short for one steady pulsation
    p_out, p_in = data["power_out"][0], data["power_in"][0]
    inside = (t >= window[0] - 1e-12) & (t <= window[1] + 1e-12)
    data["steady_from"] = np.array([window[0]])
    return {"quasi_propulsive_efficiency": quasi_propulsive_efficiency(t, p_out, p_in, window),
            "mean_power_out": float(np.mean(p_out[inside])),
            "mean_power_in": float(np.mean(p_in[inside])), "steady_from": float(window[0])}
