"""Driven ends (softmech.terms.driven): a rod end or a rigid body moved and turned over time.

Each driven end follows a table of displacements u(t_k) [m] and rotation vectors theta(t_k)
[rad] (lab frame, about the end point), interpolated linearly in time and held constant outside
the table. Its target pose at time t is
    p(t) = p0 + u(t),        frame (rows d1 d2 d3)  Q(t) = Q0 R(t)^T,  R = exp([theta]x)
(each director turned by R: d_i(t) = R d_i(0)), with velocity du/dt and lab angular velocity
    omega = dexp(theta) dtheta/dt
        = dtheta + (1 - cos|theta|)/|theta|^2 theta x dtheta
          + (|theta| - sin|theta|)/|theta|^3 theta x (theta x dtheta)
(the left Jacobian of SO(3): Bullo & Lewis, "Geometric Control of Mechanical Systems", 2005,
or Sola et al., "A micro Lie theory", 2018, eq. 143), exact for a rotation about a fixed axis.

With a slide direction s (unit, lab), the component along s is left free: after the integrator
moves the body, x <- p + ((x - p).s) s and v <- dp/dt + ((v - dp/dt).s) s, so the body slides
along s under the loads on it (a weight hanging from a twisted rod).

A rod end's position is imposed on its end node; its frame is imposed elastically, through the
half Voronoi domain of softmech.kernels.anchors (whose target frame `anchor_Q` drive_positions
writes), as softmech.terms.boundary.Clamp does for a fixed end. A rigid body's pose and
velocities are imposed directly (its frame in the engine's principal axes).
"""
import math
from collections import namedtuple

from softmech.kernels import kernel

DRIVE_ROD_NODE, DRIVE_RIGID_BODY = 0, 1

DrivenArgs = namedtuple("DrivenArgs", [
    "x", "v", "rb_x", "rb_v", "rb_Q", "rb_w",  # state (overwritten where driven)
    "drive_kind",      # DRIVE_ROD_NODE / DRIVE_RIGID_BODY, (n_d,) int64
    "drive_slot",      # node slot (rod end) or rigid-body slot, (n_d,) int64
    "drive_anchor",    # row of anchor_Q holding the rod end's target frame (-1: none), (n_d,) int64
    "drive_count",     # number of table samples, (n_d,) int64
    "drive_times",     # table times [s], (n_d, n_t), increasing (padded past drive_count)
    "drive_disp",      # displacement u [m], (n_d, n_t, 3)
    "drive_rot",       # rotation vector theta [rad] (lab frame), (n_d, n_t, 3)
    "drive_pos0",      # initial position p0 [m], (n_d, 3)
    "drive_Q0",        # initial frame Q0, rows d1 d2 d3 (principal axes of a rigid body), (n_d, 9)
    "drive_slide",     # slide direction s (unit; zero: no slide), (n_d, 3)
    "anchor_Q",        # output: rod ends' target frames, (n_blocks, n_anchors, 9, W)
])


@kernel(inline="always")
def table_sample(times, values, count, t):
    """Linear interpolation of values (n_t, 3) at times (n_t,) (first `count` samples) at time t,
    held constant outside [times[0], times[count-1]]: (value (3,), rate (3,) [per s])."""
    if t <= times[0] or count == 1:
        return (values[0, 0], values[0, 1], values[0, 2]), (0.0, 0.0, 0.0)
    if t >= times[count - 1]:
        k = count - 1
        return (values[k, 0], values[k, 1], values[k, 2]), (0.0, 0.0, 0.0)
    lo, hi = 0, count - 1
    while hi - lo > 1:   # bisection: times[lo] <= t < times[hi]
        mid = (lo + hi) // 2
        if times[mid] <= t:
            lo = mid
        else:
            hi = mid
    span = times[hi] - times[lo]
    s = (t - times[lo]) / span
    r0 = (values[hi, 0] - values[lo, 0]) / span
    r1 = (values[hi, 1] - values[lo, 1]) / span
    r2 = (values[hi, 2] - values[lo, 2]) / span
    return ((values[lo, 0] + s * (values[hi, 0] - values[lo, 0]),
             values[lo, 1] + s * (values[hi, 1] - values[lo, 1]),
             values[lo, 2] + s * (values[hi, 2] - values[lo, 2])), (r0, r1, r2))


