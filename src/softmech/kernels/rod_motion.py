"""Motion of Cosserat rods in the block layout (softmech.model): what the explicit integrators
(softmech.integrators.explicit) do to the rods' state between and after force evaluations.

The integrator owns inertia: the force pass (the scene's terms) accumulates forces [N] in
node_force and local couples [N m] in elem_couple; `rod_kick` turns them into accelerations,
    a = F / m + g,   dw/dt = e J^{-1} C                    (handout eq. 4 times e / J)
(g: the rods' body-acceleration field, e.g. gravity), applies the velocity-dependent couples by
implicit midpoint and updates the velocities. `rod_drift` moves positions and rotates frames:
    x += h v,   Q <- exp(-h [w]x) Q                       (handout eqs. 5-6, 9-10)
Closed rods carry ghost slots (copies of node 0 and element 0, see softmech.model) refreshed by
`rod_refresh_positions` / `rod_refresh_rates` after the constraints of every drift and kick.

Each kernel takes its member of a RodMotionArgs tuple, the block index bi and the lane count W.

The two velocity-dependent couples are applied by `rod_gyroscopic_kick` at the mid-point of the
kick (implicit midpoint): evaluated explicitly with the pre-kick velocities, as PyElastica does,
they make the kick an explicit Euler step, which is not time-symmetric: the energy of a spinning
free rod then drifts steadily, angular momentum converges at first order and PEFRL drops to first
order (measured; tests/validation).
"""
from collections import namedtuple

import numpy as np

from softmech.integrators.driver import BodyKind
from softmech.kernels import kernel
from softmech.kernels.cosserat_forces import pair_rows, rows3
from softmech.kernels.so3 import MAX_ROTATION_ANGLE, exp_coefficients

RodDriftArgs = namedtuple("RodDriftArgs", [
    "x", "v", "Q", "w",                                   # state (softmech.model.State)
    "rotation_violations",                                # per block (n_blocks,) int64
])
"""Arrays of rod_drift, rod_drift_twice and rod_status."""

RodKickArgs = namedtuple("RodKickArgs", [
    "x", "v", "w",                                        # state
    "node_force", "elem_couple", "elem_len",              # workspace: forces, couples, lengths
    "node_inv_mass", "node_body_acc", "elem_J", "elem_inv_J", "elem_inv_rest_len",
    "rod_node_off", "rod_elem_off", "rod_n_elems",        # rod bodies (softmech.model.RodBodies)
])
"""Arrays of rod_kick and rod_accelerations."""

RodKickDriftArgs = namedtuple("RodKickDriftArgs", RodKickArgs._fields + ("Q", "rotation_violations"))
"""Arrays of rod_kick_drift (a kick and the drift after it, in one call)."""

RodGhostArgs = namedtuple("RodGhostArgs", [
    "x", "v", "Q", "w", "ghost_node", "ghost_node_src", "ghost_elem", "ghost_elem_src"])
"""Arrays of rod_refresh_positions and rod_refresh_rates."""

RodMotionArgs = namedtuple("RodMotionArgs", ["drift", "kick", "kick_drift", "ghosts"])
"""The integrator's arrays for the rods, one tuple per kernel family: each call passes only the
arrays its kernel reads (a call's cost grows with its arguments: ~0.15 ns per scalar, and an
array is 11 scalars in numba's calling convention)."""

STATUS_OK, STATUS_NONFINITE, STATUS_ROTATION = 0, 1, 2

_MAX_Z = MAX_ROTATION_ANGLE * MAX_ROTATION_ANGLE


