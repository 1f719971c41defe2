"""sm.SlenderBodyDrag, sm.Buoyancy, sm.QuadraticDrag and sm.AddedMass on the discrete-rod kind of
the unified engine (softmech.terms.der_loads, softmech.terms.fluids; kernels
softmech.kernels.der_loads.der_slender_drag, softmech.kernels.der_fluids and the Cosserat rods'
added-mass projection softmech.kernels.fluids.added_mass; buoyancy and added mass in the packed
mass and body acceleration, softmech.fluid_mass)
against closed forms, the discrete engine (whose slender-body drag kernel,
softmech.kernels.implicit_drag, the kind calls) and the Cosserat rods' quadratic drag (an
independent kernel, softmech.kernels.fluids). Terminal speeds and the turning rate of a free
rod under slender-body drag: tests/validation/test_der_fluids.py, both engines.

Spin drag (softmech.kernels.implicit_drag): each edge's twist is resisted by the couple
-4 pi mu r^2 l theta' of a cylinder turning about its axis in Stokes flow; the edge's twist
inertia is rho l (I1 + I2) = rho l pi r^4 / 2 (softmech.bodies.der_rod), so a uniform twist
rate (no twisting strain: the twist springs see no difference) obeys dw/dt = -k w with
k = 8 mu / (rho r^2), on every edge.
"""
import math

import numpy as np
import pytest

import softmech as sm
from softmech.der_stability import der_time_step_limit
from softmech.implicit.newton import NewtonOptions
from softmech.stability import SAFETY
from softmech.terms.drag import slender_body_coefficients
from softmech.validation.discrete_rods import sinking_der_rod

L, R, RHO, E, N = 0.1, 1e-3, 2000.0, 1e8, 10
MU = 1.0                                    # [Pa s]
K = 8 * MU / (RHO * R**2)                   # spin decay rate [1/s]: 4000
W0 = 3.0                                    # initial twist rate [rad/s]


def rod_scene(mu=MU, clamped=False, gravity=False):
    scene = sm.Scene()
    rod = scene.add_der_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                            n_elems=N, radius=R, density=RHO, youngs_modulus=E,
                            normal=(0, 0, 1))
    scene.add(sm.SlenderBodyDrag(rod, mu, name="drag"))
    if clamped:
        scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    if gravity:
        scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene, rod


def spinning(scheme, dt, worlds=1):
    scene, _ = rod_scene()
    sim = scene.compile(dt=dt, worlds=worlds, engine="unified", scheme=scheme)
    sim.set_state("r", twist_rates=np.full(N, W0))
    return sim


def test_spin_drag_under_implicit_euler_is_the_exact_recurrence():
    """Backward Euler of dw/dt = -k w (module docstring): w_n = w0 / (1 + h k)^n on every edge;
    h k = 0.4 in world 0 and, with its own viscosity (`drag.viscosity` per world, 2 mu), 0.8 in
    world 1. To 1e-12 of w0 (an absolute round-off floor; the residual is linear in the twist
    rates, so the finite-difference Newton reaches round-off in its second iteration); the
    nodes stay at rest (1e-12 m/s)."""
    h, factors = 1e-4, np.array([1.0, 2.0])
    sim = spinning("implicit_euler", h, worlds=2)
    sim.params["drag.viscosity"] = MU * factors
    for n in range(1, 11):
        sim.step(1)
        s = sim.get_state("r")
        w = W0 / (1.0 + h * K * factors[:, None]) ** n                  # (2, 1)
        assert np.abs(s["twist_rates"] - w).max() < 1e-12 * W0, n
        assert np.abs(s["velocities"]).max() < 1e-12, n


def test_spin_drag_under_verlet_is_the_forward_recurrence():
    """Position Verlet kicks with the couple at the step's start rate: w_n = w0 (1 - h k)^n
    exactly, to 1e-12 of w0 (round-off over 50 steps)."""
    h, steps = 2e-5, 50
    sim = spinning("verlet", h)
    sim.step(steps)
    w = sim.get_state("r")["twist_rates"][0]
    np.testing.assert_allclose(w, W0 * (1.0 - h * K) ** steps, rtol=0, atol=1e-12 * W0)


H, EARLY = 2e-3, 10


TIGHT = {"unified": sm.ImplicitOptions(tol=1e-12, max_iterations=25),
         "discrete": NewtonOptions(rtol=1e-13)}
"""Newton tolerances far below the defaults', so that the two engines' states differ by the
model, not by where each Newton stops (at the defaults the unified engine's stops ~1.4e-8 m
from the converged state here: 2.5e-5 of the sag)."""


