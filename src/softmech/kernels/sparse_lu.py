"""Sparse LU factorization with a fixed pattern, W independent matrices at once (lanes innermost).

The implicit integrator of Cosserat rods and rigid bodies (softmech.integrators.implicit)
solves, per world, a sparse Newton system whose pattern is known once the scene is compiled
(softmech.integrators.sparse_pattern: probed couplings, a fill-reducing ordering, the factor's
symbolic pattern). The worlds of a block (W lanes) share the pattern and differ in values, so
every value array has the lanes as its last axis and every loop over an entry runs over the W
lanes contiguously (vectorized across worlds).

Storage: the factor's columns in CSC order, column j holding the rows of U above the diagonal
(ascending), the diagonal (position diag[j]) and the rows of L below it (ascending); L has a
unit diagonal that is not stored. Values (nnz, W). No pivoting: the Newton matrix I - h dA/du
of a mechanical system is dominated by its identity (mass) part wherever h is a step the motion
allows, and the ordering is chosen for fill only. A zero or non-finite pivot is reported, and
the integrator then refreshes or halves its step.

Left-looking LU (Gilbert and Peierls 1988, without the symbolic part, which the fixed pattern
makes unnecessary): column j is scattered into a dense work vector x (n, W), updated by every
earlier column k in its U pattern (x[L rows of k] -= L[:, k] x[k], k ascending: a topological
order of the fixed pattern), then gathered back, the L part divided by the pivot.
"""
import numpy as np

from softmech.kernels import compile_slp_vectorized, kernel

EIGHT = 8
"""The block width with its own factorization (lu_factor_eight): blocks of 16 worlds and more
on two threads (softmech.blocks.Lanes)."""


@kernel
def lu_factor(colptr, rows, diag, values, work, lanes):
    """Factor in place: values (nnz, W) hold the matrix's entries on the factor's pattern (zero
    on fill-in) and receive L (strict lower) and U (upper with diagonal). colptr (n + 1,),
    rows (nnz,), diag (n,) int64: the pattern; work (n, W) scratch; lanes (W,) int64: only
    lanes with lanes[l] != 0 are factored (the others' values are left as they are). Returns
    the first column whose pivot is zero or not finite in a factored lane, or -1. One lane
    (B = 1) takes _factor_one: the same operations without the loops over lanes, which for
    W = 1 cost more than their one multiply-add (the unified plate's B = 1: 2026-12-01).
    Blocks of eight lanes have their own, faster code: lu_factor_eight."""
    n = colptr.shape[0] - 1
    W = values.shape[1]
    if W == 1:
        if lanes[0] == 0:
            return -1
        return _factor_one(colptr, rows, diag, values.reshape(values.shape[0]),
                           work.reshape(work.shape[0]))
    bad = -1
    for j in range(n):
        start = colptr[j]
        end = colptr[j + 1]
        for p in range(start, end):
            r = rows[p]
            for lane in range(W):
                work[r, lane] = values[p, lane]
        for p in range(start, diag[j]):
            k = rows[p]
            for q in range(diag[k] + 1, colptr[k + 1]):
                r = rows[q]
                for lane in range(W):
                    work[r, lane] -= values[q, lane] * work[k, lane]
        for lane in range(W):
            if lanes[lane] == 0:
                continue
            pivot = work[j, lane]
            if bad < 0 and not (pivot != 0.0 and np.isfinite(pivot)):
                bad = j
            for p in range(start, diag[j] + 1):
                values[p, lane] = work[rows[p], lane]
            inv = 1.0 / pivot
            for p in range(diag[j] + 1, end):
                values[p, lane] = work[rows[p], lane] * inv
    return bad


@kernel
def _factor_one(colptr, rows, diag, values, work):
    """lu_factor of one matrix: values (nnz,), work (n,)."""
    n = colptr.shape[0] - 1
    bad = -1
    for j in range(n):
        start = colptr[j]
        end = colptr[j + 1]
        for p in range(start, end):
            work[rows[p]] = values[p]
        for p in range(start, diag[j]):
            k = rows[p]
            wk = work[k]
            for q in range(diag[k] + 1, colptr[k + 1]):
                work[rows[q]] -= values[q] * wk
        pivot = work[j]
        if bad < 0 and not (pivot != 0.0 and np.isfinite(pivot)):
            bad = j
        for p in range(start, diag[j] + 1):
            values[p] = work[rows[p]]
        inv = 1.0 / pivot
        for p in range(diag[j] + 1, end):
            values[p] = work[rows[p]] * inv
    return bad


