"""The environment of discrete rods and shells (ref. 004 section 5) in the implicit integrator,
on the test-only spring chain (tests/unit/implicit_fixture.py): ground contact and friction,
viscous friction, buoyancy, user forces -- each against a closed form."""
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import expit

import softmech as sm
from softmech.implicit.newton import NewtonOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from implicit_fixture import SpringChain, step_jacobian_check  # noqa: E402


def lying_chain(n=5, height=0.0, line_density=0.2, stiffness=200.0, **extra):
    """A horizontal chain of n nodes along x at `height`, spacing 0.05 m."""
    scene = sm.Scene()
    pos = np.zeros((n, 3))
    pos[:, 0] = 0.05 * np.arange(n)
    pos[:, 2] = height
    scene.implicit_bodies.append(SpringChain("chain", pos, stiffness=stiffness,
                                             line_density=line_density, **extra))
    return scene


def softplus_force(d, k, delta, K):
    """|F_n|(d) = 2 k s sigma, s = log(1 + exp(K (delta - d)))/K (softmech.kernels.implicit_ground)."""
    z = K * (delta - d)
    return 2 * k * np.logaddexp(0, z) / K * expit(z)


def test_resting_nodes_sink_until_the_penalty_carries_their_weight():
    # Equilibrium of each node: 2 k s(d) sigma(d) = m_i g, solved for d by bracketing (brentq);
    # the static solve must reach the same gaps (tolerance 1e-9 m, Newton's).
    k, delta = 50.0, 0.01
    scene = lying_chain(height=delta)
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact("chain", stiffness=k, distance=delta))
    sim = scene.compile(dt=1e-3)
    sim.solve_static()
    z = sim.get_state("chain")["positions"][0, :, 2]
    mass = 0.2 * scene.implicit_bodies[0].node_lengths()
    K = 15 / delta
    expected = [brentq(lambda d: softplus_force(d, k, delta, K) - m * 9.81, -1.0, 1.0, xtol=1e-14)
                for m in mass]
    np.testing.assert_allclose(z, expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("friction", [0.0, 0.6])
def test_ground_jacobian_matches_finite_differences(friction):
    # dF/dq + dF/dv / h (v = (q - q_n)/h) of the contact kernel against central differences of
    # its force in q, at random nodes near and inside the contact layer, sliding or not.
    rng = np.random.default_rng(3)
    scene = lying_chain(height=0.0)
    scene.add(sm.GroundContact("chain", stiffness=80.0, distance=0.01,
                               friction=sm.IsotropicFriction(friction, slip_velocity=0.05)))
    sim = scene.compile(dt=1e-3)
    binding = sim.stepper.bindings[-1]
    h = 1e-3
    q_n = sim.layout.q0 + rng.normal(scale=0.004, size=sim.layout.n_dof)
    q = q_n + rng.normal(scale=h * 0.05, size=q_n.size)
    dense, fd = step_jacobian_check(binding, q, q_n, h, eps=1e-8)
    np.testing.assert_allclose(dense, fd, rtol=1e-5, atol=1e-5 * np.abs(fd).max())


def slide(angle_deg, mu, duration=0.6, dt=2e-3):
    """The chain on the ground under gravity tilted by `angle_deg` about y (an incline);
    returns times and the mean x velocity."""
    th = np.radians(angle_deg)
    scene = lying_chain(n=3, height=0.01)
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact("chain", stiffness=500.0, distance=0.01,
                               friction=sm.IsotropicFriction(mu, slip_velocity=1e-4)))
    sim = scene.compile(dt=dt)
    sim.solve_static()       # settle on the level ground, then tilt gravity
    sim.params["gravity.acceleration"] = (9.81 * np.sin(th), 0.0, -9.81 * np.cos(th))
    out = sim.run(duration, record=sm.Every(dt, ("velocities",)))
    return out["time"], out["chain.velocities"][0, :, :, 0].mean(axis=1)


def test_friction_holds_below_the_friction_angle_and_slides_at_g_sin_minus_mu_cos_above():
    # Coulomb (ref. 004 eq. 23): a body on an incline at angle theta slides with acceleration
    # a = g (sin theta - mu cos theta) when tan theta > mu and sticks otherwise. The
    # regularization lets a stuck body creep below the slip tolerance (1e-4 m/s); the sliding
    # acceleration is compared once the speed exceeds 100x that tolerance (gamma = 1 - 1e-650),
    # within 1 % (implicit Euler is exact for a constant acceleration).
    mu = 0.5
    t, v = slide(20.0, mu)                      # tan 20 deg = 0.36 < 0.5
    assert np.max(np.abs(v)) < 1e-4
    t, v = slide(35.0, mu)                      # tan 35 deg = 0.70 > 0.5
    th = np.radians(35.0)
    sliding = v > 1e-2
    slope = np.polyfit(t[sliding], v[sliding], 1)[0]
    assert slope == pytest.approx(9.81 * (np.sin(th) - mu * np.cos(th)), rel=1e-2)


