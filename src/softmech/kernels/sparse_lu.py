"""Sparse LU factorization with a fixed pattern, W independent matrices at once (lanes innermost).

The implicit integrator of Cosserat rods and rigid bodies (softmech.integrators.implicit)
solves, per world, a sparse Newton system whose pattern is known once the scene is compiled
(softmech.integrators.sparse_pattern: probed couplings, a fill-reducing ordering, the factor's
symbolic pattern). The worlds of a block (W lanes) share the pattern and differ in values, so
every value array has the lanes as its last axis and every loop over an entry runs over the W
lanes contiguously (vectorized across worlds).

Storage (softmech.integrators.sparse_pattern.pass_layout): in the order of the solve's two
passes. First L, column by column: column j's rows below the diagonal (ascending) at
lptr[j] .. lptr[j + 1]; L has a unit diagonal that is not stored. Then, from the last column
to the first, each column's diagonal, at uptr[j + 1], followed by its rows of U above the
diagonal (ascending), up to uptr[j]. Forward substitution then reads L's values as one
ascending stream and backward substitution the rest as another, each without the other's
entries: on the 1,032-triangle plate's factor (277,164 entries), eight lanes' solve from
memory took 0.92-0.99 ms against 1.60-1.91 ms with the columns stored whole, where a pass read
the lines of both and the prefetcher fetched the other pass's entries too
(benchmarks/sparse_lu_chains.py, docs/benchmarks.md). Values (nnz, W).

The solves may read the factor rounded to single precision (single_factor, after each
factorization, which itself runs in double; ImplicitOptions.solve_precision "single"), and
compute in double: a solve is Newton's correction with a Jacobian that is kept over steps and
so inexact anyway, and the rounding (a relative 6e-8 per entry) left the Newton statistics of
the plate, the manta and falling_rod as they were. Its values are half the bytes: eight lanes'
solves stream their factor from memory (each block's factor in a batch evicts the other's),
and the 1,032-triangle plate's 16 worlds spent ~half their time there. One lane reads the
same rounded values, so that a world's results do not depend on its batch; its solve, which
reads its factor from the caches, is slower for the conversions (docs/benchmarks.md), hence
not the default.

No pivoting: the Newton matrix I - h dA/du of a mechanical system is dominated by its identity
(mass) part wherever h is a step the motion allows, and the ordering is chosen for fill only. A zero
or non-finite pivot is reported, and the integrator then refreshes or halves its step.

Left-looking LU (Gilbert and Peierls 1988, without the symbolic part, which the fixed pattern
makes unnecessary): column j is scattered into a dense work vector x (n, W), updated by every
earlier column k in its U pattern (x[L rows of k] -= L[:, k] x[k], k ascending: a topological
order of the fixed pattern), then gathered back, the L part divided by the pivot.

Supernodes (_factor_one, one lane): the pattern is an exact symbolic factor (sparse_pattern),
so where column k's first row below the diagonal is k + 1 and its L part is one entry longer
than column k + 1's, the two columns share their rows below k + 1 (Liu 1990:
a column's rows are its elimination-tree parent's, plus the parent). Consecutive such columns
k0 .. kl in column j's U pattern (a chain, _chain_end) update the same rows R below kl, the
last m entries of each column: x[R] is gathered once, updated by the chain's columns
(contiguous rows, without an index load per entry; four columns per pass over the rows,
_update_gathered) and scattered back. And consecutive columns
whose U patterns agree before the first of them (a node's DOFs, _block_width) are factored
together, each multiplier read once for all of them; eight lanes (lu_factor_eight) factor such
blocks together too, without the chains. Per entry the operations and their order are those of
column by column, so the factor is the same bit for bit.
"""
import numpy as np

from softmech.kernels import compile_slp_vectorized, kernel

EIGHT = 8
"""The block width with its own factorization (lu_factor_eight): blocks of 16 worlds and more
on two threads (softmech.blocks.Lanes)."""


