"""Many rods in one compiled call: the cost of packing rods into shared arrays (not collected by
pytest).

    NUMBA_NUM_THREADS=1 python benchmarks/packing.py

The same 4,000 elements split into 1 rod of 4,000, 10 of 400, 100 of 40 and 1,000 of 4 (straight
rods side by side, E = 1 MPa, r = 5 mm, gravity, linear damping, every rod clamped at one end: a
typical term mix). softmech packs every rod of a scene into shared arrays with per-rod offsets,
so each term is one kernel call per step whatever the number of rods; the per-rod work left is
the loop bookkeeping and each rod's two end elements (boundary handling of the Voronoi domains).
Prints microseconds per step (best of 3) and nanoseconds per element. The alternative, a kernel
launch per rod (or per group of rods of one shape), costs ~30-40 ns per call
(docs/benchmarks_log.md, "calls"): with ~8 calls per step that is 0.3 ms per step for 1,000 rods before any arithmetic.
"""
import time

import numpy as np

import softmech as sm

TOTAL, R, E, RHO, DT = 4000, 0.005, 1e6, 1000.0, 1e-5


def scene_of(n_rods):
    n = TOTAL // n_rods
    scene = sm.Scene()
    for k in range(n_rods):
        rod = scene.add_cosserat_rod(name=f"r{k}", start=(0.0, 0.03 * k, 0.0), direction=(1, 0, 0),
                                     normal=(0, 0, 1), length=0.01 * n, n_elems=n, radius=R,
                                     density=RHO, youngs_modulus=E)
        scene.add(sm.Clamp(rod, "first", name=f"clamp{k}"))
        scene.add(sm.LinearDamping(rod, 0.1, name=f"damping{k}"))
    scene.add(sm.Gravity())
    return scene.compile(dt=DT)


def main():
    print(f"{TOTAL} elements split into N rods, one world, one thread")
    print(f"{'N rods':>7} {'elements':>9} {'us/step':>9} {'ns/element':>11} {'calls/step':>11}")
    for n_rods in (1, 10, 100, 1000):
        sim = scene_of(n_rods)
        sim.step(10)
        steps = 2000
        best = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            sim.step(steps)
            best = min(best, (time.perf_counter() - t0) / steps)
        calls = len(sim._engine().calls)
        print(f"{n_rods:7d} {TOTAL // n_rods:9d} {best * 1e6:9.1f} {best * 1e9 / TOTAL:11.1f} "
              f"{calls:11d}", flush=True)


if __name__ == "__main__":
    main()