@pytest.fixture(scope="module")
def sagging():
    """The clamped rod sagging under gravity in the fluid, implicit Euler at H for EARLY steps
    from rest, in both engines (TIGHT)."""
    scene, _ = rod_scene(clamped=True, gravity=True)
    out = {}
    for engine in ("unified", "discrete"):
        sim = scene.compile(dt=H, engine=engine, scheme="implicit_euler", newton=TIGHT[engine])
        x0 = sim.get_state("r")["positions"][0]
        sim.step(EARLY)
        out[engine] = sim.get_state("r")
    return x0, out


def test_sagging_rod_in_a_fluid_agrees_with_the_discrete_engine_while_it_moves(sagging):
    """A clamped rod sinking under gravity, held back by the drag (still moving after 20 ms),
    both engines converged tightly (TIGHT): positions equal within 1e-8 of the largest
    displacement (measured 3e-13 m against a sag of 0.55 mm: 5.8e-10; the finite-difference
    Jacobian only changes the path of Newton's iterations, not the solution), velocities
    within 1e-8 of the largest (measured 4.9e-10)."""
    x0, out = sagging
    a, b = out["unified"], out["discrete"]
    scale = np.abs(b["positions"][0] - x0).max()
    assert scale > 1e-4
    assert np.abs(a["positions"][0] - b["positions"][0]).max() < 1e-8 * scale
    assert np.abs(a["velocities"][0] - b["velocities"][0]).max() < \
        1e-8 * np.abs(b["velocities"][0]).max()


def test_explicit_limit_includes_the_drag():
    """softmech.der_stability with the drag: each node's coefficient is bounded by the row sum
    max(c_t, c_n) l / 2 of each adjacent edge's consistent matrix, each twist's is the spin
    coefficient 4 pi mu r^2 l; at a large viscosity the limits tend to the undamped ones'
    limit 2 m / c: the twists' 2 I / c = rho r^2 / (4 mu) (module docstring), to O(omega I / c)
    (measured -4.2e-5; tolerance 1e-3), below the nodes' (5.0e-6 s against 4.5e-5 s undamped)
    and the compiled check takes SAFETY times the smallest limit."""
    mu = 1e3
    scene, rod = rod_scene(mu=mu)
    c_t, c_n = slender_body_coefficients(mu, L / R, "spheroid")
    l = rod.rest_lengths
    nodes = np.zeros((1, rod.n_nodes))
    for end in (0, 1):
        np.add.at(nodes, (slice(None), rod.edge_nodes[:, end]), 0.5 * max(c_t, c_n) * l)
    spin = 4 * math.pi * mu * R**2 * l[None]
    p = {"youngs_modulus": np.array([E]), "shear_modulus": np.array([rod.shear_modulus])}
    expected = float(der_time_step_limit(rod, p, nodes, None, spin)[0])
    assert abs(expected / (RHO * R**2 / (4 * mu)) - 1) < 1e-3
    assert expected < float(der_time_step_limit(rod, p)[0])
    sim = scene.compile(dt=1e-9, engine="unified", scheme="verlet")
    assert math.isclose(float(sim.time_step_limit()[0]), SAFETY * expected, rel_tol=1e-12)


@pytest.mark.parametrize("engine", [None, "unified"])
def test_buoyant_rod_sinks_at_the_reduced_terminal_speed(engine):
    """sinking_der_rod with sm.Buoyancy (rho_f = 500 of the rod's 2000 kg/m^3): the net weight
    (rho - rho_f) A g L (Archimedes) balances the drag c_n L v, v = (rho - rho_f) A g / c_n, to
    1e-9 (the implicit step's fixed point is the exact balance), in both engines."""
    v, expected = sinking_der_rod(True, engine=engine, fluid_density=500.0)
    np.testing.assert_allclose(v[:, 2], -expected, rtol=1e-9)


# -- quadratic drag (Renda et al. 2018 eq. 11) ----------------------------------------------------
RHO_F, C_N, C_T, G = 500.0, 2.5, 0.01, 9.81


def quadratic_scene(kind, along=False, *, tilt=None, added_mass=None, drag=True):
    """A free straight rod (0.1 m, r = 1 mm, rho = 2000 kg/m^3, 10 edges) across (or along)
    gravity, or tilted by `tilt` [rad] from the horizontal, in a fluid of rho_f = 500 kg/m^3:
    Gravity, Buoyancy and QuadraticDrag(C_n = 2.5, C_t = 0.01) (drag=False: gravity alone), and
    AddedMass(B = added_mass) if given; kind "der" (a discrete rod) or "cosserat"."""
    scene = sm.Scene()
    if tilt is None:
        tilt = math.pi / 2 if along else 0.0
    direction = (math.cos(tilt), 0.0, math.sin(tilt))
    common = dict(start=(0, 0, 0), direction=direction, length=L, n_elems=N, radius=R,
                  density=RHO, youngs_modulus=E)
    if kind == "der":
        rod = scene.add_der_rod(name="r", **common)
    else:
        rod = scene.add_cosserat_rod(name="r", normal=(-math.sin(tilt), 0.0, math.cos(tilt)),
                                     **common)
    scene.add(sm.Gravity((0.0, 0.0, -G)))
    if drag:
        scene.add(sm.Buoyancy(RHO_F))
        scene.add(sm.QuadraticDrag(rod, C_N, C_T, fluid_density=RHO_F))
    if added_mass is not None:
        scene.add(sm.AddedMass(rod, added_mass, fluid_density=RHO_F))
    return scene


