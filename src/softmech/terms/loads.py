"""Prescribed loads: end forces and couples (of a rod, or of a rigid body at its centre of mass),
and uniform (per unit length) loads on rods.

All vectors are in the lab frame; couples are converted to the element frame in the kernel.
Each load follows the time profile p(t) = ramp(t) sin(2 pi f t + phase) (see terms.base).
"""

from softmech import _checks
from softmech.bodies.cosserat_rod import node_shares
from softmech.integrators.driver import Call
from softmech.kernels.point_loads import PointLoadsArgs, point_loads
from softmech.packing import point_table
from softmech.terms.base import RIGID, ROD, BodyTerm, Part, Term, end_index, rod_name, time_profile
from softmech.terms.rigid import RigidLoads

ORDER = 20
"""Place in the force pass: after damping, before anchors."""


class PointLoads(Part):
    """All prescribed point forces and couples of a scene in one kernel call: entries (slot,
    per-world vector (B, 3) [N] or [N m], time profile (3,))."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.forces, self.couples = [], []

    def add_force(self, rod, node, vec, profile):
        self.forces.append((self.ctx.node_offset[rod] + node, vec, profile))

    def add_couple(self, rod, elem, vec, profile):
        self.couples.append((self.ctx.elem_offset[rod] + elem, vec, profile))

    def calls(self, engine):
        pf = point_table(self.forces, engine.lanes, 3)
        pc = point_table(self.couples, engine.lanes, 3)
        args = engine.args(PointLoadsArgs, force_node=pf[0], force_vec=pf[1], force_profile=pf[2],
                           couple_elem=pc[0], couple_vec=pc[1], couple_profile=pc[2])
        return [Call("forces", ORDER, point_loads, args, "point_loads")]


class EndLoad(BodyTerm):
    """Force [N] and couple [N m] (lab frame) at a body's end: on the end node and the end
    element of a Cosserat rod, or on a rigid body at its centre of mass (the couple is its
    torque; softmech.terms.rigid.RigidLoads), times the time profile p(t) = ramp(t)
    sin(2 pi f t + phase) (softmech.terms.base).

    EndLoad(body, force=(0, 0, 0), couple=(0, 0, 0), *, end=None, ramp_time=0, frequency=0,
    phase=0, name="end_load"): end "first" or "last" (0 or -1) of a rod, default "last"; a rigid
    body takes none. Per-world parameters `<name>.force` and `<name>.couple`, shape (B, 3).
    """

    section = "loads"
    kinds = (ROD, RIGID)

    def __init__(self, body, force=(0.0, 0.0, 0.0), couple=(0.0, 0.0, 0.0), *, end=None,
                 ramp_time=0.0, frequency=0.0, phase=0.0, name="end_load"):
        self.name = name
        self._set_target(body)
        self.force = _checks.finite(f"{name}.force", force, shape=(3,))
        self.couple = _checks.finite(f"{name}.couple", couple, shape=(3,))
        if end is not None and (isinstance(end, bool) or end not in ("first", "last", 0, -1)):
            raise ValueError(f"{name}.end = {end!r} is not allowed: must be 'first' or 'last'")
        self.given_end = self.end = end
        self.profile = time_profile(name, ramp_time, frequency, phase)

    def check_kind(self, kind):
        if kind == RIGID and self.given_end is not None:
            raise ValueError(f"{self.name}.end = {self.given_end!r} is not allowed on rigid body "
                             f"{self.target!r}: its load acts at its centre of mass (leave end "
                             "None)")
        self.end = ("last" if self.given_end is None else self.given_end) if kind == ROD else None

    def parameters(self):
        return {"force": self.force[None].copy(), "couple": self.couple[None].copy()}

    def contribute_cosserat_rod(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        node = end_index(self.name, self.end, rod.n_nodes)
        elem = end_index(self.name, self.end, rod.n_elems)
        loads = ctx.part(PointLoads)
        loads.add_force(self.rod, node, p["force"], self.profile)
        loads.add_couple(self.rod, elem, p["couple"], self.profile)

    def contribute_rigid_body(self, ctx, p):
        ctx.rigid_body(self.body, self.name)
        slot = ctx.rigid_index[self.body]
        loads = ctx.part(RigidLoads)
        loads.forces.append((slot, p["force"], self.profile))
        loads.torques.append((slot, p["couple"], self.profile))


class UniformLoad(Term):
    """Uniform force per unit length [N/m] on the nodes (node share dl of the rest length) and
    couple per unit length [N m / m] on the elements (l^_i), lab frame.

    Per-world parameters `<name>.force_per_length`, `<name>.couple_per_length`, shape (B, 3).
    """

    section = "loads"

    def __init__(self, rod, force_per_length=(0.0, 0.0, 0.0), couple_per_length=(0.0, 0.0, 0.0),
                 *, ramp_time=0.0, frequency=0.0, phase=0.0, name="uniform_load"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.force_per_length = _checks.finite(f"{name}.force_per_length", force_per_length, shape=(3,))
        self.couple_per_length = _checks.finite(f"{name}.couple_per_length", couple_per_length, shape=(3,))
        self.profile = time_profile(name, ramp_time, frequency, phase)

    def parameters(self):
        return {"force_per_length": self.force_per_length[None].copy(),
                "couple_per_length": self.couple_per_length[None].copy()}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        dl = node_shares(rod.rest_lengths, rod.closed)
        loads = ctx.part(PointLoads)
        for i in range(rod.n_nodes):
            loads.add_force(self.rod, i, p["force_per_length"] * dl[i], self.profile)
        for i in range(rod.n_elems):
            loads.add_couple(self.rod, i, p["couple_per_length"] * rod.rest_lengths[i], self.profile)

