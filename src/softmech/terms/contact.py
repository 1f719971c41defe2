"""Contact with a plane (the ground) with friction: one term, GroundContact, for every body
kind, each kind through its own part and kernel (softmech.terms.base.BodyTerm).

Cosserat rod: the kernel and its equations are in softmech.kernels.contact (Gazzola et al.
2018 eqs. 4.8-4.10, ME498 handout section 2.2.4).

    GroundContact(rod, stiffness=1.0, damping=1e-6, plane_point=(0, 0, 0), plane_normal=(0, 0, 1),
                  friction=AnisotropicFriction(forward=1.019, backward=1.529, lateral=2.039))

Per-world parameters: `<name>.stiffness` k_w [N/m], `<name>.damping` gamma_w [kg/s],
`<name>.plane_point` (3,) [m], `<name>.plane_normal` (3,), `<name>.kinetic` (forward, backward,
lateral) [-], `<name>.static` (forward, backward, lateral) [-], `<name>.slip_velocity` [m/s].
With friction that sticks (sm.StickingFriction; softmech.kernels.rod_ground_sticking: the wall
response above without friction, then the stick spring of each element in contact; with
surface=True softmech.kernels.surface_sticking, a spring per end sphere):
`<name>.static`, `<name>.kinetic` [-] (B,) and `.tangential_stiffness`, `.tangential_damping`
in place of the anisotropic coefficients and the slip velocity.

Rigid body: penalty contact of its features (sphere surface, box corners, cylinder rims, mesh
vertices) with regularised Coulomb friction (softmech.kernels.rigid_contact; part
softmech.terms.rigid.RigidGroundContacts). stiffness [N/m] (required), damping [N s/m]
(default 0), friction an isotropic law (sm.IsotropicFriction(kinetic, static, slip_velocity))
or friction that sticks (sm.StickingFriction(static, kinetic, tangential_stiffness=...,
tangential_damping=...), softmech.kernels.sticking). Per-world parameters `<name>.stiffness`,
`.damping`, `.static`, `.kinetic` [-] (read and written under their older names
`.static_friction`, `.kinetic_friction` with a DeprecationWarning: softmech.params), and
`.slip_velocity` (regularized) or
`.tangential_stiffness`, `.tangential_damping` (sticking) (B,).

Discrete rod or shell (implicit): smooth penalty contact of its nodes with regularized Coulomb
friction (MAT-DiSMech, ref. 004 eqs. 23, 25-26; softmech.kernels.implicit_ground): stiffness k
[N/m] (required; the force 2 k (delta - d) once a node is deeper than ~1/K inside the contact
distance), distance delta [m] (required: a rod's radius, half a shell's thickness), sharpness K
[1/m] (default 15 / delta, IMC's choice), friction an isotropic law
(sm.IsotropicFriction(kinetic, static, slip_velocity)) whose slip_velocity is the speed below
which friction is regularized (sticking); a static coefficient above the kinetic one holds
the node up to static |F_n| and falls to kinetic once it slides (static 0: the paper's one
coefficient mu = kinetic). Per-world parameters `<name>.stiffness`, `<name>.static`,
`<name>.kinetic` (B,) (`<name>.friction`, the paper's mu, is read and written as
`<name>.kinetic` with a DeprecationWarning: softmech.params). A discrete rod in the unified
engine: the same forces and law (softmech.terms.der_ground; the static excess lagged on the
last accepted step's velocities, read from the state).
"""
from dataclasses import dataclass

import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.contact import (FLAG_PER_NODE, FLAG_UNIFORM, FLAG_UNIT_DECOMPOSITION,
                                      N_CONTACT_FLAGS, N_CONTACT_PARAMS, VARIANTS,
                                      GroundContactArgs)