@kernel
def lu_factor_eight(colptr, rows, diag, values, work, lanes):
    """lu_factor of eight lanes (values (nnz, 8), work (n, 8)): the same operations in the same
    order per lane (each lane's factor that of lu_factor, bit for bit), written as straight
    rows of eight for LLVM's SLP vectorizer (prepare_factor, which must run first): each
    update's multiplier row is read into eight locals first, then a row of eight is loaded,
    updated and stored, so no store of the row can alter the multipliers (in lu_factor's loop
    over lanes it could, for all LLVM knows: the multipliers and the row are rows of one
    array; a tuple of the eight measured 5-10 % slower); a lane not flagged keeps its values
    by a select, not a branch. Column j's row of the work
    array, read for the last time when U's part is gathered, then holds the pivots'
    reciprocals. falling_rod's factor (n = 246, 4,274 entries, a band): 92 -> 52 us for eight
    lanes; the 1,032-triangle plate's (277,164 entries): 2.3 -> 1.6 ms (2026-12-05)."""
    n = colptr.shape[0] - 1
    bad = -1
    for j in range(n):
        start = colptr[j]
        end = colptr[j + 1]
        for p in range(start, end):
            w = work[rows[p]]
            v = values[p]
            for lane in range(EIGHT):
                w[lane] = v[lane]
        for p in range(start, diag[j]):
            k = rows[p]
            x = work[k]
            x0 = x[0]; x1 = x[1]; x2 = x[2]; x3 = x[3]
            x4 = x[4]; x5 = x[5]; x6 = x[6]; x7 = x[7]
            for q in range(diag[k] + 1, colptr[k + 1]):
                _update_eight(work[rows[q]], values[q], x0, x1, x2, x3, x4, x5, x6, x7)
        pivots = work[j]
        for lane in range(EIGHT):
            pivot = pivots[lane]
            if lanes[lane] != 0 and bad < 0 and not (pivot != 0.0 and np.isfinite(pivot)):
                bad = j
        for p in range(start, diag[j] + 1):
            w = work[rows[p]]
            v = values[p]
            for lane in range(EIGHT):
                v[lane] = w[lane] if lanes[lane] != 0 else v[lane]
        for lane in range(EIGHT):
            pivots[lane] = 1.0 / pivots[lane] if lanes[lane] != 0 else 1.0
        for p in range(diag[j] + 1, end):
            w = work[rows[p]]
            v = values[p]
            for lane in range(EIGHT):
                v[lane] = w[lane] * pivots[lane] if lanes[lane] != 0 else v[lane]
    return bad


def prepare_factor():
    """Compile lu_factor_eight and lu_solve_eight with LLVM's SLP vectorizer (softmech.kernels.
    compile_slp_vectorized; without it their rows of eight stay scalar: 84 instead of 52 us on
    falling_rod's factor). Call it before their first call and before compiling any function
    that calls them (the implicit integrator's generated Newton loop): a caller links the
    overload it finds, and numba's disk cache keeps the first one compiled, so no other kernel
    calls them (lu_factor and lu_solve do not: a test or a script calling them would compile
    and cache the scalar form)."""
    pattern = np.zeros(1, np.int64)
    compile_slp_vectorized(lu_factor_eight, (pattern, pattern, pattern, np.zeros((1, EIGHT)),
                                           np.zeros((1, EIGHT)), pattern))
    compile_slp_vectorized(lu_solve_eight, (pattern, pattern, pattern, np.zeros((1, EIGHT)),
                                          np.zeros((1, EIGHT))))


