"""The Newton system's matrix: assembled from the bindings' Jacobian entries into a banded or a
sparse matrix over the free DOFs, and solved.

The structure is fixed when the scene is compiled: every binding declares the (row, column) of
each entry it writes, so the position of each entry in the solver's storage is computed once
(`JacobianPattern`), and assembling at a Newton iteration is one compiled pass that sums the
bindings' values into that storage (in the order of a bincount). Entries in a constrained row
or column are dropped (a constrained DOF is not an unknown; its value enters through the
forces).

Storage is chosen by structure (DisMech's advice, ref. 004 section 2, and DESIGN.md): when the
free DOFs' half bandwidth is at most BANDED_MAX (a single rod with its twists after their nodes:
10), LAPACK's banded Cholesky (dpbsv) where the matrix is symmetric positive definite, else
its banded LU (dgbsv), both O(n bw^2), called from compiled code (softmech.kernels.newton,
shared with the compiled Newton loop); otherwise a sparse matrix (CSC; CSR for the multigrid)
for meshes and networks: below KRYLOV_MIN_DOFS free DOFs solved by a fresh SuperLU factorization
(scipy.sparse.linalg.splu, with its fill-reducing column ordering) at every solve; from
AMG_MIN_NODES shell nodes with free DOFs, when the scene's rigid modes are known, by GMRES
preconditioned with a smoothed-aggregation multigrid hierarchy kept across Newton iterations
and steps (softmech.implicit.multigrid.ReusedAMG: a compiled V-cycle inside a compiled
flexible GMRES, O(n) per iteration); in between (or without
the rigid modes) by GMRES preconditioned with an incomplete LU of the matrix in a
nested-dissection order (METIS, computed once per pattern: softmech.implicit.ordering), kept
across Newton iterations and steps, refactored when GMRES slows down
(softmech.implicit.sparse_solve.ReusedILU); both with a complete LU as fallback. A fresh LU's
cost grows as n^1.5 on a mesh, which made it 95-99 % of a Newton iteration at 10,000
triangles; the incomplete LU's fill grows as n log n, its time per Newton iteration as
n^1.3-1.4; with the multigrid from ~3,500 triangles, what softmech does grows as n^1.1 from
1,000 to 10,000 triangles and n^1.1-1.2 from 10,000 to 30,000 (benchmarks/shells.py,
docs/benchmarks_log.md).
"""
import copy

import numpy as np
import scipy.sparse

from softmech.implicit import multigrid, ordering, sparse_solve
from softmech.kernels.newton import LAPACK_INTS, BandSystem, assemble_band, solve_band

BANDED_MAX = 24
"""Largest half bandwidth solved as a banded matrix: LAPACK's banded LU costs ~n (3 bw + 1) bw
flops, SuperLU on a matrix of that band costs more per entry from its indexing (measured in
benchmarks/der_vs_cosserat.py)."""


class SingularJacobian(RuntimeError):
    """The Newton matrix is singular (a free body with no inertia in a static solve, a DOF no
    energy and no mass constrains)."""


