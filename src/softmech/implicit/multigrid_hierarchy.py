"""A smoothed-aggregation multigrid hierarchy for the Newton matrices of large shells, packed for
the compiled V-cycle (softmech.kernels.multigrid_cycle); softmech.implicit.multigrid.ReusedAMG
keeps it across Newton iterations and steps.

Smoothed aggregation (Vanek, Mandel & Brezina 1996): the nodes are grouped into aggregates; on
each, the near-null modes B (the rigid motions, softmech.implicit.near_null) are interpolated
exactly by a tentative prolongator T (B orthonormalized aggregate by aggregate), which is then
smoothed into P -- by energy minimization (Olson, Schroder & Tuminaro 2011: a few CG
iterations minimizing P's energy in A within a sparsity pattern while P keeps interpolating B)
or by one damped Jacobi step -- and the coarse operator is R A P with R = P^T. The steps are
those of pyamg's smoothed_aggregation_solver (pyamg 5.x, Olson & Schroder 2018) with the
options chosen before (docs/benchmarks_log.md, "Discrete shells"), driven here so that its slow
parts are compiled (softmech.kernels.multigrid_setup) and the coarse operators are computed
once:
- level 0: aggregates of whole nodes (node_aggregates), for the Jacobi-scaled matrix
  D^-1/2 A D^-1/2 and modes D^1/2 B, the modes first relaxed by CANDIDATE_SWEEPS symmetric
  Gauss-Seidel sweeps on A B = 0 (pyamg's default "improve_candidates");
- coarser levels: pyamg's standard aggregation of the graph of the 6x6 blocks;
- energy minimization: pyamg's CG (cg_prolongation_smoothing, "local" weighting, the
  pattern of A times T's) with the constraint data B_i^T B_i inverted by a compiled kernel
  (pyamg inverted them one LAPACK call per row from Python: 66 ms of 205 (hinge plate) and
  134 of 326 ms (mid-edge) at 10,000 triangles);
- levels are added while a level has more than MAX_COARSE block rows (pyamg's rule).

Why the scaling: the tentative prolongators orthonormalize B aggregate by aggregate and energy
minimization runs CG on A, neither invariant under scaling, and a mid-edge plate mixes node
rows (~1e6 N/m) and angle rows (~1e-3 to 1e2 N m): scaled, its GMRES iterations fell from 16
to 13 (Jacobi) and from 25 to 11 (energy) at 10,000 triangles. Gauss-Seidel is invariant under
it, so the cycle runs on A itself with the finest transfers P = D^-1/2 P^, R = R^ D^-1/2.
"""
import numpy as np
import scipy.sparse
from pyamg.aggregation.aggregate import standard_aggregation
from pyamg.aggregation.smooth import cg_prolongation_smoothing, jacobi_prolongation_smoother
from pyamg.aggregation.tentative import fit_candidates
from pyamg.util.linalg import pinv_array
from pyamg.util.utils import get_block_diag, unamal

from softmech.kernels import multigrid_cycle, multigrid_setup

MAX_COARSE = 50
"""Largest coarsest level in block rows (pyamg's max_coarse: K = 6 DOFs a block row above the
finest level), solved by its dense inverse (applied at n^2 cost per V-cycle). Measured with
GMRES to 1e-10 on benchmarks/shells.py's plates: at 300 (pyamg's default) the mid-edge plate
of 30,000 triangles stopped at a coarsest level of 750 DOFs, 11 % of its V-cycle (8.9 against
7.9 ms with one level more, of 48 DOFs); the same GMRES iterations for every plate of 1,000 to
30,000 triangles (hinge and mid-edge) with 300, 50 or 20."""
MAX_LEVELS = 10
"""Most levels (pyamg's default)."""
SEED = 20261127
"""Seed of numpy's global generator while pyamg estimates a spectral radius (Jacobi)."""
SMOOTHERS = ("jacobi", "energy")
"""How the prolongators are smoothed: one Jacobi step (pyamg's jacobi_prolongation_smoother,
omega 4/3) or ENERGY_CG_ITERATIONS of energy minimization."""
ENERGY_CG_ITERATIONS = 2
"""CG iterations of the energy minimization (pyamg's default 4 cost 25 % more setup for the
same GMRES iterations on the plates at 10,000 triangles)."""
CANDIDATE_SWEEPS = 4
"""Symmetric Gauss-Seidel sweeps relaxing the finest level's modes on A B = 0 (pyamg's
default improve_candidates)."""
ENERGY_TOL = 1e-8
"""pyamg's default tolerance of the energy minimization's CG (its test counts the nonzeros of
the residual, so in practice it runs all ENERGY_CG_ITERATIONS)."""


