"""Contact between rods and rigid spheres, cylinders and boxes, with optional Coulomb friction;
kernel and equations in softmech.kernels.rod_body_contact (the rod-rod law of Zhang et al.,
Nat. Commun. 2019, eq. 7, against the body's exact surface).

    RodBodyContact(rods=None, bodies=None, stiffness=..., damping=0.0, friction=None |
                   CoulombFriction(static, kinetic, slip_velocity=1e-4) |
                   StickingFriction(static, kinetic, tangential_stiffness=..., ...),
                   overlap_tolerance=0.01, initial_overlap="warn", name="rod_body_contact")

rods: the rods (or names) in contact, None for every rod; bodies: the rigid bodies (or names),
None for every sphere, cylinder, box and general body with a triangle mesh (vertices= and
faces=: softmech.terms.rod_mesh_contact). Every listed rod
touches every listed body; a pair (rod, body) may belong to one term only. All terms compile
into one kernel call for the convex bodies, which checks every element against every listed
body (a bounding-sphere test first): cost ~ elements x bodies, and one for the mesh bodies
(their triangles found through a grid).

Per-world parameters: `<name>.stiffness` k [N/m], `<name>.damping` gamma [kg/s], `<name>.static`,
`<name>.kinetic` [-] (0 without friction), and `<name>.slip_velocity` v_s [m/s] (regularized)
or `<name>.tangential_stiffness` [N/m], `<name>.tangential_damping` [N s/m] (sticking: the
anchors' kernels in softmech.kernels.rod_body_sticking, the law in softmech.kernels.sticking).
"""
import numpy as np

from softmech.integrators.driver import Call
from softmech.kernels.rod_body_contact import (
    SHAPE_BOX,
    SHAPE_CYLINDER,
    SHAPE_SPHERE,
    RodBodyContactArgs,
    initial_body_overlaps,
    rod_body_contacts,
)
from softmech.kernels.rod_body_sticking import (ANCHOR_ROWS, RodBodyStickArgs, rod_body_anchors,
                                                rod_body_sticking)
from softmech.kernels.rod_contact import N_PARAMS
from softmech.kernels.sticking import N_STICK_PARAMS
from softmech.packing import from_blocks, lane_table
from softmech.stability import spring_time_step
from softmech.terms.base import rod_name
from softmech.terms.rod_contact import (FRICTION_MASS_SHARE, FrictionSplitPart, _PenaltyContact,
                                        contact_elements, near_bodies)
from softmech.terms.rod_mesh_contact import CALL as MESH_CALL
from softmech.terms.rod_mesh_contact import STICK_CALLS as MESH_STICK_CALLS
from softmech.terms.rod_mesh_contact import is_mesh, mesh_calls, mesh_overlaps

ORDER = 86
"""Place in the force pass: after rod-rod contact (85), before ground contact (90)."""

ANCHOR_ORDER = 90
"""Place of the anchors' update in the positions pass: after every constraint (the clamps and
driven ends, 0), at the configuration the next forces see."""

SHAPES = {"sphere": SHAPE_SPHERE, "cylinder": SHAPE_CYLINDER, "box": SHAPE_BOX}


def shape_dims(body):
    """(shape kind, dims (3,) [m]) of a sphere, cylinder or box (softmech.kernels.rod_body_contact)."""
    size = body.size
    if body.shape == "sphere":
        return SHAPE_SPHERE, np.array([size["radius"], 0.0, 0.0])
    if body.shape == "cylinder":
        return SHAPE_CYLINDER, np.array([size["radius"], 0.5 * size["length"], 0.0])
    return SHAPE_BOX, 0.5 * np.asarray(size["lengths"], dtype=float)


def near_convex_bodies(args, bi, lane, W):
    """Call.proximity of the convex bodies' calls (rod_contact.near_bodies): a body's bounding
    radius is |dims| (the kernels' bounding_radius: a sphere's and a cylinder's unused dims
    are 0)."""
    return near_bodies(args, bi, lane, W, np.linalg.norm(args.rbc_dims, axis=1))


def _names(owner, field, items, what):
    if items is None:
        return None
    if isinstance(items, str) or not hasattr(items, "__iter__"):
        raise ValueError(f"{owner}.{field} = {items!r} is not allowed: must be a list of {what} "
                         f"or their names, or None for all")
    names = tuple(rod_name(f"{owner}.{field}", r) for r in items)
    if not names or len(set(names)) != len(names):
        raise ValueError(f"{owner}.{field} = {list(names)} is not allowed: must list one or more "
                         f"{what}, each once")
    return names


