"""Branch-free SO(3) maps for the rod kernels: exponential, logarithm, log-Jacobian term.

Conventions (Gazzola et al. 2018; ME498 handout eqs. 2, 6, 10 with the errata):
a director matrix Q holds d1, d2, d3 as rows, so lab vectors map to the local frame as
v_local = Q v_lab. Frames evolve as dQ/dt = -[w]x Q with w the local angular velocity, hence
the update Q <- exp(-h[w]x) Q, and the discrete curvature is kappa = -log(Q_{i+1} Q_i^T) / D_i.

All functions are scalar, inlined into the callers' flat loops and free of data-dependent
branches (the `if`s below compile to selects), so LLVM can vectorize the loops that call them.
No libm calls: this machine's numba has no SVML, and a scalar libm call blocks vectorization.
"""

from softmech.kernels import kernel

# Taylor coefficients (highest power first) of sin(t)/t and (1 - cos t)/t^2 in z = t^2, up to z^8.
# For |t| <= 1 the truncation error is below z^9/19! < 1e-17, i.e. exact in float64; the
# stepper checks |t| <= 1.
_SINC = (1.0 / 355687428096000.0, -1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0,
         1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0, 1.0)
_COSC = (1.0 / 6402373705728000.0, -1.0 / 20922789888000.0, 1.0 / 87178291200.0,
         -1.0 / 479001600.0, 1.0 / 3628800.0, -1.0 / 40320.0, 1.0 / 720.0, -1.0 / 24.0, 0.5)

# Cephes atan rational approximation on |x| <= 0.66 (Moshier, Cephes Math Library, atan.c).
_P0, _P1, _P2, _P3, _P4 = (-8.750608600031904122785e-1, -1.615753718733365076637e1,
                           -7.500855792314704667340e1, -1.228866684490136173410e2,
                           -6.485021904942025371773e1)
_Q0, _Q1, _Q2, _Q3, _Q4 = (2.485846490142306297962e1, 1.650270098316988542046e2,
                           4.328810604912902668951e2, 4.853903996359136964868e2,
                           1.945506571482613964425e2)
_MOREBITS = 6.123233995736765886130e-17
_PIO2 = 1.5707963267948966
_PIO4 = 0.7853981633974483
_T3P8 = 2.414213562373095  # tan(3 pi / 8)
_TAN_PI_8 = 0.41421356237309503

# c(theta) series coefficients (-1)^(n+1) B_2n / (2n)!, n = 8..1 (highest power first)
_LOGJ = (3617.0 / 510.0 / 20922789888000.0, 1.0 / 74724249600.0, 691.0 / 1307674368000.0,
         1.0 / 47900160.0, 1.0 / 1209600.0, 1.0 / 30240.0, 1.0 / 720.0, 1.0 / 12.0)

MAX_ROTATION_ANGLE = 1.0
"""Largest rotation angle [rad] per drift for which `exp_coefficients` is exact in float64."""

MAX_CURVATURE_ANGLE = 2.7
"""Largest angle [rad] between neighbouring element frames for which `theta_over_sin` is accurate
(its reduced argument stays within the Cephes range |x| <= 0.66 up to theta = 2 atan(4.88))."""


@kernel(inline="always")
def horner(z, coefficients):
    """Polynomial in z with `coefficients` given highest power first (a constant tuple)."""
    acc = 0.0
    for c in coefficients:
        acc = acc * z + c
    return acc


@kernel(inline="always")
def exp_coefficients(z):
    """(sin t / t, (1 - cos t) / t^2) for z = t^2 <= 1, by Taylor series (exact in float64)."""
    return horner(z, _SINC), horner(z, _COSC)


@kernel(inline="always")
def atan_nonneg(x):
    """atan(x) for x >= 0 (Cephes range reduction + rational approximation, ~1 ulp)."""
    big = x > _T3P8
    mid = x > 0.66
    xr = x
    y0 = 0.0
    extra = 0.0
    if big:
        xr = -1.0 / x
        y0 = _PIO2
        extra = _MOREBITS
    elif mid:
        xr = (x - 1.0) / (x + 1.0)
        y0 = _PIO4
        extra = 0.5 * _MOREBITS
    z = xr * xr
    p = (((_P0 * z + _P1) * z + _P2) * z + _P3) * z + _P4
    q = ((((z + _Q0) * z + _Q1) * z + _Q2) * z + _Q3) * z + _Q4
    return y0 + (xr * z * p / q + extra) + xr


@kernel(inline="always")
def theta_over_sin(s, c):
    """theta / sin(theta) for the angle theta in [0, MAX_CURVATURE_ANGLE] given sin = s >= 0 and
    cos = c, with 2 divisions and no libm call.

    With t = tan(theta/2) = s / (1 + c): for t <= tan(pi/8), atan(t) = t (1 + z P(z)/Q(z)) with
    z = t^2 (Cephes), so theta / s = 2 (1 + z P/Q) / (1 + c) -- no division by a vanishing s;
    above, atan(t) = pi/4 + atan((t - 1)/(t + 1)) and theta / s = 2 atan(t) / s.
    """
    den = 1.0 + c
    large = s > _TAN_PI_8 * den  # t > tan(pi/8)
    # xr = t or (t - 1) / (t + 1) = (s - den) / (s + den): one division for both branches
    top = s
    bottom = den
    if large:
        top = s - den
        bottom = s + den
    xr = top / bottom
    z = xr * xr
    p = (((_P0 * z + _P1) * z + _P2) * z + _P3) * z + _P4
    q = ((((z + _Q0) * z + _Q1) * z + _Q2) * z + _Q3) * z + _Q4
    # theta / s = 2 (1 + z p / q) / den, or 2 (pi/4 + xr + xr z p / q) / s: one division
    num = q + z * p
    if large:
        num = (_PIO4 + 0.5 * _MOREBITS + xr) * q + xr * z * p
        den = s
    return 2.0 * num / (q * den)


@kernel(inline="always")
def log_jacobian_coefficient(theta2, s, c, theta_over_s):
    """c(theta) = 1/theta^2 - (1 + cos theta) / (2 theta sin theta), the [phi]x^2 coefficient of the
    inverse Jacobians of SO(3) (J_r^{-1}(phi) = I + [phi]x/2 + c [phi]x^2).

    For theta^2 < 1 the series c = sum_{n>=1} (-1)^(n+1) B_2n theta^(2n-2) / (2n)! (from the
    Laurent series of cot; B_2n Bernoulli numbers), truncated after theta^14: relative error
    < 2e-13 (measured against mpmath, worst at theta -> 1). Above, the closed form (1 - (theta/sin)(1 + cos)/2) / theta^2 with one division.
    """
    series = horner(theta2, _LOGJ)
    exact = (1.0 - 0.5 * theta_over_s * (1.0 + c)) / theta2
    return series if theta2 < 1.0 else exact
