"""Validation cases of fluid loads on rods and rigid bodies (group `fluids` of `softmech
validate`): resistive-force drag (softmech.terms.drag.ViscousDrag), slender-body Stokes drag
(SlenderBodyDrag) and buoyancy, quadratic drag and added mass (softmech.terms.fluids; Renda et
al., IJRR 2018) against closed forms. tests/validation/test_drag.py, test_slender_body.py and
test_fluids.py call the same functions.
"""
import numpy as np

import softmech as sm
from softmech.validation.common import rel_error, result, validation_case

G = 9.81
RHO, RADIUS = 1000.0, 0.01
C_T = np.pi                  # [N s/m^2]: rho A / C_T = 0.1 s
C_N = 2.0 * np.pi            # slender-body theory's c_n ~ 2 c_t


def resistive_terminal_velocity(theta, c_t=C_T, c_n=C_N):
    """Terminal velocity (3,) [m/s] of a straight rod (rho = RHO, r = RADIUS) inclined at theta
    [rad] from the horizontal settling under gravity with drag -c_t (v.t) t - c_n (v - (v.t) t)
    per length (module docstring of tests/validation/test_drag.py)."""
    w = RHO * np.pi * RADIUS**2 * G
    k = 1.0 / c_t - 1.0 / c_n
    return np.array([-w * np.sin(theta) * np.cos(theta) * k, 0.0,
                     -w * (np.sin(theta)**2 * k + 1.0 / c_n)])


@validation_case("largest node velocity error / |v_T| [-]", "resistive-force theory, Gray & "
                 "Hancock 1955; Lighthill 1975 ch. 3", fast=True)
def settling_rod_resistive_force_velocity(theta=np.pi / 6):
    """A straight rod (L = 0.5 m, r = 1 cm, rho = 1000 kg/m^3) inclined at theta = 30 deg
    settles under gravity with anisotropic drag c_t = pi, c_n = 2 pi N s/m^2 per length and
    reaches the terminal velocity of resistive-force theory (Gray & Hancock 1955; Lighthill
    1975, ch. 3): v = (f.t) t (1/c_t - 1/c_n) + f / c_n, f = (0, 0, -rho A g), i.e. it glides
    sideways as it sinks. Measured after 3 s (30 time constants rho A / c_t): the largest
    deviation of any node's velocity from v over |v|. Error absolute [-] (already relative);
    tolerance 1e-9: round-off, far below any modelling error. Also required: no rotation
    (angular velocities < 1e-7 rad/s; a uniform rod under uniform drag feels no torque)."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(np.cos(theta), 0, np.sin(theta)),
                                 normal=(0, 1, 0), length=0.5, n_elems=10, radius=RADIUS,
                                 density=RHO, youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.ViscousDrag(rod, normal=C_N, tangential=C_T))
    sim = scene.compile(dt=2e-4, strict=True)
    sim.run(3.0)
    state = sim.get_state()
    expected = resistive_terminal_velocity(theta)
    deviation = float(np.abs(state["velocities"][0] - expected).max() / np.linalg.norm(expected))
    spin = float(np.abs(state["angular_velocities"]).max())
    return result("settling_rod_resistive_force_velocity", deviation, 0.0, deviation, 1e-9,
                  f"theta = {np.degrees(theta):.0f} deg: v_T = ({expected[0]:.6f}, 0, "
                  f"{expected[2]:.6f}) m/s, largest deviation {deviation:.1e} |v_T|; largest "
                  f"angular velocity {spin:.1e} rad/s", passed=deviation <= 1e-9 and spin < 1e-7)


MU = 1.2e-3
"""Viscosity of the slender-body cases [Pa s]."""


def spheroid_drag(a, b, mu=MU):
    """Exact Stokes resistances of a prolate spheroid with semi-axes a > b [m] (Oberbeck 1876;
    Chwang & Wu, J. Fluid Mech. 67:787, 1975): (F_parallel / U [N s/m], F_normal / U [N s/m],
    T_normal / Omega [N m s]) with e = sqrt(1 - b^2/a^2), Le = ln((1 + e) / (1 - e)):
        F_parallel = 16 pi mu a e^3 U / ((1 + e^2) Le - 2 e)
        F_normal   = 32 pi mu a e^3 U / (2 e + (3 e^2 - 1) Le)
        T_normal   = 32 pi mu a^3 e^3 (2 - e^2) Omega / (3 ((1 + e^2) Le - 2 e))."""
    e = np.sqrt(1.0 - (b / a) ** 2)
    Le = np.log((1.0 + e) / (1.0 - e))
    parallel = 16.0 * np.pi * mu * a * e**3 / ((1.0 + e**2) * Le - 2.0 * e)
    normal = 32.0 * np.pi * mu * a * e**3 / (2.0 * e + (3.0 * e**2 - 1.0) * Le)
    torque = 32.0 * np.pi * mu * a**3 * e**3 * (2.0 - e**2) / (3.0 * ((1.0 + e**2) * Le - 2.0 * e))
    return parallel, normal, torque


def rod_in_fluid(length, radius, n_elems=40, form="spheroid"):
    """(Simulation, rod) of a straight rod along x centred at the origin in a fluid of viscosity
    MU with SlenderBodyDrag of `form` (named "sbt"); dt 1e-9 s (only accelerations are read)."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(-length / 2, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=length, n_elems=n_elems, radius=radius, density=1000.0,
                                 youngs_modulus=1e6)
    scene.add(sm.SlenderBodyDrag(rod, MU, form=form, name="sbt"))
    return scene.compile(dt=1e-9), rod


