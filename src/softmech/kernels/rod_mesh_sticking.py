"""Rod contact with triangle-mesh bodies, with friction that sticks (softmech.terms.
rod_body_contact with a softmech.terms.friction.StickingFriction and a mesh body): the mesh's
geometry (softmech.kernels.rod_mesh_contact.mesh_pair_depths: the element's deepest point
against the mesh and, in a groove or an inner corner, its second contact; their normals and
application points) and the sticking law of the convex bodies (softmech.kernels.
rod_body_sticking: the anchors, two material points joined by a tangential spring, carried to
the contact point at every update; the law in softmech.kernels.sticking).

The anchors are material points of the rod's section and of the body, so they do not depend on
which triangle the contact point lies on: a contact passing from one triangle to the next, over
an edge or a vertex, keeps its spring (the body's anchor is a point of the body's frame, the
mesh is rigid in it).

Two anchor columns per pair and lane (rbc_anchor (n_blocks, ANCHOR_ROWS, 2 n_pairs W): p W +
lane and (n_pairs + p) W + lane), one per contact. Which contact is first (the deeper) is no
property of a face: in a symmetric groove the two faces' depths differ by round-off and swap
from step to step. So each contact takes the column whose body anchor is nearest its body point
(match_anchors: the pairing of least total distance, a column without an anchor counting r):
the anchors follow the faces. A single contact keeps the first column, as before the second
contact existed (2026-11-30), bit for bit.
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.contact_point import from_frame
from softmech.kernels.rod_body_sticking import sticking_pair_force, update_pair_anchors
from softmech.kernels.rod_contact import add_rows, clear_rows
from softmech.kernels.rod_mesh_contact import (SECOND_COS, RodMeshContactArgs,
                                               contact_kinematics, mesh_pair_depths)
from softmech.kernels.sticking import NO_CONTACT

RodMeshStickArgs = namedtuple("RodMeshStickArgs", RodMeshContactArgs._fields + (
    "rbc_anchor",   # history (n_blocks, ANCHOR_ROWS, 2*n_pairs*W): as RodBodyStickArgs', two
                    # columns per pair and lane (module docstring)
))
"""RodMeshContactArgs (rbc_param with the rows of softmech.kernels.sticking.N_STICK_PARAMS)
and the anchors (softmech.kernels.rod_body_sticking.ANCHOR_ROWS rows per pair and contact)."""


@kernel(inline="always")
def anchor_distance(a, bi, k, j, g, free):
    """Distance [m] from the body point of contact g (pair_kinematics' tuple: its lever g[5]
    from body k's centre, lab) to the body's anchor of column j; free [m] if j holds none, 0
    if g is no contact."""
    if g[0] == 0:
        return 0.0
    A = a.rbc_anchor[bi]
    if A[3, j] == NO_CONTACT:
        return free
    y = from_frame(a.rb_Q[bi], k, A[0, j], A[1, j], A[2, j])
    lev = g[5]
    return math.sqrt((lev[0] - y[0]) ** 2 + (lev[1] - y[1]) ** 2 + (lev[2] - y[2]) ** 2)


@kernel
def match_anchors(a, bi, W, lane, p):
    """The contacts of sticking mesh pair p in one lane, each with its anchor column: (g1, j1,
    g2, j2), g pair_kinematics' tuple (hit 0: none). The pairing of contacts and columns of
    least total anchor distance (anchor_distance; a free column counts r, the element's radius:
    a contact farther than r from an anchor is a new one); the identity on ties."""
    first, second, xa, xe, r, ia, ib, k = mesh_pair_depths(a, bi, W, lane, p, SECOND_COS)
    g1 = contact_kinematics(a, bi, first, xa, xe, r, ia, ib, k)
    g2 = contact_kinematics(a, bi, second, xa, xe, r, ia, ib, k)
    j0, j1 = p * W + lane, (a.rbc_node_a.shape[0] + p) * W + lane
    same = anchor_distance(a, bi, k, j0, g1, r) + anchor_distance(a, bi, k, j1, g2, r)
    swap = anchor_distance(a, bi, k, j1, g1, r) + anchor_distance(a, bi, k, j0, g2, r)
    if swap < same:
        return g1, j1, g2, j0
    return g1, j0, g2, j1


@kernel
def rod_mesh_sticking(a, bi, W, t):
    """Add the sticking rod-mesh contact forces of block bi to a.node_force, a.elem_couple and
    the bodies (every sticking rod-mesh pair of the scene in this one call, up to two contacts
    each); rbc_force and rbc_stats as softmech.kernels.rod_mesh_contact.rod_mesh_contacts.
    Reads the anchors."""
    clear_rows(a.rbc_force[bi])
    for lane in range(W):
        worst = 0.0
        count = 0
        for p in range(a.rbc_node_a.shape[0]):
            g1, j1, g2, j2 = match_anchors(a, bi, W, lane, p)
            for g, j in ((g1, j1), (g2, j2)):
                hit, eps, r, s, n, lev, rel, vn, ia, ib, k = g
                if hit == 0:
                    continue
                sticking_pair_force(a, bi, W, lane, p, j, a.rbc_param[bi, a.rbc_entry[p]], eps,
                                    r, s, n, lev, rel, vn, ia, ib, k)
                count += 1
                worst = max(worst, eps / r)
        a.rbc_stats[bi, 0, lane] = worst
        a.rbc_stats[bi, 1, lane] = count
    add_rows(a.node_force[bi], a.rbc_force[bi])


@kernel
def rod_mesh_anchors(a, bi, W, t):
    """Update the anchors of the sticking rod-mesh pairs of block bi at its current
    configuration, each contact's in its column (match_anchors; softmech.kernels.
    rod_body_sticking.update_pair_anchors; a column without a contact forgets). A
    positions-stage kernel: after every drift, before the forces."""
    for lane in range(W):
        for p in range(a.rbc_node_a.shape[0]):
            g1, j1, g2, j2 = match_anchors(a, bi, W, lane, p)
            for g, j in ((g1, j1), (g2, j2)):
                hit, eps, r, s, n, lev, rel, vn, ia, ib, k = g
                update_pair_anchors(a, bi, W, lane, p, j, a.rbc_param[bi, a.rbc_entry[p]], hit,
                                    eps, r, s, n, lev, rel, vn, ia, ib, k)