from softmech.packing import add_element_ends
from softmech.stability import spring_time_step
from softmech.terms.base import DISCRETE, RIGID, ROD, BodyTerm, Part, optional
from softmech.terms.der_ground import DerGroundContacts
from softmech.terms.friction import STICK_FIELDS, StickingFriction, sticking_rows
from softmech.terms.implicit_environment import GroundBinding
from softmech.terms.rigid import RigidGroundContacts
from softmech.terms.rod_ground_sticking import add_node_forces, check_rod, sticking_calls
from softmech.terms.surface_contact import N_SURFACE_PARAMS, SurfaceContacts
from softmech.terms.surface_contact import time_step_limit as surface_time_step_limit

ORDER = 90
"""Last in the force pass: the wall response balances the total force of every other term."""

DECOMPOSITIONS = {"sign": 0, "unit": 1}
REGULARIZATIONS = ("band", "mollified")


@dataclass(frozen=True)
class AnisotropicFriction:
    """Amontons-Coulomb friction coefficients along the rod's in-plane axis (forward = along +d3,
    backward) and across it (lateral), kinetic and static, below slip_velocity [m/s] static.

    rolling: the contact point's velocity includes the section's spin (w x r) and the lateral
    friction acts at the contact point (with its couple). decomposition: "sign" saturates each
    direction separately, F = -mu N sign(v) (Gazzola 2018's reference implementation, default);
    "unit" weights each direction by the unit slip velocity's component (PyElastica >= 0.3).
    per_node: each half of an element's kinetic friction uses its own node's velocity (instead of
    the element's mass-weighted velocity) and acts on that node.
    regularization: "band" (default: below slip_velocity the kinetic friction fades out and the
    static pass holds, Gazzola et al. 2018) or "mollified" (one coefficient, the kinetic one,
    smoothly from 0 to mu N over slip_velocity, no static branch: a force monotone in the slip
    velocity that implicit steps can solve; Li et al. 2020, softmech.kernels.surface_contact;
    GroundContact(rod, surface=True) only).
    """
    forward: float
    backward: float
    lateral: float
    static_forward: float = 0.0
    static_backward: float = 0.0
    static_lateral: float = 0.0
    slip_velocity: float = 1e-8
    rolling: bool = True
    decomposition: str = "sign"
    per_node: bool = False
    regularization: str = "band"

    def __post_init__(self):
        for f in ("forward", "backward", "lateral", "static_forward", "static_backward",
                  "static_lateral"):
            _checks.nonnegative(f"friction.{f}", getattr(self, f), shape=())
        _checks.positive("friction.slip_velocity", self.slip_velocity, shape=())
        _checks.choice("friction.decomposition", self.decomposition, DECOMPOSITIONS)
        _checks.choice("friction.regularization", self.regularization, REGULARIZATIONS)
        if self.regularization == "mollified" and (
                self.static_forward, self.static_backward, self.static_lateral) != (0, 0, 0):
            raise ValueError(f"friction.static_* = ({self.static_forward!r}, "
                             f"{self.static_backward!r}, {self.static_lateral!r}) is not allowed "
                             "with regularization='mollified': its law has one coefficient per "
                             "direction, the kinetic one (static coefficients 0)")
        for f in ("rolling", "per_node"):
            _checks.boolean(f"friction.{f}", getattr(self, f))


def IsotropicFriction(kinetic, static=0.0, *, slip_velocity=1e-8, rolling=True,
                      decomposition="sign", per_node=False, regularization="band"):
    """The same coefficient in every in-plane direction."""
    return AnisotropicFriction(kinetic, kinetic, kinetic, static, static, static,
                               slip_velocity, rolling, decomposition, per_node, regularization)


def sticking_or_regularized(static, kinetic, *, tangential_stiffness, mass, slip_velocity):
    """Isotropic ground friction of a contact carrying `mass` [kg]: friction that sticks
    (StickingFriction) with its spring k_t = tangential_stiffness [N/m] critically damped,
    c_t = 2 sqrt(k_t m), where k_t > 0; with k_t = 0 the regularized law, static below
    slip_velocity [m/s] (IsotropicFriction). How the walkers choose between the two."""
    if tangential_stiffness > 0:
        return StickingFriction(static, kinetic, tangential_stiffness=tangential_stiffness,
                                tangential_damping=2.0 * np.sqrt(tangential_stiffness * mass))
    return IsotropicFriction(kinetic, static, slip_velocity=slip_velocity)


