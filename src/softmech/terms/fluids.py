"""Bodies in a fluid at rest (Renda et al., IJRR 2018, section 3.5 eqs. 10-13 and 4.1 eqs.
19-21; kernels and equations: softmech.kernels.fluids).

    Buoyancy(fluid_density=1000)                                 # every body: gravity x (1 - m_f / m)
    QuadraticDrag(rod, normal=2.5, tangential=0.01, fluid_density=1000)     # Renda eq. 11
    QuadraticDrag(rod, normal=30.0, binormal=1.0, ...)          # a flat array of rods (a vane)
    QuadraticDrag(body, coefficient=0.02, fluid_density=1000)   # rigid body: eq. 20, C_r [m^2]
    AddedMass(rod, coefficient=1.0, fluid_density=1000)                     # eq. 13, normal only
    AddedMass(body, coefficient=0.5, fluid_density=1000)        # rigid body: eq. 21

One term per idea: QuadraticDrag and AddedMass act on a Cosserat rod, a rigid body or a
discrete rod of the unified engine (given by object or name; softmech.terms.base.BodyTerm),
each kind through its own part and kernel (discrete rods: softmech.kernels.der_fluids, and the
Cosserat rods' added-mass kernel on the kind's arrays).

Buoyancy and added mass change what the integrator divides by and the body acceleration field,
not the force list (softmech.fluid_mass.in_fluid): Archimedes' force is -m_f g for the scene's
gravity g (the Gravity term), so Buoyancy acts through it and needs no gravity of its own. A
rigid body's displaced volume is its shape's (sphere, cylinder, box); a mobile general body has
none and is refused. The linear (Stokes) drag of slender bodies is softmech.terms.drag.
"""
import numpy as np

from softmech import _checks
from softmech.bodies.cosserat_rod import node_shares, rod_section
from softmech.integrators.driver import Call
from softmech.kernels.fluids import (AddedMassArgs, QuadraticDragArgs, RigidQuadraticDragArgs,
                                     added_mass, quadratic_drag, rigid_quadratic_drag)
from softmech.packing import lane_table, to_blocks
from softmech.terms.base import DISCRETE, RIGID, ROD, BodyTerm, Part, Term, optional

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
    """Element volumes A l^ [m^3] (A = pi r^2 for circles), (B, n_elems)."""
    area = rod_section(ctx.rod_params(rod.name))[0]
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
        for rod in ctx.der_rods:    # the rod's own volume m_i / rho per node (no PointMass's)
            ctx.der_displaced_mass[rod.name] += rho[:, None] * rod.node_mass / rod.density
        for shell in getattr(ctx, "der_shells", []):    # its own volume h A_i per node
            ctx.der_displaced_mass[shell.name] += rho[:, None] * shell.thickness * \
                shell.node_areas()[None]

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


