"""The mesh bodies of sm.RodBodyContact: rods against general rigid bodies given as triangle
meshes (fixed obstacles -- a terrain, a pipe, a gripper finger from an .obj or .stl -- or moving
bodies, which get the reaction force and torque). The kernel and its geometry are in
softmech.kernels.rod_mesh_contact, the mesh's preparation in softmech.bodies.contact_mesh; the
term itself (its arguments, parameters and law) is softmech.terms.rod_body_contact's.

Limits: up to two contacts per element and body (its deepest point and, in a groove or an
inner corner of the mesh, the other face's: elements short against the mesh's features); a
centreline more than one radius inside the surface is lost. Friction: the regularized Coulomb
law (sm.CoulombFriction) or friction that sticks (sm.StickingFriction:
softmech.kernels.rod_mesh_sticking, the convex bodies' anchors and law on the mesh's geometry,
an anchor pair per contact: two per pair).
"""
import numpy as np

from softmech.bodies.contact_mesh import pack_meshes
from softmech.integrators.driver import Call
from softmech.kernels.rod_body_sticking import ANCHOR_ROWS
from softmech.kernels.rod_contact import N_PARAMS
from softmech.kernels.rod_mesh_contact import (G_RADIUS, NEAR_ROWS, RodMeshContactArgs,
                                               initial_mesh_overlaps, rod_mesh_contacts)
from softmech.kernels.rod_mesh_sticking import RodMeshStickArgs, rod_mesh_anchors, rod_mesh_sticking
from softmech.kernels.sticking import N_STICK_PARAMS
from softmech.packing import lane_table
from softmech.terms.rod_contact import near_bodies

CALL = "rod_mesh_contacts"
"""Name of the mesh bodies' force call (the regularized law)."""
STICK_CALLS = ("rod_mesh_sticking", "rod_mesh_anchors")
"""Names of the mesh bodies' calls with friction that sticks: the forces, the anchors' update."""


def is_mesh(body):
    """Whether a rigid body touches rods through its triangle mesh (a general body with one)."""
    return body.shape == "general" and body.mesh is not None


def mesh_overlaps(x0, x1, rad, body):
    """eps / r (n,) [-] of elements [x0, x1] (n, 3) [m] of radii rad (n,) [m] against a mesh
    body as built (0 where apart): the initial-geometry check of RodBodyContact."""
    arrays = pack_meshes([body])
    Q = body.principal_directors
    y0 = (x0 - body.position) @ Q.T
    y1 = (x1 - body.position) @ Q.T
    out = np.zeros(len(rad))
    initial_mesh_overlaps(y0, y1, rad, arrays["mesh_tri_x"], arrays["mesh_tri_n"],
                          arrays["mesh_grid"], arrays["mesh_dims"], arrays["mesh_cell_start"],
                          arrays["mesh_cell_tris"], np.zeros(len(arrays["mesh_tri_x"]), np.int64),
                          np.zeros(1, np.int64), np.zeros((NEAR_ROWS, 9)), 0, out)
    return out


def near_mesh_bodies(args, bi, lane, W):
    """Call.proximity of the mesh bodies' calls (rod_contact.near_bodies): a body's bounding
    radius is its mesh grid's (its farthest vertex from the centre)."""
    return near_bodies(args, bi, lane, W, args.mesh_grid[args.rbc_mesh, G_RADIUS])


def mesh_calls(engine, rigid_bodies, rows, params, order, sticking=False, anchor_order=None):
    """The calls of the pairs `rows` (n_p, 5): node a, node b, element slot, body slot, entry,
    whose bodies are meshes; params: each entry's (B, N_PARAMS), or (B, N_STICK_PARAMS) when
    `sticking`. The regularized law: one force call at `order` of the force pass. Sticking: the
    anchors' update at `anchor_order` of the positions pass (their history kept with the state,
    as the convex bodies', two columns per pair: one per contact) and the force call."""
    slots = sorted(set(rows[:, 3].tolist()))
    mesh_of = {b: i for i, b in enumerate(slots)}
    meshes = pack_meshes([rigid_bodies[b] for b in slots])
    lanes = engine.lanes
    own = dict(
        rbc_node_a=rows[:, 0].copy(), rbc_node_b=rows[:, 1].copy(), rbc_elem=rows[:, 2].copy(),
        rbc_body=rows[:, 3].copy(), rbc_entry=rows[:, 4].copy(),
        rbc_mesh=np.array([mesh_of[b] for b in rows[:, 3]], dtype=np.int64),
        rbc_param=lane_table(params, lanes, N_STICK_PARAMS if sticking else N_PARAMS), **meshes,
        mesh_seen=engine.zeros(len(meshes["mesh_tri_x"]), dtype=np.int64),
        mesh_stamp=engine.zeros(1, dtype=np.int64), mesh_near=engine.zeros(NEAR_ROWS, 9),
        rbc_force=engine.zeros(3, engine.slots.n_nodes * lanes.W),
        rbc_stats=engine.zeros(2, lanes.W))
    if not sticking:
        return [Call("forces", order, rod_mesh_contacts, engine.args(RodMeshContactArgs, **own),
                     CALL, proximity=near_mesh_bodies)]
    args = engine.args(RodMeshStickArgs, **own,
                       rbc_anchor=engine.history(STICK_CALLS[0], ANCHOR_ROWS, 2 * len(rows)))
    return [Call("positions", anchor_order, rod_mesh_anchors, args, STICK_CALLS[1], history=True),
            Call("forces", order, rod_mesh_sticking, args, STICK_CALLS[0],
                 proximity=near_mesh_bodies)]
