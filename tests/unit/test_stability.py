"""The explicit time-step estimate (softmech.stability) is safe and not far off: a run at the
estimate is stable, a run at 3x the estimate diverges (measured critical ratios 1.5-2.2, listed in
stability.py), with and without Kelvin-Voigt viscosity, for open and closed rods."""
import warnings

import numpy as np
import pytest

import softmech as sm


def free_rod(kv=0.0):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=1.0, n_elems=30, radius=0.025, density=1000.0,
                                 youngs_modulus=1e7)
    scene.add(sm.Gravity())
    if kv:
        scene.add(sm.KelvinVoigt(rod, kv))
    return scene


def cantilever(kv=0.0):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                                 length=3.0, n_elems=40, radius=0.25, density=5000.0,
                                 youngs_modulus=1e6, shear_modulus=1e4)
    scene.add(sm.Clamp(rod))
    scene.add(sm.EndLoad(rod, force=(0, -15, 0), ramp_time=0.1, name="tip"))
    if kv:
        scene.add(sm.KelvinVoigt(rod, kv))
    return scene


def ring():
    scene = sm.Scene()
    scene.add_cosserat_ring(name="ring", ring_radius=1.0, n_elems=40, radius=0.01, density=1000.0,
                            youngs_modulus=1e6)
    return scene


SCENES = {"free_rod": free_rod, "free_rod_kv": lambda: free_rod(1e-4), "cantilever": cantilever,
          "cantilever_kv": lambda: cantilever(1e-2), "ring": ring}


def run_at(scene, factor):
    limit = scene.time_step_limit()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sim = scene.compile(dt=factor * limit)
    x = sim.get_state()["positions"]
    sim.set_state(velocities=1e-6 * np.random.default_rng(1).standard_normal(x.shape[1:]))
    sim.step(4000)
    return sim


@pytest.mark.parametrize("name", SCENES)
def test_estimate_is_stable(name):
    sim = run_at(SCENES[name](), 1.0)
    assert np.all(np.isfinite(sim.get_state()["positions"]))


@pytest.mark.parametrize("name", SCENES)
def test_three_times_the_estimate_diverges(name):
    with pytest.raises(sm.SimulationDiverged, match="Suggested time step"):
        run_at(SCENES[name](), 3.0)


def test_kelvin_voigt_lowers_the_limit():
    assert cantilever(1e-2).compile(dt=1e-5).time_step_limit()[0] < \
        0.5 * cantilever().compile(dt=1e-5).time_step_limit()[0]


def test_changing_parameters_rechecks_the_time_step():
    sim = free_rod().compile(dt=5e-5)
    sim.step(1)
    sim.params["rod.youngs_modulus"] = np.full((1, 30), 1e9)  # 100x stiffer: limit drops 10x
    with pytest.warns(RuntimeWarning, match="stability limit"):
        sim.step(1)


@pytest.mark.parametrize("name", SCENES)
def test_the_scene_knows_its_limit_before_compiling(name):
    # Scene.time_step_limit() (issue 30: no probe compile by hand) is the compiled simulation's
    # estimate, whatever dt that simulation was compiled with
    scene = SCENES[name]()
    sim = scene.compile(dt=1e-7, worlds=2)
    np.testing.assert_array_equal(scene.time_step_limit(worlds=2), sim.time_step_limit())


def damped_bar(zeta):
    """A box (m = 1 kg, 0.4 x 0.02 x 0.02 m, smallest moment of inertia I = 6.7e-5 kg m^2) on a
    fixed joint to a fixed sphere (k = 1e3 N/m, k_r = 1 N m/rad) whose rotational dashpot
    gives its lightest mode the damping ratio zeta, spinning about all three axes."""
    inertia = 2 * 0.02**2 / 12
    scene = sm.Scene()
    scene.add_sphere(name="pivot", position=(0, 0, 0), radius=0.05, density=1000.0, fixed=True)
    scene.add_box(name="bar", position=(0, 0, 0), lengths=(0.4, 0.02, 0.02), mass=1.0,
                  angular_velocity=(1.0, 0.5, 0.3))
    scene.add(sm.FixedJoint("pivot", "bar", stiffness=1e3, rotational_stiffness=1.0,
                            rotational_damping=2 * zeta * np.sqrt(inertia)))
    return scene


