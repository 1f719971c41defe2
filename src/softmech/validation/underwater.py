"""Validation cases of the underwater terms (group `underwater` of `softmech validate`; Renda et
al., IJRR 2018): the rigid root body coasting in still water (quadratic drag and added mass),
and the axisymmetric Cosserat shell (softmech.terms.axisym_shell) against thin-shell and plate
theory. tests/validation/test_underwater.py and test_shell_plate.py call the same functions.
"""
import functools

import numpy as np

import softmech as sm
from softmech.bodies.axisym_shell import cylinder_profile, meridian_rod
from softmech.terms.axisym_shell import shell_outputs
from softmech.validation.common import rel_error, result, validation_case

RHO_F = 1000.0
"""Density of water [kg/m^3]."""


def coasting_root(C_a=0.5):
    """(times [s], speeds [m/s], closed-form speeds with and without the added mass [m/s]) of a
    rigid sphere (R = 5 cm, rho = 1100 kg/m^3, C_d = 0.47) launched at 0.8 m/s in still water
    with quadratic drag and added mass C_a (Renda eqs. 20-21), over 3 coasting times tau =
    (m + m_a) / (k v0), dt = tau / 1000: v(t) = v0 / (1 + v0 t k / (m + m_a)), k = 1/2 rho C_d A."""
    R, rho, C_d, v0 = 0.05, 1100.0, 0.47, 0.8
    V, C_r = 4 / 3 * np.pi * R ** 3, C_d * np.pi * R ** 2
    m, m_a, k = rho * V, C_a * RHO_F * V, 0.5 * RHO_F * C_r
    tau = (m + m_a) / (k * v0)
    scene = sm.Scene()
    root = scene.add_sphere(name="root", position=(0, 0, 0), radius=R, density=rho,
                            velocity=(v0, 0, 0))
    scene.add(sm.QuadraticDrag(root, coefficient=C_r, fluid_density=RHO_F,
                               name="rigid_quadratic_drag"))
    scene.add(sm.AddedMass(root, C_a, fluid_density=RHO_F, name="rigid_added_mass"))
    sim = scene.compile(dt=tau / 1000, strict=True)
    out = sim.run(3 * tau, record=sm.Every(seconds=tau / 10, fields=("velocities",)))
    t, v = out["time"], out["root.velocities"][0, :, 0, 0]
    return t, v, v0 / (1 + v0 * t * k / (m + m_a)), v0 / (1 + v0 * t * k / m)


@validation_case("speed at t = 3τ [m/s]", "Renda et al. 2018 eqs. 20–21: "
                 "v = v₀ / (1 + v₀ t k / (m + m_a))", fast=True)
def root_body_coasts_to_rest():
    """The root body alone in still water (Renda et al., IJRR 2018, eqs. 20-21): (m + m_a) dv/dt
    = -1/2 rho C_d A v|v|, so v(t) = v0 / (1 + v0 t k / (m + m_a)) (coasting_root). Measured:
    the sample farthest from the closed form over 3 coasting times. Error relative; tolerance
    2e-3: the explicit step's error is first order in dt for this velocity-dependent force,
    ~dt / tau (dt = tau / 1000: measured 3.7e-4). Also required: without the added mass the
    closed form at 3 tau is > 10 % away (the case can tell the added mass is there)."""
    t, v, expected, without = coasting_root()
    errors = np.abs(v / expected - 1)
    worst = int(np.argmax(errors))
    return result("root_body_coasts_to_rest", v[worst], expected[worst], errors[worst], 2e-3,
                  f"largest error at t = {t[worst]:.3f} s; at 3 tau {v[-1]:.6f} m/s vs "
                  f"{expected[-1]:.6f} m/s (without added mass {without[-1]:.4f} m/s)",
                  passed=errors[worst] <= 2e-3 and abs(without[-1] / expected[-1] - 1) > 0.1)


