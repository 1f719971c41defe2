"""Contact of rigid bodies with planes (softmech.terms.rigid.RigidGroundContact).

Each body carries contact features (softmech.bodies.rigid_body): a centre c, a sphere radius r
and a disc (axis a, radius R), in its principal frame. A feature's point nearest to the plane
(origin o, unit normal n) is the sphere of radius r around the disc's lowest point
    p = c - R u / |u|,  u = n - (n.a) a        (p = c when the disc is parallel to the plane)
so a sphere is a feature with R = 0, a box corner one with r = R = 0 and a cylinder's end cap
one with r = 0. With penetration d = r - (p - o).n > 0 at the contact point q = p - r n:
    N = max(0, k d - gamma v_n)                                   (penalty with damping)
    F_t = -mu N v_t / max(|v_t|, v_s),  mu = mu_s if |v_t| < v_s else mu_k
where v_q = v + w x (q - x) is the velocity of the body's material point at q, v_n = v_q.n and
v_t = v_q - v_n n. Below the slip velocity v_s the friction is viscous (a regularised Coulomb
law, as in most explicit penalty codes): a body held by static friction creeps at a speed
below v_s instead of sticking exactly. F = N n + F_t acts at q: force F and torque (q - x) x F.
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.sticking import (NO_CONTACT, S_GAMMA, S_K, STICKING, anchor_slip,
                                       stick_force, tangential)

P_STIFFNESS, P_DAMPING, P_STATIC, P_KINETIC, P_SLIP = range(5)
N_PARAMS = 5
"""Rows of a contact entry's per-world parameters."""

RigidGroundContactArgs = namedtuple("RigidGroundContactArgs", [
    "rb_x", "rb_v", "rb_Q", "rb_w",          # state
    "feat_body",        # body slot of each feature (n_f,) int64
    "feat_entry",       # contact entry (term) of each feature (n_f,) int64
    "feat_geometry",    # (n_f, 8): centre (3) and disc axis (3) in the principal frame, r, R [m]
    "plane",            # (n_entries, 6): plane origin (3) [m], unit normal (3)
    "params",           # (n_blocks, n_entries, N_PARAMS, W): k [N/m], gamma [N s/m], mu_s, mu_k, v_s [m/s]
    "feat_force",       # output: contact force of each feature [N], (n_blocks, 3, n_f*W)
    "rb_force", "rb_torque",                 # outputs (added to)
])


@kernel
def feature_contact(a, bi, W, f, lane):
    """Feature f of block bi in one lane against its entry's plane: (penetration d [m] (> 0
    in contact), lever r (3,) [m] of the contact point q from the body's centre (lab), the
    material velocity v_q (3,) [m/s] there, its normal part v_n [m/s], body slot k)."""
    x, v, Q, w = a.rb_x[bi], a.rb_v[bi], a.rb_Q[bi], a.rb_w[bi]
    e = a.feat_entry[f]
    g = a.feat_geometry[f]
    o0, o1, o2, n0, n1, n2 = a.plane[e, 0], a.plane[e, 1], a.plane[e, 2], a.plane[e, 3], \
        a.plane[e, 4], a.plane[e, 5]
    k = a.feat_body[f] * W + lane
    # centre and disc axis in the lab frame: Q^T times the principal-frame vectors
    c0 = x[0, k] + Q[0, k] * g[0] + Q[3, k] * g[1] + Q[6, k] * g[2]
    c1 = x[1, k] + Q[1, k] * g[0] + Q[4, k] * g[1] + Q[7, k] * g[2]
    c2 = x[2, k] + Q[2, k] * g[0] + Q[5, k] * g[1] + Q[8, k] * g[2]
    ax0 = Q[0, k] * g[3] + Q[3, k] * g[4] + Q[6, k] * g[5]
    ax1 = Q[1, k] * g[3] + Q[4, k] * g[4] + Q[7, k] * g[5]
    ax2 = Q[2, k] * g[3] + Q[5, k] * g[4] + Q[8, k] * g[5]
    na = n0 * ax0 + n1 * ax1 + n2 * ax2
    u0 = n0 - na * ax0
    u1 = n1 - na * ax1
    u2 = n2 - na * ax2
    un = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    s = g[7] / un if un > 1e-12 else 0.0
    p0 = c0 - s * u0
    p1 = c1 - s * u1
    p2 = c2 - s * u2
    d = g[6] - ((p0 - o0) * n0 + (p1 - o1) * n1 + (p2 - o2) * n2)
    if not d > 0.0:
        return d, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0, k
    # lever arm of the contact point q = p - r n, and its material velocity
    r0 = p0 - g[6] * n0 - x[0, k]
    r1 = p1 - g[6] * n1 - x[1, k]
    r2 = p2 - g[6] * n2 - x[2, k]
    wl0 = Q[0, k] * w[0, k] + Q[3, k] * w[1, k] + Q[6, k] * w[2, k]
    wl1 = Q[1, k] * w[0, k] + Q[4, k] * w[1, k] + Q[7, k] * w[2, k]
    wl2 = Q[2, k] * w[0, k] + Q[5, k] * w[1, k] + Q[8, k] * w[2, k]
    vq0 = v[0, k] + wl1 * r2 - wl2 * r1
    vq1 = v[1, k] + wl2 * r0 - wl0 * r2
    vq2 = v[2, k] + wl0 * r1 - wl1 * r0
    vn = vq0 * n0 + vq1 * n1 + vq2 * n2
    return d, (r0, r1, r2), (vq0, vq1, vq2), vn, k