class JacobianPattern:
    """Where each Jacobian entry goes.

    n_dof: size of q; rows, cols: int64 (nnz,) entries of all bindings, concatenated in binding
    order; constrained: int64 (k,) DOFs removed from the solve. The diagonal of the free DOFs is
    always part of the structure (the mass term M/h^2 lives there). rigid_modes: the scene's
    softmech.implicit.near_null.RigidModes (needed for the multigrid solver; without them a
    large sparse system is solved by ReusedILU).

    After construction: free (n_free,) DOF indices; kind "banded" or "sparse"; bandwidth;
    for "banded", band: the storage and LAPACK scratch (softmech.kernels.newton.BandSystem);
    for "sparse", solver: "lu" (a fresh LU at every solve, below KRYLOV_MIN_DOFS free DOFs),
    "ilu" or "amg" (above; "amg" from AMG_MIN_NODES shell nodes, with rigid modes), sparse_solvers:
    {world: ReusedILU or ReusedAMG} (one per world, so that a world's steps do not depend on the
    others' factors or hierarchy: a batched run equals single runs bit for bit; their counters
    say how the solves went), sparse_solver: world 0's; ordering: the pattern's
    nested-dissection ordering (softmech.implicit.ordering.SymmetricOrdering), computed at the
    first ILU solve and shared by the worlds' ILU solvers.
    """

    def __init__(self, n_dof, rows, cols, constrained, rigid_modes=None):
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        is_free = np.ones(n_dof, dtype=bool)
        is_free[np.asarray(constrained, dtype=np.int64)] = False
        self.free = np.flatnonzero(is_free)
        n = len(self.free)
        self.n_free = n
        reduced = np.full(n_dof, -1, dtype=np.int64)
        reduced[self.free] = np.arange(n)
        r, c = reduced[rows], reduced[cols]
        keep = (r >= 0) & (c >= 0)
        kept = np.flatnonzero(keep)
        r, c = r[keep], c[keep]
        diag = np.arange(n)
        self.bandwidth = int(np.max(np.abs(r - c))) if r.size else 0
        if self.bandwidth <= BANDED_MAX:
            self.kind = "banded"
            bw = self.bandwidth
            # LAPACK dgbsv's band storage, Fortran order: AB(kl + ku + i - j, j) = A(i, j) with
            # kl = ku = bw, leading dimension 3 bw + 1 (the top bw rows are the LU's fill-in)
            ldab = 3 * bw + 1
            self._size = ldab * n
            self._entry_slot = (2 * bw + r - c) + c * ldab
            self._diag_slot = 2 * bw + diag * ldab
        else:
            self.kind = "sparse"
            if n < sparse_solve.KRYLOV_MIN_DOFS:
                self.solver = "lu"
            elif (rigid_modes is not None and rigid_modes.n_nodes(self.free, surface=True)
                  >= multigrid.AMG_MIN_NODES):
                self.solver = "amg"
            else:
                self.solver = "ilu"
            all_r = np.concatenate([r, diag])
            all_c = np.concatenate([c, diag])
            # the storage in the order of the solver's matrix: CSR (by row, then column) for
            # the multigrid, whose kernels run over rows (no CSC -> CSR gather at each solve),
            # CSC (by column, then row) for SuperLU
            self._format = "csr" if self.solver == "amg" else "csc"
            major, minor = (all_r, all_c) if self._format == "csr" else (all_c, all_r)
            unique, slot = np.unique(major * n + minor, return_inverse=True)
            self._size = unique.size
            self._entry_slot = slot[:r.size]
            self._diag_slot = slot[r.size:]
            self._minor = (unique % n).astype(np.int32)
            counts = np.bincount(unique // n, minlength=n)
            self._ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
            self.rigid_modes = rigid_modes
            self.sparse_solvers = {}
            # one nested-dissection ordering for the pattern, shared by the worlds' solvers,
            # and the scratch of the compiled GMRES of the thread that solves with this
            # pattern (for_thread gives each worker thread its own)
            self.ordering = ordering.SymmetricOrdering()
            self._krylov_scratch = sparse_solve.KrylovScratch()
        # every entry's slot, a dropped one's (constrained row or column) the spare slot past
        # the storage: assembling is one pass over J as it is, with no gather of the kept
        # entries (a gather and negation of J cost as much as the sums themselves: 10 M
        # entries for the hinge plate of 30,000 triangles, benchmarks/shells.py)
        self._slot_of_entry = np.full(rows.size, self._size, dtype=np.int64)
        self._slot_of_entry[kept] = self._entry_slot
        if self.kind == "banded":
            ints = dict(n=n, kl=bw, ku=bw, nrhs=1, ldab=ldab, ldb=n, info=0, kd=bw,
                        ldab_chol=bw + 1)
            self.band = BandSystem(
                slot_of_entry=self._slot_of_entry, diag_slot=self._diag_slot.astype(np.int64),
                ab=np.zeros(self._size + 1), chol=np.zeros((bw + 1) * n),
                ipiv=np.zeros(n, dtype=np.int32),
                lapack_ints=np.array([ints[k] for k in LAPACK_INTS], dtype=np.int32),
                uplo=np.frombuffer(b"U", dtype=np.uint8).copy())

    def for_thread(self):
        """A copy of this pattern for a thread that solves other worlds at the same time as
        this one (softmech.implicit.newton.ImplicitStepper.for_thread): the structure, the
        worlds' sparse solvers and the ordering shared (a world is solved by one thread at a
        time; the ordering is computed under its lock), its own scratch: the band storage and
        LAPACK scratch of a banded pattern, the compiled GMRES's of a sparse one."""
        other = copy.copy(self)
        if self.kind == "banded":
            other.band = self.band._replace(**{k: v.copy()
                                               for k, v in self.band._asdict().items()})
        else:
            other._krylov_scratch = sparse_solve.KrylovScratch()
        return other

    def sparse_solver_of(self, world):
        """The sparse solver (ReusedILU or ReusedAMG) of world `world`, made at its first use."""
        if world not in self.sparse_solvers:
            if self.solver == "amg":
                solver = multigrid.ReusedAMG(self.rigid_modes, self.free,
                                             smooth=multigrid.AMG_SMOOTH,
                                             scratch=self._krylov_scratch)
            else:
                solver = sparse_solve.ReusedILU(reuse=self.solver == "ilu",
                                                ordering=self.ordering)
            self.sparse_solvers[world] = solver
        return self.sparse_solvers[world]

    @property
    def sparse_solver(self):
        return self.sparse_solver_of(0)

    def _assemble(self, J, diagonal, out=None):
        """The storage's values of A = diag(diagonal) - J (J, diagonal: as in solve), written
        into out (size + 1,: the storage and the dropped entries' spare slot; default a new
        array): the compiled loop's band assembly (the same sums in the same order as a
        bincount of J by slot, negated, plus the diagonal; 2x faster than np.bincount: 5.3
        against 2.7 ms for the 3.5 M entries of the hinge plate of 10,000 triangles)."""
        out = np.empty(self._size + 1) if out is None else out
        assemble_band(np.ascontiguousarray(J, dtype=float), self._slot_of_entry,
                      self._diag_slot, np.ascontiguousarray(diagonal, dtype=float), out)
        return out[:self._size]

    def _matrix(self, data):
        """The sparse matrix of the storage's values (CSR for the multigrid, else CSC)."""
        kind = scipy.sparse.csr_matrix if self._format == "csr" else scipy.sparse.csc_matrix
        A = kind((data, self._minor, self._ptr), shape=(self.n_free, self.n_free))
        A.has_sorted_indices = True          # np.unique's order
        return A

    def sparse_matrix(self, J, diagonal):
        """A = diag(diagonal) - J over the free DOFs as scipy.sparse CSC (n_free, n_free), the
        matrix solve() solves for kind "sparse" (J, diagonal: as in solve)."""
        if self.kind != "sparse":
            raise ValueError(f"sparse_matrix: the pattern is {self.kind!r}, not 'sparse'")
        return self._matrix(self._assemble(J, diagonal)).tocsc()

    def solve(self, J, diagonal, rhs, world=0, q=None):
        """Solve A x = rhs on the free DOFs, A = diag(diagonal) - J: J (nnz,) the bindings'
        entries dF/dq + dF/dv/h (all of them, in pattern order), diagonal (n_free,) (M/h^2; 0
        in a static solve), rhs (n_free,); world: whose sparse solver (and kept factors) to use;
        q (n_dof,): the current DOF values (the multigrid solver takes its rigid modes at their
        positions; required for solver "amg"). Returns x (n_free,)."""
        if self.kind == "banded":
            # the compiled Newton loop's assembly and solve (softmech.kernels.newton), so that
            # both loops agree bit for bit; LAPACK called directly (scipy.linalg.solve_banded's
            # checks and copies cost ~10x the solve of a rod's band, measured in
            # benchmarks/der_vs_cosserat.py)
            self._assemble(J, diagonal, out=self.band.ab)
            x = np.array(rhs, dtype=float)
            info = solve_band(self.band, x)
            if info > 0:
                raise SingularJacobian(f"singular matrix (LAPACK dgbsv: U({info},{info}) = 0)")
            if info < 0:  # pragma: no cover - an argument error is a bug here
                raise RuntimeError(f"LAPACK: illegal argument {-info}")
        else:
            A = self._matrix(self._assemble(J, diagonal))
            try:
                x = self.sparse_solver_of(world).solve(A, diagonal, rhs, q,
                                                       scratch=self._krylov_scratch)
            except RuntimeError as err:   # SuperLU: "Factor is exactly singular"
                raise SingularJacobian(str(err)) from None
        if not np.all(np.isfinite(x)):
            raise SingularJacobian("the Newton matrix is singular or ill-conditioned (non-finite "
                                   "update)")
        return x