def shell_scene(R=0.05, L=0.2, h=1e-3, E=1e6, nu=0.3, rho=1000.0, n_elems=20, **shell):
    """(scene, meridian rod "shell", AxisymmetricShell keyword arguments) of a closed cylinder
    of radius R, length L, thickness h [m] (cylinder_profile)."""
    r, z = cylinder_profile(R, L, n_elems)
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(**meridian_rod("shell", r, z, thickness=h, density=rho,
                                                youngs_modulus=E, poisson_ratio=nu))
    return scene, rod, dict(thickness=h, youngs_modulus=E, poisson_ratio=nu, **shell)


def inflated_cylinder(nu=0.3, R=0.05, L=0.2, h=1e-3, E=1e6, p=20.0):
    """(radial strains of the nodes (n + 1,), axial strain, expected radial strain, expected
    axial strain, cavity rate over volume [1/s]) of the closed cylinder under internal pressure
    p [Pa], damped to rest over 0.12 s: dR / R = p R (1 - nu/2) / (E h), dL / L = p R (1/2 - nu)
    / (E h) (Timoshenko & Woinowsky-Krieger sec. 1.14; Roark table 13.1 case 1c)."""
    scene, rod, shell = shell_scene(R, L, h, E, nu)
    scene.add(sm.AxisymmetricShell(rod, pressure=p, **shell))
    scene.add(sm.LinearDamping(rod, 200.0))
    sim = scene.compile(dt=1e-6)
    sim.run(0.12)
    U, U_dot, _, _ = shell_outputs(sim)
    x = sim.get_state("shell")["positions"][0]
    radial = np.hypot(x[:, 0], x[:, 1]) / R - 1
    axial = (x[-1, 2] - x[0, 2]) / L - 1
    return (radial, axial, p * R * (1 - nu / 2) / (E * h), p * R * (0.5 - nu) / (E * h),
            abs(U_dot[0]) / U[0])


@validation_case("radial strain of the worst node [-]", "thin-walled pressure vessel, "
                 "Timoshenko & Woinowsky-Krieger §1.14: ΔR/R = p R (1 − ν/2) / (E h)")
def axisym_cylinder_inflates():
    """A closed thin cylinder (R = 5 cm, L = 0.2 m, h = 1 mm, E = 1 MPa, nu = 0.3) built as
    the axisymmetric Cosserat shell (Renda et al. 2018: a meridian rod + AxisymmetricShell)
    under internal pressure p = 20 Pa: hoop stress p R / h and axial p R / (2 h) give
    dR / R = p R (1 - nu/2) / (E h) (Timoshenko & Woinowsky-Krieger, Theory of Plates and
    Shells, sec. 1.14; Roark table 13.1 case 1c); inflated_cylinder. Error relative; tolerance
    2 % (issue 15's; measured < 0.2 %: the linear theory's own error is of the order of the
    strain, 1e-3). Also required: the axial strain p R (1/2 - nu) / (E h) within 2 % (the
    Poisson coupling) and a static state (cavity rate < 1e-9 U / s)."""
    radial, axial, want_radial, want_axial, rate = inflated_cylinder()
    worst = float(radial[np.argmax(np.abs(radial / want_radial - 1))])
    error = rel_error(worst, want_radial)
    axial_error = rel_error(axial, want_axial)
    return result("axisym_cylinder_inflates", worst, want_radial, error, 0.02,
                  f"radial strain {worst:.6e} vs {want_radial:.6e}; axial {axial:.4e} vs "
                  f"{want_axial:.4e} ({axial_error:.1e}); cavity rate {rate:.1e} /s",
                  passed=error <= 0.02 and axial_error <= 0.02 and rate < 1e-9)


PLATE_A, PLATE_H, PLATE_E, PLATE_NU, PLATE_P = 0.05, 1e-3, 1e6, 0.3, 0.01
"""Circular plate: radius [m], thickness [m], Young's modulus [Pa], Poisson ratio, pressure [Pa]."""
PLATE_D = PLATE_E * PLATE_H ** 3 / (12 * (1 - PLATE_NU ** 2))
W_CLAMPED = PLATE_P * PLATE_A ** 4 / (64 * PLATE_D)
W_SIMPLE = PLATE_P * PLATE_A ** 4 * (5 + PLATE_NU) / (64 * PLATE_D * (1 + PLATE_NU))


