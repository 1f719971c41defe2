"""The reports of `softmech run`: per scene (its template), what is recorded into results.h5,
the metrics derived from it, the summary lines and the plots and videos made from exactly those
arrays. `report_for(scenario)` picks one; softmech.commands.run uses it.

A report is a class with record_fields(scene, info), sample_interval(info), derive(data, info)
(adds derived arrays to data, returns the metrics), summary(metrics) (printed as soon as the
run ends) and plot(data, info, output_dir) (figures and stills, returns the files written);
video(data, info, output_dir) (optional) returns a report_base.Video written after the plots,
or None; warnings(metrics) (optional) gives lines printed as warnings (a static result that has
not settled); derived_units (optional) gives the units of its derived arrays;
recorders(scene, info) (optional) gives sm.Recorder quantities sampled with the fields (e.g.
the underwater robots' power budget). The generic and assembly reports are in
softmech.commands.report_base; reports
of other scenes live in softmech.commands.discrete_reports, softmech.commands.underwater_report
and beside their plots (softmech.viz.swimmer, softmech.viz.torque_swimmer).
"""
import os

import numpy as np

from softmech.commands.discrete_reports import DISCRETE_REPORTS, DiscreteReport
from softmech.commands.report_base import (N_SAMPLES, AssemblyReport, GenericReport,  # noqa: F401
                                           Video, plot_energy, tube_still, tube_video,
                                           video_frames)
from softmech.commands.underwater_report import PoseidronReport
from softmech.terms.joints import JOINT_TYPES
from softmech.text import NOT_MEASURED, measured, number
from softmech.viz.figures import figure, save
from softmech.viz.plots import ENERGY_FIELDS
from softmech.viz.swimmer import SwimmerReport
from softmech.viz.torque_swimmer import TorqueSwimmerReport


