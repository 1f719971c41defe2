"""Motion of rigid bodies in the block layout (softmech.model: RigidBodies, the rb_ fields of
State and Workspace): the rigid-body kind's kernels for the explicit integrators.

Newton-Euler in the principal frame (softmech.bodies.rigid_body):
    dv/dt = F / m + g,   dw/dt = J^{-1} C + J^{-1} ((J w) x w)      (Euler's equations)
    x += h v,   Q <- exp(-h [w]x) Q                                  (the rods' drift, on SO(3))
The gyroscopic term is applied by implicit midpoint, as for the rods' elements
(softmech.kernels.rod_motion.midpoint_spin): the kick then conserves the rotational kinetic
energy w.Jw/2 and |J w| of a torque-free body exactly (quadratic invariants of Euler's equations
are kept by the implicit midpoint rule), and the drift leaves w unchanged. A fixed body has
1/m = 0, 1/J = 0 and no body acceleration: it never moves.
"""
from collections import namedtuple

from softmech.integrators.driver import BodyKind
from softmech.kernels import kernel
from softmech.kernels.rod_motion import (
    gyroscopic_coefficients,
    midpoint_spin,
    move,
    move_twice,
    state_status,
    velocity_couples,
)

RigidDriftArgs = namedtuple("RigidDriftArgs", ["rb_x", "rb_v", "rb_Q", "rb_w",
                                               "rotation_violations"])
"""Arrays of rigid_drift, rigid_drift_twice and rigid_status."""

RigidKickArgs = namedtuple("RigidKickArgs", ["rb_v", "rb_w", "rb_force", "rb_torque", "rb_inv_mass",
                                             "rb_body_acc", "rb_J", "rb_inv_J"])
"""Arrays of rigid_kick and rigid_accelerations."""

RigidKickDriftArgs = namedtuple("RigidKickDriftArgs", RigidKickArgs._fields + (
    "rb_x", "rb_Q", "rotation_violations"))

RigidClearArgs = namedtuple("RigidClearArgs", ["rb_force", "rb_torque"])
"""Arrays of rigid_clear."""

RigidMotionArgs = namedtuple("RigidMotionArgs", ["drift", "kick", "kick_drift"])
"""The integrator's arrays for the rigid bodies (the kind's member of T[0])."""


@kernel(inline="always")
def rigid_clear(a, bi, W, t):
    """rb_force, rb_torque <- 0: the first call of the force pass of a scene with rigid bodies
    (the rods' elasticity initialises the rods' accumulators the same way)."""
    f = a.rb_force[bi]
    tq = a.rb_torque[bi]
    for c in range(3):
        for k in range(f.shape[1]):
            f[c, k] = 0.0
            tq[c, k] = 0.0


@kernel(inline="always")
def to_accelerations(a, bi):
    """rb_force [N] -> F / m + g [m/s^2] and rb_torque [N m] -> J^{-1} C [rad/s^2], in place."""
    f = a.rb_force[bi]
    tq = a.rb_torque[bi]
    im = a.rb_inv_mass[bi]
    g = a.rb_body_acc[bi]
    iJ = a.rb_inv_J[bi]
    for c in range(3):
        for k in range(f.shape[1]):
            f[c, k] = f[c, k] * im[k] + g[c, k]
            tq[c, k] *= iJ[c, k]


@kernel(inline="always")
def kick(a, bi, h):
    """v += h dv/dt, w += h dw/dt with the gyroscopic term by implicit midpoint."""
    to_accelerations(a, bi)
    v = a.rb_v[bi]
    w = a.rb_w[bi]
    acc = a.rb_force[bi]
    al = a.rb_torque[bi]
    J = a.rb_J[bi]
    iJ = a.rb_inv_J[bi]
    half = 0.5 * h
    for k in range(v.shape[1]):
        for c in range(3):
            v[c, k] += h * acc[c, k]
        c0, c1, c2 = gyroscopic_coefficients(J[0, k], J[1, k], J[2, k], iJ[0, k], iJ[1, k], iJ[2, k])
        w[0, k], w[1, k], w[2, k] = midpoint_spin(w[0, k], w[1, k], w[2, k], al[0, k], al[1, k],
                                                  al[2, k], c0, c1, c2, 0.0, half)


@kernel(inline="always")
def rigid_kick(a, bi, W, h):
    kick(a, bi, h)


@kernel(inline="always")
def rigid_kick_drift(a, bi, W, h, h1, h2):
    """kick(h), then drift(h1) (h2 == 0) or drift(h1) and drift(h2) in one pass."""
    kick(a, bi, h)
    if h2 == 0.0:
        a.rotation_violations[bi] += move(a.rb_x[bi], a.rb_v[bi], a.rb_Q[bi], a.rb_w[bi], h1)
    else:
        a.rotation_violations[bi] += move_twice(a.rb_x[bi], a.rb_v[bi], a.rb_Q[bi], a.rb_w[bi],
                                                h1, h2)


@kernel(inline="always")
def rigid_drift(a, bi, W, h):
    a.rotation_violations[bi] += move(a.rb_x[bi], a.rb_v[bi], a.rb_Q[bi], a.rb_w[bi], h)


@kernel(inline="always")
def rigid_drift_twice(a, bi, W, h1, h2):
    a.rotation_violations[bi] += move_twice(a.rb_x[bi], a.rb_v[bi], a.rb_Q[bi], a.rb_w[bi], h1, h2)


@kernel(inline="always")
def rigid_reset_status(a, bi):
    a.rotation_violations[bi] = 0


@kernel
def rigid_status(a, bi):
    """softmech.kernels.rod_motion status codes for the rigid bodies of block bi."""
    return state_status((a.rb_x[bi], a.rb_v[bi], a.rb_w[bi], a.rb_Q[bi]), a.rotation_violations[bi])


@kernel
def rigid_accelerations(a, bi, W):
    """rb_force, rb_torque <- accelerations of the current state (diagnostics), the gyroscopic
    term at the current angular velocity."""
    to_accelerations(a, bi)
    w = a.rb_w[bi]
    al = a.rb_torque[bi]
    J = a.rb_J[bi]
    iJ = a.rb_inv_J[bi]
    for k in range(w.shape[1]):
        c0, c1, c2 = gyroscopic_coefficients(J[0, k], J[1, k], J[2, k], iJ[0, k], iJ[1, k], iJ[2, k])
        g0, g1, g2 = velocity_couples(c0, c1, c2, w[0, k], w[1, k], w[2, k], 0.0)
        al[0, k] += g0
        al[1, k] += g1
        al[2, k] += g2


RIGID_MOTION = BodyKind(
    drift=rigid_drift, drift_twice=rigid_drift_twice, kick=rigid_kick, kick_drift=rigid_kick_drift,
    reset_status=rigid_reset_status, status=rigid_status, accelerations=rigid_accelerations)
"""The motion kernels of the rigid-body kind (softmech.integrators.driver.BodyKind). The kick
and drift are small loops over the bodies: inlined into each scene's step."""
