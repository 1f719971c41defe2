"""Sparse Newton solves by GMRES preconditioned with a smoothed-aggregation algebraic multigrid
(AMG) hierarchy whose near-null space is the rigid motions of the DOFs, kept across Newton
iterations and time steps.

Why: an incomplete LU's fill and factorization grow faster than n on a mesh (nested
dissection: n log n and n^1.5; softmech.implicit.sparse_solve), a multigrid V-cycle costs O(n)
(a fixed number of sweeps over each level, the levels' sizes falling geometrically). The
hierarchy (softmech.implicit.multigrid_hierarchy: smoothed aggregation of whole nodes,
energy-minimizing prolongators, the six rigid motions of softmech.implicit.near_null as
near-null modes, built on pyamg's building blocks) is applied by a compiled V-cycle inside a
compiled flexible GMRES (softmech.kernels.multigrid_cycle): one call per solve, one V-cycle and
about two passes over the finest matrix per Krylov iteration (docs/benchmarks_log.md, "Discrete
shells": 2.6x less time per solve than scipy's GMRES around pyamg's relaxation called level by
level from Python, for the same iterations). The finest level is always the current matrix
(its smoothing and residual), the coarse operators R A P those of the matrix at the last
refresh. Gauss-Seidel diverges on an indefinite matrix (a randomly perturbed plate's, whose
compressed edges gave negative diagonal entries, did): GMRES then fails and the complete LU
below takes over (correct, at the LU's cost).

Reuse (the same contract as ReusedILU: `solve(A, diagonal, rhs, q)`, accepted only at a true
residual <= KRYLOV_RTOL |rhs|, counters). Building the hierarchy (aggregation, prolongators P)
costs SETUP_COST GMRES iterations, refreshing its coarse operators R A P for the current A with
P kept ("Galerkin refresh") REFRESH_COST. A mesh's Newton matrix changes little between
iterations and steps, so the hierarchy is kept; after each accepted solve of m iterations, the
k-th since the last setup (S iterations in all since then) and the k'-th since the last
refresh (S' since then):
- m k > SETUP_COST + S: a solve costs more than the mean since the setup, setup included:
  the prolongators are stale (the body turned: its rigid modes moved), build anew;
- otherwise m k' > REFRESH_COST + S': refresh the coarse operators before the next solve.
A new diagonal (a new step size h: M/h^2 changed) refreshes them too. Counting iterations,
not seconds, keeps the choices and so the results reproducible, and each world of a batch
keeps its own hierarchy (linear.JacobianPattern): a batched run equals single runs bit for bit.

Fallbacks: GMRES with the kept hierarchy fails (not accepted within KRYLOV_MAX_ITERATIONS) ->
a hierarchy built afresh for this matrix -> a complete sparse LU (SuperLU, COLAMD) that solves
directly and is kept as the preconditioner of the next solves while they are cheap (the same
mean rule, FACTOR_COST; the compiled GMRES with the LU's factors), as ReusedILU does for the
ill-conditioned matrices of static solves and singular ones (SuperLU raises RuntimeError for an
exactly singular matrix).
"""
import numpy as np
import scipy.sparse.linalg

from softmech.implicit import sparse_solve
from softmech.implicit.multigrid_hierarchy import SMOOTHERS, CsrOf, Hierarchy
from softmech.kernels import multigrid_cycle

