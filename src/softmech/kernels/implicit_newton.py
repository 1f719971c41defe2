"""The per-world logic of the implicit integrator's modified Newton iteration
(softmech.integrators.implicit): the predictor, and what each lane does with a correction.
Compiled once for every scene (no term hooks here)."""
import numpy as np

from softmech.kernels import kernel
from softmech.kernels.newton import ARMIJO


STILL_FAR = 100.0
"""A lane whose correction is below STILL_FAR x tol keeps its Jacobian however slowly it
contracts: one or two more iterations finish it, a new Jacobian costs a residual evaluation
per color."""


@kernel
def predict(U, U_old, U_old2, order, rough):
    """The Newton guess of a step from the current velocities U (n_dof, W), extrapolated from
    the last steps' end velocities: order 0, U; 1, U + (U - U_old), the line through the last
    two (an error of O(h^2 da/dt) instead of O(h a)); 2, 3 U - 3 U_old + U_old2, the parabola
    through the last three (O(h^3 d2a/dt2)). A lane with rough[lane] != 0 (rough (W,) int64:
    its last step crossed a kink, ImplicitOptions.predictor_guard) takes order 0.
    U_old2 <- U_old, U_old <- the current U."""
    for d in range(U.shape[0]):
        for lane in range(U.shape[1]):
            u = U[d, lane]
            if rough[lane] == 0:
                if order == 1:
                    U[d, lane] = u + (u - U_old[d, lane])
                elif order == 2:
                    U[d, lane] = 3.0 * (u - U_old[d, lane]) + U_old2[d, lane]
            U_old2[d, lane] = U_old[d, lane]
            U_old[d, lane] = u


@kernel
def mark_rough(rough, retry, W):
    """rough[lane] <- 1 where the line search rejected a trial point of the lane in this solve
    (after judge_lanes: retry, the point moved back along its line or to the watchdog point).
    Newton's model of the merit failed there, beyond the full steps it may take without enough
    decrease: the lane's velocities crossed a kink of the forces (a contact starting or
    releasing, friction switching between sticking and sliding), which an extrapolation of the
    last steps' velocities does not see, so its next step starts from its velocities
    (ImplicitOptions.predictor_guard). Other signs were measured and are no such sign (2026-12-05):
    a full step taken without enough decrease (relaxed) is routine on the stiff Cosserat
    swimmer (with it, its Newton iterations per step grew from 4.12 to 5.14, and from 2.94 to
    3.21 corotated), a Jacobian renewed because the iteration contracted slowly is routine
    with kept Jacobians (the manta: 11 % more Jacobians). rough, retry (W,) int64."""
    for lane in range(W):
        if retry[lane] != 0:
            rough[lane] = 1


FULL_STEP, BACKTRACKING = 1, 2
"""What a lane's point is (searching[lane]; 0: an accepted point, no trial): the full step of
a correction, or a point of the line search back along the watchdog point's correction."""


@kernel
def judge_lanes(U, U_watch, dU_watch, phi, phi_watch, active, searching, watch, exact_watch,
                backtracks, relaxed, refresh, prev, fresh, retry, max_line_search,
                relaxed_steps):
    """Before an iteration's Jacobian and solve: the line search's verdict on each active
    lane's point U (n_dof, W), whose residual gives the merit phi[lane] (half the squared
    impulse residual, softmech.kernels.implicit_motion.merit_kind). The discrete
    engine's watchdog line search (softmech.implicit.newton.NewtonOptions; Chamberlain,
    Powell, Lemarechal and Pedersen, Math. Prog. Study 16, 1982; Nocedal and Wright, Numerical
    Optimization, 2nd ed., sec. 15.6) per lane: the watchdog point U_watch (merit phi_watch,
    its correction dU_watch) is the last point that decreased the merit enough; a full step
    (FULL_STEP) is accepted when phi <= (1 - 2 c) phi_watch (Armijo, c = ARMIJO, the discrete
    engine's constant; the watchdog point is then released), or, up to relaxed_steps times
    per solve, without it (a stiff rod set into fast motion: the residual grows and falls
    for several iterations before Newton converges), with a Jacobian computed there (a kept
    one's correction from such a point is no Newton step: on that rod the second correction
    was 40 times the first, and the merit grew by 10^5). Otherwise the lane returns to the
    watchdog point: if its correction came from a Jacobian computed there (exact_watch, a
    descent direction of the merit), it backtracks along it (BACKTRACKING: alpha = 1/2,
    1/4, ..., accepted when phi <= (1 - 2 c alpha) phi_watch; after max_line_search halvings
    the lane fails and the step is halved); if from a kept Jacobian (need not be a descent
    direction), the lane restarts from there with a new Jacobian. A point reached by halving,
    or a restored one, asks for a Jacobian of its own (a strongly nonlinear region: a
    frictional contact that has just started), and the contraction rate is unknown there
    (prev = inf). An accepted point, or one without a trial (the predictor), gets
    fresh[lane] = refresh[lane]: the lanes whose Jacobian the iteration computes at their
    point; a lane that moved U instead has retry[lane] = 1 (its correction of this iteration
    is void). Why the merit and not the residual's max norm: the rows differ in scale by 1/m
    and 1/J, and a saturating regularized friction makes undamped full steps cycle (the
    falling_rod scene's soft rod, docs/implicit_cosserat.md).
    Returns (lanes that retry, 1 if a lane failed)."""
    retrying = 0
    failed = 0
    for lane in range(U.shape[1]):
        fresh[lane] = 0
        retry[lane] = 0
        if active[lane] == 0:
            continue
        state = searching[lane]
        if state == FULL_STEP:
            searching[lane] = 0
            if phi[lane] <= (1.0 - 2.0 * ARMIJO) * phi_watch[lane]:
                watch[lane] = 0
            elif relaxed[lane] < relaxed_steps:
                relaxed[lane] += 1
                refresh[lane] = 1
            else:
                retry[lane] = 1
                retrying += 1
                prev[lane] = np.inf
                if exact_watch[lane] != 0:
                    backtracks[lane] = 1
                    searching[lane] = BACKTRACKING
                    _along(U, U_watch, dU_watch, lane, 0.5)
                else:
                    watch[lane] = 0
                    refresh[lane] = 1
                    _along(U, U_watch, dU_watch, lane, 0.0)
                continue
        elif state == BACKTRACKING:
            alpha = 0.5 ** backtracks[lane]
            if phi[lane] <= (1.0 - 2.0 * ARMIJO * alpha) * phi_watch[lane]:
                searching[lane] = 0
                watch[lane] = 0
                refresh[lane] = 1
            elif backtracks[lane] >= max_line_search:
                failed = 1
                continue
            else:
                backtracks[lane] += 1
                _along(U, U_watch, dU_watch, lane, 0.5 * alpha)
                retry[lane] = 1
                retrying += 1
                continue
        fresh[lane] = refresh[lane]
    return retrying, failed


