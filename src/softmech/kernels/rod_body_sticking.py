"""Rod-body contact with friction that sticks (softmech.terms.rod_body_contact with a
softmech.terms.friction.StickingFriction): the normal law and geometry of
softmech.kernels.rod_body_contact, the tangential law of softmech.kernels.sticking.

Per pair (element, body) and lane the spring joins two material points: the element's point
p(s_a) = x_a + s_a (x_b - x_a) and the body's point y, kept in the body's frame (it turns and
moves with the body); rbc_anchor (n_blocks, 5, n_pairs*W) holds y (3) [m], the status and s_a.
The spring is u = p(s_a) - (x_b + Q^T y), its tangential part taken about the contact normal n;
the slip velocity w_t is that of the contact point p(s) against the body's material point.
Limit: a body rolling along a rod drags its anchor with it, so rolling is resisted (up to
mu F_n) as if it slid; this law is for contacts that stick or slide.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.rod_body_contact import (RodBodyContactArgs, apply_pair_force,
                                               pair_geometry, to_body)
from softmech.kernels.rod_contact import add_rows, clear_rows
from softmech.kernels.sticking import (NO_CONTACT, S_GAMMA, S_K, STICKING, anchor_slip,
                                       stick_force, tangential)

RodBodyStickArgs = namedtuple("RodBodyStickArgs", RodBodyContactArgs._fields + (
    "rbc_anchor",   # history (n_blocks, ANCHOR_ROWS, n_pairs*W): the body's anchor point y in
                    # its frame [m] (3), the status, the rod's anchor parameter s_a on the element
))
"""RodBodyContactArgs (rbc_param with the rows of softmech.kernels.sticking.N_STICK_PARAMS)
and the anchors."""

ANCHOR_ROWS = 5
"""Rows of rbc_anchor per pair: y (3) [m], status, s_a [-]."""


@kernel(inline="always")
def rod_point(X, ia, ib, s):
    """p(s) = x_a + s (x_b - x_a) [m]: the element's material point at parameter s."""
    return (X[0, ia] + s * (X[0, ib] - X[0, ia]), X[1, ia] + s * (X[1, ib] - X[1, ia]),
            X[2, ia] + s * (X[2, ib] - X[2, ia]))


@kernel(inline="always")
def anchor_spring(a, bi, k, j, P, n):
    """The spring's tangential part u_t (3,) [m] of anchor column j: u = P - (x_b + Q^T y),
    P the rod's anchored material point (lab), n the contact normal."""
    xb, Q, A = a.rb_x[bi], a.rb_Q[bi], a.rbc_anchor[bi]
    u = (P[0] - xb[0, k] - (Q[0, k] * A[0, j] + Q[3, k] * A[1, j] + Q[6, k] * A[2, j]),
         P[1] - xb[1, k] - (Q[1, k] * A[0, j] + Q[4, k] * A[1, j] + Q[7, k] * A[2, j]),
         P[2] - xb[2, k] - (Q[2, k] * A[0, j] + Q[5, k] * A[1, j] + Q[8, k] * A[2, j]))
    return tangential(u[0], u[1], u[2], n)


@kernel
def rod_body_sticking(a, bi, W, t):
    """Add the sticking rod-body contact forces of block bi to a.node_force and the bodies
    (every sticking pair of the scene in this one call); rbc_force and rbc_stats as
    softmech.kernels.rod_body_contact.rod_body_contacts. The normal force acts at the contact
    point p(s), the friction at the anchored material point p(s_a) of the element (its spring's
    end). Reads the anchors, never writes them."""
    clear_rows(a.rbc_force[bi])
    X, A = a.x[bi], a.rbc_anchor[bi]
    for lane in range(W):
        worst = 0.0
        count = 0
        for p in range(a.rbc_node_a.shape[0]):
            prm = a.rbc_param[bi, a.rbc_entry[p]]
            hit, eps, r, s, n, lev, rel, vn, ia, ib, k = pair_geometry(a, bi, W, lane, p)
            if hit == 0:
                continue
            fn = max(prm[S_K, lane] * eps - prm[S_GAMMA, lane] * vn, 0.0)
            apply_pair_force(a, bi, W, ia, ib, k, s, lev, (fn * n[0], fn * n[1], fn * n[2]))
            j = p * W + lane
            sa = A[4, j]
            ut = anchor_spring(a, bi, k, j, rod_point(X, ia, ib, sa), n)
            ft = stick_force(ut, rel, fn, A[3, j], prm, lane)
            # the body point under p(s_a): the lever shifted along the element
            lev_a = (lev[0] + (sa - s) * (X[0, ib] - X[0, ia]),
                     lev[1] + (sa - s) * (X[1, ib] - X[1, ia]),
                     lev[2] + (sa - s) * (X[2, ib] - X[2, ia]))
            apply_pair_force(a, bi, W, ia, ib, k, sa, lev_a, ft)
            count += 1
            worst = max(worst, eps / r)
        a.rbc_stats[bi, 0, lane] = worst
        a.rbc_stats[bi, 1, lane] = count
    add_rows(a.node_force[bi], a.rbc_force[bi])


@kernel
def rod_body_anchors(a, bi, W, t):
    """Update the anchors of block bi at its current configuration (softmech.kernels.sticking:
    new contacts anchor where they touch, springs beyond the cone slide back onto it, lost
    contacts forget). The rod's anchor is a material point of the element, p(s_a): the contact
    point p(s) itself is not one (it shifts along a chord lying on a curved surface by ~R/L
    times any radial jitter of its nodes), so a sticking contact keeps s_a and a new or sliding
    one takes s_a = s. A positions-stage kernel: after every drift, before the forces."""
    A, X = a.rbc_anchor[bi], a.x[bi]
    xb, Q = a.rb_x[bi], a.rb_Q[bi]
    for lane in range(W):
        for p in range(a.rbc_node_a.shape[0]):
            prm = a.rbc_param[bi, a.rbc_entry[p]]
            hit, eps, r, s, n, lev, rel, vn, ia, ib, k = pair_geometry(a, bi, W, lane, p)
            j = p * W + lane
            if hit == 0:
                A[3, j] = NO_CONTACT
                continue
            P = rod_point(X, ia, ib, s)
            if A[3, j] == NO_CONTACT:
                y = to_body(Q, k, P[0] - xb[0, k], P[1] - xb[1, k], P[2] - xb[2, k])
                A[0, j], A[1, j], A[2, j], A[3, j], A[4, j] = y[0], y[1], y[2], STICKING, s
                continue
            ut = anchor_spring(a, bi, k, j, rod_point(X, ia, ib, A[4, j]), n)
            fn = max(prm[S_K, lane] * eps - prm[S_GAMMA, lane] * vn, 0.0)
            c, status = anchor_slip(ut, rel, fn, A[3, j], prm, lane)
            if c != 0.0:   # slide: the spring (1 - c) u_t behind the contact point p(s)
                y = to_body(Q, k, P[0] - (1.0 - c) * ut[0] - xb[0, k],
                            P[1] - (1.0 - c) * ut[1] - xb[1, k],
                            P[2] - (1.0 - c) * ut[2] - xb[2, k])
                A[0, j], A[1, j], A[2, j], A[4, j] = y[0], y[1], y[2], s
            A[3, j] = status