@kernel
def lu_factor(lptr, uptr, rows, values, work, lanes):
    """Factor in place: values (nnz, W) hold the matrix's entries on the factor's pattern (zero on
    fill-in) and receive L (strict lower) and U (upper with diagonal). lptr (n + 1,), uptr (n + 1,),
    rows (nnz,) int64: the pattern (the module's storage); work (work_rows(n, W), W) scratch; lanes
    (W,) int64: only lanes with lanes[l] != 0 are factored (the others' values are left as they
    are). Returns the first column whose pivot is zero or not finite in a factored lane, or -1.
    One lane (B = 1) takes _factor_one: the same operations without the loops over lanes, which
    for W = 1 cost more than their one multiply-add (the unified plate's B = 1: 2026-12-01), in
    blocks and chains of columns. Blocks of eight lanes have their own, faster code:
    lu_factor_eight."""
    n = lptr.shape[0] - 1
    W = values.shape[1]
    if W == 1:
        if lanes[0] == 0:
            return -1
        return _factor_one(lptr, uptr, rows, values.reshape(values.shape[0]),
                           work.reshape(work.shape[0]))
    bad = -1
    for j in range(n):
        d = uptr[j + 1]                 # the diagonal, then U up to uptr[j]
        for p in range(lptr[j], lptr[j + 1]):
            r = rows[p]
            for lane in range(W):
                work[r, lane] = values[p, lane]
        for p in range(d, uptr[j]):
            r = rows[p]
            for lane in range(W):
                work[r, lane] = values[p, lane]
        for p in range(d + 1, uptr[j]):
            k = rows[p]
            for q in range(unsigned(lptr[k]), unsigned(lptr[k + 1])):
                r = unsigned(rows[q])
                for lane in range(W):
                    work[r, lane] -= values[q, lane] * work[k, lane]
        for lane in range(W):
            if lanes[lane] == 0:
                continue
            pivot = work[j, lane]
            if bad < 0 and not (pivot != 0.0 and np.isfinite(pivot)):
                bad = j
            for p in range(d, uptr[j]):
                values[p, lane] = work[rows[p], lane]
            inv = 1.0 / pivot
            for p in range(lptr[j], lptr[j + 1]):
                values[p, lane] = work[rows[p], lane] * inv
    return bad


@kernel
def _factor_one(lptr, uptr, rows, values, work):
    """lu_factor of one matrix: values (nnz,), work (work_rows(n, 1),): the dense columns of a
    block of up to TARGETS columns (_block_width) and the gathered rows of a chain
    (_chain_end), each (n, TARGETS). The columns of a block share their U pattern before the
    block, so every multiplier L[r, k] read there updates each of them (one read of the
    factor's entries per block instead of per column: the factorization streams them from
    memory), and each column then takes the block's earlier columns, ascending: per entry the
    operations and their order of column by column, so the factor is the same bit for bit.
    A 13,797-node hinge plate's factor (41,391 columns, 17.3 million entries, 3.4e9
    multiply-adds): 4.3 s column by column, 1.7 s so (2026-12-06, benchmarks/
    sparse_lu_chains.py; docs/benchmarks.md)."""
    n = lptr.shape[0] - 1
    X = work[:TARGETS * n].reshape((n, TARGETS))
    G = work[TARGETS * n:2 * TARGETS * n].reshape((n, TARGETS))
    bad = -1
    j = 0
    while j < n:
        T = _block_width(lptr, uptr, rows, j, n)
        for t in range(T):
            c = j + t
            for p in range(lptr[c], lptr[c + 1]):
                X[rows[p], t] = values[p]
            for p in range(uptr[c + 1], uptr[c]):
                X[rows[p], t] = values[p]
        # the U pattern before the block, shared by its columns, in chains
        p = uptr[j + 1] + 1
        u_end = uptr[j]
        while p < u_end:
            k0 = rows[p]
            kl = _chain_end(lptr, rows, p, u_end)
            p += kl - k0 + 1
            # the chain's rows among its own columns, column by column (a single column:
            # all its rows)
            for k in range(k0, kl + 1):
                x0, x1, x2 = _multipliers(X, k, T)
                for q in range(unsigned(lptr[k]),
                               unsigned(lptr[k] + kl - k if kl > k0 else lptr[k + 1])):
                    r = unsigned(rows[q])
                    v = values[q]
                    X[r, 0] -= v * x0
                    X[r, 1] -= v * x1
                    X[r, 2] -= v * x2
            if kl == k0:
                continue
            # its rows below kl, the last m entries of each of its columns, gathered once
            first = lptr[kl]
            m = lptr[kl + 1] - first
            for i in range(m):
                r = rows[first + i]
                for t in range(TARGETS):
                    G[i, t] = X[r, t]
            _update_gathered(G, X, values, lptr, k0, kl, m, T)
            for i in range(m):
                r = rows[first + i]
                for t in range(TARGETS):
                    X[r, t] = G[i, t]
        # each column of the block: the block's earlier columns (factored), then its own
        for t in range(T):
            c = j + t
            for k in range(j, c):
                xk = X[k, t]
                for q in range(unsigned(lptr[k]), unsigned(lptr[k + 1])):
                    X[unsigned(rows[q]), t] -= values[q] * xk
            pivot = X[c, t]
            if bad < 0 and not (pivot != 0.0 and np.isfinite(pivot)):
                bad = c
            for p in range(uptr[c + 1], uptr[c]):
                values[p] = X[rows[p], t]
            inv = 1.0 / pivot
            for p in range(lptr[c], lptr[c + 1]):
                values[p] = X[rows[p], t] * inv
        j += T
    return bad


