"""The sparsity of an implicit step's Newton matrix, computed once per compiled scene: a
fill-reducing ordering, the LU factor's symbolic pattern (softmech.kernels.sparse_lu's storage)
and a column coloring for finite-difference Jacobians.

Input: the coupling pattern of the residual, (rows, cols) of the entries dR_i/du_j that can be
non-zero (softmech.integrators.implicit probes it). The factor is given the pattern of
A + A^T, so L and U^T share one symbolic pattern (that of the Cholesky factor of A + A^T: a
fixed pattern that holds the LU factors without pivoting of any matrix with A's pattern).

Ordering: the smaller fill of reverse Cuthill-McKee (rods alone give a band) and METIS nested
dissection (a rigid body joined to many rods: a hub that a band cannot hold), both on the
graph of A + A^T (softmech.implicit.ordering for METIS).

Coloring (Curtis, Powell and Reid 1974): columns with no row in common get one color; the
Jacobian then costs one residual evaluation per color, each column's entries read from the
difference of its color's evaluation. Greedy, largest-degree first.
"""
from dataclasses import dataclass

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import reverse_cuthill_mckee

from softmech.implicit.ordering import nested_dissection


@dataclass(frozen=True)
class FactorPattern:
    """The LU factor's pattern in permuted order (softmech.kernels.sparse_lu storage) and how the
    Jacobian's entries and the DOFs map onto it.

    perm (n,) int64: factor row/column i is DOF perm[i]; lptr (n + 1,), uptr (n + 1,), rows (nnz,)
    int64: the factor's entries in the order of the solve's two passes (softmech.kernels.sparse_lu:
    column j's L rows at lptr[j] .. lptr[j + 1], its diagonal at uptr[j + 1] and its U rows after
    it, up to uptr[j]); entry_pos (m,) int64: the factor position of each probed coupling (the i-th
    of `coupling_rows`, `coupling_cols`, DOF numbering); color (n,) int64 per DOF, n_colors; col_ptr
    / col_entries: for each DOF (column) j, the couplings of column j (indices into the coupling
    arrays), CSC over DOFs. extra_pos (k,) int64: the factor position of each of the `extra` entries
    given to factor_pattern (entries that an analytic Jacobian fills: in the factor, not in the
    coloring)."""
    n: int
    perm: np.ndarray
    lptr: np.ndarray
    uptr: np.ndarray
    rows: np.ndarray
    coupling_rows: np.ndarray
    coupling_cols: np.ndarray
    entry_pos: np.ndarray
    color: np.ndarray
    n_colors: int
    col_ptr: np.ndarray
    col_entries: np.ndarray
    ordering: str
    extra_pos: np.ndarray

    @property
    def nnz(self):
        return int(self.rows.shape[0])


def symbolic_cholesky(graph, limit=None):
    """Column patterns of the Cholesky factor L of a symmetric pattern `graph` (scipy CSR/CSC
    (n, n), in elimination order): a list of sorted int arrays, the rows > j of column j. Each
    column is A's lower part of column j merged with its elimination-tree children's columns
    (Liu 1990, "The role of elimination trees in sparse factorization", eq. 3.1). limit: None
    once the columns hold more than `limit` entries (an ordering that already fills more than
    another is not finished)."""
    n = graph.shape[0]
    filled = 0
    csc = scipy.sparse.csc_matrix(graph)
    indptr, indices = csc.indptr, csc.indices.astype(np.int64)
    children = [[] for _ in range(n)]
    columns = []
    for j in range(n):
        own = indices[indptr[j]:indptr[j + 1]]
        # a child's column is sorted and starts at its parent j: its rows > j are [1:]; one
        # sorted union per column in numpy, by a sort and a mask of the repeats (a Python set
        # over every entry took 2.9 of the 4.8 s set-up of a 5,863-node plate, np.unique
        # 0.8 s, this 0.4 s: docs/benchmarks.md)
        col = np.sort(np.concatenate([own[own > j]] + [columns[c][1:] for c in children[j]]))
        if col.size > 1:
            col = col[np.concatenate(([True], col[1:] != col[:-1]))]
        columns.append(col)
        filled += col.size
        if limit is not None and filled > limit:
            return None
        if col.size:
            children[int(col[0])].append(j)
    return columns


def _fill(columns):
    return sum(len(c) for c in columns)