class _CantileverReport(GenericReport):
    """Deflected centreline vs Timoshenko / Euler-Bernoulli, and the tip deflection over time;
    a warning when the run ends before the beam has settled (the comparison is with a static
    formula: softmech.scenarios.cantilever.tip_drift and SETTLE_TOLERANCE)."""

    fields = ("positions",)

    @staticmethod
    def derive(data, info):
        """Adds arc_length, analytic curves, the tip time series and its drift at the end to
        `data`; returns metrics."""
        from softmech.scenarios.cantilever import SETTLE_TOLERANCE, tip_drift

        x = data[f"{info.rod}.positions"][0]          # world 0: (n_samples, n + 1, 3) [m]
        s = x[0, :, 0]                                 # the rod starts straight along +x from 0
        data["arc_length"] = s
        s_fine = np.linspace(0.0, info.length, 301)   # smooth analytic curves for any n
        data["analytic_arc_length"] = s_fine
        data["timoshenko_deflection"] = info.deflection(s_fine)
        data["euler_bernoulli_deflection"] = info.deflection(s_fine, "euler_bernoulli")
        data["tip_deflection"] = x[:, -1, 1]
        drift = tip_drift(data["time"], data["tip_deflection"])
        data["tip_drift"] = np.array([drift])
        tip, analytic = float(x[-1, -1, 1]), float(info.deflection(info.length))
        settled = bool(drift <= SETTLE_TOLERANCE)
        settle = info.settle_time()
        t_end = float(data["time"][-1])
        suggested = None if settled or not np.isfinite(settle) else float(
            np.ceil(max(2.0 * t_end, settle)))
        return {"tip_deflection": tip, "analytic_tip_deflection": analytic,
                "relative_error": abs(tip - analytic) / abs(analytic), "settled": settled,
                "tip_drift": drift if np.isfinite(drift) else None,     # JSON has no inf
                "settle_tolerance": SETTLE_TOLERANCE, "drift_window": 0.1 * t_end,
                "suggested_duration": suggested}

    @staticmethod
    def summary(m):
        return [f"tip deflection {m['tip_deflection']:.6g} m, Timoshenko "
                f"{m['analytic_tip_deflection']:.6g} m (relative error {m['relative_error']:.2%})"]

    @staticmethod
    def warnings(m):
        if m["settled"]:
            return []
        drift = "an unbounded amount" if m["tip_drift"] is None else f"{m['tip_drift']:.2%}"
        advice = ("run longer, e.g. --duration {:g}".format(m["suggested_duration"])
                  if m["suggested_duration"] is not None else
                  "the beam is undamped and rings forever: add damping (LinearDamping)")
        return [f"not settled: the tip still moved by {drift} of its deflection over the last "
                f"{m['drift_window']:.3g} s (tolerance {m['settle_tolerance']:.1%}), so the "
                f"comparison with the static formula is not meaningful; {advice}"]

    @staticmethod
    def plot(data, info, output_dir):
        mm = 1e3
        t = data["time"]
        fig, ax = _figure()
        s = data["arc_length"]
        ax.plot(s, data[f"{info.rod}.positions"][0, -1, :, 1] * mm, "o", ms=3.5, color="C0",
                markevery=_marks(len(s), 50), zorder=3,
                label=f"softmech, {info.n_elems} elements, t = {t[-1]:.3g} s")
        s_fine = data["analytic_arc_length"]
        ax.plot(s_fine, data["timoshenko_deflection"] * mm, "-", color="k",
                label="Timoshenko (analytic)")
        ax.plot(s_fine, data["euler_bernoulli_deflection"] * mm, "--", color="0.5",
                label="Euler-Bernoulli (analytic)")
        ax.set_xlabel("arc length s [m]")
        ax.set_ylabel("deflection y [mm]")
        from softmech.scenarios.cantilever import SETTLE_TOLERANCE

        drift = float(data["tip_drift"][0])
        settled = drift <= SETTLE_TOLERANCE
        ax.set_title(f"Cantilever, tip force {info.force:g} N: " + (
            "static centreline" if settled else f"NOT SETTLED at t = {t[-1]:.3g} s"))
        ax.legend(loc="lower left")
        tip, analytic = data["tip_deflection"][-1], info.deflection(info.length)
        ax.text(0.98, 0.96, f"tip: softmech {_num(tip * mm)} mm, Timoshenko {_num(analytic * mm)} mm"
                f"\nrelative error {abs(tip - analytic) / abs(analytic):.2%}" + (
                    "" if settled else f"\nnot settled: the tip still moved {drift:.1%}\n"
                    "over the last tenth of the run"), transform=ax.transAxes,
                ha="right", va="top", bbox=dict(boxstyle="round", fc="white", ec="0.8"))
        centerline = _save(fig, os.path.join(output_dir, "centerline.png"))

        fig, ax = _figure()
        ax.plot(t, data["tip_deflection"] * mm, color="C0", label="softmech tip y(L, t)")
        ax.axhline(info.deflection(info.length) * mm, color="k", lw=1, ls="--",
                   label="Timoshenko static y(L)")
        if info.ramp_time > 0:
            ax.axvspan(0, min(info.ramp_time, t[-1]), color="0.9", label="load ramp")
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("tip deflection y(L) [mm]")
        ax.set_title("Cantilever: tip deflection over time" + (
            "" if settled else " (not settled)"))
        ax.legend(loc="upper right")
        tip = _save(fig, os.path.join(output_dir, "tip_deflection.png"))
        return [centerline, tip]


