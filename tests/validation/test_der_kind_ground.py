"""sm.GroundContact on a discrete rod in the unified engine (softmech.terms.der_ground: the discrete
engine's smooth penalty contact with Coulomb friction, static and kinetic, MAT-DiSMech ref. 004
eqs. 23, 25-26) against statics, the discrete engine and Amontons-Coulomb on an incline; a
mixed scene with a Cosserat rod restarted bit for bit.

The friction's slip velocity is 1e-3 m/s (rest) and 1e-4 m/s (incline) in most tests, not the
law's default 1e-8: they were written when the unified engine's Newton differentiated the
contact by finite differences with a velocity step delta l / h (1e-7 x 0.02 m / h: 2e-7 m/s at
h = 10 ms, 2e-6 m/s at 1 ms, softmech.kernels.implicit_motion.perturbation_kind), which
resolves the regularized friction only where the slip velocity is well above it (at 1e-8 m/s
the rod at rest ran 200 steps, then Newton failed even at dt / 256). Since 2026-12-04 the
contact's Jacobian blocks are the discrete engine's analytic ones, and the default works
(test_the_default_slip_velocity_holds_the_rod_as_the_discrete_engine_does)."""
import numpy as np
import pytest

import softmech as sm
from softmech.validation.discrete_rods import der_rod_on_incline

L, N, R, RHO, E = 0.2, 10, 0.01, 1000.0, 1e8
"""The rod of softmech.validation.discrete_rods.der_rod_on_incline (0.2 m, r = 1 cm, 10 edges)."""
K, MU, G = 1000.0, 0.3, 9.81
SHARPNESS = 15.0 / R        # GroundContact's default K = 15 / distance [1/m]


def rod_on_ground(scene, *, friction=sm.IsotropicFriction(MU, slip_velocity=1e-3), y=0.0):
    rod = scene.add_der_rod(name="rod", start=(0.0, y, R), direction=(1.0, 0.0, 0.0), length=L,
                            n_elems=N, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.GroundContact(rod, stiffness=K, distance=R, friction=friction, name="ground"))
    return rod


@pytest.fixture(scope="module")
def at_rest():
    """(rod, {engine: state}) of the rod on level ground under gravity after 100 implicit Euler
    steps of 10 ms in each engine. The slowest mode, the rod bouncing on the penalty's tangent
    stiffness at rest (~97 N/m per node: omega ~ 124 rad/s), loses a factor
    |1 / (1 + i omega h)| = 0.63 per step: 1e-20 after 100 steps."""
    states = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        rod = rod_on_ground(scene)
        scene.add(sm.Gravity((0.0, 0.0, -G)))
        sim = scene.compile(dt=0.01, engine=engine)
        sim.step(100)
        states[engine] = sim.get_state("rod")
    return rod, states


def test_rod_at_rest_on_the_ground_carries_its_weight(at_rest):
    """At rest the internal forces sum to zero, so the ground's normal forces sum to the weight:
    sum_i F_n,i = m g, with F_n = 2 k s sigma, s = log(1 + e^z) / K, sigma = 1 / (1 + e^-z),
    z = K (delta - z_i) (IMC's smooth penalty, Tong et al. 2023; ref. 004 eq. 25), evaluated
    here from the node heights. Tolerance 1e-6 relative: a Newton correction below tol l / h
    in velocity (tol 1e-8, l = 2 cm, h = 10 ms) leaves a force imbalance of m tol l / h^2
    ~1.3e-8 N per node, 2e-7 of a node's weight (measured 2e-16). No node moves (1e-12 m/s)."""
    rod, states = at_rest
    state = states["unified"]
    assert np.abs(state["velocities"]).max() < 1e-12
    z = SHARPNESS * (R - state["positions"][0, :, 2])
    s, sigma = np.logaddexp(0.0, z) / SHARPNESS, 1.0 / (1.0 + np.exp(-z))
    weight = rod.node_mass.sum() * G
    assert abs((2.0 * K * s * sigma).sum() / weight - 1.0) < 1e-6


def test_rest_state_equals_the_discrete_engines(at_rest):
    """The same scene in the discrete engine (analytic Jacobian, softmech.terms.
    implicit_environment.GroundBinding) comes to the same rest: positions within 1e-9 m, five
    times both Newton tolerances (1e-8 of the 2 cm edge: 2e-10 m; measured 1e-14 m)."""
    _, states = at_rest
    assert np.abs(states["unified"]["positions"] - states["discrete"]["positions"]).max() < 1e-9


