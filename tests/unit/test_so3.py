"""Accuracy of the branch-free SO(3) helpers of softmech.kernels.so3 against high-precision
references (mpmath at 40 digits), over the domains on which the rod kernels call them.

The helpers are numba inline functions; small @njit wrappers (same error_model as the kernels:
IEEE division) evaluate them from Python. Each test states its tolerance and why.
"""
import math

import mpmath
import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from softmech.kernels.so3 import (MAX_CURVATURE_ANGLE, MAX_ROTATION_ANGLE, atan_nonneg, exp_coefficients,
                                  log_jacobian_coefficient, theta_over_sin)

mpmath.mp.dps = 40
ULP = np.finfo(float).eps  # 2.22e-16, one unit in the last place at 1.0

# float t in [a, b] (no NaN / inf); hypothesis shrinks towards the domain edges
def angles(lo, hi, **kw):
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False, **kw)


# ------------------------------------------------------------------------- njit wrappers
@numba.njit(error_model="numpy")
def _exp_coefficients(z):
    return exp_coefficients(z)


@numba.njit(error_model="numpy")
def _atan(x):
    return atan_nonneg(x)


@numba.njit(error_model="numpy")
def _theta_over_sin(s, c):
    return theta_over_sin(s, c)


@numba.njit(error_model="numpy")
def _log_jacobian_coefficient(t):
    """Called as in cosserat_forces.rod_voronoi_pass: from sin, cos and theta/sin of the angle."""
    s = math.sin(t)
    c = math.cos(t)
    ratio = theta_over_sin(s, c)
    return log_jacobian_coefficient(t * t, s, c, ratio)


# ------------------------------------------------------------------------- references
def _ref_exp(z):
    """(sin t / t, (1 - cos t) / t^2) at t = sqrt(z), z a float; (1 - cos t) = 2 sin^2(t/2)
    avoids the cancellation of 1 - cos t in the reference too."""
    if z == 0.0:
        return 1.0, 0.5
    t = mpmath.sqrt(mpmath.mpf(z))
    return float(mpmath.sin(t) / t), float(2 * mpmath.sin(t / 2) ** 2 / t**2)


def _ref_theta_over_sin(t):
    t = mpmath.mpf(t)
    return 1.0 if t == 0 else float(t / mpmath.sin(t))


def _ref_log_jacobian(t):
    """c(t) = 1/t^2 - (1 + cos t) / (2 t sin t) (inverse SO(3) Jacobian coefficient)."""
    t = mpmath.mpf(t)
    return float(1 / t**2 - (1 + mpmath.cos(t)) / (2 * t * mpmath.sin(t)))


def _rel(value, ref):
    return abs(value - ref) / abs(ref)


# ------------------------------------------------------------------------- exp_coefficients
# Tolerance 4 ulp: the Taylor series to z^8 truncates below z^9/19! < 1e-17 for z <= 1 (so3.py),
# leaving only the round-off of a 9-term Horner scheme with positive/alternating terms
# (each step rounds once; the sum is dominated by the leading term), i.e. a few ulp.
EXP_RTOL = 4 * ULP


@settings(max_examples=300, deadline=None)
@given(angles(0.0, 1.0))
def test_exp_coefficients_match_sin_and_cos(z):
    a, b = _exp_coefficients(z)
    ra, rb = _ref_exp(z)
    assert _rel(a, ra) <= EXP_RTOL, (z, a, ra)
    assert _rel(b, rb) <= EXP_RTOL, (z, b, rb)


@pytest.mark.parametrize("z", [0.0, 5e-324, 1e-300, 1e-16, 0.25, MAX_ROTATION_ANGLE**2])
def test_exp_coefficients_edges(z):
    """Domain edges: z = 0 gives exactly the limits (1, 1/2); z = MAX_ROTATION_ANGLE^2 (the largest
    angle the stepper accepts) is still within EXP_RTOL."""
    a, b = _exp_coefficients(z)
    ra, rb = _ref_exp(z)
    assert _rel(a, ra) <= EXP_RTOL and _rel(b, rb) <= EXP_RTOL
    if z == 0.0:
        assert (a, b) == (1.0, 0.5)