@kernel(inline="always")
def _update_gathered(G, X, values, lptr, k0, kl, m, T):
    """G[i, t] -= L[row i, k] X[k, t] for the chain's columns k = k0 .. kl, ascending, on its
    m gathered rows below kl (the last m entries of each column), four columns at a time:
    each row of G is loaded and stored once per four columns, its updates in the same order
    as one column at a time (the same numbers bit for bit). The 23,064-node plate's factor
    (69,192 columns, 32 million entries): 6.00 -> 4.73 s, the 4,305-node plate's 0.203 ->
    0.166 s, the 562-node plate's 6.6 -> 5.9 ms (2026-12-06, docs/benchmarks.md)."""
    k = k0
    while k + 3 <= kl:
        a0, a1, a2 = _multipliers(X, k, T)
        b0, b1, b2 = _multipliers(X, k + 1, T)
        c0, c1, c2 = _multipliers(X, k + 2, T)
        d0, d1, d2 = _multipliers(X, k + 3, T)
        oa = unsigned(lptr[k + 1] - m)
        ob = unsigned(lptr[k + 2] - m)
        oc = unsigned(lptr[k + 3] - m)
        od = unsigned(lptr[k + 4] - m)
        for i in range(unsigned(m)):
            g0, g1, g2 = _update3(G[i, 0], G[i, 1], G[i, 2], values[oa + i], a0, a1, a2)
            g0, g1, g2 = _update3(g0, g1, g2, values[ob + i], b0, b1, b2)
            g0, g1, g2 = _update3(g0, g1, g2, values[oc + i], c0, c1, c2)
            G[i, 0], G[i, 1], G[i, 2] = _update3(g0, g1, g2, values[od + i], d0, d1, d2)
        k += 4
    while k <= kl:
        x0, x1, x2 = _multipliers(X, k, T)
        base = unsigned(lptr[k + 1] - m)
        for i in range(unsigned(m)):
            G[i, 0], G[i, 1], G[i, 2] = _update3(G[i, 0], G[i, 1], G[i, 2], values[base + i],
                                                 x0, x1, x2)
        k += 1


@kernel(inline="always")
def _update3(g0, g1, g2, v, x0, x1, x2):
    """(g0 - v x0, g1 - v x1, g2 - v x2): one entry's update of a row of three columns."""
    return g0 - v * x0, g1 - v * x1, g2 - v * x2