def test_a_soft_rod_striking_frictional_ground_follows_the_discrete_engine():
    """The built-in falling_rod's soft rod (E = 1 MPa, 20 degrees tilted, dropped from 5 cm
    onto ground with mu = 0.5, slip velocity 1e-3 m/s, implicit Euler at 1 ms): its first
    frictional contacts failed the unified Newton even at dt / 256 until the watchdog line
    search on the impulse residual (2026-12-01, softmech.kernels.implicit_newton.judge_lanes).
    Now it lands and comes to rest as in the discrete engine (analytic Jacobian): every node
    within 2e-4 m of it during and after the impact (measured 4.9e-5 m, 0.025 % of the rod:
    the impact's stick and slip carry the two Newtons' different stopping points, 1e-8 of an
    edge per step, over to the path), and both at rest on the ground (centre 2.25 mm high,
    the radius 2 mm plus the penalty's compression)."""
    from softmech.scenarios.discrete import FALLING_ROD as p
    tilt = np.radians(p["tilt_deg"])
    paths = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, p["height"]),
                                direction=(np.cos(tilt), 0.0, np.sin(tilt)),
                                length=p["length"], n_elems=p["n_elems"], radius=p["radius"],
                                density=p["density"], youngs_modulus=p["soft_modulus"],
                                poisson_ratio=p["poisson_ratio"])
        scene.add(sm.GroundContact(rod, stiffness=p["contact_stiffness"], distance=p["radius"],
                                   friction=sm.IsotropicFriction(p["friction"],
                                                                 slip_velocity=1e-3),
                                   name="ground"))
        scene.add(sm.Gravity((0.0, 0.0, -G)))
        sim = scene.compile(dt=p["dt"], engine=engine)
        frames = []
        for _ in range(12):
            sim.run(0.05)
            frames.append(sim.get_state("rod")["positions"][0].copy())
        paths[engine] = np.array(frames)
    assert np.abs(paths["unified"] - paths["discrete"]).max() < 2e-4
    for engine, frames in paths.items():
        assert abs(frames[-1][:, 2].mean() - p["radius"]) < 1e-3, engine       # on the ground
        assert np.abs(frames[-1] - frames[-2]).max() < 1e-5, engine            # at rest


def test_rod_slides_down_an_incline_at_the_kinetic_acceleration():
    """The rod of der_rod_on_incline (the discrete engine's validation protocol: settled on level
    ground, gravity tilted quasi-statically to alpha, clock restarted) at tan(alpha) = 0.5
    above mu_k = 0.3: the centre of mass accelerates at a = g (sin(alpha) - mu_k cos(alpha))
    (Amontons-Coulomb on an incline, e.g. Meriam & Kraige, Engineering Mechanics: Dynamics,
    sec. 3/4). Least-squares slope of the centre of mass's velocity from 0.1 s to 0.3 s, once
    it slides at 0.3-0.9 m/s, where the regularization's gamma(|u|) = 1 to double precision
    (|u| / slip velocity > 3e3): implicit Euler's velocity update is exact for a constant
    force. Tolerance 1e-4 relative, the discrete engine's case's; measured -4.7e-6 (the
    normal forces' share between the nodes while the tilted rod settles on them)."""
    t, _, v = der_rod_on_incline([0.5], [MU], [MU], 0.3, slip_velocity=1e-4, engine="unified")
    window = t >= 0.1
    slope = np.polyfit(t[window], v[0, window], 1)[0]
    alpha = np.arctan(0.5)
    expected = G * (np.sin(alpha) - MU * np.cos(alpha))
    assert abs(slope / expected - 1.0) < 1e-4, (slope, expected)


MU_S, MU_K = 0.5, 0.3


@pytest.fixture(scope="module")
def inclines():
    """der_rod_on_incline at tan(alpha) = 0.98 mu_s and 1.02 mu_s (mu_s = 0.5, mu_k = 0.3, slip
    velocity 1e-4 m/s, implicit Euler at 1 ms, 0.3 s after the tilt) in both engines."""
    return {engine: der_rod_on_incline([0.98 * MU_S, 1.02 * MU_S], [MU_S, MU_S], [MU_K, MU_K],
                                       0.3, slip_velocity=1e-4, engine=engine)
            for engine in ("unified", "discrete")}


