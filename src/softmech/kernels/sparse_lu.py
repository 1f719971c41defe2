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
(contiguous rows, without an index load per entry, vectorized over the rows; four columns per
pass over the rows, _update_gathered) and scattered back. And consecutive columns
whose U patterns agree before the first of them (a node's DOFs, _block_width) are factored
together, each multiplier read once for all of them. Per entry the operations and their order
are those of column by column, so the factor is the same bit for bit. Blocks of eight lanes
have their own kernels (softmech.kernels.sparse_lu_eight).
"""
import numpy as np

from softmech.kernels import kernel

EIGHT = 8
"""The block width with its own kernels (softmech.kernels.sparse_lu_eight): blocks of 16 worlds
and more on two threads (softmech.blocks.Lanes)."""


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
    softmech.kernels.sparse_lu_eight.lu_factor_eight."""
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
    block of up to TARGETS columns (_block_width), (n, TARGETS), and the gathered rows of a
    chain (_chain_end), (TARGETS, n). The columns of a block share their U pattern before the
    block, so every multiplier L[r, k] read there updates each of them (one read of the
    factor's entries per block instead of per column: the factorization streams them from
    memory), and each column then takes the block's earlier columns, ascending: per entry the
    operations and their order of column by column, so the factor is the same bit for bit.
    A 13,797-node hinge plate's factor (41,391 columns, 17.3 million entries, 3.4e9
    multiply-adds): 4.3 s column by column, 1.7 s so (2026-12-06, benchmarks/
    sparse_lu_chains.py; docs/benchmarks.md)."""
    n = lptr.shape[0] - 1
    X = work[:TARGETS * n].reshape((n, TARGETS))
    G = work[TARGETS * n:2 * TARGETS * n].reshape((TARGETS, n))
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
                for t in range(T):
                    G[t, i] = X[r, t]
            _update_gathered(G, X, values, lptr, k0, kl, m, T)
            for i in range(m):
                r = rows[first + i]
                for t in range(T):
                    X[r, t] = G[t, i]
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
    """G[t, i] -= L[row i, k] X[k, t] for the chain's columns k = k0 .. kl, ascending, on its
    m gathered rows below kl (the last m entries of each column, contiguous), for each of the
    block's T columns t, four chain columns at a time: each row of G is loaded and stored
    once per four columns, its updates in the same order as one column at a time (the same
    numbers bit for bit). G holds a block column's gathered rows contiguously (TARGETS, n),
    so the loop over the rows reads G and the four columns' entries as contiguous streams,
    and LLVM vectorizes it. The 23,064-node plate's factor (69,192 columns, 32 million
    entries): 6.00 -> 4.73 s with four columns per pass (the 562-node plate's 6.6 -> 5.9 ms,
    2026-12-06, docs/benchmarks.md)."""
    k = k0
    while k + 3 <= kl:
        oa = unsigned(lptr[k + 1] - m)
        ob = unsigned(lptr[k + 2] - m)
        oc = unsigned(lptr[k + 3] - m)
        od = unsigned(lptr[k + 4] - m)
        for t in range(T):
            _update_rows4(G[t], values, oa, ob, oc, od, m,
                          X[k, t], X[k + 1, t], X[k + 2, t], X[k + 3, t])
        k += 4
    while k <= kl:
        base = unsigned(lptr[k + 1] - m)
        for t in range(T):
            g = G[t]
            x = X[k, t]
            for i in range(unsigned(m)):
                g[i] = g[i] - values[base + i] * x
        k += 1


@kernel(inline="always")
def _update_rows4(g, values, oa, ob, oc, od, m, a, b, c, d):
    """g[i] -= values[oa + i] a, then values[ob + i] b, values[oc + i] c, values[od + i] d, for
    i < m (one block column's gathered rows, four chain columns' updates in their order)."""
    for i in range(unsigned(m)):
        g[i] = (((g[i] - values[oa + i] * a) - values[ob + i] * b) - values[oc + i] * c) \
            - values[od + i] * d


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
    (sparse_lu_eight.lu_factor_eight), n for other widths."""
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
def single_factor(values, single, lanes):
    """single (nnz, W) float32 <- values (nnz, W), rounded to nearest, in the lanes flagged in
    lanes (W,) (the ones just factored; the others keep theirs): the factor the solves read."""
    W = values.shape[1]
    for p in range(values.shape[0]):
        for lane in range(W):
            single[p, lane] = np.float32(values[p, lane]) if lanes[lane] != 0 \
                else single[p, lane]


@kernel(inline="always")
def unsigned(index):
    """index (>= 0) as np.uint64: numba indexes an array with an unsigned index without its
    negative-index wraparound, which LLVM cannot fold for an index loaded from memory (a row
    of the pattern) or the index of a loop that does not start at zero: two to four scalar
    instructions on every entry of the LU's inner loops (one lane's solve on the 1,032-triangle
    plate's factor: 0.219 -> 0.132 ms, 2026-12-06)."""
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