class _SnakeReport(GenericReport):
    """The slithering snake: centre-of-mass track, forward / lateral velocities against the
    reference speed, a top-view video, and the mean speeds over periods 3-6."""

    fields = ("com", "com_velocity", "positions")
    sample_seconds = 0.01
    """Interval [s] of the samples (centre of mass, energies, body positions)."""
    fps = 25.0
    """Video frames per second of simulated time (the video plays in real time); the frames are
    every (1 / fps) / sample_seconds-th sample of the body positions, and the last one."""

    @classmethod
    def sample_interval(cls, info):
        return cls.sample_seconds

    @staticmethod
    def derive(data, info):
        from softmech.scenarios.snake import averaging_window, mean_velocities, travel_velocities

        first, last = averaging_window(info.duration, info.period)
        com = data[f"{info.rod}.com"]
        forward, lateral = mean_velocities(data["time"], com, info.period, first, last)
        along, across, heading = travel_velocities(data["time"], com, info.period, first, last)
        window = [first * info.period, last * info.period]
        data["averaging_window"] = np.array(window)             # saved with the results
        data["mean_forward_speed"], data["mean_lateral_speed"] = forward, lateral
        data["travel_forward_speed"], data["travel_lateral_speed"] = along, across
        data["travel_heading"] = heading
        reference = info.reference_speed
        travel = {key: (None if np.isnan(value[0]) else float(value[0]))   # JSON has no NaN
                  for key, value in (("travel_forward_speed", along),
                                     ("travel_lateral_speed", across),
                                     ("travel_heading", heading))}
        return {"mean_forward_speed": float(forward[0]), "mean_lateral_speed": float(lateral[0]),
                "reference_speed": reference, "reference_name": info.reference_name,
                "relative_difference": float(forward[0] - reference) / reference,
                "averaging_window": window, **travel}

    @staticmethod
    def summary(m):
        from softmech.scenarios.snake import REFERENCE_LATERAL_SPEED

        t0, t1 = m["averaging_window"]
        lines = [f"mean forward speed {m['mean_forward_speed']:.4f} m/s over t = {t0:g}-{t1:g} s "
                 f"({m['reference_name']} {m['reference_speed']:g} m/s: "
                 f"{m['relative_difference']:+.1%}), "
                 f"mean lateral speed {m['mean_lateral_speed']:+.4f} m/s"]
        if m["travel_heading"] is not None:
            lines.append(f"along its direction of travel (heading {m['travel_heading']:+.1f} deg): "
                         f"forward {m['travel_forward_speed']:.4f} m/s, lateral "
                         f"{m['travel_lateral_speed']:+.4f} m/s (course data: "
                         f"{REFERENCE_LATERAL_SPEED:+g} m/s)")
        return lines

    @classmethod
    def plot(cls, data, info, output_dir):
        from softmech.scenarios.snake import REFERENCE_LATERAL_SPEED
        from softmech.viz import snake as viz

        rod, t = info.rod, data["time"]
        com, vel = data[f"{rod}.com"][0], data[f"{rod}.com_velocity"][0]
        frame_time, frames = video_frames(t, data[f"{rod}.positions"][0], 1.0 / cls.fps)
        t0, t1 = data["averaging_window"]
        forward, lateral = data["mean_forward_speed"][0], data["mean_lateral_speed"][0]
        files = [viz.plot_com_track(os.path.join(output_dir, "com_track.png"), t, com, frame_time,
                                    frames, radius=info.radius,
                                    snapshot_every=2.0 * info.period),
                 viz.plot_velocities(os.path.join(output_dir, "velocities.png"), t, vel,
                                     period=info.period, window=(t0, t1), mean_forward=forward,
                                     mean_lateral=lateral, reference_speed=info.reference_speed,
                                     ramp_time=info.period,
                                     travel=(data["travel_heading"][0],
                                             data["travel_lateral_speed"][0],
                                             REFERENCE_LATERAL_SPEED))]
        return files

    @classmethod
    def video(cls, data, info, output_dir):
        """snake.mp4: the top view in real time, cls.fps frames per second."""
        from softmech.viz import snake as viz
        from softmech.viz.video import write_video

        rod, t = info.rod, data["time"]
        frame_time, frames = video_frames(t, data[f"{rod}.positions"][0], 1.0 / cls.fps)
        return Video(len(frame_time), lambda: write_video(
            viz.top_view_frames(frame_time, frames, radius=info.radius, time=t,
                                com=data[f"{rod}.com"][0]),
            os.path.join(output_dir, "snake.mp4"), fps=cls.fps))