class QuadraticDrag(BodyTerm):
    """Quadratic (form) drag in a fluid at rest of density rho_f [kg/m^3], on a Cosserat rod or
    a rigid body.

    Cosserat rod, per unit length: -rho_f D u |v| in the element frame, D = (C_n r, C_b r,
    pi/2 C_t r) along d1, d2, d3 (Renda et al. 2018 eq. 11; C_n = C_by = C_bz, C_t = C_bx of
    their Table 1: 2.5 and 0.01). normal C_n (default 2.5), tangential C_t (default 0.01),
    binormal C_b (default C_n, a round rod; a different C_b along d2 makes the drag anisotropic
    about the axis, as for a rod standing for a strip of a flat vane with d1 normal to it:
    softmech.scenarios.wing), all [-]. Per-world parameters `<name>.normal`, `.tangential`,
    `.binormal`, `.fluid_density` (B,).

    Rigid body: F = -1/2 rho_f C_r |v| v (Renda et al. 2018 eq. 20); coefficient C_r = C_d x
    frontal area [m^2] (required; e.g. 0.47 pi R^2 for a sphere at 1e3 < Re < 1e5). Per-world
    parameters `<name>.coefficient`, `.fluid_density` (B,).

    Discrete rod in the unified engine (Scene.compile(engine="unified")): the rod's drag on
    each edge, round sections only (binormal = normal: the edge's tangent is all the kernel
    needs, softmech.kernels.der_fluids); the discrete engine refuses it.

    QuadraticDrag(body, normal=None, tangential=None, *, coefficient=None,
    fluid_density=1000.0, binormal=None, name="quadratic_drag"): body a Cosserat rod or a
    rigid body (or its name); normal, tangential, binormal are a rod's, coefficient a rigid
    body's (giving the other kind's raises)."""

    section = "damping"
    kinds = (ROD, RIGID, DISCRETE)
    ROD_DEFAULTS = {"normal": 2.5, "tangential": 0.01}

    def __init__(self, body, normal=None, tangential=None, *, coefficient=None,
                 fluid_density=1000.0, binormal=None, name="quadratic_drag"):
        self.name = name
        self._set_target(body)
        self.rod_given = {k: optional(name, k, v) for k, v in (
            ("normal", normal), ("tangential", tangential), ("binormal", binormal)) if v is not None}
        for key, value in self.rod_given.items():
            setattr(self, key, value)
        self.coefficient = optional(name, "coefficient", coefficient)
        self.fluid_density = checked_density(name, fluid_density)

    def check_kind(self, kind):
        if kind == RIGID:
            if self.rod_given:
                key = next(iter(self.rod_given))
                raise ValueError(f"{self.name}.{key} = {self.rod_given[key]!r} is not allowed on "
                                 f"rigid body {self.target!r}: a rigid body's drag is its "
                                 "coefficient C_r [m^2]")
            if self.coefficient is None:
                raise ValueError(f"{self.name}.coefficient is missing: the drag of rigid body "
                                 f"{self.target!r} needs C_r = C_d x frontal area [m^2]")
            return
        if self.coefficient is not None:
            raise ValueError(f"{self.name}.coefficient = {self.coefficient!r} is not allowed on "
                             f"rod {self.target!r}: a rod's drag is given by normal, tangential "
                             "(and binormal) [-]")
        for key, value in self.ROD_DEFAULTS.items():
            setattr(self, key, getattr(self, key, value))
        self.binormal = getattr(self, "binormal", self.normal)
        if kind == DISCRETE and self.binormal != self.normal:
            raise ValueError(f"{self.name}.binormal = {self.binormal!r} is not allowed on "
                             f"discrete rod {self.target!r}: its drag is round (binormal = "
                             f"normal = {self.normal!r})")

    def parameters(self):
        keys = ("coefficient", "fluid_density") if self._resolved() == RIGID else (
            "normal", "tangential", "fluid_density", "binormal")
        return {k: np.array([getattr(self, k)]) for k in keys}

    def contribute_cosserat_rod(self, ctx, p):
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

    def contribute_discrete(self, ctx, p):
        """A discrete rod in the unified engine: c_n = rho_f C_n r l^, c_t = rho_f pi/2 C_t r l^
        per edge (softmech.kernels.der_fluids; softmech.terms.der_loads.DerQuadraticDrags)."""
        from softmech.terms.der_loads import DerQuadraticDrags
        rod = unified_der_rod(self, ctx)
        check_positive_params(self.name, p, ["normal", "tangential"], strict=False)
        check_positive_params(self.name, p, ["fluid_density"])
        if np.any(p["binormal"] != p["normal"]):
            raise ValueError(f"params['{self.name}.binormal'] differs from "
                             f"params['{self.name}.normal']: the drag of discrete rod "
                             f"{self.target!r} is round")
        scale = p["fluid_density"][:, None] * rod.radius * rod.rest_lengths        # (B, m)
        ctx.part(DerQuadraticDrags).add(rod, p["normal"][:, None] * scale,
                                        0.5 * np.pi * p["tangential"][:, None] * scale)

    def bind_implicit(self, ctx):
        unified_only(self)

    def contribute_rigid_body(self, ctx, p):
        ctx.rigid_body(self.body, self.name)
        ctx.part(RigidQuadraticDrags).entries.append(
            (ctx.rigid_index[self.body], (0.5 * coefficient_density(self.name, p))[:, None]))


