"""Rod-body contact with friction that sticks (softmech.terms.rod_body_contact with a
softmech.terms.friction.StickingFriction): the normal law and geometry of
softmech.kernels.rod_body_contact, the tangential law of softmech.kernels.sticking.

Per pair (element, body) and lane the spring joins two material points: the rod's anchor
X_r = c(s_a) + Q_e^T l_a, a point of the element's section (c(s) = x_a + s (x_b - x_a); l_a kept
in the element's frame, so it turns with the section), and the body's anchor X_b = x_b + Q^T y
(y kept in the body's frame); rbc_anchor (n_blocks, ANCHOR_ROWS, n_pairs*W) holds y (3) [m],
the status, s_a and l_a (3) [m]. The spring is u = X_r - X_b, its tangential part u_t taken
about the contact normal n; the slip velocity w_t is that of the two material points at the
contact point p (softmech.kernels.rod_body_contact.contact_point), where the friction acts on
both (on the rod as a force at c(s) and the couple of its lever): equal, opposite, at one point.

The anchors' update (after every drift) measures the spring of the stored anchors, return-maps
it (softmech.kernels.sticking.anchor_slip: (1 - c) u_t), and carries both anchors to the
current contact point p with that spring, X_r = p + u_t/2 and X_b = p - u_t/2. So the spring
grows by the two surfaces' relative tangential displacement at p between updates, the
incremental form of Cundall and Strack (1979, eq. 6) with its spring kept in the tangent plane
(Luding 2008, sec. 2.2.3): a rod rolling on a body without slipping (w_t = 0 at p) does not
stretch it, to O(dt^2) per update (the two material points leaving p part on cycloids, ~R
theta^3 / 6 for a roll by theta), so rolling is not resisted; a held contact keeps its spring.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.contact_point import from_frame, to_frame
from softmech.kernels.rod_body_contact import (RodBodyContactArgs, apply_friction,
                                               apply_pair_force, contact_point, pair_geometry)
from softmech.kernels.rod_contact import add_rows, clear_rows
from softmech.kernels.sticking import (NO_CONTACT, S_GAMMA, S_K, STICKING, anchor_slip,
                                       stick_force, tangential)

RodBodyStickArgs = namedtuple("RodBodyStickArgs", RodBodyContactArgs._fields + (
    "rbc_anchor",   # history (n_blocks, ANCHOR_ROWS, n_pairs*W): the body's anchor point y in
                    # its frame [m] (3), the status, the rod's anchor: its centreline parameter
                    # s_a on the element and its lever l_a in the element's frame [m] (3)
))
"""RodBodyContactArgs (rbc_param with the rows of softmech.kernels.sticking.N_STICK_PARAMS)
and the anchors."""

ANCHOR_ROWS = 8
"""Rows of rbc_anchor per pair: y (3) [m], status, s_a [-], l_a (3) [m]."""


@kernel(inline="always")
def anchor_spring(a, bi, ia, ib, e, k, j, n):
    """The spring's tangential part u_t (3,) [m] of anchor column j: u = X_r - X_b, the rod's
    anchor X_r = c(s_a) + Q_e^T l_a (a material point of element column e's section, nodes
    ia, ib) minus the body's X_b = x_b + Q^T y (body column k); n the contact normal."""
    X, A = a.x[bi], a.rbc_anchor[bi]
    sa = A[4, j]
    lr = from_frame(a.Q[bi], e, A[5, j], A[6, j], A[7, j])
    yb = from_frame(a.rb_Q[bi], k, A[0, j], A[1, j], A[2, j])
    xb = a.rb_x[bi]
    u = (X[0, ia] + sa * (X[0, ib] - X[0, ia]) + lr[0] - xb[0, k] - yb[0],
         X[1, ia] + sa * (X[1, ib] - X[1, ia]) + lr[1] - xb[1, k] - yb[1],
         X[2, ia] + sa * (X[2, ib] - X[2, ia]) + lr[2] - xb[2, k] - yb[2])
    return tangential(u[0], u[1], u[2], n)


@kernel(inline="always")
def set_anchors(a, bi, j, e, k, s, lr, lb, ut):
    """Anchor column j at the contact point p (the rod's lever lr from c(s), the body's lever
    lb from its centre) with the tangential spring ut [m] (3,): the rod's anchor at p + ut/2
    (s_a = s, l_a = Q_e (lr + ut/2)), the body's at p - ut/2 (y = Q (lb - ut/2)): their spring
    is ut exactly, at this configuration."""
    A = a.rbc_anchor[bi]
    y = to_frame(a.rb_Q[bi], k, lb[0] - 0.5 * ut[0], lb[1] - 0.5 * ut[1], lb[2] - 0.5 * ut[2])
    g = to_frame(a.Q[bi], e, lr[0] + 0.5 * ut[0], lr[1] + 0.5 * ut[1], lr[2] + 0.5 * ut[2])
    A[0, j], A[1, j], A[2, j], A[4, j] = y[0], y[1], y[2], s
    A[5, j], A[6, j], A[7, j] = g[0], g[1], g[2]


