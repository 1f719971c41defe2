"""The symbolic part of a sparse factorization, compiled: the Cholesky factor's pattern of a
symmetric graph (the fixed pattern of softmech.kernels.sparse_lu's LU, built by
softmech.integrators.sparse_pattern) and the factor positions of given entries.

Pattern (George & Liu 1981, ch. 5; Liu 1990, "The role of elimination trees in sparse
factorization"): row i of L holds the columns j < i reached from the entries A[i, k] (k < i)
by climbing the elimination tree from k until a node already reached from row i; the tree's
parent of column j is the first row below j in column j of L, found without L by Liu's
algorithm with path compression (Liu 1990, algorithm 4.2). Two passes over the rows, the
first counting each column's entries and the second writing them, give every column's rows in
ascending order with no sort: O(nnz(L)) work. The per-column merge of the children's patterns
in numpy that this replaced took 0.64 s for a 23,064-node plate's 16-million-entry L
(2026-12-06, docs/benchmarks.md).

The kernels do not allocate (softmech.kernels): the caller passes the scratch arrays.
"""
from softmech.kernels import kernel


@kernel
def cholesky_counts(indptr, indices, parent, ancestor, mark, counts):
    """The elimination tree and the column counts of the Cholesky factor L of the symmetric
    pattern (indptr (n + 1,), indices) (CSR or CSC with both triangles, any order within a
    row; the diagonal is ignored). parent (n,) int64 <- each column's parent in the tree (-1
    at a root); ancestor, mark (n,) int64: scratch; counts (n,) int64 <- the entries of each
    column of L below the diagonal. Returns nnz(L) below the diagonal."""
    n = parent.shape[0]
    for i in range(n):
        parent[i] = -1
        ancestor[i] = -1
        mark[i] = -1
        counts[i] = 0
    total = 0
    for i in range(n):
        mark[i] = i
        for p in range(indptr[i], indptr[i + 1]):
            k = indices[p]
            if k >= i:
                continue
            # the tree (Liu's algorithm 4.2: the root of k's subtree so far, compressed)
            r = k
            while ancestor[r] != -1 and ancestor[r] != i:
                nxt = ancestor[r]
                ancestor[r] = i
                r = nxt
            if ancestor[r] == -1:
                ancestor[r] = i
                parent[r] = i
            # (complete for the columns below i, whose parents are set)
            total += _reach(i, k, parent, mark, counts, counts, False)
    return total


@kernel
def cholesky_rows(indptr, indices, parent, mark, colptr, fill, rows):
    """The rows of L below the diagonal, column by column (cholesky_counts' pattern, parent
    its tree): colptr (n + 1,) int64, the counts' running sum; fill (n,) int64 scratch;
    rows (nnz,) int64 <- column j's rows at colptr[j] .. colptr[j + 1], ascending (each row i
    is appended to the columns it reaches, i ascending)."""
    n = parent.shape[0]
    for j in range(n):
        mark[j] = -1
        fill[j] = colptr[j]
    for i in range(n):
        mark[i] = i
        for p in range(indptr[i], indptr[i + 1]):
            if indices[p] < i:
                _reach(i, indices[p], parent, mark, fill, rows, True)


@kernel(inline="always")
def _reach(i, k, parent, mark, cursor, rows, write):
    """Row i's part of L's pattern reached from its entry A[i, k] (k < i): k's path up the
    elimination tree `parent` to the first node already reached from row i (mark (n,) holds,
    per node, the last row that reached it; mark[i] = i stops every path at i). Each node j
    on it gets row i: cursor[j] += 1, after rows[cursor[j]] <- i with `write` (cursor: the
    columns' counts, or their next free positions). Returns how many nodes it reached."""
    reached = 0
    j = k
    while mark[j] != i:
        mark[j] = i
        if write:
            rows[cursor[j]] = i
        cursor[j] += 1
        reached += 1
        j = parent[j]
    return reached


@kernel
def pass_rows(colptr, below, uptr, fill, rows):
    """The LU factor's rows in the order of the solve's passes (softmech.kernels.sparse_lu's
    storage) from L's pattern (colptr (n + 1,), below: cholesky_rows' columns): L's columns
    first, as they are; then, at uptr[j + 1] (uptr (n + 1,) int64, laid out by the caller),
    column j's diagonal and its rows of U above it, ascending: the i < j whose column of L
    holds j (U has L^T's pattern). fill (n,) int64: scratch; rows (nnz,) int64 <- the rows."""
    n = colptr.shape[0] - 1
    for p in range(colptr[n]):
        rows[p] = below[p]
    for j in range(n):
        rows[uptr[j + 1]] = j
        fill[j] = uptr[j + 1] + 1
    for i in range(n):
        for p in range(colptr[i], colptr[i + 1]):
            j = below[p]
            rows[fill[j]] = i
            fill[j] += 1


@kernel
def entry_positions(lptr, uptr, rows, pi, pj, start, order, slot, out):
    """out[q] <- the position in the factor (lptr, uptr, rows: softmech.kernels.sparse_lu's
    storage) of entry (pi[q], pj[q]), or -1 where it has none: the queries grouped by column
    (a counting sort: start (n + 1,), order (m,) int64 scratch), and each column's positions
    spread by row into slot (n,) int64 (scratch, left at -1) while its queries read it.
    O(nnz + m), against a search per entry (scipy's lookup: 1.76 s for the 16 million analytic
    entries of a 23,064-node plate, 2026-12-06). Returns the number of entries not found."""
    n = lptr.shape[0] - 1
    m = pi.shape[0]
    for j in range(n + 1):
        start[j] = 0
    for j in range(n):
        slot[j] = -1
    for q in range(m):
        start[pj[q] + 1] += 1
    for j in range(n):
        start[j + 1] += start[j]
    for q in range(m):                 # start[j] runs to the end of column j's queries
        j = pj[q]
        order[start[j]] = q
        start[j] += 1
    missing = 0
    first = 0
    for j in range(n):
        _spread(lptr[j], lptr[j + 1], rows, slot, True)
        _spread(uptr[j + 1], uptr[j], rows, slot, True)      # the diagonal, then U
        for s in range(first, start[j]):
            q = order[s]
            out[q] = slot[pi[q]]
            missing += 1 if out[q] < 0 else 0
        first = start[j]
        _spread(lptr[j], lptr[j + 1], rows, slot, False)
        _spread(uptr[j + 1], uptr[j], rows, slot, False)
    return missing


@kernel(inline="always")
def _spread(begin, end, rows, slot, on):
    """slot[rows[p]] <- p (or -1 without `on`) for the positions begin .. end."""
    for p in range(begin, end):
        slot[rows[p]] = p if on else -1
