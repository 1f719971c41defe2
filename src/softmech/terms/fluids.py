"""Bodies in a fluid at rest (Renda et al., IJRR 2018, section 3.5 eqs. 10-13 and 4.1 eqs.
19-21; kernels and equations: softmech.kernels.fluids).

    Buoyancy(fluid_density=1000)                                 # every body: gravity x (1 - m_f / m)
    QuadraticDrag(rod, normal=2.5, tangential=0.01, fluid_density=1000)     # Renda eq. 11
    QuadraticDrag(rod, normal=30.0, binormal=1.0, ...)          # a flat array of rods (a vane)
    AddedMass(rod, coefficient=1.0, fluid_density=1000)                     # eq. 13, normal only
    RigidQuadraticDrag(body, coefficient=0.02, fluid_density=1000)          # eq. 20, C_r [m^2]
    RigidAddedMass(body, coefficient=0.5, fluid_density=1000)               # eq. 21

Buoyancy and added mass change what the integrator divides by and the body acceleration field,
not the force list (softmech.packing.in_fluid): Archimedes' force is -m_f g for the scene's
gravity g (the Gravity term), so Buoyancy acts through it and needs no gravity of its own. A
rigid body's displaced volume is its shape's (sphere, cylinder, box); a mobile general body has
none and is refused. The linear (Stokes) drag of slender bodies is softmech.terms.drag.
"""
import numpy as np

from softmech import _checks
from softmech.bodies.cosserat_rod import node_shares, section_properties
from softmech.integrators.driver import Call
from softmech.kernels.fluids import (AddedMassArgs, QuadraticDragArgs, RigidQuadraticDragArgs,
                                     added_mass, quadratic_drag, rigid_quadratic_drag)
from softmech.packing import lane_table, to_blocks
from softmech.terms.base import Part, Term, rod_name
from softmech.terms.rigid import body_name

DRAG_ORDER = 15
"""Place in the force pass: with the other drags (it only adds)."""
ADDED_MASS_ORDER = 100
"""Last in the force pass: the added-mass projection needs the total force."""


def checked_density(owner, value):
    return float(_checks.positive(f"{owner}.fluid_density", value, shape=()))


def check_positive_params(owner, p, keys, strict=True):
    for key in keys:
        bad = p[key] <= 0 if strict else p[key] < 0
        if np.any(bad):
            raise ValueError(f"params['{owner}.{key}'] has entries {'<=' if strict else '<'} 0 "
                             f"(must be {'>' if strict else '>='} 0)")


def rod_volumes(ctx, rod):
    """Element volumes pi r^2 l^ [m^3], (B, n_elems)."""
    area, _ = section_properties(ctx.rod_params(rod.name)["radius"])
    return area * rod.rest_lengths


def body_volume(owner, body):
    """Volume [m^3] of a rigid body's shape; ValueError for a mobile general body."""
    size = body.size
    if body.shape == "sphere":
        return 4.0 / 3.0 * np.pi * size["radius"] ** 3
    if body.shape == "cylinder":
        return np.pi * size["radius"] ** 2 * size["length"]
    if body.shape == "box":
        return float(np.prod(size["lengths"]))
    raise ValueError(f"{owner}: rigid body {body.name!r} is a general body with no volume; "
                     "fluid terms need a sphere, cylinder or box (or a fixed general body)")


class Buoyancy(Term):
    """Archimedes' force on every body of the scene: the displaced fluid's weight -m_f g, with g
    the scene's gravity (Renda eq. 10: (rho - rho_f) A g per unit length; eq. 19 for rigid
    bodies). Fixed general bodies are left out (they have no volume and do not move).

    Buoyancy(fluid_density=1000 [kg/m^3]); per-world parameter `<name>.fluid_density` (B,)."""

    section = "environment"

    def __init__(self, fluid_density=1000.0, *, name="buoyancy"):
        self.name = name
        self.fluid_density = checked_density(name, fluid_density)

    def parameters(self):
        return {"fluid_density": np.array([self.fluid_density])}

    def contribute(self, ctx, p):
        check_positive_params(self.name, p, ["fluid_density"])
        rho = p["fluid_density"]
        for rod in ctx.rods:
            ctx.displaced_mass[rod.name] += node_shares(rho[:, None] * rod_volumes(ctx, rod),
                                                        rod.closed)
        for body in ctx.rigid_bodies:
            if not (body.fixed and body.shape == "general"):
                ctx.rigid_displaced_mass[body.name] += rho * body_volume(self.name, body)

    def bind_implicit(self, ctx):
        """Discrete rods and shells: F_i = -rho_f (m_i / rho) g on every node, i.e. gravity
        scaled by (1 - rho_f / rho) together with sm.Gravity (ref. 004 section 5.1); one
        load per Gravity term of the scene (none without gravity)."""
        from softmech.implicit.loads import NodeLoads
        from softmech.terms.gravity import Gravity

        rho = ctx.params[f"{self.name}.fluid_density"]
        check_positive_params(self.name, {"fluid_density": rho}, ["fluid_density"])
        dofs, volumes = [], []
        for body in ctx.bodies.values():
            nd = ctx.layout.node_dof(body.nodes)
            dofs.append(nd)
            volumes.append(ctx.layout.mass[nd[:, 0]] / body.density)
        dofs, first = np.unique(np.concatenate(dofs), axis=0, return_index=True)
        volumes = np.concatenate(volumes)[first]
        return [NodeLoads(f"{self.name}.{g.name}", dofs, -volumes,
                          ctx.params[f"{g.name}.acceleration"], scale=rho)
                for g in ctx.terms if isinstance(g, Gravity)]