NO_FRICTION = AnisotropicFriction(0.0, 0.0, 0.0)


def isotropic_coefficients(owner, friction, where):
    """(kinetic, static, slip_velocity or None) of an isotropic friction law (None: no
    friction, (0, 0, None)); ValueError naming `owner`.friction for a law that the rigid and
    discrete contacts cannot follow (they are isotropic; `where` names the body kind)."""
    if friction is None:
        return 0.0, 0.0, None
    f = friction
    if not isinstance(f, AnisotropicFriction):
        raise ValueError(f"{owner}.friction = {friction!r} is not allowed on {where}: must be "
                         "sm.IsotropicFriction(kinetic, static, slip_velocity=...)")
    if (len({f.forward, f.backward, f.lateral}) > 1
            or len({f.static_forward, f.static_backward, f.static_lateral}) > 1
            or f.decomposition != "sign" or f.per_node or not f.rolling
            or f.regularization != "band"):
        raise ValueError(f"{owner}.friction = {friction!r} is not allowed on {where}: "
                         "its friction is isotropic (sm.IsotropicFriction(kinetic, static, "
                         "slip_velocity=...) with rolling True, decomposition 'sign', "
                         "per_node False, regularization 'band')")
    return float(f.forward), float(f.static_forward), float(f.slip_velocity)


IMPLICIT_SLIP_TOLERANCE = 1e-3
"""Slip tolerance [m/s] of an implicit contact without a friction law (the paper's default)."""


def implicit_coefficients(owner, friction, where):
    """(kinetic, static, slip_tolerance) of the implicit contacts (a discrete rod's or shell's
    GroundContact, EdgeContact; softmech.kernels.implicit_ground): an isotropic law whose
    static coefficient is 0 (the paper's one coefficient mu = kinetic) or >= kinetic (a static
    excess); static is returned as max(static, kinetic), the law the kernels follow. None: no
    friction, slip tolerance IMPLICIT_SLIP_TOLERANCE."""
    kinetic, static, slip = isotropic_coefficients(owner, friction, where)
    if 0.0 < static < kinetic:
        raise ValueError(f"{owner}.friction = {friction!r} is not allowed on {where}: "
                         f"static = {static!r} must be 0 (no static excess: the paper's one "
                         f"coefficient) or >= kinetic = {kinetic!r}")
    return kinetic, max(static, kinetic), IMPLICIT_SLIP_TOLERANCE if slip is None else slip


def one_coefficient_law(mu, slip_tolerance):
    """The friction law of the implicit contacts' older arguments, one coefficient mu [-] and
    a slip_tolerance [m/s] (None: IMPLICIT_SLIP_TOLERANCE): sm.IsotropicFriction(mu,
    slip_velocity=slip_tolerance), mu_s = mu_k = mu, the same law (arguments checked by the
    caller)."""
    slip = IMPLICIT_SLIP_TOLERANCE if slip_tolerance is None else slip_tolerance
    return IsotropicFriction(mu, slip_velocity=slip)


