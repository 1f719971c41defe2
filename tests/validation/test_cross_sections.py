"""Rod cross-sections (softmech.sections) against closed-form section constants and beam theory,
for Cosserat rods (implicit and explicit) and discrete elastic rods.

The strip: L = 0.2 m, 1 mm thick along d1 (the rod's normal, z) and 20 mm wide along d2 (y),
E = 1e8 Pa, G = E / 3, rho = 1000 kg/m^3: I1 = t w^3 / 12 (bending about d1, tip moving along y)
is 400x I2 = w t^3 / 12 (tip moving along z), and Saint-Venant's J = beta(20) w t^3 is far
below the polar moment I1 + I2.
"""
import math

import numpy as np
import pytest

import softmech as sm
from softmech.bodies.cosserat_rod import section_properties
from softmech.scenefile import load_scenario, save_scenario
from softmech.scenefile.schema import RunSettings, Scenario
from softmech.validation.der import FULL_STEPS

L, T, W, E, RHO = 0.2, 1e-3, 20e-3, 1e8, 1000.0
G = E / 3.0
A, I1, I2 = T * W, T * W**3 / 12.0, W * T**3 / 12.0
J = float(sm.sections.saint_venant_beta(W / T)) * W * T**3


# -- section constants ------------------------------------------------------------------------

def test_saint_venant_beta_matches_the_published_table():
    """beta(a/b) of J = beta a b^3 for a rectangle, Timoshenko & Goodier, Theory of Elasticity
    (3rd ed. 1970) sec. 109, table of k1 (three digits: tolerance half a unit of the last), and
    the thin-strip limit 1/3."""
    table = {1.0: 0.141, 1.5: 0.196, 2.0: 0.229, 2.5: 0.249, 3.0: 0.263, 4.0: 0.281,
             5.0: 0.291, 10.0: 0.312}
    beta = sm.sections.saint_venant_beta(list(table))
    np.testing.assert_allclose(beta, list(table.values()), rtol=0, atol=5e-4)
    assert sm.sections.saint_venant_beta(1e6) == pytest.approx(1 / 3, rel=1e-6)
    # the classical thin-strip expansion 1/3 (1 - 0.630 b/a) (same source, eq. (b) of sec. 109)
    for aspect in (5.0, 20.0):
        assert float(sm.sections.saint_venant_beta(aspect)) == pytest.approx(
            (1 - 0.630 / aspect) / 3, rel=2e-3)


def test_every_shape_reduces_to_the_circle_it_contains():
    """A circle section equals the built-in circular one bit for bit; an ellipse with equal
    semi-axes and a tube with a vanishing bore give the circle's constants (A, I, J = 2 I)."""
    from softmech.bodies.sections import section_constants
    r = 0.01
    area, inertia = section_properties(np.array([r]))
    c = section_constants("s", sm.sections.circle(r), 1)
    assert c["area"][0] == area[0] and np.array_equal(c["second_moments"][0], inertia[0, :2])
    assert c["torsion_constant"][0] == inertia[0, 2] and c["radius"][0] == r
    for spec in (sm.sections.ellipse(r, r), sm.sections.tube(r, 2e-9)):  # bore: 2 nm (>= 1 nm,
        # the smallest length softmech._checks.LENGTH allows)
        s = section_constants("s", spec, 1)
        np.testing.assert_allclose(s["area"], area, rtol=1e-12)
        np.testing.assert_allclose(s["second_moments"][0], inertia[0, :2], rtol=1e-12)
        np.testing.assert_allclose(s["torsion_constant"], inertia[:, 2], rtol=1e-12)


