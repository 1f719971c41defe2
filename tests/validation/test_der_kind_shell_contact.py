"""Contact of hinge shells on the unified engine's discrete kind: sm.GroundContact (the discrete
engine's smooth penalty with regularized Coulomb friction, MAT-DiSMech ref. 004 eqs. 23, 25-26;
softmech.terms.der_ground) and sm.EdgeContact (IMC's edge-edge penalty, ref. 004 sec. 4;
softmech.terms.der_edge_contact) on a shell's nodes and edges, as on a discrete rod's. Checked
against statics (the ground carries the weight), Amontons-Coulomb (a sliding plate decelerates
at mu g) and the discrete engine, which steps the same model with analytic Jacobians."""
import numpy as np
import pytest

import softmech as sm
from softmech.implicit.newton import NewtonOptions

from test_der_kind_shells import H, LX, LY, RHO, TIGHT, plate

G, K, MU = 9.81, 100.0, 0.3
DELTA = H / 2                       # a shell touches the ground at half its thickness
SHARPNESS = 15.0 / DELTA            # GroundContact's default K = 15 / distance [1/m]
FRICTION = sm.IsotropicFriction(MU, slip_velocity=1e-3)


def plate_on_ground(engine, *, dt, friction=FRICTION, newton=None, lift=0.003):
    """The 0.1 x 0.03 m plate (1 mm, E = 1e7 Pa) flat `lift` above its contact height, under
    gravity, with a ground contact of k = 100 N/m per node."""
    scene = sm.Scene()
    shell = plate(scene)
    scene.add(sm.GroundContact(shell, stiffness=K, distance=DELTA, friction=friction,
                               name="ground"))
    scene.add(sm.Gravity((0.0, 0.0, -G)))
    sim = scene.compile(dt=dt, engine=engine, newton=newton)
    sim.set_state("plate", positions=shell.vertices + [0.0, 0.0, DELTA + lift])
    return shell, sim


def test_a_frictionless_plate_dropped_on_the_ground_moves_as_in_the_discrete_engine():
    """100 implicit Euler steps of 1 ms: the plate falls 3 mm, lands and bounces on the
    penalty; every node equal to the discrete engine's within 1e-10 m (measured 2026-12-01:
    9.4e-16 m; the same kernel, node masses and backward Euler equations, tight Newton
    tolerances so that the engines differ by the model only)."""
    final = {}
    for engine in ("unified", "discrete"):
        _, sim = plate_on_ground(engine, dt=1e-3, friction=None, newton=TIGHT[engine])
        sim.step(100)
        final[engine] = sim.get_state("plate")["positions"][0]
    assert final["discrete"][:, 2].max() < DELTA + 1e-3          # it landed
    assert np.abs(final["unified"] - final["discrete"]).max() < 1e-10


@pytest.fixture(scope="module")
def at_rest():
    """(shell, {engine: state}) of the plate dropped onto the ground with kinetic friction
    mu = 0.3, 100 implicit Euler steps of 10 ms (1 s) in each engine, default Newton
    options."""
    states = {}
    for engine in ("unified", "discrete"):
        shell, sim = plate_on_ground(engine, dt=1e-2)
        sim.step(100)
        states[engine] = sim.get_state("plate")
    return shell, states


def test_a_plate_at_rest_on_the_ground_carries_its_weight(at_rest):
    """At rest the stretching and bending forces are internal, so the ground's normal forces
    sum to the weight: sum_i F_n,i = rho h A g, with F_n = 2 k s sigma, s = log(1 + e^z) / K,
    sigma = 1 / (1 + e^-z), z = K (delta - z_i) (IMC's smooth penalty, Tong et al. 2023; ref.
    004 eq. 25) evaluated from the node heights. Tolerance 1e-6 relative, the discrete rod's
    (test_der_kind_ground.py): a Newton correction below tol l / h leaves a force imbalance
    far below it (measured 2026-12-01: 1.1e-16). No node moves (1e-10 m/s; measured 1.4e-15)."""
    shell, states = at_rest
    state = states["unified"]
    assert np.abs(state["velocities"]).max() < 1e-10
    z = SHARPNESS * (DELTA - state["positions"][0, :, 2])
    s, sigma = np.logaddexp(0.0, z) / SHARPNESS, 1.0 / (1.0 + np.exp(-z))
    weight = RHO * H * LX * LY * G
    assert abs((2.0 * K * s * sigma).sum() / weight - 1.0) < 1e-6


