"""Validation of driven ends (softmech.terms.driven): Greenhill's critical twist of a clamped-
clamped rod under tension, uniform torsion from a turning clamp, a driven rigid body following
its table exactly, and sliding along a free direction under gravity."""
import numpy as np
import pytest
from scipy.optimize import brentq

import softmech as sm


# --- Greenhill's critical twisting moment --------------------------------------------------
# A straight rod (bending stiffness B = EI, length L) under tension T and twisting moment M,
# clamped at both ends. Linearised Kirchhoff equations for the lateral displacement w = x + iy
# (Greenhill 1883, "On the strength of shafting when exposed both to torsion and to end thrust",
# Proc. Inst. Mech. Eng.; Love, "A Treatise on the Mathematical Theory of Elasticity", 4th ed.,
# sect. 272; van der Heijden & Thompson, Nonlinear Dyn. 21:71 (2000)):
#     B w'''' - i M w''' - T w'' = 0,  w = a + b z + c e^{i k1 z} + d e^{i k2 z},
#     k1,2 = m +- s,  m = M / (2B),  s = sqrt(m^2 - tau),  tau = T / B.
# w = w' = 0 at z = 0 and z = L has a non-trivial solution (buckling) when (derived from the
# 4x4 determinant, checked against it below)
#     2 s [cos(sL) - cos(mL)] = L tau sin(sL)
# (s imaginary for m^2 < tau: cos, sin -> cosh, sinh). The critical moment M_c is its smallest
# positive root; T -> 0 gives Greenhill's clamped-clamped M_c = 8.99 B / L (2 x 4.4934, the
# first root of tan x = x), T -> infinity the long-rod limit M_c -> 2 sqrt(B T). The twist angle
# at buckling is Phi_c = M_c L / C with C = G J the torsional stiffness.

def greenhill_residual(M, T, B, L):
    m, tau = M / (2 * B), T / B
    s2 = m * m - tau
    if s2 >= 0:
        s = np.sqrt(s2)
        return 2 * s * (np.cos(s * L) - np.cos(m * L)) - L * tau * np.sin(s * L)
    s = np.sqrt(-s2)   # the hyperbolic form divided by e^{sL} > 0 (same sign, no overflow)
    e = np.exp(-s * L)
    return 2 * s * (0.5 * (1 + e * e) - np.cos(m * L) * e) - L * tau * 0.5 * (1 - e * e)


def greenhill_moment(T, B, L):
    """Smallest positive root M_c [N m] of greenhill_residual (scan, then bisection)."""
    Ms = np.linspace(1e-3 * B / L, 60.0 * B / L + 4 * np.sqrt(B * T), 20001)
    r = np.array([greenhill_residual(M, T, B, L) for M in Ms])
    i = int(np.flatnonzero(np.sign(r[:-1]) != np.sign(r[1:]))[0])
    return brentq(greenhill_residual, Ms[i], Ms[i + 1], args=(T, B, L), xtol=1e-14)


def clamped_determinant(M, T, B, L):
    m, tau = M / (2 * B), T / B
    s = np.sqrt(complex(m * m - tau))
    k1, k2 = m + s, m - s
    e1, e2 = np.exp(1j * k1 * L), np.exp(1j * k2 * L)
    return np.linalg.det(np.array([[1, 0, 1, 1], [0, 1, 1j * k1, 1j * k2], [1, L, e1, e2],
                                   [0, 1, 1j * k1 * e1, 1j * k2 * e2]]))


def test_greenhill_formula_matches_its_determinant_and_limits():
    B, L = 1.0, 1.0
    for T in (0.5, 10.0, 100.0):
        Mc = greenhill_moment(T, B, L)
        scale = abs(clamped_determinant(1.05 * Mc, T, B, L))
        assert abs(clamped_determinant(Mc, T, B, L)) < 1e-9 * scale
        assert Mc > 2 * np.sqrt(B * T)          # tension stabilises beyond the long-rod limit
    x = brentq(lambda x: np.tan(x) - x, 4.0, 4.6)
    assert greenhill_moment(1e-3, B, L) == pytest.approx(2 * x, rel=1e-3)   # 8.987 B / L
    assert greenhill_moment(1e4, B, 20.0) / (2 * np.sqrt(1e4)) == pytest.approx(1.0, abs=0.03)


L, RADIUS, E, G, RHO, N = 1.0, 0.01, 1e6, 1e6 / 3, 1000.0, 50
I_BEND = np.pi * RADIUS ** 4 / 4
B_BEND, C_TWIST = E * I_BEND, G * 2 * I_BEND