def test_ellipse_rectangle_and_tube_constants():
    """Closed forms (Timoshenko & Goodier secs. 105, 109; the annulus exactly): an ellipse with
    semi-axes a = 2 b (I1, about d1, from the semi-axis b along d2; J = pi a^3 b^3 /
    (a^2 + b^2)); a rectangle given per element; a tube with J = 2 I."""
    from softmech.bodies.sections import section_constants
    a, b = 0.02, 0.01
    e = section_constants("s", sm.sections.ellipse(a, b), 1)
    assert e["area"][0] == pytest.approx(math.pi * a * b, rel=1e-14)
    np.testing.assert_allclose(e["second_moments"][0], [math.pi * a * b**3 / 4,
                                                        math.pi * a**3 * b / 4], rtol=1e-14)
    assert e["torsion_constant"][0] == pytest.approx(math.pi * a**3 * b**3 / (a**2 + b**2),
                                                     rel=1e-14)
    assert e["radius"][0] == a
    rect = section_constants("s", sm.sections.rectangle([T, 2 * T], W), 2)
    np.testing.assert_allclose(rect["area"], [A, 2 * A], rtol=1e-14)
    np.testing.assert_allclose(rect["second_moments"][0], [I1, I2], rtol=1e-14)
    assert rect["torsion_constant"][0] == pytest.approx(J, rel=1e-14)
    assert rect["radius"][0] == pytest.approx(0.5 * math.hypot(T, W), rel=1e-14)
    tube = section_constants("s", sm.sections.tube(0.02, 0.015), 1)
    i = math.pi * (0.02**4 - 0.015**4) / 4
    np.testing.assert_allclose(tube["second_moments"][0], [i, i], rtol=1e-14)
    assert tube["torsion_constant"][0] == pytest.approx(2 * i, rel=1e-14)


@pytest.mark.parametrize("section, message", [
    ({"shape": "triangle", "side": 1.0}, r"section.shape = 'triangle' is not allowed"),
    ({"shape": "rectangle", "side1": 1e-3}, r"needs side1, side2 \(missing: side2\)"),
    ({"shape": "rectangle", "side1": 1e-3, "side2": 0.0}, r"section.side2 = 0.0 .* > 0"),
    ({"shape": "rectangle", "side1": 1e-3, "side2": 2e-3, "radius": 1.0},
     r"section.radius is not allowed for shape 'rectangle'"),
    ({"shape": "tube", "outer_radius": 1e-3, "inner_radius": 2e-3},
     r"section.inner_radius = 0.002 .* < outer_radius"),
    ({"shape": "general", "area": 1.0, "second_moment1": 1.0, "second_moment2": 1.0,
      "torsion_constant": 3.0, "radius": 1.0}, r"section.torsion_constant = 3.0 .* <= "),
    ({"shape": "rectangle", "side1": 1e-200, "side2": 1e-200},      # beyond a length's bounds
     r"section.side1 = 1e-200 m is not allowed: must be within \[1e-09, 10000\] m"),
    ([1, 2], r"section = \[1, 2\] is not allowed: must be a section"),
    ({"shape": "rectangle", "side1": [1e-3, 1e-3], "side2": 2e-3},
     r"section.side1 has shape \(2,\), expected a scalar or shape \(4,\)"),
])
def test_bad_sections_are_refused_naming_the_field(section, message):
    scene = sm.Scene()
    for add in (scene.add_cosserat_rod, scene.add_der_rod):
        with pytest.raises(ValueError, match=message):
            add(name="s" + add.__name__[-3:], start=(0, 0, 0), direction=(1, 0, 0), length=1.0,
                normal=(0, 0, 1),
                n_elems=4, section=section, density=1e3, youngs_modulus=1e6)


def test_a_rod_needs_a_radius_or_a_section():
    scene = sm.Scene()
    with pytest.raises(ValueError, match="give radius .* or section"):
        scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                               length=1.0, n_elems=4, density=1e3, youngs_modulus=1e6)
    with pytest.raises(ValueError, match="give radius .* or section"):
        scene.add_der_rod(start=(0, 0, 0), direction=(1, 0, 0), length=1.0, n_elems=4,
                          density=1e3, youngs_modulus=1e6)


# -- Cosserat rods ----------------------------------------------------------------------------

def cosserat_strip(n, *, force=(0.0, 0.0, 0.0), couple=(0.0, 0.0, 0.0), directors=None):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="strip", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=None if directors is not None else (0, 0, 1),
                                 directors=directors, length=L, n_elems=n,
                                 section=sm.sections.rectangle(T, W), density=RHO,
                                 youngs_modulus=E, shear_modulus=G)
    scene.add(sm.Clamp(rod, "first"))
    if np.any(force) or np.any(couple):
        scene.add(sm.EndLoad(rod, force=force, couple=couple))
    return scene, rod


def settled_tip(n, **load):
    """Tip state of the clamped strip settled by implicit Euler at dt = 1 s (100x the soft
    mode's period: the step is a damped static solve) with light damping."""
    scene, rod = cosserat_strip(n, **load)
    scene.add(sm.LinearDamping(rod, coefficient=1e-2))
    sim = scene.compile(dt=1.0, scheme="implicit_euler")
    sim.step(60)
    return sim.get_state()


