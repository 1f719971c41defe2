"""Compiled multigrid V-cycle and flexible GMRES for the sparse Newton solves of large shells
(softmech.implicit.multigrid.ReusedAMG; softmech.implicit.multigrid_hierarchy builds the
hierarchy and packs it into these arrays).

Why compiled: with pyamg's relaxation kernels called level by level from Python and scipy's
GMRES around them, a Krylov iteration cost ~8 passes over the finest matrix plus the Python
calls of each level and of GMRES (docs/benchmarks_log.md, "Discrete shells"). Here one call runs a
whole solve: restarted right-preconditioned flexible GMRES (FGMRES, Saad 1993) whose
preconditioner is a V-cycle over all levels, with
- the finest level's sweeps fused by the Gauss-Seidel identities (finest_presmooth,
  finest_postsmooth): the pre-smoothing from x = 0 and its residual, restricted as it is
  computed, in 1.5 passes over A; the post-smoothing and the product A z that FGMRES needs
  in 2 (instead of 2.5 + 3);
- the restriction R = P^T applied by scattering each row's residual through that row of P,
  so the residual is never stored;
- the preconditioned Krylov vectors Z_j = M^-1 v_j kept (FGMRES), so the solution is Z y
  without a last V-cycle, and the first Krylov vector is M^-1 b: one V-cycle per iteration;
- unsigned (uint32) index arrays: numba checks a signed index for wraparound at every
  gather, which made a CSR product 1.6-1.9x slower than scipy's C++ loop.

Levels: 0 is the current matrix A (CSR, pointwise Gauss-Seidel); 1 .. L-2 the coarse operators
R A P (BSR of bs x bs blocks, one block per aggregate: block Gauss-Seidel with the blocks'
pseudo-inverses); L-1 the coarsest, solved by a dense (pseudo-)inverse. All arrays float64 or
unsigned integer, packed level after level (offsets in `Levels`); every kernel writes only its
outputs and scratch and allocates nothing.
"""
import math
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.krylov import arnoldi, begin_round, correct, dot

Finest = namedtuple("Finest", [
    "ptr",      # (n + 1,) CSR row pointers of A (n, n), column indices sorted in each row
    "idx",      # (nnz,) column indices
    "val",      # (nnz,) values
    "dinv",     # (n,) 1 / A's diagonal
    "diag",     # (n,) position in idx/val of each row's diagonal entry
])

Levels = namedtuple("Levels", [
    "n",        # (L,) int64: unknowns of each level (level 0: A's n)
    "vec_off",  # (L + 1,) int64: offsets of each level's vectors in x, b
    "bs",       # (1,) int64: block size of levels 1 .. L-2
    "c_ptr_off",  # (L,) offsets into c_ptr of each coarse level's block-row pointers
    "c_idx_off",  # (L,) offsets into c_idx (in blocks; values at bs*bs times it)
    "c_ptr",    # block-row pointers of levels 1 .. L-2 (each relative to its own c_idx_off)
    "c_idx",    # block-column indices
    "c_val",    # (blocks * bs * bs,) the blocks, row-major
    "c_dinv",   # (block rows * bs * bs,) pseudo-inverses of the diagonal blocks
    "p_ptr_off",  # (L - 1,) offsets into p_ptr of P_l (n_l x n_{l+1}, CSR)
    "p_idx_off",  # (L - 1,) offsets into p_idx, p_val
    "p_ptr",    # row pointers of P_0 .. P_{L-2} (each relative to its own p_idx_off)
    "p_idx",    # column indices
    "p_val",    # values
    "cinv",     # (n_{L-1}^2,) the coarsest operator's (pseudo-)inverse, row-major
    "x",        # (vec_off[L],) scratch: each level's iterate
    "b",        # (vec_off[L],) scratch: each level's right-hand side
    "tmp",      # (bs,) scratch: a block row's residual
    "f1",       # (n,) scratch of the finest level's sweeps
    "f2",       # (n,) scratch of the finest level's sweeps
])