def falling_chain(eta, fluid_density=None):
    scene = lying_chain(height=1.0, density=800.0)
    scene.add(sm.Gravity())
    scene.add(sm.LinearDamping("chain", eta, name="viscous_friction"))
    if fluid_density is not None:
        scene.add(sm.Buoyancy(fluid_density))
    return scene


def test_viscous_friction_gives_the_terminal_speed_lambda_g_over_eta():
    # F_i = -eta dL_i v_i (ref. 004 eq. 27) against m_i g = lambda dL_i g: every node falls at
    # v = lambda g / eta, which implicit Euler reaches exactly (geometric convergence of the
    # linear recurrence); with buoyancy the weight is scaled by (1 - rho_f / rho) (section 5.1).
    eta, lam = 0.5, 0.2
    # time constant lambda/eta = 0.4 s; after 10 s at dt = 0.05 s the implicit Euler recurrence
    # v_{n+1} = (v_n + h g)/(1 + h eta/lambda) is within 1.125^-200 ~ 6e-11 of its limit
    sim = falling_chain(eta).compile(dt=0.05)
    sim.run(10.0)
    vz = sim.get_state("chain")["velocities"][0, :, 2]
    np.testing.assert_allclose(vz, -lam * 9.81 / eta, rtol=1e-6)
    floating = falling_chain(eta, fluid_density=200.0).compile(dt=0.05)
    floating.run(10.0)
    vz = floating.get_state("chain")["velocities"][0, :, 2]
    np.testing.assert_allclose(vz, -lam * 9.81 / eta * (1 - 200.0 / 800.0), rtol=1e-6)
    neutral = falling_chain(eta, fluid_density=800.0).compile(dt=0.01)
    neutral.run(0.5)
    assert np.max(np.abs(neutral.get_state("chain")["velocities"])) < 1e-12


def test_user_force_with_and_without_its_jacobian():
    # A spring k to each node's start and a damper c, as a user force: the static solve puts
    # every node m_i g / k below its start; the dynamics with the analytic Jacobian and with
    # finite differences agree (the Newton iterates converge to the same tolerance).
    k, c = 40.0, 0.3
    scene0 = lying_chain()
    start = scene0.implicit_bodies[0].positions.copy()

    def force(t, x, v):
        return -k * (x - start) - c * v

    def jac(t, x, v):
        eye = np.broadcast_to(np.eye(3), (len(x), 3, 3))
        return -k * eye, -c * eye

    runs = []
    for jacobian in (jac, None):
        scene = lying_chain(stiffness=0.0)        # the user force alone holds the nodes
        scene.add(sm.Gravity())
        scene.add(sm.NodeUserForce("chain", force, jacobian))
        sim = scene.compile(dt=0.01, newton=NewtonOptions(rtol=1e-12))
        sim.set_state("chain", velocities=np.array([0.0, 0.3, 0.0]))
        runs.append(sim.run(0.3, record=sm.Every(0.01, ("positions",)))["chain.positions"])
        sim.solve_static()
        dz = sim.get_state("chain")["positions"][0, :, 2] - start[:, 2]
        np.testing.assert_allclose(dz, -0.2 * scene.implicit_bodies[0].node_lengths() * 9.81 / k,
                                   rtol=1e-8)
    np.testing.assert_allclose(runs[0], runs[1], rtol=0, atol=1e-9)


def test_bad_environment_input_names_the_field():
    with pytest.raises(ValueError, match="ground.distance"):
        sm.GroundContact("chain", stiffness=1.0, distance=0.0)
    with pytest.raises(ValueError, match="ground.plane_normal"):
        sm.GroundContact("chain", stiffness=1.0, distance=0.1, plane_normal=(0, 0, 0))
    with pytest.raises(ValueError, match="user_force.function"):
        sm.NodeUserForce("chain", 3.0)
    scene = lying_chain()
    scene.add(sm.NodeUserForce("chain", lambda t, x, v: np.zeros((2, 3))))
    with pytest.raises(ValueError, match="returned shape"):
        scene.compile(dt=0.01).run(0.01)