@kernel(inline="always")
def rotation_coefficients(th):
    """(sin|th|/|th|, (1 - cos|th|)/|th|^2, (|th| - sin|th|)/|th|^3) of a rotation vector th,
    by their Taylor series near 0 (exact to round-off for |th| < 1e-3)."""
    t2 = th[0] * th[0] + th[1] * th[1] + th[2] * th[2]
    if t2 < 1e-6:
        return 1.0 - t2 / 6.0, 0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0
    n = math.sqrt(t2)
    s = math.sin(n)
    return s / n, (1.0 - math.cos(n)) / t2, (n - s) / (t2 * n)


@kernel(inline="always")
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel(inline="always")
def turn(th, A, B, v):
    """R v with R = exp([th]x) = I + A [th]x + B [th]x^2 (Rodrigues)."""
    c = cross(th, v)
    cc = cross(th, c)
    return (v[0] + A * c[0] + B * cc[0], v[1] + A * c[1] + B * cc[1], v[2] + A * c[2] + B * cc[2])


@kernel(inline="always")
def target_frame(Q0, th):
    """Rows of Q0 R^T: each director d_i of Q0 turned by R = exp([th]x), 9 entries."""
    A, B, _ = rotation_coefficients(th)
    d1 = turn(th, A, B, (Q0[0], Q0[1], Q0[2]))
    d2 = turn(th, A, B, (Q0[3], Q0[4], Q0[5]))
    d3 = turn(th, A, B, (Q0[6], Q0[7], Q0[8]))
    return (d1[0], d1[1], d1[2], d2[0], d2[1], d2[2], d3[0], d3[1], d3[2])


@kernel(inline="always")
def slide_free(target, current, s):
    """target + ((current - target).s) s: the target with the component along s left free."""
    along = (current[0] - target[0]) * s[0] + (current[1] - target[1]) * s[1] + \
        (current[2] - target[2]) * s[2]
    return (target[0] + along * s[0], target[1] + along * s[1], target[2] + along * s[2])


@kernel(inline="always")
def impose(x, base, W, target, s):
    """x[:, base + lane] <- slide_free(target, x[:, base + lane], s) for every lane."""
    for lane in range(W):
        k = base + lane
        xn = slide_free(target, (x[0, k], x[1, k], x[2, k]), s)
        for c in range(3):
            x[c, k] = xn[c]


@kernel
def drive_positions(a, bi, W, t):
    """Impose the driven ends' positions (and rigid bodies' frames) at time t, and write the
    rod ends' target frames for their anchors."""
    for d in range(a.drive_kind.shape[0]):
        n = a.drive_count[d]
        u, _ = table_sample(a.drive_times[d], a.drive_disp[d], n, t)
        th, _ = table_sample(a.drive_times[d], a.drive_rot[d], n, t)
        q = target_frame(a.drive_Q0[d], th)
        p0 = a.drive_pos0[d]
        p = (p0[0] + u[0], p0[1] + u[1], p0[2] + u[2])
        s = a.drive_slide[d]
        rigid = a.drive_kind[d] == DRIVE_RIGID_BODY
        base = a.drive_slot[d] * W
        impose(a.rb_x[bi] if rigid else a.x[bi], base, W, p, s)
        for lane in range(W):
            for c in range(9):
                if rigid:
                    a.rb_Q[bi, c, base + lane] = q[c]
                else:
                    a.anchor_Q[bi, a.drive_anchor[d], c, lane] = q[c]


@kernel
def drive_rates(a, bi, W, t):
    """Impose the driven ends' velocities (and rigid bodies' angular velocities) at time t."""
    for d in range(a.drive_kind.shape[0]):
        n = a.drive_count[d]
        _, du = table_sample(a.drive_times[d], a.drive_disp[d], n, t)
        s = a.drive_slide[d]
        rigid = a.drive_kind[d] == DRIVE_RIGID_BODY
        base = a.drive_slot[d] * W
        impose(a.rb_v[bi] if rigid else a.v[bi], base, W, du, s)
        if rigid:
            th, dth = table_sample(a.drive_times[d], a.drive_rot[d], n, t)
            _, B, C = rotation_coefficients(th)
            c1 = cross(th, dth)
            c2 = cross(th, c1)
            om = (dth[0] + B * c1[0] + C * c2[0], dth[1] + B * c1[1] + C * c2[1],
                  dth[2] + B * c1[2] + C * c2[2])
            Q = a.rb_Q[bi]
            for lane in range(W):
                k = base + lane   # body-frame angular velocity Q omega_lab
                for c in range(3):
                    a.rb_w[bi, c, k] = Q[3 * c, k] * om[0] + Q[3 * c + 1, k] * om[1] + \
                        Q[3 * c + 2, k] * om[2]
