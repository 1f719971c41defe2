"""Batched implicit stepping on the unified engine (issue 27): wall time of B = 1 and B = 16
worlds of an implicit scene of discrete bodies compiled with Scene.compile(engine="unified")
(the discrete rods and shells as a body kind of Simulation: its lanes, blocks of worlds on the
thread pool, the compiled Newton loop with per-world convergence) against B = 1, warm, over a
fixed simulated duration (not collected by pytest).

    OPENBLAS_NUM_THREADS=1 python benchmarks/unified_batch.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/unified_batch.py --scene plate --duration 0.02
    OPENBLAS_NUM_THREADS=1 python benchmarks/unified_batch.py --predictor-guard off
    OPENBLAS_NUM_THREADS=1 python benchmarks/unified_batch.py --scene plate --duration 0.02 \
        --solve-precision single

Scenes: benchmarks/implicit_batch.py's (`falling_rod`: two discrete rods dropped on
frictional ground, dt = 1 ms -- it runs on the unified engine since its Newton's line search
of 2026-12-01, docs/benchmarks.md; `plate`: the 1,000-triangle clamped plate under
10 Pa, hinge bending, dt = 1 ms; `manta`: the built-in manta, a 156-triangle hinge shell
flapping by sm.ParameterWave, dt = 10 ms, 1 s), here on the unified engine with its default implicit
options (--predictor, --predictor-guard: the Newton guess's extrapolation,
ImplicitOptions.predictor and predictor_guard; --solve-precision: the factor the solves read,
ImplicitOptions.solve_precision). Each run
records the bodies' positions every 10 ms (sm.Every), as a user's run does. For each B: the
min and median wall time of --repeats runs of one simulation from its built state (a state
file loaded before each; a warm-up run first compiles and probes the Newton matrix's
pattern, which the simulation keeps), its ratio to B = 1's min, the process's CPU time
over the wall time, and the Newton statistics per world and step. The machine's load
(os.getloadavg) is printed: other users' processes share its two cores.
"""
import os
import statistics
import tempfile
import time

import numpy as np

import softmech as sm

def build(scene_name, worlds, newton=None):
    """A Simulation (engine="unified", Newton settings `newton`: sm.ImplicitOptions or None,
    the default) of the scene with B = worlds."""
    if scene_name == "falling_rod":
        from softmech.scenarios.discrete import build_falling_rod
        scene, info = build_falling_rod(worlds=worlds)
        return scene.compile(worlds=worlds, dt=info.dt, engine="unified", newton=newton)
    from implicit_batch import manta_scene, plate_scene   # (benchmarks/: the script's folder)
    if scene_name == "manta":
        scene, info = manta_scene(worlds)
        return scene.compile(worlds=worlds, dt=info.dt, engine="unified", newton=newton)
    return plate_scene().compile(worlds=worlds, dt=1e-3, engine="unified", newton=newton)


def measure(scene_name, worlds, duration, repeats, newton=None):
    """(wall times [s] of `repeats` runs, CPU time [s] of the best, Newton statistics per world
    and step of the last)."""
    def record(sim):
        return sm.Every(0.01, (f"{(sim.der_rods or sim.der_shells)[0].name}.positions",))

    sim = build(scene_name, worlds, newton)
    with tempfile.TemporaryDirectory() as tmp:
        start = os.path.join(tmp, "start.npz")
        sim.save_state(start)
        sim.run(min(duration, 0.02), record=record(sim))    # compiles, probes the pattern
        walls, cpus = [], []
        for _ in range(repeats):
            sim.load_state(start)
            t0, c0 = time.perf_counter(), time.process_time()
            sim.run(duration, record=record(sim))
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
    stats = sim.implicit_integrator().stats
    steps = max(stats["steps"], 1)
    return walls, cpus[int(np.argmin(walls))], {k: stats[k] / steps for k in
                                                ("iterations", "residuals", "evaluations",
                                                 "jacobians")}


def main(argv=None):
    from implicit_batch import DURATIONS, batch_arguments
    parser = batch_arguments(__doc__, "1,16")
    parser.add_argument("--predictor", type=int, default=None,
                        help="ImplicitOptions.predictor (default: ImplicitOptions' own)")
    parser.add_argument("--predictor-guard", choices=("on", "off"), default=None,
                        help="ImplicitOptions.predictor_guard (default: ImplicitOptions' own)")
    parser.add_argument("--solve-precision", choices=("single", "double"), default=None,
                        help="ImplicitOptions.solve_precision (default: ImplicitOptions' own)")
    args = parser.parse_args(argv)
    given = {"predictor": args.predictor,
             "predictor_guard": None if args.predictor_guard is None
             else args.predictor_guard == "on", "solve_precision": args.solve_precision}
    given = {k: v for k, v in given.items() if v is not None}
    newton = sm.ImplicitOptions(**given) if given else None
    duration = args.duration or DURATIONS[args.scene]
    print(f"{args.scene} on the unified engine, {duration:g} s simulated, "
          f"{''.join(f'{k} {v}, ' for k, v in given.items())}load {os.getloadavg()[0]:.2f}")
    print(f"{'B':>3} {'min [s]':>8} {'median':>8} {'/B=1':>6} {'cpu/wall':>8} {'it/step':>7} "
          f"{'res/step':>8} {'ev/step':>7} {'jac/step':>8}")
    base = None
    for worlds in [int(w) for w in args.worlds.split(",")]:
        walls, cpu, per_step = measure(args.scene, worlds, duration, args.repeats, newton)
        best = min(walls)
        base = best if base is None else base
        print(f"{worlds:>3} {best:8.3f} {statistics.median(walls):8.3f} {best / base:6.2f} "
              f"{cpu / best:8.2f} {per_step['iterations']:7.2f} {per_step['residuals']:8.2f} "
              f"{per_step['evaluations']:7.2f} "
              f"{per_step['jacobians']:8.3f}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
