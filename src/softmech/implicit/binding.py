"""What a term (or a body's elastic energy) gives the implicit integrator: a Binding.

The implicit integrator (softmech.implicit.newton) solves, per world and step, implicit Euler
(ref. 004 eqs. 4-7)

    R(q) = M (q - q_n - h v_n) / h^2 - F(q, v) = 0,   v = (q - q_n) / h,
    dR/dq = M / h^2 - (dF/dq + dF/dv / h),

and a static solve R(q) = -F(q, 0) = 0. F is the sum of the scene's bindings' forces; each
binding also writes its block of the Jacobian dF/dq + dF/dv / h into its own entries. Inertia
is the integrator's (M, from softmech.implicit.layout.DofLayout.mass), never a binding's.

A term joins the implicit integrator by implementing `bind_implicit(ctx)` -> list of Binding
(a body kind's elastic energies the same way, through its own `bind_implicit`). The bindings
are built once per compiled scene; their `forces` are then called at every Newton iteration.
"""
import copy

import numpy as np

from softmech.kernels.implicit_bindings import threads_safe, with_own_scratch


class ImplicitContext:
    """What bindings are built from.

    layout: the finalized softmech.implicit.layout.DofLayout; worlds: B; bodies: {name: body}
    of the implicit bodies; params: the simulation's per-world parameters {"<owner>.<name>":
    array (B, ...)} -- a binding keeps references to its arrays and reads row b at every call,
    so that writing sim.params[...] between runs changes the next run without recompiling;
    terms: the scene's terms (buoyancy reads the gravity terms' parameters).
    """

    def __init__(self, layout, worlds, bodies, params, terms=()):
        self.layout = layout
        self.worlds = worlds
        self.bodies = bodies
        self.params = params
        self.terms = tuple(terms)

    def body(self, owner, name):
        """The implicit body called `name`, or a ValueError naming `owner`."""
        try:
            return self.bodies[name]
        except KeyError:
            raise ValueError(f"{owner}: no discrete rod or shell named {name!r} in the scene "
                             f"(implicit bodies: {sorted(self.bodies)})") from None


EMPTY = np.zeros(0, dtype=np.int64)


class Binding:
    """One contribution to the implicit step. Subclasses set:

    name: for error messages and timings;
    rows, cols: int64 (nnz,) -- the DOF (row, column) of each Jacobian entry `forces` writes,
      in the order of its J argument (repeats allowed; they are added);
    constrained_dofs: int64 (k,) -- DOFs this binding prescribes (boundary conditions), removed
      from the solve; their values come from `constrained_values`;
    and override `forces` (and, where they apply, the other hooks).
    """

    name = "binding"
    rows = EMPTY
    cols = EMPTY
    constrained_dofs = EMPTY
    dynamic = False
    """True for a binding whose entries change between steps (contact pairs): it may replace
    rows and cols in begin_step, and then increments pattern_version."""
    pattern_version = 0
    pure = False
    """True for a binding whose hooks write nothing but F and J (and world b's rows of
    per-world arrays): threads stepping different worlds may share it (for_thread)."""

    def forces(self, b, q, v, t, h, F, J):
        """Add this binding's generalized forces of world b to F (n_dof,) [N on node DOFs, N m
        on angle DOFs] and its Jacobian dF/dq + dF/dv / h to J (nnz,), at DOFs q (n_dof,),
        velocities v (n_dof,) = (q - q_n)/h, time t [s] (the end of the step) and step h [s]
        (h = inf and v = 0 in a static solve)."""

    def energy(self, b, q):
        """Potential energy [J] of the conservative part of this binding at q (n_dof,), world b
        (0.0 for a binding that has none): F = -dE/dq for those, tested by the properties."""
        return 0.0

    body = None
    """Name of the body whose elastic energy this binding is (None for terms)."""
    updates = False
    """True for a binding with an `update` hook (actuation writing per-world parameters)."""

    def update(self, b, t):
        """Called before every force evaluation of world b at time t [s], before any binding's
        forces (only when `updates` is True): write time-dependent per-world parameters."""

    def energy_parts(self, b, q):
        """The binding's energy by kind {"stretch_energy" | "bending_energy" |
        "twisting_energy" | "shear_energy": [J]} (what softmech.diagnostics reports for a
        body); {} for a binding that is not a body's elasticity."""
        return {}

    def constrained_values(self, b, t):
        """Values (k,) of `constrained_dofs` for world b at time t [s]."""
        return np.zeros(len(self.constrained_dofs))

    def begin_step(self, b, q, t):
        """Called once before the Newton iterations of a step from state q (n_dof,) at time t
        (a dynamic binding updates its entries here)."""

    def accept(self, b, q):
        """Called when world b's step to q (n_dof,) is accepted (commit history: reference
        frames, reference twist)."""

    def compiled(self):
        """This binding's compiled form (softmech.implicit.compiled.CompiledForm): its kernels
        and argument tuple, covering every hook it overrides, for the compiled Newton loop; or
        None (the default), and a scene with any such binding runs the Python loop."""
        return None

    def for_thread(self, worlds):
        """This binding for a worker thread that steps other worlds (of `worlds`) while other
        threads use this one (softmech.implicit.newton.ImplicitStepper.for_thread), or None
        when that is not known to be safe (the scene's worlds are then stepped one after
        another). Safe means: every hook writes only F, J, scratch of its own and world b's
        rows of its arrays. The default covers a binding whose Python hooks run its compiled
        form's kernels on `self.args`: a shallow copy with its own scratch fields
        (softmech.kernels.implicit_bindings.SCRATCH), where those arguments are listed there
        as safe (threads_safe); a `pure` binding is itself; one with other state overrides
        this."""
        if self.pure:
            return self
        args = getattr(self, "args", None)
        form = self.compiled()
        if args is None or form is None or form.args is not args or not threads_safe(args,
                                                                                    worlds):
            return None
        twin = copy.copy(self)
        twin.args = with_own_scratch(args)
        return twin

    def state(self):
        """Restart data this binding keeps between steps {name: array (B, ...)} (updated in
        place; saved and restored with the simulation's state), e.g. a rod's reference
        frames; {} for none."""
        return {}
