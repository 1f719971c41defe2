"""Sparse Newton solves by GMRES preconditioned with reused incomplete LU factors of the
nested-dissection-ordered matrix.

A mesh's Newton matrix A = M/h^2 - dF/dq - dF/dv/h has a 2D graph: its sparse LU's fill-in
and the factorization's work grow faster than n (SuperLU with COLAMD, hinge plate: the
factors' nonzeros x24 and the time x35 from 1,000 to 10,000 triangles, benchmarks/shells.py),
so a fresh LU at every Newton iteration does not scale. Three things are cheaper, and chosen
here by measurement (docs/benchmarks_log.md, "Discrete shells"):

- a fill-reducing nested-dissection ordering (METIS, softmech.implicit.ordering) computed once
  per sparsity pattern and applied symmetrically, P A P^T, with SuperLU told to keep it
  (ORDERED_OPTIONS): the incomplete factors of the hinge plate of 10,000 triangles hold 4.1x
  A's nonzeros instead of 5.1x with SuperLU's COLAMD, and are applied twice as fast;
- an incomplete LU (scipy.sparse.linalg.spilu, SuperLU's ILUTP with drop tolerance
  ILU_DROP_TOL) as preconditioner of restarted GMRES (compiled, releasing the GIL so that
  threads can step the worlds of a batch side by side: softmech.kernels.factored_krylov; A is not
  symmetric where pressure or drag follow the surface), preconditioned on the right so that its
  stopping test is on the true residual; GMRES converges in ~6-10 iterations, each one product
  with A and one application of the factors;
- reusing those factors across Newton iterations and time steps: A changes little between
  them (the same mesh, slightly moved), so the factors of an earlier A precondition the current
  one nearly as well, and a factorization is needed only every several steps.

`ReusedILU.solve(A, diagonal, b)`:
1. with factors of an earlier matrix of the same diagonal (same h; a static solve's is 0), run
   GMRES; accept x only if the true residual |A x - b| <= KRYLOV_RTOL |b| within
   KRYLOV_MAX_ITERATIONS (checked here on A x - b itself, not on GMRES's recurrence);
2. otherwise (no factors yet, a new h, factors dropped as too stale (below), GMRES failed: the
   matrix moved too far) factor A incompletely and run GMRES again;
3. if that fails too (a static solve's ill-conditioned matrix, a singular one) factor A
   completely with SuperLU (scipy.sparse.linalg.splu, its own COLAMD ordering and partial
   pivoting: the robust choice for those matrices), solve directly, and keep these exact
   factors as the preconditioner of the next solves.
A new sparsity pattern (contact adds entries) gets a new ordering and drops the factors.

When to refactor: the factors age as the shape moves away from theirs, and GMRES needs more
iterations. Counting a factorization as FACTOR_COST GMRES iterations, the mean cost per solve
since the last factorization is (FACTOR_COST + S) / k after k solves of S iterations in all; as
soon as a solve costs more iterations than that mean, new factors are cheaper on average
(the usual rule for recomputing a preconditioner), and the factors are dropped. Counting
iterations rather than seconds keeps the solver's choices, hence its results, reproducible.

KRYLOV_RTOL = 1e-10 keeps Newton's iterates those of the exact solve to well below Newton's
own tolerance (rtol 1e-9 of the first residual; an inexact Newton step with forcing term eta
changes the next residual by at most eta |R|). The choice between this and a fresh direct LU
at every iteration is by size (KRYLOV_MIN_DOFS): below it the direct solve is cheap.
"""
import numpy as np
import scipy.sparse.linalg

from softmech.implicit.ordering import SymmetricOrdering
from softmech.kernels import factored_krylov
from softmech.kernels.krylov import Krylov

KRYLOV_RTOL = 1e-10
"""Relative residual |A x - b| / |b| a GMRES solve must reach to be accepted."""
GMRES_RTOL = 0.5 * KRYLOV_RTOL
"""GMRES's own target on its (recurrence) residual: below KRYLOV_RTOL so that the true residual,
which round-off makes differ slightly, usually passes the acceptance test at the first try."""
KRYLOV_MAX_ITERATIONS = 50
"""GMRES iterations of one attempt before its factors count as failed."""
FACTOR_COST = 40
"""An incomplete factorization's cost in GMRES iterations (measured with benchmarks/shells.py's
plates at 10,000 triangles: 0.42 s / 14 ms hinge, 1.1 s / 24 ms mid-edge, CPU time)."""
KRYLOV_MIN_DOFS = 1000
"""Free DOFs from which GMRES with reused factors is used (below: a fresh LU at every solve)."""
ILU_DROP_TOL = 1e-5
"""spilu's drop tolerance (measured on benchmarks/shells.py's plates: 1e-4 and 1e-5 cost the
same per Newton iteration within the noise; 1e-3 needed a refactorization at every step)."""
ILU_FILL_FACTOR = 30.0
"""spilu's cap on the factors' nonzeros over A's: at 10 (scipy's default) the cap truncated the
mid-edge plate's factors at 10,000 triangles into a useless preconditioner (GMRES stagnated);
at 30 it needs 6 iterations (its factors hold 10x A's nonzeros, the hinge plate's 5x)."""
PIVOT_THRESHOLD = 0.01
"""SuperLU's diag_pivot_thresh for the factors of the nested-dissection-ordered matrix: the
diagonal pivot is kept unless it is below this fraction of its column's largest entry, so that
row pivoting does not undo the ordering (none happened on the plates of benchmarks/shells.py)."""
ORDERED_OPTIONS = {"permc_spec": "NATURAL", "diag_pivot_thresh": PIVOT_THRESHOLD,
                   "options": {"SymmetricMode": True}}
