"""Compiled pieces of the implicit integrator's Newton loop, shared by the Python loop
(softmech.implicit.newton.ImplicitStepper) and the compiled one (softmech.implicit.compiled),
so that both compute the same numbers in the same order, bit for bit:

- sumsq(x): sum of squares, a plain left-to-right sum (no FMA, no reassociation: numba compiles
  without fastmath). Both loops take every norm (|R|, |F| as each binding adds its part, the
  inertia term's size) from it.
- assemble_band: the banded Newton matrix A = diag(d) - J in LAPACK's band storage, summing the
  entries in the order of softmech.implicit.linear.JacobianPattern's bincount.
- solve_band: the banded solve of both loops. A symmetric matrix (each pair of mirrored entries
  equal to SYMMETRY_TOL relative; the elastic energies' Hessians, DisMech's rods) is first
  given to LAPACK's banded Cholesky dpbsv (its upper triangle), about 3x cheaper than the LU;
  if it is not positive definite (dpbsv stops at a non-positive pivot), or not symmetric
  (friction's Jacobian), LAPACK's banded LU with partial pivoting dgbsv solves it.
  Both are called from compiled code through scipy.linalg.cython_lapack's function addresses,
  registered with LLVM by name when this module is imported (`llvmlite.binding.add_symbol`), so
  functions that call them can be cached on disk (a ctypes function pointer could not: numba
  does not cache functions that hold process-specific addresses).
"""
import math
from collections import namedtuple

import llvmlite.binding as _llvm
from numba import njit, types
from numba.extending import get_cython_function_address

from softmech.kernels import kernel



def _lapack(name, n_args):
    """A LAPACK routine of scipy.linalg.cython_lapack as a numba external function (every
    argument a pointer, Fortran's convention)."""
    symbol = f"softmech_cython_lapack_{name}"
    _llvm.add_symbol(symbol, get_cython_function_address("scipy.linalg.cython_lapack", name))
    return types.ExternalFunction(symbol, types.void(*([types.voidptr] * n_args)))


_dgbsv = _lapack("dgbsv", 10)   # (n, kl, ku, nrhs, ab, ldab, ipiv, b, ldb, info)
_dpbsv = _lapack("dpbsv", 9)    # (uplo, n, kd, nrhs, ab, ldab, b, ldb, info)

LAPACK_INTS = ("n", "kl", "ku", "nrhs", "ldab", "ldb", "info", "kd", "ldab_chol")
"""Entries of BandSystem.lapack_ints, passed to LAPACK by pointer: the matrix order n = n_free,
its lower and upper bandwidths kl = ku = kd, one right-hand side, dgbsv's leading dimension
ldab = 3 kd + 1 (kd rows of fill-in), ldb = n, the returned info, dpbsv's kd and leading
dimension kd + 1."""
SYMMETRY_TOL = 1e-12
"""Mirrored entries a_ij, a_ji that differ by at most this times sqrt(|a_ii| |a_jj|) (the
scale of an entry of a symmetric positive definite matrix) count as equal: an energy's Hessian
is symmetric, its computed entries to round-off of the terms summed into them, which for an
entry that cancels to nearly 0 is large relative to the entry itself. Solving with the upper
triangle then perturbs the Newton direction by ~1e-12 relative, far below the solve's own
round-off (condition number x 1e-16)."""

BandSystem = namedtuple("BandSystem", [
    "slot_of_entry",  # (nnz,) int64: each Jacobian entry's slot in ab (size: a dropped entry)
    "diag_slot",      # (n,) int64: the diagonal's slots
    "ab",             # (size + 1,) dgbsv's band storage (Fortran order, ldab x n) and a spare
    "chol",           # ((kd + 1) n,) dpbsv's band storage of the upper triangle
    "ipiv",           # (n,) int32
    "lapack_ints",    # (9,) int32: LAPACK_INTS
    "uplo",           # (1,) uint8: "U"
])
"""A banded Newton matrix's storage and LAPACK scratch (softmech.implicit.linear.JacobianPattern
allocates it once per pattern)."""

LOOP_OPTIONS = dict(cache=True, error_model="numpy", _nrt=False)
"""Options of the generated Newton loop's functions: those of softmech.kernels.kernel without
`noalias` -- the loop's argument tuples legitimately share arrays (an actuator's update hook
writes the per-world parameter that a rod's forces read), which noalias would declare
impossible."""


