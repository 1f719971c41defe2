"""Validation cases of joints, joint stops and rigid bodies (group `joints` of `softmech
validate`): soft-constraint joints (Zhang et al. 2019 eqs. 5-6) against pendulum and beam
theory, a hinge's stop against its statics, and a rigid sphere's rolling against classical
mechanics. tests/validation/test_joints.py, test_joint_stops.py and test_rigid_bodies.py call the
same functions.
"""
import math
import warnings

import numpy as np

import softmech as sm
from softmech.validation.common import (damping_for, rel_error, result, section, settle,
                                        validation_case)
from softmech.validation.reference import timoshenko_tip_deflection

G = 9.81
ROD = dict(radius=0.005, density=1000.0, youngs_modulus=1e7)


def compile_below_limits(scene, dt):
    """Compile with dt [s], turning the stability warning into an error (dt must be below every
    stability limit)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return scene.compile(dt=dt)


def pivot(scene):
    """A fixed sphere whose lowest point (0, 0, 0) is the pivot."""
    return scene.add_sphere(name="pivot", position=(0, 0, 0.05), radius=0.05, density=1000.0,
                            fixed=True)


def crossing_period(t, signal):
    """(mean time between upward zero crossings of signal(t) [s], number of crossings)."""
    c = np.flatnonzero((signal[1:] > 0) & (signal[:-1] <= 0))
    tc = t[c] - signal[c] * (t[c + 1] - t[c]) / (signal[c + 1] - signal[c])
    return (float(np.mean(np.diff(tc))) if len(c) > 1 else math.nan), len(c)


@validation_case("pendulum period T [s]", "compound pendulum, Marion & Thornton §4.4")
def joint_compound_pendulum():
    """A uniform rod of length L = 0.5 m hanging from a fixed rigid sphere by a spherical joint
    (k = 1e5 N/m), released at theta0 = 2 deg: T = 2 pi sqrt(2 L / (3 g)) (1 + theta0^2 / 16)
    (compound pendulum, I = m L^2 / 3, d = L / 2, with the finite-amplitude factor; Marion &
    Thornton, Classical Dynamics, sec. 4.4). Error relative; tolerance 0.5 % (issue 6's): the
    lumped node masses of n = 20 elements raise I by 1 / (2 n^2), +0.06 % on T."""
    L, theta0 = 0.5, math.radians(2.0)
    scene = sm.Scene()
    pivot(scene)
    scene.add_cosserat_rod(name="rod", start=(0, 0, 0),
                           direction=(math.sin(theta0), 0, -math.cos(theta0)),
                           normal=(0, 1, 0), length=L, n_elems=20, **ROD)
    scene.add(sm.Gravity())
    scene.add(sm.SphericalJoint(("rod", "first"), ("pivot", (0, 0, -0.05)), stiffness=1e5))
    sim = compile_below_limits(scene, 2e-5)
    out = sim.run(3.0, record=sm.Every(0.001, ("positions",)))
    period, n = crossing_period(out["time"], out["rod.positions"][0, :, -1, 0])
    expected = 2 * math.pi * math.sqrt(2 * L / (3 * G)) * (1 + theta0**2 / 16)
    return result("joint_compound_pendulum", period, expected, rel_error(period, expected), 5e-3,
                  f"period {period:.6f} s over {n} crossings vs {expected:.6f} s",
                  passed=n >= 2 and rel_error(period, expected) <= 5e-3)


@validation_case("tip deflection y(L) [m]", "ME498 handout §2.2.3: Timoshenko beam theory")
def joint_fixed_two_rods():
    """Two rods of 1.5 m (50 elements each) joined by a fixed joint (k = 1e7 N/m, k_r = 1e6
    N m/rad) form the ME498 Table 1 cantilever (L = 3 m, r = 0.25 m, E = 1 MPa, G = 10 kPa, tip
    force 15 N): static tip deflection against Timoshenko's y = -F L / (alpha_c A G) - F L^3 /
    (3 E I) (ME498 handout 2.2.3). Error relative; tolerance 1 %: the stiff joint leaves out
    the curvature over the one Voronoi length that joins the rods in a continuous rod (-0.5 %
    expected); settled to 1e-8 relative change."""
    L, r, rho, E, Gs, F = 3.0, 0.25, 5000.0, 1e6, 1e4, 15.0
    area, inertia = section(r)
    y_ref = timoshenko_tip_deflection(F, L, area, inertia, E, Gs, 4.0 / 3.0)
    omega1 = math.sqrt(F / abs(y_ref) / (33.0 / 140.0 * rho * area * L))
    gamma = damping_for(omega1, rho * area)
    scene = sm.Scene()
    common = dict(direction=(1, 0, 0), normal=(0, 1, 0), length=L / 2, n_elems=50, radius=r,
                  density=rho, youngs_modulus=E, shear_modulus=Gs)
    first = scene.add_cosserat_rod(name="first", start=(0, 0, 0), **common)
    second = scene.add_cosserat_rod(name="second", start=(L / 2, 0, 0), **common)
    scene.add(sm.Clamp(first, "first"))
    scene.add(sm.FixedJoint((first, "last"), (second, "first"), stiffness=1e7,
                            rotational_stiffness=1e6))
    scene.add(sm.EndLoad(second, force=(0, -F, 0), ramp_time=2 * math.pi / omega1))
    for rod in (first, second):
        scene.add(sm.LinearDamping(rod, gamma, rotational_coefficient=gamma * inertia / area,
                                   name=f"{rod.name}_damping"))
    sim = compile_below_limits(scene, 2e-4)

    def tip(s):
        return float(s.get_state("second")["positions"][0, -1, 1])

    value, converged, change = settle(sim, tip, min_time=15.0 / omega1, max_time=80.0 / omega1,
                                      chunk=2.0 / omega1, rtol=1e-8)
    error = rel_error(value, y_ref)
    return result("joint_fixed_two_rods", value, y_ref, error, 1e-2,
                  f"tip {value:.6g} m vs Timoshenko {y_ref:.6g} m ({value / y_ref - 1:+.2%}); "
                  f"settled: {converged} (last change {change:.1e})",
                  passed=converged and error <= 1e-2)


BAR = dict(lengths=(0.4, 0.02, 0.02), mass=1.0)
I_ZZ = BAR["mass"] * (0.4**2 + 0.02**2) / 12.0   # box about its d3 axis [kg m^2]
LIMITS = (-0.5, 0.3)
K_STOP = 20.0


def hinged_bar(*, torque=0.0, spin=0.0, damping=0.0, limit_damping=0.0):
    """A bar (box, centre at the origin, long axis x) on a hinge about z to a fixed sphere at the
    same centre, with a stop at LIMITS [rad] (k_s = K_STOP N m/rad); constant torque about z
    [N m], initial spin rate [rad/s]. Returns the compiled Simulation (dt = 1e-4 s)."""
    scene = sm.Scene()
    scene.add_sphere(name="pivot", position=(0, 0, 0), radius=0.05, density=1000.0, fixed=True)
    scene.add_box(name="bar", position=(0, 0, 0), angular_velocity=(0, 0, spin), **BAR)
    scene.add(sm.HingeJoint("pivot", "bar", axis=(0, 0, 1), stiffness=1e5,
                            rotational_stiffness=100.0, limits=LIMITS, limit_stiffness=K_STOP,
                            limit_damping=limit_damping, name="hinge"))
    if torque:
        scene.add(sm.EndLoad("bar", couple=(0, 0, torque), name="rigid_load"))
    if damping:
        scene.add(sm.LinearDamping("bar", coefficient=damping, name="rigid_damping"))
    return compile_below_limits(scene, 1e-4)


def bar_angle(sim):
    """The bar's turn about z [rad] (its d1 started along x)."""
    d1 = sim.get_state("bar")["directors"][0, 0, 0]
    return math.atan2(d1[1], d1[0])


@validation_case("hinge angle at rest [rad]", "statics of the penalty stop: θ = limit + T / k_s",
                 fast=True)
def joint_stop_statics(torque=2.0):
    """A constant torque T about a hinge's axis presses a bar past its stop (limit 0.3 rad,
    k_s = 20 N m/rad; -0.5 rad for T < 0) and holds it at theta = limit + T / k_s (minimum of
    k_s (theta - limit)^2 / 2 - T theta; nothing else resists the turn about the axis). Damped
    to rest over 4 s. Error absolute [rad]; tolerance 1e-6 rad: the settled residual motion."""
    limit = LIMITS[1] if torque > 0 else LIMITS[0]
    sim = hinged_bar(torque=torque, damping=0.5, limit_damping=1.0)
    sim.run(4.0)
    angle, expected = bar_angle(sim), limit + torque / K_STOP
    return result("joint_stop_statics", angle, expected, abs(angle - expected), 1e-6,
                  f"T = {torque:g} N m: bar at {angle:.9f} rad vs limit + T/k_s = {expected:.9f} rad")


REST_ANGLE, K_REST = 1.0, 1.0     # [rad], [N m/rad]


@validation_case("oscillation about the rest angle: period [s]",
                 "torsional oscillator: θ(t) = θ₀ (1 − cos ωt), ω = √(k_r / I)", fast=True)
def joint_fixed_rest_angle():
    """A bar (box, long axis x, I_zz = m (a^2 + b^2) / 12 about its centre) on a fixed joint to
    a fixed sphere at the same centre, rest_angle theta0 = 1 rad about z, k_r = 1 N m/rad,
    released at rest at angle 0: the spring's energy k_r |phi|^2 / 2 with phi the turn from the
    rest orientation makes it a torsional oscillator about theta0 (a rotation about a principal
    axis, so exact at any amplitude): theta(t) = theta0 (1 - cos wt), w = sqrt(k_r / I_zz),
    period 2 pi / w = 0.7265 s, turning points 0 and 2 theta0. Error relative, on the period
    over 6 periods; tolerance 1e-5 (position Verlet at w dt = 8.7e-4: a period error of
    (w dt)^2 / 24 = 3e-8; the zero crossings interpolated linearly between samples 5 steps
    apart); the turning points within 1e-3 rad also required."""
    scene = sm.Scene()
    scene.add_sphere(name="pivot", position=(0, 0, 0), radius=0.05, density=1000.0, fixed=True)
    scene.add_box(name="bar", position=(0, 0, 0), **BAR)
    scene.add(sm.FixedJoint("pivot", "bar", stiffness=1e5, rotational_stiffness=K_REST,
                            rest_axis=(0, 0, 1), rest_angle=REST_ANGLE, name="ligament"))
    sim = compile_below_limits(scene, 1e-4)
    period = 2.0 * math.pi * math.sqrt(I_ZZ / K_REST)
    chunk = 5e-4                 # five steps: run() takes whole steps
    times, angles = [], []
    for k in range(1, int(6 * period / chunk) + 2):
        sim.run(chunk)
        times.append(k * chunk)
        angles.append(bar_angle(sim))
    times, angles = np.array(times), np.unwrap(angles)
    measured, n = crossing_period(times, angles - REST_ANGLE)
    turning = max(abs(angles.max() - 2 * REST_ANGLE), abs(angles.min()))
    error = rel_error(measured, period)
    return result("joint_fixed_rest_angle", measured, period, error, 1e-5,
                  f"period {measured:.6f} s over {n} crossings vs 2 pi sqrt(I / k_r) = "
                  f"{period:.6f} s; turning points {angles.min():.2e} and {angles.max():.6f} rad "
                  f"(expected 0 and {2 * REST_ANGLE:g})",
                  passed=n >= 5 and error <= 1e-5 and turning <= 1e-3)


def rolling_body(kind):
    """(speed at 0.4 s [m/s], angular velocity (3,) [rad/s], radius [m]) of a sphere (R = 0.1 m)
    or a solid cylinder on its side (r = 0.05 m) launched sliding at 1 m/s, no spin, on the
    ground (k = 1e6 N/m, mu_s = 0.3, mu_k = 0.4 isotropic friction, v_slip = 1e-4 m/s)."""
    scene = sm.Scene()
    if kind == "sphere":
        body = scene.add_sphere(position=(0, 0, 0.1), radius=0.1, density=1000.0,
                                velocity=(1.0, 0, 0))
        radius = 0.1
    else:
        body = scene.add_cylinder(position=(0, 0, 0.05), direction=(0, 1, 0), normal=(1, 0, 0),
                                  radius=0.05, length=0.2, density=1000.0, velocity=(1.0, 0, 0))
        radius = 0.05
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact(body, stiffness=1e6, damping=200.0,
                               friction=sm.IsotropicFriction(0.3, 0.4, slip_velocity=1e-4),
                               name="rigid_ground_contact"))
    sim = scene.compile(dt=1e-4)
    out = sim.run(0.4, record=sm.Every(0.01, ("com_velocity", "angular_velocities")))
    return (float(out["com_velocity"][0, -1, 0]), out["angular_velocities"][0, -1, 0], radius)