@kernel
def lu_solve_eight(colptr, rows, diag, values, b):
    """lu_solve of eight lanes (values (nnz, 8), b (n, 8)): the same operations in the same
    order per lane (each lane's answer that of lu_solve, bit for bit), written as
    lu_factor_eight's rows of eight (prepare_factor must compile it first): the solved row
    b[k] is read into eight locals before the rows it updates, which lie strictly below
    (forward) or above (backward) it, so no update can alter them. In lu_solve's loop over
    lanes LLVM cannot tell b[k] from the updated row b[r] and keeps the loop scalar: it took
    55 % of the 1,032-triangle plate's time at 16 worlds (2026-12-05), where the plate solves
    ~20 times per factorization."""
    n = colptr.shape[0] - 1
    for k in range(n):
        x = b[k]
        x0 = x[0]; x1 = x[1]; x2 = x[2]; x3 = x[3]
        x4 = x[4]; x5 = x[5]; x6 = x[6]; x7 = x[7]
        for q in range(diag[k] + 1, colptr[k + 1]):
            _update_eight(b[rows[q]], values[q], x0, x1, x2, x3, x4, x5, x6, x7)
    for k in range(n - 1, -1, -1):
        x = b[k]
        v = values[diag[k]]
        x0 = x[0] / v[0]; x1 = x[1] / v[1]; x2 = x[2] / v[2]; x3 = x[3] / v[3]
        x4 = x[4] / v[4]; x5 = x[5] / v[5]; x6 = x[6] / v[6]; x7 = x[7] / v[7]
        x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3
        x[4] = x4; x[5] = x5; x[6] = x6; x[7] = x7
        for q in range(colptr[k], diag[k]):
            _update_eight(b[rows[q]], values[q], x0, x1, x2, x3, x4, x5, x6, x7)


@kernel
def lu_solve_block(colptr, rows, diag, values, b):
    """lu_solve for a block of worlds: lu_solve_eight where it has eight lanes (compile it
    after prepare_factor, as lu_solve_eight's callers)."""
    if b.shape[1] == EIGHT:
        lu_solve_eight(colptr, rows, diag, values, b)
    else:
        lu_solve(colptr, rows, diag, values, b)


@kernel(inline="always")
def _update_eight(w, v, x0, x1, x2, x3, x4, x5, x6, x7):
    """The row of eight w (8,) -= v (8,) * x, lane by lane (lu_factor's work[r] -= values[q]
    work[k], lu_solve's b[r] -= values[q] b[k]), all eight loaded before any is stored."""
    a0 = w[0] - v[0] * x0; a1 = w[1] - v[1] * x1
    a2 = w[2] - v[2] * x2; a3 = w[3] - v[3] * x3
    a4 = w[4] - v[4] * x4; a5 = w[5] - v[5] * x5
    a6 = w[6] - v[6] * x6; a7 = w[7] - v[7] * x7
    w[0] = a0; w[1] = a1; w[2] = a2; w[3] = a3
    w[4] = a4; w[5] = a5; w[6] = a6; w[7] = a7


@kernel
def lu_solve(colptr, rows, diag, values, b):
    """b (n, W) <- A^{-1} b for the factor of lu_factor (each lane its own matrix): forward
    substitution with the unit lower L, then backward with U, column by column (one lane:
    _solve_one, the same operations without the loops over lanes)."""
    n = colptr.shape[0] - 1
    W = b.shape[1]
    if W == 1:
        _solve_one(colptr, rows, diag, values.reshape(values.shape[0]), b.reshape(n))
        return
    for k in range(n):
        for q in range(diag[k] + 1, colptr[k + 1]):
            r = rows[q]
            for lane in range(W):
                b[r, lane] -= values[q, lane] * b[k, lane]
    for k in range(n - 1, -1, -1):
        d = diag[k]
        for lane in range(W):
            b[k, lane] /= values[d, lane]
        for q in range(colptr[k], d):
            r = rows[q]
            for lane in range(W):
                b[r, lane] -= values[q, lane] * b[k, lane]


@kernel
def _solve_one(colptr, rows, diag, values, b):
    """lu_solve of one matrix: values (nnz,), b (n,)."""
    n = colptr.shape[0] - 1
    for k in range(n):
        bk = b[k]
        for q in range(diag[k] + 1, colptr[k + 1]):
            b[rows[q]] -= values[q] * bk
    for k in range(n - 1, -1, -1):
        b[k] /= values[diag[k]]
        bk = b[k]
        for q in range(colptr[k], diag[k]):
            b[rows[q]] -= values[q] * bk
