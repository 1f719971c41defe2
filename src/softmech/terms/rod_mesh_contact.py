"""The mesh bodies of sm.RodBodyContact: rods against general rigid bodies given as triangle
meshes (fixed obstacles -- a terrain, a pipe, a gripper finger from an .obj or .stl -- or moving
bodies, which get the reaction force and torque). The kernel and its geometry are in
softmech.kernels.rod_mesh_contact, the mesh's preparation in softmech.bodies.contact_mesh; the
term itself (its arguments, parameters and law) is softmech.terms.rod_body_contact's.

Limits: one contact per element and body, at its deepest point (elements short against the
mesh's features); a centreline more than one radius inside the surface is lost; the regularized
Coulomb law only (sm.StickingFriction is refused for mesh bodies).
"""
import numpy as np

from softmech.bodies.contact_mesh import pack_meshes
from softmech.integrators.driver import Call
from softmech.kernels.rod_mesh_contact import RodMeshContactArgs, initial_mesh_overlaps, rod_mesh_contacts
from softmech.kernels.rod_contact import N_PARAMS
from softmech.packing import lane_table

CALL = "rod_mesh_contacts"
"""Name of the mesh bodies' force call."""


def is_mesh(body):
    """Whether a rigid body touches rods through its triangle mesh (a general body with one)."""
    return body.shape == "general" and body.mesh is not None


def refuse_sticking(term, bodies):
    """ValueError if `term` has a StickingFriction and one of `bodies` is a mesh body."""
    meshes = [b.name for b in bodies if is_mesh(b)]
    if term.sticks() and meshes:
        raise ValueError(f"{term.name}.friction = {term.friction!r} is not allowed with the mesh "
                         f"body {meshes[0]!r}: rod contact with triangle meshes has the "
                         f"regularized law only (sm.CoulombFriction); put the mesh bodies in a "
                         f"RodBodyContact of their own")


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
                          np.zeros(1, np.int64), 0, out)
    return out


def mesh_calls(engine, rigid_bodies, rows, params, order):
    """The force call (at `order` of the force pass) of the pairs `rows` (n_p, 5): node a,
    node b, element slot, body slot, entry, whose bodies are meshes; params: each entry's
    (B, N_PARAMS)."""
    slots = sorted(set(rows[:, 3].tolist()))
    mesh_of = {b: i for i, b in enumerate(slots)}
    meshes = pack_meshes([rigid_bodies[b] for b in slots])
    lanes = engine.lanes
    own = dict(
        rbc_node_a=rows[:, 0].copy(), rbc_node_b=rows[:, 1].copy(), rbc_elem=rows[:, 2].copy(),
        rbc_body=rows[:, 3].copy(), rbc_entry=rows[:, 4].copy(),
        rbc_mesh=np.array([mesh_of[b] for b in rows[:, 3]], dtype=np.int64),
        rbc_param=lane_table(params, lanes, N_PARAMS), **meshes,
        mesh_seen=engine.zeros(len(meshes["mesh_tri_x"]), dtype=np.int64),
        mesh_stamp=engine.zeros(1, dtype=np.int64),
        rbc_force=engine.zeros(3, engine.slots.n_nodes * lanes.W),
        rbc_stats=engine.zeros(2, lanes.W))
    return [Call("forces", order, rod_mesh_contacts, engine.args(RodMeshContactArgs, **own), CALL)]