@kernel(inline="always")
def rotation_matrix(w0, w1, w2, h):
    """Entries r00, r01, ..., r22 of R = exp(-h [w]x) (Rodrigues with the exact series for angles
    <= 1 rad) and 1 if the angle exceeds MAX_ROTATION_ANGLE, else 0."""
    a0 = h * w0
    a1 = h * w1
    a2 = h * w2
    z = a0 * a0 + a1 * a1 + a2 * a2
    A, Bc = exp_coefficients(z)
    # R = exp(-[a]x) = I - A [a]x + Bc ([a][a]^T - z I)
    r00 = 1.0 + Bc * (a0 * a0 - z)
    r11 = 1.0 + Bc * (a1 * a1 - z)
    r22 = 1.0 + Bc * (a2 * a2 - z)
    r01 = A * a2 + Bc * a0 * a1
    r10 = -A * a2 + Bc * a0 * a1
    r02 = -A * a1 + Bc * a0 * a2
    r20 = A * a1 + Bc * a0 * a2
    r12 = A * a0 + Bc * a1 * a2
    r21 = -A * a0 + Bc * a1 * a2
    return (r00, r01, r02, r10, r11, r12, r20, r21, r22), (1 if z > _MAX_Z else 0)


@kernel(inline="always")
def apply_rotation(Q, k, R):
    """Q[:, k] <- R Q[:, k] (R from rotation_matrix; Q's rows d1, d2, d3 flattened as 9 rows)."""
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = R
    for col in range(3):
        q0 = Q[col, k]
        q1 = Q[3 + col, k]
        q2 = Q[6 + col, k]
        Q[col, k] = r00 * q0 + r01 * q1 + r02 * q2
        Q[3 + col, k] = r10 * q0 + r11 * q1 + r12 * q2
        Q[6 + col, k] = r20 * q0 + r21 * q1 + r22 * q2


@kernel(inline="always")
def rotate(Q, k, w0, w1, w2, h):
    """Q[:, k] <- exp(-h [w]x) Q[:, k]; returns 1 if the angle exceeds MAX_ROTATION_ANGLE, else 0."""
    R, too_large = rotation_matrix(w0, w1, w2, h)
    apply_rotation(Q, k, R)
    return too_large


@kernel(inline="always")
def move(x, v, Q, w, h):
    """x += h v and Q <- exp(-h [w]x) Q on one block's arrays (rod nodes and elements, or rigid
    bodies); returns the number of frames rotated by more than MAX_ROTATION_ANGLE."""
    for c in range(3):
        for k in range(x.shape[1]):
            x[c, k] += h * v[c, k]
    too_large = 0  # integer count: vectorizes without fast-math, unlike a float max reduction
    for k in range(Q.shape[1]):
        too_large += rotate(Q, k, w[0, k], w[1, k], w[2, k], h)
    return too_large


@kernel(inline="always")
def move_twice(x, v, Q, w, h1, h2):
    """move(h1) then move(h2) in one pass over memory, bit-identical to the two calls."""
    for c in range(3):
        for k in range(x.shape[1]):
            x[c, k] = (x[c, k] + h1 * v[c, k]) + h2 * v[c, k]
    too_large = 0
    if h1 == h2:  # the usual case (Verlet: dt/2, PEFRL: xi dt): R computed once, applied twice
        for k in range(Q.shape[1]):
            R, large = rotation_matrix(w[0, k], w[1, k], w[2, k], h1)
            apply_rotation(Q, k, R)
            apply_rotation(Q, k, R)
            too_large += 2 * large
    else:
        for k in range(Q.shape[1]):
            too_large += rotate(Q, k, w[0, k], w[1, k], w[2, k], h1)
            too_large += rotate(Q, k, w[0, k], w[1, k], w[2, k], h2)
    return too_large


@kernel(inline="always")
def drift(a, bi, h):
    """x += h v and Q <- exp(-h [w]x) Q."""
    a.rotation_violations[bi] += move(a.x[bi], a.v[bi], a.Q[bi], a.w[bi], h)


@kernel(inline="always")
def drift_twice(a, bi, h1, h2):
    """drift(h1) then drift(h2) in one pass over memory, bit-identical to the two calls: a step's
    closing drift and the next step's opening drift, merged without changing any rounding, so a
    run's result does not depend on how it is split into calls (recording intervals, resume).
    With h1 == h2 both rotations are the same matrix (same w, same h): it is built once."""
    a.rotation_violations[bi] += move_twice(a.x[bi], a.v[bi], a.Q[bi], a.w[bi], h1, h2)


