"""Implicit Euler for Cosserat rods and rigid bodies (scheme "implicit_euler") on the stiff
scenes of issue 27: the underwater robots of Renda et al. 2018 without rotary-inertia scaling,
and the Cosserat bio-hybrid swimmer of Zhang et al. 2019 (Fig. 2 geometry) without inertia
scaling. For each: the quantity the scene reports at several implicit steps, against the
explicit Verlet run at its stability limit (no scaling: the reference), and the wall time.

    python benchmarks/implicit_cosserat.py [--robots poseidron,quadropus,monopus]
        [--duration 2.0] [--swimmer-beats 3] [--reference] [--markdown] [--batch 1,4,16]
        [--overdamped] [--corotate] [--steps-per-beat 500,1000,2000]

--corotate adds the swimmer with corotated kept Jacobians and the quadratic predictor
(COROTATED: ImplicitOptions(corotate=True, predictor=2, refresh_rate=0.5, tol=1e-7);
docs/implicit_cosserat.md) at the same steps per beat, and the relative difference of the
speeds of each pair of step counts n, 2n. --overdamped adds the swimmer with
ImplicitOptions(overdamped=True) (no inertia) at the same
steps per beat. --batch times the PoseiDRONE (1 s at its default implicit step) for each number of worlds
given. --reference adds the explicit runs without scaling (PoseiDRONE ~15 s per robot, the swimmer
~30-60 s per beat on one core). Wall times are warm (the first step, which compiles and
probes the sparsity, is excluded) and measured on whatever else the machine is doing: give
the load with them.
"""
import argparse
import os
import sys
import time

import softmech as sm
from softmech.scenarios.poseidron import build_poseidron, surge
from softmech.scenarios.quadropus import build_monopus, build_quadropus
from softmech.scenarios.swimmer import build_swimmer, centre_track

COROTATED = dict(corotate=True, predictor=2, refresh_rate=0.5, tol=1e-7)
"""Newton settings of the swimmer's fast rows (--corotate)."""

ROBOTS = {"poseidron": build_poseidron, "quadropus": build_quadropus, "monopus": build_monopus}


def timed_run(sim, duration, fields, every):
    """(Results, warm wall time [s], its CPU time [s]) of a run of `duration` after one untimed
    step. The CPU time of the process is what the run costs a core: on a shared machine the
    wall time is longer by the other processes' share."""
    sim.step(1)
    start, cpu = time.perf_counter(), time.process_time()
    out = sim.run(duration - sim.dt, record=sm.Every(seconds=every, fields=fields))
    return out, time.perf_counter() - start, time.process_time() - cpu


def robot_row(name, scheme, dt, duration, scaling=None):
    """Mean surge [m/s] of robot `name` over the whole pulsations after the first two."""
    import softmech.scenarios.poseidron as P

    kept = P.ROTARY_INERTIA
    if scaling is not None:
        P.ROTARY_INERTIA = scaling
    try:
        scene, info = ROBOTS[name](duration=duration, scheme=scheme, dt=dt)
    finally:
        P.ROTARY_INERTIA = kept
    sim = scene.compile(dt=info.dt, scheme=scheme)
    out, wall, cpu = timed_run(sim, duration, ("root.com_velocity",), 0.01)
    _, mean = surge(out["time"], out["root.com_velocity"][0], info.axis, info.frequency)
    stats = sim.implicit_integrator().stats if scheme == "implicit_euler" else {}
    used = 1.0 if scheme == "implicit_euler" else (kept if scaling is None else scaling)
    return dict(case=name, scheme=scheme, dt=info.dt, scaling=used, value=mean, wall=wall,
                cpu=cpu, stats=stats)