def unified_der_rod(term, ctx):
    """The discrete rod a BodyTerm acts on in the unified engine (ctx: softmech.packing.Assembly);
    ValueError naming the field for a shell (not supported there yet)."""
    rod = ctx.der_index.get(term.target)
    if rod is None:
        raise ValueError(f"{term.name}.body = {term.target!r} is not allowed in the unified "
                         "engine: it is not a discrete rod of the scene (on a shell: not yet; "
                         "compile with engine='discrete')")
    return rod


def unified_only(term):
    """The discrete engine's refusal of a fluid term it has no binding for."""
    raise ValueError(f"{term.name} ({type(term).__name__}) on discrete rod {term.target!r} is not "
                     "supported by the discrete engine: compile with engine='unified'")


def added_mass_tables(lanes, n_nodes, entries):
    """(am_mass, am_ratio) of softmech.kernels.fluids.AddedMassArgs in the block layout, zero
    on the nodes without added mass: entries of (first node slot, m_a, m) with m_a, m (B, n)
    [kg] a rod's added and own node masses."""
    mass = np.zeros((lanes.worlds, n_nodes))
    ratio = np.zeros((lanes.worlds, n_nodes))
    for n0, m_a, m in entries:
        mass[:, n0:n0 + m_a.shape[1]] = m_a
        ratio[:, n0:n0 + m_a.shape[1]] = m_a / m
    return to_blocks(mass, lanes), to_blocks(ratio, lanes)


