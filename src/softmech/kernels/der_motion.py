"""Motion of discrete elastic rods in the block layout (softmech.model: DerBodies, the der_ fields
of State and Workspace): the discrete-rod kind's kernels for the explicit integrators, and its
two implicit hooks (softmech.integrators.implicit).

DisMech's equations of motion with lumped masses (ref. 004 sec. 2; Bergou et al. 2008 sec. 7):
    m_i dv_i/dt = F_i + m_i g,        I_j dw_j/dt = -dE/dtheta_j
    dx_i/dt = v_i,                    dtheta_j/dt = w_j
with m_i the lumped node masses and I_j the twist inertia of edge j (softmech.bodies.der_rod).
Every DOF is a flat coordinate (positions and twist angles), so the drift is x += h v,
theta += h w; the reference frames follow the positions by time-parallel transport, a
positions-stage kernel after every drift (softmech.kernels.der_kind.der_commit_frames).
"""
from collections import namedtuple

from softmech.integrators.driver import BodyKind
from softmech.kernels import kernel
from softmech.kernels.implicit_motion import place_rows
from softmech.kernels.rod_motion import state_status

DerDriftArgs = namedtuple("DerDriftArgs", ["der_x", "der_v", "der_theta", "der_w",
                                           "der_a1", "rotation_violations"])
"""Arrays of der_drift, der_drift_twice and der_status."""

DerKickArgs = namedtuple("DerKickArgs", ["der_v", "der_w", "der_force", "der_torque",
                                         "der_node_inv_mass", "der_body_acc",
                                         "der_edge_inv_inertia"])
"""Arrays of der_kick and der_accelerations."""

DerKickDriftArgs = namedtuple("DerKickDriftArgs", DerKickArgs._fields + ("der_x", "der_theta"))

DerMotionArgs = namedtuple("DerMotionArgs", ["drift", "kick", "kick_drift"])
"""The integrator's arrays for the discrete rods (the kind's member of T[0])."""


@kernel(inline="always")
def to_accelerations(a, bi):
    """der_force [N] -> F / m + g [m/s^2], der_torque [N m] -> tau / I [rad/s^2], in place."""
    f = a.der_force[bi]
    im = a.der_node_inv_mass[bi]
    g = a.der_body_acc[bi]
    for c in range(3):
        for k in range(f.shape[1]):
            f[c, k] = f[c, k] * im[k] + g[c, k]
    tq = a.der_torque[bi]
    iI = a.der_edge_inv_inertia[bi]
    for k in range(tq.shape[1]):
        tq[0, k] *= iI[0, k]


@kernel(inline="always")
def add_scaled(x, v, h):
    """x += h v over a (c, n) block array."""
    for c in range(x.shape[0]):
        for k in range(x.shape[1]):
            x[c, k] += h * v[c, k]


@kernel(inline="always")
def add_scaled_twice(x, v, h1, h2):
    """x += h1 v, then x += h2 v, in one pass (bit-identical to two add_scaled calls)."""
    for c in range(x.shape[0]):
        for k in range(x.shape[1]):
            x[c, k] = (x[c, k] + h1 * v[c, k]) + h2 * v[c, k]


@kernel(inline="always")
def kick(a, bi, h):
    """v += h dv/dt, w += h dw/dt from the forces and moments of the force pass."""
    to_accelerations(a, bi)
    add_scaled(a.der_v[bi], a.der_force[bi], h)
    add_scaled(a.der_w[bi], a.der_torque[bi], h)


@kernel(inline="always")
def der_kick(a, bi, W, h):
    kick(a, bi, h)


@kernel(inline="always")
def der_kick_drift(a, bi, W, h, h1, h2):
    """kick(h), then drift(h1) (h2 == 0) or drift(h1) and drift(h2) in one pass."""
    kick(a, bi, h)
    if h2 == 0.0:
        add_scaled(a.der_x[bi], a.der_v[bi], h1)
        add_scaled(a.der_theta[bi], a.der_w[bi], h1)
    else:
        add_scaled_twice(a.der_x[bi], a.der_v[bi], h1, h2)
        add_scaled_twice(a.der_theta[bi], a.der_w[bi], h1, h2)


@kernel(inline="always")
def der_drift(a, bi, W, h):
    """x += h v, theta += h w."""
    add_scaled(a.der_x[bi], a.der_v[bi], h)
    add_scaled(a.der_theta[bi], a.der_w[bi], h)