def loop_kernel(fn=None, **extra):
    """@loop_kernel / @loop_kernel(inline="always"): numba.njit with LOOP_OPTIONS."""
    if fn is None:
        return lambda f: njit(**LOOP_OPTIONS, **extra)(f)
    return njit(**LOOP_OPTIONS)(fn)


@kernel
def sumsq(x):
    """sum_i x_i^2 of x (n,), summed left to right."""
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * x[i]
    return total


@kernel
def max_abs(x):
    """max_i |x_i| of x (n,) (n >= 1), NaN if any entry is NaN (as np.max(np.abs(x)))."""
    out = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i])
        if a != a:
            return a
        if a > out:
            out = a
    return out


@kernel
def all_finite(x):
    """True when every entry of x (n,) is finite."""
    for i in range(x.shape[0]):
        if not math.isfinite(x[i]):
            return False
    return True


@kernel
def assemble_band(J, slot_of_entry, diag_slot, diagonal, ab):
    """Write into ab (size + 1,) the band storage of A = diag(diagonal) - J over the free DOFs:
    J (nnz,) the bindings' Jacobian entries, slot_of_entry (nnz,) int64 each entry's slot
    (`size` for an entry of a constrained row or column), diag_slot (n_free,) int64, diagonal
    (n_free,). The sums run in entry order from 0.0, then are negated, then the diagonal is
    added: JacobianPattern._assemble's bincount, negation and addition, bit for bit."""
    for i in range(ab.shape[0]):
        ab[i] = 0.0
    for i in range(J.shape[0]):
        ab[slot_of_entry[i]] += J[i]
    for i in range(ab.shape[0]):
        ab[i] = -ab[i]
    for i in range(diag_slot.shape[0]):
        ab[diag_slot[i]] += diagonal[i]


@kernel
def _symmetric_upper(ab, chol, kd, n):
    """Copy the upper triangle of the band (dgbsv storage ab, leading dimension 3 kd + 1) into
    chol (dpbsv's upper storage: chol[kd + i - j, j] = A[i, j], leading dimension kd + 1) and
    return whether A is symmetric (SYMMETRY_TOL)."""
    ld = 3 * kd + 1
    for j in range(n):
        a_jj = abs(ab[2 * kd + j * ld])
        for i in range(max(0, j - kd), j + 1):
            upper = ab[2 * kd + i - j + j * ld]
            lower = ab[2 * kd + j - i + i * ld]
            if abs(upper - lower) > SYMMETRY_TOL * math.sqrt(abs(ab[2 * kd + i * ld]) * a_jj):
                return False
            chol[kd + i - j + j * (kd + 1)] = upper
    return True


@kernel
def solve_band(band, x):
    """Solve A x = b in place for the matrix assembled in band.ab (assemble_band): x (n,) the
    right-hand side on entry and the solution on exit. A symmetric A goes to dpbsv first,
    then, if that finds it not positive definite, or if it is not symmetric, to dgbsv (the
    module docstring). band.ab is overwritten. Returns LAPACK's info (0: solved; i > 0: the
    matrix is singular, U(i, i) = 0)."""
    p = band.lapack_ints
    n, kd = p[0], p[7]
    if n > 0 and _symmetric_upper(band.ab, band.chol, kd, n):
        _dpbsv(band.uplo.ctypes, p[0:].ctypes, p[7:].ctypes, p[3:].ctypes, band.chol.ctypes,
               p[8:].ctypes, x.ctypes, p[5:].ctypes, p[6:].ctypes)
        if p[6] == 0:
            return 0
        # not positive definite: dpbsv left x as it was (its Cholesky stopped before the solve)
    _dgbsv(p[0:].ctypes, p[1:].ctypes, p[2:].ctypes, p[3:].ctypes, band.ab.ctypes, p[4:].ctypes,
           band.ipiv.ctypes, x.ctypes, p[5:].ctypes, p[6:].ctypes)
    return p[6]