class _PlectonemeReport(AssemblyReport):
    """The plectoneme: every sample's closest approach of self-contact centrelines (over 2r,
    softmech.scenarios.plectoneme.self_gaps) against the no-pass-through bound, with the
    assembly report's centre of mass, still and video."""

    @staticmethod
    def derive(data, info):
        from softmech.scenarios.plectoneme import NO_PASS_THROUGH, self_gaps, writhe

        x = data[f"{info.rod}.positions"][0]
        gaps = self_gaps(info.rest_lengths, x, info.radius)
        data["self_gap"] = gaps
        data["writhe"] = np.array([writhe(xk) for xk in x])
        return {"smallest_self_gap": float(gaps.min()), "no_pass_through_bound": NO_PASS_THROUGH,
                "passed_through": bool(gaps.min() < NO_PASS_THROUGH), "turns": info.turns,
                "final_writhe": float(data["writhe"][-1])}

    @staticmethod
    def summary(m):
        verdict = "passed through itself" if m["passed_through"] else "no pass-through"
        return [f"{m['turns']:g} turns: closest approach of the strands {m['smallest_self_gap']:.3f}"
                f" x 2r (bound {m['no_pass_through_bound']:g}: {verdict}); writhe at the end "
                f"{m['final_writhe']:.2f}"]

    @classmethod
    def plot(cls, data, info, output_dir):
        from softmech.scenarios.plectoneme import NO_PASS_THROUGH

        files = super().plot(data, info, output_dir)
        t = data["time"]
        fig, ax = _figure()
        ax.plot(t, data["self_gap"], color="C0", label="closest centrelines / 2r")
        ax.axhline(1.0, color="k", lw=1, ls=":", label="touching (d = 2r)")
        ax.axhline(NO_PASS_THROUGH, color="C3", lw=1, ls="--", label="no-pass-through bound")
        ax.axvspan(0, min(info.twist_time, t[-1]), color="0.93",
                   label=f"end turned {info.turns:g} times")
        ax.set_ylim(0.0, min(3.0, max(1.5, float(np.nanmax(np.minimum(data["self_gap"], 3.0))))))
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("closest approach d / 2r [-]")
        ax.set_title("Plectoneme: self contact keeps the strands apart")
        ax.legend(loc="lower left")
        files.append(_save(fig, os.path.join(output_dir, "self_gap.png")))
        fig, ax = _figure()
        ax.plot(t, data["writhe"], color="C0", label="writhe Wr of the centreline")
        ax.plot(t, info.turns * np.minimum(t / info.twist_time, 1.0), color="k", ls="--", lw=1,
                label="turns of the driven end")
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("turns [-]")
        ax.set_title("Plectoneme: twist turning into writhe")
        ax.legend(loc="upper left")
        return files + [_save(fig, os.path.join(output_dir, "writhe.png"))]


class _ElbowReport(AssemblyReport):
    """The elbow (softmech.scenarios.elbow): the flexion angle and the biceps' cross-section
    over time, its growth at 90 degrees, and the isometric force-length map (Fig. 1c), with the
    assembly report's still and video."""

    @classmethod
    def record_fields(cls, scene, info):
        return super().record_fields(scene, info) + tuple(f"{f}.positions" for f in info.fibers)

    @staticmethod
    def derive(data, info):
        from softmech.scenarios.elbow import (belly_section, flexion_angle, growth_at,
                                              isometric_report)

        angle = flexion_angle(data[f"{info.humerus}.positions"][0],
                              data[f"{info.radius_bone}.positions"][0])
        x = [data[f"{f}.positions"][0] for f in info.fibers]
        section = belly_section(x, info.fiber_rest_length, info.fiber_area)
        data["flexion_angle"], data["biceps_section"] = angle, section
        iso = isometric_report()
        data["isometric_force"], data["isometric_eta"] = iso["force"], iso["eta"]
        data["isometric_eta_grid"], data["isometric_force_curve"] = iso["eta_grid"], iso["force_curve"]
        return {"section_growth_at_90deg": growth_at(angle, section),
                "largest_flexion_deg": float(angle.max()),
                "isometric_largest_gap": iso["largest_gap"], "fibers": len(info.fibers)}

    @staticmethod
    def summary(m):
        growth = measured(m["section_growth_at_90deg"], "+.1%",
                          missing="not reached (the elbow did not flex to 90 deg)")
        return [f"{m['fibers']} muscle rods: biceps cross-section growth at 90 deg flexion "
                f"{growth} (paper ~28 %, experiments 30-34 %); largest flexion "
                f"{m['largest_flexion_deg']:.0f} deg",
                f"isometric map: largest gap to the force-length curve "
                f"{m['isometric_largest_gap']:.2g} F_max"]

    @classmethod
    def plot(cls, data, info, output_dir):
        from softmech.viz.musculoskeletal import plot_flexion, plot_isometric

        files = super().plot(data, info, output_dir)
        files.append(plot_flexion(os.path.join(output_dir, "flexion.png"), data["time"],
                                  data["flexion_angle"], data["biceps_section"]))
        files.append(plot_isometric(os.path.join(output_dir, "isometric.png"),
                                    data["isometric_eta_grid"], data["isometric_force_curve"],
                                    data["isometric_eta"], data["isometric_force"]))
        return files