TARGETS = 3
"""The most columns _factor_one factors together: a node's three DOFs (a shell's, a discrete
rod's), whose columns share their U pattern (its loops are written for three: _multipliers)."""


@kernel(inline="always")
def _multipliers(X, k, T):
    """Row k of the block's dense columns X (n, TARGETS), zero past its T columns: the
    updates of _factor_one run over all TARGETS columns in straight lines (a loop over T
    compiled scalar and slower), those past T subtracting zero from entries never read."""
    return X[k, 0], X[k, 1] if T > 1 else 0.0, X[k, 2] if T > 2 else 0.0


def work_rows(n, W):
    """Rows of lu_factor's work array for n columns and W lanes: the single-lane block's
    2 TARGETS n for one (_factor_one), the eight-lane block's TARGETS n for eight
    (lu_factor_eight), n for other widths."""
    return 2 * TARGETS * n if W == 1 else TARGETS * n if W == EIGHT else n


@kernel(inline="always")
def _block_width(lptr, uptr, rows, j, n):
    """How many columns from j (1 .. TARGETS) share column j's U pattern before j: column
    j + T's U pattern is column j's followed by j .. j + T - 1."""
    above = uptr[j] - uptr[j + 1] - 1
    first = uptr[j + 1] + 1
    T = 1
    while T < TARGETS and j + T < n:
        c = j + T
        if uptr[c] - uptr[c + 1] - 1 != above + T:
            break
        same = True
        for i in range(above):
            if rows[uptr[c + 1] + 1 + i] != rows[first + i]:
                same = False
                break
        for s in range(T):
            if rows[uptr[c + 1] + 1 + above + s] != j + s:
                same = False
        if not same:
            break
        T += 1
    return T


