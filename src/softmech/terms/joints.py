"""Joints between rods and rigid bodies as soft constraints (kernel and equations:
softmech.kernels.joints; Zhang et al. 2019, Methods eqs. 5-6).

An end point is written (body, where):
  * a rod: where = "first", "last" or a node index; the end carries the frame of the element
    next to that node (element i for node i, the last element for the last node: `rod_end`);
    (rod, where, offset) puts the end at the point x_i + Q_e^T offset, offset (3,) [m] given in
    that element's material frame (components along d1, d2, d3): the joint's force acts there
    and puts the torque (Q_e^T offset) x F on the element (how a muscle rod is glued to a body
    at a lateral distance from its centreline, the muscular snake's r / 2);
  * a rigid body: where = a point (3,) [m] in the body's own frame about its centre of mass
    (default: the centre), or "attach": the point of the body that coincides with the other
    end's initial position (how a muscle or tendon rides on a bone).

    SphericalJoint(a, b, stiffness, damping=0, reaction="force")
    HingeJoint(a, b, axis, stiffness, damping=0, rotational_stiffness, rotational_damping=0,
               limits=None, limit_stiffness=None, limit_damping=0)   (stops: terms.joint_stops)
    FixedJoint(a, b, stiffness, damping=0, rotational_stiffness, rotational_damping=0,
               rest_axis=None, rest_angle=0)

Per-world parameters `<name>.stiffness` [N/m], `.damping` [N s/m], `.rotational_stiffness`
[N m/rad], `.rotational_damping` [N m s/rad], shape (B,). The ends must coincide initially
(within 1e-3 of the smaller body's length scale): a joint holds bodies together, it does not
pull them together.

A spherical joint can also be one-way glue (the muscle rods of Zhang et al.'s code, which load
the body through couples only): reaction="couple" gives end a the moment of the force about its
node (or centre) instead of the force, reaction="none" gives it nothing. Both break Newton's
third law on purpose (softmech.kernels.joints).
"""
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.joints import (
    END_RIGID_POINT,
    END_ROD_NODE,
    FIXED,
    HINGE,
    N_JOINT_PARAMS,
    REACTION_COUPLE,
    REACTION_FORCE,
    REACTION_NONE,
    SPHERICAL,
    JointsArgs,
    joints,
)
from softmech.packing import lane_table
from softmech.stability import element_rotational_stiffness, spring_time_step
from softmech.terms.base import Part, Term
from softmech.terms.joint_stops import add_stop, limit_arguments, rotation_limit

ORDER = 50
"""Place in the force pass: after the prescribed loads and muscles, before ground contact."""

GAP_TOLERANCE = 1e-3
"""Largest initial distance between the two ends, relative to the length scale of the smaller
body (a rod's end element, a rigid body's size)."""


@dataclass
class End:
    """A resolved end point: kind (END_ROD_NODE / END_RIGID_POINT), engine slot, frame slot
    (element slot of a rod end, body slot of a rigid one), offset (principal frame) [m], lab
    position [m] and frame (3, 3) at build time, length scale [m], mass [kg] (B,), moments
    of inertia about the frame's axes [kg m^2] (B, 3), and the body's own restoring stiffness
    of the end's translation [N/m] (B,) and rotation about the frame's axes [N m/rad] (B, 3)
    (a rod node's stretch and shear, its element's bending, twist and shear; 0 on a rigid
    body) (stability limits: softmech.terms.joint_stops.rotation_limit)."""
    kind: int
    slot: int
    frame_slot: int
    offset: np.ndarray
    position: np.ndarray
    frame: np.ndarray
    scale: float
    mass: np.ndarray
    inertia: np.ndarray
    own_stiffness: np.ndarray = 0.0
    own_rotational_stiffness: np.ndarray = 0.0    # (B, 3), or 0 (a rigid body)


MAX_ROD_OFFSET = 10.0
"""Largest rod end offset, in units of the rod's largest radius: a glue point is near the rod's
surface, not a lever arm across the scene."""


