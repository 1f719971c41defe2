"""The unified engine's sparse LU (softmech.kernels.sparse_lu) on a hinge plate's Newton pattern,
alone (issue 27; not collected by pytest): the factor's size, its multiply-adds and the wall
time of one factorization and one solve, for one lane (B = 1) and for eight (a block of 16
worlds); the solve warm (repeated: its factor in the caches as far as it fits) and cold
(64 MB written first: its factor streamed from memory, as a block's in a batch's run).

    OPENBLAS_NUM_THREADS=1 python benchmarks/sparse_lu_chains.py --sides 30,70,108

The pattern is the one the unified engine builds for a plate of `sides` x `sides` squares
(meshes.rectangle): every hinge's four nodes (3 DOFs each) coupled, the diagonal, ordered by
sparse_pattern.factor_pattern (nested dissection or reverse Cuthill-McKee, whichever fills
less). The values are random and diagonally dominant: the time of a factorization without
pivoting does not depend on them. Run it twice (the first run compiles); for an A/B against
another commit, run it with PYTHONPATH=<worktree>/src.
"""
import argparse
import time

import numpy as np

from softmech.bodies import meshes
from softmech.integrators.sparse_pattern import factor_pattern
from softmech.kernels import sparse_lu
from softmech.kernels.sparse_lu import EIGHT, lu_factor

try:
    from softmech.kernels.sparse_lu_eight import lu_factor_eight, lu_solve_block, prepare_factor
except ImportError:         # a commit before 2026-12-06 evening (an A/B on PYTHONPATH)
    from softmech.kernels.sparse_lu import lu_factor_eight, lu_solve_block, prepare_factor

# (a commit before work_rows, for an A/B: its work array had n rows)
work_rows = getattr(sparse_lu, "work_rows", lambda n, W: n)


def plate_pattern(sides):
    """The FactorPattern of a hinge plate's Newton matrix (3 DOFs per node)."""
    mesh = meshes.rectangle(1.0, 1.0, sides)
    quads, _ = meshes.hinges(mesh.triangles)
    dofs = (3 * quads[:, :, None] + np.arange(3)).reshape(len(quads), 12)
    rows = np.repeat(dofs, 12, axis=1).ravel()
    cols = np.tile(dofs, (1, 12)).ravel()
    return len(mesh.vertices), factor_pattern(3 * len(mesh.vertices), rows, cols)


def layout(fp):
    """The pattern's arrays as the LU kernels take them: (lptr, uptr, rows), the solve's passes'
    order; (colptr, rows, diag) for a commit before 2026-12-06 (an A/B on PYTHONPATH)."""
    return (fp.lptr, fp.uptr, fp.rows) if hasattr(fp, "lptr") else (fp.colptr, fp.rows,
                                                                      fp.diag)


def multiply_adds(fp):
    """sum over columns j, over k in U(:, j), of the rows of L(:, k): the left-looking LU's
    multiply-adds."""
    if hasattr(fp, "lptr"):
        below = np.diff(fp.lptr)
        rest = fp.rows[fp.lptr[-1]:]            # each column's diagonal and U, the last first
        owner = np.repeat(np.arange(fp.n)[::-1], (fp.uptr[:-1] - fp.uptr[1:])[::-1])
        upper = rest[rest != owner]
    else:
        below = np.diff(fp.colptr) - (fp.diag - fp.colptr[:-1]) - 1
        column = np.repeat(np.arange(fp.n), np.diff(fp.colptr))
        upper = fp.rows[np.arange(fp.nnz) < fp.diag[column]]    # the rows k of U(:, j)
    return int(below[upper].sum())


FLUSH = np.ones(64 * 2**20 // 8)
"""64 MB, read and written before each cold solve: no factor entry left in the caches (a
block's solve in a batch finds its factor evicted by the other block's, 2026-12-06)."""


def cold(fn):
    def run():
        FLUSH[:] += 1.0
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    return run


def best_of(fn, repeats, timed=False):
    """The least wall time [s] of `repeats` calls of fn (timed: fn returns its own time)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        own = fn()
        times.append(own if timed else time.perf_counter() - t0)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sides", default="30,70")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lanes", default="1,8", help="lane counts to time (1 and/or 8)")
    args = parser.parse_args()
    prepare_factor()
    print("| nodes | DOFs | factor entries | multiply-adds | lanes | factor [s] | solve [ms] "
          "| solve, cold [ms] |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(0)
    for sides in (int(s) for s in args.sides.split(",")):
        nodes, fp = plate_pattern(sides)
        madds = multiply_adds(fp)
        for W in (int(w) for w in args.lanes.split(",")):
            matrix = np.zeros((fp.nnz, W))
            matrix[fp.entry_pos] = rng.standard_normal((fp.entry_pos.size, W))
            diagonal = fp.entry_pos[fp.coupling_rows == fp.coupling_cols]
            matrix[diagonal] += 100.0
            values, work = np.empty_like(matrix), np.zeros((work_rows(fp.n, W), W))
            flags = np.ones(W, np.int64)
            factor = lu_factor_eight if W == EIGHT else lu_factor

            def run_factor():
                np.copyto(values, matrix)
                assert factor(*layout(fp), values, work, flags) == -1

            t_factor = best_of(run_factor, args.repeats)
            b = rng.standard_normal((fp.n, W))
            solve = lambda: lu_solve_block(*layout(fp), values, b.copy())     # noqa: E731
            t_solve = best_of(solve, 3 * args.repeats)
            t_cold = best_of(cold(solve), 3 * args.repeats, timed=True)
            print(f"| {nodes:,} | {fp.n:,} | {fp.nnz:,} | {madds:.3g} | {W} "
                  f"| {t_factor:.3f} | {1e3 * t_solve:.2f} | {1e3 * t_cold:.2f} |", flush=True)


if __name__ == "__main__":
    main()