class QuadraticDragPart(Part):
    """All QuadraticDrag terms of a scene in one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def calls(self, engine):
        n_e = engine.slots.n_elems * engine.lanes.W
        layer, coeff = engine.elem_layers(self.entries, 3)
        args = engine.args(QuadraticDragArgs,
                           qdrag_rod=np.array([e[0] for e in self.entries], dtype=np.int64),
                           qdrag_layer=layer, qdrag_coeff=coeff,
                           qdrag_force=engine.zeros(3, n_e))
        return [Call("forces", DRAG_ORDER, quadratic_drag, args, "quadratic_drag")]


class QuadraticDrag(Term):
    """Quadratic (form) drag of a rod per unit length, -rho_f D u |v| in the element frame,
    D = (C_n r, C_b r, pi/2 C_t r) along d1, d2, d3 (Renda et al. 2018 eq. 11; C_n = C_by =
    C_bz, C_t = C_bx of their Table 1: 2.5 and 0.01). C_b = C_n (binormal=None, default) for
    a round rod; a different C_b along d2 makes the drag anisotropic about the axis, as for a
    rod standing for a strip of a flat vane with d1 normal to it (softmech.scenarios.wing).

    QuadraticDrag(rod, normal=2.5, tangential=0.01 [-], fluid_density=1000 [kg/m^3],
    binormal=None [-]); per-world parameters `<name>.normal`, `<name>.tangential`,
    `<name>.fluid_density`, `<name>.binormal` (B,)."""

    section = "damping"

    def __init__(self, rod, normal=2.5, tangential=0.01, *, fluid_density=1000.0,
                 binormal=None, name="quadratic_drag"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.normal = float(_checks.nonnegative(f"{name}.normal", normal, shape=()))
        self.tangential = float(_checks.nonnegative(f"{name}.tangential", tangential, shape=()))
        self.fluid_density = checked_density(name, fluid_density)
        self.binormal = self.normal if binormal is None else float(
            _checks.nonnegative(f"{name}.binormal", binormal, shape=()))

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in ("normal", "tangential", "fluid_density",
                                                          "binormal")}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        check_positive_params(self.name, p, ["normal", "tangential", "binormal"], strict=False)
        check_positive_params(self.name, p, ["fluid_density"])
        r = ctx.rod_params(self.rod)["radius"]                                  # (B, n_elems)
        C = np.empty(r.shape + (3,))
        C[..., 0] = p["normal"][:, None]
        C[..., 1] = p["binormal"][:, None]
        C[..., 2] = 0.5 * np.pi * p["tangential"][:, None]
        coeff = C * (p["fluid_density"][:, None] * r * rod.rest_lengths)[..., None]   # rho_f D l^
        ctx.part(QuadraticDragPart).entries.append((ctx.rod_index[self.rod], coeff))


class AddedMassPart(Part):
    """The added-mass projection of every rod with AddedMass, one kernel call (last)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.rods = []

    def calls(self, engine):
        ctx, lanes, slots = self.ctx, engine.lanes, engine.slots
        mass = np.zeros((lanes.worlds, slots.n_nodes))
        ratio = np.zeros((lanes.worlds, slots.n_nodes))
        for name in self.rods:
            n0 = slots.node[name]
            m_a = ctx.added_mass[name]
            mass[:, n0:n0 + m_a.shape[1]] = m_a
            ratio[:, n0:n0 + m_a.shape[1]] = m_a / ctx.discrete[name]["node_mass"]
        args = engine.args(AddedMassArgs,
                           am_rod=np.array([ctx.rod_index[n] for n in self.rods], dtype=np.int64),
                           am_mass=to_blocks(mass, lanes), am_ratio=to_blocks(ratio, lanes))
        return [Call("forces", ADDED_MASS_ORDER, added_mass, args, "added_mass")]