def test_the_rest_state_equals_the_discrete_engines(at_rest):
    """The same drop in the discrete engine comes to the same rest within 1e-8 m (measured
    2026-12-01: 1.3e-13 m; 2026-12-04: 5.9e-13 m)."""
    _, states = at_rest
    assert np.abs(states["unified"]["positions"] - states["discrete"]["positions"]).max() < 1e-8


def test_the_drop_follows_the_discrete_engines_path():
    """Step by step the two engines solve the same implicit Euler equations, so they stay
    within the Newton tolerance of each other all the way (1e-8 m; measured 9.2e-11 m, no step
    halved). Before the shells' analytic Jacobians on the unified engine (2026-12-04) they
    parted by up to 4e-5 m: at first contact its finite-difference Newton matrix of the stiff
    stretching springs, beside the friction's regularization (a damper of mu F_n K_f / 2
    ~ 0.3 N s/m per node at rest), made it halve one step that the discrete engine took
    whole."""
    sims = {engine: plate_on_ground(engine, dt=1e-2)[1] for engine in ("unified", "discrete")}
    apart = 0.0
    for _ in range(100):
        x = {}
        for engine, sim in sims.items():
            sim.step(1)
            x[engine] = sim.get_state("plate")["positions"]
        apart = max(apart, np.abs(x["unified"] - x["discrete"]).max())
    assert apart < 1e-8
    assert sims["unified"].implicit_integrator().stats["halvings"] == 0


def test_a_sliding_plate_decelerates_at_mu_g(at_rest):
    """The plate at rest, given 0.5 m/s along x (and 0.2 m/s along y), slides for 0.1 s under
    kinetic friction: its centre of mass decelerates at mu g along its velocity (Amontons-
    Coulomb: the friction on each node is mu F_n,i along -u, and the F_n,i sum to the weight;
    e.g. Meriam & Kraige, Engineering Mechanics: Dynamics, sec. 3/4). Least-squares slope of
    the mass-weighted mean velocity over steps of 1 ms, where every node slips at > 0.1 m/s,
    100 slip velocities (gamma(|u|) = 1 to 1e-650): implicit Euler's velocity update is exact
    for a constant force. Tolerance 1e-4 relative, the discrete rod's incline case's (measured
    2026-12-01: 1.0e-13)."""
    shell, states = at_rest
    scene = sm.Scene()
    plate(scene)
    scene.add(sm.GroundContact("plate", stiffness=K, distance=DELTA, friction=FRICTION,
                               name="ground"))
    scene.add(sm.Gravity((0.0, 0.0, -G)))
    sim = scene.compile(dt=1e-3, engine="unified")
    direction = np.array([0.5, 0.2, 0.0])
    sim.set_state("plate", positions=states["unified"]["positions"][0],
                  velocities=np.tile(direction, (len(shell.vertices), 1)))
    mass = shell.density * shell.thickness * shell.node_areas()
    t, v = [], []
    for _ in range(100):
        sim.step(1)
        t.append(sim.time)
        v.append(mass @ sim.get_state("plate")["velocities"][0] / mass.sum())
    t, v = np.array(t), np.array(v)
    unit = direction / np.linalg.norm(direction)
    along = v @ unit
    assert along.min() > 0.1
    slope = np.polyfit(t[10:], along[10:], 1)[0]
    assert abs(slope / (-MU * G) - 1.0) < 1e-4, slope
    # no sideways force: the velocity keeps its direction
    assert np.abs(v[:, :2] - np.outer(along, unit[:2])).max() < 1e-6 * along.max()