def _spec(owner, field, spec):
    """(body name, where) of an end spec, and its offset (3,) [m] or None (rod ends only)."""
    if isinstance(spec, str) or getattr(spec, "name", None) is not None:
        return (getattr(spec, "name", spec), None), None
    if isinstance(spec, (tuple, list)) and len(spec) in (2, 3) and isinstance(
            getattr(spec[0], "name", spec[0]), str):
        offset = None
        if len(spec) == 3:
            if isinstance(spec[1], str) and spec[1] not in ("first", "last"):
                raise ValueError(f"{owner}.{field} = {spec!r} is not allowed: an offset (third "
                                 f"entry) is for a rod end (rod, node, offset (3,) [m])")
            offset = _checks.finite(f"{owner}.{field} offset", spec[2], shape=(3,))
        return (getattr(spec[0], "name", spec[0]), spec[1]), offset
    raise ValueError(f"{owner}.{field} = {spec!r} is not allowed: must be (rod, 'first' | 'last' | "
                     f"node index[, offset (3,) in the element frame]) or (rigid body, point (3,) | "
                     f"'attach') or a rigid body's name")


def rod_node(owner, field, rod, where):
    """Node index of `where` ('first', 'last' or an index, negative from the end) on rod `rod`."""
    n = rod.n_nodes
    if where in ("first", "last"):
        return 0 if where == "first" else n - 1
    if isinstance(where, (int, np.integer)) and not isinstance(where, bool) and -n <= where < n:
        return int(where) % n
    raise ValueError(f"{owner}.{field} node = {where!r} is not allowed: must be 'first', 'last' "
                     f"or a node index in [0, {n - 1}] of rod {rod.name!r}")


def rigid_point(owner, field, body, where, other_position):
    """Point (3,) [m] of a rigid body in its user frame about its centre of mass: `where` (3,),
    None for the centre, 'attach' for the point at `other_position` (3,) [m] (lab frame)."""
    if where is None:
        return np.zeros(3)
    if isinstance(where, str):
        if where != "attach" or other_position is None:
            raise ValueError(f"{owner}.{field} point = {where!r} is not allowed: must be a point "
                             f"(3,) in the body frame, or 'attach' with a rod end on the other side")
        return body.directors @ (other_position - body.position)
    return _checks.finite(f"{owner}.{field} point", where, shape=(3,))


def rod_offset(owner, field, rod, offset):
    """The offset (3,) [m] of a rod end (element frame), zeros for None; at most MAX_ROD_OFFSET
    x the rod's largest radius long."""
    if offset is None:
        return np.zeros(3)
    limit = MAX_ROD_OFFSET * float(np.max(rod.radius))
    if not np.linalg.norm(offset) <= limit:
        raise ValueError(f"{owner}.{field} offset = {list(offset)} is not allowed: its length "
                         f"{np.linalg.norm(offset):.3g} m must be <= {limit:.3g} m "
                         f"({MAX_ROD_OFFSET:g} x the largest radius of rod {rod.name!r})")
    return np.asarray(offset, dtype=float)


def rod_end(ctx, owner, field, rod, where, offset=None):
    """End of a rod at node `where` ('first', 'last' or index): the node's slot and the slot of
    the element whose frame it carries (element i, or the last element for the last node);
    offset (3,) [m] in that element's frame (None: the node itself)."""
    node = rod_node(owner, field, rod, where)
    elem = min(node, rod.n_elems - 1)
    r = rod_offset(owner, field, rod, offset)
    d = ctx.discrete[rod.name]
    return End(END_ROD_NODE, ctx.node_offset[rod.name] + node, ctx.elem_offset[rod.name] + elem,
               r, rod.positions[node] + rod.directors[elem].T @ r, rod.directors[elem],
               float(rod.rest_lengths[elem]), d["node_mass"][:, node], d["elem_J"][:, elem],
               d["elem_S"][:, elem].min(axis=1) / rod.rest_lengths[elem],
               own_rotational_stiffness(d, rod)[:, elem])


def own_rotational_stiffness(discrete, rod):
    """The rod's element_rotational_stiffness (B, n, 3) [N m/rad], computed once per assembly
    and kept in its discrete properties (a scene may join thousands of ends to one rod's
    elements; the wing: 5,600 ends)."""
    if "elem_K_rot" not in discrete:
        discrete["elem_K_rot"] = element_rotational_stiffness(rod, discrete)
    return discrete["elem_K_rot"]


def rigid_end(ctx, owner, field, body, where, other_position):
    """Point of a rigid body: `where` (3,) in its frame, None for the centre, 'attach' for the
    point at `other_position`."""
    offset_user = rigid_point(owner, field, body, where, other_position)
    scale = max((float(np.max(v)) for v in body.size.values()), default=1.0)
    params = ctx.rigid_params[body.name]
    mass = np.full(ctx.worlds, np.inf) if body.fixed else params["mass"]
    inertia = np.full((ctx.worlds, 3), np.inf) if body.fixed else params["inertia"]
    return End(END_RIGID_POINT, ctx.rigid_index[body.name], ctx.rigid_index[body.name],
               body.to_principal(offset_user), body.position + body.directors.T @ offset_user,
               body.principal_directors, scale, mass, inertia)