AMG_MIN_NODES = 1700
"""Shell nodes (with free DOFs; DofLayout.add_nodes(surface=True)) from which
softmech.implicit.linear chooses ReusedAMG for a sparse system with rigid modes (below:
ReusedILU, or a fresh LU below KRYLOV_MIN_DOFS free DOFs). Measured with benchmarks/shells.py
(docs/benchmarks_log.md, "after round 2"), per Newton iteration, ND-ILU against this multigrid:
hinge 3.1 / 3.4 ms at 1,032 triangles (472 nodes), 6.7 / 7.0 at 1,947 (912), 12.0 / 12.0 at
3,066 (1,456), 17.2 / 16.0 at 3,901, 23.7 / 16.7 at 4,929 (2,366); mid-edge 5.1 / 5.7 (528
nodes), 9.9 / 10.9 (989), 17.0-17.4 / 18.2-19.0 (1,554), 23.0 / 21.5, 35.3 / 24.7 (2,490): the
crossover lies between 3,066 and 3,901 triangles, ~1,550 and ~1,950 nodes. Counted in nodes,
not DOFs, because the mid-edge plate's angle DOFs (1.5 per node) cost the two solvers alike.
Rod nodes do not count: on a square net of discrete rods (3,600 and 10,000 nodes,
benchmarks/rod_net.py) the multigrid needed 37 and 23 GMRES iterations per solve and 173 and
346 ms per Newton iteration against the incomplete LU's 81 and 284 ms (a net's soft modes are
not only rigid motions; measured with the pyamg-driven cycle before round 2)."""
AMG_SMOOTH = "energy"
"""The prolongators' smoothing softmech.implicit.linear asks for (one of SMOOTHERS): energy
minimization needed 11 GMRES iterations per solve where Jacobi smoothing needed 16 (hinge
plate, 10,000 triangles), which paid for its dearer setup from 10,000 triangles on."""
SETUP_COST = 50
"""Building the hierarchy ("jacobi") in GMRES iterations with it (measured at 10,000
triangles, benchmarks/shells.py's plates: 77 ms against 1.43 ms per iteration (hinge),
103 ms against 2.2 ms (mid-edge))."""
ENERGY_SETUP_COST = 80
"""The same with energy-minimizing prolongators (110 ms, 160 ms)."""
REFRESH_COST = 20
"""Recomputing the coarse operators R A P with the prolongators kept (31 ms, 44 ms)."""