def stays_bounded(scene, dt, body, field, steps=3000):
    """Whether `steps` steps of dt [s] neither diverge nor take the body's `field`
    (velocities [m/s], angular_velocities [rad/s]) beyond 10."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sim = scene.compile(dt=dt)
    try:
        sim.step(steps)
    except sm.SimulationDiverged:
        return False
    return bool(np.abs(sim.get_state(body)[field]).max() < 10.0)


@pytest.mark.parametrize("zeta", [0.0, 1.0, 10.0])
def test_a_joints_dashpot_lowers_its_limit_as_the_damped_oscillators(zeta):
    """A joint's spring k_r and dashpot c_r on a body of inertia I: the explicit step is stable
    for dt < (2 / w) (sqrt(1 + zeta^2) - zeta), w = sqrt(k_r / I), zeta = c_r / (2 sqrt(k_r I))
    (Belytschko, Liu & Moran eq. 6.3.29), and the estimate is half of it (the stiff terms'
    convention, softmech.stability.spring_time_step): stable at 1.9x the estimate, divergent
    at 2.1x (measured by bisection: 2.000-2.001x at zeta 0 to 10). The estimate of before, the
    undamped sqrt(I / k_r), was 10x the stable step at zeta = 10."""
    scene = damped_bar(zeta)
    estimate = scene.time_step_limit()[0]
    inertia = 2 * 0.02**2 / 12
    expected = np.sqrt(inertia) * (np.sqrt(1 + zeta**2) - zeta)
    assert estimate == pytest.approx(expected, rel=1e-12)
    spins = "bar", "angular_velocities"
    assert stays_bounded(damped_bar(zeta), 1.9 * estimate, *spins)
    assert not stays_bounded(damped_bar(zeta), 2.1 * estimate, *spins)


def test_spring_time_step_by_hand():
    """sqrt(m / k) undamped; x (sqrt(2) - 1) at critical damping; -> m / c for a strong dashpot
    on a free end; the end's own stiffness K lowers the mode's damping ratio, c / (2 sqrt((k +
    K) m))."""
    from softmech.stability import spring_time_step
    m, k = 2e-3, 50.0
    assert spring_time_step(m, k) == pytest.approx(np.sqrt(m / k), rel=1e-14)
    critical = 2 * np.sqrt(k * m)
    assert spring_time_step(m, k, critical) == pytest.approx(np.sqrt(m / k) * (np.sqrt(2) - 1))
    assert spring_time_step(m, k, 1e3 * critical) == pytest.approx(m / (1e3 * critical), rel=1e-5)
    zeta = critical / (2 * np.sqrt((k + 3 * k) * m))                   # 1/2
    assert spring_time_step(m, k, critical, own_stiffness=3 * k) == pytest.approx(
        np.sqrt(m / k) * (np.sqrt(1 + zeta**2) - zeta))


def test_the_limit_reads_the_scaled_rotary_inertia_whatever_the_terms_order():
    """A rod's end element on a damped fixed joint: RotaryInertiaScaling added after the joint
    gives the same estimate as added before it (the scaling contributes first: the joint's
    limit reads the scaled inertia; before 2026-12-04 it read the unscaled one when added
    later, the elbow's order)."""
    def scene(scaling_first):
        s = sm.Scene()
        s.add_sphere(name="pivot", position=(0, 0, 0), radius=0.01, density=1000.0, fixed=True)
        rod = s.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=0.1, n_elems=10, radius=0.002,
                                 density=1000.0, youngs_modulus=1e6)
        terms = [sm.RotaryInertiaScaling(rod, 100.0),
                 sm.FixedJoint(("pivot", "attach"), (rod, "first"), stiffness=1e3,
                               rotational_stiffness=1e-2, rotational_damping=1e-3)]
        for term in terms if scaling_first else terms[::-1]:
            s.add(term)
        return s

    assert scene(False).time_step_limit()[0] == scene(True).time_step_limit()[0]


def ball_on_ground(zeta, k=1e4, m=1.0):
    """A rigid ball (1 kg) landing at 0.1 m/s on the ground's penalty (k = 1e4 N/m) whose
    dashpot gives the contact the damping ratio zeta."""
    scene = sm.Scene()
    scene.add_sphere(name="ball", position=(0, 0, 0.05 - 1e-3), radius=0.05, mass=m,
                     velocity=(0, 0, -0.1))
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact("ball", stiffness=k, damping=zeta * 2 * np.sqrt(k * m),
                               friction=sm.IsotropicFriction(0.0, slip_velocity=1e-4)))
    return scene