@pytest.mark.parametrize("n", [25, 100])
def test_cosserat_strip_bends_stiff_and_soft_as_timoshenko(n):
    """Tip deflection under a tip force P (small: delta / L = 8e-4) in each direction against
    Timoshenko's cantilever delta = P L^3 / (3 E I) + P L / (alpha G A) (the shear term with
    softmech's shear stiffness alpha G A, alpha = 4/3; Gere & Timoshenko, Mechanics of
    Materials, sec. 10.6), with I = I2 for the force along d1 (z) and I1 = 400 I2 along d2 (y).
    The discrete rod converges at second order: 0.080 % at n = 25, 0.0049 % at n = 100
    measured, so the tolerance is 1.5 / n^2 (0.24 %, 0.015 %)."""
    P = 1e-5
    tol = 1.5 / n**2
    soft = settled_tip(n, force=(0.0, 0.0, -P))["positions"][0, -1]
    stiff = settled_tip(n, force=(0.0, -400 * P, 0.0))["positions"][0, -1]
    shear = L / (4.0 / 3.0 * G * A)
    assert soft[2] == pytest.approx(-P * (L**3 / (3 * E * I2) + shear), rel=tol)
    assert stiff[1] == pytest.approx(-400 * P * (L**3 / (3 * E * I1) + shear), rel=tol)
    assert abs(soft[1]) < 1e-6 * abs(soft[2]) and abs(stiff[2]) < 1e-6 * abs(stiff[1])


def test_cosserat_strip_twists_with_saint_venants_constant():
    """An end couple T about the axis twists the last element, whose centre lies L - l/2 from
    the clamp, by T (L - l/2) / (G J) (uniform torsion; the clamp holds element 0's frame at
    node 0 through half an element, softmech.terms.boundary), with J Saint-Venant's
    beta w t^3, not the polar moment (which would give a 60x smaller twist). Tolerance 1e-5:
    the twist is 1e-3 rad, so the geometric nonlinearity is O(1e-6)."""
    n, couple = 40, 1e-6
    Q = settled_tip(n, couple=(couple, 0.0, 0.0))["directors"][0, -1]
    angle = math.atan2(-Q[0, 1], Q[0, 2])                 # d1 = (0, -sin a, cos a) turned by a
    assert angle == pytest.approx(couple * (L - 0.5 * L / n) / (G * J), rel=1e-5)
    assert (I1 + I2) / J > 60


def test_cosserat_strip_torsional_frequency_uses_J_and_the_polar_mass_moment():
    """Released from the first torsional mode shape phi(s) = phi0 sin(pi s / (2 L)), the
    clamped-free strip twists at f1 = sqrt(G J / (rho (I1 + I2))) / (4 L) (wave equation of
    Saint-Venant torsion, rho I_p phi_tt = G J phi_ss; Gere & Timoshenko sec. 3.9): the
    stiffness sees J, the rotary inertia the polar moment I1 + I2 (a circle has J = I1 + I2,
    a strip J = (I1 + I2) / 107). Explicit position Verlet, n = 40; the period from the tip
    angle's zero crossings over two periods. Tolerance 0.5 % (the discrete mode's dispersion
    (pi / 2)^2 / (24 n^2) ~ 6e-5 and the crossing interpolation)."""
    from scipy.spatial.transform import Rotation
    n, phi0 = 40, 1e-3
    s = (np.arange(n) + 0.5) * L / n
    base = np.array([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])   # d1 = z, d3 = x
    turn = Rotation.from_rotvec(np.outer(phi0 * np.sin(np.pi * s / (2 * L)), [1, 0, 0]))
    directors = np.einsum("ij,nkj->nik", base, turn.as_matrix())
    scene, rod = cosserat_strip(n, directors=directors)
    f1 = math.sqrt(G * J / (RHO * (I1 + I2))) / (4 * L)
    sim = scene.compile(dt=1.5e-6)
    times, angles = [], []
    for _ in range(400):
        sim.run(2.0 / f1 / 400)
        Q = sim.get_state()["directors"][0, -1]
        times.append(sim.time)
        angles.append(math.atan2(-Q[0, 1], Q[0, 2]))
    angles, times = np.array(angles), np.array(times)
    assert angles[0] > 0.9 * phi0
    k = np.flatnonzero(np.sign(angles[:-1]) != np.sign(angles[1:]))
    crossing = times[k] - angles[k] * (times[k + 1] - times[k]) / (angles[k + 1] - angles[k])
    assert len(crossing) == 4
    period = 0.5 * (crossing[2] - crossing[0] + crossing[3] - crossing[1])
    assert 1.0 / period == pytest.approx(f1, rel=5e-3)