class RodBodyContact(_PenaltyContact):
    """Contact of rods with rigid spheres, cylinders, boxes and meshes (see module docstring)."""

    sticking = True

    def __init__(self, rods=None, bodies=None, *, stiffness, damping=0.0, friction=None,
                 overlap_tolerance=0.01, initial_overlap="warn", name="rod_body_contact"):
        self.name = name
        self.rods = _names(name, "rods", rods, "rods")
        self.rigid = _names(name, "bodies", bodies, "rigid bodies")
        self._penalty(name, stiffness, damping, friction, overlap_tolerance, initial_overlap)

    def bodies(self):
        """Names of the listed rods and rigid bodies (for the scene's checks)."""
        return (self.rods or ()) + (self.rigid or ())

    def contribute(self, ctx, p):
        rods = [r.name for r in ctx.rods] if self.rods is None else list(self.rods)
        for n in rods:
            if n not in ctx.rod_index:
                raise ValueError(f"{self.name}.rods = {rods} is not allowed: {n!r} is not a rod "
                                 f"of the scene (rods: {sorted(ctx.rod_index)})")
        if self.rigid is None:
            bodies = [b.name for b in ctx.rigid_bodies if b.shape in SHAPES or is_mesh(b)]
        else:
            bodies = list(self.rigid)
        for n in bodies:
            body = ctx.rigid_body(n, self.name)
            if body.shape not in SHAPES and not is_mesh(body):
                raise ValueError(f"{self.name}.bodies = {bodies} is not allowed: {n!r} is a "
                                 f"{body.shape} body without a mesh (rod contact supports "
                                 f"{sorted(SHAPES)} and general bodies with vertices and faces)")
        if not rods or not bodies:
            raise ValueError(f"{self.name}: no rods or no spheres, cylinders, boxes or meshes to "
                             f"touch (rods: {rods}, bodies: {bodies})")
        prm = self.contact_params(p)                                      # (B, N_PARAMS)
        rod_indices = [ctx.rod_index[n] for n in rods]
        slots = [ctx.rigid_index[n] for n in bodies]
        check_initial_overlap(self, ctx, rod_indices, slots)
        ctx.part(RodBodyContacts).add(self.name, rod_indices, slots, prm, self.sticks())
        # explicit stability of the penalty spring and dashpot on the lightest node (halved)
        m = min(ctx.discrete[n]["node_mass"].min(axis=1).min() for n in rods)
        ctx.time_step_limits.append(spring_time_step(m, p["stiffness"], p["damping"]))
        if self.sticks():   # the stick spring likewise, on a surface point (FRICTION_MASS_SHARE)
            ctx.time_step_limits.append(spring_time_step(
                FRICTION_MASS_SHARE * m, p["tangential_stiffness"], p["tangential_damping"]))


def check_initial_overlap(term, ctx, rod_indices, slots):
    """Whether an element of the term's rods, as built, overlaps one of its bodies by more than
    overlap_tolerance times its radius (the largest of any world): if so, the worst element of
    each body goes to term.overlapping_start (refused or warned)."""
    x0, x1, _, _, rod, local = contact_elements(ctx.rods, rod_indices)
    rad = np.concatenate([np.max(ctx.all_rod_params[ctx.rods[r].name]["radius"], axis=0)
                          for r in rod_indices])
    for slot in slots:
        body = ctx.rigid_bodies[slot]
        n = len(rad)
        ratio = np.zeros(n)
        if is_mesh(body):
            ratio = mesh_overlaps(x0, x1, rad, body)
        else:
            shape, dims = shape_dims(body)
            initial_body_overlaps(x0, x1, rad, np.tile(body.position, (n, 1)),
                                  np.tile(body.principal_directors.reshape(9, 1), (1, n)).copy(),
                                  np.full(n, shape, dtype=np.int64), np.tile(dims, (n, 1)), ratio)
        if n and ratio.max() > term.overlap_tolerance:
            k = int(np.argmax(ratio))
            term.overlapping_start(f"rod {ctx.rods[rod[k]].name!r} (element {local[k]}) and "
                                   f"body {body.name!r}", ratio[k], "of the rod's radius",
                                   ratio[k] * rad[k])