def node_aggregates(A, owner):
    """Aggregates of whole nodes: AggOp (n, n_aggregates) CSR of 0/1 for A (n, n) CSR and
    owner (n,) the node index of each DOF (0..n_nodes-1). The graph of the nodes (a node's x,
    y, z and the scalar DOFs attached to it one vertex, the weight the sum of |A| between them)
    is aggregated by pyamg's standard aggregation; nodes with no neighbour stay out of every
    aggregate (their DOFs are left to the smoother). pyamg's own aggregation of the scalar DOFs
    split a node's DOFs and, for the mid-edge plate, made coarse levels of 2.3x A's nonzeros
    against 1.4x."""
    n = A.shape[0]
    n_nodes = int(owner.max()) + 1
    S = scipy.sparse.csr_matrix((np.ones(n), (np.arange(n), owner)), shape=(n, n_nodes))
    graph = (S.T @ abs(A) @ S).tocsr()
    graph.sort_indices()
    agg, _roots = standard_aggregation(graph)
    return (S @ agg).tocsr()


def btb_inverse(pattern, B):
    """(n_block_rows, K, K): pinv(B_i^T B_i) for each block row i of `pattern` (BSR, blocks
    r x K), B_i the rows of B (n_coarse, K) of the coarse DOFs in row i's pattern (pyamg's
    compute_BtBinv, compiled: softmech.kernels.multigrid_setup.btb_inverse; the blocks its
    Cholesky test rejects get pyamg's SVD pseudo-inverse)."""
    rows, K = pattern.blocksize
    B = np.ascontiguousarray(B, dtype=np.float64)
    n = pattern.shape[0] // rows
    out = np.zeros((n, B.shape[1], B.shape[1]))
    flagged = np.zeros(n, dtype=bool)
    multigrid_setup.btb_inverse(pattern.indptr.astype(np.int64),
                                pattern.indices.astype(np.int64), rows, K, B, out, flagged)
    if flagged.any():
        for i in np.flatnonzero(flagged):
            columns = pattern.indices[pattern.indptr[i]:pattern.indptr[i + 1]]
            rows_of_B = (columns[:, None] * K + np.arange(K)).reshape(-1)
            out[i] = B[rows_of_B].T @ B[rows_of_B]     # 0 for an empty pattern: pinv 0
        part = out[flagged].copy()
        pinv_array(part)
        out[flagged] = part
    return out