class ReusedAMG:
    """Solver of A x = b for a sequence of sparse matrices of one structure by GMRES with a
    kept smoothed-aggregation hierarchy (module docstring).

    modes: softmech.implicit.near_null.RigidModes of the scene; free (n,) the DOFs (indices
    into q) of the system's rows; smooth: "jacobi" or "energy" (SMOOTHERS); scratch: the
    softmech.implicit.sparse_solve.KrylovScratch of its solves when `solve` is given none
    (default: its own; a thread passes its own to `solve`).

    Counters: setups (hierarchies built), refreshes (coarse operators recomputed),
    direct_solves (complete LU factorizations, each solving directly), krylov_solves (solves
    accepted from GMRES), krylov_iterations (GMRES iterations, all attempts), fallbacks (GMRES
    attempts rejected)."""

    def __init__(self, modes, free, smooth="jacobi", scratch=None):
        if smooth not in SMOOTHERS:
            raise ValueError(f"ReusedAMG.smooth = {smooth!r} is not allowed: must be one of "
                             f"{SMOOTHERS}")
        self.modes = modes
        self.free = np.asarray(free, dtype=np.int64)
        self.smooth = smooth
        self.owner = modes.owners(self.free)
        self._csr = CsrOf()
        self._scratch = sparse_solve.KrylovScratch() if scratch is None else scratch
        self.setups = self.refreshes = self.direct_solves = 0
        self.krylov_solves = self.krylov_iterations = self.fallbacks = 0
        self.forget()

    @property
    def setup_cost(self):
        return ENERGY_SETUP_COST if self.smooth == "energy" else SETUP_COST

    def forget(self):
        """Drop the kept preconditioner: the next solve builds a hierarchy afresh."""
        self._hierarchy = self._lu = self._factors = self._diagonal = None
        self._refresh_due = False
        self._since_setup = [0, 0]       # solves, GMRES iterations
        self._since_refresh = [0, 0]

    def solve(self, A, diagonal, rhs, q, scratch=None):
        """x (n,) solving A x = rhs; A: scipy.sparse (n, n) (CSC or CSR); diagonal (n,): the
        inertia part of A's diagonal (a new one refreshes the coarse operators); q (n_dof,):
        the DOF values whose node positions [m] the rigid modes are taken at (when a hierarchy
        is built); scratch: the calling thread's KrylovScratch (default: the solver's). Raises
        RuntimeError from SuperLU when A is exactly singular."""
        scratch = self._scratch if scratch is None else scratch
        A = self._csr(A)
        if self._hierarchy is not None or self._lu is not None:
            x = self._solve_kept(A, diagonal, rhs, scratch)
            if x is not None:
                return x
            self.fallbacks += 1
        self.forget()
        try:
            self._build(A, diagonal, q)
        except RuntimeError:       # a singular coarsest level: the complete LU decides
            self.forget()
        else:
            x = self._krylov(A, rhs, scratch)
            if x is not None:
                return x
            self.fallbacks += 1
        # the complete LU (SuperLU's COLAMD ordering, partial pivoting), kept as the
        # preconditioner of the next solves
        lu = scipy.sparse.linalg.splu(A.tocsc())
        self.direct_solves += 1
        self.forget()
        self._lu = lu
        self._diagonal = diagonal.copy()
        return lu.solve(rhs)

    def _solve_kept(self, A, diagonal, rhs, scratch):
        """GMRES with the kept preconditioner, refreshed first where due; x or None."""
        same_diagonal = np.array_equal(diagonal, self._diagonal)
        if self._lu is not None:
            return self._krylov(A, rhs, scratch) if same_diagonal else None
        if self._refresh_due or not same_diagonal:
            try:
                self._hierarchy.refresh(A)
            except RuntimeError:
                return None
            self.refreshes += 1
            self._refresh_due = False
            self._since_refresh = [0, 0]
            self._diagonal = diagonal.copy()
        return self._krylov(A, rhs, scratch)

    def _build(self, A, diagonal, q):
        if q is None:
            raise ValueError("ReusedAMG.solve: q is required to build a hierarchy (the rigid "
                             "modes are taken at its node positions)")
        B = self.modes.modes(np.asarray(q, dtype=float), self.free)
        self._hierarchy = Hierarchy(A, B, self.owner, self.smooth)
        self.setups += 1
        self._diagonal = diagonal.copy()

    def _krylov(self, A, rhs, scratch):
        """The compiled GMRES preconditioned by the kept LU factors
        (softmech.implicit.sparse_solve.factored_gmres) or V-cycle (_fgmres); x or None (not
        accepted)."""
        if self._lu is not None:
            if self._factors is None:
                self._factors = sparse_solve.factors_of(self._lu)
            x, iterations = sparse_solve.factored_gmres(A.tocsc(), rhs, self._factors, scratch,
                                                        sparse_solve.Uint32Csc())
        else:
            x, iterations = self._fgmres(A, rhs, scratch)
        self.krylov_iterations += iterations
        if x is None:
            return None
        self.krylov_solves += 1
        self._accepted(iterations)
        return x

    def _fgmres(self, A, rhs, scratch=None):
        """The compiled FGMRES with the kept hierarchy's V-cycle, accepted at a true residual
        <= KRYLOV_RTOL |rhs| (softmech.kernels.multigrid_cycle.fgmres): (x or None,
        iterations)."""
        rhs = np.ascontiguousarray(rhs, dtype=np.float64)
        norm_b = float(np.linalg.norm(rhs))
        x = np.empty(rhs.size)
        count = multigrid_cycle.fgmres(
            self._csr.finest(A), self._hierarchy.levels,
            (self._scratch if scratch is None else scratch).get(rhs.size), rhs, x,
            sparse_solve.GMRES_RTOL * norm_b, sparse_solve.KRYLOV_RTOL * norm_b,
            sparse_solve.KRYLOV_MAX_ITERATIONS)
        return (x, count) if count >= 0 else (None, -1 - count)

    def _accepted(self, m):
        """The mean rules (module docstring) after an accepted solve of m iterations."""
        over_mean = sparse_solve.over_mean
        if self._lu is not None:
            if over_mean(self._since_setup, m, sparse_solve.FACTOR_COST):
                self.forget()
            return
        # both tallies count this solve (the refresh's before the setup's test can forget it)
        refresh_due = over_mean(self._since_refresh, m, REFRESH_COST)
        if over_mean(self._since_setup, m, self.setup_cost):
            self.forget()
        elif refresh_due:
            self._refresh_due = True