class AddedMassPart(Part):
    """The added-mass projection of every rod with AddedMass, one kernel call (last)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.rods = []

    def calls(self, engine):
        ctx, slots = self.ctx, engine.slots
        am_mass, am_ratio = added_mass_tables(engine.lanes, slots.n_nodes, [
            (slots.node[n], ctx.added_mass[n], ctx.discrete[n]["node_mass"]) for n in self.rods])
        args = engine.args(AddedMassArgs,
                           am_rod=np.array([ctx.rod_index[n] for n in self.rods], dtype=np.int64),
                           am_mass=am_mass, am_ratio=am_ratio)
        return [Call("forces", ADDED_MASS_ORDER, added_mass, args, "added_mass")]


class DerAddedMassPart(Part):
    """The same projection (softmech.kernels.fluids.added_mass) on the discrete rods with
    AddedMass in the unified engine, one kernel call: the kernel reads the kind's arrays under
    its field names (x = der_x, v = der_v, node_force = der_force; each discrete rod a chain of
    nodes, so the rods' node offsets and edge counts index it as they do Cosserat rods), with
    the kick's mass m + m_a and body acceleration g (m - m_f) / (m + m_a) that
    softmech.der_packing packs (m: ctx.der_node_mass, sm.PointMass's included)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.rods = []

    def calls(self, engine):
        ctx, lanes, slots = self.ctx, engine.lanes, engine.der_slots
        shared = np.bincount(np.concatenate([slots.nodes[r.name] for r in ctx.der_rods]),
                             minlength=slots.n_nodes) > 1
        for r in self.rods:     # the projection kernel walks a rod's own chain of node slots
            if np.any(shared[slots.nodes[r.name]]):
                raise ValueError(f"AddedMass on discrete rod {r.name!r} is not allowed: a node "
                                 "of it is joined to another rod's (sm.JoinNodes), and the "
                                 "added mass needs each rod's nodes in one chain of its own")
        total = slots.per_slot(ctx.der_rods, [ctx.der_node_mass[r.name] +
                                              ctx.der_added_mass[r.name] for r in ctx.der_rods],
                               lanes.worlds)
        am_mass, am_ratio = added_mass_tables(lanes, slots.n_nodes, [
            (slots.nodes[r.name][0], ctx.der_added_mass[r.name], ctx.der_node_mass[r.name])
            for r in self.rods])
        state = engine.state
        args = engine.args(
            AddedMassArgs, x=state.der_x, v=state.der_v, node_force=engine.workspace.der_force,
            rod_node_off=np.array([slots.nodes[r.name][0] for r in self.rods], dtype=np.int64),
            rod_n_elems=np.array([r.n_elems for r in self.rods], dtype=np.int64),
            node_mass=to_blocks(total, lanes), node_body_acc=engine.der.der_body_acc,
            am_rod=np.arange(len(self.rods), dtype=np.int64), am_mass=am_mass, am_ratio=am_ratio)
        return [Call("forces", ADDED_MASS_ORDER, added_mass, args, "der_added_mass")]


def coefficient_density(owner, p):
    """coefficient x fluid_density per world, (B,), after checking both (coefficient >= 0,
    fluid_density > 0)."""
    check_positive_params(owner, p, ["coefficient"], strict=False)
    check_positive_params(owner, p, ["fluid_density"])
    return p["coefficient"] * p["fluid_density"]


class AddedMass(BodyTerm):
    """Added mass of a Cosserat rod or a rigid body in a fluid of density rho_f [kg/m^3]. It
    joins the integrator's mass (softmech.kernels.fluids); rotary added inertia is neglected,
    as in Renda's model.

    Cosserat rod, moving normal to its axis: B_b rho_f A per unit length (Renda et al. 2018
    eq. 13, F_b = diag(0, A B_b, A B_b); coefficient B_b [-], default 1.0, the potential-flow
    value of a circular cylinder; their Table 1 uses 1.5). Open rods only.
    Rigid body: C_a rho_f V (translation, isotropic; eq. 21 with m_r B_r = C_a rho_f V;
    coefficient C_a [-], default 0.5, a sphere in potential flow).
    Discrete rod in the unified engine: as a Cosserat rod, on each node's share of the volume
    (m_i / rho) with the node tangent from its neighbours; a chain of nodes (no networks or
    closed rods); the discrete engine refuses it.

    AddedMass(body, coefficient=None [-], fluid_density=1000 [kg/m^3], name="added_mass");
    per-world parameters `<name>.coefficient`, `<name>.fluid_density` (B,)."""

    section = "environment"
    kinds = (ROD, RIGID, DISCRETE)
    DEFAULT_COEFFICIENT = {ROD: 1.0, RIGID: 0.5, DISCRETE: 1.0}

    def __init__(self, body, coefficient=None, *, fluid_density=1000.0, name="added_mass"):
        self.name = name
        self._set_target(body)
        self.given = optional(name, "coefficient", coefficient)
        self.coefficient = self.given
        self.fluid_density = checked_density(name, fluid_density)

    def check_kind(self, kind):
        self.coefficient = self.DEFAULT_COEFFICIENT[kind] if self.given is None else self.given

    def parameters(self):
        self._resolved()
        return {"coefficient": np.array([self.coefficient]),
                "fluid_density": np.array([self.fluid_density])}

    def contribute_cosserat_rod(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        if rod.closed:
            raise ValueError(f"{self.name}.body = {self.rod!r} is not allowed: added mass needs "
                             "an open rod (node tangents from its neighbours)")
        per_elem = coefficient_density(self.name, p)[:, None] * rod_volumes(ctx, rod)
        ctx.added_mass[self.rod] += node_shares(per_elem, False)
        part = ctx.part(AddedMassPart)
        if self.rod not in part.rods:
            part.rods.append(self.rod)

    def contribute_rigid_body(self, ctx, p):
        body = ctx.rigid_body(self.body, self.name)
        ctx.rigid_added_mass[self.body] += coefficient_density(self.name, p) * body_volume(
            self.name, body)

    def contribute_discrete(self, ctx, p):
        """A discrete rod in the unified engine (DerAddedMassPart): m_a = B rho_f m_i / rho per
        node into ctx.der_added_mass (the packed mass and body acceleration)."""
        rod = unified_der_rod(self, ctx)
        chain = np.column_stack([np.arange(rod.n_elems), np.arange(1, rod.n_elems + 1)])
        if rod.n_nodes != rod.n_elems + 1 or not np.array_equal(rod.edge_nodes, chain):
            raise ValueError(f"{self.name}.body = {self.target!r} is not allowed: added mass needs "
                             "a discrete rod that is one open chain of nodes (node tangents from "
                             "its neighbours)")
        ctx.der_added_mass[rod.name] += (coefficient_density(self.name, p)[:, None]
                                         * rod.node_mass / rod.density)
        part = ctx.part(DerAddedMassPart)
        if rod not in part.rods:
            part.rods.append(rod)

    def bind_implicit(self, ctx):
        unified_only(self)


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
