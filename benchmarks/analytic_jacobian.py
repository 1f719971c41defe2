"""The unified engine's implicit Euler with and without the discrete rods' analytic Jacobian
(softmech.integrators.analytic; issue 27), one world, warm (not collected by pytest):

    OPENBLAS_NUM_THREADS=1 python benchmarks/analytic_jacobian.py

Rows: every entry by finite differences (ImplicitOptions(analytic=False)); the analytic
elasticity (the default: its entries renewed at every step, the other terms' differences
kept up to max_age = 50 steps); the same with the differences renewed at every step too
(max_age=1). Scenes: `falling_rod` (two discrete rods dropped
on frictional ground, 0.6 s, dt = 1 ms: the best wall time of --repeats runs from its built
state, Newton counts per step, the largest node distance from the finite-difference run at
the end) and the stiff rod of tests/validation/test_der_kind_fast_motion.py (1 GPa, 10
edges, its natural curvature switched on, 20 steps of 5 ms: the tip's largest distance from
the discrete engine's over the steps, and the Newton counts).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import softmech as sm
from softmech.scenarios.discrete import build_falling_rod

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "validation"))
import test_der_kind_fast_motion as fast  # noqa: E402  (the test's rod and its constants)

SETTINGS = {"finite differences": dict(analytic=False), "analytic (default)": {},
            "analytic, max_age 1": dict(max_age=1)}


def falling_rod(options, repeats):
    """(best wall time [s], Newton counts per step, final node positions (n, 3) [m])."""
    scene, info = build_falling_rod(worlds=1)
    sim = scene.compile(worlds=1, dt=info.dt, engine="unified",
                        newton=sm.ImplicitOptions(**options))
    with tempfile.TemporaryDirectory() as tmp:
        start = os.path.join(tmp, "start.npz")
        sim.save_state(start)
        sim.run(0.02)                                   # compiles, probes the pattern
        best = np.inf
        for _ in range(repeats):
            sim.load_state(start)
            before = sim.implicit_integrator().stats
            t0 = time.perf_counter()
            sim.run(0.6)
            best = min(best, time.perf_counter() - t0)
    after = sim.implicit_integrator().stats
    steps = after["steps"] - before["steps"]
    counts = {k: (after[k] - before[k]) / steps for k in ("iterations", "evaluations",
                                                           "jacobians")}
    x = np.concatenate([sim.get_state(r.name)["positions"][0] for r in sim.der_rods])
    return best, counts, x


def stiff_rod(engine, options=None):
    """(tip positions (steps, 3) [m], the unified engine's Newton counts or None)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                            normal=(0.0, 0.0, 1.0), length=fast.L, n_elems=fast.N,
                            radius=fast.R, density=fast.RHO, youngs_modulus=fast.E,
                            natural_curvature=np.tile([fast.KAPPA, 0.0], (fast.N - 1, 1)))
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
    sim = scene.compile(dt=fast.H, engine="discrete") if engine == "discrete" else \
        scene.compile(dt=fast.H, engine="unified", scheme="implicit_euler",
                      newton=sm.ImplicitOptions(max_iterations=60, **options))
    tips = []
    for _ in range(fast.STEPS):
        sim.step(1)
        tips.append(sim.get_state("rod")["positions"][0][-1].copy())
    return np.array(tips), (sim.implicit_integrator().stats if engine != "discrete" else None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}")
    reference = None
    print("falling_rod, 0.6 s, one world: best wall [s], per step Newton iterations / evaluations / "
          "Jacobians, max node distance from the finite-difference run [m]")
    for label, options in SETTINGS.items():
        wall, counts, x = falling_rod(options, args.repeats)
        reference = x if reference is None else reference
        print(f"  {label:26s} {wall:7.3f}  {counts['iterations']:5.2f} "
              f"{counts['evaluations']:6.2f} {counts['jacobians']:5.2f}  "
              f"{np.abs(x - reference).max():.2e}")
    tips, _ = stiff_rod("discrete")
    print("stiff rod, 20 steps: max tip distance from the discrete engine [m], Newton iterations, "
          "evaluations, Jacobians")
    for label, options in SETTINGS.items():
        ours, stats = stiff_rod("unified", options)
        print(f"  {label:26s} {np.abs(ours - tips).max():.2e}  {stats['iterations']:5d} "
              f"{stats['evaluations']:6d} {stats['jacobians']:5d}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
