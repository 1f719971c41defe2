"""Overdamped implicit steps (ImplicitOptions(overdamped=True)): each step solves the force
balance F(x_n + h v, v) = 0 (Stokes flow, no inertia), against closed forms.

A Cosserat rod L = 1 mm, r = 10 um, rho = 1000 kg/m^3, E = 1 MPa, G = E / 3, in a fluid of
viscosity 1 mPa s with slender-body drag (SlenderBodyDrag, form "gazzola2018": c_t, c_n per
length from the term's own `coefficients`).
"""
import math

import numpy as np
import pytest

import softmech as sm

L, R, RHO, E, MU = 1e-3, 10e-6, 1000.0, 1e6, 1e-3
OVERDAMPED = sm.ImplicitOptions(overdamped=True)


def rod_in_stokes_flow(n, **rod):
    scene = sm.Scene()
    body = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                                  n_elems=n, radius=R, density=RHO, youngs_modulus=E,
                                  shear_modulus=E / 3, **rod)
    drag = sm.SlenderBodyDrag(body, MU, form="gazzola2018", name="stokes")
    scene.add(drag)
    c_t, c_n = drag.coefficients(np.array([[MU]]), L, np.full((1, n), R))
    return scene, body, float(c_n[0, 0])


def test_a_sedimenting_rod_moves_at_its_stokes_velocity_from_the_first_step():
    """A free horizontal rod under gravity: force balance rho A g = c_n v on every element, so
    v = rho pi r^2 g / c_n (broadside sedimentation in resistive-force theory; Lighthill 1976)
    at once -- an inertial step would start from rest and approach it over rho A / c_n. Equal
    to 1e-12 in the first step, on every node."""
    scene, _, c_n = rod_in_stokes_flow(20, normal=(0, 1, 0))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    sim = scene.compile(dt=1e-3, scheme="implicit_euler", newton=OVERDAMPED)
    sim.step(1)
    v = sim.get_state()["velocities"][0]
    expected = -RHO * math.pi * R**2 * 9.81 / c_n
    np.testing.assert_allclose(v[:, 2], expected, rtol=1e-12)
    np.testing.assert_allclose(v[:, :2], 0.0, atol=1e-12 * abs(expected))


def test_a_bent_cantilever_relaxes_at_the_first_mode_rate_of_the_overdamped_beam():
    """A clamped rod bent by a tip force and released relaxes in its first mode,
    c_n w_t = -E I w_xxxx, at lambda = E I (1.8751 / L)^4 / c_n (Euler-Bernoulli mode with the
    cantilever's eigenvalue beta L = 1.8751). Backward Euler damps the mode by 1 / (1 + lambda h)
    per step, so the measured rate (log-slope of the tip over 100 late steps) is compared with
    ln(1 + lambda h) / h: within 0.2 % at n = 40 (measured -0.08 %, the spatial discretization).
    With inertia (the default) the rate is higher by about rho A lambda / c_n = 0.45 % (a
    mass-spring-damper's slow root k / c (1 + m k / c^2)): measured +0.41 %."""
    n = 40
    scene, body, c_n = rod_in_stokes_flow(n, normal=(0, 0, 1))
    scene.add(sm.Clamp(body, "first"))
    scene.add(sm.EndLoad(body, force=(0.0, 1e-9, 0.0), name="push"))
    rate = E * math.pi * R**4 / 4 * (1.8751 / L) ** 4 / c_n
    h = 0.01 / rate
    measured = {}
    for overdamped in (True, False):
        sim = scene.compile(dt=h, scheme="implicit_euler",
                            newton=sm.ImplicitOptions(overdamped=overdamped))
        sim.step(300)
        sim.params["push.force"][:] = 0.0
        tips = []
        for _ in range(300):
            sim.step(1)
            tips.append(sim.get_state()["positions"][0, -1, 1])
        measured[overdamped] = -math.log(tips[299] / tips[199]) / (100 * h)
    assert measured[True] == pytest.approx(math.log(1 + rate * h) / h, rel=2e-3)
    inertia = RHO * math.pi * R**2 * rate / c_n
    assert measured[False] / measured[True] - 1 == pytest.approx(inertia, rel=0.2)


def test_overdamped_must_be_a_boolean():
    with pytest.raises(ValueError, match=r"ImplicitOptions.overdamped = 1 is not allowed"):
        sm.ImplicitOptions(overdamped=1)
