"""The implicit integrator's predictor guard (ImplicitOptions.predictor_guard) on the built-in
implicit scenes of discrete rods and shells, on the unified engine: Newton iterations,
force evaluations and Jacobians per step, and the warm wall time, with the guard off and on
(not collected by pytest).

    OPENBLAS_NUM_THREADS=1 python benchmarks/predictor_guard.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/predictor_guard.py --scenes falling_rod --predictor 0

Each scene as `softmech run` builds it (its dt and duration; --duration overrides), compiled
with engine="unified" and sm.ImplicitOptions(predictor=..., predictor_guard=...); three steps
first to compile and probe the Newton matrix's pattern, then the state put back and the
whole duration timed. The Cosserat scenes (the swimmer, the PoseiDRONE, Quadropus):
benchmarks/implicit_cosserat.py, which runs with the default options.
"""
import argparse
import os
import tempfile
import time

import softmech as sm
from softmech.integrators.implicit import COUNTS
from softmech.scenefile import builtin_scenario

SCENES = ("falling_rod", "pneunet", "parachute", "manta")


def measure(name, guard, predictor, duration):
    """(wall time [s], {count: per step}) of the scene's run on the unified engine."""
    scenario = builtin_scenario(name)
    if duration is not None:
        scenario.run.duration = duration
    info = scenario.info()
    sim = scenario.compile(engine="unified", newton=sm.ImplicitOptions(
        predictor=predictor, predictor_guard=guard))
    with tempfile.TemporaryDirectory() as tmp:
        start = os.path.join(tmp, "start.npz")
        sim.save_state(start)
        sim.run(3 * info.dt)
        sim.load_state(start)
    solver = sim.implicit_integrator().solver
    before = solver.counts.sum(axis=0).copy()
    t0 = time.perf_counter()
    sim.run(info.duration)
    wall = time.perf_counter() - t0
    counts = dict(zip(COUNTS, solver.counts.sum(axis=0) - before))
    steps = max(int(counts["steps"]), 1)
    return wall, {k: counts[k] / steps for k in ("iterations", "residuals", "evaluations",
                                                       "jacobians")}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", default=",".join(SCENES))
    parser.add_argument("--predictor", type=int, default=1, help="ImplicitOptions.predictor")
    parser.add_argument("--duration", type=float, default=None, help="simulated seconds")
    args = parser.parse_args(argv)
    print(f"predictor {args.predictor}, load {os.getloadavg()[0]:.2f}")
    print(f"{'scene':12} {'guard':5} {'wall [s]':>8} {'it/step':>7} {'res/step':>8} {'ev/step':>7} "
          f"{'jac/step':>8}")
    for name in args.scenes.split(","):
        for guard in (False, True):
            wall, per = measure(name, guard, args.predictor, args.duration)
            print(f"{name:12} {'on' if guard else 'off':5} {wall:8.3f} {per['iterations']:7.2f} "
                  f"{per['residuals']:8.2f} {per['evaluations']:7.2f} {per['jacobians']:8.3f}", flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
