"""Implicit Euler with Newton-Raphson, line search and step halving (ref. 004 eqs. 4-7,
Algorithm 1), and the static (equilibrium) solve, for one world at a time.

Step from (q_n, v_n) at t_n to t_n + h:

    R(q) = M (q - q_n - h v_n) / h^2 - F(q, (q - q_n)/h, t_n + h) = 0          (ref. 004 eq. 4)
    v_{n+1} = (q_{n+1} - q_n) / h                                              (eq. 5)

Newton: solve (M/h^2 - dF/dq - dF/dv / h) dq = -R (eqs. 6-7) over the free DOFs, then a
watchdog line search on the merit phi(alpha) = |R(q + alpha dq)|^2 / 2 (NewtonOptions: the
full step while it satisfies Armijo's phi(1) <= (1 - 2 c) phi_w against the last point that did,
or up to `relaxed_steps` times per solve without it; otherwise backtracking from that point,
phi(alpha) <= (1 - 2 c alpha) phi_w, c = 1e-4; DisMech's line search likewise asks the residual
to fall). Converged when |R| <= rtol |R_0| + atol, or when a full Newton update moves no DOF by
more than xtol. A step whose Newton iterations fail (no convergence in max_iterations, a
singular matrix, a non-finite force) is retried as two half steps, recursively down to
h / 2**max_halvings; only then does the step fail (`NewtonFailed`), never the process.

Static solve: R(q) = -F(q, 0, t) with h = inf and v = 0 (no inertia); if Newton fails from the
initial guess (a large deflection far from it, a buckled branch), pseudo-transient continuation
takes over: damped implicit steps of growing size h (velocity reset after each) until the
static Newton converges from the current shape.
"""
import copy
import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from softmech import _checks
from softmech.implicit import compiled
from softmech.implicit.linear import JacobianPattern, SingularJacobian
# ARMIJO (the line search's sufficient decrease constant) and ROUNDOFF (the residual floor
# relative to the force terms' sizes) are defined with the compiled loop's pieces, once
from softmech.kernels.newton import (ARMIJO, COUNTS_FIELDS, MAX_LINE_SEARCH, OK, RELAXED_STEPS,
                                     ROUNDOFF, sumsq)

MAX_PSEUDO_STEPS = 400
"""Pseudo-time steps of a static solve's continuation before it gives up."""
MAX_PSEUDO_GROWTH = 2.0 ** 16
"""Largest pseudo-time step of the continuation, in units of the first (h grows no further,
so that M / h^2 keeps regularizing the directions in which the equilibrium is not unique)."""


class NewtonFailed(RuntimeError):
    """Newton did not converge even at the smallest allowed step; `reason` says why, `dof` is
    the DOF (index into q) where it showed first: a non-finite value, else the largest residual
    (None where no single DOF stands out, e.g. a singular matrix)."""

    def __init__(self, message, reason, dof=None):
        super().__init__(message)
        self.reason = reason
        self.dof = None if dof is None else int(dof)


def worst_dof(free, values):
    """The DOF (index into q) of the first non-finite entry of `values` over the free DOFs
    (n_free,), else of the largest |value|."""
    bad = np.flatnonzero(~np.isfinite(values))
    return free[bad[0]] if len(bad) else free[int(np.argmax(np.abs(values)))]