"""SuperLU's options for a matrix already permuted by SymmetricOrdering: keep its order."""


class ReusedILU:
    """Solver of A x = b for a sequence of sparse matrices of one structure (module docstring);
    reuse=False: a fresh complete LU at every solve (SuperLU's COLAMD; small systems);
    complete=True: the kept preconditioner is the complete LU of the ordered matrix instead of
    the incomplete one; ordered=False: no nested dissection, SuperLU's COLAMD (both measured
    in benchmarks/shells.py and not chosen). ordering: a SymmetricOrdering to use (shared by
    the worlds of a batch: one METIS run per pattern); a new one by default.

    Counters: factorizations (incomplete), direct_solves (complete LU factorizations, each
    solving directly), krylov_solves (solves accepted from GMRES), krylov_iterations (GMRES
    iterations, all attempts), fallbacks (GMRES attempts rejected)."""

    def __init__(self, reuse=True, complete=False, ordered=True, ordering=None):
        self.reuse = reuse
        self.complete = complete
        self.ordered = ordered
        self.ordering = SymmetricOrdering() if ordering is None else ordering
        self._perm = None
        self._scratch = KrylovScratch()
        self._structure = Uint32Csc()
        self.forget()
        self._diagonal = None
        self.factorizations = self.direct_solves = 0
        self.krylov_solves = self.krylov_iterations = self.fallbacks = 0

    def forget(self):
        """Drop the kept factors: the next solve factors its matrix afresh."""
        self._lu = self._factors = None  # SuperLU's factors, and their compiled solve's form
        self._since = [0, 0]             # accepted solves and their GMRES iterations

    def solve(self, A, diagonal, rhs, q=None, scratch=None):
        """x (n,) solving A x = rhs; A: scipy.sparse (n, n), CSC (or CSR, converted); diagonal
        (n,): the inertia part of A's diagonal (the preconditioner is reused only while it is
        the same); q: unused (the DOF values, which softmech.implicit.multigrid.ReusedAMG's
        solve needs); scratch: the calling thread's KrylovScratch (default: this solver's own).
        Raises RuntimeError from SuperLU when A is exactly singular."""
        if scratch is None:
            scratch = self._scratch
        A = A.tocsc()                    # a no-op for the CSC matrices of "lu" and "ilu" patterns
        if not self.reuse:
            self.direct_solves += 1
            return scipy.sparse.linalg.splu(A).solve(rhs)
        if not self.ordered:
            return self._solve_ordered(A, diagonal, rhs, {}, scratch)
        A, perm = self.ordering.permute(A)
        if perm is not self._perm:       # a new pattern, ordered afresh: the factors are of another
            self.forget()
            self._perm = perm
        x = np.empty_like(rhs)
        x[perm] = self._solve_ordered(A, diagonal[perm], rhs[perm], ORDERED_OPTIONS, scratch)
        return x

    def _solve_ordered(self, A, diagonal, rhs, options, scratch):
        """solve() on the system as given (for ordered: P A P^T y = P b, the same equations
        permuted, so its residual's norm is A x - b's), SuperLU called with `options`."""
        if self._lu is not None and np.array_equal(diagonal, self._diagonal):
            x = self._krylov(A, rhs, scratch)
            if x is not None:
                return x
            self.fallbacks += 1
        self.forget()
        self._diagonal = diagonal.copy()
        try:
            if self.complete:
                self._lu = scipy.sparse.linalg.splu(A, **options)
            else:
                self._lu = scipy.sparse.linalg.spilu(A, drop_tol=ILU_DROP_TOL,
                                                     fill_factor=ILU_FILL_FACTOR, **options)
        except RuntimeError:         # an exactly singular pivot: the complete LU decides
            pass
        else:
            self.factorizations += 1
            x = self._krylov(A, rhs, scratch)
            if x is not None:
                return x
            self.fallbacks += 1
        # the complete LU with SuperLU's own ordering (COLAMD) and partial pivoting: the most
        # robust for the ill-conditioned matrices that reach it, and faster to factor than with
        # the nested-dissection order kept (docs/benchmarks_log.md)
        lu = scipy.sparse.linalg.splu(A)
        self.direct_solves += 1
        self.forget()
        self._lu = lu
        return lu.solve(rhs)

    def _accepted(self, iterations):
        """Count an accepted GMRES solve; drop the factors when it cost more iterations than
        the mean cost per solve since they were made (module docstring)."""
        self.krylov_iterations += iterations
        self.krylov_solves += 1
        if over_mean(self._since, iterations, FACTOR_COST):
            self.forget()

    def _krylov(self, A, rhs, scratch):
        """GMRES preconditioned by the kept factors; x (n,) or None when not accepted."""
        if self._factors is None:
            self._factors = factors_of(self._lu)
        x, iterations = factored_gmres(A, rhs, self._factors, scratch, self._structure)
        if x is None:
            self.krylov_iterations += iterations
            return None
        self._accepted(iterations)
        return x


