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
from softmech.kernels.symbolic_factor import (cholesky_counts, cholesky_rows,
                                              entry_positions, pass_rows)


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
    """The pattern of the Cholesky factor L of a symmetric pattern `graph` (scipy CSR/CSC
    (n, n), in elimination order), below the diagonal: (colptr (n + 1,), rows (nnz,)) int64,
    column j's rows (> j, ascending) at colptr[j] .. colptr[j + 1] (the elimination tree and
    its row subtrees, softmech.kernels.symbolic_factor). limit: None when L holds more than
    `limit` entries below the diagonal (an ordering that already fills more than another is
    not finished: its count costs a first pass only)."""
    n = graph.shape[0]
    csr = scipy.sparse.csr_matrix(graph)
    indptr, indices = csr.indptr.astype(np.int64), csr.indices.astype(np.int64)
    parent, ancestor, mark, counts = (np.empty(n, np.int64) for _ in range(4))
    total = cholesky_counts(indptr, indices, parent, ancestor, mark, counts)
    if limit is not None and total > limit:
        return None
    colptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=colptr[1:])
    rows = np.empty(total, np.int64)
    cholesky_rows(indptr, indices, parent, mark, colptr, ancestor, rows)
    return colptr, rows


def _fill(lower):
    """The entries below the diagonal of a symbolic_cholesky pattern."""
    return int(lower[0][-1])


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
    lptr, uptr, rows = _laid_out(lower)
    # (the couplings' and the extra entries' positions in one lookup)
    pos = _positions(lptr, uptr, rows, inverse[np.concatenate([cr, er])],
                     inverse[np.concatenate([cc, ec])])
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


def _laid_out(lower):
    """(lptr (n + 1,), uptr (n + 1,), rows (nnz,)) int64: the LU factor's pattern in the
    storage of softmech.kernels.sparse_lu (pass_layout's order) from the Cholesky pattern
    `lower` (symbolic_cholesky's (colptr, rows)): L's columns as they are, then from the last
    column to the first its diagonal and its U rows, U having L^T's pattern."""
    colptr, below = lower
    n = colptr.size - 1
    uptr = _upper_pointers(colptr[n], 1 + np.bincount(below, minlength=n))
    rows = np.empty(int(uptr[0]), np.int64)
    pass_rows(colptr, below, uptr, np.empty(n, np.int64), rows)
    return colptr, uptr, rows


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
    uptr = _upper_pointers(lptr[-1], upper)
    # each column's U entries, diagonal and L entries are runs of positions that move by one
    # shift each: U to just after its diagonal, the diagonal to uptr[j + 1], L back by the
    # diagonals and U entries of the columns up to j (one repeat over the entries; a shift
    # computed per entry took 1.7 s of an 11,774-node plate's set-up)
    shifts = np.stack([uptr[1:] + 1 - colptr[:-1], uptr[1:] - diag,
                       -np.cumsum(upper)], axis=1).ravel()
    lengths = np.stack([upper - 1, np.ones(n, np.int64), lower], axis=1).ravel()
    return lptr, uptr, np.arange(colptr[-1], dtype=np.int64) + np.repeat(shifts, lengths)


def _upper_pointers(n_lower, upper):
    """uptr (n + 1,) int64 of the solve's layout (pass_layout) after n_lower entries of L, from
    each column's count of the diagonal and U entries, upper (n,): the columns from the last
    to the first, uptr[j + 1] .. uptr[j] column j's."""
    return (n_lower + np.concatenate([np.cumsum(upper[::-1])[::-1], [0]])).astype(np.int64)


def columns_of(lptr, uptr):
    """(colptr (n + 1,), diag (n,)) int64: the columns that pass_layout laid out as (lptr,
    uptr) (a factor saved in that storage is converted with pass_layout's `where`)."""
    per_column = np.diff(lptr) + uptr[:-1] - uptr[1:]
    colptr = np.concatenate([[0], np.cumsum(per_column)]).astype(np.int64)
    return colptr, (colptr[:-1] + uptr[:-1] - uptr[1:] - 1).astype(np.int64)


def _positions(lptr, uptr, rows, pi, pj):
    """Position in the factor (lptr, uptr, rows: softmech.kernels.sparse_lu's storage) of each
    entry (pi, pj) (permuted numbering), by one pass over the columns
    (softmech.kernels.symbolic_factor.entry_positions). The symbolic pattern holds A + A^T, so
    every entry is found."""
    n = lptr.size - 1
    pi, pj = np.asarray(pi, np.int64), np.asarray(pj, np.int64)
    pos = np.empty(pi.size, np.int64)
    if entry_positions(lptr, uptr, rows, pi, pj, np.empty(n + 1, np.int64),
                       np.empty(pi.size, np.int64), np.empty(n, np.int64), pos):
        raise AssertionError("coupling missing from the symbolic factor")
    return pos


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
