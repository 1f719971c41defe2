"""Analytic and semi-analytic reference solutions used by the validation cases.

All in SI units. The semi-analytic one (`planar_cantilever_tip`) solves the continuum equations of
the same Cosserat rod model (planar, geometrically exact, with shear and extension) with a
collocation boundary-value solver, for loads where the small-deflection formulas are not exact.
"""
import math

import numpy as np
from scipy.integrate import solve_bvp
from scipy.optimize import brentq


def timoshenko_tip_deflection(force, length, area, inertia, youngs_modulus, shear_modulus,
                              shear_coefficient):
    """Small-deflection tip deflection [m] of a clamped-free Timoshenko beam under a tip force.

    ME498 handout, section 2.2.3 (Timoshenko case), evaluated at s = L and with the handout's 4/3
    written as the shear coefficient alpha_c of the rod's shear stiffness alpha_c G A:

        y(L) = -F L / (alpha_c A G) - F L^3 / (3 E I)

    force [N] (positive = along the load direction), length [m], area [m^2], inertia [m^4]."""
    return -(force * length / (shear_coefficient * area * shear_modulus)
             + force * length**3 / (3.0 * youngs_modulus * inertia))


def euler_bernoulli_tip_deflection(force, length, inertia, youngs_modulus):
    """Euler-Bernoulli limit of the handout formula: y(L) = -F L^3 / (3 E I) [m]."""
    return -force * length**3 / (3.0 * youngs_modulus * inertia)


def planar_cantilever_tip(force, length, area, inertia, youngs_modulus, shear_modulus,
                          shear_coefficient, law):
    """Tip deflection [m] of the geometrically exact planar Cosserat cantilever (clamped at s = 0
    along +x, dead tip force (0, -F)), for the rod's constitutive law, by collocation.

    Continuum equations per rest arc length s (Gazzola et al. 2018 eqs. 2.1-2.2, static, planar):

        internal force n = (0, -F) everywhere (n' = 0, n(L) = tip force);
        local components N3 = n.d3 = -F sin(theta), N1 = n.d1 = -F cos(theta), with
        d3 = (cos theta, sin theta), d1 = (-sin theta, cos theta);
        strains: hyperelastic sigma = N / S; gazzola2018 N = S sigma / e with e = |sigma + e3|;
        x' = (1 + sigma3) d3 + sigma1 d1;  m' = -(x' x n).z = F x'_x;
        theta' = m / (E I) (hyperelastic) or m e^3 / (E I) (gazzola2018, m = B kappa / e^3).

    Boundary conditions: theta(0) = 0, x(0) = 0, m(L) = 0.
    Returns (tip y [m], tip rotation [rad]).
    """
    s_shear = shear_coefficient * shear_modulus * area
    s_axial = youngs_modulus * area
    bend = youngs_modulus * inertia
    F = force

    def strains(theta):
        n1 = -F * np.cos(theta)
        n3 = -F * np.sin(theta)
        sig1, sig3 = n1 / s_shear, n3 / s_axial
        e = np.ones_like(theta)
        if law == "gazzola2018":
            for _ in range(60):  # fixed point sigma = e N / S; contraction since |N| / S << 1
                e = np.sqrt(sig1**2 + (1.0 + sig3) ** 2)
                sig1, sig3 = e * n1 / s_shear, e * n3 / s_axial
        return sig1, sig3, e

    def rhs(s, y):
        theta, m = y[0], y[1]
        sig1, sig3, e = strains(theta)
        dx = (1.0 + sig3) * np.cos(theta) - sig1 * np.sin(theta)
        dy = (1.0 + sig3) * np.sin(theta) + sig1 * np.cos(theta)
        scale = e**3 if law == "gazzola2018" else 1.0
        return np.vstack([m * scale / bend, F * dx, dx, dy])

    def bc(ya, yb):
        return np.array([ya[0], yb[1], ya[2], ya[3]])

    s = np.linspace(0.0, length, 201)
    guess = np.vstack([F * (s**2 / 2 - length * s) / bend, F * (s - length), s,
                       np.zeros_like(s)])
    sol = solve_bvp(rhs, bc, s, guess, tol=1e-10, max_nodes=100000)
    if not sol.success:
        raise RuntimeError(f"planar cantilever reference did not converge: {sol.message}")
    tip = sol.sol(length)
    return float(tip[3]), float(tip[0])


def clamped_free_beta1():
    """First root beta1 L of cos(x) cosh(x) = -1 (clamped-free Euler-Bernoulli beam), ~1.8751."""
    return brentq(lambda x: math.cos(x) * math.cosh(x) + 1.0, 1.0, 3.0, xtol=1e-15)


def cantilever_first_frequency(length, area, inertia, youngs_modulus, density):
    """Euler-Bernoulli first bending frequency of a clamped-free beam [Hz]:
    f1 = (beta1 L)^2 / (2 pi L^2) sqrt(E I / (rho A))  (e.g. Rao, Vibration of Continuous
    Systems, 2007, sec. 11.5, Table 11.3)."""
    b = clamped_free_beta1()
    return b**2 / (2.0 * math.pi * length**2) * math.sqrt(youngs_modulus * inertia / (density * area))