@kernel(inline="always")
def gyroscopic_coefficients(J0, J1, J2, iJ0, iJ1, iJ2):
    """(c0, c1, c2) = ((J1 - J2) / J0, (J2 - J0) / J1, (J0 - J1) / J2) [-] for the principal mass
    moments of inertia J (and their reciprocals iJ): J^{-1} ((J w) x w) = (c0 w1 w2, c1 w2 w0,
    c2 w0 w1) (Euler's equations), three products per evaluation instead of nine."""
    return (J1 - J2) * iJ0, (J2 - J0) * iJ1, (J0 - J1) * iJ2


@kernel(inline="always")
def velocity_couples(c0, c1, c2, w0, w1, w2, rate):
    """Angular acceleration of the velocity-dependent couples (eq. 4 times e J^{-1}):
    J^{-1} ((J w) x w) + w rate, with (c0, c1, c2) from gyroscopic_coefficients and
    rate = (de/dt) / e [1/s]."""
    return (c0 * w1 * w2 + w0 * rate, c1 * w2 * w0 + w1 * rate, c2 * w0 * w1 + w2 * rate)


GYROSCOPIC_ITERATIONS = 4
"""Fixed-point iterations of the implicit-midpoint kick. Each one contracts the error by about
h |w| / 2 (half the frame's rotation during the kick), so after k iterations the residual per
step is ~ (h |w|)^(k+1) / 2^k relative to w: 6e-12 for k = 4 even at h |w| = 1e-2 (typical runs:
h |w| < 1e-3). A fixed count keeps the loop branch-free (vectorizable)."""


@kernel(inline="always")
def midpoint_spin(wo0, wo1, wo2, al0, al1, al2, c0, c1, c2, rate, half):
    """w_old + 2 half (alpha + g(w_mid)) with w_mid = (w_old + w_new) / 2 (implicit midpoint):
    the explicit part to the mid-point, then GYROSCOPIC_ITERATIONS fixed-point iterations on
    the velocity-dependent terms g (velocity_couples). Returns the new angular velocity."""
    wh0 = wo0 + half * al0
    wh1 = wo1 + half * al1
    wh2 = wo2 + half * al2
    a0 = wh0
    a1 = wh1
    a2 = wh2
    for _ in range(GYROSCOPIC_ITERATIONS):
        g0, g1, g2 = velocity_couples(c0, c1, c2, a0, a1, a2, rate)
        a0 = wh0 + half * g0
        a1 = wh1 + half * g1
        a2 = wh2 + half * g2
    return 2.0 * a0 - wo0, 2.0 * a1 - wo1, 2.0 * a2 - wo2


@kernel(inline="always")
def rod_gyroscopic_kick(a, bi, W, r, h):
    """w += h (alpha + g(w_mid)) for the real elements of rod r, with the velocity-dependent part
    g(w) = e J^{-1} [(J w / e) x w + (J w / e) de/dt / e] = J^{-1} ((J w) x w) + w de/dt / e
    evaluated at w_mid = (w_old + w_new) / 2 and at the mid-kick node velocities v + h a / 2
    (implicit midpoint: time-symmetric, and it conserves the rotational kinetic energy of a free
    element exactly). alpha (a.elem_couple) holds all other angular accelerations."""
    e0 = a.rod_elem_off[r] * W
    ne = a.rod_n_elems[r] * W
    na = a.rod_node_off[r] * W
    half = 0.5 * h
    xa0, xa1, xa2, xb0, xb1, xb2 = pair_rows(a.x[bi], na, W)
    va0, va1, va2, vb0, vb1, vb2 = pair_rows(a.v[bi], na, W)
    aa0, aa1, aa2, ab0, ab1, ab2 = pair_rows(a.node_force[bi], na, W)
    w0_, w1_, w2_ = rows3(a.w[bi], e0)
    al0, al1, al2 = rows3(a.elem_couple[bi], e0)
    J0, J1, J2 = rows3(a.elem_J[bi], e0)
    iJ0, iJ1, iJ2 = rows3(a.elem_inv_J[bi], e0)
    length = a.elem_len[bi, e0:]
    for k in range(ne):
        dx0 = xb0[k] - xa0[k]
        dx1 = xb1[k] - xa1[k]
        dx2 = xb2[k] - xa2[k]
        # de/dt / e = t . dv / l with t = dx / l: (dx . dv_mid) / l^2
        dm0 = vb0[k] - va0[k] + half * (ab0[k] - aa0[k])
        dm1 = vb1[k] - va1[k] + half * (ab1[k] - aa1[k])
        dm2 = vb2[k] - va2[k] + half * (ab2[k] - aa2[k])
        il = 1.0 / length[k]
        rate = (dx0 * dm0 + dx1 * dm1 + dx2 * dm2) * il * il
        c0, c1, c2 = gyroscopic_coefficients(J0[k], J1[k], J2[k], iJ0[k], iJ1[k], iJ2[k])
        w0_[k], w1_[k], w2_[k] = midpoint_spin(w0_[k], w1_[k], w2_[k], al0[k], al1[k], al2[k],
                                               c0, c1, c2, rate, half)