@kernel(inline="always")
def der_drift_twice(a, bi, W, h1, h2):
    add_scaled_twice(a.der_x[bi], a.der_v[bi], h1, h2)
    add_scaled_twice(a.der_theta[bi], a.der_w[bi], h1, h2)


@kernel(inline="always")
def der_reset_status(a, bi):
    """Nothing to reset: a discrete rod's drift turns no frame by an exponential map."""


@kernel
def der_status(a, bi):
    """softmech.kernels.rod_motion status codes for the discrete rods of block bi."""
    return state_status((a.der_x[bi], a.der_v[bi], a.der_theta[bi], a.der_w[bi], a.der_a1[bi]), 0)


@kernel
def der_accelerations(a, bi, W):
    """der_force, der_torque <- accelerations of the current state (diagnostics, implicit)."""
    to_accelerations(a, bi)


# -- implicit Euler (softmech.integrators.implicit, softmech.kernels.implicit_motion) ----------
DerImplicitArgs = namedtuple("DerImplicitArgs", [
    "x", "v", "theta", "w",      # der_x, der_v, der_theta, der_w (State), block layout
    "a1", "tangent", "ref",      # der_a1, der_tangent, der_ref: the transported frames
    "acc", "alpha",              # accelerations after der_accelerations (der_force, der_torque)
    "xb", "vb", "thb", "wb", "a1b", "tb", "refb",    # base state of the current stage
    "xs", "vs", "ths", "ws", "a1s", "ts", "refs",    # state at the step's start
    "v_mask", "w_mask",          # 1.0 free, 0.0 constrained: (n_blocks, 3, n*W), (n_blocks, 1, m*W)
    "v_scale",                   # length scale of each velocity DOF [m] (n_blocks, 3, n*W)
    "v_inv_mass", "w_inv_inertia",   # der_node_inv_mass, der_edge_inv_inertia (DerBodies)
    "offsets",                   # (2,) int64: first DOF of v and of w
    "violations",                # (n_blocks,) int64 (always 0: no exponential map)
    "inertia",                   # (1,): 1.0, or 0.0 for overdamped steps
])
"""The implicit integrator's arrays of the discrete-rod kind: softmech.kernels.implicit_motion's
residual, gather, correction, merit and perturbation kernels read the fields of the same
names (v, w, acc, alpha, masks, scales, inverse masses, offsets), with w one row per edge
(the twist rate)."""


@kernel
def der_place(a, bi, W, h, U):
    """v, w <- u (U (n_dof, W)), x <- x_b + h v, theta <- theta_b + h w, and the frames of the
    base state (the positions hook then transports them to x: time-parallel transport from
    the accepted step, Bergou et al. 2010 sec. 4.1, as DisMech does)."""
    place_rows(a.v[bi], a.x[bi], a.xb[bi], a.offsets[0], W, h, U)
    place_rows(a.w[bi], a.theta[bi], a.thb[bi], a.offsets[1], W, h, U)
    _copy(a.a1b[bi], a.a1[bi])
    _copy(a.tb[bi], a.tangent[bi])
    _copy(a.refb[bi], a.ref[bi])


@kernel(unliteral=True)
def der_copy_state(a, bi, to_base, to_save, from_save):
    """Copy the kind's state (with its frames): to the stage base, to the step-start save, or
    back from the save, on block bi (softmech.kernels.implicit_motion.copy_state)."""
    now = (a.x[bi], a.v[bi], a.theta[bi], a.w[bi], a.a1[bi], a.tangent[bi], a.ref[bi])
    base = (a.xb[bi], a.vb[bi], a.thb[bi], a.wb[bi], a.a1b[bi], a.tb[bi], a.refb[bi])
    save = (a.xs[bi], a.vs[bi], a.ths[bi], a.ws[bi], a.a1s[bi], a.ts[bi], a.refs[bi])
    for i in range(7):
        if to_base:
            _copy(now[i], base[i])
        if to_save:
            _copy(now[i], save[i])
        if from_save:
            _copy(save[i], now[i])


@kernel(inline="always")
def _copy(src, dst):
    for c in range(src.shape[0]):
        for k in range(src.shape[1]):
            dst[c, k] = src[c, k]


DER_MOTION = BodyKind(
    drift=der_drift, drift_twice=der_drift_twice, kick=der_kick, kick_drift=der_kick_drift,
    reset_status=der_reset_status, status=der_status, accelerations=der_accelerations,
    implicit_place=der_place, implicit_copy=der_copy_state)
"""The motion kernels of the discrete-rod kind (softmech.integrators.driver.BodyKind). The kick
and drift are flat loops: inlined into each scene's step."""
