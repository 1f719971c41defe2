"""Simulation.solve_static on both engines: the heavy clamped strip of
softmech.validation.shells.cantilever_tip (hinge and mid-edge bending, soft and stiff), wall
time of the solve (best of --repeats, compiled kernels warm) and the largest node distance
between the two answers.

    OPENBLAS_NUM_THREADS=1 python benchmarks/static_solve.py [--repeats 3]

The discrete engine solves F(q) = 0 by Newton from the start (a pseudo-transient continuation
only if that fails; a mid-edge shell's frames settled by repeated solves); the unified engine
by the continuation alone (softmech.static_solve: up to 41 implicit steps of doubling size).
Prints a Markdown table for docs/benchmarks_log.md, with the load average.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "validation"))
from test_static_solve_unified import clamped_strip  # noqa: E402

CASES = (("hinge", 1e5), ("hinge", 1e7), ("midedge", 1e7), ("midedge", 1e8))


def solve(bending, E, engine, repeats):
    """(best wall time [s], node positions (n, 3) [m]) of `repeats` fresh solves."""
    best, x = np.inf, None
    for _ in range(repeats):
        sim, _ = clamped_strip(bending, E, engine)
        sim.step(0)             # (compiled and packed before the clock starts)
        start = time.perf_counter()
        sim.solve_static()
        best = min(best, time.perf_counter() - start)
        x = sim.get_state("plate")["positions"][0]
    return best, x


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}\n")
    print("| strip | discrete engine [s] | unified engine [s] | ratio | answers apart [m] |")
    print("|---|---:|---:|---:|---:|")
    for bending, E in CASES:
        td, xd = solve(bending, E, "discrete", args.repeats)
        tu, xu = solve(bending, E, "unified", args.repeats)
        print(f"| {bending}, E = {E:g} Pa | {td:.3f} | {tu:.3f} | {tu / td:.1f} | "
              f"{np.abs(xd - xu).max():.1e} |")


if __name__ == "__main__":
    main()
