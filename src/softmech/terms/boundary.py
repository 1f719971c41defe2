"""Boundary conditions of rod ends: clamped (position and frame), pinned (position), and
prescribed motion x(t) = x0 + displacement p(t) of an end node (optionally with its frame held).
Constraints are imposed after every drift (positions) and kick (rates) of the integrator.
"""
from softmech import _checks
from softmech.terms.base import Term, end_index, rod_name, time_profile

_NO_PROFILE = time_profile("constraint", 0.0, 0.0, 0.0)


class _EndConstraint(Term):
    def __init__(self, rod, end, name):
        self.name = name
        self.rod = rod_name(name, rod)
        if end not in ("first", "last", 0, -1):
            raise ValueError(f"{name}.end = {end!r} is not allowed: must be 'first' or 'last'")
        self.end = end

    @property
    def constrained_end(self):
        """(rod, 'first' | 'last'): one boundary condition per rod end."""
        return (self.rod, "first" if self.end in ("first", 0) else "last")

    def _indices(self, ctx):
        rod = ctx.rod(self.rod, self.name)
        return end_index(self.name, self.end, rod.n_nodes), end_index(self.name, self.end, rod.n_elems)


class Clamp(_EndConstraint):
    """Clamp(rod, end="first"): the end node and the end element's frame keep their initial values."""

    def __init__(self, rod, end="first", *, name="clamp"):
        super().__init__(rod, end, name)

    def contribute(self, ctx, p):
        node, elem = self._indices(ctx)
        ctx.constrain_node(self.rod, node, displacement=None, profile=_NO_PROFILE)
        ctx.constrain_frame(self.rod, elem)


class Pin(_EndConstraint):
    """Pin(rod, end="first"): the end node keeps its initial position; rotation is free."""

    def __init__(self, rod, end="first", *, name="pin"):
        super().__init__(rod, end, name)

    def contribute(self, ctx, p):
        node, _ = self._indices(ctx)
        ctx.constrain_node(self.rod, node, displacement=None, profile=_NO_PROFILE)


class PrescribedMotion(_EndConstraint):
    """End node moves as x(t) = x0 + displacement p(t); with hold_frame the end frame is fixed.

    Per-world parameter `<name>.displacement`, shape (B, 3) [m].
    """

    def __init__(self, rod, displacement, *, end="last", ramp_time=0.0, frequency=0.0, phase=0.0,
                 hold_frame=False, name="prescribed_motion"):
        super().__init__(rod, end, name)
        self.displacement = _checks.finite(f"{name}.displacement", displacement, shape=(3,))
        self.profile = time_profile(name, ramp_time, frequency, phase)
        self.hold_frame = bool(hold_frame)

    def parameters(self):
        return {"displacement": self.displacement[None].copy()}

    def contribute(self, ctx, p):
        node, elem = self._indices(ctx)
        ctx.constrain_node(self.rod, node, displacement=p["displacement"], profile=self.profile)
        if self.hold_frame:
            ctx.constrain_frame(self.rod, elem)