@kernel(inline="always")
def add_feature_force(a, bi, W, f, lane, k, r, f0, f1, f2):
    """Force (f0, f1, f2) [N] at lever r on body slot k: force, body-frame torque, feat_force."""
    Q = a.rb_Q[bi]
    force = a.rb_force[bi]
    torque = a.rb_torque[bi]
    force[0, k] += f0
    force[1, k] += f1
    force[2, k] += f2
    t0 = r[1] * f2 - r[2] * f1
    t1 = r[2] * f0 - r[0] * f2
    t2 = r[0] * f1 - r[1] * f0
    torque[0, k] += Q[0, k] * t0 + Q[1, k] * t1 + Q[2, k] * t2
    torque[1, k] += Q[3, k] * t0 + Q[4, k] * t1 + Q[5, k] * t2
    torque[2, k] += Q[6, k] * t0 + Q[7, k] * t1 + Q[8, k] * t2


@kernel
def rigid_ground_contact(a, bi, W, t):
    """Add the plane-contact forces and torques of every feature of block bi."""
    out = a.feat_force[bi]
    for f in range(a.feat_body.shape[0]):
        e = a.feat_entry[f]
        n0, n1, n2 = a.plane[e, 3], a.plane[e, 4], a.plane[e, 5]
        for lane in range(W):
            d, r, vq, vn, k = feature_contact(a, bi, W, f, lane)
            f0 = 0.0
            f1 = 0.0
            f2 = 0.0
            if d > 0.0:
                p = a.params[bi, e]
                normal = max(0.0, p[P_STIFFNESS, lane] * d - p[P_DAMPING, lane] * vn)
                vt0 = vq[0] - vn * n0
                vt1 = vq[1] - vn * n1
                vt2 = vq[2] - vn * n2
                vt = np.sqrt(vt0 * vt0 + vt1 * vt1 + vt2 * vt2)
                slip = p[P_SLIP, lane]
                mu = p[P_STATIC, lane] if vt < slip else p[P_KINETIC, lane]
                scale = -mu * normal / max(vt, slip)
                f0 = normal * n0 + scale * vt0
                f1 = normal * n1 + scale * vt1
                f2 = normal * n2 + scale * vt2
                add_feature_force(a, bi, W, f, lane, k, r, f0, f1, f2)
            out[0, f * W + lane] = f0
            out[1, f * W + lane] = f1
            out[2, f * W + lane] = f2


RigidStickArgs = namedtuple("RigidStickArgs", RigidGroundContactArgs._fields + (
    "feat_anchor",  # history (n_blocks, FEATURE_ANCHOR_ROWS, n_f*W): the body's anchored
                    # material point b in its frame (3) [m], the plane's anchor A (lab) (3)
                    # [m], the status (softmech.kernels.sticking)
))
"""RigidGroundContactArgs (params with the rows of softmech.kernels.sticking.N_STICK_PARAMS)
and the anchors."""

FEATURE_ANCHOR_ROWS = 7


@kernel(inline="always")
def feature_spring(a, bi, k, j, n):
    """Tangential part u_t (3,) [m] of the spring of anchor column j: the body's anchored
    material point x + Q^T b minus the plane's anchor A, about the plane normal n."""
    x, Q, A = a.rb_x[bi], a.rb_Q[bi], a.feat_anchor[bi]
    u0 = x[0, k] + Q[0, k] * A[0, j] + Q[3, k] * A[1, j] + Q[6, k] * A[2, j] - A[3, j]
    u1 = x[1, k] + Q[1, k] * A[0, j] + Q[4, k] * A[1, j] + Q[7, k] * A[2, j] - A[4, j]
    u2 = x[2, k] + Q[2, k] * A[0, j] + Q[5, k] * A[1, j] + Q[8, k] * A[2, j] - A[5, j]
    return tangential(u0, u1, u2, n)


