"""Joint stops: the range of a hinge joint's angle (softmech.terms.joint_stops).

A hinge joint (softmech.kernels.joints) leaves its two ends free to turn about the axis a. Its
angle theta is the rotation of B's frame relative to A's about a, zero at the start:
    theta = atan2((e_A x e_B) . a_A, e_A . e_B)
with e_A, e_B a direction normal to the axis carried by A's and B's frames (equal at the start)
and a_A the axis carried by A's frame, so theta is in (-pi, pi]. Outside [lower, upper] a
one-sided torsional spring and dashpot push it back (the penalty form of a unilateral
constraint, like the joints' own springs; Zhang et al. 2019 eqs. 5-6 use the same soft form):
    pen = theta - upper  (theta > upper),  theta - lower  (theta < lower),  0 inside
    tau_B = -(k_s pen + c_s dtheta/dt) a_A      (on A: -tau_B),  only while pen != 0
with dtheta/dt = (w_B - w_A) . a_A. Its energy k_s pen^2 / 2; a bar of moment of inertia I that
meets the stop at angular speed w0 (no damping) goes past it by w0 sqrt(I / k_s) and leaves at
w0 (tests/validation/test_joint_stops.py).
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.joints import apply_at, kind_arrays, to_lab

S_LOWER, S_UPPER, S_STIFFNESS, S_DAMPING = range(4)
N_STOP_PARAMS = 4

JointStopsArgs = namedtuple("JointStopsArgs", [
    "x", "v", "Q", "w", "rb_x", "rb_v", "rb_Q", "rb_w",     # state
    "stop_end_kind",    # END_ROD_NODE / END_RIGID_POINT of A and B, (n_s, 2) int64
    "stop_end_slot",    # node slot (rod) or rigid-body slot, (n_s, 2) int64
    "stop_end_frame",   # element slot whose frame the rod end carries (rod), (n_s, 2) int64
    "stop_axis",        # hinge axis in A's and B's frames, (n_s, 2, 3)
    "stop_normal",      # a direction normal to the axis in A's and B's frames, (n_s, 2, 3)
    "stop_params",      # lower [rad], upper [rad], k_s [N m/rad], c_s [N m s/rad], (n_blocks, n_s, 4, W)
    "node_force", "elem_couple", "rb_force", "rb_torque",   # outputs (added to)
])


@kernel
def joint_stops(a, bi, W, t):
    """Add the torques of every joint stop of block bi."""
    zero = (0.0, 0.0, 0.0)
    for j in range(a.stop_end_kind.shape[0]):
        xa, va, Qa, wa_, fa_, ca = kind_arrays(a, bi, a.stop_end_kind[j, 0])
        xb, vb, Qb, wb_, fb_, cb = kind_arrays(a, bi, a.stop_end_kind[j, 1])
        sa, sb = a.stop_end_slot[j, 0], a.stop_end_slot[j, 1]
        ea, eb = a.stop_end_frame[j, 0], a.stop_end_frame[j, 1]
        axis, normal = a.stop_axis[j], a.stop_normal[j]
        for lane in range(W):
            ia = ea * W + lane
            ib = eb * W + lane
            qa = (Qa[0, ia], Qa[1, ia], Qa[2, ia], Qa[3, ia], Qa[4, ia], Qa[5, ia], Qa[6, ia],
                  Qa[7, ia], Qa[8, ia])
            qb = (Qb[0, ib], Qb[1, ib], Qb[2, ib], Qb[3, ib], Qb[4, ib], Qb[5, ib], Qb[6, ib],
                  Qb[7, ib], Qb[8, ib])
            ax = to_lab(qa, (axis[0, 0], axis[0, 1], axis[0, 2]))
            na = to_lab(qa, (normal[0, 0], normal[0, 1], normal[0, 2]))
            nb = to_lab(qb, (normal[1, 0], normal[1, 1], normal[1, 2]))
            sin_t = ((na[1] * nb[2] - na[2] * nb[1]) * ax[0] + (na[2] * nb[0] - na[0] * nb[2]) * ax[1]
                     + (na[0] * nb[1] - na[1] * nb[0]) * ax[2])
            theta = math.atan2(sin_t, na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2])
            p = a.stop_params[bi, j]
            pen = 0.0
            if theta > p[S_UPPER, lane]:
                pen = theta - p[S_UPPER, lane]
            elif theta < p[S_LOWER, lane]:
                pen = theta - p[S_LOWER, lane]
            if pen == 0.0:
                continue
            wa = to_lab(qa, (wa_[0, ia], wa_[1, ia], wa_[2, ia]))
            wb = to_lab(qb, (wb_[0, ib], wb_[1, ib], wb_[2, ib]))
            rate = (wb[0] - wa[0]) * ax[0] + (wb[1] - wa[1]) * ax[1] + (wb[2] - wa[2]) * ax[2]
            m = -(p[S_STIFFNESS, lane] * pen + p[S_DAMPING, lane] * rate)
            tau = (m * ax[0], m * ax[1], m * ax[2])
            apply_at(fa_, ca, sa, ea, qa, zero, zero, (-tau[0], -tau[1], -tau[2]), W, lane)
            apply_at(fb_, cb, sb, eb, qb, zero, zero, tau, W, lane)
