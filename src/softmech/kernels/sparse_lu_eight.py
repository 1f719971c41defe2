"""Sparse LU of eight matrices at once, the lanes innermost (softmech.kernels.sparse_lu's storage
and operations, for blocks of eight worlds: softmech.blocks.Lanes gives blocks of 16 worlds and
more on two threads eight lanes each).

Each lane's factor and solution are those of sparse_lu.lu_factor and lu_solve for that lane
alone, bit for bit: the same operations in the same order per entry, written as straight rows of
eight that LLVM's SLP vectorizer turns into SIMD rows (prepare_factor compiles them with it).
A block of eight lanes' factor is eight times one lane's: where one world's factor of the
1,032-triangle plate (2.2 MB) lies in the L2 cache, eight lanes' (17.7 MB) are read from L3 or
memory, so these kernels are written for fewer reads of the factor's entries (lu_factor_eight:
a node's columns factored together, chains two columns per pass) and rows read and stored
once (docs/benchmarks.md).
"""
import numpy as np

from softmech.kernels import compile_slp_vectorized, kernel
from softmech.kernels.sparse_lu import (EIGHT, TARGETS, _block_width, _chain_end, lu_solve,
                                        unsigned)


@kernel
def lu_factor_eight(lptr, uptr, rows, values, work, lanes):
    """lu_factor of eight lanes (values (nnz, 8), work (work_rows(n, 8), 8)): the same
    operations in the same order per lane (each lane's factor that of lu_factor, bit for
    bit), written as straight rows of eight for LLVM's SLP vectorizer (prepare_factor, which
    must run first): each update's multiplier row is read into eight locals first, then a row
    of eight is loaded, updated and stored, so no store of the row can alter the multipliers
    (in lu_factor's loop over lanes it could, for all LLVM knows: the multipliers and the row
    are rows of one array; a tuple of the eight measured 5-10 % slower); a lane not flagged
    keeps its values by a select, not a branch. As _factor_one, consecutive columns that
    share their U pattern before the first of them (a node's DOFs, _block_width) are factored
    together in the work array's rows r TARGETS + t (row r of the block's column t), so each
    row of L read before the block updates all of them (_update_targets); and a chain of
    columns (_chain_end) updates the block's rows below it two columns per pass
    (_update_chain), each row loaded and stored once per two columns. Eight lanes' factor
    (17.7 MB on the 1,032-triangle plate) is read from L3 and the block's rows (n TARGETS
    rows of eight) from L2, where one lane's lie in L2 and L1: with the factor's reads served
    from L1 (a test, wrong numbers) this factor took 15 % less (35 % at 4,305 nodes), so the
    block's rows bound it.
    Column c's row of the work array, read for the last time when U's part is gathered, then
    holds the pivots' reciprocals. falling_rod's factor (n = 246, 4,274 entries, a band):
    92 -> 52 us for eight lanes as rows of eight (2026-12-05). In blocks and chains (2026-12-06
    evening, an Intel Xeon with 2 MB of L2 per core, benchmarks/sparse_lu_chains.py): the
    1,032-triangle plate's factor (277,164 entries) 35-37 -> 21-24 ms, the 4,305-node plate's
    1.44-1.52 -> 0.78-0.85 s; its cold compile 1.3 -> 4.0 s with lu_solve_eight."""
    n = lptr.shape[0] - 1
    flat_work, flat_values = work.reshape(work.size), values.reshape(values.size)
    bad = -1
    j = 0
    while j < n:
        T = _block_width(lptr, uptr, rows, j, n)
        for t in range(T):
            c = j + t
            for p in range(lptr[c], lptr[c + 1]):
                w = work[rows[p] * TARGETS + t]
                v = values[p]
                for lane in range(EIGHT):
                    w[lane] = v[lane]
            for p in range(uptr[c + 1], uptr[c]):     # the diagonal, then U
                w = work[rows[p] * TARGETS + t]
                v = values[p]
                for lane in range(EIGHT):
                    w[lane] = v[lane]
        # the U pattern before the block, shared by its columns
        p = uptr[j + 1] + 1
        u_end = uptr[j]
        while p < u_end:
            k0 = rows[p]
            kl = _chain_end(lptr, rows, p, u_end)
            p += kl - k0 + 1
            # the columns k0 .. kl of a chain (for a block of TARGETS columns): their rows
            # among their own columns column by column, then their rows below kl (the last m
            # entries of each column) two columns per pass; of an odd count, the first column
            # whole
            chain = T == TARGETS and kl > k0
            paired = k0 + (kl - k0 + 1) % 2
            for k in range(k0, kl + 1):
                whole = not chain or k < paired
                _update_targets(flat_work, flat_values, work, rows, k, unsigned(lptr[k]),
                                unsigned(lptr[k + 1] if whole else lptr[k] + kl - k), T)
            if chain:
                _update_chain(flat_work, flat_values, work, rows, lptr, paired, kl)
        # each column of the block: the block's earlier columns (factored), then its own
        for t in range(T):
            c = j + t
            for k in range(j, c):
                _update_target(flat_work, flat_values, work, rows, k, unsigned(lptr[k]),
                               unsigned(lptr[k + 1]), t)
            pivots = work[c * TARGETS + t]
            for lane in range(EIGHT):
                pivot = pivots[lane]
                if lanes[lane] != 0 and bad < 0 and not (pivot != 0.0 and np.isfinite(pivot)):
                    bad = c
            for p in range(uptr[c + 1], uptr[c]):
                w = work[rows[p] * TARGETS + t]
                v = values[p]
                for lane in range(EIGHT):
                    v[lane] = w[lane] if lanes[lane] != 0 else v[lane]
            for lane in range(EIGHT):
                pivots[lane] = 1.0 / pivots[lane] if lanes[lane] != 0 else 1.0
            for p in range(lptr[c], lptr[c + 1]):
                w = work[rows[p] * TARGETS + t]
                v = values[p]
                for lane in range(EIGHT):
                    v[lane] = w[lane] * pivots[lane] if lanes[lane] != 0 else v[lane]
        j += T
    return bad