@validation_case("rolling speed [m/s]", "rolling without slipping: v = v₀ / (1 + J / (m R²)) = 5/7 v₀",
                 fast=True)
def rigid_sphere_rolls_five_sevenths():
    """A rigid sphere launched sliding (v0 = 1 m/s, no spin) on the ground with kinetic friction
    decelerates and spins up until v = w R, then rolls at v = v0 / (1 + J / (m R^2)) = 5/7 v0
    (J = 2/5 m R^2; angular momentum about the contact line is conserved; any classical
    mechanics text, e.g. Goldstein). Error relative; tolerance 0.2 %: the contact penetration
    m g / k = 4e-5 m shortens the lever arm by 0.04 %. Also required: it rolls (w R = v to 0.2 %)."""
    v, w, radius = rolling_body("sphere")
    expected = 5.0 / 7.0
    rolls = rel_error(w[1] * radius, v) <= 2e-3
    return result("rigid_sphere_rolls_five_sevenths", v, expected, rel_error(v, expected), 2e-3,
                  f"v = {v:.6f} m/s vs 5/7 = {expected:.6f} m/s; w R = {w[1] * radius:.6f} m/s",
                  passed=rolls and rel_error(v, expected) <= 2e-3)


CASES = {f.__name__: f for f in (joint_compound_pendulum, joint_fixed_two_rods,
                                 joint_stop_statics, joint_fixed_rest_angle,
                                 rigid_sphere_rolls_five_sevenths)}
"""Case name -> function returning its record."""