@kernel
def sticking_pair_force(a, bi, W, lane, p, j, prm, eps, r, s, n, lev, rel, vn, ia, ib, k):
    """The sticking law of pair p in one lane, given its geometry (pair_geometry's, or the
    mesh's: softmech.kernels.rod_mesh_sticking) and its anchors' column j of rbc_anchor (p W +
    lane; a mesh pair's second contact has its own): the normal force max(k eps - gamma vn,
    0) n [N] as the regularized law's, and the friction of the anchors' spring at the contact
    point (on the rod at its centreline point with the couple of its lever, on the body at that
    point); prm: the rows of softmech.kernels.sticking.N_STICK_PARAMS. Added to rbc_force,
    elem_couple and the body. Reads the anchors, never writes them."""
    fn = max(prm[S_K, lane] * eps - prm[S_GAMMA, lane] * vn, 0.0)
    apply_pair_force(a, bi, W, ia, ib, k, s, lev, (fn * n[0], fn * n[1], fn * n[2]))
    lr, lb, e, wt = contact_point(a, bi, W, lane, p, eps, r, n, lev, rel, k)
    ut = anchor_spring(a, bi, ia, ib, e, k, j, n)
    apply_friction(a, bi, ia, ib, e, k, s, lr, lb, stick_force(ut, wt, fn, a.rbc_anchor[bi][3, j],
                                                                 prm, lane))


@kernel
def update_pair_anchors(a, bi, W, lane, p, j, prm, hit, eps, r, s, n, lev, rel, vn, ia, ib, k):
    """Update the anchors of pair p in one lane in column j, given its geometry (as
    sticking_pair_force; hit 0: apart): a new contact anchors where it touches, a spring beyond
    the cone slides back onto it, a lost contact forgets (softmech.kernels.sticking); then the
    anchor pair is carried to the current contact point with its (return-mapped) spring (module
    docstring)."""
    A = a.rbc_anchor[bi]
    if hit == 0:
        A[3, j] = NO_CONTACT
        return
    lr, lb, e, wt = contact_point(a, bi, W, lane, p, eps, r, n, lev, rel, k)
    if A[3, j] == NO_CONTACT:
        set_anchors(a, bi, j, e, k, s, lr, lb, (0.0, 0.0, 0.0))
        A[3, j] = STICKING
        return
    ut = anchor_spring(a, bi, ia, ib, e, k, j, n)
    fn = max(prm[S_K, lane] * eps - prm[S_GAMMA, lane] * vn, 0.0)
    c, status = anchor_slip(ut, wt, fn, A[3, j], prm, lane)
    set_anchors(a, bi, j, e, k, s, lr, lb,
                ((1.0 - c) * ut[0], (1.0 - c) * ut[1], (1.0 - c) * ut[2]))
    A[3, j] = status


@kernel
def rod_body_sticking(a, bi, W, t):
    """Add the sticking rod-body contact forces of block bi to a.node_force, a.elem_couple and
    the bodies (every sticking pair of the scene in this one call; sticking_pair_force);
    rbc_force and rbc_stats as softmech.kernels.rod_body_contact.rod_body_contacts."""
    clear_rows(a.rbc_force[bi])
    for lane in range(W):
        worst = 0.0
        count = 0
        for p in range(a.rbc_node_a.shape[0]):
            hit, eps, r, s, n, lev, rel, vn, ia, ib, k = pair_geometry(a, bi, W, lane, p)
            if hit == 0:
                continue
            sticking_pair_force(a, bi, W, lane, p, p * W + lane, a.rbc_param[bi, a.rbc_entry[p]],
                                eps, r, s, n, lev, rel, vn, ia, ib, k)
            count += 1
            worst = max(worst, eps / r)
        a.rbc_stats[bi, 0, lane] = worst
        a.rbc_stats[bi, 1, lane] = count
    add_rows(a.node_force[bi], a.rbc_force[bi])


@kernel
def rod_body_anchors(a, bi, W, t):
    """Update the anchors of block bi at its current configuration (update_pair_anchors). A
    positions-stage kernel: after every drift, before the forces."""
    for lane in range(W):
        for p in range(a.rbc_node_a.shape[0]):
            hit, eps, r, s, n, lev, rel, vn, ia, ib, k = pair_geometry(a, bi, W, lane, p)
            update_pair_anchors(a, bi, W, lane, p, p * W + lane, a.rbc_param[bi, a.rbc_entry[p]],
                                hit, eps, r, s, n, lev, rel, vn, ia, ib, k)