@kernel(inline="always")
def _update_targets(flat_work, flat_values, work, rows, k, lo, hi, T):
    """Each of a block's T columns t (lu_factor_eight's work rows r TARGETS + t) minus L's
    column k (its entries lo .. hi) times the column's row k: for a block of TARGETS columns
    in one pass over the entries, each entry's eight lanes read once for the three (the
    updates of a column in the order of column by column); for fewer, a pass per column."""
    if T != TARGETS:
        for t in range(T):
            _update_target(flat_work, flat_values, work, rows, k, lo, hi, t)
        return
    a, b, c = work[k * TARGETS], work[k * TARGETS + 1], work[k * TARGETS + 2]
    a0 = a[0]; a1 = a[1]; a2 = a[2]; a3 = a[3]; a4 = a[4]; a5 = a[5]; a6 = a[6]; a7 = a[7]
    b0 = b[0]; b1 = b[1]; b2 = b[2]; b3 = b[3]; b4 = b[4]; b5 = b[5]; b6 = b[6]; b7 = b[7]
    c0 = c[0]; c1 = c[1]; c2 = c[2]; c3 = c[3]; c4 = c[4]; c5 = c[5]; c6 = c[6]; c7 = c[7]
    step = np.uint64(EIGHT)
    for q in range(lo, hi):
        o = _target_offset(rows[q])
        s = row_offset(q)
        _update_eight(flat_work, o, flat_values, s, a0, a1, a2, a3, a4, a5, a6, a7)
        _update_eight(flat_work, o + step, flat_values, s, b0, b1, b2, b3, b4, b5, b6, b7)
        _update_eight(flat_work, o + step + step, flat_values, s,
                      c0, c1, c2, c3, c4, c5, c6, c7)


@kernel(inline="always")
def _update_chain(flat_work, flat_values, work, rows, lptr, k0, kl):
    """A block of TARGETS columns (lu_factor_eight) minus the columns k0 .. kl (an even count,
    the end of a chain) times their rows k on the chain's rows below kl (the last m entries of
    each of its columns, whose rows are column kl's: _chain_end), two columns per pass: each
    row of the block is loaded and stored once per two columns (_update_twice), its updates in
    the order of column by column."""
    m = lptr[kl + 1] - lptr[kl]
    first = unsigned(lptr[kl])
    step = np.uint64(EIGHT)
    k = k0
    while k < kl:
        a, b, c = work[k * TARGETS], work[k * TARGETS + 1], work[k * TARGETS + 2]
        d, e, f = work[(k + 1) * TARGETS], work[(k + 1) * TARGETS + 1], \
            work[(k + 1) * TARGETS + 2]
        a0 = a[0]; a1 = a[1]; a2 = a[2]; a3 = a[3]; a4 = a[4]; a5 = a[5]; a6 = a[6]; a7 = a[7]
        b0 = b[0]; b1 = b[1]; b2 = b[2]; b3 = b[3]; b4 = b[4]; b5 = b[5]; b6 = b[6]; b7 = b[7]
        c0 = c[0]; c1 = c[1]; c2 = c[2]; c3 = c[3]; c4 = c[4]; c5 = c[5]; c6 = c[6]; c7 = c[7]
        d0 = d[0]; d1 = d[1]; d2 = d[2]; d3 = d[3]; d4 = d[4]; d5 = d[5]; d6 = d[6]; d7 = d[7]
        e0 = e[0]; e1 = e[1]; e2 = e[2]; e3 = e[3]; e4 = e[4]; e5 = e[5]; e6 = e[6]; e7 = e[7]
        f0 = f[0]; f1 = f[1]; f2 = f[2]; f3 = f[3]; f4 = f[4]; f5 = f[5]; f6 = f[6]; f7 = f[7]
        sa = row_offset(lptr[k + 1] - m)
        sb = row_offset(lptr[k + 2] - m)
        for i in range(unsigned(m)):
            o = _target_offset(rows[first + i])
            ii = i * step
            _update_twice(flat_work, o, flat_values, sa + ii, sb + ii,
                          a0, a1, a2, a3, a4, a5, a6, a7, d0, d1, d2, d3, d4, d5, d6, d7)
            _update_twice(flat_work, o + step, flat_values, sa + ii, sb + ii,
                          b0, b1, b2, b3, b4, b5, b6, b7, e0, e1, e2, e3, e4, e5, e6, e7)
            _update_twice(flat_work, o + step + step, flat_values, sa + ii, sb + ii,
                          c0, c1, c2, c3, c4, c5, c6, c7, f0, f1, f2, f3, f4, f5, f6, f7)
        k += 2


