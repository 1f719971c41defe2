"""The per-lane decisions of the unified implicit integrator's Newton iteration
(softmech.kernels.implicit_newton.update_lanes): when a lane stops, and when it asks for a new
Jacobian. The contraction-rate stop (Hairer and Wanner, Solving ODEs II, eq. IV.8.10) is valid
only for two corrections of one Jacobian."""
import numpy as np

from softmech.kernels.implicit_newton import update_lanes

TOL = 1e-8
MAX_ITERATIONS = 12


def one_lane(norm, prev, fresh, it=3, rprev=1.0, residual=0.5, refresh_rate=0.25):
    """update_lanes on one lane of two DOFs; returns (remaining, failed, active, refresh)."""
    U = np.zeros((2, 1))
    R = np.full((2, 1), residual)
    dU = np.full((2, 1), 1e-3)
    arrays = dict(dP=np.zeros((2, 1)), norm=np.array([norm]), prev=np.array([prev]),
                  rprev=np.array([rprev]), active=np.ones(1, np.int64),
                  refresh=np.zeros(1, np.int64), fresh=np.array([fresh], np.int64),
                  exact=np.zeros(1, np.int64), backtracks=np.zeros(1, np.int64))
    remaining, failed = update_lanes(U, R, dU, *arrays.values(), it, TOL, refresh_rate, 4,
                                     MAX_ITERATIONS)
    return remaining, failed, int(arrays["active"][0]), int(arrays["refresh"][0])


def test_a_correction_after_an_undone_one_is_not_taken_for_convergence():
    """After a kept Jacobian's correction is undone, prev is inf (no rate known) and a new
    Jacobian is computed at the restored iterate (fresh). Its correction, of size 1 (10^8 tol),
    must leave the lane iterating: the rate n / prev = 0 is not a contraction rate. (Before the
    fix the lane stopped here, taking an unconverged step.)"""
    remaining, failed, active, _ = one_lane(norm=1.0, prev=np.inf, fresh=1)
    assert (remaining, failed, active) == (1, 0, 1)


def test_two_corrections_of_one_jacobian_stop_on_their_rate():
    """Kept Jacobian (fresh 0): corrections 1e-6 then 5e-8, rate r = 0.05, predicted remaining
    error r n / (1 - r) = 2.6e-9 < tol = 1e-8: the lane stops although n > tol. The same two
    numbers with a Jacobian computed at this iterate (fresh 1) do not stop it."""
    assert one_lane(norm=5e-8, prev=1e-6, fresh=0)[2] == 0
    assert one_lane(norm=5e-8, prev=1e-6, fresh=1)[2] == 1


def test_a_slow_lane_asks_for_a_new_jacobian_within_the_step():
    """Rate 0.9 > refresh_rate with a correction far above STILL_FAR tol: a new Jacobian is
    asked for, whatever the age of the kept one (a strongly nonlinear step would otherwise
    iterate on the Jacobian of its first iterate); near convergence (n < 100 tol) it is not."""
    assert one_lane(norm=0.9, prev=1.0, fresh=0, residual=0.1)[3] == 1
    assert one_lane(norm=0.9e-7, prev=1e-7, fresh=0, residual=0.1)[3] == 0