def energy_prolongator(A, T, C, B):
    """P (BSR) minimizing its energy in A (BSR, blocks r x r) from T (BSR, r x K) within the
    pattern C T (C: the strength graph of A's block rows, CSR) and keeping P B = T B, B
    (n_coarse, K) the coarse modes (pyamg's energy_prolongation_smoother with degree 1, CG,
    "local" weighting)."""
    T.sort_indices()
    rows, K = T.blocksize
    shape = (T.shape[0] // rows, T.shape[1] // K)
    pattern = scipy.sparse.csr_matrix((np.ones(T.indices.shape), T.indices, T.indptr),
                                      shape=shape)
    graph = scipy.sparse.csr_matrix((np.ones(C.nnz), C.indices, C.indptr), shape=C.shape)
    pattern = unamal(scipy.sparse.csr_array(graph @ pattern), rows, K)
    pattern.sort_indices()
    P = cg_prolongation_smoothing(A, T, B, btb_inverse(pattern, B), pattern,
                                  ENERGY_CG_ITERATIONS, ENERGY_TOL, "local", (False, {}))
    P.eliminate_zeros()
    return P


def jacobi_prolongator(A, T, C, B):
    """P = (I - omega / rho(D^-1 A) D^-1 A) T (pyamg's jacobi_prolongation_smoother, omega
    4/3). pyamg estimates the spectral radius by Arnoldi from a random start drawn from numpy's
    global generator: with a fixed seed, and the caller's generator state put back, P is a
    function of A alone (a batched run equals single runs; a user's random draws are not
    disturbed)."""
    state = np.random.get_state()
    np.random.seed(SEED)
    try:
        return jacobi_prolongation_smoother(A, T, C, B, omega=4.0 / 3.0)
    finally:
        np.random.set_state(state)


PROLONGATORS = {"jacobi": jacobi_prolongator, "energy": energy_prolongator}


class Hierarchy:
    """A smoothed-aggregation hierarchy for A (n, n) CSR (sorted indices): prolongators P_l
    (CSR), restrictions R_l = P_l^T, the coarse operators R A P of the last refresh (BSR of
    K x K blocks, K = B.shape[1]) and `levels`, all packed for the compiled cycle.

    B (n, K): near-null modes; owner (n,): node of each DOF (node_aggregates); smooth: one of
    SMOOTHERS. Raises RuntimeError when the coarsest level is exactly singular or A has a zero
    diagonal entry."""

    def __init__(self, A, B, owner, smooth):
        diagonal = np.abs(A.diagonal())
        if np.any(diagonal == 0.0):
            raise RuntimeError("a zero diagonal entry: no multigrid hierarchy")
        prolongator = PROLONGATORS[smooth]
        K = B.shape[1]
        root = np.sqrt(diagonal)
        scale = scipy.sparse.diags(1.0 / root)
        scaled = (scale @ A @ scale).tocsr()
        scaled.sort_indices()
        B = np.array(B, dtype=np.float64)
        multigrid_setup.smooth_candidates(A.indptr, A.indices, A.data, B, CANDIDATE_SWEEPS)
        B *= root[:, None]
        ops, self.P, self.R = [A], [], []
        level, blocks, aggregates = scaled, scaled.shape[0], node_aggregates(A, owner)
        while blocks > MAX_COARSE and len(ops) < MAX_LEVELS:
            if level is scaled:
                structure = scaled
                operator = scaled.tobsr(blocksize=(1, 1))
            else:
                structure = scipy.sparse.csr_matrix(
                    (np.ones(level.indices.size), level.indices, level.indptr),
                    shape=(blocks, blocks))
                aggregates = standard_aggregation(structure)[0]
                operator = level
            T, B = fit_candidates(aggregates, B)
            P = prolongator(operator, T, structure, B)
            coarse = scipy.sparse.bsr_matrix(P.T @ operator @ P, blocksize=(K, K))
            coarse.sort_indices()
            if level is scaled:       # the finest transfers act on A itself
                P = scale @ P
            P = scipy.sparse.csr_matrix(P)
            P.sort_indices()
            self.P.append(P)
            self.R.append(P.T.tocsr())
            ops.append(coarse)
            level, blocks = coarse, coarse.shape[0] // K
        self.n_levels = len(ops)
        self.blocksize = K
        self._pack_transfers(A.shape[0])
        self._pack_operators(ops)

    def _pack_transfers(self, n):
        """The prolongators (CSR, uint32 indices) packed level after level, and the levels'
        sizes."""
        P = self.P
        self.sizes = np.array([n] + [p.shape[1] for p in P], dtype=np.int64)
        self.vec_off = np.zeros(self.n_levels + 1, dtype=np.int64)
        self.vec_off[2:] = np.cumsum(self.sizes[1:])
        self.p_ptr_off = _offsets([p.indptr.size for p in P])
        self.p_idx_off = _offsets([p.nnz for p in P])
        self.p_ptr = _concat([p.indptr for p in P], np.uint32)
        self.p_idx = _concat([p.indices for p in P], np.uint32)
        self.p_val = _concat([p.data for p in P], np.float64)

    def refresh(self, A):
        """Coarse operators R_l A_l P_l from the finest A (n, n) CSR with the prolongators
        kept ("Galerkin refresh"), packed."""
        ops = [A]
        for P, R in zip(self.P, self.R):
            coarse = scipy.sparse.bsr_matrix(R @ ops[-1] @ P,
                                             blocksize=(self.blocksize, self.blocksize))
            coarse.sort_indices()
            ops.append(coarse)
        self._pack_operators(ops)

    def _pack_operators(self, ops):
        """Pack the coarse operators ops[1:] (BSR), their diagonal blocks' pseudo-inverses
        (block Gauss-Seidel) and the coarsest level's inverse into `levels`."""
        self.ops = ops
        size = self.blocksize
        middle = ops[1:-1]
        dinv = [get_block_diag(op, size, inv_flag=True) for op in middle]
        # an aggregate of fewer DOFs than modes (a node alone, two nodes with no scalar) gets
        # zero columns in P (pyamg's fit_candidates): zero rows and columns in the coarse
        # operators, which the block smoother's pseudo-inverses ignore and the coarsest
        # level's inverse leaves out (its rows and columns there stay 0)
        coarsest = ops[-1].toarray()
        kept = np.flatnonzero(np.any(coarsest != 0.0, axis=0) | np.any(coarsest != 0.0, axis=1))
        inverse = np.zeros(coarsest.shape)
        try:
            inverse[np.ix_(kept, kept)] = np.linalg.inv(coarsest[np.ix_(kept, kept)])
        except np.linalg.LinAlgError as err:
            raise RuntimeError(f"singular coarsest multigrid level: {err}") from None
        c_ptr_off = np.zeros(self.n_levels, dtype=np.int64)
        c_idx_off = np.zeros(self.n_levels, dtype=np.int64)
        c_ptr_off[1:-1] = _offsets([op.indptr.size for op in middle])
        c_idx_off[1:-1] = _offsets([op.indices.size for op in middle])
        self.levels = multigrid_cycle.Levels(
            self.sizes, self.vec_off, np.array([size], dtype=np.int64), c_ptr_off, c_idx_off,
            _concat([op.indptr for op in middle], np.uint32),
            _concat([op.indices for op in middle], np.uint32),
            _concat([op.data.reshape(-1) for op in middle], np.float64),
            _concat([d.reshape(-1) for d in dinv], np.float64),
            self.p_ptr_off, self.p_idx_off, self.p_ptr, self.p_idx, self.p_val,
            inverse.reshape(-1), np.zeros(self.vec_off[-1]), np.zeros(self.vec_off[-1]),
            np.zeros(size), np.zeros(self.sizes[0]), np.zeros(self.sizes[0]))

    def complexity(self):
        """Operator complexity: all levels' nonzeros over the finest's."""
        return sum(op.nnz for op in self.ops) / self.ops[0].nnz

    def cycle(self, A, b):
        """One V-cycle for A x = b from x = 0: x (n,). A: the finest level's current matrix
        (CSR, or a softmech.kernels.multigrid_cycle.Finest; the coarse operators are those of
        the last refresh)."""
        if not isinstance(A, multigrid_cycle.Finest):
            if getattr(self, "_csr", None) is None:
                self._csr = CsrOf()          # its structure kept for the next cycles
            A = self._csr.finest(A)
        finest = A
        x, Ax = np.empty(len(b)), np.empty(len(b))
        multigrid_cycle.vcycle(finest, self.levels, np.ascontiguousarray(b, dtype=float), x, Ax)
        return x


class CsrOf:
    """CSR copies of CSC matrices of one structure: the gather from the CSC data to the CSR
    data is computed once per structure, then a copy is one gather (scipy's tocsr() cost ~10x
    that: 6 ms for the hinge plate of 10,000 triangles). `finest(A)` gives that copy as the
    compiled cycle's softmech.kernels.multigrid_cycle.Finest, its uint32 structure and
    diagonal positions also kept per structure."""

    def __init__(self):
        self._indptr = self._indices = None
        self._finest_indptr = self._finest_indices = None

    def __call__(self, A):
        if A.format == "csr":
            return A
        A = A.tocsc()
        if not _same(A, self._indptr, self._indices):
            positions = scipy.sparse.csc_matrix(
                (np.arange(1, A.nnz + 1, dtype=np.float64), A.indices, A.indptr),
                shape=A.shape).tocsr()
            positions.sort_indices()
            self._gather = positions.data.astype(np.int64) - 1
            self._csr_indices, self._csr_indptr = positions.indices, positions.indptr
            self._indptr, self._indices = A.indptr, A.indices
        out = scipy.sparse.csr_matrix((A.data[self._gather], self._csr_indices,
                                       self._csr_indptr), shape=A.shape)
        out.has_sorted_indices = True      # the gather's order (saves scipy's check)
        return out

    def finest(self, A):
        """softmech.kernels.multigrid_cycle.Finest of A (n, n) (CSC or CSR, its structure
        holding the whole diagonal): the CSR copy, its structure as uint32, 1 / the diagonal,
        each row's diagonal position."""
        A = self(A)
        A.sort_indices()
        if not _same(A, self._finest_indptr, self._finest_indices):
            n = A.shape[0]
            if A.nnz >= 2 ** 32:
                raise ValueError(f"CsrOf.finest: {A.nnz} nonzeros do not fit the cycle's "
                                 f"uint32 indices (at most 2**32 - 1)")
            rows = np.repeat(np.arange(n), np.diff(A.indptr))
            diag = np.flatnonzero(A.indices == rows)
            if diag.size != n:
                raise ValueError("CsrOf.finest: the matrix's structure must hold its whole "
                                 "diagonal")
            self._u_ptr = A.indptr.astype(np.uint32)
            self._u_idx = A.indices.astype(np.uint32)
            self._u_diag = diag.astype(np.uint32)
            self._finest_indptr, self._finest_indices = A.indptr, A.indices
        with np.errstate(divide="ignore"):
            dinv = 1.0 / A.data[self._u_diag]
        return multigrid_cycle.Finest(self._u_ptr, self._u_idx, A.data, dinv, self._u_diag)


def _same(A, indptr, indices):
    """Whether A's structure (indptr, indices) is the one given (the same arrays or equal)."""
    return A.indices is indices or (indices is not None and np.array_equal(A.indptr, indptr)
                                    and np.array_equal(A.indices, indices))


def _offsets(sizes):
    """(len(sizes),) int64: where each of arrays of these sizes starts when concatenated."""
    return (np.concatenate([[0], np.cumsum(sizes[:-1])]).astype(np.int64) if sizes
            else np.zeros(0, dtype=np.int64))


def _concat(arrays, dtype):
    return np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype=dtype)
