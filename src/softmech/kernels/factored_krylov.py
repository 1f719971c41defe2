"""Compiled GMRES preconditioned by the (incomplete or complete) LU factors of SuperLU, for the
sparse Newton solves of softmech.implicit.sparse_solve (ReusedILU, and ReusedAMG's LU
fallback).

Why compiled: scipy's GMRES is Python around each product and each application of the factors,
holding the GIL between them (the Python of its iterations was about a tenth of a
1,000-triangle plate's Newton iteration), so threads stepping the worlds of a batch would have
queued on it; and SuperLU's triangular solves (`SuperLU.solve`, which does release the GIL)
took 2-2.5x as long as the ones here on that plate's incomplete factors (uint32 indices;
benchmarks/implicit_batch.py's scene). Here a whole solve is one call that releases the GIL
(softmech.kernels.KERNEL_OPTIONS), the same restarted right-preconditioned flexible GMRES as
the multigrid's (softmech.kernels.krylov) with z = M^-1 v from the factors:

    Pr A Pc ~= L U   (SuperLU: Pr[perm_r[j], j] = 1, Pc[i, perm_c[i]] = 1)
    M^-1 v = Pc U^-1 L^-1 Pr v

L (unit diagonal) and U are used as SuperLU gives them, CSC, with uint32 indices (Factors):
the triangular solves go column by column, scattering each solved entry into the rows it
reaches (as fast as the row-by-row solve of CSR copies, measured on the 1,000-triangle plate,
without the conversion, which cost ~1.6 ms per factorization). A: the system's matrix as CSC
(scipy's storage of the ordered matrix), its products a scatter over columns too.
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.krylov import arnoldi, begin_round, correct, dot

Factors = namedtuple("Factors", [
    "l_ptr",    # (n + 1,) uint32 CSC column pointers of L (unit lower triangular, its
                # diagonal stored or not: skipped)
    "l_idx",    # uint32 row indices
    "l_val",    # values
    "u_ptr",    # (n + 1,) uint32 CSC column pointers of U (upper triangular)
    "u_idx",    # uint32 row indices
    "u_val",    # values (the diagonal's skipped: u_dinv)
    "u_dinv",   # (n,) 1 / U's diagonal
    "perm_r",   # (n,) int64: SuperLU's row permutation (v[j] goes to row perm_r[j])
    "perm_c",   # (n,) int64: its column permutation (z[i] = y[perm_c[i]])
    "y",        # (n,) scratch of the triangular solves
])


@kernel
def precondition(F, v, z):
    """z (n,) = M^-1 v = Pc U^-1 L^-1 Pr v (module docstring) for v (n,)."""
    n = v.size
    y = F.y
    for j in range(n):
        y[F.perm_r[j]] = v[j]
    for j in range(n):                      # L y = Pr v, column j once y_j is final
        yj = y[j]
        for k in range(F.l_ptr[j], F.l_ptr[j + 1]):
            r = F.l_idx[k]
            if r > j:
                y[r] -= F.l_val[k] * yj
    for j in range(n - 1, -1, -1):          # U y = y, from the last column
        yj = y[j] * F.u_dinv[j]
        y[j] = yj
        for k in range(F.u_ptr[j], F.u_ptr[j + 1]):
            r = F.u_idx[k]
            if r < j:
                y[r] -= F.u_val[k] * yj
    for i in range(n):
        z[i] = y[F.perm_c[i]]


@kernel
def csc_residual(ptr, idx, val, x, b, out):
    """out (n,) = b - A x for A (n, n) CSC (ptr, idx, val), x, b (n,)."""
    for i in range(out.size):
        out[i] = b[i]
    for j in range(out.size):
        xj = x[j]
        for k in range(ptr[j], ptr[j + 1]):
            out[idx[k]] -= val[k] * xj


@kernel
def csc_matvec(ptr, idx, val, x, out):
    """out (n,) = A x for A (n, n) CSC, x (n,)."""
    for i in range(out.size):
        out[i] = 0.0
    for j in range(out.size):
        xj = x[j]
        for k in range(ptr[j], ptr[j + 1]):
            out[idx[k]] += val[k] * xj


@kernel
def fgmres(ptr, idx, val, F, K, b, x, inner_atol, accept_atol, max_iterations):
    """Solve A x = b (A (n, n) CSC: ptr, idx, val; b (n,); x (n,) output) by restarted
    right-preconditioned GMRES with M^-1 = precondition(F, ., .) from x = M^-1 b, K: Krylov
    scratch (softmech.kernels.krylov.Krylov, m >= max_iterations). As
    softmech.kernels.multigrid_cycle.fgmres: each round starts from the true residual, stops
    when its recurrence residual is <= inner_atol; x is accepted when |b - A x| <=
    accept_atol. Returns the iterations (one application of the factors and one product with
    A each), or -1 - iterations when not accepted within max_iterations or x is not finite."""
    # from the factors' own solution x = M^-1 b (exact factors: accepted with 0 iterations,
    # the complete LU kept by ReusedILU after a fallback), the rounds correcting it
    precondition(F, b, x)
    csc_residual(ptr, idx, val, x, b, K.r)
    total = 0
    while True:
        beta = math.sqrt(dot(K.r, K.r))
        if not beta <= accept_atol:
            if not math.isfinite(beta):
                return -1 - total
        else:
            return total
        if total >= max_iterations:
            return -1 - total
        begin_round(K, beta)
        j = 0
        while total < max_iterations:
            precondition(F, K.V[j], K.Z[j])                       # z_j = M^-1 v_j
            csc_matvec(ptr, idx, val, K.Z[j], K.V[j + 1])         # A z_j
            hn = arnoldi(K, j)
            j += 1
            total += 1
            if not abs(K.g[j]) > inner_atol or hn == 0.0:
                break
        correct(K, j, x)
        csc_residual(ptr, idx, val, x, b, K.r)
        if j == 0:
            return -1 - total