@kernel
def csr_matvec(ptr, idx, val, x, out):
    """out = A x for A (n, n) CSR, x (n,), out (n,)."""
    for i in range(out.size):
        s = 0.0
        for k in range(ptr[i], ptr[i + 1]):
            s += val[k] * x[idx[k]]
        out[i] = s


@kernel
def residual(ptr, idx, val, x, b, out):
    """out = b - A x (A: CSR as in csr_matvec)."""
    for i in range(out.size):
        s = b[i]
        for k in range(ptr[i], ptr[i + 1]):
            s -= val[k] * x[idx[k]]
        out[i] = s


@kernel
def _row_dot(val, idx, x, first, stop):
    """sum_k val[k] x[idx[k]] over k = first .. stop - 1 in two interleaved partial sums: a
    Gauss-Seidel sweep is a chain of dependent rows, and the two chains of additions halve
    each row's latency (measured 15 % faster sweeps on the plates of 10,000 triangles; a
    product A x, whose rows are independent, gained nothing)."""
    one = np.uint64(1)
    two = np.uint64(2)
    s0 = 0.0
    s1 = 0.0
    k = np.uint64(first)
    end = np.uint64(stop)
    while k + one < end:
        s0 += val[k] * x[idx[k]]
        s1 += val[k + one] * x[idx[k + one]]
        k += two
    if k < end:
        s0 += val[k] * x[idx[k]]
    return s0 + s1


@kernel
def finest_presmooth(A, x, b, delta, p_ptr, p_idx, p_val, coarse_b):
    """One symmetric Gauss-Seidel sweep (forward, then backward) on A x = b from x = 0, and
    the residual restricted, coarse_b = P^T (b - A x), in 1.5 passes over A instead of 2.5:
    - forward from x = 0: each row's strictly lower part only (the rest multiplies zeros);
    - backward: x_i += delta_i = -(U x)_i / a_ii, the strictly upper part only (the forward
      sweep left b_i - (L x)_i - a_ii x_i = 0, so Gauss-Seidel's update reduces to that);
    - then b_i - (A x)_i = -(L delta)_i (the backward sweep left b_i - (U x)_i - a_ii x_i
      - (L x_before)_i = 0): the lower part once more, scattered through P's rows.
    The identities hold in exact arithmetic; in floating point these differ from the plain
    sweeps by round-off, which only changes the preconditioner's rounding. x (n,) output;
    delta (n,) scratch; P (n, coarse_b.size) CSR (uint32 indices)."""
    n = x.size
    for i in range(n):
        x[i] = (b[i] - _row_dot(A.val, A.idx, x, A.ptr[i], A.diag[i])) * A.dinv[i]
    for ii in range(n):
        i = n - 1 - ii
        d = -_row_dot(A.val, A.idx, x, A.diag[i] + np.uint32(1), A.ptr[i + 1]) * A.dinv[i]
        delta[i] = d
        x[i] += d
    coarse_b[:] = 0.0
    for i in range(n):
        r = 0.0
        for k in range(A.ptr[i], A.diag[i]):
            r -= A.val[k] * delta[A.idx[k]]
        for k in range(p_ptr[i], p_ptr[i + 1]):
            coarse_b[p_idx[k]] += p_val[k] * r


@kernel
def finest_postsmooth(A, x, b, change, delta, Ax):
    """One symmetric Gauss-Seidel sweep (forward, then backward) on A x = b from the x given,
    and Ax = A x after it, in 2 passes over A instead of 3 (2 sweeps and a product):
    - forward: the plain sweep, each x_i's value before it kept in `change`;
    - backward: x_i += delta_i = (sum_{j > i} a_ij (x_before_j - x_j)) / a_ii (the forward
      sweep left b_i - (L x)_i - a_ii x_i = (U x_before)_i), `change` turned into
      x_before - x as the sweep goes;
    - A x = b + L delta (the backward sweep left b_i - (U x)_i - a_ii x_i - (L x_fwd)_i = 0).
    In exact arithmetic these are the plain sweeps and product (see finest_presmooth). x (n,)
    in place; change, delta (n,) scratch; Ax (n,) output."""
    n = x.size
    for i in range(n):
        change[i] = x[i]
        x[i] += (b[i] - _row_dot(A.val, A.idx, x, A.ptr[i], A.ptr[i + 1])) * A.dinv[i]
    for ii in range(n):
        i = n - 1 - ii
        d = _row_dot(A.val, A.idx, change, A.diag[i] + np.uint32(1), A.ptr[i + 1]) * A.dinv[i]
        delta[i] = d
        x[i] += d
        change[i] -= x[i]
    for i in range(n):
        s = b[i]
        for k in range(A.ptr[i], A.diag[i]):
            s += A.val[k] * delta[A.idx[k]]
        Ax[i] = s