@pytest.mark.parametrize("along", [False, True])
def test_quadratic_drag_terminal_speed(along):
    """Net weight (rho - rho_f) pi r^2 g per unit length against Renda's drag rho_f |v| D v:
    across, D = C_n r, v = sqrt((rho - rho_f) pi r g / (rho_f C_n)); along, D = pi/2 C_t r,
    v = sqrt(2 (rho - rho_f) r g / (rho_f C_t)). Implicit Euler's fixed point is the exact
    balance: every node within 1e-9 after the approach (200 steps of 10 ms across: ~10 time
    constants v / g'; along, 400 steps of 20 ms), no sideways motion (1e-9 of v)."""
    g_net = (RHO - RHO_F) / RHO * G
    if along:
        expected, h, steps = math.sqrt(2 * (RHO - RHO_F) * R * G / (RHO_F * C_T)), 2e-2, 400
    else:
        expected, h, steps = math.sqrt((RHO - RHO_F) * math.pi * R * G / (RHO_F * C_N)), 1e-2, 200
    assert steps * h > 10 * expected / g_net
    sim = quadratic_scene("der", along).compile(dt=h, engine="unified")
    sim.step(steps)
    v = sim.get_state("r")["velocities"][0]
    np.testing.assert_allclose(v[:, 2], -expected, rtol=1e-9)
    assert np.abs(v[:, :2]).max() < 1e-9 * expected


@pytest.mark.parametrize("along", [False, True])
def test_quadratic_drag_equals_the_cosserat_rods_while_falling(along):
    """The same rod as a discrete and as a Cosserat rod, falling from rest under Verlet at the
    same dt for 10 ms (5,000 steps): a rigid translation, on which the two models' lumped
    masses and Renda's drag coincide, so the velocities agree to 1e-12 across (measured 2.5e-14)
    and 1e-9 along gravity (measured 3.1e-10: the axial drag compresses the rod, whose two
    models' stretching differ slightly)."""
    out = {}
    for kind, engine in (("der", "unified"), ("cosserat", None)):
        sim = quadratic_scene(kind, along).compile(dt=2e-6, engine=engine, scheme="verlet")
        sim.step(5000)
        out[kind] = sim.get_state("r")["velocities"][0]
    scale = np.abs(out["cosserat"]).max()
    assert scale > 0.05
    assert np.abs(out["der"] - out["cosserat"]).max() < (1e-9 if along else 1e-12) * scale


def test_quadratic_drag_on_a_discrete_rod_is_round_and_unified_only():
    scene = sm.Scene()
    rod = scene.add_der_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                            n_elems=N, radius=R, density=RHO, youngs_modulus=E)
    with pytest.raises(ValueError, match="quadratic_drag.binormal = 1.0 is not allowed on "
                                         "discrete rod 'r': its drag is round"):
        scene.add(sm.QuadraticDrag(rod, 2.5, 0.01, binormal=1.0))
    scene.add(sm.QuadraticDrag(rod, 2.5, 0.01))
    with pytest.raises(ValueError, match="not supported by the discrete engine: compile with "
                                         "engine='unified'"):
        scene.compile(dt=1e-3, engine="discrete")
    sim = scene.compile(dt=1e-3, engine="unified", worlds=2)
    sim.params["quadratic_drag.binormal"] = np.array([2.5, 3.0])
    with pytest.raises(ValueError, match="binormal'] differs from"):
        sim.step(1)


# -- added mass (Renda et al. 2018 eq. 13: B rho_f A per unit length, normal to the axis) --------
B_A = 1.0


@pytest.mark.parametrize("along", [False, True])
def test_added_mass_slows_the_fall_across_the_axis_only(along):
    """A rod falling under gravity alone with added mass: across its axis the node's mass is
    m + m_a, m_a = B rho_f A l, so it falls at g m / (m + m_a) = g rho / (rho + B rho_f) = 0.8 g;
    along its axis the fluid adds nothing: g. Position Verlet integrates a constant acceleration
    exactly (x = a t^2 / 2): every node within 1e-10 of it after 10 ms (measured 3e-12 along:
    the rod's axial springs)."""
    scene = quadratic_scene("der", along, added_mass=B_A, drag=False)
    sim = scene.compile(dt=2e-6, engine="unified", scheme="verlet")
    x0 = sim.get_state("r")["positions"][0]
    sim.step(5000)
    drop = x0[:, 2] - sim.get_state("r")["positions"][0, :, 2]
    expected = G if along else G * RHO / (RHO + B_A * RHO_F)
    np.testing.assert_allclose(2 * drop / 0.01**2, expected, rtol=1e-10)