def test_a_contacts_dashpot_lowers_its_limit():
    """The ground's penalty on a rigid ball with a dashpot of damping ratio 10: the estimate is
    sqrt(m / k) (sqrt(1 + zeta^2) - zeta) (spring_time_step; the undamped sqrt(m / k) of
    before: 20x larger); the ball lands at it and diverges at 4x it (measured by bisection:
    the one-sided contact diverges at 1.99x, 2.51x and 2.77x the estimate at zeta 0, 1, 10)."""
    estimate = ball_on_ground(10.0).time_step_limit()[0]
    assert estimate == pytest.approx(0.01 * (np.sqrt(101.0) - 10.0), rel=1e-12)
    falls = "ball", "velocities"
    assert stays_bounded(ball_on_ground(10.0), estimate, *falls, steps=4000)
    assert not stays_bounded(ball_on_ground(10.0), 4.0 * estimate, *falls, steps=4000)


def damped_thin_rod(rotational_coefficient):
    """A free rod (1 m, 20 elements, r = 5 mm, rho 1000 kg/m^3, E 10 MPa) under LinearDamping
    with gamma = 5 kg/(m s) and the given rotational coefficient gamma_r [kg m/s] (the ME498
    snake's convention: gamma_r = gamma numerically)."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=1.0, n_elems=20, radius=0.005,
                                 density=1000.0, youngs_modulus=1e7)
    scene.add(sm.LinearDamping(rod, 5.0, rotational_coefficient=rotational_coefficient))
    return scene


def test_a_rods_rotational_dashpot_lowers_its_limit():
    """A linear damping's couple -gamma_r l w on an element of inertia J = rho (pi r^4 / 4) l:
    an explicit step of dw/dt = -(gamma_r l / J) w is stable for dt < 2 J / (gamma_r l) =
    rho pi r^4 / (2 gamma_r) (the amplification 1 - dt c / J, whatever the scheme's order),
    2.0e-7 s here, far below the elastic modes' limit (~4e-5 s); the estimate is 0.9 of it
    (softmech.stability.SAFETY, the rods' factor). Stable at the estimate, divergent at 1.2x
    the bound (measured: stable at 0.99x, divergent at 1.01x). Before, the estimate ignored the dashpot: a linearly tapered ME498 snake
    (tail 0.65 r) diverged in its first 50 ms at 25 us, under the estimate of 85 us."""
    bound = 1000.0 * np.pi * 0.005**4 / (2 * 5.0)
    estimate = damped_thin_rod(5.0).time_step_limit()[0]
    assert estimate == pytest.approx(0.9 * bound, rel=1e-12)
    # the default rotational coefficient (mass-proportional, gamma I / A) leaves the limit
    assert damped_thin_rod(None).time_step_limit()[0] > 100 * bound
    assert spins_down(estimate)
    assert not spins_down(1.2 * bound)


def spins_down(dt, steps=2000):
    """Whether damped_thin_rod(5.0), its elements started at 1 rad/s about random axes, runs
    `steps` steps of dt [s] without diverging, its angular velocities then below 1 rad/s."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sim = damped_thin_rod(5.0).compile(dt=dt)
    w = np.random.default_rng(4).standard_normal((20, 3))
    sim.set_state(angular_velocities=w / np.linalg.norm(w, axis=1, keepdims=True))
    try:
        sim.step(steps)
    except sm.SimulationDiverged:
        return False
    return bool(np.abs(sim.get_state()["angular_velocities"]).max() < 1.0)


def viscous_muscle(zeta):
    """A free muscle rod (0.2 m, 8 elements, rho 1060 kg/m^3, E 2e4 Pa) at activation 0.5
    with strain-rate damping zeta [Pa s] (the elbow's fibres' Hill-fitted 1.43e5)."""
    from softmech.terms.active_muscle import ActiveMuscle
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="m", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=0.2, n_elems=8, radius=0.002,
                                 density=1060.0, youngs_modulus=2e4)
    scene.add(ActiveMuscle(rod, 4e5, activation=0.5, damping=zeta, incompressible=False))
    return scene


def test_a_muscles_strain_rate_damping_lowers_the_limit():
    """The muscle's viscous tension A zeta deta/dt on an element of length l: heavily damped,
    its stretch mode needs dt < rho l^2 / (2 zeta) whatever its stiffness (2.3 us here; the
    rod's own limit, which the estimate gave before, 436 us); the estimate is 0.9 of it (the
    rods' SAFETY), and a run diverges at 1.28x the estimate (bisection, zeta 1e4 and 1.43e5;
    1.16x at 1e3): stable at it, divergent at 1.6x."""
    zeta = 1.43e5
    estimate = viscous_muscle(zeta).time_step_limit()[0]
    assert estimate == pytest.approx(0.9 * 1060.0 * 0.025**2 / (2 * zeta), rel=0.01)
    scene = viscous_muscle(zeta)
    assert np.all(np.isfinite(run_at(scene, 1.0).get_state()["positions"]))
    with pytest.raises(sm.SimulationDiverged):
        run_at(viscous_muscle(zeta), 1.6)


def stretched_spring_muscle(with_muscle=True):
    """A free rod (0.2 m, 8 elements, rho 1060 kg/m^3, E 2e4 Pa) that is an ActiveMuscle with a
    linear passive curve f_p = 200 eps and no activation (a spring of modulus 200 x 1e5 Pa in
    tension), every element stretched to eta = 1.2 at the start."""
    from softmech.terms.active_muscle import ActiveMuscle
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="m", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=0.2, n_elems=8, radius=0.002,
                                 density=1060.0, youngs_modulus=2e4)
    if with_muscle:
        scene.add(ActiveMuscle(rod, 1e5, activation=0.0, active_coefficients=(1.0,),
                               passive_coefficients=(0.0, 200.0), incompressible=False))
    return scene


