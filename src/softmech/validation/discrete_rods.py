"""Validation cases of discrete elastic rods in the implicit integrator (group `discrete_rods`
of `softmech validate`): the self-weight cantilever of MAT-DiSMech's validation (ref. 004
sec. 7.2; softmech.validation.der) against Euler-Bernoulli and the exact elastica, torsion
against Saint-Venant, and slender-body drag against its terminal speed.
tests/validation/test_der_rod.py and test_der_fluids.py call the same functions.
"""
import math

import numpy as np

import softmech as sm
from softmech.implicit.binding import Binding
from softmech.terms.drag import slender_body_coefficients
from softmech.terms.nodes import _ImplicitTerm
from softmech.validation.common import rel_error, result, validation_case
from softmech.validation.der import FULL_STEPS, I, L, Q, R, cantilever, elastica_tip, static_tip


def euler_bernoulli_sag(E):
    """delta = q L^4 / (8 E I) [m] of the der.py cantilever (Euler-Bernoulli, e.g. Gere &
    Timoshenko, Mechanics of Materials, Table G-1 case 1)."""
    return Q * L**4 / (8 * E * I)


@validation_case("tip deflection δ [m]", "Euler–Bernoulli δ = q L⁴ / (8 E I); MAT-DiSMech "
                 "§7.2 setup", fast=True)
def der_cantilever_euler_bernoulli(E=1e10, tip=None):
    """The clamped DER cantilever under its own weight (softmech.validation.der: L = 1 m,
    r = 10 mm, rho = 1000 kg/m^3, nu = 0.5, n = 50, clamped at mid-edge 0; static solve) at
    E = 1e10 Pa, where delta / L = 5e-3, against Euler-Bernoulli delta = q L^4 / (8 E I) (Gere
    & Timoshenko, Mechanics of Materials, Table G-1 case 1). Error relative; tolerance 5e-4:
    measured -0.020 % (the second-order discretization error at n = 50; the geometric
    nonlinearity is ~1e-5 here). `tip` (3,): a tip already solved for (the tests' batch)."""
    tip = static_tip(E)[0] if tip is None else tip
    sag, expected = -float(tip[2]), euler_bernoulli_sag(E)
    return result("der_cantilever_euler_bernoulli", sag, expected, rel_error(sag, expected), 5e-4,
                  f"E = {E:g} Pa: sag {sag:.6e} m vs q L^4/(8 E I) = {expected:.6e} m "
                  f"({sag / expected - 1:+.3%})")


@validation_case("tip height z(L) [m]", "extensible heavy elastica (Antman ch. 4), "
                 "scipy `solve_bvp`", fast=True)
def der_cantilever_elastica(E=1e7, tip=None):
    """The same cantilever at E = 1e7 Pa, a large deflection (delta / L = 0.9; Euler-Bernoulli
    is 82 % off), against the exact extensible elastica under its own weight (der.elastica_tip:
    EI theta'' = q (L - s)(1 + eps) cos(theta), Antman, Nonlinear Problems of Elasticity, ch. 4;
    solve_bvp to 1e-10). Error relative in z; tolerance 2e-3: measured -0.079 %, the second-
    order discretization error (n = 50). Also required: x within 2e-3 L of the elastica's."""
    tip = static_tip(E)[0] if tip is None else tip
    x_ref, z_ref = elastica_tip(E)
    error = rel_error(tip[2], z_ref)
    return result("der_cantilever_elastica", tip[2], z_ref, error, 2e-3,
                  f"E = {E:g} Pa: tip ({tip[0]:.6f}, {tip[2]:.6f}) m vs elastica ({x_ref:.6f}, "
                  f"{z_ref:.6f}) m",
                  passed=error <= 2e-3 and abs(tip[0] - x_ref) <= 2e-3 * L)


class TipTorque(_ImplicitTerm, register=False):
    """A constant generalized force T [N m] on the rod's last twist angle: a torque about the
    last edge (validation-only term)."""

    def __init__(self, torque):
        self.name = "tip_torque"
        self.torque = torque

    def bind_implicit(self, ctx):
        rod = ctx.body(self.name, "rod")
        dof = int(ctx.layout.scalar_dof(rod.scalars)[-1])
        torque = self.torque

        class Torque(Binding):
            name = "tip_torque"

            def forces(self, b, q, v, t, h, F, J):
                F[dof] += torque

            def energy(self, b, q):
                return -torque * q[dof]
        return [Torque()]


@validation_case("twist of the last edge θ_n − θ_0 [rad]", "Saint-Venant torsion: "
                 "θ = T L / (G J)", fast=True)