@dataclass
class NewtonOptions:
    """Newton settings: rtol, atol [N] (residual), xtol [m or rad] (update), max_iterations per
    step, max_halvings of a failing step, max_line_search halvings of alpha.

    line_search: globalize Newton on the merit |R|^2 / 2 with a watchdog (Chamberlain, Powell,
    Lemarechal and Pedersen, Math. Prog. Study 16, 1982; Nocedal and Wright, Numerical
    Optimization, 2nd ed., sec. 15.6): the full Newton step is taken when it decreases the
    merit enough (Armijo, against the last point that did: the watchdog point), and also when
    it does not, up to relaxed_steps times in one Newton solve (one step); when such a step
    has not led to enough decrease by the next iteration and the budget is spent, Newton
    returns to the watchdog point and backtracks along its update (alpha = 1/2, 1/4, ...,
    max_line_search trials). Why not a plain Armijo line search (relaxed_steps=0, softmech's
    behaviour before): the residual of a stiff rod (EA l^2 >> EI) grows by orders of magnitude
    after the first full step of a large rotation (the linearized rotation stretches the
    edges), which plain backtracking answers with tiny steps although Newton converges in 2-3
    full steps (a static cantilever at E = 1e8 Pa: 544 iterations with relaxed_steps=0, 7 with
    the watchdog, benchmarks/peer_dismech.py). Why a budget per solve rather than per watchdog
    point: where full steps overshoot into a penalty contact they rarely recover, and a budget
    per point cost the falling_rod scene halvings and 25 % more iterations (a budget of 4 per
    solve: 8 %), while the rolled strip and the soft cantilever need several relaxed steps
    (measured in docs/implicit.md). line_search=False takes full Newton steps (halved only
    where the force is not finite), as DisMech does by default for rods.
    compiled: run the steps in the compiled Newton loop (softmech.implicit.compiled) when the
    scene allows it (every binding has a compiled form, banded matrix); False keeps the
    Python loop (same results, for comparisons).
    lockstep: how the compiled loop steps a batch (softmech.implicit.compiled.CompiledLoop.
    run_worlds): True, the worlds of each worker thread advance together, each with its own
    Newton iterations, line search and status, their Newton systems solved 8 at a time
    with the worlds innermost (softmech.kernels.band_lanes); False, one world
    after another; None (the default), lockstep for a batch of at least
    compiled.LOCKSTEP_MIN_WORLDS worlds. A world's results in lockstep are the same bit for
    bit whatever the batch (B = 1 in lockstep included) and differ from the per-world loop's
    by the linear solve's round-off, far inside the Newton tolerance (docs/implicit.md); a
    block of steps in which a world fails is redone by the Python loop for every world, with
    the per-world loop's solve."""
    rtol: float = 1e-9
    atol: float = 0.0
    xtol: float = 1e-12
    max_iterations: int = 25
    max_halvings: int = 10
    max_line_search: int = MAX_LINE_SEARCH
    line_search: bool = True
    relaxed_steps: int = RELAXED_STEPS
    compiled: bool = True
    lockstep: bool = None

    def __post_init__(self):
        for field in ("rtol", "atol", "xtol"):
            _checks.nonnegative(f"NewtonOptions.{field}", getattr(self, field))
        _checks.integer("NewtonOptions.max_iterations", self.max_iterations, 1)
        _checks.integer("NewtonOptions.max_halvings", self.max_halvings, 0)
        _checks.integer("NewtonOptions.max_line_search", self.max_line_search, 0)
        _checks.integer("NewtonOptions.relaxed_steps", self.relaxed_steps, 0)
        for field in ("line_search", "compiled"):
            _checks.boolean(f"NewtonOptions.{field}", getattr(self, field))
        if self.lockstep is not None:
            try:
                _checks.boolean("NewtonOptions.lockstep", self.lockstep)
            except ValueError:
                raise ValueError(f"NewtonOptions.lockstep = {self.lockstep!r} is not allowed: "
                                 "must be True, False or None (automatic)") from None
        if self.rtol == 0 and self.atol == 0 and self.xtol == 0:
            raise ValueError("NewtonOptions: rtol, atol and xtol are all 0: Newton could never "
                             "stop; give at least one > 0")


@dataclass
class NewtonStats:
    """Counters over a run: steps taken, Newton iterations, residual evaluations, linear
    solves, steps halved."""
    steps: int = 0
    iterations: int = 0
    evaluations: int = 0
    solves: int = 0
    halvings: int = 0

    def reset(self):
        self.steps = self.iterations = self.evaluations = self.solves = self.halvings = 0