def swimmer_row(scheme, steps_per_beat, beats, overdamped=False, corotate=False):
    """Speed [m/s] of the Cosserat swimmer without inertia scaling (centre_track); overdamped:
    the implicit steps without inertia (ImplicitOptions.overdamped); corotate: the COROTATED
    Newton settings."""
    period = 1.0 / 3.6
    dt = period / steps_per_beat if scheme == "implicit_euler" else None
    scene, info = build_swimmer(model="cosserat", n_elems=50, rotary_inertia=1.0, cycles=beats,
                                dt=dt)
    newton = sm.ImplicitOptions(overdamped=overdamped, **(COROTATED if corotate else {}))
    sim = scene.compile(dt=info.dt, scheme=scheme, newton=newton)
    out, wall, cpu = timed_run(sim, info.duration, ("flagellum.com",), info.period / 50)
    _, _, speed = centre_track(out["time"], out["flagellum.com"][0], info.period)
    stats = sim.implicit_integrator().stats if scheme == "implicit_euler" else {}
    label = " (overdamped)" if overdamped else " (corotated)" if corotate else ""
    return dict(case="swimmer" + label, scheme=scheme, steps_per_beat=steps_per_beat,
                dt=info.dt, scaling=1.0, value=speed, wall=wall / beats, cpu=cpu / beats,
                stats=stats)


def batch_rows(worlds):
    """Wall time [s] of 1 s of the PoseiDRONE (implicit Euler, default dt) for B worlds."""
    for B in worlds:
        scene, info = build_poseidron(duration=1.0)
        sim = scene.compile(dt=info.dt, scheme=info.scheme, worlds=B)
        _, wall, _ = timed_run(sim, 1.0, ("root.com_velocity",), 0.01)
        yield B, sim.lanes, wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--robots", default="poseidron,quadropus,monopus")
    parser.add_argument("--duration", type=float, default=2.0)
    parser.add_argument("--swimmer-beats", type=float, default=3.0)
    parser.add_argument("--reference", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--batch", default="", help="numbers of worlds, e.g. 1,4,16")
    parser.add_argument("--overdamped", action="store_true")
    parser.add_argument("--corotate", action="store_true")
    parser.add_argument("--steps-per-beat", default="500,1000,2000")
    args = parser.parse_args(argv)
    first = None
    for B, lanes, wall in batch_rows([int(b) for b in filter(None, args.batch.split(","))]):
        first = first or wall
        print(f"PoseiDRONE implicit, B = {B} ({lanes.n_blocks} blocks of {lanes.W}): "
              f"{wall:.3f} s, {wall / first:.2f} x B = 1", flush=True)
    rows = []
    for name in filter(None, args.robots.split(",")):
        for dt in (1e-3, 5e-4, 2.5e-4):
            rows.append(robot_row(name, "implicit_euler", dt, args.duration))
        # the explicit rows at the scene's default step: a fraction of its stability estimate
        rows.append(robot_row(name, "verlet", None, args.duration))
        if args.reference:
            rows.append(robot_row(name, "verlet", None, args.duration, scaling=1.0))
    if args.swimmer_beats > 0:
        for spb in [int(s) for s in args.steps_per_beat.split(",")]:
            rows.append(swimmer_row("implicit_euler", spb, args.swimmer_beats))
            if args.overdamped:
                rows.append(swimmer_row("implicit_euler", spb, args.swimmer_beats, True))
            if args.corotate:
                rows.append(swimmer_row("implicit_euler", spb, args.swimmer_beats,
                                        corotate=True))
        if args.reference:
            rows.append(swimmer_row("verlet", None, args.swimmer_beats))
    load = os.getloadavg()[0]
    if args.markdown:
        print(f"load average {load:.2f}; wall: per run (robots, {args.duration:g} s "
              "simulated) or per beat (swimmer)\n")
        print("| case | scheme | dt [s] | rotary inertia x | surge / speed [m/s] | wall [s] | "
              "CPU [s] | Newton iterations / step | Jacobians / step |")
        print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s = r["stats"]
        per = (lambda k: f"{s[k] / s['steps']:.2f}") if s else (lambda k: "")
        line = (f"| {r['case']} | {r['scheme']} | {r['dt']:.3g} | {r['scaling']:g} | "
                f"{r['value']:.5g} | {r['wall']:.3g} | {r['cpu']:.3g} | {per('iterations')} | "
                f"{per('jacobians')} |")
        print(line if args.markdown else line.replace("|", " "), flush=True)
    for a in rows:
        for b in rows:
            if a["case"] == b["case"] and b.get("steps_per_beat") == 2 * (a.get(
                    "steps_per_beat") or 0):
                print(f"{a['case']}: {a['steps_per_beat']} against {b['steps_per_beat']} steps "
                      f"per beat: {abs(a['value'] / b['value'] - 1) * 100:.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