@kernel(inline="always")
def _update_twice(w, o, v, sa, sb, a0, a1, a2, a3, a4, a5, a6, a7,
                  b0, b1, b2, b3, b4, b5, b6, b7):
    """The row of eight w[o:o + 8] -= v[sa:sa + 8] * a, then -= v[sb:sb + 8] * b (two columns'
    updates of one row, _update_eight's twice), everything loaded before the row is stored
    once."""
    one, two, three = np.uint64(1), np.uint64(2), np.uint64(3)
    four, five, six, seven = np.uint64(4), np.uint64(5), np.uint64(6), np.uint64(7)
    w0 = w[o]; w1 = w[o + one]; w2 = w[o + two]; w3 = w[o + three]
    w4 = w[o + four]; w5 = w[o + five]; w6 = w[o + six]; w7 = w[o + seven]
    p0 = v[sa]; p1 = v[sa + one]; p2 = v[sa + two]; p3 = v[sa + three]
    p4 = v[sa + four]; p5 = v[sa + five]; p6 = v[sa + six]; p7 = v[sa + seven]
    q0 = v[sb]; q1 = v[sb + one]; q2 = v[sb + two]; q3 = v[sb + three]
    q4 = v[sb + four]; q5 = v[sb + five]; q6 = v[sb + six]; q7 = v[sb + seven]
    w[o] = (w0 - p0 * a0) - q0 * b0; w[o + one] = (w1 - p1 * a1) - q1 * b1
    w[o + two] = (w2 - p2 * a2) - q2 * b2; w[o + three] = (w3 - p3 * a3) - q3 * b3
    w[o + four] = (w4 - p4 * a4) - q4 * b4; w[o + five] = (w5 - p5 * a5) - q5 * b5
    w[o + six] = (w6 - p6 * a6) - q6 * b6; w[o + seven] = (w7 - p7 * a7) - q7 * b7


@kernel(inline="always")
def _update_target(flat_work, flat_values, work, rows, k, lo, hi, t):
    """Column t of lu_factor_eight's block minus L's column k (entries lo .. hi) times its
    row k."""
    x = work[k * TARGETS + t]
    x0 = x[0]; x1 = x[1]; x2 = x[2]; x3 = x[3]
    x4 = x[4]; x5 = x[5]; x6 = x[6]; x7 = x[7]
    shift = unsigned(t) * np.uint64(EIGHT)
    for q in range(lo, hi):
        _update_eight(flat_work, _target_offset(rows[q]) + shift, flat_values, row_offset(q),
                      x0, x1, x2, x3, x4, x5, x6, x7)


@kernel(inline="always")
def _target_offset(row):
    """Where row `row` (>= 0) of lu_factor_eight's block (its TARGETS columns' rows of eight,
    (n, TARGETS, 8)) starts in the flattened work array, unsigned (row_offset)."""
    return unsigned(row) * np.uint64(TARGETS * EIGHT)


def prepare_factor(single=False):
    """Compile lu_factor_eight and lu_solve_eight (for the factor's values in double, or with
    single for their single-precision copy: single_factor) with LLVM's SLP vectorizer
    (softmech.kernels.compile_slp_vectorized; without it their rows of eight stay scalar: 84
    instead of 52 us on falling_rod's factor). Call it before their first call and before
    compiling any function that calls them (the implicit integrator's generated Newton loop): a
    caller links the overload it finds, and numba's disk cache keeps the first one compiled, so
    no other kernel calls them (lu_factor and lu_solve do not: a test or a script calling them
    would compile and cache the scalar form)."""
    pattern = np.zeros(1, np.int64)
    compile_slp_vectorized(lu_factor_eight, (pattern, pattern, pattern, np.zeros((1, EIGHT)),
                                           np.zeros((1, EIGHT)), pattern))
    values = np.zeros((1, EIGHT), np.float32 if single else np.float64)
    compile_slp_vectorized(lu_solve_eight, (pattern, pattern, pattern, values,
                                          np.zeros((1, EIGHT))))


