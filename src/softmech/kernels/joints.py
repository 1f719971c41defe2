"""Joints between bodies as soft constraints (softmech.terms.joints; Zhang et al., Nat. Commun.
10:4825 (2019), Methods eqs. 5-6: "we avoid ... hard constraints").

Each joint links two end points A and B. An end point is a node of a rod (its frame: that of
the adjacent element) or a point of a rigid body at a fixed offset r in the body frame
(p = x + Q^T r, velocity v + w x (p - x)). With d = p_B - p_A, the force on A is
    F = k d + c (v_B - v_A)          (on B: -F)                 spherical part (eq. 5)
and the torque on B (on A: its opposite), in the lab frame:
    hinge:  tau = k_r a_B x a_A - c_r (dw - (dw.a_A) a_A)
            a_A, a_B: the hinge axis carried by A's and B's frames (equal at rest); the spring
            k_r (1 - a_A.a_B) aligns them, leaving the rotation about the axis free;
    fixed:  tau = -k_r Q_B^T phi - c_r dw,   Q_B = exp(-[phi]x) R0 Q_A
            (phi: the rotation vector from B's rest orientation relative to A, R0 Q_A, to B's
            frame; energy k_r |phi|^2 / 2)
with dw = w_B - w_A the relative angular velocity (lab frame). Forces are applied at the end
points (a rigid body also receives (p - x) x F), torques to the end element's or body's frame.

A spherical joint can be the one-way glue of Zhang et al.'s code (the muscular snake's muscle
rods: "we ignore the effect of the opposite, equivalent force applied on the body"): A's
reaction is
    force:  -F at A (Newton's third law, the default),
    couple: the moment r_A x F of the force about A's node or centre only, no force,
    none:   nothing (B is pulled towards A's point; A does not feel it).
The last two do not conserve momentum on purpose: the force on B has no opposite.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.cosserat_forces import relative_rotation

END_ROD_NODE, END_RIGID_POINT = 0, 1
"""Kinds of end point: a rod node (the engine's rod arrays) or a rigid-body point (rb_ arrays)."""
SPHERICAL, HINGE, FIXED = 0, 1, 2
REACTION_FORCE, REACTION_COUPLE, REACTION_NONE = 0, 1, 2
"""What end A receives of a joint's force (module docstring)."""
J_STIFFNESS, J_DAMPING, J_ROT_STIFFNESS, J_ROT_DAMPING = range(4)
N_JOINT_PARAMS = 4

JointsArgs = namedtuple("JointsArgs", [
    "x", "v", "Q", "w", "rb_x", "rb_v", "rb_Q", "rb_w",     # state
    "joint_kind",       # SPHERICAL / HINGE / FIXED, (n_j,) int64
    "joint_end_kind",   # END_ROD_NODE / END_RIGID_POINT of A and B, (n_j, 2) int64
    "joint_end_slot",   # node slot (rod) or rigid-body slot, (n_j, 2) int64
    "joint_end_frame",  # element slot whose frame the rod end carries (rod), (n_j, 2) int64
    "joint_offset",     # body-frame offset r of a rigid end point (principal frame) [m], (n_j, 2, 3)
    "joint_axis",       # hinge axis in A's and B's frames, (n_j, 2, 3)
    "joint_rest",       # R0 (fixed joints): B's rest frame is R0 Q_A, (n_j, 9)
    "joint_reaction",   # REACTION_FORCE / _COUPLE / _NONE: what A receives, (n_j,) int64
    "joint_params",     # k [N/m], c [N s/m], k_r [N m/rad], c_r [N m s/rad], (n_blocks, n_j, 4, W)
    "joint_force",      # output: force on B [N], (n_blocks, 3, n_j*W)
    "node_force", "elem_couple", "rb_force", "rb_torque",   # outputs (added to)
])


@kernel(inline="always")
def to_lab(q, a):
    """Q^T a: a local vector in the lab frame."""
    return (q[0] * a[0] + q[3] * a[1] + q[6] * a[2], q[1] * a[0] + q[4] * a[1] + q[7] * a[2],
            q[2] * a[0] + q[5] * a[1] + q[8] * a[2])


@kernel(inline="always")
def kind_arrays(a, bi, kind):
    """(x, v, Q, w, force, couple) of block bi for an end of `kind`: a rod node's, or a rigid
    body's (the same formulas serve both; a rod node's offset is 0)."""
    if kind == END_ROD_NODE:
        return a.x[bi], a.v[bi], a.Q[bi], a.w[bi], a.node_force[bi], a.elem_couple[bi]
    return a.rb_x[bi], a.rb_v[bi], a.rb_Q[bi], a.rb_w[bi], a.rb_force[bi], a.rb_torque[bi]


@kernel(inline="always")
def end_point(x, v, Q, w, slot, frame, off, W, lane):
    """Position p = x + Q^T r, velocity u = v + w_lab x Q^T r, frame q (9 entries, rows d1 d2
    d3), lab angular velocity w_lab and lever arm Q^T r of an end point with offset r (body
    frame; 0 for a rod node, whose frame is its element's): (p, u, q, w_lab, Q^T r)."""
    n = slot * W + lane
    e = frame * W + lane
    q = (Q[0, e], Q[1, e], Q[2, e], Q[3, e], Q[4, e], Q[5, e], Q[6, e], Q[7, e], Q[8, e])
    r = to_lab(q, (off[0], off[1], off[2]))
    wl = to_lab(q, (w[0, e], w[1, e], w[2, e]))
    u = (v[0, n] + wl[1] * r[2] - wl[2] * r[1], v[1, n] + wl[2] * r[0] - wl[0] * r[2],
         v[2, n] + wl[0] * r[1] - wl[1] * r[0])
    return ((x[0, n] + r[0], x[1, n] + r[1], x[2, n] + r[2]), u, q, wl, r)


@kernel(inline="always")
def apply_at(force, couple, slot, frame, q, r, f, tau, W, lane):
    """Add force f (lab) at the end point to `force`, and the torque tau + r x f (lab) to
    `couple` in the body's local frame."""
    t0 = tau[0] + r[1] * f[2] - r[2] * f[1]
    t1 = tau[1] + r[2] * f[0] - r[0] * f[2]
    t2 = tau[2] + r[0] * f[1] - r[1] * f[0]
    n = slot * W + lane
    e = frame * W + lane
    for c in range(3):
        force[c, n] += f[c]
    couple[0, e] += q[0] * t0 + q[1] * t1 + q[2] * t2
    couple[1, e] += q[3] * t0 + q[4] * t1 + q[5] * t2
    couple[2, e] += q[6] * t0 + q[7] * t1 + q[8] * t2


@kernel(inline="always")
def joint_torque(kind, qa, qb, wa, wb, axis, rest, kr, cr):
    """Torque on B (lab frame) of a hinge or fixed joint; zero for a spherical joint."""
    dw0 = wb[0] - wa[0]
    dw1 = wb[1] - wa[1]
    dw2 = wb[2] - wa[2]
    if kind == HINGE:
        aa = to_lab(qa, (axis[0, 0], axis[0, 1], axis[0, 2]))
        ab = to_lab(qb, (axis[1, 0], axis[1, 1], axis[1, 2]))
        along = dw0 * aa[0] + dw1 * aa[1] + dw2 * aa[2]
        return (kr * (ab[1] * aa[2] - ab[2] * aa[1]) - cr * (dw0 - along * aa[0]),
                kr * (ab[2] * aa[0] - ab[0] * aa[2]) - cr * (dw1 - along * aa[1]),
                kr * (ab[0] * aa[1] - ab[1] * aa[0]) - cr * (dw2 - along * aa[2]))
    if kind == FIXED:
        # target frame T = R0 Q_A (rows), then phi with Q_B = exp(-[phi]x) T
        t = (rest[0] * qa[0] + rest[1] * qa[3] + rest[2] * qa[6],
             rest[0] * qa[1] + rest[1] * qa[4] + rest[2] * qa[7],
             rest[0] * qa[2] + rest[1] * qa[5] + rest[2] * qa[8],
             rest[3] * qa[0] + rest[4] * qa[3] + rest[5] * qa[6],
             rest[3] * qa[1] + rest[4] * qa[4] + rest[5] * qa[7],
             rest[3] * qa[2] + rest[4] * qa[5] + rest[5] * qa[8],
             rest[6] * qa[0] + rest[7] * qa[3] + rest[8] * qa[6],
             rest[6] * qa[1] + rest[7] * qa[4] + rest[8] * qa[7],
             rest[6] * qa[2] + rest[7] * qa[5] + rest[8] * qa[8])
        p0, p1, p2, _, _, _ = relative_rotation(t[0], t[1], t[2], t[3], t[4], t[5], t[6],
                                                      t[7], t[8], qb[0], qb[1], qb[2], qb[3],
                                                      qb[4], qb[5], qb[6], qb[7], qb[8])
        phi = to_lab(qb, (p0, p1, p2))
        return (-kr * phi[0] - cr * dw0, -kr * phi[1] - cr * dw1, -kr * phi[2] - cr * dw2)
    return (0.0, 0.0, 0.0)


@kernel
def joints(a, bi, W, t):
    """Add the forces and torques of every joint of block bi."""
    out = a.joint_force[bi]
    for j in range(a.joint_kind.shape[0]):
        xa, va, Qa, wa_, fa_, ca = kind_arrays(a, bi, a.joint_end_kind[j, 0])
        xb, vb, Qb, wb_, fb_, cb = kind_arrays(a, bi, a.joint_end_kind[j, 1])
        sa, sb = a.joint_end_slot[j, 0], a.joint_end_slot[j, 1]
        fa, fb = a.joint_end_frame[j, 0], a.joint_end_frame[j, 1]
        oa, ob = a.joint_offset[j, 0], a.joint_offset[j, 1]
        reaction = a.joint_reaction[j]
        for lane in range(W):
            pa, ua, qa, wa, ra = end_point(xa, va, Qa, wa_, sa, fa, oa, W, lane)
            pb, ub, qb, wb, rb = end_point(xb, vb, Qb, wb_, sb, fb, ob, W, lane)
            p = a.joint_params[bi, j]
            k = p[J_STIFFNESS, lane]
            c = p[J_DAMPING, lane]
            f = (k * (pb[0] - pa[0]) + c * (ub[0] - ua[0]), k * (pb[1] - pa[1]) + c * (ub[1] - ua[1]),
                 k * (pb[2] - pa[2]) + c * (ub[2] - ua[2]))
            tau = joint_torque(a.joint_kind[j], qa, qb, wa, wb, a.joint_axis[j], a.joint_rest[j],
                               p[J_ROT_STIFFNESS, lane], p[J_ROT_DAMPING, lane])
            if reaction == REACTION_FORCE:
                apply_at(fa_, ca, sa, fa, qa, ra, f, (-tau[0], -tau[1], -tau[2]), W, lane)
            elif reaction == REACTION_COUPLE:       # r_A x F as a couple, no force
                moment = (ra[1] * f[2] - ra[2] * f[1] - tau[0],
                          ra[2] * f[0] - ra[0] * f[2] - tau[1],
                          ra[0] * f[1] - ra[1] * f[0] - tau[2])
                apply_at(fa_, ca, sa, fa, qa, ra, (0.0, 0.0, 0.0), moment, W, lane)
            apply_at(fb_, cb, sb, fb, qb, rb, (-f[0], -f[1], -f[2]), tau, W, lane)
            out[0, j * W + lane] = -f[0]
            out[1, j * W + lane] = -f[1]
            out[2, j * W + lane] = -f[2]