class ImplicitStepper:
    """Implicit Euler and static solves of a compiled scene's bindings, one world at a time.

    bindings: list of softmech.implicit.binding.Binding; mass: (n_dof,) lumped mass;
    options: NewtonOptions; rigid_modes: the DOFs' softmech.implicit.near_null.RigidModes (for
    the multigrid solve of large sparse systems; None: not used). Scratch (F, J) is allocated
    once here and reused.

    loop: the compiled Newton loop (softmech.implicit.compiled.CompiledLoop) that `step` and
    ImplicitSimulation (its run_worlds) use, or None, then `loop_unavailable` says why (the
    Python loop runs)."""

    def __init__(self, bindings, mass, options=None, rigid_modes=None):
        self.bindings = list(bindings)
        self.mass = np.asarray(mass, dtype=float)
        self.options = options or NewtonOptions()
        self.stats = NewtonStats()
        self.n_dof = self.mass.size
        for bd in self.bindings:
            if len(bd.rows) != len(bd.cols):
                raise ValueError(f"binding {bd.name!r}: rows and cols differ in length")
        constrained = np.concatenate([bd.constrained_dofs for bd in self.bindings]
                                     + [np.zeros(0, np.int64)]).astype(np.int64)
        if np.unique(constrained).size != constrained.size:
            raise ValueError("two boundary conditions constrain the same degree of freedom")
        self.constrained = constrained
        self._constraint_owner = [(bd, i) for i, bd in enumerate(self.bindings)
                                  if len(bd.constrained_dofs)]
        self._dynamic = [bd for bd in self.bindings if bd.dynamic]
        self._updaters = [bd for bd in self.bindings if bd.updates]
        self._versions = None
        self._rigid_modes = rigid_modes
        self._F = np.zeros(self.n_dof)
        self._refresh_pattern()
        self.free = self.pattern.free
        self.loop = None
        self.loop_unavailable = self._compiled_loop()

    def _compiled_loop(self):
        """Build the compiled loop if the scene allows it; returns None, or why it does not."""
        if not self.options.compiled:
            return "NewtonOptions.compiled is False"
        if self.pattern.kind != "banded":
            return f"the Newton matrix is {self.pattern.kind}, not banded"
        if self._dynamic:
            return f"binding {self._dynamic[0].name!r} changes its Jacobian's structure"
        if not len(self.free):
            return "no free degree of freedom"
        forms = []
        for bd in self.bindings:
            form = bd.compiled()
            if form is None:
                return f"binding {bd.name!r} ({type(bd).__name__}) has no compiled form"
            forms.append(form)
        self.loop = compiled.CompiledLoop(forms, [len(bd.rows) for bd in self.bindings],
                                          self.pattern, self.mass, self.options)
        return None

    def for_thread(self, worlds):
        """A stepper for a worker thread that steps other worlds of `worlds` at the same time
        as this one (softmech.implicit.simulation), or None where that is not known to be safe.
        It shares what is read only (options, mass, constraints, the Jacobian's structure) and
        what is kept per world (the bindings' per-world rows, each world's sparse solver and
        kept preconditioner), and has its own scratch: the bindings' (Binding.for_thread),
        F, J, the force-size estimate, the pattern's (JacobianPattern.for_thread), and its own
        stats (to be added to this stepper's). None with the compiled loop (its own batched
        run: CompiledLoop.run_worlds) and where a binding changes the Jacobian's structure
        (contact: the pattern is the scene's, rebuilt for the world that stepped last) or is
        not known to be safe."""
        if self.loop is not None or self._dynamic:
            return None
        bindings = [bd.for_thread(worlds) for bd in self.bindings]
        if any(bd is None for bd in bindings):
            return None
        twin = copy.copy(self)
        twin.bindings = bindings
        twin._constraint_owner = [(bindings[i], i) for _, i in self._constraint_owner]
        twin._updaters = [bd for bd in bindings if bd.updates]
        twin.stats = NewtonStats()
        twin._F = np.zeros_like(self._F)
        twin._J = np.zeros_like(self._J)
        twin.pattern = self.pattern.for_thread()
        return twin

    def add_stats(self, other):
        """Add another stepper's NewtonStats (a thread's, for_thread) to this one's; reset
        them."""
        for field in dataclasses.fields(NewtonStats):
            setattr(self.stats, field.name,
                    getattr(self.stats, field.name) + getattr(other.stats, field.name))
        other.stats.reset()

    def _refresh_pattern(self):
        """(Re)build the Jacobian's structure when it is new or a dynamic binding (contact)
        changed its entries (Binding.pattern_version) in begin_step."""
        versions = tuple(bd.pattern_version for bd in self._dynamic)
        if versions == self._versions:
            return
        self._versions = versions
        sizes = [len(bd.rows) for bd in self.bindings]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._slices = [slice(offsets[i], offsets[i + 1]) for i in range(len(self.bindings))]
        rows = np.concatenate([bd.rows for bd in self.bindings] + [np.zeros(0, np.int64)])
        cols = np.concatenate([bd.cols for bd in self.bindings] + [np.zeros(0, np.int64)])
        self.pattern = JacobianPattern(self.n_dof, rows, cols, self.constrained,
                                       rigid_modes=self._rigid_modes)
        self._J = np.zeros(offsets[-1])

    def _begin(self, b, q, t):
        for bd in self.bindings:
            bd.begin_step(b, q, t)
        self._refresh_pattern()

    # -- pieces -------------------------------------------------------------------------
    def apply_constraints(self, b, q, t):
        """Write the prescribed values of world b at time t into q (n_dof,) in place."""
        for bd, _ in self._constraint_owner:
            q[bd.constrained_dofs] = bd.constrained_values(b, t)

    def forces(self, b, q, v, t, h, measure=False):
        """Sum of the bindings' forces F (n_dof,) and Jacobian entries J (nnz,) (scratch
        arrays, overwritten by the next call); measure: also estimate the size of the summed
        terms for the round-off floor (_force_scale), once per Newton solve."""
        F, J = self._F, self._J
        F[:] = 0.0
        J[:] = 0.0
        for bd in self._updaters:
            bd.update(b, t)
        if measure:
            norms, before = 0.0, 0.0
            for bd, sl in zip(self.bindings, self._slices):
                bd.forces(b, q, v, t, h, F, J[sl])
                after = math.sqrt(sumsq(F))
                norms += abs(after - before)
                before = after
            self._binding_norms = norms
        else:
            for bd, sl in zip(self.bindings, self._slices):
                bd.forces(b, q, v, t, h, F, J[sl])
        self.stats.evaluations += 1
        return F, J

    def _force_scale(self, q, q_n, v_n, h):
        """Size of the terms that R sums [N]: the inertia term's norm plus, per binding, the
        change of |F| as it added its part in the last evaluation (a cheap estimate of its
        force's norm: gravity and a ground carrying it count twice the weight, not 0)."""
        scale = 0.0 if np.isinf(h) else math.sqrt(sumsq(self.mass * (q - q_n - h * v_n))) / (h * h)
        return scale + self._binding_norms

    def energy(self, b, q):
        """Sum of the bindings' potential energies [J] at q."""
        return sum(bd.energy(b, q) for bd in self.bindings)

    def _residual(self, b, q, q_n, v_n, t, h, measure=False):
        """R over the free DOFs (n_free,) and the Jacobian entries, at q."""
        if np.isinf(h):
            v = np.zeros_like(q)
            F, J = self.forces(b, q, v, t, h, measure)
            R = -F[self.free]
        else:
            v = (q - q_n) / h
            F, J = self.forces(b, q, v, t, h, measure)
            R = (self.mass * (q - q_n - h * v_n) / (h * h) - F)[self.free]
        return R, J

    def newton(self, b, q, q_n, v_n, t, h):
        """Newton iterations from the guess q (n_dof, with constrained values set; modified in
        place) for R = 0 at time t with step h (inf: static). Returns the number of
        iterations, or raises NewtonFailed."""
        opt = self.options
        diagonal = (np.zeros(len(self.free)) if np.isinf(h)
                    else self.mass[self.free] / (h * h))
        R, J = self._residual(b, q, q_n, v_n, t, h, measure=True)
        if not np.all(np.isfinite(R)):
            raise NewtonFailed("non-finite force at the initial guess", "nonfinite",
                               worst_dof(self.free, R))
        norm0 = math.sqrt(sumsq(R))     # the compiled loop's norm, bit for bit
        if not np.isfinite(norm0):     # |R|^2 overflows: the convergence test would pass at once
            raise NewtonFailed(f"the force is too large (its norm overflows; largest entry "
                               f"{np.max(np.abs(R)):.3g})", "nonfinite", worst_dof(self.free, R))
        target = max(opt.rtol * norm0 + opt.atol, ROUNDOFF * self._force_scale(q, q_n, v_n, h))
        phi = 0.5 * norm0 * norm0
        watch = None       # the watchdog point (q, phi, dq) while one is held
        relaxed = 0        # full steps kept without enough decrease in this solve (the budget)
        for it in range(1, opt.max_iterations + 1):
            if np.sqrt(2 * phi) <= target:
                return it - 1
            try:
                dq = self.pattern.solve(J, diagonal, -R, world=b, q=q)
            except SingularJacobian as err:
                raise NewtonFailed(f"singular Newton matrix: {err}", "singular") from None
            self.stats.solves += 1
            self.stats.iterations += 1
            q_free = q[self.free]
            if np.max(np.abs(dq)) <= opt.xtol:
                # converged by the update: the residual is at its round-off floor (for a stiff
                # rod EA times the round-off of the node coordinates, far above ROUNDOFF times
                # the forces), where the line search below could only stall
                q[self.free] = q_free + dq
                return it
            if not opt.line_search:
                R, J, phi = self._full_step(b, q, q_free, dq, q_n, v_n, t, h)
                continue
            if watch is None:
                watch = (q.copy(), phi, dq)
            q[self.free] = q_free + dq
            R, J = self._residual(b, q, q_n, v_n, t, h)
            phi_new = 0.5 * sumsq(R)
            if np.isfinite(phi_new) and phi_new <= (1.0 - 2.0 * ARMIJO) * watch[1]:
                phi, watch = phi_new, None
                continue
            if np.isfinite(phi_new) and relaxed < opt.relaxed_steps:
                phi, relaxed = phi_new, relaxed + 1      # kept for now; the watchdog waits
                continue
            R, J, phi = self._backtrack(b, q, watch, (R, J, phi_new), q_n, v_n, t, h)
            watch = None
        if np.sqrt(2 * phi) <= target:
            return opt.max_iterations
        raise NewtonFailed(f"no convergence in {opt.max_iterations} Newton iterations "
                           f"(residual {np.sqrt(2 * phi):.3g}, target {target:.3g})", "iterations",
                           worst_dof(self.free, R))

    def _full_step(self, b, q, q_free, dq, q_n, v_n, t, h):
        """Without line search: q = q_free + alpha dq on the free DOFs with alpha = 1, halved
        only while the residual there is not finite. Returns (R, J, phi) at the point taken."""
        alpha = 1.0
        for _ in range(self.options.max_line_search + 1):
            q[self.free] = q_free + alpha * dq
            R, J = self._residual(b, q, q_n, v_n, t, h)
            phi = 0.5 * sumsq(R)
            if np.isfinite(phi):
                return R, J, phi
            alpha *= 0.5
        raise NewtonFailed("non-finite force along the Newton direction", "nonfinite",
                           worst_dof(self.free, R))

    def _backtrack(self, b, q, watch, last, q_n, v_n, t, h):
        """Back to the watchdog point watch = (q_w, phi_w, dq_w) and Armijo backtracking along
        its update: q = q_w + alpha dq_w, alpha = 1/2, 1/4, ... (alpha = 1 was its full step)
        until phi(alpha) <= (1 - 2 c alpha) phi_w. last = (R, J, phi) of the point that failed
        the test. When no trial decreases |R| enough, the smallest is kept if it moves no DOF
        by more than xtol (it may be converged), else NewtonFailed. Returns (R, J, phi) at the
        point taken (q, in place)."""
        opt = self.options
        q_w, phi_w, dq_w = watch
        R, J, phi = last
        q[:] = q_w
        w_free = q_w[self.free]
        alpha = 1.0
        for _ in range(opt.max_line_search):
            alpha *= 0.5
            q[self.free] = w_free + alpha * dq_w
            R, J = self._residual(b, q, q_n, v_n, t, h)
            phi = 0.5 * sumsq(R)
            if np.isfinite(phi) and phi <= (1.0 - 2.0 * ARMIJO * alpha) * phi_w:
                return R, J, phi
        if not np.isfinite(phi):
            raise NewtonFailed("non-finite force along the Newton direction", "nonfinite",
                               worst_dof(self.free, R))
        if np.max(np.abs(alpha * dq_w)) > opt.xtol:
            raise NewtonFailed("the line search found no decrease of the residual",
                               "line_search", worst_dof(self.free, R))
        return R, J, phi

    # -- time stepping ------------------------------------------------------------------
    def step(self, b, q_n, v_n, t_n, h):
        """One implicit Euler step of world b from (q_n, v_n) at t_n, halving the step (as
        many sub-steps as needed, at most max_halvings levels deep) when Newton fails.
        Returns (q, v) at t_n + h; raises NewtonFailed with the smallest step's reason."""
        return self._step(b, q_n, v_n, t_n, h, 0)

    def add_counts(self, counts):
        """Add a compiled run's counts (steps, iterations, evaluations, solves) to stats."""
        for field, count in zip(COUNTS_FIELDS, counts):
            setattr(self.stats, field, getattr(self.stats, field) + int(count))

    def _step(self, b, q_n, v_n, t_n, h, depth):
        if self.loop is not None:
            # the compiled loop first; if it fails, the same step in Python below (whose
            # numbers are the same) halves it or raises its NewtonFailed
            q, v = q_n.copy(), v_n.copy()
            status, _, counts = self.loop.run(b, q, v, t_n, 0, h, 1, np.inf)
            if status == OK:
                self.add_counts(counts)
                return q, v
        self._begin(b, q_n, t_n)
        q = q_n + h * v_n            # explicit predictor (same as DisMech's: q_n + h v_n)
        t = t_n + h
        self.apply_constraints(b, q, t)
        try:
            self.newton(b, q, q_n, v_n, t, h)
        except NewtonFailed as err:
            if depth >= self.options.max_halvings:
                raise NewtonFailed(f"{err} at the smallest step {h:.3g} s (after "
                                   f"{depth} halvings)", err.reason, err.dof) from None
            self.stats.halvings += 1
            q_mid, v_mid = self._step(b, q_n, v_n, t_n, h / 2, depth + 1)
            return self._step(b, q_mid, v_mid, t_n + h / 2, h / 2, depth + 1)
        v = (q - q_n) / h
        for bd in self.bindings:
            bd.accept(b, q)
        self.stats.steps += 1
        return q, v

    def explicit_step(self, b, q_n, v_n, t_n, h):
        """One symplectic Euler step with the same forces: v = v_n + h M^-1 F(q_n, v_n, t_n),
        q = q_n + h v (constrained DOFs follow their values at t_n + h). Stable only below the
        stiffness limit (for comparisons with the implicit step); NewtonFailed("nonfinite") on
        a non-finite state."""
        self._begin(b, q_n, t_n)
        F, _ = self.forces(b, q_n, v_n, t_n, h)
        v = v_n.copy()
        free = self.free
        v[free] += h * F[free] / self.mass[free]
        q = q_n + h * v
        self.apply_constraints(b, q, t_n + h)
        v[self.constrained] = (q[self.constrained] - q_n[self.constrained]) / h
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            qv = np.concatenate([q[self.free], v[self.free]])
            raise NewtonFailed("non-finite state in the explicit step (dt above the stability "
                               "limit?)", "nonfinite",
                               worst_dof(np.concatenate([self.free, self.free]), qv))
        for bd in self.bindings:
            bd.accept(b, q)
        self.stats.steps += 1
        return q, v

    def static(self, b, q, t, h0):
        """Equilibrium of world b at time t from the guess q (n_dof,), returned (a new array).
        h0 [s]: first pseudo-time step of the continuation used if Newton fails from q."""
        q = q.copy()
        self.apply_constraints(b, q, t)
        q_start = q.copy()
        self._begin(b, q, t)
        zero = np.zeros_like(q)
        R0, _ = self._residual(b, q, q, zero, t, np.inf)
        target = self.options.rtol * float(np.linalg.norm(R0)) + self.options.atol
        try:
            self.newton(b, q, q, zero, t, np.inf)
            for bd in self.bindings:
                bd.accept(b, q)
            return q
        except NewtonFailed:
            pass
        # Pseudo-transient continuation: damped implicit steps (velocity reset to 0 after each),
        # doubling h after each, until the static residual |F(q, 0)| has fallen by rtol from
        # the initial guess's. It also settles bodies whose equilibrium is not unique (free to
        # slide on a frictionless plane: the static matrix is singular there).
        q = q_start
        h = h0
        for _ in range(MAX_PSEUDO_STEPS):
            q, _v = self.step(b, q, zero, t, h)
            R, J = self._residual(b, q, q, zero, t, np.inf)
            if float(np.linalg.norm(R)) <= target:
                return q
            # or a static Newton update below xtol: the residual is at its round-off floor
            # (a stiff rod's, EA times the coordinates' round-off, can lie above target)
            try:
                dq = self.pattern.solve(J, np.zeros(len(self.free)), -R, world=b, q=q)
            except SingularJacobian:
                dq = None
            if dq is not None and np.max(np.abs(dq)) <= self.options.xtol:
                q[self.free] += dq
                for bd in self.bindings:
                    bd.accept(b, q)
                return q
            h = min(2.0 * h, h0 * MAX_PSEUDO_GROWTH)
        raise NewtonFailed(f"the static solve did not converge (Newton from the initial shape "
                           f"and {MAX_PSEUDO_STEPS} pseudo-time steps failed)", "static")
