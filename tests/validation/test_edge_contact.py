"""Implicit edge-edge contact (IMC, ref. 004 eqs. 21-24; softmech.kernels.edge_contact) on the
test-only spring chains: forces are minus the energy gradient, the Jacobian matches finite
differences, a stick resting across a fixed bar carries its weight at the closed-form gap, and
friction holds it below the friction angle and lets it slide at g (sin - mu cos) above."""
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import expit

import softmech as sm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from implicit_fixture import SpringChain  # noqa: E402

DELTA = 0.01


def stick_on_bar(friction=0.0, gap=DELTA, mass=0.05):
    """A fixed bar (4 m) along y at height 0 and a one-edge stick (0.2 m) along x resting across
    its middle (centres above each other, `gap` apart)."""
    scene = sm.Scene()
    bar = np.array([[0.0, -2.0, 0.0], [0.0, 2.0, 0.0]])
    stick = np.array([[-0.1, 0.0, gap], [0.1, 0.0, gap]])
    scene.implicit_bodies.append(SpringChain("bar", bar, mass, 1e3))
    scene.implicit_bodies.append(SpringChain("stick", stick, mass, 1e3))
    scene.add(sm.FixNodes("bar", [0, 1]))
    scene.add(sm.Gravity())
    scene.add(sm.EdgeContact(["bar", "stick"], stiffness=200.0, distance=DELTA,
                             friction=sm.IsotropicFriction(friction, slip_velocity=1e-4)))
    return scene


def test_forces_are_minus_the_energy_gradient_and_the_jacobian_matches_differences():
    rng = np.random.default_rng(5)
    sim = stick_on_bar(friction=0.4).compile(dt=1e-3)
    binding = sim.stepper.bindings[-1]
    h = 1e-3
    for trial in range(5):
        q_n = sim.layout.q0 + rng.normal(scale=0.003, size=sim.layout.n_dof)
        q = q_n + rng.normal(scale=1e-4, size=q_n.size)
        binding.begin_step(0, q, 0.0)
        assert len(binding.pair_dofs) == 1

        def force(qq, vv, hh):
            F = np.zeros_like(qq)
            binding.forces(0, qq, vv, 0.0, hh, F, np.zeros(len(binding.rows)))
            return F

        eye = np.eye(q.size)
        eps = 1e-8
        grad = np.array([(binding.energy(0, q + eps * e) - binding.energy(0, q - eps * e)) / (2 * eps)
                         for e in eye])
        F0 = force(q, np.zeros_like(q), np.inf)
        np.testing.assert_allclose(F0, -grad, rtol=1e-5, atol=1e-6 * np.abs(F0).max())
        # dF/dq + dF/dv / h with v = (q - q_n)/h, friction on
        J = np.zeros(len(binding.rows))
        binding.forces(0, q, (q - q_n) / h, 0.0, h, np.zeros_like(q), J)
        dense = np.zeros((q.size, q.size))
        np.add.at(dense, (binding.rows, binding.cols), J)
        fd = np.stack([(force(q + eps * e, (q + eps * e - q_n) / h, h)
                        - force(q - eps * e, (q - eps * e - q_n) / h, h)) / (2 * eps)
                       for e in eye], axis=1)
        np.testing.assert_allclose(dense, fd, rtol=1e-4, atol=1e-5 * np.abs(fd).max())
        # Newton's third law: the pair's forces add up to zero
        assert abs(F0[:6].sum() + F0[6:].sum()) < 1e-9 * np.abs(F0).max()


def test_a_stick_across_a_bar_rests_at_the_gap_that_carries_its_weight():
    # Both edges meet at their midpoints (a = c = 1/2), so the contact force 2 k s sigma(D)
    # (eq. 22) carries the stick's weight 2 m g; D from bracketing, tolerance 1e-9 m.
    m, k, K = 0.05, 200.0, 15 / DELTA
    sim = stick_on_bar().compile(dt=1e-3)
    sim.solve_static()
    z = sim.get_state("stick")["positions"][0, :, 2]
    gap = brentq(lambda d: 2 * k * np.logaddexp(0, K * (DELTA - d)) / K * expit(K * (DELTA - d))
                 - 2 * m * 9.81, -1.0, 1.0, xtol=1e-14)
    np.testing.assert_allclose(z, gap, rtol=0, atol=1e-9)


def test_friction_on_the_bar_holds_below_the_friction_angle_and_slides_above():
    # Gravity tilted by theta along the bar (y): the stick slides along the bar at
    # g (sin theta - mu cos theta) when tan theta > mu (eq. 23), within 1 %; below, it creeps
    # slower than the slip tolerance (1e-4 m/s).
    mu = 0.4
    for angle, slides in ((15.0, False), (35.0, True)):
        th = np.radians(angle)
        sim = stick_on_bar(friction=mu).compile(dt=2e-3)
        sim.solve_static()
        sim.params["gravity.acceleration"] = (0.0, 9.81 * np.sin(th), -9.81 * np.cos(th))
        out = sim.run(0.5, record=sm.Every(2e-3, ("velocities",)))
        vy = out["stick.velocities"][0, :, :, 1].mean(axis=1)
        if not slides:
            assert np.max(np.abs(vy)) < 1e-4
        else:
            moving = vy > 1e-2
            slope = np.polyfit(out["time"][moving], vy[moving], 1)[0]
            assert slope == pytest.approx(9.81 * (np.sin(th) - mu * np.cos(th)), rel=1e-2)


def test_edges_that_share_a_node_never_touch_and_bad_input_names_the_field():
    scene = sm.Scene()
    zigzag = np.array([[0, 0, 0], [0.1, 0, 0], [0.1, 0.005, 0], [0, 0.005, 0]], dtype=float)
    scene.implicit_bodies.append(SpringChain("z", zigzag, 0.01, 1e3))
    scene.add(sm.EdgeContact("z", stiffness=10.0, distance=DELTA))
    sim = scene.compile(dt=1e-3)
    binding = sim.stepper.bindings[-1]
    binding.begin_step(0, sim.q[0], 0.0)
    # edges 0 and 2 (no shared node, 5 mm apart) are a pair; 0-1 and 1-2 share nodes
    assert sorted(map(tuple, binding.pair_dofs[:, [0, 6]] // 3)) == [(0, 2)]
    with pytest.raises(ValueError, match="edge_contact.distance"):
        sm.EdgeContact("z", stiffness=1.0, distance=-1.0)
    with pytest.raises(ValueError, match="listed twice"):
        sm.EdgeContact(["z", "z"], stiffness=1.0, distance=0.1)