@kernel(inline="always")
def rod_velocity_couples_explicit(a, bi, W, r):
    """alpha += the velocity-dependent angular accelerations at the current velocities (for
    diagnostics: Simulation.accelerations; the integrator uses rod_gyroscopic_kick)."""
    e0 = a.rod_elem_off[r] * W
    na = a.rod_node_off[r] * W
    x = a.x[bi]
    v = a.v[bi]
    w = a.w[bi]
    alpha = a.elem_couple[bi]
    for i in range(a.rod_n_elems[r] * W):
        k = e0 + i
        first = na + i
        second = first + W
        num = 0.0
        for c in range(3):
            num += (x[c, second] - x[c, first]) * (v[c, second] - v[c, first])
        rate = num / (a.elem_len[bi, k] * a.elem_len[bi, k])
        c0, c1, c2 = gyroscopic_coefficients(
            a.elem_J[bi, 0, k], a.elem_J[bi, 1, k], a.elem_J[bi, 2, k], a.elem_inv_J[bi, 0, k],
            a.elem_inv_J[bi, 1, k], a.elem_inv_J[bi, 2, k])
        g0, g1, g2 = velocity_couples(c0, c1, c2, w[0, k], w[1, k], w[2, k], rate)
        alpha[0, k] += g0
        alpha[1, k] += g1
        alpha[2, k] += g2


@kernel(inline="always")
def to_accelerations(a, bi):
    """node_force [N] -> a = F / m + g [m/s^2] and elem_couple [N m] -> e J^{-1} C [rad/s^2],
    in place (handout eq. 4; the integrator's inertia)."""
    acc = a.node_force[bi]
    im = a.node_inv_mass[bi]
    g = a.node_body_acc[bi]
    for c in range(3):
        for k in range(acc.shape[1]):
            acc[c, k] = acc[c, k] * im[k] + g[c, k]
    alpha = a.elem_couple[bi]
    iJ = a.elem_inv_J[bi]
    length = a.elem_len[bi]
    irl = a.elem_inv_rest_len[bi]
    for c in range(3):
        for k in range(alpha.shape[1]):
            alpha[c, k] *= length[k] * irl[k] * iJ[c, k]


@kernel
def rod_kick(a, bi, W, h):
    """v += h a, w += h dw/dt from the forces and couples of the force pass; the
    velocity-dependent couples by implicit midpoint (rod_gyroscopic_kick)."""
    kick(a, bi, W, h)


@kernel
def rod_kick_drift(a, bi, W, h, h1, h2):
    """kick(h), then drift(h1) (h2 == 0) or drift_twice(h1, h2): bit-identical to rod_kick then
    rod_drift / rod_drift_twice, in one call, for steps with no constraint between the two
    (integrators.explicit: a call costs ~30-40 ns per step)."""
    kick(a, bi, W, h)
    if h2 == 0.0:
        drift(a, bi, h1)
    else:
        drift_twice(a, bi, h1, h2)


