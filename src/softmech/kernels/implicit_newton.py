"""The per-world logic of the implicit integrator's modified Newton iteration
(softmech.integrators.implicit): the predictor, and what each lane does with a correction.
Compiled once for every scene (no term hooks here)."""
import numpy as np

from softmech.kernels import kernel


STILL_FAR = 100.0
"""A lane whose correction is below STILL_FAR x tol keeps its Jacobian however slowly it
contracts: one or two more iterations finish it, a new Jacobian costs a residual evaluation
per color."""


@kernel
def predict(U, U_old, U_old2, order):
    """The Newton guess of a step from the current velocities U (n_dof, W), extrapolated from
    the last steps' end velocities: order 0, U; 1, U + (U - U_old), the line through the last
    two (an error of O(h^2 da/dt) instead of O(h a)); 2, 3 U - 3 U_old + U_old2, the parabola
    through the last three (O(h^3 d2a/dt2)). U_old2 <- U_old, U_old <- the current U."""
    for d in range(U.shape[0]):
        for lane in range(U.shape[1]):
            u = U[d, lane]
            if order == 1:
                U[d, lane] = u + (u - U_old[d, lane])
            elif order == 2:
                U[d, lane] = 3.0 * (u - U_old[d, lane]) + U_old2[d, lane]
            U_old2[d, lane] = U_old[d, lane]
            U_old[d, lane] = u


@kernel
def update_lanes(U, R, dU, dP, norm, prev, rprev, active, refresh, fresh, exact, backtracks, it,
                 tol, refresh_rate, max_backtracks, trusted):
    """Apply the Newton correction dU (n_dof, W) of each active lane (U -= dU), computed from
    the residual R at U (fresh[lane] != 0: with a Jacobian computed at U). If the last
    correction made the residual grow (max |R| above the previous iterate's, rprev) and the
    next correction is larger than it (both: the residual's max norm alone is not monotone in
    a converging modified Newton iteration, whose rows differ in scale by 1/m and 1/J): one from a
    Jacobian computed at its own start (exact[lane]) overshot, and the lane goes back halfway
    along it (dP, the correction last applied, halved each time; at most max_backtracks times
    per solve); one from a kept Jacobian is undone, and a Jacobian is asked for there. A lane
    converges when its correction norm is below tol, or when the contraction rate
    r = norm / prev of two corrections of one Jacobian (none computed at this iterate:
    fresh[lane] == 0) predicts the remaining error r norm / (1 - r) below tol (Hairer and
    Wanner, Solving ODEs II, eq. IV.8.10). Two corrections of different Jacobians say nothing of
    the iteration's contraction: after an undone correction prev is inf and r = 0, which used
    to stop a lane after one more correction of any size. A lane that contracts by less than
    refresh_rate while its correction is still above STILL_FAR tol is flagged for a new
    Jacobian, also one computed earlier in the same step: a strongly nonlinear step (a stiff
    rod set into fast motion: the exact Newton's residual grows and falls for 4-7 iterations)
    otherwise iterates on the Jacobian of its first iterate and converges only linearly
    (docs/discrete_rods.md). Near convergence the ratio of two small corrections says little
    (the first mostly measures the predictor's error, the second the Jacobian's), so no
    refresh there -- unless the iteration has reached iteration `trusted` (softmech.integrators
    .implicit passes 2 with a corotated Jacobian, whose corrections are all small, else
    max_iterations: never).
    Returns (lanes still iterating, 1 if a lane failed: non-finite or backtracked too often)."""
    remaining = 0
    failed = 0
    for lane in range(U.shape[1]):
        if active[lane] == 0:
            continue
        n = norm[lane]
        if not np.isfinite(n):
            failed = 1
            continue
        r = 0.0
        for d in range(R.shape[0]):
            r = max(r, abs(R[d, lane]))
        rate = n / prev[lane]
        if it > 0 and r > rprev[lane] and rate > 1.0:
            if backtracks[lane] >= max_backtracks:
                failed = 1
                continue
            backtracks[lane] += 1
            share = 0.5 if exact[lane] != 0 else 1.0
            for d in range(U.shape[0]):
                dP[d, lane] *= share
                U[d, lane] += dP[d, lane]
            if exact[lane] == 0:
                prev[lane] = np.inf
            refresh[lane] = 1
            exact[lane] = 0
            remaining += 1
            continue
        exact[lane] = fresh[lane]
        for d in range(U.shape[0]):
            U[d, lane] -= dU[d, lane]
            dP[d, lane] = dU[d, lane]
        rprev[lane] = r
        prev[lane] = n
        if n <= tol or (it > 0 and fresh[lane] == 0 and rate < 1.0
                        and rate * n <= tol * (1.0 - rate)):
            active[lane] = 0
        else:
            remaining += 1
            if rate > refresh_rate and (n > STILL_FAR * tol or it >= trusted):
                refresh[lane] = 1
    return remaining, failed