def factor_pattern(n, coupling_rows, coupling_cols, extra=None):
    """The FactorPattern of a residual with n DOFs whose Jacobian may be non-zero at
    (coupling_rows, coupling_cols) (int arrays, DOF numbering; the diagonal is always added),
    found by finite differences over the coloring, and at the `extra` entries (rows, cols),
    which an analytic Jacobian fills: they are in the factor's pattern but not colored (two
    columns coupled only through them share a color)."""
    cr = np.concatenate([np.asarray(coupling_rows, np.int64), np.arange(n)])
    cc = np.concatenate([np.asarray(coupling_cols, np.int64), np.arange(n)])
    A = scipy.sparse.coo_matrix((np.ones(cr.size), (cr, cc)), shape=(n, n)).tocsr()
    A.sum_duplicates()
    coo = A.tocoo()
    cr, cc = coo.row.astype(np.int64), coo.col.astype(np.int64)   # unique couplings
    er, ec = (np.zeros(0, np.int64),) * 2 if extra is None else (
        np.asarray(extra[0], np.int64), np.asarray(extra[1], np.int64))
    A = A + scipy.sparse.coo_matrix((np.ones(er.size), (er, ec)), shape=(n, n)).tocsr()
    sym = (A + A.T).tocsr()
    sym.data[:] = 1.0
    # the ordering that fills less, reverse Cuthill-McKee on a tie: nested dissection's first,
    # so that reverse Cuthill-McKee's, which on a large mesh fills several times more, stops
    # once it fills more
    order = nested_dissection(sym)
    best = ("nested_dissection", order, symbolic_cholesky(sym[order][:, order]))
    order = np.asarray(reverse_cuthill_mckee(sym, symmetric_mode=True), dtype=np.int64)
    columns = symbolic_cholesky(sym[order][:, order], limit=_fill(best[2]))
    if columns is not None:
        best = ("rcm", order, columns)
    name, perm, lower = best
    inverse = np.empty(n, dtype=np.int64)
    inverse[perm] = np.arange(n)
    colptr, rows, diag = _factor_columns(n, lower)
    lptr, uptr, where = pass_layout(colptr, diag)
    # (the couplings' and the extra entries' positions in one lookup)
    pos = _positions(colptr, rows, where, inverse[np.concatenate([cr, er])],
                     inverse[np.concatenate([cc, ec])])
    laid_out = np.empty_like(rows)
    laid_out[where] = rows
    rows = laid_out
    entry_pos, extra_pos = pos[:cr.size], pos[cr.size:]
    color, n_colors = column_coloring(n, cr, cc)
    order = np.argsort(cc, kind="stable")
    col_ptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(col_ptr, cc + 1, 1)
    col_ptr = np.cumsum(col_ptr)
    return FactorPattern(n=n, perm=perm, lptr=lptr, uptr=uptr, rows=rows,
                         coupling_rows=cr, coupling_cols=cc, entry_pos=entry_pos, color=color,
                         n_colors=n_colors, col_ptr=col_ptr, col_entries=order.astype(np.int64),
                         ordering=name, extra_pos=extra_pos)


def _factor_columns(n, lower):
    """(colptr (n + 1,), rows (nnz,), diag (n,)) int64 of the LU factor's columns from the
    Cholesky pattern `lower` (symbolic_cholesky): column j holds U's rows above the diagonal
    (L^T's: the i < j with j in lower[i]), then j, then lower[j] -- rows ascending in each
    column; diag[j] the position of (j, j)."""
    sizes = np.array([c.size for c in lower], dtype=np.int64)
    below_rows = np.concatenate(lower + [np.zeros(0, np.int64)]).astype(np.int64)
    lower_ptr = np.concatenate([[0], np.cumsum(sizes)])
    L = scipy.sparse.csc_matrix((np.ones(below_rows.size, dtype=bool), below_rows, lower_ptr),
                                shape=(n, n))
    # the entries below the diagonal, their transposes above it, and the diagonal, joined by
    # scipy's sparse addition (linear in the entries; a sort of their keys took 5x as long;
    # booleans: a byte per entry)
    factor = (L + L.T + scipy.sparse.identity(n, dtype=bool, format="csc")).tocsc()
    factor.sort_indices()
    colptr = factor.indptr.astype(np.int64)
    # column j holds, above its diagonal, the entries of row j of L
    diag = colptr[:-1] + np.bincount(below_rows, minlength=n)
    return colptr, factor.indices.astype(np.int64), diag.astype(np.int64)