def stretched_run(dt, steps=4000):
    """Whether `steps` steps of dt from the stretched start stay finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        sim = stretched_spring_muscle().compile(dt=dt)
    sim.set_state(positions=1.2 * sim.get_state()["positions"][0])
    try:
        sim.step(steps)
    except sm.SimulationDiverged:
        return False
    return bool(np.all(np.isfinite(sim.get_state()["positions"])))


def test_a_muscles_force_length_slope_lowers_the_limit():
    """The tension's stiffness dT/d eta = A^ sigma_max (a f_a + f_p)' adds to the rod's E A on
    the stretch mode: dt < 0.9 l sqrt(rho / (E + 200 sigma_max)) (stretch mode omega^2 =
    4 E A / (rho A l^2), the rods' SAFETY 0.9), 2.7x below the rod's own limit here (its
    rotation). A run from the stretched start is stable at the estimate and diverges at 3x it
    and at the rod's own limit, which the estimate gave before (bisection: at 1.114x the
    estimate, the undamped bound 2 / omega over the SAFETY 0.9)."""
    estimate = stretched_spring_muscle().time_step_limit()[0]
    assert estimate == pytest.approx(0.9 * 0.025 * np.sqrt(1060.0 / (2e4 + 200 * 1e5)),
                                     rel=1e-9)
    own = stretched_spring_muscle(with_muscle=False).time_step_limit()[0]
    assert own > 2.5 * estimate
    assert stretched_run(estimate)
    assert not stretched_run(3.0 * estimate)
    assert not stretched_run(own)


def test_the_slope_of_the_force_length_curves():
    """stiffness_slope: the largest of d/d eta [eta^-p (a f_a + f_p)] over the active range
    and a in {0, a_max}, by hand for polynomials: f_a = 2 eta - 1 on (0.5, inf) (capped at
    eta = 2), f_p = 3 eps; incompressible=False: a_max 2 + 3 = 5 at a_max = 1, 0.4 2 + 3 =
    3.8 with a table reaching 0.4; a constant force (the walker's) 0."""
    from softmech.terms.active_muscle import ActiveMuscle
    m = ActiveMuscle("r", 1.0, active_coefficients=(-1.0, 2.0), passive_coefficients=(0, 3.0),
                     incompressible=False)
    assert m.stiffness_slope() == pytest.approx(5.0, rel=1e-9)
    m = ActiveMuscle("r", 1.0, activation=[0.0, 0.4], times=[0.0, 1.0],
                     active_coefficients=(-1.0, 2.0), passive_coefficients=(0, 3.0),
                     incompressible=False)
    assert m.stiffness_slope() == pytest.approx(3.8, rel=1e-9)
    assert ActiveMuscle.walker("r", 1e3, frequency=2.0).stiffness_slope() == 0.0