class _CoefficientInFluid(Term):
    """What AddedMass, RigidQuadraticDrag and RigidAddedMass share: a coefficient (>= 0) and a
    fluid density (> 0), validated, as per-world parameters `<name>.coefficient` and
    `<name>.fluid_density`, whose product the term uses."""

    def _fluid(self, coefficient, fluid_density):
        self.coefficient = float(_checks.nonnegative(f"{self.name}.coefficient", coefficient, shape=()))
        self.fluid_density = checked_density(self.name, fluid_density)

    def parameters(self):
        return {"coefficient": np.array([self.coefficient]),
                "fluid_density": np.array([self.fluid_density])}

    def coefficient_density(self, p):
        """coefficient x fluid_density per world, (B,), after checking both."""
        check_positive_params(self.name, p, ["coefficient"], strict=False)
        check_positive_params(self.name, p, ["fluid_density"])
        return p["coefficient"] * p["fluid_density"]


class AddedMass(_CoefficientInFluid):
    """Added mass of a rod moving normal to its axis: B_b rho_f A per unit length (Renda et al.
    2018 eq. 13, F_b = diag(0, A B_b, A B_b); B_b = 1 is the potential-flow value of a circular
    cylinder, their Table 1 uses 1.5). It joins the integrator's mass (softmech.kernels.fluids);
    rotary added inertia is neglected, as in Renda's model. Open rods only.

    AddedMass(rod, coefficient=1.0 [-], fluid_density=1000 [kg/m^3]); per-world parameters
    `<name>.coefficient`, `<name>.fluid_density` (B,)."""

    section = "environment"

    def __init__(self, rod, coefficient=1.0, *, fluid_density=1000.0, name="added_mass"):
        self.name = name
        self.rod = rod_name(name, rod)
        self._fluid(coefficient, fluid_density)

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        if rod.closed:
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: added mass needs an "
                             "open rod (node tangents from its neighbours)")
        per_elem = self.coefficient_density(p)[:, None] * rod_volumes(ctx, rod)
        ctx.added_mass[self.rod] += node_shares(per_elem, False)
        part = ctx.part(AddedMassPart)
        if self.rod not in part.rods:
            part.rods.append(self.rod)


class RigidQuadraticDrags(Part):
    """Quadratic drag of rigid bodies, one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (body slot, 1/2 rho_f C_r (B, 1))

    def calls(self, engine):
        args = engine.args(
            RigidQuadraticDragArgs,
            rqdrag_body=np.array([e[0] for e in self.entries], dtype=np.int64),
            rqdrag_coeff=lane_table([e[1] for e in self.entries], engine.lanes, 1))
        return [Call("forces", DRAG_ORDER, rigid_quadratic_drag, args, "rigid_quadratic_drag")]


class RigidQuadraticDrag(_CoefficientInFluid):
    """Quadratic drag of a rigid body, F = -1/2 rho_f C_r |v| v (Renda et al. 2018 eq. 20;
    C_r = C_d x frontal area [m^2], e.g. 0.47 pi R^2 for a sphere at 1e3 < Re < 1e5).

    RigidQuadraticDrag(body, coefficient [m^2], fluid_density=1000 [kg/m^3]); per-world
    parameters `<name>.coefficient`, `<name>.fluid_density` (B,)."""

    section = "damping"

    def __init__(self, body, coefficient, *, fluid_density=1000.0, name="rigid_quadratic_drag"):
        self.name = name
        self.body = body_name(name, body)
        self._fluid(coefficient, fluid_density)

    def contribute(self, ctx, p):
        ctx.rigid_body(self.body, self.name)
        ctx.part(RigidQuadraticDrags).entries.append(
            (ctx.rigid_index[self.body], (0.5 * self.coefficient_density(p))[:, None]))


class RigidAddedMass(_CoefficientInFluid):
    """Added mass C_a rho_f V of a rigid body (translation, isotropic; Renda et al. 2018 eq. 21
    with m_r B_r = C_a rho_f V; C_a = 1/2 for a sphere in potential flow). It joins the
    integrator's mass; rotary added inertia is neglected, as in Renda's model.

    RigidAddedMass(body, coefficient=0.5 [-], fluid_density=1000 [kg/m^3]); per-world
    parameters `<name>.coefficient`, `<name>.fluid_density` (B,)."""

    section = "environment"

    def __init__(self, body, coefficient=0.5, *, fluid_density=1000.0, name="rigid_added_mass"):
        self.name = name
        self.body = body_name(name, body)
        self._fluid(coefficient, fluid_density)

    def contribute(self, ctx, p):
        body = ctx.rigid_body(self.body, self.name)
        ctx.rigid_added_mass[self.body] += self.coefficient_density(p) * body_volume(self.name, body)
