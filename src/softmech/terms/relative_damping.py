"""RelativeDamping: the linear damping of Cosserat rods' motion relative to their rigid motion,
a dissipation of the deformation alone (softmech.kernels.relative_damping).

LinearDamping resists every motion, a rod's translation and rotation as a whole included: the
drag of a viscous medium. A material's internal friction damps only how a body deforms. A
scene that needs the second without the first (a soft robot walking in water, whose vibrations
its gel damps but whose gait only the water's drag resists) adds RelativeDamping for it: the
same coefficients as LinearDamping's (force -gamma dl u on each node, couple -gamma_r l^ u_w on
each element), applied to the velocities u left after the rigid motion that fits them best is
taken away, the rigid motion of one rod or of several rods joined into one body. Unlike
KelvinVoigt (stiffness-proportional, whose explicit step limit falls with the square of the
element length), it is mass-proportional, so an explicit step takes it at the cost of
LinearDamping.
"""
import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.relative_damping import RelativeDampingArgs, relative_damping
from softmech.packing import to_blocks
from softmech.terms.base import Part, Term, optional, rod_name
from softmech.terms.damping import damping_parameters, rod_damping

ORDER = 11
"""Place in the force pass: after the linear dampers (softmech.terms.damping.ORDER)."""


class RelativeDampers(Part):
    """All relative dampers of a scene in one kernel call: per term (a group) its rods, and the
    weights per node (gamma dl [kg/s]) and per element (gamma_r l^ [N m s]) of every rod, (B, n),
    zero on the rods without one."""

    def __init__(self, ctx):
        super().__init__(ctx)
        B = ctx.worlds
        self.node = {r.name: np.zeros((B, r.n_nodes)) for r in ctx.rods}
        self.elem = {r.name: np.zeros((B, r.n_elems)) for r in ctx.rods}
        self.groups = []
        self.owner = {}

    def add(self, term, rods):
        """Claim `rods` (names) for `term`; ValueError if another term has one of them (the
        rigid motion each group is damped against would then not be one)."""
        for name in rods:
            if name in self.owner:
                raise ValueError(f"{term}.rods = {list(rods)} is not allowed: rod {name!r} is "
                                 f"already damped relative to the group of {self.owner[name]} "
                                 "(put the rods of one body in one RelativeDamping)")
            self.owner[name] = term
        self.groups.append(list(rods))

    def calls(self, engine):
        if not self.groups:
            return []
        slots, index = engine.slots, {r.name: r for r in engine.rods}
        node = np.zeros((engine.lanes.worlds, slots.n_nodes))
        elem = np.zeros((engine.lanes.worlds, slots.n_elems))
        rods, groups = [], [0]
        for names in self.groups:
            for name in names:
                # the real nodes and elements only: a closed rod's ghosts copy its first ones
                r, n0, e0 = index[name], slots.node[name], slots.elem[name]
                nodes = self.node[name].shape[1]
                node[:, n0:n0 + nodes] = self.node[name]
                elem[:, e0:e0 + r.n_elems] = self.elem[name]
                rods.append((n0, nodes, e0, r.n_elems))
            groups.append(len(rods))
        args = engine.args(RelativeDampingArgs, relative_node=to_blocks(node, engine.lanes),
                           relative_elem=to_blocks(elem, engine.lanes),
                           relative_rods=np.array(rods, dtype=np.int64),
                           relative_groups=np.array(groups, dtype=np.int64))
        return [Call("forces", ORDER, relative_damping, args, "relative_damping")]


class RelativeDamping(Term):
    """Damping of the deformation of one Cosserat rod or of several rods joined into one body:
    LinearDamping's force -gamma dl u on each node and couple -gamma_r l^ u_w on each element,
    on the velocities u, u_w relative to the rigid motion of the rods together that fits their
    velocities best in the metric of those coefficients (softmech.kernels.relative_damping).
    The forces and couples have no resultant and no moment: the rods' momentum and angular
    momentum are kept, their rigid motion is not damped.

    RelativeDamping(rods, coefficient, *, rotational_coefficient=None,
    name="relative_damping"): rods, a Cosserat rod (or its name) or a list of them (each rod
    in one RelativeDamping at most); coefficient gamma [kg/(m s)] per unit length;
    rotational_coefficient gamma_r [kg m/s] (None: gamma I1 / A of each rod, as LinearDamping's).
    Per-world parameters `<name>.coefficient` and `<name>.rotational_coefficient` (B,)."""

    section = "damping"

    def __init__(self, rods, coefficient, *, rotational_coefficient=None,
                 name="relative_damping"):
        self.name = name
        many = not isinstance(rods, str) and not hasattr(rods, "name") and \
            hasattr(rods, "__iter__")
        self.rods = tuple(rod_name(f"{name}.rods", r) for r in (rods if many else [rods]))
        if not self.rods or len(set(self.rods)) < len(self.rods):
            raise ValueError(f"{name}.rods = {list(self.rods)} is not allowed: must name at "
                             "least one rod, each once")
        self.coefficient = float(_checks.nonnegative(f"{name}.coefficient", coefficient, shape=()))
        self.rotational_coefficient = optional(name, "rotational_coefficient",
                                               rotational_coefficient)

    def parameters(self):
        return damping_parameters(self.coefficient, self.rotational_coefficient)

    def contribute(self, ctx, p):
        for key in p:
            if np.any(p[key] < 0):
                raise ValueError(f"params['{self.name}.{key}'] has entries < 0 (must be >= 0)")
        dampers = ctx.part(RelativeDampers)
        rods = [ctx.rod(name, self.name) for name in self.rods]
        dampers.add(self.name, self.rods)
        for rod in rods:
            node, elem = rod_damping(ctx, rod, p)
            dampers.node[rod.name] += node
            dampers.elem[rod.name] += elem
