"""Implicit Euler for Cosserat rods and rigid bodies (scheme "implicit_euler"), against the
closed-form solutions of the method itself and of the mechanics."""
import numpy as np
import pytest

import softmech as sm


def backward_euler_oscillator(omega, h, x0, v0, n):
    """Backward Euler on x'' = -omega^2 x: (x, v)_{k+1} = M^{-1} (x, v)_k with
    M = [[1, -h], [h omega^2, 1]] (Hairer and Wanner, Solving ODEs II, sec. IV.2: the method's
    stability function R(z) = 1 / (1 - z), |R(i omega h)| = 1 / sqrt(1 + (omega h)^2) < 1:
    the amplitude decays). Returns x_k for k = 0..n."""
    step = np.linalg.inv(np.array([[1.0, -h], [h * omega**2, 1.0]]))
    y, out = np.array([x0, v0]), [x0]
    for _ in range(n):
        y = step @ y
        out.append(y[0])
    return np.array(out)


def test_axial_oscillator_follows_backward_eulers_own_solution():
    """One element clamped at its first end: its free node oscillates along the axis with
    omega^2 = (E A / L) / m (m: the node's mass, half the element's). At a small amplitude
    (1e-6 L: the law's nonlinearity is 1e-6 relative) the integrator reproduces backward
    Euler's discrete solution, amplitude decay included, to 1e-5 of the amplitude; at
    omega h = 2 the amplitude falls by sqrt(5) per step, as R(2i) says."""
    L, r, E, rho = 1.0, 0.05, 1e7, 1000.0
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=L, n_elems=1, radius=r, density=rho, youngs_modulus=E)
    scene.add(sm.Clamp(rod, "first"))
    A = np.pi * r**2
    m = rho * A * L / 2
    omega = np.sqrt(E * A / L / m)
    for h in (0.05 / omega, 2.0 / omega):
        sim = scene.compile(dt=h, scheme="implicit_euler")
        v0 = 1e-6 * L * omega
        velocities = np.zeros((2, 3))
        velocities[1, 0] = v0
        sim.set_state(velocities=velocities)
        out = sim.run(40 * h, record=sm.Every(h, ("positions",)))
        x = out["positions"][0, :, 1, 0] - L
        expected = backward_euler_oscillator(omega, h, 0.0, v0, len(x) - 1)
        assert np.max(np.abs(x - expected)) < 1e-5 * np.max(np.abs(expected))


def test_rigid_body_free_fall_and_torque_free_spin_are_exact():
    """A sphere under gravity spinning about a tilted axis. Backward Euler on x'' = g gives
    v_n = n h g and x_n = x_0 + h^2 g n (n + 1) / 2 exactly (the residual is linear in the
    velocity: Newton's first iteration is exact); a sphere's angular velocity stays constant
    (no gyroscopic couple: J isotropic) and its frame turns by exp(-n h [w]x). Both to
    round-off (1e-12)."""
    scene = sm.Scene()
    w = np.array([0.3, -1.2, 2.0])
    scene.add_sphere(position=(0, 0, 1.0), radius=0.1, density=1000.0, angular_velocity=w)
    scene.add(sm.Gravity((0, 0, -9.81)))
    h, n = 0.01, 50
    sim = scene.compile(dt=h, scheme="implicit_euler")
    sim.step(n)
    state = sim.get_state()
    assert np.allclose(state["velocities"][0, 0], [0, 0, -9.81 * n * h], rtol=0, atol=1e-12)
    assert np.allclose(state["positions"][0, 0], [0, 0, 1.0 - 9.81 * h * h * n * (n + 1) / 2],
                       rtol=0, atol=1e-12)
    assert np.allclose(state["angular_velocities"][0, 0], w, rtol=0, atol=1e-12)
    a = -n * h * w                      # exp(-n h [w]x) by Rodrigues' formula
    theta = np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]]) / theta
    R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K
    assert np.allclose(state["directors"][0, 0], R, rtol=0, atol=1e-12)


def test_cantilever_settles_on_timoshenko_at_steps_100x_the_explicit_limit():
    """The README's cantilever (ME498 handout Table 1) at dt = 1e-2 s, ~30x the explicit
    Verlet step it uses (3e-4 s): the tip settles at Timoshenko's deflection -0.0612 m
    within 1 % (the explicit run's own agreement), and on the explicit run's static shape
    within 1e-4 relative (a static equilibrium does not depend on the integrator)."""
    def build():
        scene = sm.Scene()
        beam = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                      length=3.0, n_elems=100, radius=0.25, density=5e3,
                                      youngs_modulus=1e6, shear_modulus=1e4)
        scene.add(sm.Clamp(beam, "first"))
        scene.add(sm.EndLoad(beam, force=(0, -15, 0), ramp_time=1.0))
        scene.add(sm.LinearDamping(beam, coefficient=1e3,
                                   rotational_coefficient=1e3 * 0.25**2 / 4))
        return scene

    implicit = build().compile(dt=1e-2, scheme="implicit_euler")
    implicit.step(2000)
    tip = implicit.get_state()["positions"][0, -1, 1]
    assert tip == pytest.approx(-0.0612, rel=0.01)
    explicit = build().compile(dt=3e-4)
    explicit.run(20.0)
    assert tip == pytest.approx(explicit.get_state()["positions"][0, -1, 1], rel=1e-4)
