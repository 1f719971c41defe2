"""The rigid bodies' parts (softmech.bodies.rigid_body) of prescribed loads, linear damping and
ground contact with friction (softmech.kernels.rigid_contact), whose terms are
softmech.terms.loads.EndLoad, softmech.terms.damping.LinearDamping and
softmech.terms.contact.GroundContact.

Forces and torques are given in the lab frame [N], [N m]; the kernels turn torques into the
body's principal frame. Loads and damping reuse the rods' kernels (point_loads,
linear_damping) on the rigid bodies' arrays: one piece of code per idea.
"""
import numpy as np

from softmech.integrators.driver import Call
from softmech.kernels.damping import LinearDampingArgs, linear_damping
from softmech.kernels.point_loads import PointLoadsArgs, point_loads
from softmech.kernels.rigid_contact import (
    FEATURE_ANCHOR_ROWS,
    N_PARAMS,
    RigidGroundContactArgs,
    RigidStickArgs,
    rigid_ground_anchors,
    rigid_ground_contact,
    rigid_ground_sticking,
)
from softmech.kernels.sticking import N_STICK_PARAMS
from softmech.packing import from_blocks, lane_table, point_table, to_blocks
from softmech.terms.base import Part

LOAD_ORDER, DAMPING_ORDER, CONTACT_ORDER = 20, 10, 90
ANCHOR_ORDER = 90
"""Place of the friction anchors' update in the positions pass: after every constraint."""
"""Places in the force pass, as the rods' loads, damping and ground contact."""


def body_name(owner, body):
    name = getattr(body, "name", body)
    if not isinstance(name, str):
        raise ValueError(f"{owner}.body = {body!r} is not allowed: must be a rigid body or its name")
    return name


def rigid_arrays(engine, **fields):
    """The rigid bodies' state and workspace arrays under the field names of a rod kernel
    (e.g. node_force=rb_force): rod kernels reused on rigid bodies."""
    sources = {**engine.state._asdict(), **engine.workspace._asdict()}
    return {k: sources[v] for k, v in fields.items()}


class RigidLoads(Part):
    """Prescribed forces and torques on rigid bodies, one kernel call (point_loads)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.forces, self.torques = [], []

    def calls(self, engine):
        pf = point_table(self.forces, engine.lanes, 3)
        pc = point_table(self.torques, engine.lanes, 3)
        args = engine.args(PointLoadsArgs, force_node=pf[0], force_vec=pf[1], force_profile=pf[2],
                           couple_elem=pc[0], couple_vec=pc[1], couple_profile=pc[2],
                           **rigid_arrays(engine, Q="rb_Q", node_force="rb_force",
                                          elem_couple="rb_torque"))
        return [Call("forces", LOAD_ORDER, point_loads, args, "rigid_loads")]


class RigidDampers(Part):
    """Linear damping of rigid bodies, one kernel call (linear_damping): per body c [N s/m]
    and c_r [N m s], (B, n_rb) each."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.linear = np.zeros((ctx.worlds, len(ctx.rigid_bodies)))
        self.angular = np.zeros((ctx.worlds, len(ctx.rigid_bodies)))

    def calls(self, engine):
        blocks = lambda values: to_blocks(values, engine.lanes)
        args = engine.args(LinearDampingArgs, node_damping=blocks(self.linear),
                           elem_damping=blocks(self.angular),
                           **rigid_arrays(engine, v="rb_v", w="rb_w", node_force="rb_force",
                                          elem_couple="rb_torque"))
        return [Call("forces", DAMPING_ORDER, linear_damping, args, "rigid_damping")]


class RigidGroundContacts(Part):
    """Plane contact of rigid bodies: every feature of every entry with the regularized law in
    one kernel call ("rigid_ground_contact"); those with StickingFriction in another
    ("rigid_ground_sticking"), with their anchors' update after every drift
    ("rigid_ground_anchors")."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (plane (6,), params (B, N_PARAMS or N_STICK_PARAMS), sticking)
        self.features = []  # (body slot, entry, geometry (8,))

    def add(self, body, plane, params, sticking=False):
        entry = len(self.entries)
        self.entries.append((plane, params, sticking))
        centres, radii, axes, discs = body.contact
        centres, axes = body.to_principal(centres), body.to_principal(axes)
        for c, r, a, R in zip(centres, radii, axes, discs):
            self.features.append((self.ctx.rigid_index[body.name], entry,
                                  np.concatenate([c, a, [r, R]])))

    def calls(self, engine):
        calls = []
        for sticking in (False, True):
            entries = [i for i, e in enumerate(self.entries) if e[2] == sticking]
            if entries:
                calls += self._calls(engine, entries, sticking)
        return calls

    def _calls(self, engine, entries, sticking):
        renumber = {old: new for new, old in enumerate(entries)}
        features = [f for f in self.features if f[1] in renumber]
        n_f = len(features)
        own = dict(
            feat_body=np.array([f[0] for f in features], dtype=np.int64),
            feat_entry=np.array([renumber[f[1]] for f in features], dtype=np.int64),
            feat_geometry=np.array([f[2] for f in features]).reshape(n_f, 8),
            plane=np.array([self.entries[e][0] for e in entries]).reshape(-1, 6),
            params=lane_table([self.entries[e][1] for e in entries], engine.lanes,
                              N_STICK_PARAMS if sticking else N_PARAMS),
            feat_force=np.zeros((engine.lanes.n_blocks, 3, n_f * engine.lanes.W)))
        if not sticking:
            args = engine.args(RigidGroundContactArgs, **own)
            return [Call("forces", CONTACT_ORDER, rigid_ground_contact, args,
                         "rigid_ground_contact")]
        # the anchors are history (softmech.packing.Engine.history), saved with the state
        args = engine.args(RigidStickArgs, feat_anchor=engine.history(
            "rigid_ground_sticking", FEATURE_ANCHOR_ROWS, n_f), **own)
        return [Call("positions", ANCHOR_ORDER, rigid_ground_anchors, args,
                     "rigid_ground_anchors", history=True),
                Call("forces", CONTACT_ORDER, rigid_ground_sticking, args,
                     "rigid_ground_sticking")]


def ground_contact_force(sim, body=None):
    """Total GroundContact force on one rigid body [N], (B, 1, 3) (the rods' per-node
    shape with its one node): wall response, damping and friction of every contact feature,
    exactly as it enters the equations of motion, at the current state and time (one force
    evaluation, then the kernel's per-feature output). Zero without a GroundContact on it."""
    name = sim._rod_name(body)
    if name not in sim._rigid_index:
        raise ValueError(f"body = {name!r} is not allowed: not a rigid body")
    engine = sim._engine()
    sim._evaluate(engine)
    lanes = sim.lanes
    total = np.zeros((lanes.n_blocks, 3, lanes.W))
    for call in engine.calls:
        if call.name in ("rigid_ground_contact", "rigid_ground_sticking"):
            a = call.args
            per_feature = a.feat_force.reshape(lanes.n_blocks, 3, -1, lanes.W)
            total += per_feature[:, :, a.feat_body == sim._rigid_index[name]].sum(axis=2)
    return from_blocks(total, lanes, (3,))