def drag_force(sim, velocities):
    """Total force [N] and torque about the origin [N m] (node forces and element couples) on
    the rod at its rest shape with these node velocities (the elastic forces vanish)."""
    sim.set_state("rod", velocities=velocities)
    acc, alpha = sim.accelerations("rod")
    d = sim._engine().ctx.discrete["rod"]
    force = acc[0] * d["node_mass"][0][:, None]
    st = sim.get_state("rod")
    couple = np.einsum("eji,ej->i", st["directors"][0], alpha[0] * d["elem_J"][0])  # e = 1
    return force.sum(axis=0), np.cross(st["positions"][0], force).sum(axis=0) + couple


@validation_case("drag across the axis [N]", "exact Stokes drag of a prolate spheroid, "
                 "Chwang & Wu 1975", fast=True)
def slender_rod_spheroid_drag(aspect=100.0):
    """A rigid straight rod (L = 1 mm, L / b = 100) translating across its axis at U = 0.1 mm/s
    in a fluid of viscosity 1.2 mPa s, with slender-body drag of form "spheroid" (c_n = 4 pi mu
    / (ln(L/b) + 1/2)), against the exact Stokes drag of the prolate spheroid with the same
    semi-axes (spheroid_drag: Oberbeck 1876; Chwang & Wu, J. Fluid Mech. 67:787, 1975).
    Measured exactly from the accelerations at one state (no stepping). Error relative;
    tolerance (b/a)^2 ln(L/b) = 1.8e-3: the slender limit's own error (measured 0.2 (b/a)^2
    ln(L/b)). Also required: the drag along the axis within the same tolerance."""
    L, U = 1e-3, 1e-4
    b = L / aspect
    sim, rod = rod_in_fluid(L, b)
    parallel, normal, _ = spheroid_drag(L / 2, b)
    tol = (2 * b / L) ** 2 * np.log(aspect)
    along, _ = drag_force(sim, np.tile([U, 0.0, 0.0], (rod.n_nodes, 1)))
    across, _ = drag_force(sim, np.tile([0.0, U, 0.0], (rod.n_nodes, 1)))
    error_along = rel_error(-along[0], parallel * U)
    error = rel_error(-across[1], normal * U)
    side = max(abs(along[1]), abs(along[2]), abs(across[0]), abs(across[2])) / (normal * U)
    return result("slender_rod_spheroid_drag", -across[1], normal * U, error, tol,
                  f"L/b = {aspect:g}: across {-across[1]:.6e} N vs {normal * U:.6e} N, along "
                  f"{-along[0]:.6e} N vs {parallel * U:.6e} N (error {error_along:.1e}); "
                  f"sideways {side:.1e}",
                  passed=error <= tol and error_along <= tol and side <= 1e-12)


RHO_F = 1000.0
QD_CN, QD_CT, ADDED = 2.5, 0.01, 1.0
"""Fluid density [kg/m^3], Renda's drag coefficients across and along [-], added-mass
coefficient B [-] of the sinking-rod case."""


