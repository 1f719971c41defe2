"""The per-lane decisions of the unified implicit integrator's Newton iteration
(softmech.kernels.implicit_newton): the watchdog line search's verdict on a point
(judge_lanes: Armijo's sufficient decrease of the merit against the watchdog point, Nocedal and
Wright, Numerical Optimization, 2nd ed., eq. 3.4 and sec. 15.6; a budget of relaxed full
steps per solve), when a lane stops, and when it asks for a new Jacobian (update_lanes). The
contraction-rate stop (Hairer and Wanner, Solving ODEs II, eq. IV.8.10) is valid only for two
full corrections of one Jacobian."""
import numpy as np

from softmech.kernels.implicit_newton import (BACKTRACKING, FULL_STEP, judge_lanes,
                                              update_lanes)
from softmech.kernels.newton import ARMIJO

TOL = 1e-8
MAX_ITERATIONS = 25
MAX_LINE_SEARCH = 12
RELAXED_STEPS = 4


def lane(**values):
    """One lane's arrays (two DOFs): a lane at its predictor unless `values` (scalars, or
    arrays for U, dU, U_watch, dU_watch) say otherwise."""
    arrays = dict(U=np.zeros((2, 1)), dU=np.full((2, 1), 1e-3), U_watch=np.zeros((2, 1)),
                  dU_watch=np.full((2, 1), 1e-3), norm=1.0, phi=1.0, phi_watch=1.0,
                  prev=np.inf, active=1, searching=0, watch=0, exact_watch=0, backtracks=0,
                  relaxed=0, retry=0, fresh=0, iterations=0, refresh=0)
    arrays.update(values)
    for key, value in arrays.items():
        if np.isscalar(value):
            kind = np.int64 if isinstance(value, int) else float
            arrays[key] = np.array([value], dtype=kind)
    return arrays


def judge(a):
    """judge_lanes on the lane; returns (retrying, failed)."""
    return judge_lanes(a["U"], a["U_watch"], a["dU_watch"], a["phi"], a["phi_watch"],
                       a["active"], a["searching"], a["watch"], a["exact_watch"],
                       a["backtracks"], a["relaxed"], a["refresh"], a["prev"], a["fresh"],
                       a["retry"], MAX_LINE_SEARCH, RELAXED_STEPS)


def update(a, refresh_rate=0.25):
    """update_lanes on the lane; returns (remaining, failed)."""
    return update_lanes(a["U"], a["dU"], a["U_watch"], a["dU_watch"], a["norm"], a["phi"],
                        a["phi_watch"], a["prev"], a["active"], a["searching"], a["watch"],
                        a["exact_watch"], a["retry"], a["fresh"], a["iterations"],
                        a["refresh"], TOL, refresh_rate, MAX_ITERATIONS, MAX_ITERATIONS)


def full_step(phi, **values):
    """A lane at the full step of the watchdog point's exact correction (merit 1), U there."""
    defaults = dict(searching=FULL_STEP, watch=1, exact_watch=1, phi=phi,
                    U=np.full((2, 1), -1e-3))
    defaults.update(values)
    return lane(**defaults)


def test_a_full_step_that_decreases_the_merit_enough_releases_the_watchdog():
    """Armijo at alpha = 1: phi <= (1 - 2 c) phi_watch is accepted (no retry, U untouched),
    and the watchdog point is released (the next correction sets a new one)."""
    a = full_step((1.0 - 2.0 * ARMIJO))
    assert judge(a) == (0, 0)
    assert (a["searching"][0], a["retry"][0], a["watch"][0], a["relaxed"][0]) == (0, 0, 0, 0)
    np.testing.assert_array_equal(a["U"], -1e-3)


def test_a_full_step_without_enough_decrease_is_kept_while_the_budget_lasts():
    """Just above the Armijo bound: taken as a relaxed step (the watchdog point held, a
    Jacobian asked for at it); once RELAXED_STEPS are spent, the lane goes back to the
    watchdog point and halves its correction (alpha = 1/2: U = U_watch - dU_watch / 2)."""
    a = full_step((1.0 - 2.0 * ARMIJO) * (1 + 1e-12))
    assert judge(a) == (0, 0)
    assert (a["relaxed"][0], a["watch"][0], a["refresh"][0], a["fresh"][0]) == (1, 1, 1, 1)
    b = full_step(2.0, relaxed=RELAXED_STEPS)
    assert judge(b) == (1, 0)
    assert (b["searching"][0], b["backtracks"][0], b["retry"][0]) == (BACKTRACKING, 1, 1)
    np.testing.assert_array_equal(b["U"], -0.5e-3)
    assert b["prev"][0] == np.inf


