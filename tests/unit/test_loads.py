"""Prescribed loads and motions against closed-form impulse and momentum balances.

A free rod under external forces F_i(t) only (no gravity, no damping): total linear momentum
P(t) = integral of sum_i F_i dt (internal forces cancel, Newton's third law), so the
centre-of-mass velocity is V(t) = P(t) / M. With the time profile p(t) of softmech.terms.base,
  constant:    integral_0^T p = T
  ramp (tr):   integral_0^T p = T^2 / (2 tr)                  for T <= tr
  sinusoid f:  integral_0^T p = (1 - cos(2 pi f T)) / (2 pi f)  (phase 0)
Position Verlet integrates a time-dependent force with an O(dt^2) quadrature error, so the
tolerance is 1e-6 relative at dt = 1e-5 s for T = 0.05 s.
Couples: total angular momentum L(t) = integral of the applied couples (about any point, since the
applied forces are zero), checked the same way.
"""
import numpy as np
import pytest

import softmech as sm

N, LENGTH, RADIUS, RHO, E = 10, 1.0, 0.02, 1000.0, 1e6
MASS = RHO * np.pi * RADIUS**2 * LENGTH
T, DT = 0.05, 1e-5


def free_rod_scene():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=LENGTH, n_elems=N, radius=RADIUS, density=RHO,
                                 youngs_modulus=E)
    return scene, rod


PROFILES = {
    "constant": (dict(), T),
    "ramp": (dict(ramp_time=0.1), T**2 / (2 * 0.1)),
    "sinusoid": (dict(frequency=7.0), (1 - np.cos(2 * np.pi * 7.0 * T)) / (2 * np.pi * 7.0)),
}


@pytest.mark.parametrize("profile", PROFILES)
def test_end_force_impulse(profile):
    kwargs, integral = PROFILES[profile]
    scene, rod = free_rod_scene()
    force = np.array([0.3, -0.2, 0.1])
    scene.add(sm.EndLoad(rod, force=force, name="tip", **kwargs))
    sim = scene.compile(dt=DT)
    sim.run(T)
    np.testing.assert_allclose(sim.diagnostics()["linear_momentum"][0], force * integral, rtol=1e-6)


@pytest.mark.parametrize("profile", PROFILES)
def test_uniform_force_per_length(profile):
    kwargs, integral = PROFILES[profile]
    scene, rod = free_rod_scene()
    f = np.array([0.0, 0.5, -0.25])
    scene.add(sm.UniformLoad(rod, force_per_length=f, name="load", **kwargs))
    sim = scene.compile(dt=DT)
    sim.run(T)
    d = sim.diagnostics()
    np.testing.assert_allclose(d["linear_momentum"][0], f * LENGTH * integral, rtol=1e-6,
                               atol=1e-15)
    # a uniform load accelerates every node alike: the rod translates without deforming
    assert d["bending_energy"][0] < 1e-20 and d["stretch_energy"][0] < 1e-20


@pytest.mark.parametrize("profile", PROFILES)
def test_uniform_couple_angular_impulse(profile):
    kwargs, integral = PROFILES[profile]
    scene, rod = free_rod_scene()
    c = np.array([0.0, 0.0, 1e-3])  # about the rod's normal d1 = z: in-plane spin
    scene.add(sm.UniformLoad(rod, couple_per_length=c, name="twister", **kwargs))
    sim = scene.compile(dt=DT)
    sim.run(T)
    np.testing.assert_allclose(sim.diagnostics()["angular_momentum"][0], c * LENGTH * integral,
                               rtol=1e-6, atol=1e-15)


def test_end_couple_angular_impulse():
    scene, rod = free_rod_scene()
    couple = np.array([2e-4, 0.0, 0.0])  # twist about the axis
    scene.add(sm.EndLoad(rod, couple=couple, name="tip", end="first"))
    sim = scene.compile(dt=DT)
    sim.run(T)
    np.testing.assert_allclose(sim.diagnostics()["angular_momentum"][0], couple * T, rtol=1e-6,
                               atol=1e-15)


def test_prescribed_motion_follows_its_profile():
    """x(t) = x0 + d sin(2 pi f t) exactly at the end node, with velocity d 2 pi f cos(2 pi f t),
    from the first step on (the t = 0 sample is the initial state as built: at rest)."""
    scene, rod = free_rod_scene()
    d, f = np.array([0.0, 0.01, 0.0]), 3.0
    scene.add(sm.PrescribedMotion(rod, displacement=d, end="last", frequency=f, name="shaker"))
    sim = scene.compile(dt=DT)
    out = sim.run(0.2, record=sm.Every(seconds=0.01, fields=("positions", "velocities")))
    t = out["time"]
    expected = np.array([LENGTH, 0, 0]) + np.sin(2 * np.pi * f * t)[:, None] * d
    np.testing.assert_allclose(out["positions"][0, :, -1], expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(out["velocities"][0, 1:, -1],
                               2 * np.pi * f * np.cos(2 * np.pi * f * t[1:])[:, None] * d,
                               rtol=0, atol=1e-12)
    # the rest of the rod follows: it is dragged, not frozen
    assert abs(out["positions"][0, -1, N // 2, 1]) > 1e-6


def test_pin_holds_position_and_lets_the_rod_swing():
    scene, rod = free_rod_scene()
    scene.add(sm.Pin(rod, "first"))
    scene.add(sm.Gravity((0, -9.81, 0)))
    sim = scene.compile(dt=DT)
    sim.run(0.1)
    x = sim.get_state()["positions"][0]
    np.testing.assert_array_equal(x[0], [0.0, 0.0, 0.0])
    assert x[-1, 1] < -1e-3  # the free end falls: the pin does not hold the rotation