def over_mean(tally, iterations, cost):
    """The rule for recomputing a kept preconditioner (module docstring): add an accepted solve
    of `iterations` GMRES iterations to tally = [solves, iterations] (counted since the
    preconditioner was made, in place) and return whether this solve cost more than the mean
    per solve since then, the preconditioner's own `cost` (in GMRES iterations) included.
    Shared by ReusedILU and softmech.implicit.multigrid.ReusedAMG."""
    tally[0] += 1
    tally[1] += iterations
    return iterations * tally[0] > cost + tally[1]


def factors_of(lu):
    """The compiled solve's form (softmech.kernels.factored_krylov.Factors) of SuperLU's factors
    `lu` (of spilu or splu): L and U as SuperLU gives them (CSC) with uint32 indices, U's
    inverse diagonal, the permutations, and the scratch of the triangular solves (one per
    solver, i.e. per world)."""
    lower, upper = lu.L, lu.U
    u32 = np.uint32
    return factored_krylov.Factors(
        lower.indptr.astype(u32), lower.indices.astype(u32), lower.data,
        upper.indptr.astype(u32), upper.indices.astype(u32), upper.data,
        1.0 / upper.diagonal(), lu.perm_r.astype(np.int64), lu.perm_c.astype(np.int64),
        np.zeros(lu.shape[0]))


class Uint32Csc:
    """The structure (indptr, indices) of the CSC matrices a solver is given, as uint32 for the
    compiled kernels (numba checks a signed index for wraparound at every gather: the product
    and the triangular solves ran ~2x slower with scipy's int32), converted again only when
    the structure's arrays are others (the ordered matrices of one pattern share theirs)."""

    def __init__(self):
        self._source = self._structure = None

    def __call__(self, A):
        if self._source is None or self._source[0] is not A.indptr or \
                self._source[1] is not A.indices:
            self._source = (A.indptr, A.indices)
            self._structure = (A.indptr.astype(np.uint32), A.indices.astype(np.uint32))
        return self._structure


def factored_gmres(A, rhs, factors, scratch, structure, max_iterations=None):
    """Solve A x = rhs by the compiled GMRES preconditioned on the right with SuperLU's factors
    (softmech.kernels.factored_krylov.fgmres; it releases the GIL), accepting x only at a true
    residual |A x - rhs| <= KRYLOV_RTOL |rhs| within max_iterations (default
    KRYLOV_MAX_ITERATIONS) iterations. A: scipy.sparse CSC (n, n); factors: factors_of(lu);
    scratch: a KrylovScratch (one per thread); structure: the caller's Uint32Csc. Returns
    (x (n,), the iterations) or (None, the iterations spent) when not accepted. Shared by
    ReusedILU and softmech.implicit.multigrid.ReusedAMG (its LU fallback)."""
    if max_iterations is None:
        max_iterations = KRYLOV_MAX_ITERATIONS
    rhs = np.ascontiguousarray(rhs, dtype=np.float64)
    norm_b = float(np.linalg.norm(rhs))
    if norm_b == 0.0:
        return np.zeros_like(rhs), 0
    x = np.empty(rhs.size)
    ptr, idx = structure(A)
    count = factored_krylov.fgmres(ptr, idx, A.data, factors,
                                   scratch.get(rhs.size), rhs, x, GMRES_RTOL * norm_b,
                                   KRYLOV_RTOL * norm_b, max_iterations)
    return (x, count) if count >= 0 else (None, -1 - count)


class KrylovScratch:
    """The compiled GMRES's scratch (softmech.kernels.krylov.Krylov), made at the first solve
    for its size and KRYLOV_MAX_ITERATIONS. One per thread that solves (the solvers of the
    worlds a thread steps share it: each solve writes every entry it reads, so sharing
    changes no result; the basis of 50 iterations of a 90,000-DOF system is 73 MB, touched
    only as far as a solve goes)."""

    def __init__(self):
        self.work = None

    def get(self, n):
        m = max(KRYLOV_MAX_ITERATIONS, 1)
        if self.work is None or self.work.Z.shape != (m, n):
            self.work = Krylov(np.zeros((m + 1, n)), np.zeros((m, n)), np.zeros((m + 1, m)),
                               np.zeros(m + 1), np.zeros(m), np.zeros(m), np.zeros(m),
                               np.zeros(n))
        return self.work