KIND_NAMES = {SPHERICAL: "spherical", HINGE: "hinge", FIXED: "fixed"}
"""Joint kind (kernel constant) -> its name in results files."""

REACTIONS = {"force": REACTION_FORCE, "couple": REACTION_COUPLE, "none": REACTION_NONE}
"""SphericalJoint's reaction -> what end a receives (kernel constant)."""


class Joints(Part):
    """All joints of a scene in one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        # (kind, End a, End b, axes (2, 3), rest (9,), params (B, 4), reaction (REACTIONS))
        self.entries = []

    def calls(self, engine):
        e = self.entries
        n = len(e)
        ends = lambda attr, dtype: np.array([[getattr(x[1], attr), getattr(x[2], attr)] for x in e],
                                            dtype=dtype).reshape((n, 2) + ((3,) if attr == "offset" else ()))
        args = engine.args(
            JointsArgs, joint_kind=np.array([x[0] for x in e], dtype=np.int64),
            joint_end_kind=ends("kind", np.int64), joint_end_slot=ends("slot", np.int64),
            joint_end_frame=ends("frame_slot", np.int64), joint_offset=ends("offset", float),
            joint_axis=np.array([x[3] for x in e]).reshape(n, 2, 3),
            joint_rest=np.array([x[4] for x in e]).reshape(n, 9),
            joint_reaction=np.array([x[6] for x in e], dtype=np.int64),
            joint_params=lane_table([x[5] for x in e], engine.lanes, N_JOINT_PARAMS),
            joint_force=np.zeros((engine.lanes.n_blocks, 3, n * engine.lanes.W)))
        return [Call("forces", ORDER, joints, args, "joints")]


class _Joint(Term):
    section = "joints"
    kind = SPHERICAL
    reaction = "force"

    def __init__(self, a, b, *, stiffness, damping=0.0, rotational_stiffness=0.0,
                 rotational_damping=0.0, axis=None, limits=None, name):
        self.name = name
        self.limits = limits     # validated (lower, upper, k_s, c_s) or None (hinges only)
        self.a, self.a_offset = _spec(name, "a", a)
        self.b, self.b_offset = _spec(name, "b", b)
        self.stiffness = float(_checks.positive(f"{name}.stiffness", stiffness, shape=()))
        self.damping = float(_checks.nonnegative(f"{name}.damping", damping, shape=()))
        self.rotational_stiffness = float(_checks.nonnegative(f"{name}.rotational_stiffness",
                                                              rotational_stiffness, shape=()))
        self.rotational_damping = float(_checks.nonnegative(f"{name}.rotational_damping",
                                                            rotational_damping, shape=()))
        if self.kind != SPHERICAL and self.rotational_stiffness <= 0:
            raise ValueError(f"{name}.rotational_stiffness = {rotational_stiffness!r} is not "
                             f"allowed: must be > 0 for a {type(self).__name__}")
        self.axis = None if axis is None else _checks.unit_vector(f"{name}.axis", axis)
        if self.a == self.b and np.array_equal(self.a_offset, self.b_offset):
            raise ValueError(f"{name}: a = b = {self.a!r} is not allowed: a joint needs two "
                             f"different end points")

    def bodies(self):
        """Names of the two bodies (for the scene's checks)."""
        return self.a[0], self.b[0]

    def parameters(self):
        out = {k: np.array([getattr(self, k)]) for k in (
            "stiffness", "damping", "rotational_stiffness", "rotational_damping")}
        if self.limits is not None:
            out.update(zip(("lower", "upper", "limit_stiffness", "limit_damping"),
                           (np.array([v]) for v in self.limits)))
        return out

    def _end(self, ctx, field, spec, other_position=None):
        name, where = spec
        offset = getattr(self, f"{field}_offset")
        if name in ctx.rod_index:       # a dict lookup: a scene has thousands of joints (wing)
            if where is None:
                raise ValueError(f"{self.name}.{field} = {name!r} is not allowed: say which node "
                                 f"of the rod: ({name!r}, 'first' | 'last' | index)")
            return rod_end(ctx, self.name, field, ctx.rods[ctx.rod_index[name]], where, offset)
        if offset is not None:
            raise ValueError(f"{self.name}.{field} = {spec!r} with an offset is not allowed: "
                             f"{name!r} is not a rod (a rigid body's point is its second entry)")
        if name in ctx.rigid_index:
            return rigid_end(ctx, self.name, field, ctx.rigid_bodies[ctx.rigid_index[name]],
                             where, other_position)
        raise ValueError(f"{self.name}.{field} = {name!r} is not allowed: no such rod or rigid "
                         f"body in the scene (bodies: "
                         f"{sorted(list(ctx.rod_index) + list(ctx.rigid_index))})")

    def describe(self, rods, rigid_bodies):
        """Where the joint is, for pictures and results files (/joints/<name>): kind
        ('spherical', 'hinge' or 'fixed') and its ends a and b, each {body (name), node (rod
        node index, or -1 on a rigid body), point (3,) [m] (on a rigid body: in its user frame
        about its centre of mass; zeros on a rod)}. rods, rigid_bodies: lists, or dicts by
        name (a caller describing many joints builds them once). On a rod, point is the end's
        offset in its element frame (zeros for the node itself)."""
        rods = rods if isinstance(rods, dict) else {r.name: r for r in rods}
        bodies = rigid_bodies if isinstance(rigid_bodies, dict) else {b.name: b for b in rigid_bodies}

        def end(field, spec, other_position=None):
            name, where = spec
            if name in rods:
                rod = rods[name]
                node = rod_node(self.name, field, rod, where)
                r = rod_offset(self.name, field, rod, getattr(self, f"{field}_offset"))
                position = rod.positions[node] + rod.directors[min(node, rod.n_elems - 1)].T @ r
                return {"body": name, "node": node, "point": r}, position
            if name not in bodies:
                raise ValueError(f"{self.name}.{field} = {name!r} is not allowed: no such rod or "
                                 f"rigid body (bodies: {sorted(list(rods) + list(bodies))})")
            body = bodies[name]
            point = rigid_point(self.name, field, body, where, other_position)
            return {"body": name, "node": -1, "point": point}, body.position + body.directors.T @ point

        first, second = ("b", "a") if self._a_attaches() else ("a", "b")
        specs = {"a": self.a, "b": self.b}
        out, position = {}, None
        for field in (first, second):       # an 'attach' end is placed at the other end
            out[field], position = end(field, specs[field], position)
        return {"kind": KIND_NAMES[self.kind], "a": out["a"], "b": out["b"]}

    def _rest_frame(self, frame):
        """b's rest frame (3, 3) given its start frame: the start's (FixedJoint may turn it)."""
        return frame

    def _a_attaches(self):
        """Whether end a is a rigid body's 'attach' point (its `where` may be a point (3,), an
        array: compared as a string only when it is one)."""
        return isinstance(self.a[1], str) and self.a[1] == "attach"

    def contribute(self, ctx, p):
        if np.any(p["stiffness"] <= 0):
            raise ValueError(f"params['{self.name}.stiffness'] has entries <= 0 (must be > 0)")
        a_is_attach = self._a_attaches()
        first = self._end(ctx, "b" if a_is_attach else "a", self.b if a_is_attach else self.a)
        second = self._end(ctx, "a" if a_is_attach else "b", self.a if a_is_attach else self.b,
                           first.position)
        a, b = (second, first) if a_is_attach else (first, second)
        if a.kind == b.kind == END_RIGID_POINT and a.slot == b.slot:
            raise ValueError(f"{self.name}: a and b are points of the same rigid body "
                             f"{self.a[0]!r}: a joint needs two bodies")
        gap = float(np.linalg.norm(a.position - b.position))
        scale = min(a.scale, b.scale)
        if gap > GAP_TOLERANCE * scale:
            raise ValueError(f"{self.name}: the ends are {gap:.3g} m apart at the start (allowed: "
                             f"{GAP_TOLERANCE * scale:.3g} m); place the bodies so that they meet")
        axes = np.zeros((2, 3))
        if self.kind == HINGE:
            axes = np.array([a.frame @ self.axis, b.frame @ self.axis])
        rest = (self._rest_frame(b.frame) @ a.frame.T).ravel()   # B's rest frame = R0 A's frame
        params = np.stack([p["stiffness"], p["damping"], p["rotational_stiffness"],
                           p["rotational_damping"]], axis=1)
        ctx.part(Joints).entries.append((self.kind, a, b, axes, rest, params,
                                         REACTIONS[self.reaction]))
        if self.limits is not None:
            add_stop(ctx, self.name, a, b, self.axis, p)
        # explicit stability: the spring k and dashpot c on either end (spring_time_step; the
        # lighter end's limit is the lesser), the rotational ones about each end's axes
        ctx.time_step_limits.append(np.minimum(*(
            spring_time_step(end.mass, p["stiffness"], p["damping"], end.own_stiffness)
            for end in (a, b))))
        if self.kind != SPHERICAL:
            ctx.time_step_limits.append(np.minimum(*(
                rotation_limit(end, p["rotational_stiffness"], p["rotational_damping"])
                for end in (a, b))))


class SphericalJoint(_Joint):
    """Ends a and b held together by a spring (stiffness [N/m], damping [N s/m]); free relative
    rotation (Zhang et al. 2019 eq. 5).

    One-way glue (module docstring): reaction "force" (default: a receives the opposite force),
    "couple" (a receives only its moment about a's node or centre) or "none" (a receives
    nothing)."""

    kind = SPHERICAL

    def __init__(self, a, b, *, stiffness, damping=0.0, reaction="force",
                 name="spherical_joint"):
        super().__init__(a, b, stiffness=stiffness, damping=damping, name=name)
        self.reaction = _checks.choice(f"{name}.reaction", reaction, set(REACTIONS))


class HingeJoint(_Joint):
    """A spherical joint whose rotation is confined to the axis (3,) (lab frame at the start):
    a rotational spring (rotational_stiffness [N m/rad], rotational_damping [N m s/rad]) keeps
    the axis carried by a's frame aligned with the one carried by b's frame.

    limits=(lower, upper) [rad] bound the hinge angle (zero at the start, positive for a
    right-handed turn of b relative to a about the axis) with a one-sided torsional spring
    limit_stiffness [N m/rad] and dashpot limit_damping [N m s/rad] (softmech.terms.joint_stops;
    an elbow that must not hyperextend)."""

    kind = HINGE

    def __init__(self, a, b, *, axis, stiffness, rotational_stiffness, damping=0.0,
                 rotational_damping=0.0, limits=None, limit_stiffness=None, limit_damping=0.0,
                 name="hinge_joint"):
        super().__init__(a, b, stiffness=stiffness, damping=damping, axis=axis,
                         rotational_stiffness=rotational_stiffness,
                         rotational_damping=rotational_damping,
                         limits=limit_arguments(name, limits, limit_stiffness, limit_damping),
                         name=name)


class FixedJoint(_Joint):
    """A spherical joint that also holds the relative orientation of a's and b's frames
    (rotational_stiffness [N m/rad], rotational_damping [N m s/rad]) at its initial value, or,
    with rest_angle [rad] (|rest_angle| <= pi) about rest_axis (3,) (lab frame at the start),
    at the orientation b would have if it were turned by rest_angle (right-handed) about that
    axis from its start: a ligament whose rest angle is not the start pose's (a bird's elbow
    starting straight, its ligaments' rest flexed). The spring pulls b towards that orientation
    from the first step."""

    kind = FIXED

    def __init__(self, a, b, *, stiffness, rotational_stiffness, damping=0.0,
                 rotational_damping=0.0, rest_axis=None, rest_angle=0.0, name="fixed_joint"):
        super().__init__(a, b, stiffness=stiffness, damping=damping,
                         rotational_stiffness=rotational_stiffness,
                         rotational_damping=rotational_damping, name=name)
        self.rest_angle = float(_checks.finite(f"{name}.rest_angle", rest_angle, shape=()))
        if abs(self.rest_angle) > np.pi:
            raise ValueError(f"{name}.rest_angle = {rest_angle!r} rad is not allowed: must be "
                             f"within [-pi, pi] rad")
        if rest_axis is None and self.rest_angle != 0.0:
            raise ValueError(f"{name}.rest_axis = None is not allowed with rest_angle = "
                             f"{rest_angle!r}: say the axis (3,) the rest turn is about")
        self.rest_axis = None if rest_axis is None else _checks.unit_vector(f"{name}.rest_axis",
                                                                            rest_axis)

    def _rest_frame(self, frame):
        """b's rest frame (3, 3) (rows: directors, lab frame) from its start frame: turned by
        rest_angle about rest_axis (the directors d -> R d, so the rows frame -> frame R^T)."""
        if self.rest_angle == 0.0:
            return frame
        return frame @ Rotation.from_rotvec(self.rest_angle * self.rest_axis).as_matrix().T


def joint_forces(engine):
    """Force on the b end of every joint [N], (n_blocks, 3, n_joints*W), from the last force
    evaluation (softmech.simulation.Simulation.joint_forces)."""
    return engine.call_args("joints").joint_force


JOINT_TYPES = (SphericalJoint, HingeJoint, FixedJoint)
"""Every joint type (each has describe(rods, rigid_bodies))."""