@kernel(inline="always")
def kick(a, bi, W, h):
    """The body of rod_kick."""
    to_accelerations(a, bi)
    for r in range(a.rod_n_elems.shape[0]):
        rod_gyroscopic_kick(a, bi, W, r, h)
    v = a.v[bi]
    acc = a.node_force[bi]
    for c in range(3):
        for k in range(v.shape[1]):
            v[c, k] += h * acc[c, k]


@kernel
def rod_accelerations(a, bi, W):
    """node_force, elem_couple <- the accelerations of the current state (diagnostics): as
    rod_kick, with the velocity-dependent couples at the current velocities."""
    to_accelerations(a, bi)
    for r in range(a.rod_n_elems.shape[0]):
        rod_velocity_couples_explicit(a, bi, W, r)


@kernel
def rod_drift(a, bi, W, h):
    """x += h v and Q <- exp(-h [w]x) Q on block bi."""
    drift(a, bi, h)


@kernel
def rod_drift_twice(a, bi, W, h1, h2):
    """drift(h1) then drift(h2), bit-identical to two rod_drift calls (drift_twice). The step
    of a scene with constraints calls it (they keep the kick and the drift apart); inlining it
    there saved one call per step (cantilever at B = 1: 1.15 -> 1.10 x the fused engine's time)
    but added 4 s to that scene's compile, measured, so it stays a call."""
    drift_twice(a, bi, h1, h2)


@kernel(inline="always")
def copy_slots(arr, dst, src, W):
    """arr[:, dst[i]*W + lane] = arr[:, src[i]*W + lane]: refresh the ghost slots of closed rods."""
    for i in range(dst.shape[0]):
        for c in range(arr.shape[0]):
            for lane in range(W):
                arr[c, dst[i] * W + lane] = arr[c, src[i] * W + lane]


@kernel(inline="always")
def rod_refresh_positions(a, bi, W, t):
    """Ghost slots of closed rods <- node 0's position and element 0's frame."""
    copy_slots(a.x[bi], a.ghost_node, a.ghost_node_src, W)
    copy_slots(a.Q[bi], a.ghost_elem, a.ghost_elem_src, W)


@kernel(inline="always")
def rod_refresh_rates(a, bi, W, t):
    """Ghost slots of closed rods <- node 0's velocity and element 0's angular velocity."""
    copy_slots(a.v[bi], a.ghost_node, a.ghost_node_src, W)
    copy_slots(a.w[bi], a.ghost_elem, a.ghost_elem_src, W)


@kernel(inline="always")
def rod_reset_status(a, bi):
    """Before a call of the time loop: no rotation violation counted yet on block bi."""
    a.rotation_violations[bi] = 0


@kernel
def rod_status(a, bi):
    """STATUS_NONFINITE if any state entry of block bi is NaN/inf, STATUS_ROTATION if a drift
    rotated a frame by more than MAX_ROTATION_ANGLE, else STATUS_OK."""
    return state_status((a.x[bi], a.v[bi], a.w[bi], a.Q[bi]), a.rotation_violations[bi])


@kernel(inline="always")
def state_status(arrays, rotation_violations):
    """STATUS_NONFINITE if an entry of the (2D) arrays is NaN/inf, STATUS_ROTATION if
    rotation_violations > 0, else STATUS_OK."""
    acc = 0.0
    for arr in arrays:
        for c in range(arr.shape[0]):
            for k in range(arr.shape[1]):
                acc += arr[c, k] * 0.0
    if not np.isfinite(acc):
        return STATUS_NONFINITE
    if rotation_violations > 0:
        return STATUS_ROTATION
    return STATUS_OK


ROD_MOTION = BodyKind(
    drift=rod_drift, drift_twice=rod_drift_twice, kick=rod_kick, kick_drift=rod_kick_drift,
    reset_status=rod_reset_status, status=rod_status, accelerations=rod_accelerations,
    refresh_positions=rod_refresh_positions, refresh_rates=rod_refresh_rates)
"""The motion kernels of the Cosserat rod body kind (softmech.integrators.driver.BodyKind)."""