# -- the Newton iteration as a state machine ---------------------------------------------------
# The loop of one scene (softmech.implicit.compiled) is generated per set of binding kernels;
# everything between two force evaluations is generic and lives here, compiled once for all
# scenes: the scene's loop asks `newton_continue` after every evaluation what to do next.
NewtonWork = namedtuple("NewtonWork", [
    "mass",           # (n_dof,) lumped masses [kg, kg m^2]
    "free",           # (n_free,) int64 free DOFs
    "q_n", "v_n",     # (n_dof,) the step's start
    "v",              # (n_dof,) (q - q_n) / h
    "F",              # (n_dof,) summed forces
    "J",              # (nnz,) the bindings' Jacobian entries, binding after binding
    "offsets",        # (n_bindings + 1,) int64: binding i's entries are J[offsets[i]:offsets[i+1]]
    "kinds",          # (n_bindings,) int64: binding i's group g in the scene's loop (T[g]) ...
    "members",        # (n_bindings,) int64: ... and its place j there (its arguments T[g][j])
    "R", "dq", "q_free", "diagonal",   # (n_free,) residual, update, saved free DOFs, M / h^2
    "tmp",            # (n_dof,) scratch
    "q_watch",        # (n_dof,) the watchdog point (the last iterate that decreased |R|) ...
    "dq_watch",       # (n_free,) ... and its Newton update
    "band",           # BandSystem: the Newton matrix's storage and the solver's scratch
    "counts",         # (4,) int64: steps, iterations, evaluations, solves (COUNTS)
    "state",          # (5,) int64: phase, iteration, line-search trials, watchdog point set,
                      #   relaxed steps taken in this solve
    "fstate",         # (4,) float: phi = |R|^2 / 2, target |R|, alpha, phi at the watchdog point
])

LoopOptions = namedtuple("LoopOptions", ["rtol", "atol", "xtol", "max_iterations",
                                         "max_line_search", "line_search", "relaxed_steps"])
"""NewtonOptions as the compiled loop reads them (floats, ints, a bool)."""

OK, NONFINITE, SINGULAR, LINE_SEARCH, ITERATIONS, EXPLODED, EVALUATE, SOLVE = range(8)
"""What newton_continue answers: OK (converged), a failure (the step is redone in Python:
a non-finite force, a singular matrix, no decrease along the line search, no convergence in
max_iterations; EXPLODED: the scene's loop found |q| or |v| above its bound), EVALUATE
(q holds the next point: evaluate the forces there and ask again), or, when asked not to solve
(the lockstep loop, which solves the systems of several worlds at once), SOLVE: the Newton
system diag(W.diagonal) - J, right-hand side -W.R, is due; its solution goes to newton_solved."""
COUNTS_FIELDS = ("steps", "iterations", "evaluations", "solves")
"""Entries of NewtonWork.counts: the softmech.implicit.newton.NewtonStats fields they add to."""
STEPS, ITERATION_COUNT, EVALUATIONS, SOLVES = range(len(COUNTS_FIELDS))
_INITIAL, _SEARCHING = 0, 1
ARMIJO = 1e-4
"""Sufficient decrease constant c of the line search (softmech.implicit.newton uses this one,
and the unified engine's, softmech.kernels.implicit_newton)."""
MAX_LINE_SEARCH = 12
"""Halvings of a correction the watchdog line search tries before the step is halved: the
default of NewtonOptions.max_line_search, and the unified engine's (softmech.integrators.
implicit_source)."""
RELAXED_STEPS = 4
"""Full Newton steps per solve taken without enough decrease of the merit: the default of
NewtonOptions.relaxed_steps, and the unified engine's."""
ROUNDOFF = 1e-13
"""Residual floor relative to the sum of the force terms' magnitudes: below it the residual is
round-off (the terms cancel to ~1e-16 of their size per DOF, times a margin)."""


@kernel
def predict(W, q, v, h):
    """Start a step from (q, v) (n_dof,) = (q_n, v_n): keep them in W.q_n, W.v_n, write the
    explicit predictor q = q_n + h v_n (DisMech's), the diagonal M / h^2 of the free DOFs, and
    reset the Newton state (ImplicitStepper._step and the start of newton)."""
    for i in range(q.shape[0]):
        W.q_n[i] = q[i]
        W.v_n[i] = v[i]
    for i in range(q.shape[0]):
        q[i] = W.q_n[i] + h * W.v_n[i]
    hh = h * h
    for i in range(W.free.shape[0]):
        W.diagonal[i] = W.mass[W.free[i]] / hh
    W.state[0] = _INITIAL