@kernel(inline="always")
def _chain_end(lptr, rows, p, stop):
    """The last column kl of the chain that starts at column k0 = rows[p] of a U pattern whose
    entries end before position stop: k0 .. kl are at positions p .. p + kl - k0, and each
    column k < kl has k + 1 as its first row below the diagonal and one entry more below it
    than column k + 1, so that (the pattern being an exact symbolic factor) its rows below kl
    are column kl's, its last entries (the module's docstring)."""
    k = rows[p]
    while p + 1 < stop and rows[p + 1] == k + 1 and lptr[k] < lptr[k + 1] \
            and rows[lptr[k]] == k + 1 \
            and lptr[k + 1] - lptr[k] == lptr[k + 2] - lptr[k + 1] + 1:
        k += 1
        p += 1
    return k


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
    row of L read before the block updates all of them (_update_targets): the factor's
    entries are what eight lanes' factorization streams from memory (two blocks' factors
    exceed the L3 cache of this machine on the 1,032-triangle plate, docs/benchmarks.md).
    Column c's row of the work array, read for the last time when U's part is gathered, then
    holds the pivots' reciprocals. falling_rod's factor (n = 246, 4,274 entries, a band):
    92 -> 52 us for eight lanes; the 1,032-triangle plate's (277,164 entries): 2.3 -> 1.6 ms
    (2026-12-05)."""
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
            if T != TARGETS or kl == k0:
                for k in range(k0, kl + 1):
                    _update_targets(flat_work, flat_values, work, rows, k, unsigned(lptr[k]),
                                    unsigned(lptr[k + 1]), T)
                continue
            # a chain: its rows among its own columns column by column, then its rows below
            # kl (the last m entries of each column) two columns per pass
            for k in range(k0, kl):
                _update_targets(flat_work, flat_values, work, rows, k, unsigned(lptr[k]),
                                unsigned(lptr[k] + kl - k), T)
            _update_chain(flat_work, flat_values, work, rows, lptr, k0, kl)
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
    """A block of TARGETS columns (lu_factor_eight) minus the chain k0 .. kl's columns times
    their rows k on the chain's rows below kl (the last m entries of each of its columns,
    whose rows are column kl's: _chain_end), two columns per pass: each row of the block is
    loaded and stored once per two columns (_update_twice), its updates in the order of column
    by column."""
    m = lptr[kl + 1] - lptr[kl]
    first = unsigned(lptr[kl])
    step = np.uint64(EIGHT)
    k = k0
    while k + 1 <= kl:
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
            ii = unsigned(i) * step
            _update_twice(flat_work, o, flat_values, sa + ii, sb + ii,
                          a0, a1, a2, a3, a4, a5, a6, a7, d0, d1, d2, d3, d4, d5, d6, d7)
            _update_twice(flat_work, o + step, flat_values, sa + ii, sb + ii,
                          b0, b1, b2, b3, b4, b5, b6, b7, e0, e1, e2, e3, e4, e5, e6, e7)
            _update_twice(flat_work, o + step + step, flat_values, sa + ii, sb + ii,
                          c0, c1, c2, c3, c4, c5, c6, c7, f0, f1, f2, f3, f4, f5, f6, f7)
        k += 2
    if k == kl:
        base = lptr[kl + 1] - m
        _update_targets(flat_work, flat_values, work, rows, kl, unsigned(base),
                        unsigned(base + m), TARGETS)


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
def single_factor(values, single, lanes):
    """single (nnz, W) float32 <- values (nnz, W), rounded to nearest, in the lanes flagged in
    lanes (W,) (the ones just factored; the others keep theirs): the factor the solves read."""
    W = values.shape[1]
    for p in range(values.shape[0]):
        for lane in range(W):
            single[p, lane] = np.float32(values[p, lane]) if lanes[lane] != 0 \
                else single[p, lane]


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


@kernel(inline="always")
def unsigned(index):
    """index (>= 0) as np.uint64: numba indexes an array with an unsigned index without its
    negative-index wraparound, which LLVM cannot fold for an index loaded from memory (a row
    of the pattern) or the index of a loop that does not start at zero: two to four scalar
    instructions on every entry of the LU's inner loops (one lane's solve on the 1,032-triangle plate's factor:
    0.219 -> 0.132 ms, 2026-12-06)."""
    return np.uint64(index)


@kernel
def lu_solve(lptr, uptr, rows, values, b):
    """b (n, W) <- A^{-1} b for the factor of lu_factor (each lane its own matrix), values
    (nnz, W) float64 or float32 (single_factor's copy: each value widened exactly to double
    where it is used, so one lane and eight compute the same): forward substitution with the
    unit lower L, then backward with U, column by column (one lane: _solve_one, the same
    operations without the loops over lanes)."""
    n = lptr.shape[0] - 1
    W = b.shape[1]
    if W == 1:
        _solve_one(lptr, uptr, rows, values.reshape(values.shape[0]), b.reshape(n))
        return
    for k in range(n):
        for q in range(unsigned(lptr[k]), unsigned(lptr[k + 1])):
            r = unsigned(rows[q])
            for lane in range(W):
                b[r, lane] -= values[q, lane] * b[k, lane]
    for k in range(n - 1, -1, -1):
        d = uptr[k + 1]
        for lane in range(W):
            b[k, lane] /= values[d, lane]
        for q in range(unsigned(d + 1), unsigned(uptr[k])):
            r = unsigned(rows[q])
            for lane in range(W):
                b[r, lane] -= values[q, lane] * b[k, lane]


@kernel
def _solve_one(lptr, uptr, rows, values, b):
    """lu_solve of one matrix: values (nnz,), b (n,)."""
    n = lptr.shape[0] - 1
    for k in range(n):
        bk = b[k]
        for q in range(unsigned(lptr[k]), unsigned(lptr[k + 1])):
            b[unsigned(rows[q])] -= values[q] * bk
    for k in range(n - 1, -1, -1):
        d = uptr[k + 1]
        b[k] /= values[d]
        bk = b[k]
        for q in range(unsigned(d + 1), unsigned(uptr[k])):
            b[unsigned(rows[q])] -= values[q] * bk
