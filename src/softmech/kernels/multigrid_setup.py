"""Compiled pieces of the smoothed-aggregation setup (softmech.implicit.multigrid_hierarchy)
that pyamg runs in Python loops or one vector at a time:

- btb_inverse: for each block row i of a prolongator's sparsity pattern, the pseudo-inverse of
  B_i^T B_i (K x K), B_i the coarse near-null modes restricted to the row's pattern: the
  constraint data of the energy minimization (pyamg's compute_BtBinv inverted them by one
  LAPACK gelss call per row from Python: 66 and 134 ms of the hinge and mid-edge plates'
  setups at 10,000 triangles). Here a Cholesky factorization inverts each block whose pivots
  are all above PIVOT_RTOL of its largest diagonal entry; the others (rank-deficient: a row
  whose pattern meets only aggregates of fewer DOFs than modes) are flagged for an SVD
  pseudo-inverse with pyamg's cutoff, done in numpy by the caller.
- smooth_candidates: Gauss-Seidel sweeps on A X = 0 for all K columns of X at once (one pass
  over A per sweep instead of K: pyamg's "improve_candidates").
"""
import math

import numpy as np
from numba import njit

PIVOT_RTOL = 1e-8
"""A Cholesky pivot below this fraction of the block's largest diagonal entry sends the block
to the SVD pseudo-inverse (pyamg's cutoff: singular values below 1e6 machine epsilons, 2.2e-10,
of the largest are dropped; a block whose pivots all pass this test has none that small)."""


@njit(cache=True)
def btb_inverse(ptr, idx, rows_per_block, cols_per_block, B, out, flagged):
    """out[i] = (B_i^T B_i)^-1 (K x K, K = B.shape[1]) for each block row i of a BSR
    pattern with block-row pointers ptr (n_block_rows + 1,) and block-column indices idx:
    B_i stacks the rows of B (n_coarse, K) of the coarse DOFs of the block columns of row i
    (cols_per_block of them per block column). flagged[i] = True where the Cholesky test
    fails (out[i] is then left to the caller). rows_per_block: unused by the product (every
    fine row of a block row has the block row's pattern), kept for the caller's checks.
    out: (n_block_rows, K, K); flagged: (n_block_rows,) bool."""
    K = B.shape[1]
    n = ptr.size - 1
    M = np.empty((K, K))
    L = np.empty((K, K))
    for i in range(n):
        M[:, :] = 0.0
        for kk in range(ptr[i], ptr[i + 1]):
            first = idx[kk] * cols_per_block
            for c in range(first, first + cols_per_block):
                for a in range(K):
                    bca = B[c, a]
                    for b in range(a, K):
                        M[a, b] += bca * B[c, b]
        largest = 0.0
        for a in range(K):
            largest = max(largest, M[a, a])
        # Cholesky M = L L^T (upper triangle of M holds the sums)
        ok = largest > 0.0
        for j in range(K):
            if not ok:
                break
            s = M[j, j]
            for k in range(j):
                s -= L[j, k] * L[j, k]
            if not s > PIVOT_RTOL * largest:
                ok = False
                break
            d = math.sqrt(s)
            L[j, j] = d
            for r in range(j + 1, K):
                t = M[j, r]
                for k in range(j):
                    t -= L[r, k] * L[j, k]
                L[r, j] = t / d
        flagged[i] = not ok
        if not ok:
            continue
        # M^-1 = L^-T L^-1: invert L (lower triangular) in place of its strict upper part,
        # then multiply
        for j in range(K):
            for r in range(K):
                M[r, j] = 0.0
            M[j, j] = 1.0 / L[j, j]
            for r in range(j + 1, K):
                t = 0.0
                for k in range(j, r):
                    t -= L[r, k] * M[k, j]
                M[r, j] = t / L[r, r]
        for a in range(K):
            for b in range(a, K):
                t = 0.0
                for k in range(b, K):
                    t += M[k, a] * M[k, b]
                out[i, a, b] = t
                out[i, b, a] = t


@njit(cache=True)
def smooth_candidates(ptr, idx, val, X, sweeps):
    """`sweeps` symmetric Gauss-Seidel sweeps (forward, then backward) on A X = 0 for every
    column of X (n, K) at once, in place; A (n, n) CSR (its diagonal nonzero). Each column
    gets exactly what pointwise Gauss-Seidel on that column alone gives."""
    n, K = X.shape
    acc = np.empty(K)
    for sweep in range(2 * sweeps):
        forward = sweep % 2 == 0
        for step in range(n):
            i = step if forward else n - 1 - step
            acc[:] = 0.0
            diagonal = 0.0
            for k in range(ptr[i], ptr[i + 1]):
                j = idx[k]
                a = val[k]
                if j == i:
                    diagonal += a
                else:
                    for c in range(K):
                        acc[c] -= a * X[j, c]
            for c in range(K):
                X[i, c] = acc[c] / diagonal