def test_backtracking_asks_less_of_shorter_steps_and_gives_up_after_its_halvings():
    """At alpha = 1/4 the bound is phi <= (1 - c / 2) phi_watch: a merit of 0.9 is taken, the
    watchdog released, and the point gets a Jacobian of its own; 1.5 is halved again
    (U = U_watch - dU_watch / 8); after MAX_LINE_SEARCH halvings the lane fails (the caller
    halves the step)."""
    a = full_step(0.9, searching=BACKTRACKING, backtracks=2)
    assert judge(a) == (0, 0)
    assert (a["searching"][0], a["watch"][0], a["fresh"][0]) == (0, 0, 1)
    b = full_step(1.5, searching=BACKTRACKING, backtracks=2)
    assert judge(b) == (1, 0)
    np.testing.assert_array_equal(b["U"], -0.125e-3)
    c = full_step(1.5, searching=BACKTRACKING, backtracks=MAX_LINE_SEARCH)
    assert judge(c) == (0, 1)


def test_a_kept_jacobians_watchdog_correction_is_not_backtracked_but_renewed():
    """A correction of a kept Jacobian need not be a descent direction: when the budget is
    spent the lane returns to the watchdog point itself (U = U_watch), releases it, and asks
    for a Jacobian there; that point is not a trial (taken at the next verdict)."""
    a = full_step(2.0, exact_watch=0, relaxed=RELAXED_STEPS)
    assert judge(a) == (1, 0)
    np.testing.assert_array_equal(a["U"], 0.0)
    assert (a["searching"][0], a["watch"][0], a["refresh"][0]) == (0, 0, 1)
    judge(a)
    assert (a["retry"][0], a["fresh"][0]) == (0, 1)


def test_an_applied_correction_sets_the_watchdog_point_and_the_next_full_step():
    """update_lanes applies dU (U -= dU); with no watchdog point held, the point before it
    becomes one (U_watch, dU_watch, phi_watch, whether its Jacobian was computed there); with
    one held, it stays."""
    a = lane(phi=0.7, fresh=1, dU=np.array([[2e-3], [-1e-3]]))
    assert update(a) == (1, 0)
    np.testing.assert_array_equal(a["U"][:, 0], [-2e-3, 1e-3])
    np.testing.assert_array_equal(a["U_watch"][:, 0], [0.0, 0.0])
    np.testing.assert_array_equal(a["dU_watch"][:, 0], [2e-3, -1e-3])
    assert (a["phi_watch"][0], a["exact_watch"][0], a["watch"][0]) == (0.7, 1, 1)
    assert (a["searching"][0], a["iterations"][0]) == (FULL_STEP, 1)
    b = lane(phi=0.7, watch=1, phi_watch=0.5, U_watch=np.ones((2, 1)))
    update(b)
    assert b["phi_watch"][0] == 0.5 and np.all(b["U_watch"] == 1.0)


def test_a_correction_without_a_known_rate_is_not_taken_for_convergence():
    """prev = inf (the solve's first correction, or one after a halved or restored point):
    the rate n / prev = 0 is not a contraction rate, so a correction of size 1 (10^8 tol) of
    a kept Jacobian leaves the lane iterating. (Before the fix of 2026-11-30 the lane stopped
    here, taking an unconverged step.)"""
    for fresh in (0, 1):
        a = lane(norm=1.0, prev=np.inf, fresh=fresh)
        assert update(a) == (1, 0) and a["active"][0] == 1


def test_two_corrections_of_one_jacobian_stop_on_their_rate():
    """Kept Jacobian (fresh 0): corrections 1e-6 then 5e-8, rate r = 0.05, predicted remaining
    error r n / (1 - r) = 2.6e-9 < tol = 1e-8: the lane stops although n > tol. The same two
    numbers with a Jacobian computed at this iterate (fresh 1) do not stop it."""
    a = lane(norm=5e-8, prev=1e-6, fresh=0)
    update(a)
    assert a["active"][0] == 0
    b = lane(norm=5e-8, prev=1e-6, fresh=1)
    update(b)
    assert b["active"][0] == 1


def test_a_slow_lane_asks_for_a_new_jacobian_within_the_step():
    """Rate 0.9 > refresh_rate with a correction far above STILL_FAR tol: a new Jacobian is
    asked for, whatever the age of the kept one (a strongly nonlinear step would otherwise
    iterate on the Jacobian of its first iterate); near convergence (n < 100 tol) it is not."""
    a = lane(norm=0.9, prev=1.0)
    update(a)
    assert a["refresh"][0] == 1
    b = lane(norm=0.9e-7, prev=1e-7)
    update(b)
    assert b["refresh"][0] == 0


def test_a_lane_fails_after_max_iterations_corrections():
    """The MAX_ITERATIONS-th correction without convergence fails the lane; a retrying lane
    (its correction void) is left as it is and still counts as iterating."""
    a = lane(iterations=MAX_ITERATIONS - 1, norm=1.0, prev=2.0)
    assert update(a) == (0, 1)
    b = lane(retry=1, iterations=3)
    assert update(b) == (1, 0)
    assert b["iterations"][0] == 3 and np.all(b["U"] == 0.0)