@kernel
def _block_row_residual(ptr, idx, val, x, b, row, bs, out):
    """out (bs,) = b_I - sum_J A_IJ x_J for block row I = row of a BSR matrix (as in
    block_sweep): block by block, the bs rows' sums interleaved (independent chains)."""
    bb = bs * bs
    for a in range(bs):
        out[a] = b[row * bs + a]
    for kk in range(ptr[row], ptr[row + np.uint64(1)]):
        base = kk * bb
        xJ = np.uint64(idx[kk]) * bs
        for a in range(bs):
            acc = 0.0
            for c in range(bs):
                acc += val[base + a * bs + c] * x[xJ + c]
            out[a] -= acc


@kernel
def block_sweep(ptr, idx, val, dinv, x, b, tmp, first, stop, step):
    """Block Gauss-Seidel on a BSR matrix of bs x bs blocks (bs = tmp.size) over block rows
    first, first + step, ... (stop excluded): x_I += D_I^+ (b_I - sum_J A_IJ x_J). ptr
    (block rows + 1,), idx (blocks,) uint32; val (blocks * bs^2,), dinv (block rows * bs^2,)
    row-major blocks; x, b (block rows * bs,); tmp (bs,) scratch."""
    bs = np.uint64(tmp.size)
    bb = bs * bs
    I = first
    while I != stop:
        row = np.uint64(I)
        _block_row_residual(ptr, idx, val, x, b, row, bs, tmp)
        dbase = row * bb
        for a in range(bs):
            acc = 0.0
            for c in range(bs):
                acc += dinv[dbase + a * bs + c] * tmp[c]
            x[row * bs + a] += acc
        I += step


@kernel
def block_residual_restrict(ptr, idx, val, x, b, p_ptr, p_idx, p_val, coarse_b, tmp):
    """coarse_b = P^T (b - A x) for A: BSR as in block_sweep (bs = x.size / block rows),
    P (x.size, coarse_b.size) CSR (uint32 indices): each row's residual is scattered
    through that row of P, never stored. tmp (bs,) scratch."""
    coarse_b[:] = 0.0
    rows = np.uint64(ptr.size - 1)
    bs = np.uint64(tmp.size)
    for I in range(rows):
        _block_row_residual(ptr, idx, val, x, b, I, bs, tmp)
        for a in range(bs):
            row = I * bs + a
            for k in range(p_ptr[row], p_ptr[row + np.uint64(1)]):
                coarse_b[p_idx[k]] += p_val[k] * tmp[a]


@kernel
def prolongate(p_ptr, p_idx, p_val, coarse_x, x):
    """x += P coarse_x, P (x.size, coarse_x.size) CSR (uint32 indices)."""
    for i in range(x.size):
        acc = 0.0
        for k in range(p_ptr[i], p_ptr[i + 1]):
            acc += p_val[k] * coarse_x[p_idx[k]]
        x[i] += acc


@kernel
def dense_solve(inverse, b, x):
    """x = inverse b, inverse (n * n,) row-major."""
    n = x.size
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += inverse[i * n + j] * b[j]
        x[i] = acc


