"""Explicit symplectic integrators for Cosserat rods, with the time loop in compiled code.

Position Verlet with the corrected frame-update signs (ME498 handout eqs. 5-10):
    x += dt/2 v,  Q <- exp(-dt/2 [w]x) Q          (drift, eqs. 5-6)
    v += dt a(t + dt/2),  w += dt dw/dt(t + dt/2)  (kick, eqs. 7-8)
    x += dt/2 v,  Q <- exp(-dt/2 [w]x) Q          (drift, eqs. 9-10)
PEFRL (Omelyan, Mryglod, Folk, Comput. Phys. Commun. 146:188, 2002, eq. 20): four force
evaluations per step, fourth order for conservative forces.

`advance` runs many steps of every block of worlds, one thread per block (numba prange); the
worlds are independent, so blocks never synchronize inside a call.
"""
import numba as nb

from softmech.kernels import kernel
import numpy as np

from softmech.kernels.cosserat_forces import (internal_loads, rod_gyroscopic_kick,
                                              rod_velocity_couples_explicit)
from softmech.kernels.external import constrain_positions, constrain_rates, external_loads
from softmech.kernels.so3 import MAX_ROTATION_ANGLE, exp_coefficients

SCHEMES = {"verlet": 0, "pefrl": 1}
"""Name -> code of the explicit schemes."""

FORCE_EVALUATIONS = {"verlet": 1, "pefrl": 4}

STATUS_OK, STATUS_NONFINITE, STATUS_ROTATION = 0, 1, 2

_MAX_Z = MAX_ROTATION_ANGLE * MAX_ROTATION_ANGLE

_PEFRL_XI = 0.1786178958448091
_PEFRL_LAMBDA = -0.2123418310626054
_PEFRL_CHI = -0.06626458266981849


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
def drift(s, ws, bi, h):
    """x += h v and Q <- exp(-h [w]x) Q."""
    x = s.x[bi]
    v = s.v[bi]
    for c in range(3):
        for k in range(x.shape[1]):
            x[c, k] += h * v[c, k]
    Q = s.Q[bi]
    w = s.w[bi]
    too_large = 0  # integer count: vectorizes without fast-math, unlike a float max reduction
    for k in range(Q.shape[1]):
        too_large += rotate(Q, k, w[0, k], w[1, k], w[2, k], h)
    ws.rotation_violations[bi] += too_large


@kernel(inline="always")
def drift_twice(s, ws, bi, h1, h2):
    """drift(h1) then drift(h2) in one pass over memory, bit-identical to the two calls: a step's
    closing drift and the next step's opening drift, merged without changing any rounding, so a
    run's result does not depend on how it is split into calls (recording intervals, resume).
    With h1 == h2 both rotations are the same matrix (same w, same h): it is built once."""
    x = s.x[bi]
    v = s.v[bi]
    for c in range(3):
        for k in range(x.shape[1]):
            x[c, k] = (x[c, k] + h1 * v[c, k]) + h2 * v[c, k]
    Q = s.Q[bi]
    w = s.w[bi]
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
    ws.rotation_violations[bi] += too_large


@kernel(inline="always")
def kick(m, s, ws, bi, W, h, t):
    """v += h a(t), w += h dw/dt(t) on the current positions and frames; the velocity-dependent
    couples by implicit midpoint (see cosserat_forces.rod_gyroscopic_kick)."""
    internal_loads(m, s, ws, bi, W)
    external_loads(m, s, ws, bi, W, t)
    for r in range(m.rod_n_elems.shape[0]):
        rod_gyroscopic_kick(m, s, ws, bi, W, r, h)
    v = s.v[bi]
    acc = ws.node_acc[bi]
    for c in range(3):
        for k in range(v.shape[1]):
            v[c, k] += h * acc[c, k]


