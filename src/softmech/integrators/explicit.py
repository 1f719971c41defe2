"""Explicit symplectic integrators for Cosserat rods, with the time loop in compiled code.

Position Verlet with the corrected frame-update signs (ME498 handout eqs. 5-10):
    x += dt/2 v,  Q <- exp(-dt/2 [w]x) Q          (drift, eqs. 5-6)
    v += dt a(t + dt/2),  w += dt dw/dt(t + dt/2)  (kick, eqs. 7-8)
    x += dt/2 v,  Q <- exp(-dt/2 [w]x) Q          (drift, eqs. 9-10)
PEFRL (Omelyan, Mryglod, Folk, Comput. Phys. Commun. 146:188, 2002, eq. 20): four force
evaluations per step, fourth order for conservative forces.
Symplectic Euler (kick, then drift: v += dt a(t_n), x += dt v; Hairer, Lubich and Wanner,
Geometric Numerical Integration, 2nd ed., sec. I.1.2): first order; the discrete engine's
explicit comparison scheme (softmech.implicit.newton.ImplicitStepper.explicit_step), here for
every body kind. Its opening drift of 0 is the identity bit for bit (a rotation by exp(0) = I).

The integrator owns the time loop, inertia (forces -> accelerations), the drifts and the order
in which constraints are imposed; it never names a term nor a body kind. Both enter through
hooks that softmech.integrators.driver generates for each scene (see STEP_BLOCK_SOURCE):
    forces(T, bi, W, t)      every force term's kernel, in the table's order
    positions(T, bi, W, t)   every position constraint, then the bodies' ghost slots
    closing_positions(T, bi, W, t)   the same without the terms' history updates, at the
                             configuration that closes a block (driver.Call.history)
    rates(T, bi, W, t)       every velocity constraint, then the bodies' ghost slots
    drift, drift_twice, kick, kick_drift, reset_status, status: every body kind's motion
        kernels (driver.BodyKind; the Cosserat rods: softmech.kernels.rod_motion.ROD_MOTION)
T[0] is the tuple of the body kinds' motion arguments; T[1:] the terms' argument tuples.
"""
import numpy as np

SCHEMES = {"verlet": 0, "pefrl": 1, "symplectic_euler": 2}
"""Name -> code of the explicit schemes."""

FORCE_EVALUATIONS = {"verlet": 1, "pefrl": 4, "symplectic_euler": 1}

_PEFRL_XI = 0.1786178958448091
_PEFRL_LAMBDA = -0.2123418310626054
_PEFRL_CHI = -0.06626458266981849


def _scheme_tables():
    """Drift and kick coefficients (fractions of dt) of each scheme as one drift-kick sequence:
    drift a_0, kick b_0, drift a_1, kick b_1, ..., kick b_{n-1}, drift a_n."""
    xi, lam, chi = _PEFRL_XI, _PEFRL_LAMBDA, _PEFRL_CHI
    verlet = (np.array([0.5, 0.5]), np.array([1.0]))
    pefrl = (np.array([xi, chi, 1.0 - 2.0 * (chi + xi), chi, xi]),
             np.array([0.5 * (1.0 - 2.0 * lam), lam, lam, 0.5 * (1.0 - 2.0 * lam)]))
    symplectic_euler = (np.array([0.0, 1.0]), np.array([1.0]))
    return verlet, pefrl, symplectic_euler


SCHEME_TABLES = _scheme_tables()
"""(drift coefficients, kick coefficients) per scheme code, see SCHEMES."""

STEP_BLOCK_SOURCE = '''
@kernel(nogil=True)
def step_block(T, bi, W, t_origin, step0, dt, n_steps, drifts, kicks):
    """Steps step0 .. step0 + n_steps - 1 of one drift-kick scheme on block bi and returns its
    status (the worst of the bodies' status kernels); step i runs from
    t_origin + i dt (an integer step count: time does not depend on how a run is split). Loads
    are evaluated at the time reached by the preceding drifts; constraints are imposed after
    every drift and kick.

    The closing drift of a step and the opening drift of the next run in one pass over memory
    (drift_twice), bit-identical to running them separately: the result of n steps does not
    depend on how they are split into calls. FUSE (a constant of the generated module: the
    scene has no constraint and no ghost slot, so the position and rate hooks are empty): each
    kick and the drift after it are one call (kick_drift), the same operations in the same
    order.

    Releases the GIL: the blocks of a batch are advanced by a pool of threads, one block per
    task (softmech.simulation), which costs no extra compilation (a numba parallel loop over
    the blocks compiled for ~20 s more). The loop is written here, not in an inlined helper:
    numba copies an inlined function's IR block by block, each copy duplicating the function's
    whole variable scope, so inlining the loop with every hook already inlined in it cost ~20 %
    of a generated step's compile (measured on a mixed Cosserat + discrete rod + sphere scene,
    217 -> 172 s of CPU under load, results bit for bit)."""
    reset_status(T, bi)
    if n_steps == 0:
        return status(T, bi)
    n_kicks = kicks.shape[0]
    last = step0 + n_steps - 1
    for step in range(step0, step0 + n_steps):
        if step == step0:
            drift(T, bi, W, drifts[0] * dt)
        elif not FUSE:  # the previous step's closing drift, then this step's opening drift
            drift_twice(T, bi, W, drifts[n_kicks] * dt, drifts[0] * dt)
        t = t_origin + step * dt + drifts[0] * dt
        positions(T, bi, W, t)
        for stage in range(n_kicks):
            forces(T, bi, W, t)
            if FUSE:
                if stage < n_kicks - 1:
                    h = drifts[stage + 1] * dt
                    kick_drift(T, bi, W, kicks[stage] * dt, h, 0.0)
                    t += h
                elif step < last:  # this step's closing drift and the next one's opening drift
                    kick_drift(T, bi, W, kicks[stage] * dt, drifts[n_kicks] * dt, drifts[0] * dt)
                else:
                    kick_drift(T, bi, W, kicks[stage] * dt, drifts[n_kicks] * dt, 0.0)
            else:
                kick(T, bi, W, kicks[stage] * dt)
                if stage < n_kicks - 1:
                    rates(T, bi, W, t)
                    h = drifts[stage + 1] * dt
                    drift(T, bi, W, h)
                    t += h
                    positions(T, bi, W, t)
                else:
                    # after the last kick the velocities are those of the step's end
                    rates(T, bi, W, t_origin + (step + 1) * dt)
    if not FUSE:
        drift(T, bi, W, drifts[n_kicks] * dt)
        # constraints only: the next block starts with the opening drift and the full positions
        # hook, as drift_twice does inside a block, so a history update (friction anchors) here
        # would run once more than in an unsplit run (driver.Call.history)
        closing_positions(T, bi, W, t_origin + (step0 + n_steps) * dt)
    return status(T, bi)
'''
"""The integrator's compiled entry points, completed per scene by softmech.integrators.driver
(which supplies the term hooks and the body-kind hooks)."""