@kernel
def lu_solve_eight(lptr, uptr, rows, values, b):
    """lu_solve of eight lanes (values (nnz, 8), float32 as single_factor writes them or
    float64; b (n, 8)): the same operations in the same
    order per lane (each lane's answer that of lu_solve, bit for bit), written as
    lu_factor_eight's rows of eight (prepare_factor must compile it first): the solved row
    b[k] is read into eight locals before the rows it updates, which lie strictly below
    (forward) or above (backward) it, so no update can alter them. In lu_solve's loop over
    lanes LLVM cannot tell b[k] from the updated row b[r] and keeps the loop scalar: it took
    55 % of the 1,032-triangle plate's time at 16 worlds (2026-12-05), where the plate solves
    ~20 times per factorization."""
    n = lptr.shape[0] - 1
    flat_b, flat_values = b.reshape(b.size), values.reshape(values.size)
    for k in range(n):
        x = b[k]
        x0 = x[0]; x1 = x[1]; x2 = x[2]; x3 = x[3]
        x4 = x[4]; x5 = x[5]; x6 = x[6]; x7 = x[7]
        for q in range(unsigned(lptr[k]), unsigned(lptr[k + 1])):
            _update_eight(flat_b, row_offset(rows[q]), flat_values, row_offset(q),
                          x0, x1, x2, x3, x4, x5, x6, x7)
    for k in range(n - 1, -1, -1):
        x = b[k]
        d = uptr[k + 1]
        v = values[d]
        x0 = x[0] / v[0]; x1 = x[1] / v[1]; x2 = x[2] / v[2]; x3 = x[3] / v[3]
        x4 = x[4] / v[4]; x5 = x[5] / v[5]; x6 = x[6] / v[6]; x7 = x[7] / v[7]
        x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3
        x[4] = x4; x[5] = x5; x[6] = x6; x[7] = x7
        for q in range(unsigned(d + 1), unsigned(uptr[k])):
            _update_eight(flat_b, row_offset(rows[q]), flat_values, row_offset(q),
                          x0, x1, x2, x3, x4, x5, x6, x7)


@kernel
def lu_solve_block(lptr, uptr, rows, values, b):
    """lu_solve for a block of worlds: lu_solve_eight where it has eight lanes (compile it
    after prepare_factor, as lu_solve_eight's callers)."""
    if b.shape[1] == EIGHT:
        lu_solve_eight(lptr, uptr, rows, values, b)
    else:
        lu_solve(lptr, uptr, rows, values, b)


@kernel(inline="always")
def _update_eight(w, o, v, s, x0, x1, x2, x3, x4, x5, x6, x7):
    """The row of eight w[o:o + 8] -= v[s:s + 8] * x, lane by lane (lu_factor's work[r] -=
    values[q] work[k], lu_solve's b[r] -= values[q] b[k]), all eight loaded before any is
    stored. w and v are the flattened (rows, 8) arrays and o, s unsigned offsets of rows
    (row_offset): indexed so, each update compiles to a row index load, a shift and the
    row's SIMD load, multiply, subtract and store; indexed as rows of 2-d arrays, numba's
    negative-index wraparound and the rows' run-time stride added ~14 scalar instructions
    to every update (lu_factor_eight on the 1,032-triangle plate's factor: 23.6 -> 19.2 ms,
    2026-12-06)."""
    one, two, three = np.uint64(1), np.uint64(2), np.uint64(3)
    four, five, six, seven = np.uint64(4), np.uint64(5), np.uint64(6), np.uint64(7)
    a0 = w[o] - v[s] * x0; a1 = w[o + one] - v[s + one] * x1
    a2 = w[o + two] - v[s + two] * x2; a3 = w[o + three] - v[s + three] * x3
    a4 = w[o + four] - v[s + four] * x4; a5 = w[o + five] - v[s + five] * x5
    a6 = w[o + six] - v[s + six] * x6; a7 = w[o + seven] - v[s + seven] * x7
    w[o] = a0; w[o + one] = a1; w[o + two] = a2; w[o + three] = a3
    w[o + four] = a4; w[o + five] = a5; w[o + six] = a6; w[o + seven] = a7


@kernel(inline="always")
def row_offset(row):
    """Where row `row` (>= 0) of a (rows, 8) array starts in its flattened form, unsigned:
    numba indexes with an unsigned offset without its negative-index wraparound."""
    return unsigned(row) * unsigned(EIGHT)