def test_static_friction_holds_below_the_friction_angle_and_slides_above_it(inclines):
    """The discrete engine's validation case (der_rod_sticks_then_slides_on_an_incline) on the
    kind: at tan(alpha) = 0.98 mu_s the rod holds -- it creeps at ~0.3 slip velocities, the
    regularized law's (3e-5 m/s: 3 um in the last 0.1 s; 1 mm/s would be sliding), so the
    bound is 1e-5 m --, at 1.02 mu_s it slides with a = g (sin(alpha) - mu_k cos(alpha))
    (Amontons-Coulomb) within 1e-4 relative (the slip erodes the static excess as
    1 / (1 + (v / v_S)^8): gone at the sliding speed). The static excess is lagged on the last
    accepted step's slip, read from implicit Euler's base velocities (softmech.kernels.
    der_ground)."""
    t, x, v = inclines["unified"]
    late = t >= t[-1] - 0.1
    assert np.ptp(x[0, late]) < 1e-5, np.ptp(x[0, late])
    window = t >= 0.1
    slope = float(np.polyfit(t[window], v[1, window], 1)[0])
    alpha = np.arctan(1.02 * MU_S)
    expected = G * (np.sin(alpha) - MU_K * np.cos(alpha))
    assert abs(slope / expected - 1.0) < 1e-4, (slope, expected)


def test_static_friction_equals_the_discrete_engines(inclines):
    """The same protocol in both engines: the lagged slip of the kind (a function of the base
    velocities) is the discrete engine's (the slip kept at its converged iterate): the holding
    rod's creep agrees within 1e-9 m (measured 5e-12 m of a 3 um creep) and the sliding rod's
    acceleration within 1e-8 relative (measured 1.7e-10; each -4.8e-6 from Amontons-Coulomb);
    its position within 1e-3 of its 9 cm travel (measured 3.7e-4: a constant speed offset of
    1.1e-4 m/s, about one slip velocity, from the onset of sliding at the end of the tilt,
    where the static excess falls steeply with the slip, (w / v_S)^8, and the two Newtons'
    different stopping rules shift it)."""
    (t, x, v), (t_d, x_d, v_d) = inclines["unified"], inclines["discrete"]
    np.testing.assert_allclose(t, t_d)
    assert np.abs((x[0] - x[0, 0]) - (x_d[0] - x_d[0, 0])).max() < 1e-9
    travel = np.abs(x_d[1] - x_d[1, 0]).max()
    assert travel > 1e-2
    assert np.abs((x[1] - x[1, 0]) - (x_d[1] - x_d[1, 0])).max() < 1e-3 * travel
    window = t >= 0.1
    slope, slope_d = (float(np.polyfit(t[window], vel[1, window], 1)[0]) for vel in (v, v_d))
    assert abs(slope / slope_d - 1.0) < 1e-8, (slope, slope_d)


def test_static_friction_under_verlet_reads_the_last_steps_velocity():
    """Under position Verlet the forces see the velocity of the last step's end (evaluated
    before the kick), so the same law holds explicitly: a rod on level ground under a sideways
    body force of 0.4 g (between mu_k = 0.3 and mu_s = 0.5) stays at rest, one under 0.6 g
    slides. A linear damping (eta = 72 kg/(m s): ratio ~0.2 for the bounce on the penalty,
    which Verlet does not damp) settles the contact first; alone it cannot hold the rod: at
    0.4 g with kinetic friction only the terminal speed 0.1 g m_i / (eta dL_i) = 4e-3 m/s
    would move it ~0.4 mm in the 0.1 s."""
    scene = sm.Scene()
    rod = rod_on_ground(scene, friction=sm.IsotropicFriction(MU_K, MU_S, slip_velocity=1e-3))
    scene.add(sm.Gravity((0.0, 0.0, -G)))
    scene.add(sm.LinearDamping(rod, 72.0))
    sim = scene.compile(dt=2e-5, engine="unified", scheme="verlet", worlds=3)
    sim.params["ground.static"] = np.array([MU_S, MU_K, MU_S])    # world 1: kinetic only
    sim.run(0.1)                                  # settle on the ground
    sim.params["gravity.acceleration"] = np.array([[0.4 * G, 0.0, -G], [0.4 * G, 0.0, -G],
                                                   [0.6 * G, 0.0, -G]])
    x0 = sim.get_state("rod")["positions"][:, :, 0].mean(axis=1)
    sim.run(0.1)
    moved = sim.get_state("rod")["positions"][:, :, 0].mean(axis=1) - x0
    assert abs(moved[0]) < 3e-5, moved        # creeps below ~0.3 slip velocities (measured 1.4e-5)
    assert moved[1] > 1e-4 and moved[2] > 1e-4, moved   # sliding (~0.4 and ~1.2 mm)