class RodBodyContacts(FrictionSplitPart):
    """All RodBodyContact terms of a scene: per entry its name, rod indices, rigid-body slots,
    parameters (B, N_PARAMS or N_STICK_PARAMS) and whether its friction sticks. The entries
    with the regularized law run in one kernel call ("rod_body_contacts"), those with
    StickingFriction in another ("rod_body_sticking") with their anchors' update after every
    drift ("rod_body_anchors")."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def add(self, name, rod_indices, slots, params, sticking=False):
        claimed = {(r, b): e[0] for e in self.entries for r in e[1] for b in e[2]}
        for r in rod_indices:
            for b in slots:
                if (r, b) in claimed:
                    raise ValueError(
                        f"{name}: the contact of rod {self.ctx.rods[r].name!r} and body "
                        f"{self.ctx.rigid_bodies[b].name!r} is already in {claimed[(r, b)]!r} "
                        f"(a pair may be in one RodBodyContact only)")
        self.entries.append((name, rod_indices, slots, params, sticking))

    def _calls(self, engine, entries, sticking):
        lanes, slots, rods = engine.lanes, engine.slots, engine.rods
        rows = []   # (node a, node b, element slot, body slot, entry)
        for e, (_, rod_indices, bodies, _, _) in enumerate(entries):
            for r in rod_indices:
                rod = rods[r]
                n0, e0 = slots.node[rod.name], slots.elem[rod.name]
                for i in range(rod.n_elems):
                    b_node = n0 + (0 if rod.closed and i == rod.n_elems - 1 else i + 1)
                    rows.extend((n0 + i, b_node, e0 + i, b, e) for b in bodies)
        rows = np.array(rows, dtype=np.int64).reshape(-1, 5)
        mesh = np.array([is_mesh(self.ctx.rigid_bodies[b]) for b in rows[:, 3]], dtype=bool)
        calls = []
        if mesh.any():
            calls = mesh_calls(engine, self.ctx.rigid_bodies, rows[mesh],
                               [entry[3] for entry in entries], ORDER, sticking, ANCHOR_ORDER)
            rows = rows[~mesh]
            if not len(rows):
                return calls
        geometry = [shape_dims(self.ctx.rigid_bodies[b]) for b in rows[:, 3]]
        width = N_STICK_PARAMS if sticking else N_PARAMS
        own = dict(
            rbc_node_a=rows[:, 0].copy(), rbc_node_b=rows[:, 1].copy(),
            rbc_elem=rows[:, 2].copy(), rbc_body=rows[:, 3].copy(), rbc_entry=rows[:, 4].copy(),
            rbc_shape=np.array([g[0] for g in geometry], dtype=np.int64),
            rbc_dims=np.array([g[1] for g in geometry], dtype=float).reshape(-1, 3),
            rbc_param=lane_table([entry[3] for entry in entries], lanes, width),
            rbc_force=engine.zeros(3, slots.n_nodes * lanes.W),
            rbc_stats=engine.zeros(2, lanes.W))
        if not sticking:
            args = engine.args(RodBodyContactArgs, **own)
            return [Call("forces", ORDER, rod_body_contacts, args, "rod_body_contacts",
                         proximity=near_convex_bodies)] + calls
        # the anchors are history: kept by the simulation across parameter changes, saved
        # with its state (softmech.packing.Engine.history)
        args = engine.args(RodBodyStickArgs,
                           rbc_anchor=engine.history("rod_body_sticking", ANCHOR_ROWS, len(rows)), **own)
        return [Call("positions", ANCHOR_ORDER, rod_body_anchors, args, "rod_body_anchors",
                     history=True),
                Call("forces", ORDER, rod_body_sticking, args, "rod_body_sticking",
                     proximity=near_convex_bodies)]


CALLS = ("rod_body_contacts", MESH_CALL, "rod_body_sticking", MESH_STICK_CALLS[0])
"""Names of the force calls: the regularized law's (convex bodies, meshes), then the sticking
law's (convex bodies, meshes)."""


def _force_calls(engine):
    """Argument tuples of the scene's rod-body force calls (those of CALLS it has)."""
    found = [c.args for c in engine.calls if c.name in CALLS]
    if not found:
        engine.call_args(CALLS[0])      # raises, naming the scene's calls
    return found


def body_contact_forces(sim, rod=None):
    """Rod-body contact force on each node of one rod [N], (B, n_nodes, 3), at the current state
    and time (one force evaluation, then the kernels' per-node output: convex and mesh bodies)."""
    name = sim._rod_name(rod)
    engine = sim._engine()
    sim._evaluate(engine)
    ns, _ = sim._slices(name)
    total = sum(a.rbc_force for a in _force_calls(engine))
    return from_blocks(total, sim.lanes, (3,))[:, ns]


def body_contact_stats(sim):
    """After a force evaluation or a step: per world (B, 2) the largest overlap eps / r [-] and
    the number of elements in contact with a body (convex and mesh bodies together)."""
    found = [a.rbc_stats for a in _force_calls(sim._engine())]     # (n_blocks, 2, W) each
    stats = found[0].copy()
    for other in found[1:]:
        stats[:, 0] = np.maximum(stats[:, 0], other[:, 0])
        stats[:, 1] += other[:, 1]
    return np.moveaxis(stats, 1, 2).reshape(-1, 2)[:sim.worlds].copy()
