"""A Cosserat rod's surface on a plane with friction that sticks (GroundContact(rod,
surface=True) with a softmech.terms.friction.StickingFriction): the normal law of
softmech.kernels.surface_contact (each element's two end spheres, half its penalty each), the
tangential law of softmech.kernels.sticking, per end sphere.

Every end sphere in contact (penetration delta = r_e - u . (x - p) > 0, with the plane's point p
and unit normal u) keeps an anchor A on the plane: the spring joins the node x (the end sphere's
centre, whose tangential motion is its contact point's) to A, u_t = (x - A) - ((x - A).u) u,
and its slip velocity is the node's tangential velocity w_t. As the normal penalty, each end
sphere has half its element's tangential stiffness and damping:

    F_t = -(k_t u_t + c_t w_t) / 2,  clipped to |F_t| <= mu f_n,

with f_n the end sphere's normal force (softmech.kernels.surface_contact.end_force, the same
state function as the normal law's: the anchors' update computes it itself), mu = mu_s sticking
and mu_k sliding. So a node shared by two elements holds with k_t and mu times its whole
normal load, an open rod's end node with k_t / 2, and a rod resting on the plane is held by
exactly mu_s times its weight.

Limit: the friction acts at the nodes, which have no frame, so it exerts no couple: a rod held
by it does not roll (as the element-centre model's sticking friction).
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.sticking import (NO_CONTACT, S_GAMMA, S_K, STICKING, anchor_slip,
                                       stick_force, tangential)
from softmech.kernels.surface_contact import end_force

SurfaceStickArgs = namedtuple("SurfaceStickArgs", [
    "x", "v",                                                 # state
    "rod_node_off", "rod_elem_off", "rod_n_elems", "elem_radius",
    "sst_rod",        # (1,) int64: the rod of the contact entry
    "sst_plane",      # (n_blocks, 6, W): plane point (3) [m], unit normal (3)
    "sst_param",      # (n_blocks, N_STICK_PARAMS, W): softmech.kernels.sticking's rows
    "sst_anchor",     # history (n_blocks, ANCHOR_ROWS, 2 n_rod_elems W): A (3) [m], status;
                      # column k: end a of element slot k, n_rod_elems W + k: its end b
    "sst_force",      # output (n_blocks, 6, n_rod_elems*W): the friction [N] on each element's
                      # first (rows 0-2) and second (rows 3-5) end sphere
    "node_force",                                             # output (added to)
])
"""The arguments of one rod-plane surface contact entry with sticking friction."""

ANCHOR_ROWS = 4
"""Rows of sst_anchor per end sphere and lane: the anchor A (3) [m] and its status
(softmech.kernels.sticking)."""


@kernel(inline="always")
def end_sphere(a, bi, W, lane, x, ia, e):
    """(penetration delta [m], normal velocity v.u [m/s], normal force f_n [N], unit normal u)
    of the end sphere on node slot ia of element slot e (softmech.kernels.surface_contact)."""
    plane, prm = a.sst_plane[bi], a.sst_param[bi]
    u = (plane[3, lane], plane[4, lane], plane[5, lane])
    delta = a.elem_radius[bi, e] - (u[0] * (x[0, ia] - plane[0, lane])
                                    + u[1] * (x[1, ia] - plane[1, lane])
                                    + u[2] * (x[2, ia] - plane[2, lane]))
    V = a.v[bi]
    vn = u[0] * V[0, ia] + u[1] * V[1, ia] + u[2] * V[2, ia]
    return delta, vn, end_force(delta, vn, prm[S_K, lane], prm[S_GAMMA, lane]), u


@kernel(inline="always")
def half_spring(a, bi, x, ia, j, u):
    """Half the tangential spring, u_t / 2 (3,) [m], and half the node's tangential velocity,
    w_t / 2 [m/s], of anchor column j on node slot ia: with them the sticking law's k_t and c_t
    act at half strength (module docstring)."""
    A, V = a.sst_anchor[bi], a.v[bi]
    ut = tangential(x[0, ia] - A[0, j], x[1, ia] - A[1, j], x[2, ia] - A[2, j], u)
    wt = tangential(V[0, ia], V[1, ia], V[2, ia], u)
    return (0.5 * ut[0], 0.5 * ut[1], 0.5 * ut[2]), (0.5 * wt[0], 0.5 * wt[1], 0.5 * wt[2])


@kernel
def surface_sticking(a, bi, W, t):
    """Add the sticking friction of one surface contact entry in block bi to a.node_force
    (module docstring; the normal force is the surface contact kernel's, run with zero
    friction) and keep each end sphere's friction in a.sst_force. Reads the anchors."""
    r = a.sst_rod[0]
    ne = a.rod_n_elems[r] * W
    e0, n0 = a.rod_elem_off[r] * W, a.rod_node_off[r] * W
    X, A, out, kept = a.x[bi], a.sst_anchor[bi], a.node_force[bi], a.sst_force[bi]
    prm = a.sst_param[bi]
    for k in range(ne):
        lane = k % W
        for end in range(2):
            ia = n0 + k + end * W
            j = k + end * ne
            ft = (0.0, 0.0, 0.0)
            if A[3, j] != NO_CONTACT:
                _, _, fn, u = end_sphere(a, bi, W, lane, X, ia, e0 + k)
                ut, wt = half_spring(a, bi, X, ia, j, u)
                ft = stick_force(ut, wt, fn, A[3, j], prm, lane)
            for c in range(3):
                kept[3 * end + c, k] = ft[c]
                out[c, ia] += ft[c]


@kernel
def surface_anchors(a, bi, W, t):
    """Update the anchors of one surface contact entry in block bi at its current configuration
    (softmech.kernels.sticking): an end sphere coming into contact anchors its node's foot, a
    spring beyond the cone slides back onto it, an end sphere that left the plane forgets.
    Positions stage."""
    r = a.sst_rod[0]
    ne = a.rod_n_elems[r] * W
    e0, n0 = a.rod_elem_off[r] * W, a.rod_node_off[r] * W
    X, A, prm = a.x[bi], a.sst_anchor[bi], a.sst_param[bi]
    for k in range(ne):
        lane = k % W
        for end in range(2):
            ia = n0 + k + end * W
            j = k + end * ne
            delta, _, fn, u = end_sphere(a, bi, W, lane, X, ia, e0 + k)
            if not delta > 0.0:
                A[3, j] = NO_CONTACT
                continue
            if A[3, j] == NO_CONTACT:
                A[0, j], A[1, j], A[2, j], A[3, j] = X[0, ia], X[1, ia], X[2, ia], STICKING
                continue
            ut, wt = half_spring(a, bi, X, ia, j, u)
            c, status = anchor_slip(ut, wt, fn, A[3, j], prm, lane)
            if c != 0.0:   # slide: the spring (1 - c) u_t behind the node
                A[0, j] += 2.0 * c * ut[0]
                A[1, j] += 2.0 * c * ut[1]
                A[2, j] += 2.0 * c * ut[2]
            A[3, j] = status