def _scheme_tables():
    """Drift and kick coefficients (fractions of dt) of each scheme as one drift-kick sequence:
    drift a_0, kick b_0, drift a_1, kick b_1, ..., kick b_{n-1}, drift a_n."""
    xi, lam, chi = _PEFRL_XI, _PEFRL_LAMBDA, _PEFRL_CHI
    verlet = (np.array([0.5, 0.5]), np.array([1.0]))
    pefrl = (np.array([xi, chi, 1.0 - 2.0 * (chi + xi), chi, xi]),
             np.array([0.5 * (1.0 - 2.0 * lam), lam, lam, 0.5 * (1.0 - 2.0 * lam)]))
    return verlet, pefrl


SCHEME_TABLES = _scheme_tables()
"""(drift coefficients, kick coefficients) per scheme code, see SCHEMES."""


@kernel
def run_block(m, s, ws, bi, W, t_origin, step0, dt, n_steps, drifts, kicks):
    """Steps step0 .. step0 + n_steps - 1 of one drift-kick scheme on block bi; step i runs from
    t_origin + i dt (an integer step count: time does not depend on how a run is split). Loads are evaluated at the time
    reached by the preceding drifts; constraints are imposed after every drift and kick.

    The closing drift of a step and the opening drift of the next run in one pass over memory
    (drift_twice), bit-identical to running them separately: the result of n steps does not
    depend on how they are split into calls.

    Every callee is inlined, so a step makes no function calls (a call passes the model's
    ~300 flattened array fields and cost ~0.1-0.2 us each)."""
    if n_steps == 0:
        return
    n_kicks = kicks.shape[0]
    for step in range(step0, step0 + n_steps):
        if step == step0:
            drift(s, ws, bi, drifts[0] * dt)
        else:  # the previous step's closing drift, then this step's opening drift
            drift_twice(s, ws, bi, drifts[n_kicks] * dt, drifts[0] * dt)
        t = t_origin + step * dt + drifts[0] * dt
        constrain_positions(m, s, bi, W, t)
        for stage in range(n_kicks):
            kick(m, s, ws, bi, W, kicks[stage] * dt, t)
            if stage < n_kicks - 1:
                constrain_rates(m, s, bi, W, t)
                h = drifts[stage + 1] * dt
                drift(s, ws, bi, h)
                t += h
                constrain_positions(m, s, bi, W, t)
            else:
                # after the last kick the velocities are those of the step's end
                constrain_rates(m, s, bi, W, t_origin + (step + 1) * dt)
    drift(s, ws, bi, drifts[n_kicks] * dt)
    constrain_positions(m, s, bi, W, t_origin + (step0 + n_steps) * dt)


@kernel
def block_status(s, ws, bi):
    """STATUS_NONFINITE if any state entry of block bi is NaN/inf, STATUS_ROTATION if a drift
    rotated a frame by more than MAX_ROTATION_ANGLE, else STATUS_OK."""
    acc = 0.0
    for arr in (s.x[bi], s.v[bi], s.w[bi], s.Q[bi]):
        for c in range(arr.shape[0]):
            for k in range(arr.shape[1]):
                acc += arr[c, k] * 0.0
    if not np.isfinite(acc):
        return STATUS_NONFINITE
    if ws.rotation_violations[bi] > 0:
        return STATUS_ROTATION
    return STATUS_OK


@kernel(parallel=True)
def advance(m, s, ws, W, t_origin, step0, dt, n_steps, drifts, kicks, status):
    """Advance every block by n_steps of size dt (steps step0.. from t_origin, see run_block)
    with the scheme given by its drift/kick coefficients (SCHEME_TABLES); status[bi] gets the
    block's status. A block that turns non-finite keeps
    stepping (the caller restores the state it saved before the call)."""
    for bi in nb.prange(s.x.shape[0]):
        ws.rotation_violations[bi] = 0
        run_block(m, s, ws, bi, W, t_origin, step0, dt, n_steps, drifts, kicks)
        status[bi] = block_status(s, ws, bi)


@kernel
def evaluate_accelerations(m, s, ws, W, t):
    """Accelerations of every block at time t, without stepping (for diagnostics and tests)."""
    for bi in range(s.x.shape[0]):
        internal_loads(m, s, ws, bi, W)
        external_loads(m, s, ws, bi, W, t)
        for r in range(m.rod_n_elems.shape[0]):
            rod_velocity_couples_explicit(m, s, ws, bi, W, r)