@kernel
def rigid_ground_sticking(a, bi, W, t):
    """Add the plane-contact forces of every sticking feature of block bi: the normal law of
    rigid_ground_contact, the friction of softmech.kernels.sticking acting at the body's
    anchored material point. Reads the anchors, never writes them."""
    out, A, x, Q = a.feat_force[bi], a.feat_anchor[bi], a.rb_x[bi], a.rb_Q[bi]
    for f in range(a.feat_body.shape[0]):
        e = a.feat_entry[f]
        n = (a.plane[e, 3], a.plane[e, 4], a.plane[e, 5])
        for lane in range(W):
            d, r, vq, vn, k = feature_contact(a, bi, W, f, lane)
            j = f * W + lane
            out[0, j] = 0.0
            out[1, j] = 0.0
            out[2, j] = 0.0
            if not d > 0.0:
                continue
            p = a.params[bi, e]
            normal = max(0.0, p[S_K, lane] * d - p[S_GAMMA, lane] * vn)
            add_feature_force(a, bi, W, f, lane, k, r, normal * n[0], normal * n[1],
                              normal * n[2])
            ft = stick_force(feature_spring(a, bi, k, j, n), tangential(vq[0], vq[1], vq[2], n),
                             normal, A[6, j], p, lane)
            ra = (Q[0, k] * A[0, j] + Q[3, k] * A[1, j] + Q[6, k] * A[2, j],
                  Q[1, k] * A[0, j] + Q[4, k] * A[1, j] + Q[7, k] * A[2, j],
                  Q[2, k] * A[0, j] + Q[5, k] * A[1, j] + Q[8, k] * A[2, j])
            add_feature_force(a, bi, W, f, lane, k, ra, ft[0], ft[1], ft[2])
            out[0, j] = normal * n[0] + ft[0]
            out[1, j] = normal * n[1] + ft[1]
            out[2, j] = normal * n[2] + ft[2]


@kernel
def rigid_ground_anchors(a, bi, W, t):
    """Update the anchors of every sticking feature of block bi at its current configuration
    (softmech.kernels.sticking): a new contact anchors the body's material point at the contact
    point q and the plane's point under it; a spring beyond the cone slides, re-anchoring at q
    with the spring (1 - c) u_t; a lost contact forgets. Positions stage: after every drift."""
    A, x, Q = a.feat_anchor[bi], a.rb_x[bi], a.rb_Q[bi]
    for f in range(a.feat_body.shape[0]):
        e = a.feat_entry[f]
        n = (a.plane[e, 3], a.plane[e, 4], a.plane[e, 5])
        for lane in range(W):
            d, r, vq, vn, k = feature_contact(a, bi, W, f, lane)
            j = f * W + lane
            if not d > 0.0:
                A[6, j] = NO_CONTACT
                continue
            ut = (0.0, 0.0, 0.0)
            status = STICKING
            if A[6, j] != NO_CONTACT:
                p = a.params[bi, e]
                normal = max(0.0, p[S_K, lane] * d - p[S_GAMMA, lane] * vn)
                ut = feature_spring(a, bi, k, j, n)
                c, status = anchor_slip(ut, tangential(vq[0], vq[1], vq[2], n), normal, A[6, j],
                                        p, lane)
                if c == 0.0:
                    A[6, j] = status
                    continue
                ut = ((1.0 - c) * ut[0], (1.0 - c) * ut[1], (1.0 - c) * ut[2])
            # anchor at q: body point b = Q r, plane point q - u_t
            b = (Q[0, k] * r[0] + Q[1, k] * r[1] + Q[2, k] * r[2],
                 Q[3, k] * r[0] + Q[4, k] * r[1] + Q[5, k] * r[2],
                 Q[6, k] * r[0] + Q[7, k] * r[1] + Q[8, k] * r[2])
            A[0, j], A[1, j], A[2, j] = b[0], b[1], b[2]
            A[3, j] = x[0, k] + r[0] - ut[0]
            A[4, j] = x[1, k] + r[1] - ut[1]
            A[5, j] = x[2, k] + r[2] - ut[2]
            A[6, j] = status