def test_section_constants_are_per_world_parameters():
    """Two worlds, the second with half the torsion constant, twist by T (L - l/2) / (G J)
    each (same settled run as above): a sweep over the section needs no recompilation."""
    n, couple = 20, 1e-6
    scene, rod = cosserat_strip(n, couple=(couple, 0.0, 0.0))
    scene.add(sm.LinearDamping(rod, coefficient=1e-2))
    sim = scene.compile(worlds=2, dt=1.0, scheme="implicit_euler")
    assert sim.params["strip.torsion_constant"].shape == (1, n)
    sim.params["strip.torsion_constant"] = np.array([[J], [0.5 * J]]) * np.ones(n)
    sim.step(60)
    Q = sim.get_state()["directors"][:, -1]
    angles = np.arctan2(-Q[:, 0, 1], Q[:, 0, 2])
    expected = couple * (L - 0.5 * L / n) / (G * J)
    np.testing.assert_allclose(angles, [expected, 2 * expected], rtol=1e-5)


def test_a_strip_rod_round_trips_through_a_scenario_file(tmp_path):
    """The section is written as a table {shape, dimensions} and read back to the same
    model: same parameters and the same state after 50 steps, bit for bit."""
    scene, rod = cosserat_strip(6, force=(0.0, 0.0, -1e-5))
    original = Scenario(scene=scene, run=RunSettings(dt=1e-6, duration=1e-4), name="strip")
    path = save_scenario(original, tmp_path / "strip.toml")[0]
    assert 'shape = "rectangle"' in open(path).read()
    loaded = load_scenario(path)
    a, b = original.compile(), loaded.compile()
    for k in a.params:
        np.testing.assert_array_equal(a.params[k], b.params[k], err_msg=k)
    a.step(50)
    b.step(50)
    np.testing.assert_array_equal(a.get_state()["positions"], b.get_state()["positions"])


# -- discrete elastic rods ----------------------------------------------------------------------

def der_strip_tip(n, force, couple=None):
    """Static tip of the DER strip clamped at mid-edge 0 (softmech.validation.der's clamp):
    nodes at x = (i - 1/2) l, l = L / (n + 1/2), so the clamped section is at x = 0 and the
    loaded node at x = L; normal (0, 0, 1) puts the thickness along m1."""
    l = L / (n + 0.5)
    x = np.zeros((n + 2, 3))
    x[:, 0] = (np.arange(n + 2) - 0.5) * l
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", centerline=x, section=sm.sections.rectangle(T, W),
                            density=RHO, youngs_modulus=E, shear_modulus=G, normal=(0, 0, 1))
    scene.add(sm.FixNodes(rod, [0, 1], angles=[0]))
    scene.add(sm.NodeForce(rod, n + 1, force))
    sim = scene.compile(dt=1e-3, newton=FULL_STEPS)
    sim.solve_static()
    return sim.get_state("rod")["positions"][0, -1], rod


def test_discrete_strip_bends_stiff_and_soft_as_euler_bernoulli():
    """The DER strip (no shear) under a tip force along m1 (z) and along m2 (y): P L^3 / (3 E I)
    with I = w t^3 / 12 and t w^3 / 12 (Euler-Bernoulli). Measured at n = 50: -0.0099 % both
    ways (second order: -0.039 % at n = 25); tolerance 0.05 %."""
    P = 1e-5
    soft, rod = der_strip_tip(50, (0.0, 0.0, -P))
    stiff, _ = der_strip_tip(50, (0.0, -400 * P, 0.0))
    assert soft[2] == pytest.approx(-P * L**3 / (3 * E * I2), rel=5e-4)
    assert stiff[1] == pytest.approx(-400 * P * L**3 / (3 * E * I1), rel=5e-4)
    # the stiffnesses in the order of (kappa1, kappa2): kappa1 turns the tangent towards m1
    np.testing.assert_allclose(rod.EI[0], [E * I2, E * I1], rtol=1e-14)
    assert rod.GJ[0] == pytest.approx(G * J, rel=1e-14)
    assert rod.twist_inertia[0] == pytest.approx(RHO * (I1 + I2) * rod.rest_lengths[0],
                                                 rel=1e-14)