def test_exp_coefficients_give_a_rotation():
    """Rodrigues R = I + A [a]x + Bc [a]x^2 with the coefficients is orthonormal to round-off for
    angles up to MAX_ROTATION_ANGLE (tolerance 1e-15: a few ulp of entries of size <= 1)."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        axis = rng.normal(size=3)
        a = axis / np.linalg.norm(axis) * rng.uniform(0.0, MAX_ROTATION_ANGLE)
        A, Bc = _exp_coefficients(float(a @ a))
        K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
        R = np.eye(3) + A * K + Bc * K @ K
        np.testing.assert_allclose(R @ R.T, np.eye(3), rtol=0, atol=1e-15)


# ------------------------------------------------------------------------- atan_nonneg
# Tolerance 2 ulp relative (4.4e-16): Cephes atan.c documents a peak relative error of 1.9e-16
# (IEEE, +-10); one more ulp for the final rounding of the reference-comparison.
ATAN_RTOL = 2 * ULP


@settings(max_examples=300, deadline=None)
@given(st.one_of(angles(0.0, 1e3), angles(0.5, 3.0), angles(1e-300, 1e-3)))
def test_atan_nonneg_matches_arctan(x):
    y = _atan(x)
    ref = float(mpmath.atan(mpmath.mpf(x)))
    if x == 0.0:
        assert y == 0.0
    else:
        assert _rel(y, ref) <= ATAN_RTOL, (x, y, ref)


def test_atan_nonneg_dense_and_at_branch_points():
    """Dense sweep of [0, 1e3] plus both sides of the range-reduction thresholds 0.66 and
    tan(3 pi / 8); also agrees with numpy's libm arctan to the same tolerance."""
    rng = np.random.default_rng(3)
    t38 = math.tan(3 * math.pi / 8)
    xs = np.concatenate([rng.uniform(0, 1e3, 1500), rng.uniform(0, 4, 1500),
                         [0.66, np.nextafter(0.66, 0), np.nextafter(0.66, 1), t38,
                          np.nextafter(t38, 0), np.nextafter(t38, 5), 1.0, 1e3]])
    ys = np.array([_atan(x) for x in xs])
    refs = np.array([float(mpmath.atan(mpmath.mpf(x))) for x in xs])
    nz = refs > 0
    assert np.max(np.abs(ys[nz] - refs[nz]) / refs[nz]) <= ATAN_RTOL
    assert np.max(np.abs(ys[nz] - np.arctan(xs[nz])) / refs[nz]) <= 2 * ATAN_RTOL


# ------------------------------------------------------------------------- theta_over_sin
# Tolerance 1e-14 relative for s = sin t, c = cos t (floats), t in [0, MAX_CURVATURE_ANGLE = 2.7]
# (the documented domain: one range reduction keeps the Cephes argument within |x| <= 0.66 up to
# t = 2 atan(4.88) ~ 2.73). The function sees only the rounded s and c; near t = 2.7, 1 + c ~ 0.1
# loses one digit, which atan damps, so the expected error is ~1e-15; 1e-14 leaves a margin.
TOS_RTOL = 1e-14


@settings(max_examples=300, deadline=None)
@given(angles(0.0, MAX_CURVATURE_ANGLE))
def test_theta_over_sin(t):
    value = _theta_over_sin(math.sin(t), math.cos(t))
    assert _rel(value, _ref_theta_over_sin(t)) <= TOS_RTOL, t


@pytest.mark.parametrize("t", [0.0, 1e-300, 1e-8, math.pi / 4, np.nextafter(math.pi / 4, 0), 1.0,
                               math.pi / 2, MAX_CURVATURE_ANGLE])
def test_theta_over_sin_edges(t):
    """t = 0 (limit 1, no 0/0), the branch switch tan(t/2) = tan(pi/8), and the domain's end."""
    value = _theta_over_sin(math.sin(t), math.cos(t))
    assert np.isfinite(value)
    assert _rel(value, _ref_theta_over_sin(t)) <= TOS_RTOL


# ------------------------------------------------------------------------- log_jacobian_coefficient
# Two regimes (so3.py): theta^2 >= 1 uses the closed form (1 - (t/sin t)(1 + cos t)/2) / t^2, whose
# cancellation loses at most ~2 digits near t = 1 (error ~1e-14); theta^2 < 1 uses the series
# sum_{n=1..8} (-1)^(n+1) B_2n t^(2n-2) / (2n)!, whose first omitted term, -B_18 t^16 / 18!
# (B_18 = 43867/798), is 1.0e-13 relative to c(1) ~ 0.0847 at t -> 1 and far less below. Beyond
# t = 1 the closed form inherits theta_over_sin's ~1e-15 error amplified by the cancellation
# (~10x at t = 2.7). Tolerance 2e-13 on [0, MAX_CURVATURE_ANGLE].
LJC_RTOL = 2e-13


@settings(max_examples=300, deadline=None)
@given(angles(1e-6, MAX_CURVATURE_ANGLE))
def test_log_jacobian_coefficient_matches_mpmath(t):
    value = _log_jacobian_coefficient(t)
    assert _rel(value, _ref_log_jacobian(t)) <= LJC_RTOL, t


def test_log_jacobian_coefficient_across_the_branch_switch():
    ts = np.concatenate([np.linspace(0.95, 1.05, 201), [np.nextafter(1.0, 0), 1.0]])
    err = max(_rel(_log_jacobian_coefficient(t), _ref_log_jacobian(t)) for t in ts)
    assert err <= LJC_RTOL


def test_log_jacobian_coefficient_to_1e10():
    ts = np.concatenate([np.linspace(1e-6, 3.0, 600, endpoint=False), [np.nextafter(0.5, 0)]])
    err = max(_rel(_log_jacobian_coefficient(t), _ref_log_jacobian(t)) for t in ts)
    assert err <= 1e-10
