"""The mollified friction of a rod's surface contact (GroundContact(rod, surface=True,
friction=...(regularization="mollified")); law in softmech.kernels.surface_contact):

    F = -mu N f1(|v| / v_eps) dir,   f1(y) = y (2 - y) below 1, 1 above

(Li et al. 2020, "Incremental Potential Contact", eqs. 13-15, in velocity). Exact instantaneous
checks of the law (Simulation.contact_forces), its continuity and monotonicity in the slip
velocity, and a rod on a slope under both integrators: held below the Coulomb limit it creeps at
the analytic speed, above it accelerates at g (sin - mu cos).
"""
import numpy as np
import pytest

import softmech as sm

R, K, V_EPS = 0.01, 500.0, 1e-3
ROD = dict(radius=R, density=1000.0, youngs_modulus=1e6, shear_modulus=1e6 / 1.5)


def mollified(mu, normal, v, v_eps=V_EPS):
    """The law along one direction, written out: -mu N f1(|v| / v_eps) sign(v)."""
    y = np.abs(v) / v_eps
    return -mu * normal * np.where(y < 1.0, y * (2.0 - y), 1.0) * np.sign(v)


def rod_on_ground(friction, n=4, gravity=None, length=0.2):
    """A straight rod along x lying on the plane z = 0, its nodes at z = r - depth: sunk to the
    rest depth m_e g_z / k under gravity (a node's mass over its stiffness share; the same at
    the ends, half of each), with about critical damping 2 sqrt(k m_e) (m_e = 16 g), so that the
    normal force is steady from the start."""
    depth = 0.0 if gravity is None else (
        -gravity[2] * ROD["density"] * np.pi * R ** 2 * length / n / K)
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, R - depth), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=length, n_elems=n, **ROD)
    scene.add(sm.GroundContact(rod, stiffness=K, damping=5.0, surface=True, friction=friction))
    if gravity is not None:
        scene.add(sm.Gravity(gravity))
    return scene