def pass_layout(colptr, diag):
    """The factor's layout for the solve's two passes, from its columns (colptr (n + 1,),
    diag (n,): each column's U rows, diagonal and L rows, ascending): (lptr (n + 1,),
    uptr (n + 1,), where (nnz,)) int64. The L entries come first, column by column; then each
    column's diagonal followed by its U entries, from the last column to the first, so that
    forward substitution (L, columns ascending) and backward substitution (the diagonal and U,
    columns descending) each read one ascending stream of the values, holding only their own
    entries (softmech.kernels.sparse_lu). Column j: L at lptr[j] .. lptr[j + 1], the diagonal
    at uptr[j + 1], U at uptr[j + 1] + 1 .. uptr[j]. where[p]: the new position of the entry
    at position p of the columns."""
    n = diag.size
    lower = colptr[1:] - diag - 1                   # L entries per column
    upper = diag - colptr[:-1] + 1                  # the diagonal and U entries per column
    lptr = np.concatenate([[0], np.cumsum(lower)]).astype(np.int64)
    uptr = (lptr[-1] + np.concatenate([np.cumsum(upper[::-1])[::-1], [0]])).astype(np.int64)
    # each column's U entries, diagonal and L entries are runs of positions that move by one
    # shift each: U to just after its diagonal, the diagonal to uptr[j + 1], L back by the
    # diagonals and U entries of the columns up to j (one repeat over the entries; a shift
    # computed per entry took 1.7 s of an 11,774-node plate's set-up)
    shifts = np.stack([uptr[1:] + 1 - colptr[:-1], uptr[1:] - diag,
                       -np.cumsum(upper)], axis=1).ravel()
    lengths = np.stack([upper - 1, np.ones(n, np.int64), lower], axis=1).ravel()
    return lptr, uptr, np.arange(colptr[-1], dtype=np.int64) + np.repeat(shifts, lengths)


def columns_of(lptr, uptr):
    """(colptr (n + 1,), diag (n,)) int64: the columns that pass_layout laid out as (lptr,
    uptr) (a factor saved in that storage is converted with pass_layout's `where`)."""
    per_column = np.diff(lptr) + uptr[:-1] - uptr[1:]
    colptr = np.concatenate([[0], np.cumsum(per_column)]).astype(np.int64)
    return colptr, (colptr[:-1] + uptr[:-1] - uptr[1:] - 1).astype(np.int64)


def _positions(colptr, rows, where, pi, pj):
    """Position in the factor (where[p] for the entry at position p of its columns, colptr and
    rows) of each entry (pi, pj) (permuted numbering), by scipy's lookup of sparse entries (a
    search within each entry's column: the positions, plus one, as the values of a CSC matrix
    of the columns' pattern; a missing entry reads 0). The symbolic pattern holds A + A^T, so
    every entry is found. (One search over the keys column * n + row of the whole factor took
    1.7 s of a 13,797-node plate's set-up.)"""
    n = colptr.size - 1
    pi, pj = np.asarray(pi, np.int64), np.asarray(pj, np.int64)
    if pi.size == 0:
        return np.zeros(0, np.int64)
    at = scipy.sparse.csc_matrix((where + 1, rows, colptr), shape=(n, n))
    pos = np.asarray(at[pi, pj]).ravel() - 1
    if np.any(pos < 0):
        raise AssertionError("coupling missing from the symbolic factor")
    return pos.astype(np.int64)


def column_coloring(n, rows, cols):
    """(color (n,) int64, number of colors): a greedy coloring of the columns such that two
    columns with a non-zero in a common row never share a color (largest degree first)."""
    A = scipy.sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    A.data[:] = 1.0
    conflicts = (A.T @ A).tocsr()             # columns sharing a row
    degree = np.diff(conflicts.indptr)
    color = np.full(n, -1, dtype=np.int64)
    for j in np.argsort(-degree, kind="stable"):
        taken = set(color[conflicts.indices[conflicts.indptr[j]:conflicts.indptr[j + 1]]].tolist())
        c = 0
        while c in taken:
            c += 1
        color[j] = c
    return color, int(color.max()) + 1 if n else 0