class GroundContact(BodyTerm):
    """Contact of a Cosserat rod, a rigid body or a discrete rod or shell with the plane
    through plane_point (3,) [m] with unit normal plane_normal (default: the ground z = 0), with
    friction (module docstring: the model and parameters of each kind).

    GroundContact(body, *, stiffness=None [N/m], damping=None, plane_point=(0, 0, 0),
    plane_normal=(0, 0, 1), friction=None, surface_tolerance=None [m], surface=None,
    distance=None [m], sharpness=None [1/m], name="ground"). None takes the kind's default: a
    rod's stiffness 1.0, damping 1e-6 kg/s, no friction, surface_tolerance 1e-4 m, surface
    False (the element centres, Gazzola et al. 2018; True: every point of the rod's surface,
    a penalty of stiffness k per element and depth load / k, softmech.kernels.surface_contact,
    which needs stiffness given and friction kinetic with rolling=False, or sticking:
    softmech.kernels.surface_sticking); a rigid body's damping 0
    and no friction; a discrete body's sharpness 15 / distance and no friction. Arguments the
    body's kind has no use for (a rod's surface_tolerance on a rigid body, a discrete body's
    distance on a rod, ...) raise, as does a missing required one."""

    section = "contact"
    kinds = (ROD, RIGID, DISCRETE)
    friction_type = AnisotropicFriction
    ONLY = {ROD: ("surface_tolerance", "surface"), RIGID: (), DISCRETE: ("distance", "sharpness")}
    """Arguments that only one kind takes."""

    def __init__(self, body, *, stiffness=None, damping=None, plane_point=(0.0, 0.0, 0.0),
                 plane_normal=(0.0, 0.0, 1.0), friction=None, surface_tolerance=None,
                 surface=None, distance=None, sharpness=None, name="ground"):
        self.name = name
        self._set_target(body)
        self.given = {key: optional(name, key, value, check) for key, value, check in (
            ("stiffness", stiffness, _checks.nonnegative), ("damping", damping, _checks.nonnegative),
            ("surface_tolerance", surface_tolerance, _checks.nonnegative),
            ("distance", distance, _checks.positive), ("sharpness", sharpness, _checks.positive))
            if value is not None}
        if surface is not None:
            self.given["surface"] = _checks.boolean(f"{name}.surface", surface)
        self.plane_point = _checks.finite(f"{name}.plane_point", plane_point, shape=(3,))
        self.plane_normal = _checks.unit_vector(f"{name}.plane_normal", plane_normal)
        if friction is not None and not isinstance(friction, (AnisotropicFriction,
                                                              StickingFriction)):
            raise ValueError(f"{name}.friction = {friction!r} is not allowed: must be an "
                             "sm.AnisotropicFriction (or sm.IsotropicFriction(...)), or, on "
                             "a Cosserat rod or a rigid body, an sm.StickingFriction(...)")
        self.given_friction = friction

    # ------------------------------------------------------------------ kinds and parameters
    def check_kind(self, kind):
        where = {ROD: "a Cosserat rod", RIGID: "a rigid body", DISCRETE: "a discrete rod or shell"}
        for other, keys in self.ONLY.items():
            for key in keys:
                if other != kind and key in self.given:
                    raise ValueError(f"{self.name}.{key} = {self.given[key]!r} is not allowed on "
                                     f"{where[kind]} ({self.target!r}): only {where[other]} "
                                     "takes it")
        g, friction = self.given, self.given_friction
        self.sticking = isinstance(friction, StickingFriction)
        if self.sticking and kind == DISCRETE:
            raise ValueError(f"{self.name}.friction = {friction!r} is not allowed on "
                             f"{where[kind]} ({self.target!r}): sticking friction is supported "
                             "on a Cosserat rod's or a rigid body's plane contact (and "
                             "RodBodyContact) only")
        if kind == ROD:
            self.stiffness, self.damping = g.get("stiffness", 1.0), g.get("damping", 1e-6)
            self.surface_tolerance = g.get("surface_tolerance", 1e-4)
            # sticking: the wall kernel runs without friction, the stick spring after it
            self.friction = NO_FRICTION if friction is None or self.sticking else friction
            self.surface = g.get("surface", False)
            if self.surface:
                self._check_surface()
            elif self.friction.regularization != "band":
                raise ValueError(f"{self.name}.friction.regularization = "
                                 f"{self.friction.regularization!r} is not allowed on the "
                                 f"element-centre contact ({self.target!r}): the mollified law "
                                 "acts on the rod's surface contact (surface=True)")
            return
        for key in ("stiffness",) + (("distance",) if kind == DISCRETE else ()):
            if key not in g:
                raise ValueError(f"{self.name}.{key} is missing: the contact of "
                                 f"{where[kind]} ({self.target!r}) needs it (> 0)")
            if g[key] <= 0:
                raise ValueError(f"{self.name}.{key} = {g[key]!r} is not allowed on "
                                 f"{where[kind]} ({self.target!r}): must be > 0")
        self.stiffness = g["stiffness"]
        if self.sticking:
            self.damping = g.get("damping", 0.0)
            self.kinetic, self.static = friction.kinetic, friction.static
            return
        if kind == DISCRETE:
            if "damping" in g:
                raise ValueError(f"{self.name}.damping = {g['damping']!r} is not allowed on "
                                 f"{where[kind]} ({self.target!r}): its contact has no damping")
            self.kinetic, self.static, self.slip_tolerance = implicit_coefficients(
                self.name, friction, where[kind])
            self.distance = g["distance"]
            self.sharpness = g.get("sharpness", 15.0 / self.distance)
            return
        kinetic, static, slip = isotropic_coefficients(self.name, friction, where[kind])
        if kind == RIGID:
            self.damping = g.get("damping", 0.0)
            self.kinetic, self.static = kinetic, static
            self.slip_velocity = 1e-4 if slip is None else slip

    def _check_surface(self):
        """surface=True: a penalty that needs its stiffness, and friction at the nodes, kinetic
        or sticking (a node has no frame to roll with; no static pass of the regularized law):
        refuse what it would ignore."""
        f, g = self.friction, self.given
        if "stiffness" not in g or g["stiffness"] <= 0:
            raise ValueError(f"{self.name}.stiffness = {g.get('stiffness')!r} is not allowed with "
                             f"surface=True ({self.target!r}): give the penalty stiffness per "
                             "element (> 0) [N/m]; an element's load W sinks it by W / stiffness")
        if "surface_tolerance" in g:
            raise ValueError(f"{self.name}.surface_tolerance = {g['surface_tolerance']!r} is not "
                             "allowed with surface=True: the surface contact starts at zero "
                             "penetration")
        if f.rolling or f.per_node or (f.static_forward, f.static_backward,
                                       f.static_lateral) != (0.0, 0.0, 0.0):
            if f != NO_FRICTION:
                raise ValueError(f"{self.name}.friction = {f!r} is not allowed with surface=True: "
                                 "the surface contact's friction is kinetic, on each node's "
                                 "velocity (static coefficients 0, rolling=False, per_node=False)")

    def parameters(self):
        kind = self._resolved()
        if kind == RIGID and self.sticking:
            return {**{k: np.array([getattr(self, k)]) for k in (
                "stiffness", "damping", "static", "kinetic")},
                **{k: np.array([getattr(self.given_friction, k)]) for k in STICK_FIELDS}}
        if kind == RIGID:
            return {k: np.array([getattr(self, k)]) for k in (
                "stiffness", "damping", "static", "kinetic", "slip_velocity")}
        if kind == DISCRETE:
            return {k: np.array([getattr(self, k)]) for k in ("stiffness", "static", "kinetic")}
        f = self.friction
        plane = {"stiffness": np.array([self.stiffness]), "damping": np.array([self.damping]),
                 "plane_point": self.plane_point[None].copy(),
                 "plane_normal": self.plane_normal[None].copy()}
        if self.sticking:
            s = self.given_friction
            return {**plane, "static": np.array([s.static]), "kinetic": np.array([s.kinetic]),
                    **{k: np.array([getattr(s, k)]) for k in STICK_FIELDS}}
        return {**plane,
                "kinetic": np.array([[f.forward, f.backward, f.lateral]]),
                "static": np.array([[f.static_forward, f.static_backward, f.static_lateral]]),
                "slip_velocity": np.array([f.slip_velocity])}

    # ------------------------------------------------------------------ the parts
    def contribute_cosserat_rod(self, ctx, p):
        ctx.rod(self.rod, self.name)
        B = ctx.worlds
        normal = p["plane_normal"] / np.linalg.norm(p["plane_normal"], axis=1, keepdims=True)
        if self.surface:
            self._contribute_surface(ctx, p, normal)
            return
        prm = np.zeros((B, N_CONTACT_PARAMS))
        prm[:, 0:3] = p["plane_point"]
        prm[:, 3:6] = normal
        prm[:, 6] = p["stiffness"]
        prm[:, 7] = p["damping"]
        sticking = None
        if self.sticking:   # the wall kernel without friction (v_eps 1: any positive value)
            check_rod(self.name, ctx.rods[ctx.rod_index[self.rod]])
            rows = sticking_rows(self.name, p)
            plane = np.concatenate([prm[:, 0:6], np.full((B, 1), self.surface_tolerance)], axis=1)
            sticking = (self.name, plane, rows)
            prm[:, 14] = 1.0
            # the stick spring on the lightest node, as a penalty spring: dt < 2 sqrt(m / k_t)
            m = ctx.discrete[self.rod]["node_mass"].min()
            ctx.time_step_limits.append(spring_time_step(m, p["tangential_stiffness"],
                                                         p["tangential_damping"]))
        else:
            prm[:, 8:11] = p["kinetic"]
            prm[:, 11:14] = p["static"]
            prm[:, 14] = p["slip_velocity"]
        prm[:, 15] = self.surface_tolerance
        if np.any(prm[:, 14] <= 0) or np.any(prm[:, 6:14] < 0):
            raise ValueError(f"params of {self.name}: stiffness, damping and friction coefficients "
                             "must be >= 0 and slip_velocity > 0")
        # the wall's spring and dashpot per element, half on each node: as the surface's
        rod = ctx.rods[ctx.rod_index[self.rod]]
        ctx.time_step_limits.append(surface_time_step_limit(
            ctx.discrete[self.rod]["node_mass"], rod.closed, p["stiffness"], p["damping"]))
        flags = (int(self.friction.rolling), DECOMPOSITIONS[self.friction.decomposition],
                 int(self.friction.per_node))
        ctx.part(GroundContacts).add(ctx.rod_index[self.rod], prm, flags, sticking)

    def _contribute_surface(self, ctx, p, normal):
        """surface=True: the rod's surface against the plane (softmech.terms.surface_contact)."""
        prm = np.zeros((ctx.worlds, N_SURFACE_PARAMS))
        prm[:, 0:3] = p["plane_point"]
        prm[:, 3:6] = normal
        prm[:, 6] = p["stiffness"]
        prm[:, 7] = p["damping"]
        rod = ctx.rod(self.rod, self.name)
        sticking = None
        if self.sticking:   # the penalty kernel without friction (slip velocity 1: any > 0)
            check_rod(self.name, rod)
            sticking = (self.name, prm[:, 0:6].copy(), sticking_rows(self.name, p))
            prm[:, 11] = 1.0
            # the stick spring on the lightest node (k_t / 2 on an open rod's end node), as
            # the penalty's: dt < 2 sqrt(m / k_t), halved
            ctx.time_step_limits.append(surface_time_step_limit(
                ctx.discrete[rod.name]["node_mass"], rod.closed, p["tangential_stiffness"],
                p["tangential_damping"]))
        else:
            prm[:, 8:11] = p["kinetic"]
            prm[:, 11] = p["slip_velocity"]
            if np.any(p["static"] != 0):
                raise ValueError(f"params['{self.name}.static'] has entries != 0: the surface "
                                 "contact's regularized friction is kinetic only (sticking: "
                                 "sm.StickingFriction)")
        if np.any(prm[:, 6] <= 0) or np.any(prm[:, 7:11] < 0) or np.any(prm[:, 11] <= 0):
            raise ValueError(f"params of {self.name}: stiffness and slip_velocity must be > 0, "
                             "damping and friction coefficients >= 0")
        ctx.part(SurfaceContacts).add(ctx.rod_index[self.rod], prm,
                                      self.friction.decomposition == "unit", sticking,
                                      self.friction.regularization == "mollified")
        ctx.time_step_limits.append(surface_time_step_limit(
            ctx.discrete[rod.name]["node_mass"], rod.closed, prm[:, 6], prm[:, 7]))

    def contribute_rigid_body(self, ctx, p):
        body = ctx.rigid_body(self.body, self.name)
        if body.contact is None:
            raise ValueError(f"{self.name}.body = {self.body!r} is not allowed: a general body "
                             f"needs a mesh (vertices, faces) to touch the ground")
        plane = np.concatenate([self.plane_point, self.plane_normal])
        mass = ctx.rigid_params[body.name]["mass"]
        if self.sticking:
            params = sticking_rows(self.name, p)
            ctx.part(RigidGroundContacts).add(body, plane, params, sticking=True)
            # the stick spring on the body's mass, as the normal one below
            ctx.time_step_limits.append(spring_time_step(mass, p["tangential_stiffness"],
                                                         p["tangential_damping"]))
        else:
            for k in ("stiffness", "slip_velocity"):
                if np.any(p[k] <= 0):
                    raise ValueError(f"params['{self.name}.{k}'] has entries <= 0 (must be > 0)")
            params = np.stack([p["stiffness"], p["damping"], p["static"], p["kinetic"],
                               p["slip_velocity"]], axis=1)
            ctx.part(RigidGroundContacts).add(body, plane, params)
        # a contact spring and dashpot on the body's mass (explicit stability, halved)
        ctx.time_step_limits.append(spring_time_step(mass, p["stiffness"], p["damping"]))

    def contribute_discrete(self, ctx, p):
        """A discrete rod or hinge shell in the unified engine: its part
        (softmech.terms.der_ground)."""
        name = self.implicit_body
        body = ctx.der_index.get(name, ctx.der_shell_index.get(name))
        if body is None:
            raise ValueError(f"{self.name}.body = {self.target!r} is not allowed in the unified "
                             "engine: it is not one of its discrete rods or shells")
        ctx.part(DerGroundContacts).add(self, body, p)

    def bind_implicit(self, ctx):
        """The discrete body's smooth contact: one binding on its nodes."""
        if self._resolved() != DISCRETE:
            raise ValueError(f"{self.name}.body = {self.target!r} is not allowed in a scene of "
                             "discrete rods and shells: it is not one")
        body = ctx.body(self.name, self.implicit_body)
        return [GroundBinding(self, ctx.layout.node_dof(body.nodes), ctx)]