@kernel
def _coarse_level(H, level):
    """Level `level`'s operator (BSR) and its transfer P to level + 1, as views:
    (ptr, idx, val, dinv, x, b, p_ptr, p_idx, p_val, coarse_x, coarse_b)."""
    bs = H.bs[0]
    bb = bs * bs
    v0, v1, v2 = H.vec_off[level], H.vec_off[level + 1], H.vec_off[level + 2]
    blocks = H.n[level] // bs
    p0, i0 = H.c_ptr_off[level], H.c_idx_off[level]
    q0, j0 = H.p_ptr_off[level], H.p_idx_off[level]
    return (H.c_ptr[p0:p0 + blocks + 1], H.c_idx[i0:], H.c_val[i0 * bb:],
            H.c_dinv[(v0 - H.vec_off[1]) * bs:], H.x[v0:v1], H.b[v0:v1],
            H.p_ptr[q0:q0 + v1 - v0 + 1], H.p_idx[j0:], H.p_val[j0:], H.x[v1:v2], H.b[v1:v2])


@kernel
def vcycle(A, H, b, x, Ax):
    """x (n,) = one V-cycle for A x = b (b: (n,)) from x = 0, and Ax (n,) = A x: at each
    level but the coarsest one symmetric Gauss-Seidel sweep before and after the coarse
    correction (fused with the residuals and the product, finest_presmooth and
    finest_postsmooth), the coarsest solved by H.cinv."""
    L = H.n.size
    n = x.size
    if L == 1:      # no coarse level: the dense inverse of A itself
        dense_solve(H.cinv, b, x)
        csr_matvec(A.ptr, A.idx, A.val, x, Ax)
        return
    p_ptr = H.p_ptr[:n + 1]
    p_idx, p_val = H.p_idx, H.p_val
    x1, b1 = H.x[H.vec_off[1]:H.vec_off[2]], H.b[H.vec_off[1]:H.vec_off[2]]
    finest_presmooth(A, x, b, H.f1, p_ptr, p_idx, p_val, b1)
    for level in range(1, L - 1):
        ptr, idx, val, dinv, x_l, b_l, q_ptr, q_idx, q_val, _, b_c = _coarse_level(H, level)
        blocks = ptr.size - 1
        x_l[:] = 0.0
        block_sweep(ptr, idx, val, dinv, x_l, b_l, H.tmp, 0, blocks, 1)
        block_sweep(ptr, idx, val, dinv, x_l, b_l, H.tmp, blocks - 1, -1, -1)
        block_residual_restrict(ptr, idx, val, x_l, b_l, q_ptr, q_idx, q_val, b_c, H.tmp)
    dense_solve(H.cinv, H.b[H.vec_off[L - 1]:], H.x[H.vec_off[L - 1]:])
    for level in range(L - 2, 0, -1):
        ptr, idx, val, dinv, x_l, b_l, q_ptr, q_idx, q_val, x_c, _ = _coarse_level(H, level)
        blocks = ptr.size - 1
        prolongate(q_ptr, q_idx, q_val, x_c, x_l)
        block_sweep(ptr, idx, val, dinv, x_l, b_l, H.tmp, 0, blocks, 1)
        block_sweep(ptr, idx, val, dinv, x_l, b_l, H.tmp, blocks - 1, -1, -1)
    prolongate(p_ptr, p_idx, p_val, x1, x)
    finest_postsmooth(A, x, b, H.f1, H.f2, Ax)


@kernel
def fgmres(A, H, K, b, x, inner_atol, accept_atol, max_iterations):
    """Solve A x = b (A: Finest, b (n,), x (n,) output) by restarted flexible GMRES
    preconditioned on the right with vcycle(A, H, ., .), K: Krylov scratch (m >=
    max_iterations). Each round starts from the true residual r = b - A x and stops when its
    recurrence residual is <= inner_atol; x is accepted when the true residual |b - A x| <=
    accept_atol. Returns the iterations (one V-cycle and one product with A each), negative
    (minus one, minus the iterations) when not accepted within max_iterations or when x is
    not finite. The rounds' Arnoldi steps: softmech.kernels.krylov."""
    n = b.size
    for i in range(n):
        x[i] = 0.0
        K.r[i] = b[i]
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
            vcycle(A, H, K.V[j], K.Z[j], K.V[j + 1])     # z_j = M^-1 v_j and A z_j
            hn = arnoldi(K, j)
            j += 1
            total += 1
            if not abs(K.g[j]) > inner_atol or hn == 0.0:
                break
        correct(K, j, x)
        residual(A.ptr, A.idx, A.val, x, b, K.r)
        if j == 0:
            return -1 - total