class _WalkerReport(AssemblyReport):
    """The walkers (softmech.scenarios.walker): each one's mean speed against its stimulation
    frequency (speed.png), with the assembly report's still and video."""

    @staticmethod
    def derive(data, info):
        from softmech.scenarios.walker import SETTLE_TIME, mean_speeds

        x = np.stack([data[f"{s}.com"][0][:, 0] for s in info.skeletons])
        speed = mean_speeds(data["time"], x, info.frequencies)
        data["walker_frequency"], data["walker_speed"] = np.array(info.frequencies), speed
        data["walker_displacement"] = x - x[:, :1]
        return {"frequencies": list(info.frequencies), "speeds": [float(v) for v in speed],
                "settle_time": SETTLE_TIME}

    @staticmethod
    def summary(m):
        missing = f"{NOT_MEASURED} (the run ends before {m['settle_time']:g} s)"
        return [f"mean speed along x after the first {m['settle_time']:g} s: " + ", ".join(
            f"{f:g} Hz: {measured(1e6 * v, '.0f', 'um/s', missing)}"
            for f, v in zip(m["frequencies"], m["speeds"]))]

    @classmethod
    def plot(cls, data, info, output_dir):
        from softmech.viz.musculoskeletal import plot_walker

        files = super().plot(data, info, output_dir)
        files.append(plot_walker(os.path.join(output_dir, "speed.png"), data["time"],
                                 data["walker_displacement"], info.frequencies,
                                 data["walker_speed"]))
        return files