def der_torsion_tip_torque():
    """The der.py rod (n = 20, E = 1 GPa, G = E / 3, no gravity), clamped, twisted by a torque
    T = 1e-3 N m about its last edge: uniform twist, theta_last - theta_0 = T L_t / (G J),
    L_t = n l the length between the clamped and the loaded edge's midpoints (Saint-Venant
    torsion of a circular bar, e.g. Gere & Timoshenko sec. 3.3; exact for the discrete rod,
    whose n springs each carry T l / GJ). Error relative; tolerance 1e-9 (round-off). Also
    required: every spring twisted by T l / GJ (1e-9) and the axis straight (1e-12 m)."""
    E, n, T = 1e9, 20, 1e-3
    scene, _ = cantilever(E, n=n, gravity=(0.0, 0.0, 0.0))
    scene.add(TipTorque(T))
    sim = scene.compile(dt=1e-3, newton=FULL_STEPS)
    sim.solve_static()
    state = sim.get_state("rod")
    l = L / (n + 0.5)
    GJ = E / 3.0 * math.pi * R**4 / 2
    theta = state["angles"][0]
    twist, expected = float(theta[-1] - theta[0]), T * n * l / GJ
    uniform = float(np.abs(np.diff(theta) / (T * l / GJ) - 1).max())
    bent = float(np.abs(state["positions"][0, :, 1:]).max())
    error = rel_error(twist, expected)
    return result("der_torsion_tip_torque", twist, expected, error, 1e-9,
                  f"twist {twist:.9e} rad vs T L/(G J) = {expected:.9e} rad; springs within "
                  f"{uniform:.1e}; axis off by {bent:.1e} m",
                  passed=error <= 1e-9 and uniform <= 1e-9 and bent < 1e-12)


def sinking_der_rod(across=True, mu=1.0):
    """(node velocities (n + 1, 3) [m/s] after 40 relaxation times, expected sinking speed
    [m/s]) of a straight discrete rod (0.1 m, r = 1 mm, rho = 2000 kg/m^3, 20 edges) across
    (or along) gravity with slender-body drag of form "spheroid" in a fluid of viscosity mu
    [Pa s]: weight rho A g L = drag c L v gives v = rho A g / c (c = c_n across, c_t along;
    slender-body theory, Lighthill 1975)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0, 0, 0),
                            direction=(1.0, 0.0, 0.0) if across else (0.0, 0.0, 1.0),
                            length=0.1, n_elems=20, radius=1e-3, density=2000.0,
                            youngs_modulus=1e8)
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    scene.add(sm.SlenderBodyDrag(rod, mu, form="spheroid"))
    c_t, c_n = slender_body_coefficients(mu, 0.1 / 1e-3, "spheroid")
    c = c_n if across else c_t
    area = np.pi * 1e-6
    tau = 2000.0 * area / c                                 # m / (c L)
    sim = scene.compile(dt=tau / 5)
    sim.run(40 * tau)
    return sim.get_state("rod")["velocities"][0], 2000.0 * area * 9.81 / c


@validation_case("sinking speed of the slowest node [m/s]", "slender-body theory: "
                 "v = ρ A g / c_n (Lighthill 1975)", fast=True)
def der_rod_sinks_at_slender_body_speed():
    """A straight discrete rod sinking across gravity with slender-body drag (form "spheroid",
    mu = 1 Pa s) reaches v = rho A g / c_n (weight = drag; slender-body theory, Lighthill 1975):
    the consistent nodal forces of the local drag -C v are exact for a rigidly moving straight
    rod (sinking_der_rod). Measured after 40 relaxation times m / (c L) with implicit Euler at
    dt = tau / 5; error relative; tolerance 1e-9 (the fixed point of the implicit step is the
    exact balance; exp(-40) is below round-off). Also required: no sideways motion (1e-9)."""
    v, expected = sinking_der_rod(True)
    speeds = -v[:, 2]
    worst = float(speeds[np.argmax(np.abs(speeds - expected))])
    sideways = float(np.abs(v[:, :2]).max() / np.abs(v[:, 2]).max())
    error = rel_error(worst, expected)
    return result("der_rod_sinks_at_slender_body_speed", worst, expected, error, 1e-9,
                  f"{worst:.9e} m/s vs rho A g / c_n = {expected:.9e} m/s; sideways "
                  f"{sideways:.1e}", passed=error <= 1e-9 and sideways <= 1e-9)


CASES = {f.__name__: f for f in (der_cantilever_euler_bernoulli, der_cantilever_elastica,
                                 der_torsion_tip_torque, der_rod_sinks_at_slender_body_speed)}
"""Case name -> function returning its record."""