@kernel(inline="always")
def _along(U, U_watch, dU_watch, lane, alpha):
    """U[:, lane] <- the watchdog point's line at alpha: U_watch - alpha dU_watch."""
    for d in range(U.shape[0]):
        U[d, lane] = U_watch[d, lane] - alpha * dU_watch[d, lane]


@kernel
def update_lanes(U, dU, U_watch, dU_watch, norm, phi, phi_watch, prev, active, searching,
                 watch, exact_watch, retry, fresh, iterations, refresh, tol, refresh_rate,
                 max_iterations, trusted):
    """After the solve: apply the Newton correction dU (n_dof, W) of each active lane whose
    point judge_lanes accepted (retry[lane] == 0), computed from the residual at U
    (fresh[lane] != 0: with a Jacobian computed at U); U - dU is the lane's next point, a
    full step for judge_lanes, and U becomes the watchdog point (U_watch, dU_watch,
    phi_watch, exact_watch) unless one is held. A lane converges when its correction norm is
    below tol, or when the contraction rate r = norm / prev of two corrections of one
    Jacobian (none computed at this iterate: fresh[lane] == 0; both full steps: prev is inf
    after a halved or undone one) predicts the remaining error r norm / (1 - r) below tol
    (Hairer and Wanner, Solving ODEs II, eq. IV.8.10); it fails after max_iterations
    corrections without converging. A lane that contracts by less than refresh_rate while
    its correction is still above STILL_FAR tol is flagged for a new Jacobian, also one
    computed earlier in the same step: a strongly nonlinear step (a stiff rod set into fast
    motion: the exact Newton's residual grows and falls for 4-7 iterations) otherwise
    iterates on the Jacobian of its first iterate and converges only linearly
    (docs/discrete_rods.md). Near convergence the ratio of two small corrections says little
    (the first mostly measures the predictor's error, the second the Jacobian's), so no
    refresh there -- unless the lane had made `trusted` corrections before this one
    (softmech.integrators.implicit passes 2 with a corotated Jacobian, whose corrections are
    all small, else max_iterations: never).
    Returns (lanes still iterating, 1 if a lane failed: non-finite or out of iterations)."""
    remaining = 0
    failed = 0
    W = U.shape[1]
    moving = 0          # bit `lane`: the lanes applying their correction (W <= 8: blocks)
    watching = 0        # ... whose point becomes the watchdog's
    for lane in range(W):
        if active[lane] == 0 or retry[lane] != 0:
            remaining += active[lane]
            continue
        n = norm[lane]
        if not np.isfinite(n):
            failed = 1
            continue
        rate = n / prev[lane]
        moving |= 1 << lane
        if watch[lane] == 0:
            watch[lane] = 1
            watching |= 1 << lane
            exact_watch[lane] = fresh[lane]
            phi_watch[lane] = phi[lane]
        searching[lane] = FULL_STEP
        prev[lane] = n
        done = iterations[lane]         # corrections before this one
        iterations[lane] = done + 1
        if n <= tol or (fresh[lane] == 0 and 0.0 < rate < 1.0
                        and rate * n <= tol * (1.0 - rate)):
            active[lane] = 0
        elif done + 1 >= max_iterations:
            failed = 1
        else:
            remaining += 1
            if rate > refresh_rate and (n > STILL_FAR * tol or done >= trusted):
                refresh[lane] = 1
    # the points, every lane of a DOF together (lane by lane, the 1,032-triangle plate's
    # eight lanes read U and dU eight times over, 64 bytes apart: 1.5 % of their run,
    # 2026-12-06); the same operations on each value
    for d in range(U.shape[0]):
        for lane in range(W):
            u, du = U[d, lane], dU[d, lane]
            watched = (watching >> lane) & 1
            U_watch[d, lane] = u if watched != 0 else U_watch[d, lane]
            dU_watch[d, lane] = du if watched != 0 else dU_watch[d, lane]
            U[d, lane] = u - du if (moving >> lane) & 1 != 0 else u
    return remaining, failed