def rod_on_plate(engine, friction=None):
    """A discrete rod (r = 1 mm) lying diagonally 1 mm above the plate, which is held by
    every node (sm.FixNodes), both under gravity; sm.EdgeContact between the rod's and the
    plate's edges at distance r + h / 2."""
    scene = sm.Scene()
    shell = plate(scene)
    scene.add(sm.FixNodes(shell, nodes=np.arange(len(shell.vertices)), name="hold"))
    radius = 1e-3
    gap = radius + DELTA
    rod = scene.add_der_rod(name="rod", start=(0.01, 0.005, gap + 1e-3),
                            direction=(0.08, 0.02, 0.0), length=np.hypot(0.08, 0.02),
                            n_elems=8, radius=radius, density=RHO, youngs_modulus=1e8)
    scene.add(sm.EdgeContact([rod, shell], stiffness=10.0, distance=gap, friction=friction,
                             name="touch"))
    scene.add(sm.Gravity((0.0, 0.0, -G)))
    return scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine]), gap


def test_a_rod_falling_onto_a_shell_moves_as_in_the_discrete_engine():
    """The rod falls 1 mm onto the held plate and lands on its edges (100 steps of 1 ms): the
    rod's nodes equal to the discrete engine's within 1e-10 m (measured 2026-12-01: 9.2e-13 m;
    the same pair kernel, its edges numbered by the kind's node slots), carried at the contact
    distance from the plate's plane within five widths of the smooth penalty, 5 / K (measured
    +0.96e-4 to +1.07e-4 m against 3.3e-4: several edge pairs share the weight, each in the
    penalty's tail), its fall stopped (vertical speed < 1 mm/s against the 0.14 m/s it lands
    with; without friction it keeps sliding over the mesh's edges in the plane)."""
    final = {}
    for engine in ("unified", "discrete"):
        sim, gap = rod_on_plate(engine)
        sim.step(100)
        final[engine] = sim.get_state("rod")
    x = final["unified"]["positions"][0]
    difference = np.abs(x - final["discrete"]["positions"][0]).max()
    assert difference < 1e-10, difference
    assert np.abs(final["unified"]["velocities"][0][:, 2]).max() < 1e-3
    assert np.all(np.abs(x[:, 2] - gap) < 5.0 * gap / 15.0), x[:, 2] - gap


def test_contact_on_a_mid_edge_shell_equals_the_discrete_engines():
    """A mid-edge plate (softmech.kernels.der_shell_midedge) dropped onto the ground without
    friction, 100 implicit Euler steps of 1 ms: nodes and angles equal to the discrete engine's
    within 1e-10 m and 1e-9 (measured 2026-12-01: 2.2e-15 m and 2.1e-13)."""
    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        shell = plate(scene, bending="midedge")
        scene.add(sm.GroundContact(shell, stiffness=K, distance=DELTA, name="ground"))
        scene.add(sm.Gravity((0.0, 0.0, -G)))
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.set_state("plate", positions=shell.vertices + [0.0, 0.0, DELTA + 0.003])
        sim.step(100)
        final[engine] = sim.get_state("plate")
    x = np.abs(final["unified"]["positions"] - final["discrete"]["positions"]).max()
    xi = np.abs(final["unified"]["angles"] - final["discrete"]["angles"]).max()
    assert x < 1e-10 and xi < 1e-9, (x, xi)


def test_newton_options_of_the_discrete_engine_are_kept_apart():
    """The unified engine's options for the kind are sm.ImplicitOptions: a NewtonOptions of the
    discrete engine is refused with a message naming the field."""
    scene = sm.Scene()
    plate(scene)
    with pytest.raises(ValueError, match="newton"):
        scene.compile(dt=1e-3, engine="unified", newton=NewtonOptions())