class _WingReport(AssemblyReport):
    """The feathered wing (softmech.scenarios.wing): its three joint angles over time
    (joint_angles.png, cf. Zhang et al. 2019 Fig. 4e), a still and a video. Records every
    rachis's and muscle's positions, every BARB_STRIDE-th barb's (one HDF5 dataset per rod:
    all 2,800 barbs cost minutes of file overhead and of drawing), and the rigid bodies'
    positions and frames (the bones' frames give the angles)."""

    BARB_STRIDE = 16
    slow_motion_seconds, video_fps = 4.0, 10.0
    """Length [s] and frame rate [1/s] of the video: the run in slow motion, 40 frames (~2 s
    each to draw on a laptop core with ~200 rods)."""

    @classmethod
    def record_fields(cls, scene, info):
        from softmech.scenarios.wing import recorded_rods

        return (tuple(f"{r}.positions" for r in recorded_rods(scene, cls.BARB_STRIDE))
                + tuple(f"{b.name}.{f}" for b in scene.rigid_bodies for f in ("positions", "directors"))
                + tuple(f"{info.rod}.{f}" for f in ENERGY_FIELDS))

    @staticmethod
    def derive(data, info):
        from softmech.scenarios.wing import bird_deviation, joint_angles

        dv, ap, elbow = joint_angles(data[f"{info.humerus}.directors"][0, :, 0],
                                     data[f"{info.forearm}.directors"][0, :, 0])
        data["dorsoventral_angle"], data["anteroposterior_angle"], data["elbow_angle"] = dv, ap, elbow
        out = {"rods": info.rods, "barbs": info.barbs,
               "dorsoventral_range_deg": [float(dv.min()), float(dv.max())],
               "anteroposterior_range_deg": [float(ap.min()), float(ap.max())],
               "elbow_range_deg": [float(elbow.min()), float(elbow.max())]}
        cycle = np.asarray(data["time"]) >= info.initiation   # the wingbeat, after the initiation
        if np.any(cycle):
            out["deviation_from_bird_deg"] = bird_deviation(dv[cycle], ap[cycle], elbow[cycle])
        return out

    derived_units = {"dorsoventral_angle": "deg", "anteroposterior_angle": "deg",
                     "elbow_angle": "deg"}

    @staticmethod
    def summary(m):
        rng = lambda key: "{} to {} deg".format(*(number(v) for v in m[key]))
        lines = [f"{m['rods']} rods ({m['barbs']} barbs): dorsoventral {rng('dorsoventral_range_deg')}, "
                 f"anteroposterior {rng('anteroposterior_range_deg')}, elbow "
                 f"{rng('elbow_range_deg')} (paper, Fig. 4e: within ~10 deg of experiments)"]
        if "deviation_from_bird_deg" in m:
            lines.append("largest deviation of the wingbeat's ranges from a starling's (Dial et "
                         "al. 1991): " + ", ".join(f"{k} {number(v)} deg" for k, v in
                                                   m["deviation_from_bird_deg"].items()))
        return lines

    @classmethod
    def plot(cls, data, info, output_dir):
        from softmech.viz.musculoskeletal import plot_wing_angles
        from softmech.viz.source import read_results

        from softmech.scenarios.wing import BIRD_RANGES

        return [plot_wing_angles(os.path.join(output_dir, "joint_angles.png"), data["time"],
                                 data["dorsoventral_angle"], data["anteroposterior_angle"],
                                 data["elbow_angle"], info.initiation, info.frequency,
                                 bird=BIRD_RANGES, bird_label="starling (Dial et al. 1991)"),
                tube_still(read_results(os.path.join(output_dir, "results.h5")), output_dir,
                           None)]

    @classmethod
    def video(cls, data, info, output_dir):
        from softmech.viz.source import read_results

        scene = read_results(os.path.join(output_dir, "results.h5"))
        # slow motion: the run (one flapping cycle, ~0.19 s) over slow_motion_seconds of video
        speed = max(1e-3, float(scene.time[-1] - scene.time[0]) / cls.slow_motion_seconds)
        return tube_video(scene, output_dir, None, cls.video_fps, speed)


def report_for(scenario):
    """The report of `softmech run` for a scenario: its template's (REPORTS), else the
    discrete report for a scene of discrete rods and shells, the assembly report for a scene
    with rigid bodies or joints, else the generic one."""
    if scenario.template in REPORTS:
        return REPORTS[scenario.template]
    if scenario.template in DISCRETE_REPORTS:
        return DISCRETE_REPORTS[scenario.template]
    scene = scenario.scene
    if scene.implicit_bodies:
        return DiscreteReport
    if scene.rigid_bodies or any(isinstance(t, JOINT_TYPES) for t in scene.terms):
        return AssemblyReport
    return GenericReport


REPORTS = {"cantilever": _CantileverReport, "snake": _SnakeReport,
           "plectoneme": _PlectonemeReport, "swimmer": SwimmerReport, "elbow": _ElbowReport,
           "walker": _WalkerReport, "muscular_snake": _SnakeReport,
           "poseidron": PoseidronReport, "quadropus": PoseidronReport,
           "monopus": PoseidronReport, "torque_swimmer": TorqueSwimmerReport,
           "wing": _WingReport}
"""Template name (softmech.scenarios.TEMPLATES) -> report (recorded fields, derived metrics,
plots); the generic template gets GenericReport. Every scene also gets energy.png and results.h5."""


# ----------------------------------------------------------------------------------------- plots
def _figure(rows=1):
    return figure(rows)


def _marks(n_points, most):
    """Indices of at most ~`most` evenly spaced markers among n_points, always the last one."""
    step = max(1, -(-(n_points - 1) // most))
    return sorted(set(range(0, n_points, step)) | {n_points - 1})


def _num(value):
    """Two decimals with a typographic minus, as on matplotlib's axes."""
    return f"{value:.2f}".replace("-", "\u2212")


def _save(fig, path):
    return save(fig, path, dpi=120)