@kernel
def begin_evaluation(W, q, h):
    """Before the bindings add their forces at q: velocities v = (q - q_n) / h, F = 0, J = 0
    (ImplicitStepper._residual and forces)."""
    begin_forces(W, q, h)
    for i in range(W.J.shape[0]):
        W.J[i] = 0.0


@kernel
def begin_forces(W, q, h):
    """begin_evaluation without J = 0 (the lockstep loop clears its worlds' Jacobian entries
    together, softmech.kernels.newton_lockstep.clear_jacobians)."""
    for i in range(q.shape[0]):
        W.v[i] = (q[i] - W.q_n[i]) / h
        W.F[i] = 0.0


@kernel
def finish_step(W, q, v, h):
    """After a converged step: v = (q - q_n) / h (ref. 004 eq. 5), one step counted."""
    for i in range(q.shape[0]):
        v[i] = (q[i] - W.q_n[i]) / h
    W.counts[STEPS] += 1


@kernel
def _set_free(W, q, alpha):
    """q[free] = q_free + alpha dq."""
    for i in range(W.free.shape[0]):
        q[W.free[i]] = W.q_free[i] + alpha * W.dq[i]


@kernel
def _iterate(W, o, q, solve):
    """Top of Newton iteration W.state[1]: the convergence test, the solve (or, if not
    `solve`, SOLVE: the caller solves and calls newton_solved), the update test, the watchdog
    point, and the full step's point (ImplicitStepper.newton's `for it` body up to its first
    evaluation, and its end)."""
    phi, target = W.fstate[0], W.fstate[1]
    if W.state[1] > o.max_iterations:
        return OK if math.sqrt(2.0 * phi) <= target else ITERATIONS
    if math.sqrt(2.0 * phi) <= target:
        return OK
    if not solve:
        return SOLVE
    band = W.band
    assemble_band(W.J, band.slot_of_entry, band.diag_slot, W.diagonal, band.ab)
    for i in range(W.free.shape[0]):
        W.dq[i] = -W.R[i]
    return _solved(W, o, q, solve_band(band, W.dq))


@kernel
def newton_solved(W, o, q, x, lane, info):
    """After SOLVE: W.dq = x[:, lane] (x (n_free, L): the solutions of the lockstep loop's
    lanes solve, softmech.kernels.band_lanes), info its status (0: solved); then as
    newton_continue: returns EVALUATE, OK or a failure."""
    for i in range(W.free.shape[0]):
        W.dq[i] = x[i, lane]
    return _solved(W, o, q, info)


@kernel
def _solved(W, o, q, info):
    """The rest of Newton iteration W.state[1] once the solve has written W.dq (info: the
    solver's status, 0 when solved): the update test, the watchdog point, the full step's
    point."""
    if info != 0 or not all_finite(W.dq):
        return SINGULAR
    phi = W.fstate[0]
    n_free = W.free.shape[0]
    W.counts[SOLVES] += 1
    W.counts[ITERATION_COUNT] += 1
    for i in range(n_free):
        W.q_free[i] = q[W.free[i]]
    if max_abs(W.dq) <= o.xtol:
        # converged by the update (the residual is at its round-off floor)
        _set_free(W, q, 1.0)
        return OK
    if o.line_search and W.state[3] == 0:
        # no watchdog point held: this iterate becomes it
        for i in range(q.shape[0]):
            W.q_watch[i] = q[i]
        for i in range(n_free):
            W.dq_watch[i] = W.dq[i]
        W.fstate[3] = phi
        W.state[3] = 1
    W.fstate[2] = 1.0
    W.state[2] = 0
    W.state[0] = _SEARCHING
    _set_free(W, q, 1.0)
    return EVALUATE


@kernel
def _accept(W, o, q, phi_new, solve):
    """Take the point just evaluated as the next iterate (phi_new its merit); a watchdog point
    held is released (the caller decides whether it is)."""
    W.fstate[0] = phi_new
    W.state[1] += 1
    return _iterate(W, o, q, solve)


