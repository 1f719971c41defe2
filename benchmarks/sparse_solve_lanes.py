"""What one sparse LU solve of the unified engine costs per world, alone and in lanes (issue 27:
why the plate's B = 16 stays ~6x its B = 1; not collected by pytest).

    OPENBLAS_NUM_THREADS=1 python benchmarks/sparse_solve_lanes.py

Builds benchmarks/implicit_batch.py's 1,032-triangle `plate` on the unified engine (one world),
takes the Newton matrix's factor pattern its integrator probed (softmech.integrators.
sparse_pattern: n DOFs, nnz factor entries, the ordering chosen), fills the factor with random
values (off-diagonal uniform in +-1e-3, unit diagonal: a well-conditioned stand-in; the solve's
cost does not depend on the values) and times softmech.kernels.sparse_lu.lu_solve, warm, for
1, 2, 4 and 8 lanes (worlds), the mean of --repeats solves each: per solve, per world and per
factor entry. Then the machine's streaming bandwidth (numpy sum over arrays of 1 to 300 MB,
one thread), to compare with the bytes of values a solve reads (nnz x 8 B per world).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def factor_pattern_of_plate():
    """The plate's FactorPattern on the unified engine (softmech.integrators.sparse_pattern)."""
    from unified_batch import build
    sim = build("plate", 1)
    sim.run(0.002)                      # compiles, probes the pattern
    return sim.implicit_integrator().pattern


def time_solve(pattern, lanes, repeats):
    """Mean wall time [s] of one lu_solve of `lanes` lanes on the pattern."""
    from softmech.kernels.sparse_lu import lu_solve
    rng = np.random.default_rng(0)
    values = rng.uniform(-1e-3, 1e-3, (pattern.nnz, lanes))
    values[pattern.uptr[1:]] = 1.0                 # the diagonal
    b = np.ones((pattern.n, lanes))
    lu_solve(pattern.lptr, pattern.uptr, pattern.rows, values, b)     # compiles
    t0 = time.perf_counter()
    for _ in range(repeats):
        b[:] = 1.0
        lu_solve(pattern.lptr, pattern.uptr, pattern.rows, values, b)
    return (time.perf_counter() - t0) / repeats


def streaming_bandwidth(megabytes, repeats_mb=3000):
    """GB/s of numpy's sum over an array of `megabytes` MB (warm, one thread)."""
    a = np.ones(megabytes * 2**20 // 8)
    a.sum()
    reps = max(1, repeats_mb // megabytes)
    t0 = time.perf_counter()
    for _ in range(reps):
        a.sum()
    return megabytes / 1024 / ((time.perf_counter() - t0) / reps)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.2f}")
    p = factor_pattern_of_plate()
    print(f"plate factor: n = {p.n}, nnz = {p.nnz}, ordering {p.ordering}, "
          f"{p.coupling_rows.size} couplings, {p.nnz * 8 / 2**20:.2f} MB of values per world")
    print(f"{'lanes':>5} {'ms/solve':>9} {'ms/world':>9} {'ns/entry':>9} {'GB/s read':>9}")
    for lanes in (1, 2, 4, 8):
        dt = time_solve(p, lanes, args.repeats)
        print(f"{lanes:>5} {dt * 1e3:9.3f} {dt * 1e3 / lanes:9.3f} {dt * 1e9 / p.nnz:9.1f} "
              f"{p.nnz * 8 * lanes / dt / 1e9:9.1f}")
    print("streaming bandwidth (numpy sum, one thread):")
    for mb in (1, 4, 15, 30, 300):
        print(f"  {mb:>4} MB: {streaming_bandwidth(mb):5.1f} GB/s")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
