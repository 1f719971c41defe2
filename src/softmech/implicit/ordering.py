"""A fill-reducing nested-dissection ordering of a sparse Newton matrix, computed once per
sparsity pattern, and the symmetric permutation P A P^T that applies it.

SuperLU's own column orderings (COLAMD, minimum degree) let the (incomplete) LU factors of a
mesh's Newton matrix grow faster than n: on the hinge plate of 10,000 triangles the ILU
factors held 5.1x A's nonzeros with COLAMD and 4.1x with nested dissection (METIS, through
pymetis), and a Newton iteration took 142 ms against 93 ms (mid-edge: 325 against 120 ms;
benchmarks/shells.py, docs/benchmarks_log.md). Nested dissection (George 1973; Karypis & Kumar
1998, METIS_NodeND) orders each separator of the mesh's graph after the two halves it splits,
recursively, so that the fill stays within the separators.

The ordering depends only on the pattern, which a mesh's Newton matrix keeps from step to step
(contact may add entries: softmech.implicit.linear builds a new pattern then), so it is
computed once per pattern: `SymmetricOrdering.permute(A)` recomputes it only when A's
structure (indptr, indices) differs from the last one, and otherwise permutes A's values by
one precomputed gather (O(nnz)). The graph given to METIS is that of A + A^T without its
diagonal (A is not symmetric where pressure or drag follow the surface; a symmetric ordering
needs a symmetric graph).

pymetis is a declared dependency of softmech (pyproject.toml): importing this module fails
loudly without it rather than falling back silently to another ordering.
"""
import threading

import numpy as np
import pymetis
import scipy.sparse


def nested_dissection(A):
    """METIS's nested-dissection ordering of the symmetrized graph of A (scipy.sparse (n, n)):
    perm int64 (n,), the new order of A's rows and columns (row i of P A P^T is row perm[i]
    of A)."""
    n = A.shape[0]
    pattern = scipy.sparse.csr_matrix(
        (np.ones(A.nnz), A.indices, A.indptr) if A.format == "csr" else A.tocsr(),
        shape=A.shape)
    pattern.data[:] = 1.0
    graph = (pattern + pattern.T).tocsr()
    graph.setdiag(0.0)
    graph.eliminate_zeros()
    graph.sort_indices()
    if graph.nnz == 0:              # no edges (a diagonal matrix): every order is as good
        return np.arange(n, dtype=np.int64)
    perm, _iperm = pymetis.nested_dissection(
        adjacency=pymetis.CSRAdjacency(graph.indptr.astype(np.int64),
                                       graph.indices.astype(np.int64)))
    return np.asarray(perm, dtype=np.int64)


class SymmetricOrdering:
    """P A P^T for the nested-dissection ordering of A's pattern, kept while the pattern stays.

    Counter: orderings (how many times METIS ran)."""

    def __init__(self):
        self.orderings = 0
        self._indptr = self._indices = None
        self._lock = threading.Lock()

    def permute(self, A):
        """(P A P^T as CSC with sorted indices, perm int64 (n,)) for A: scipy.sparse CSC
        (n, n); the ordering is recomputed only when A's structure changed. Thread-safe (the
        worlds of a batch, stepped by several threads, share one ordering): the check and the
        ordering run under a lock, and the permutation is read from one consistent record."""
        with self._lock:
            if not self._same_structure(A):
                self._order(A)
            gather, p_indices, p_indptr, perm = self._record
        Ap = scipy.sparse.csc_matrix((A.data[gather], p_indices, p_indptr), shape=A.shape)
        return Ap, perm

    def _same_structure(self, A):
        if self._indptr is None:
            return False
        return (np.array_equal(A.indptr, self._indptr)
                and np.array_equal(A.indices, self._indices))

    def _order(self, A):
        """Compute the ordering of A's structure and the gather from A.data to P A P^T's data:
        permute a matrix whose values are their own positions in A.data."""
        self.perm = nested_dissection(A)
        self.orderings += 1
        positions = scipy.sparse.csc_matrix(
            (np.arange(1, A.nnz + 1, dtype=np.float64), A.indices, A.indptr), shape=A.shape)
        permuted = positions[self.perm][:, self.perm].tocsc()
        permuted.sort_indices()
        self._record = (permuted.data.astype(np.int64) - 1, permuted.indices, permuted.indptr,
                        self.perm)
        self._indptr, self._indices = A.indptr.copy(), A.indices.copy()