@functools.lru_cache(maxsize=None)
def plate_deflection(support, n_elems=40):
    """(centre deflection [m] at t = 0.9 s, its change over the last 0.1 s [m]) of the circular
    plate (PLATE_*) built as a flat meridian from r = a to r = 0 with AxisymmetricShell's cavity
    pressure, held at r = a by a Clamp ("clamped": position and frame) or a Pin ("simple"):
    static through a linear damper (3 kg/(m s), about half critical for the first mode at mid
    radius; the deflection settles in ~0.5 s)."""
    r, z = np.linspace(PLATE_A, 0.0, n_elems + 1), np.zeros(n_elems + 1)
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(**meridian_rod("plate", r, z, thickness=PLATE_H, density=1000.0,
                                                youngs_modulus=PLATE_E, poisson_ratio=PLATE_NU))
    scene.add(sm.AxisymmetricShell(rod, thickness=PLATE_H, youngs_modulus=PLATE_E,
                                   poisson_ratio=PLATE_NU, pressure=PLATE_P))
    scene.add(sm.Clamp(rod, "first") if support == "clamped" else sm.Pin(rod, "first"))
    scene.add(sm.LinearDamping(rod, 3.0))
    sim = scene.compile(dt=1e-5)
    sim.run(0.8)
    before = sim.get_state("plate")["positions"][0, -1, 2]
    sim.run(0.1)
    after = sim.get_state("plate")["positions"][0, -1, 2]
    return float(after), float(after - before)


def _plate_case(name, support, theory, formula):
    w, change = plate_deflection(support)
    error = rel_error(w, theory)
    return result(name, w, theory, error, 0.015,
                  f"{support}: centre {w:.6e} m vs {formula} = {theory:.6e} m "
                  f"({w / theory - 1:+.2%}); change over the last 0.1 s {change:.1e} m",
                  passed=error <= 0.015 and abs(change) < 1e-3 * theory)


@validation_case("centre deflection w [m]", "Timoshenko & Woinowsky-Krieger §15: "
                 "w = p a⁴ / (64 D)")
def axisym_plate_clamped():
    """A circular plate (a = 5 cm, h = 1 mm, E = 1 MPa, nu = 0.3, p = 0.01 Pa) built as the
    axisymmetric Cosserat shell (a flat meridian, Renda et al. 2018 eq. 7's bending of both
    curvatures with their Poisson coupling), clamped at its edge: centre deflection
    w = p a^4 / (64 D), D = E h^3 / (12 (1 - nu^2)) (Timoshenko & Woinowsky-Krieger, Theory of
    Plates and Shells, 2nd ed., sec. 15); plate_deflection. Linear theory: w / h ~ 0.05.
    Error relative; tolerance 1.5 % (measured +0.32 %, 40 elements). Also required: static
    (it changes by < 1e-3 of w over the last 0.1 s)."""
    return _plate_case("axisym_plate_clamped", "clamped", W_CLAMPED, "p a^4/(64 D)")


@validation_case("centre deflection w [m]", "Timoshenko & Woinowsky-Krieger §15: "
                 "w = p a⁴ (5 + ν) / (64 D (1 + ν))")
def axisym_plate_simply_supported():
    """The same plate simply supported (a Pin at its edge): w = p a^4 (5 + nu) / (64 D (1 + nu))
    (Timoshenko & Woinowsky-Krieger sec. 15). nu enters only through the edge's M_r = D (k_r +
    nu k_t) = 0, so this case tests the Poisson coupling of the two bendings: without it the
    deflection would be +22.6 % off. Error relative; tolerance 1.5 % (measured -0.36 %). Also
    required: static, as the clamped case."""
    return _plate_case("axisym_plate_simply_supported", "simple", W_SIMPLE,
                       "p a^4 (5 + nu)/(64 D (1 + nu))")


CASES = {f.__name__: f for f in (root_body_coasts_to_rest, axisym_cylinder_inflates,
                                 axisym_plate_clamped, axisym_plate_simply_supported)}
"""Case name -> function returning its record."""