def test_mixed_scene_with_a_cosserat_rod_restarts_bit_for_bit(tmp_path):
    """The discrete rod dropping onto the ground beside a Cosserat rod on its own ground contact,
    implicit Euler (the mixed scene's default) at 2 ms: 30 steps in one call equal 18 + 12, and
    equal a run saved after 18 steps and loaded into a new simulation, bit for bit (the
    contact keeps no state: its forces are a function of the positions and velocities)."""
    def mixed():
        scene = sm.Scene()
        rod_on_ground(scene)
        snake = scene.add_cosserat_rod(name="snake", start=(0.0, 0.1, 0.025),
                                       direction=(1.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0),
                                       length=0.2, n_elems=10, radius=0.025, density=1000.0,
                                       youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
        scene.add(sm.GroundContact(snake, stiffness=1.0, name="snake_ground"))
        scene.add(sm.Gravity((0.0, 0.0, -G)))
        sim = scene.compile(dt=2e-3)
        assert sim.scheme == "implicit_euler"
        return sim

    whole, split = mixed(), mixed()
    whole.step(30)
    split.step(18)
    split.save_state(tmp_path / "s.npz")
    split.step(12)
    loaded = mixed()
    loaded.load_state(tmp_path / "s.npz")
    loaded.step(12)
    assert np.abs(whole.get_state("rod")["velocities"]).max() > 1e-3     # it moved
    for body in ("rod", "snake"):
        for key, value in whole.get_state(body).items():
            assert np.array_equal(split.get_state(body)[key], value), (body, key)
            assert np.array_equal(loaded.get_state(body)[key], value), (body, key)


def test_force_pass_reads_no_stale_scratch_and_acts_in_every_world():
    """The term contract of tests/properties/test_term_contract.py for the kind's contact (that
    scene has no discrete rod): the accumulators and every scratch pre-filled with NaN, one
    force evaluation on 3 worlds with their own stiffness writes finite forces, and each
    world's rod at rest on the plane z = R feels the penalty F_n = 2 k s sigma with z = 0,
    s = log(2) / K, sigma = 1/2 on every node (module formula, to 1e-12 relative): k log(2) / K
    plus the weight of no other term (gravity is a body acceleration)."""
    scene = sm.Scene()
    rod = rod_on_ground(scene)
    sim = scene.compile(worlds=3, dt=0.01, engine="unified")
    stiffness = np.array([500.0, 1000.0, 2000.0])
    sim.params["ground.stiffness"] = stiffness
    engine = sim._engine()
    for array in (engine.workspace.der_force, engine.workspace.der_torque, *engine.scratch):
        array[...] = np.nan
    acc = sim.accelerations("rod")[0]
    assert np.all(np.isfinite(acc))
    expected = stiffness[:, None] * np.log(2.0) / SHARPNESS / rod.node_mass[None]
    assert np.allclose(acc[..., 2], expected, rtol=1e-12, atol=0.0)


def test_a_slip_velocity_below_the_newton_step_is_warned_before_the_first_step():
    """With the contact's Jacobian by finite differences (ImplicitOptions(analytic=False)) the
    default slip velocity 1e-8 m/s lies below 10 of their velocity steps (10 x 1e-7 x 0.02 m /
    10 ms = 2e-6 m/s), where the steps fail (module docstring): a RuntimeWarning names the
    field, the value and the bound before any step; 1e-3 m/s passes silently, and so does the
    default with the analytic blocks (the default options)."""
    import warnings

    def integrator(friction, newton=None):
        scene = sm.Scene()
        rod_on_ground(scene, friction=friction)
        return scene.compile(dt=0.01, engine="unified", newton=newton).implicit_integrator

    by_differences = sm.ImplicitOptions(analytic=False)
    with pytest.warns(RuntimeWarning, match=r"ground.friction: slip_velocity = 1e-08 m/s is "
                                            r"below 2e-06 m/s"):
        integrator(sm.IsotropicFriction(MU), by_differences)()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        integrator(sm.IsotropicFriction(MU, slip_velocity=1e-3), by_differences)()
        integrator(sm.IsotropicFriction(MU))()


def test_the_default_slip_velocity_holds_the_rod_as_the_discrete_engine_does():
    """The law's default slip velocity, 1e-8 m/s, with the contact's analytic Jacobian blocks
    (dF/dq + dF/dv / h, the discrete engine's): the rod dropped at its contact height rests on
    the ground for 300 steps of 10 ms and stays within 1e-9 m of the discrete engine's (the
    same equations to the Newton tolerance; measured 3.1e-16 m); by finite differences it ran
    200 steps, then failed even at dt / 256."""
    x = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        rod_on_ground(scene, friction=sm.IsotropicFriction(MU))
        scene.add(sm.Gravity((0.0, 0.0, -G)))
        sim = scene.compile(dt=0.01, engine=engine)
        sim.step(300)
        x[engine] = sim.get_state("rod")["positions"]
    assert np.abs(x["unified"] - x["discrete"]).max() < 1e-9