def test_added_mass_equals_the_cosserat_rods_on_a_tilted_rod():
    """A rod tilted 0.5 rad, falling with buoyancy, quadratic drag and added mass (the force has
    components along and across the axis: the added-mass projection's tangent part), as a
    discrete and as a Cosserat rod, Verlet, 10 ms: velocities equal within 1e-9 of the largest
    (measured 2.8e-10: the two models' stretching under the axial drag, as above)."""
    out = {}
    for kind, engine in (("der", "unified"), ("cosserat", None)):
        sim = quadratic_scene(kind, tilt=0.5, added_mass=B_A).compile(dt=2e-6, engine=engine,
                                                                      scheme="verlet")
        sim.step(5000)
        out[kind] = sim.get_state("r")["velocities"][0]
    scale = np.abs(out["cosserat"]).max()
    assert scale > 0.05
    assert np.abs(out["der"] - out["cosserat"]).max() < 1e-9 * scale


def test_added_mass_under_implicit_euler_keeps_the_terminal_speed():
    """Added mass is inertia: it changes how the rod reaches its terminal speed, not the speed
    (test_quadratic_drag_terminal_speed's, across, to 1e-9), and implicit Euler's Newton with
    the projection in its force pass converges to it."""
    sim = quadratic_scene("der", added_mass=B_A).compile(dt=1e-2, engine="unified")
    sim.step(200)
    v = sim.get_state("r")["velocities"][0]
    expected = math.sqrt((RHO - RHO_F) * math.pi * R * G / (RHO_F * C_N))
    np.testing.assert_allclose(v[:, 2], -expected, rtol=1e-9)


def test_added_mass_on_a_discrete_rod_needs_a_chain_and_the_unified_engine():
    scene = sm.Scene()
    ring = scene.add_der_rod(name="ring", centerline=np.array(
        [[0, 0, 0], [0.1, 0, 0], [0.1, 0.1, 0], [0, 0.1, 0]]), edges=[(0, 1), (1, 2), (2, 3),
                                                                      (3, 0)],
        radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.AddedMass(ring))
    with pytest.raises(ValueError, match="added_mass.body = 'ring' is not allowed: added mass "
                                         "needs a discrete rod that is one open chain"):
        scene.compile(dt=1e-3, engine="unified")
    with pytest.raises(ValueError, match="not supported by the discrete engine"):
        scene.compile(dt=1e-3, engine="discrete")


def test_mixed_fluid_scene_round_trips_through_a_scenario_file(tmp_path):
    """A discrete and a Cosserat rod with every fluid term on both (per-world parameters of the
    discrete rod's terms set), written to a scenario file and read back: the file's scene
    compiles to the unified engine and runs bit for bit as the original."""
    from softmech.scenefile import load_scenario, save_scenario
    from softmech.scenefile.schema import RunSettings, Scenario

    scene = sm.Scene()
    der = scene.add_der_rod(name="d", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                            n_elems=N, radius=R, density=RHO, youngs_modulus=E)
    cos = scene.add_cosserat_rod(name="c", start=(0, 0.05, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=L, n_elems=N, radius=R, density=RHO,
                                 youngs_modulus=E)
    scene.add(sm.Gravity((0.0, 0.0, -G)))
    scene.add(sm.Buoyancy(RHO_F))
    scene.add(sm.SlenderBodyDrag(der, 0.5, name="stokes"))
    for rod in (der, cos):
        scene.add(sm.QuadraticDrag(rod, C_N, C_T, fluid_density=RHO_F, name=f"{rod.name}_drag"))
        scene.add(sm.AddedMass(rod, B_A, fluid_density=RHO_F, name=f"{rod.name}_added"))
    original = Scenario(scene=scene, run=RunSettings(dt=2e-6, duration=1e-3, worlds=2,
                                                     scheme="verlet"), name="mixed_fluid")
    loaded = load_scenario(save_scenario(original, tmp_path / "mixed_fluid.toml")[0])
    states = []
    for scenario in (original, loaded):
        sim = scenario.compile()
        sim.params["stokes.viscosity"] = np.array([0.5, 2.0])
        sim.params["d_drag.normal"] = np.array([2.5, 1.5])
        sim.params["d_drag.binormal"] = np.array([2.5, 1.5])
        sim.step(200)
        states.append((sim.get_state("d"), sim.get_state("c")))
    for a, b in zip(*states):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    assert not np.array_equal(states[0][0]["velocities"][0], states[0][0]["velocities"][1])