@pytest.mark.parametrize("decomposition", ["sign", "unit"])
def test_the_force_is_the_mollified_law_at_each_node(decomposition):
    # nodes 0.2 r deep (normal force share k_i 0.2 r), slip speeds below and above v_eps along
    # the axis (mu forward / backward by its sign) and laterally. Exact: 1e-12 relative.
    mu_f, mu_b, mu_l = 0.2, 0.4, 0.7
    friction = sm.AnisotropicFriction(mu_f, mu_b, mu_l, slip_velocity=V_EPS, rolling=False,
                                      decomposition=decomposition, regularization="mollified")
    sim = rod_on_ground(friction).compile(dt=1e-5, strict=True)
    x = sim.get_state("rod")["positions"][0].copy()
    x[:, 2] = 0.8 * R
    v_ax = V_EPS * np.array([0.3, -0.7, 1.5, -2.0, 0.0])
    v_lat = V_EPS * np.array([0.4, 0.2, -0.5, 3.0, 0.0])
    sim.set_state("rod", positions=x, velocities=np.stack([v_ax, v_lat, 0 * v_ax], axis=1))
    f = sim.contact_forces("rod")[0]
    normal = np.array([0.5, 1.0, 1.0, 1.0, 0.5]) * K * 0.2 * R
    np.testing.assert_allclose(f[:, 2], normal, rtol=1e-12)
    mu_ax = np.where(v_ax > 0, mu_f, mu_b)
    if decomposition == "sign":      # each direction on its own speed
        f_ax, f_lat = mollified(mu_ax, normal, v_ax), mollified(mu_l, normal, v_lat)
    else:                            # f1 of the slip speed, along the unit slip velocity
        speed = np.hypot(v_ax, v_lat)
        share = -mollified(1.0, 1.0, speed) / np.where(speed > 0, speed, 1.0)
        f_ax, f_lat = -mu_ax * normal * share * v_ax, -mu_l * normal * share * v_lat
    np.testing.assert_allclose(f[:, 0], f_ax, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(f[:, 1], f_lat, rtol=1e-12, atol=1e-15)
    assert np.count_nonzero(np.abs(v_ax) < V_EPS) >= 2 and np.count_nonzero(f[:, 0]) >= 4


def test_friction_is_continuous_and_monotone_in_the_slip_velocity():
    # the property that lets an implicit step solve for the velocity (one solution): F(v) is
    # continuous (no static-to-kinetic drop) and non-increasing, with slope -2 mu N / v_eps at
    # v = 0 (f1'(0) = 2; the secant over +-d v_eps: -(2 - d) mu N / v_eps, f1 being odd in v
    # with f1(d) = 2 d - d^2) and exactly -mu N beyond v_eps.
    mu = 0.5
    sim = rod_on_ground(sm.IsotropicFriction(mu, slip_velocity=V_EPS, rolling=False,
                                             regularization="mollified"), n=1).compile(
        dt=1e-5, strict=True)
    x = sim.get_state("rod")["positions"][0].copy()
    x[:, 2] = 0.8 * R
    speeds = V_EPS * np.linspace(-3.0, 3.0, 601)
    force = []
    for s in speeds:
        sim.set_state("rod", positions=x, velocities=np.tile([s, 0.0, 0.0], (2, 1)))
        force.append(sim.contact_forces("rod")[0, 0, 0])
    force = np.array(force)
    normal = 0.5 * K * 0.2 * R
    step = np.diff(force)
    assert np.all(step <= 1e-15 * mu * normal)                               # monotone
    assert np.max(np.abs(step)) <= 2.0 * mu * normal * 0.01 * 1.0001          # Lipschitz: no jump
    zero = np.argmin(np.abs(speeds))
    slope = (force[zero + 1] - force[zero - 1]) / (speeds[zero + 1] - speeds[zero - 1])
    np.testing.assert_allclose(slope, -(2.0 - 0.01) * mu * normal / V_EPS, rtol=1e-9)
    np.testing.assert_allclose(force[np.abs(speeds) >= V_EPS],
                               -mu * normal * np.sign(speeds[np.abs(speeds) >= V_EPS]),
                               rtol=1e-12)


@pytest.mark.parametrize("scheme, dt", [("verlet", 1e-5), ("implicit_euler", 1e-3)])
def test_a_rod_on_a_slope_creeps_or_slides_as_the_law_says(scheme, dt):
    # gravity tilted by theta: per node the slope pulls m g sin(theta) and the ground carries
    # N = m g cos(theta). Below the Coulomb limit (tan(theta) < mu) the steady state is
    # mu N f1(v / v_eps) = m g sin(theta): v = v_eps (1 - sqrt(1 - tan(theta) / mu)), the same
    # for every node (a rigid creep); above it the rod accelerates at g (sin - mu cos)(theta)
    # once v > v_eps. Both are fixed points of either integrator: tolerance 1e-6 relative
    # (Newton's tol 1e-8 of a length scale per step; the steady state after 0.05 s, 40 and
    # 5,000 time constants m v_eps / (2 mu N) = 1.2e-4 s).
    mu, g = 0.4, 9.81
    friction = sm.IsotropicFriction(mu, slip_velocity=V_EPS, rolling=False,
                                    regularization="mollified")
    newton = sm.ImplicitOptions() if scheme == "implicit_euler" else None
    for ratio in (0.5, 1.5):                                   # tan(theta) / mu
        theta = np.arctan(ratio * mu)
        scene = rod_on_ground(friction, gravity=(g * np.sin(theta), 0.0, -g * np.cos(theta)))
        sim = scene.compile(dt=dt, scheme=scheme, newton=newton)
        out = sim.run(0.06, record=sm.Every(0.01, ("rod.velocities",)))
        v = out["rod.velocities"][0]                           # (records, nodes, 3)
        if ratio < 1:
            creep = V_EPS * (1.0 - np.sqrt(1.0 - ratio))
            np.testing.assert_allclose(v[-1, :, 0], creep, rtol=1e-6)
            np.testing.assert_allclose(v[-1, :, 1:], 0.0, atol=1e-9 * creep)
        else:
            acc = np.diff(v[-2:, :, 0], axis=0)[0] / 0.01
            np.testing.assert_allclose(acc, g * (np.sin(theta) - mu * np.cos(theta)),
                                       rtol=1e-6)
            assert v[-2, 0, 0] > V_EPS


@pytest.mark.parametrize("make, match", [
    (lambda: sm.IsotropicFriction(0.3, regularization="smooth"),
     r"friction.regularization = 'smooth' is not allowed: must be one of"),
    (lambda: sm.IsotropicFriction(0.3, 0.4, rolling=False, regularization="mollified"),
     r"friction.static_\* = \(0.4, 0.4, 0.4\) is not allowed with regularization='mollified'"),
])
def test_bad_regularizations_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_the_mollified_law_is_refused_where_it_does_not_act():
    mollified_law = sm.IsotropicFriction(0.3, rolling=False, regularization="mollified")
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, R), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=0.2, n_elems=4, **ROD)
    with pytest.raises(ValueError, match=r"ground.friction.regularization = 'mollified' is not "
                                         r"allowed on the element-centre contact"):
        scene.add(sm.GroundContact(rod, stiffness=K, friction=mollified_law))
    scene.add_sphere(name="ball", position=(0, 0, 0.1), radius=0.05, density=1000.0)
    with pytest.raises(ValueError, match=r"regularization 'band'"):
        scene.add(sm.GroundContact("ball", stiffness=1e4, friction=mollified_law))