def sinking_rod(direction, rho=2000.0, radius=0.01, n_elems=10, added=True):
    """Scene of a rod (L = 0.5 m) along `direction` in water with gravity, buoyancy, Renda's
    quadratic drag (QD_CN, QD_CT) and, if `added`, added mass B = ADDED."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=direction, normal=(0, 1, 0),
                                 length=0.5, n_elems=n_elems, radius=radius, density=rho,
                                 youngs_modulus=1e6)
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.Buoyancy(RHO_F))
    scene.add(sm.QuadraticDrag(rod, QD_CN, QD_CT, fluid_density=RHO_F))
    if added:
        scene.add(sm.AddedMass(rod, ADDED, fluid_density=RHO_F))
    return scene


def tanh_law(weight, k, inertia):
    """(v_T = sqrt(W' / k) [m/s], tau = v_T (m + m_a) / W' [s]) of (m + m_a) dv/dt = W' - k v^2."""
    v_t = np.sqrt(weight / k)
    return v_t, v_t * inertia / weight


def sinking_rod_speeds(direction, rho=2000.0, r=0.01):
    """(speeds of the nodes at t = tau and at 12 tau [m/s] (downwards), v_T, tau) of a rod
    sinking across ("across": k = rho_f C_n r, m_a = B rho_f A) or along its axis ("along":
    k = rho_f pi/2 C_t r, no axial added mass) from rest (Renda et al. 2018 eq. 11)."""
    A = np.pi * r * r
    if direction == "across":
        scene = sinking_rod((1, 0, 0), rho=rho, radius=r)
        v_t, tau = tanh_law((rho - RHO_F) * A * G, RHO_F * QD_CN * r, (rho + ADDED * RHO_F) * A)
        n = 1000
    else:
        scene = sinking_rod((0, 0, 1), rho=rho, radius=r)
        v_t, tau = tanh_law((rho - RHO_F) * A * G, RHO_F * 0.5 * np.pi * QD_CT * r, rho * A)
        n = 4000                           # dt below the elastic stability limit
    dt = tau / n
    sim = scene.compile(dt=dt, strict=True)
    sim.run(n * dt)
    early = -sim.get_state()["velocities"][0, :, 2]
    sim.run(11 * n * dt)
    late = -sim.get_state()["velocities"][0, :, 2]
    return early, late, v_t, tau


@validation_case("sinking speed at t = τ [m/s]", "Renda et al. 2018 eqs. 10–13: "
                 "v = v_T tanh(t / τ)", fast=True)
def sinking_rod_with_added_mass():
    """A rod (rho = 2000 kg/m^3, r = 1 cm) sinking across its axis in water from rest under
    weight minus buoyancy W' = (rho - rho_f) A g, quadratic drag k v^2 (k = rho_f C_n r, C_n =
    2.5) and added mass m_a = B rho_f A (B = 1) per length (Renda et al., IJRR 2018, eqs. 10-13):
    (m + m_a) dv/dt = W' - k v^2, so v(t) = v_T tanh(t / tau), v_T = sqrt(W' / k), tau = v_T
    (m + m_a) / W'. Measured: the slowest node's speed at t = tau (dt = tau / 1000). Error
    relative; tolerance 1e-3: the explicit step's error, first order in dt for velocity-
    dependent forces, ~dt / tau (measured 2.4e-4); without the added mass tau would shrink
    1.5-fold, far outside. Also required: v_T itself at 12 tau to 1e-9 (the discrete scheme's
    fixed point)."""
    early, late, v_t, _ = sinking_rod_speeds("across")
    expected = v_t * np.tanh(1.0)
    worst = float(early[np.argmax(np.abs(early - expected))])
    terminal = float(np.abs(late / v_t - 1).max())
    error = rel_error(worst, expected)
    return result("sinking_rod_with_added_mass", worst, expected, error, 1e-3,
                  f"v(tau) = {worst:.6f} m/s vs v_T tanh(1) = {expected:.6f} m/s; at 12 tau "
                  f"within {terminal:.1e} of v_T = {v_t:.6f} m/s",
                  passed=error <= 1e-3 and terminal <= 1e-9)


CASES = {f.__name__: f for f in (settling_rod_resistive_force_velocity,
                                 slender_rod_spheroid_drag, sinking_rod_with_added_mass)}
"""Case name -> function returning its record."""