class GroundContacts(Part):
    """All rod-plane contacts of a scene in one kernel call: per entry the rod index, the
    parameters (B, N_CONTACT_PARAMS), the flags (rolling, unit decomposition, per node) and,
    with sticking friction, (name, plane (B, 7), rows (B, N_STICK_PARAMS)) for its calls
    (softmech.terms.rod_ground_sticking), else None."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def add(self, rod_index, params, flags, sticking=None):
        self.entries.append((rod_index, params, flags, sticking))

    def calls(self, engine):
        """One call per run of consecutive entries with the same variant (softmech.kernels.
        contact.VARIANTS): a scene compiles only the variants it uses, and the entries keep
        their order (each contact reads the total force, including the contacts before it).
        An entry with sticking friction is a run of its own, followed by its friction's calls
        (they read the normal force its wall call leaves in contact_normal)."""
        n_e = engine.slots.n_elems * engine.lanes.W
        scratch = dict(contact_normal=engine.zeros(n_e), contact_slip=engine.zeros(2, n_e),
                       contact_axial=engine.zeros(6, n_e))
        params = engine.elem_table([(e[0], e[1][:, None, :]) for e in self.entries],
                                   N_CONTACT_PARAMS)
        flags = self._flags(engine)
        variant = [(bool(f[FLAG_UNIT_DECOMPOSITION]), bool(f[FLAG_PER_NODE]), bool(f[FLAG_UNIFORM]))
                   for f in flags]
        calls, start = [], 0
        for stop in range(1, len(self.entries) + 1):
            if (stop < len(self.entries) and variant[stop] == variant[start]
                    and self.entries[start][3] is None and self.entries[stop][3] is None):
                continue
            group = slice(start, stop)
            per_entry = {name: engine.zeros(stop - start, 3, n_e) for name in
                         ("contact_force", "contact_force_diff", "contact_force_static")}
            args = engine.args(
                GroundContactArgs, contact_rod=np.array([e[0] for e in self.entries[group]], dtype=np.int64),
                contact_param=params[:, group], contact_flags=flags[group], **scratch, **per_entry)
            calls.append(Call("forces", ORDER, VARIANTS[variant[start]], args, "ground_contacts"))
            rod_index, _, _, sticking = self.entries[start]
            if sticking is not None:
                name, plane, rows = sticking
                calls += sticking_calls(engine, name, rod_index, plane, rows,
                                        scratch["contact_normal"], ORDER)
            start = stop
        return calls

    def _flags(self, engine):
        """(n_contacts, N_CONTACT_FLAGS) int64: the term's flags, then FLAG_UNIFORM = 1 when the
        contact's parameters are bitwise the same in every world and its rod's body acceleration
        the same on every node slot: the kernel then reads them as scalars."""
        lanes, slots = engine.lanes, engine.slots
        body_acc = engine.bodies.node_body_acc
        out = np.zeros((len(self.entries), N_CONTACT_FLAGS), dtype=np.int64)
        for i, (rod_index, prm, flags, _) in enumerate(self.entries):
            rod = engine.rods[rod_index]
            out[i, :len(flags)] = flags
            n0 = slots.node[rod.name] * lanes.W
            g = body_acc[:, :, n0:n0 + (rod.n_elems + 1) * lanes.W]
            out[i, FLAG_UNIFORM] = int(_bitwise_uniform(np.asarray(prm, dtype=float))
                                       and _bitwise_uniform(np.moveaxis(g, 1, 2).reshape(-1, 3)))
        return out


def node_forces(engine):
    """Ground-contact force on every node slot [N], block layout (n_blocks, 3, n_nodes*W), from
    the element forces the contact kernels kept in their scratch during the last force
    evaluation (both passes, every entry): each element's force split between its two nodes as
    the kernel does (kernels.contact.scatter_to_nodes), a closed rod's last element ending on
    node 0, and the friction that sticks (softmech.terms.rod_ground_sticking). Zero where no
    contact acts."""
    W = engine.lanes.W
    out = np.zeros_like(engine.workspace.node_force)
    for call in engine.calls:
        if call.name == "rod_ground_sticking":
            add_node_forces(call, out, W)
        if call.name != "ground_contacts":
            continue
        a = call.args
        for i, r in enumerate(a.contact_rod):
            e0, n0 = a.rod_elem_off[r] * W, a.rod_node_off[r] * W
            ne, closed = a.rod_n_elems[r] * W, a.rod_closed[r]
            d = a.contact_force_diff[:, i, :, e0:e0 + ne] * a.contact_flags[i, FLAG_PER_NODE]
            for f, dd in ((a.contact_force[:, i, :, e0:e0 + ne], d),
                          (a.contact_force_static[:, i, :, e0:e0 + ne], 0.0 * d)):
                add_element_ends(out, n0, ne, W, closed, 0.5 * (f + dd), 0.5 * (f - dd))
    return out


def _bitwise_uniform(rows):
    """True if every row of a 2-D float array equals the first bit for bit (0.0 differs from -0.0)."""
    bits = np.ascontiguousarray(rows).view(np.uint64)
    return bool(np.all(bits == bits[:1]))