def twisted_rod(twist, *, tension, ramp, slide=True, damping=0.0):
    """Rod along x clamped at s = 0; the far end turned about x by `twist` [rad] over `ramp` [s]
    and, with `slide`, free along x under an end force `tension` [N]."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=L, n_elems=N, radius=RADIUS,
                                 density=RHO, youngs_modulus=E, shear_modulus=G)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.DrivenEnd(rod, "last", times=[0.0, ramp], rotation=[[0, 0, 0], [twist, 0, 0]],
                           slide=(1, 0, 0) if slide else None, name="twist"))
    if tension:
        scene.add(sm.EndLoad(rod, force=(tension, 0, 0), end="last", name="weight"))
    if damping:
        scene.add(sm.LinearDamping(rod, damping, rotational_coefficient=damping * 2e-3))
    return scene.compile(dt=2e-4)


@pytest.mark.parametrize("fraction, buckles", [(0.97, False), (1.03, True)])
def test_twisted_rod_under_tension_buckles_at_greenhills_critical_twist(fraction, buckles):
    """Twist ramped over 4 s to fraction x Phi_c, then held 12 s (the lowest bending mode's
    period is ~2 s), from a straight rod with a 1e-5 m/s lateral velocity seed: within 3 % of
    Phi_c the straight rod stays straight below it (lateral deflection < 1e-4 L, ten times the
    seed's) and buckles above it (> 1e-2 L). At 1 % on each side the result is the same (seen
    when this test was written); 3 % is the issue's tolerance."""
    tension = 10.0 * B_BEND / L ** 2            # T L^2 / B = 10: M_c = 10.43 B / L
    phi_c = greenhill_moment(tension, B_BEND, L) * L / C_TWIST
    sim = twisted_rod(fraction * phi_c, tension=tension, ramp=4.0)
    s = np.linspace(0.0, 1.0, N + 1)
    v = np.zeros((1, N + 1, 3))
    v[0, :, 1] = 1e-5 * np.sin(np.pi * s) ** 2
    v[0, :, 2] = 0.7e-5 * np.sin(2 * np.pi * s) * np.sin(np.pi * s)
    sim.set_state("rod", velocities=v)
    lateral = 0.0
    for _ in range(16):
        sim.run(1.0)
        x = sim.get_state("rod")["positions"][0]
        lateral = max(lateral, float(np.abs(x[:, 1:]).max()))
    if buckles:
        assert lateral > 1e-2 * L
    else:
        assert lateral < 1e-4 * L


def test_turning_clamp_twists_the_rod_uniformly():
    """Below buckling and after the twist waves are damped, the twist angle grows linearly from
    the fixed clamp to the turning one (uniform torque M = C Phi / L): the angle of d1 about the
    axis at element centre s_i is Phi s_i / L, within 1e-6 rad (a half Voronoi domain at each
    clamp, as at interior elements, so the discrete profile is exactly linear; 1e-6 leaves room
    for the damped transient, which is 5e-9 rad at 6 s)."""
    phi = 0.5 * 8.99 * B_BEND / C_TWIST    # half the critical twist of a rod without tension
    sim = twisted_rod(phi, tension=0.0, ramp=1.0, slide=False, damping=0.05)
    sim.run(6.0)
    Q = sim.get_state("rod")["directors"][0]
    angle = np.unwrap(np.arctan2(-Q[:, 0, 1], Q[:, 0, 2]))   # d1 starts along +z, turns about +x
    s = (np.arange(N) + 0.5) / N * L
    np.testing.assert_allclose(angle, phi * s / L, atol=1e-6)


def spun_sphere(slide):
    scene = sm.Scene()
    ball = scene.add_sphere(name="ball", position=(0, 0, 1.0), radius=0.1, density=1000.0)
    scene.add(sm.Gravity((0, 0, -9.81)))
    times = np.linspace(0.0, 2.0, 201)
    scene.add(sm.DrivenEnd(ball, times=times, displacement=lambda t: (0.3 * t, 0.0, 0.0),
                           rotation=lambda t: (0.0, 0.0, 1.5 * t), slide=slide, name="spin"))
    return scene.compile(dt=1e-3)


def test_driven_rigid_body_follows_its_table():
    """Turned at 1.5 rad/s about z and moved at 0.3 m/s along x (gravity has no say): pose and
    velocities equal the table's to round-off."""
    sim = spun_sphere(slide=None)
    sim.run(1.0)
    st = sim.get_state("ball")
    np.testing.assert_allclose(st["positions"][0, 0], (0.3, 0.0, 1.0), atol=1e-12)
    np.testing.assert_allclose(st["velocities"][0, 0], (0.3, 0.0, 0.0), atol=1e-12)
    c, s = np.cos(1.5), np.sin(1.5)
    np.testing.assert_allclose(st["directors"][0, 0], [[c, s, 0], [-s, c, 0], [0, 0, 1]], atol=1e-12)
    np.testing.assert_allclose(st["angular_velocities"][0, 0], (0, 0, 1.5), atol=1e-12)


def test_sliding_direction_is_free_the_others_are_driven():
    """Free along z: the driven sphere falls as z = z0 - g t^2 / 2 (Verlet is exact for a
    constant force) while x follows the table."""
    sim = spun_sphere(slide=(0, 0, 1))
    sim.run(1.0)
    st = sim.get_state("ball")
    np.testing.assert_allclose(st["positions"][0, 0], (0.3, 0.0, 1.0 - 9.81 / 2), atol=1e-9)
    np.testing.assert_allclose(st["velocities"][0, 0], (0.3, 0.0, -9.81), atol=1e-9)


@pytest.mark.parametrize("kwargs, message", [
    (dict(times=[0.0, 0.0]), "strictly increasing"),
    (dict(times=[0.0, 1.0], rotation=[[0, 0, 0]]), "rotation has shape"),
    (dict(times=[0.0, 1.0], displacement=lambda t: 1 / 0), "ZeroDivisionError"),
    (dict(times=[0.0, np.nan]), "NaN"),
    (dict(times=[0.0, 1.0], slide=(0, 0, 0)), "non-zero"),
])
def test_bad_driven_end_input_names_the_field(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sm.DrivenEnd("rod", "last", **kwargs)


def test_driven_end_conflicts_and_missing_bodies():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=1.0, n_elems=4, radius=0.01, density=1000.0,
                                 youngs_modulus=1e6)
    scene.add(sm.Clamp(rod, "last"))
    with pytest.raises(ValueError, match="already constrained"):
        scene.add(sm.DrivenEnd(rod, "last", times=[0.0]))
    with pytest.raises(ValueError, match="no such rod or rigid body"):
        scene.add(sm.DrivenEnd("ghost", times=[0.0]))
    scene.add(sm.DrivenEnd(rod, times=[0.0], name="no_end"))
    with pytest.raises(ValueError, match="must be 'first' or 'last'"):
        scene.compile(dt=1e-4)