@kernel
def _back_to_watchdog(W, q):
    """Return to the watchdog point: q = q_watch, the line search's origin and direction its
    own (q_free, dq), first trial alpha = 1/2 (alpha = 1 from there was its full step)."""
    for i in range(q.shape[0]):
        q[i] = W.q_watch[i]
    for i in range(W.free.shape[0]):
        W.q_free[i] = W.q_watch[W.free[i]]
        W.dq[i] = W.dq_watch[i]
    W.fstate[2] = 0.5
    W.state[2] = 1


@kernel
def newton_continue(W, o, q, h, norms, solve):
    """After the bindings' forces and Jacobian at q (W.F, W.J): the residual
    R = M (q - q_n - h v_n) / h^2 - F over the free DOFs (ref. 004 eq. 4), then
    ImplicitStepper.newton's logic up to the next evaluation: returns EVALUATE (q moved to the
    next point), OK (converged: q is the solution) or a failure. norms: the binding force
    sizes measured during this evaluation (used by the first, the predictor's). solve: False
    to get SOLVE where a Newton system is due (the lockstep loop; newton_solved goes on).

    The same operations in the same order as the Python loop (bit for bit): the watchdog line
    search of ImplicitStepper.newton (full steps kept while they decrease |R| enough against
    the watchdog point, or up to relaxed_steps times per solve; else back to that point and
    Armijo backtracking phi(alpha) <= (1 - 2 c alpha) phi_w along its update), or without
    line_search any finite residual; converged when |R| <= max(rtol |R_0| + atol,
    ROUNDOFF x force scale) or when a full update moves no DOF by more than xtol."""
    hh = h * h
    n_free = W.free.shape[0]
    for i in range(n_free):
        d = W.free[i]
        W.R[i] = W.mass[d] * (q[d] - W.q_n[d] - h * W.v_n[d]) / hh - W.F[d]
    W.counts[EVALUATIONS] += 1
    if W.state[0] == _INITIAL:
        if not all_finite(W.R):
            return NONFINITE
        norm0 = math.sqrt(sumsq(W.R))
        if not math.isfinite(norm0):     # |R|^2 overflows
            return NONFINITE
        for i in range(q.shape[0]):
            W.tmp[i] = W.mass[i] * (q[i] - W.q_n[i] - h * W.v_n[i])
        relative = o.rtol * norm0 + o.atol
        floor = ROUNDOFF * (math.sqrt(sumsq(W.tmp)) / hh + norms)
        W.fstate[1] = floor if floor > relative else relative     # max(relative, floor)
        W.fstate[0] = 0.5 * norm0 * norm0
        W.state[1] = 1
        W.state[3] = 0
        W.state[4] = 0                   # the solve's budget of relaxed steps is untouched
        return _iterate(W, o, q, solve)
    # a trial point: the full step (state[2] == 0) or a backtracking one
    alpha = W.fstate[2]
    phi_new = 0.5 * sumsq(W.R)
    finite = math.isfinite(phi_new)
    if not o.line_search:
        if finite:
            return _accept(W, o, q, phi_new, solve)
    elif finite and phi_new <= (1.0 - 2.0 * ARMIJO * alpha) * W.fstate[3]:
        W.state[3] = 0                   # enough decrease: the watchdog point is released
        return _accept(W, o, q, phi_new, solve)
    elif W.state[2] == 0:
        # the full step did not decrease |R| enough
        if finite and W.state[4] < o.relaxed_steps:
            W.state[4] += 1              # keep it for now (the solve's budget allows it): the
            #                              watchdog still holds its point
            return _accept(W, o, q, phi_new, solve)
        if o.max_line_search > 0:
            _back_to_watchdog(W, q)
            _set_free(W, q, W.fstate[2])
            return EVALUATE
    if W.state[2] > 0 or not o.line_search:
        alpha *= 0.5
        W.fstate[2] = alpha
        W.state[2] += 1
        if W.state[2] <= o.max_line_search:
            _set_free(W, q, alpha)
            return EVALUATE
        alpha *= 2.0                     # the last point tried
    # no decrease along dq: keep the smallest step (it may still be converged)
    if not finite:
        return NONFINITE
    if alpha * max_abs(W.dq) > o.xtol:      # alpha = 2^-k: |alpha x| = alpha |x|, exact
        return LINE_SEARCH
    W.state[3] = 0
    return _accept(W, o, q, phi_new, solve)
