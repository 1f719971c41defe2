"""Rod contact with triangle-mesh bodies, with friction that sticks (softmech.terms.
rod_body_contact with a softmech.terms.friction.StickingFriction and a mesh body): the mesh's
geometry (softmech.kernels.rod_mesh_contact.mesh_pair_geometry: the element's deepest point
against the mesh, its normal, the application point) and the sticking law of the convex bodies
(softmech.kernels.rod_body_sticking: the anchors, two material points joined by a tangential
spring, carried to the contact point at every update; the law in softmech.kernels.sticking).

The anchors are material points of the rod's section and of the body, so they do not depend on
which triangle the contact point lies on: a contact passing from one triangle to the next, over
an edge or a vertex, keeps its spring (the body's anchor is a point of the body's frame, the
mesh is rigid in it).

One contact per element and mesh, the deepest (mesh_pair_geometry; the regularized law's
second contact in a groove or an inner corner, softmech.kernels.rod_mesh_contact.
second_contact, is not taken here: it would need its own anchor, matched to its face from
step to step since the deeper of two symmetric faces swaps by round-off). An element in a
groove of one mesh gets the deeper face only (docs/contact.md, Limits).
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.rod_body_sticking import sticking_pair_force, update_pair_anchors
from softmech.kernels.rod_contact import add_rows, clear_rows
from softmech.kernels.rod_mesh_contact import RodMeshContactArgs, mesh_pair_geometry

RodMeshStickArgs = namedtuple("RodMeshStickArgs", RodMeshContactArgs._fields + (
    "rbc_anchor",   # history (n_blocks, ANCHOR_ROWS, n_pairs*W): as RodBodyStickArgs'
))
"""RodMeshContactArgs (rbc_param with the rows of softmech.kernels.sticking.N_STICK_PARAMS)
and the anchors (softmech.kernels.rod_body_sticking.ANCHOR_ROWS rows per pair)."""


@kernel
def rod_mesh_sticking(a, bi, W, t):
    """Add the sticking rod-mesh contact forces of block bi to a.node_force, a.elem_couple and
    the bodies (every sticking rod-mesh pair of the scene in this one call); rbc_force and
    rbc_stats as softmech.kernels.rod_mesh_contact.rod_mesh_contacts. Reads the anchors."""
    clear_rows(a.rbc_force[bi])
    for lane in range(W):
        worst = 0.0
        count = 0
        for p in range(a.rbc_node_a.shape[0]):
            hit, eps, r, s, n, lev, rel, vn, ia, ib, k = mesh_pair_geometry(a, bi, W, lane, p)
            if hit == 0:
                continue
            sticking_pair_force(a, bi, W, lane, p, a.rbc_param[bi, a.rbc_entry[p]], eps, r, s,
                                n, lev, rel, vn, ia, ib, k)
            count += 1
            worst = max(worst, eps / r)
        a.rbc_stats[bi, 0, lane] = worst
        a.rbc_stats[bi, 1, lane] = count
    add_rows(a.node_force[bi], a.rbc_force[bi])


@kernel
def rod_mesh_anchors(a, bi, W, t):
    """Update the anchors of the sticking rod-mesh pairs of block bi at its current
    configuration (softmech.kernels.rod_body_sticking.update_pair_anchors). A positions-stage
    kernel: after every drift, before the forces."""
    for lane in range(W):
        for p in range(a.rbc_node_a.shape[0]):
            hit, eps, r, s, n, lev, rel, vn, ia, ib, k = mesh_pair_geometry(a, bi, W, lane, p)
            update_pair_anchors(a, bi, W, lane, p, a.rbc_param[bi, a.rbc_entry[p]], hit, eps, r,
                                s, n, lev, rel, vn, ia, ib, k)
