"""The implicit integrator (softmech.implicit) on a test-only body of point masses and linear
springs (tests/unit/implicit_fixture.py), where implicit Euler and equilibria have closed forms."""
import numpy as np
import pytest

import softmech as sm
from softmech.implicit import linear
from softmech.implicit.newton import NewtonOptions
from softmech.simulation import SimulationDiverged
from softmech.validation.der import cantilever

from implicit_fixture import SpringChain


def chain_scene(n=6, spacing=0.1, mass=0.1, stiffness=100.0, gravity=True):
    """A vertical chain hanging from node 0 (fixed)."""
    scene = sm.Scene()
    pos = np.zeros((n, 3))
    pos[:, 2] = -spacing * np.arange(n)
    scene.implicit_bodies.append(SpringChain("chain", pos, mass, stiffness))
    if gravity:
        scene.add(sm.Gravity())
    scene.add(sm.FixNodes("chain", [0]))
    return scene


def test_one_spring_follows_the_implicit_euler_recurrence():
    # One free mass m on a spring k along z, released with speed v0. Implicit Euler (ref. 004
    # eqs. 4-5) for m x'' = -k (x - x*) gives the linear recurrence
    #   x_{n+1} = (m/h^2 (x_n + h v_n) + k x*) / (m/h^2 + k),  v_{n+1} = (x_{n+1} - x_n)/h.
    m, k, h, v0 = 0.2, 50.0, 0.01, 0.3
    sim = chain_scene(n=2, mass=m, stiffness=k, gravity=False).compile(dt=h)
    sim.set_state("chain", velocities=np.array([[0, 0, 0], [0, 0, v0]]))
    out = sim.run(0.2, record=sm.Every(h, ("positions",)))
    z = out["chain.positions"][0, :, 1, 2]
    rest = -0.1
    x, v, expected = rest, v0, [rest]
    for _ in range(20):
        x_new = (m / h**2 * (x + h * v) + k * rest) / (m / h**2 + k)
        x, v = x_new, (x_new - x) / h
        expected.append(x)
    np.testing.assert_allclose(z, expected, rtol=0, atol=1e-12)


def test_static_hanging_chain_stretches_by_the_weight_below_each_spring():
    # Spring i (from the top) carries the weight of the n-1-i masses below it: its extension is
    # (n-1-i) m g / k exactly (linear springs). The straight chain has no lateral stiffness at
    # rest length, so Newton's first matrix is singular and the pseudo-transient fallback runs.
    n, m, k = 6, 0.1, 100.0
    sim = chain_scene(n=n, mass=m, stiffness=k).compile(dt=1e-2)
    sim.solve_static()
    z = sim.get_state("chain")["positions"][0, :, 2]
    extension = -np.diff(z) - 0.1
    np.testing.assert_allclose(extension, (n - 1 - np.arange(n - 1)) * m * 9.81 / k,
                               rtol=1e-10)
    assert np.all(sim.get_state("chain")["velocities"] == 0)


def swing(sim):
    sim.set_state("chain", velocities=np.array([1.0, 0.0, 0.5]))
    return sim.run(0.3, record=sm.Every(0.05, ("positions", "com")))


def test_banded_and_sparse_solves_agree(monkeypatch):
    banded = chain_scene().compile(dt=5e-3)
    assert banded.stepper.pattern.kind == "banded"
    a = swing(banded)
    monkeypatch.setattr(linear, "BANDED_MAX", -1)
    sparse = chain_scene().compile(dt=5e-3)
    assert sparse.stepper.pattern.kind == "sparse"
    b = swing(sparse)
    np.testing.assert_allclose(a["chain.positions"], b["chain.positions"], rtol=0, atol=1e-12)


def test_batched_worlds_equal_single_runs_bit_for_bit():
    stiff = [60.0, 100.0, 250.0]
    batched = chain_scene().compile(worlds=3, dt=5e-3)
    batched.params["chain.stiffness"] = stiff
    out = swing(batched)
    for b, k in enumerate(stiff):
        single = chain_scene(stiffness=k).compile(dt=5e-3)
        np.testing.assert_array_equal(swing(single)["chain.positions"][0],
                                      out["chain.positions"][b])


def test_a_failing_step_is_halved_and_an_impossible_one_stops_with_the_state_kept():
    # One Newton iteration cannot converge a nonlinear swing from the predictor: halving the
    # step makes it closer to linear, until one iteration suffices or the halvings run out.
    opts = NewtonOptions(max_iterations=1, max_halvings=12, rtol=1e-3)
    sim = chain_scene().compile(dt=2e-2, newton=opts)
    swing(sim)
    assert sim.newton_stats.halvings > 0
    assert np.all(np.isfinite(sim.get_state("chain")["positions"]))
    stuck = chain_scene().compile(dt=2e-2, newton=NewtonOptions(max_iterations=1, max_halvings=0,
                                                                 rtol=1e-12, xtol=0.0))
    stuck.set_state("chain", velocities=np.array([1.0, 0.0, 0.5]))
    before = stuck.get_state("chain")["positions"]
    with pytest.raises(SimulationDiverged, match=r"t = 0 s failed in world 0.*smaller dt") as err:
        stuck.run(0.1)
    assert err.value.time == 0.0
    np.testing.assert_array_equal(stuck.get_state("chain")["positions"], before)


def test_saved_state_resumes_bit_for_bit(tmp_path):
    sim = chain_scene().compile(dt=5e-3)
    swing(sim)
    sim.save_state(tmp_path / "s.npz")
    a = sim.run(0.1, record=sm.Every(0.05, ("positions",)))
    again = chain_scene().compile(dt=5e-3)
    again.load_state(tmp_path / "s.npz")
    b = again.run(0.1, record=sm.Every(0.05, ("positions",)))
    np.testing.assert_array_equal(a["chain.positions"], b["chain.positions"])
    np.testing.assert_array_equal(a["time"], b["time"])


def test_bad_input_names_the_field():
    sim = chain_scene().compile(dt=1e-2)
    with pytest.raises(ValueError, match="params\\['chain.stiffness'\\] has shape"):
        sim.params["chain.stiffness"] = [1.0, 2.0]
    with pytest.raises(KeyError, match="no parameter"):
        sim.params["chain.mass"] = 1.0
    with pytest.raises(ValueError, match="NewtonOptions.max_iterations"):
        NewtonOptions(max_iterations=0)
    for bad_count in (-1, 1.5, True):
        with pytest.raises(ValueError, match=r"NewtonOptions.relaxed_steps = .* integer >= 0"):
            NewtonOptions(relaxed_steps=bad_count)
    with pytest.raises(ValueError, match="not allowed here"):
        sim.run(0.01, record=sm.Every(0.01, ("directors",)))   # discrete bodies have none
    with pytest.raises(ValueError, match=r"far.nodes = \[9\].*6 nodes"):
        chain_scene().add(sm.FixNodes("chain", [9], name="far"))   # refused at add, not compile
    with pytest.raises(ValueError, match="no discrete rod or shell"):
        chain_scene().add(sm.NodeForce("nothing", 0, (0, 0, 1)))
    mixed = chain_scene()
    mixed.add_sphere(position=(1, 1, 1), radius=0.1, density=1.0)
    with pytest.raises(ValueError, match="cannot also hold Cosserat rods or rigid bodies"):
        mixed.compile(dt=1e-2)
    with pytest.raises(ValueError, match=r"engine = 'unified' is not allowed with \['chain'\]"):
        mixed.compile(dt=1e-2, engine="unified")     # (a body of no kind of the unified engine)
    explicit = sm.Scene()
    explicit.add_sphere(position=(0, 0, 0), radius=0.1, density=1.0)
    with pytest.raises(ValueError, match="newton = .* no discrete rods"):
        explicit.compile(dt=1e-3, newton=NewtonOptions())


def test_node_force_and_gravity_balance_in_a_static_solve():
    # A force F up on the free node of a 2-node chain under gravity: the spring carries m g - F,
    # so it stretches by (m g - F)/k.
    m, k, F = 0.1, 100.0, 0.3
    scene = chain_scene(n=2, mass=m, stiffness=k)
    scene.add(sm.NodeForce("chain", 1, (0, 0, F), name="lift"))
    sim = scene.compile(dt=1e-2)
    sim.solve_static()
    z = sim.get_state("chain")["positions"][0, 1, 2]
    assert z == pytest.approx(-0.1 - (m * 9.81 - F) / k, rel=1e-10)



def test_fix_nodes_on_some_axes_lets_the_others_move():
    # FixNodes(..., axes="xy") holds x and y of the free node and lets it slide along z: a
    # slanted force (F_x, F_y, F_z) on it stretches the spring by -F_z / k, x and y stay 0
    # (without the restraint the chain would swing to the force's direction).
    k, F = 100.0, np.array([0.2, -0.1, -0.3])
    scene = chain_scene(n=2, stiffness=k, gravity=False)
    scene.add(sm.FixNodes("chain", [1], axes="yx", name="slide"))
    scene.add(sm.NodeForce("chain", 1, F, name="pull"))
    sim = scene.compile(dt=1e-2)
    sim.solve_static()
    x = sim.get_state("chain")["positions"][0, 1]
    np.testing.assert_allclose(x, [0.0, 0.0, -0.1 + F[2] / k], atol=1e-12)
    for axes in ("", "xw", "xx", 3):
        with pytest.raises(ValueError, match=r"slide.axes = .* is not allowed"):
            sm.FixNodes("chain", [1], axes=axes, name="slide")


def test_symplectic_euler_uses_the_same_forces_and_matches_its_recurrence():
    # Explicit comparison scheme: v_{n+1} = v_n + h (-k/m)(x_n - x*), x_{n+1} = x_n + h v_{n+1}.
    m, k, h, v0 = 0.2, 50.0, 0.01, 0.3
    sim = chain_scene(n=2, mass=m, stiffness=k, gravity=False).compile(dt=h, scheme="symplectic_euler")
    sim.set_state("chain", velocities=np.array([[0, 0, 0], [0, 0, v0]]))
    out = sim.run(0.2, record=sm.Every(h, ("positions",)))
    x, v, expected = -0.1, v0, [-0.1]
    for _ in range(20):
        v = v - h * k / m * (x + 0.1)
        x = x + h * v
        expected.append(x)
    np.testing.assert_allclose(out["chain.positions"][0, :, 1, 2], expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="scheme"):
        chain_scene().compile(dt=h, scheme="verlet")


def test_joined_chains_hang_like_one_chain():
    # Two 3-node chains joined end to start (JoinNodes merges the nodes, masses add) hang
    # exactly like one 5-node chain whose junction node has twice the mass: spring i carries
    # the weight below it.
    m, k = 0.1, 100.0
    scene = sm.Scene()
    upper = np.zeros((3, 3))
    upper[:, 2] = -0.1 * np.arange(3)
    lower = upper - [0, 0, 0.2]
    scene.implicit_bodies.append(SpringChain("upper", upper, m, k))
    scene.implicit_bodies.append(SpringChain("lower", lower, m, k))
    scene.add(sm.JoinNodes("upper", 2, "lower", 0))
    scene.add(sm.Gravity())
    scene.add(sm.FixNodes("upper", [0]))
    sim = scene.compile(dt=1e-2)
    assert sim.layout.n_nodes == 5
    sim.solve_static()
    z = np.concatenate([sim.get_state("upper")["positions"][0, :, 2],
                        sim.get_state("lower")["positions"][0, 1:, 2]])
    below = np.array([5, 4, 2, 1]) * m        # the junction node carries 2 m
    np.testing.assert_allclose(-np.diff(z) - 0.1, below * 9.81 / k, rtol=1e-10)
    np.testing.assert_array_equal(sim.get_state("upper")["positions"][:, 2],
                                  sim.get_state("lower")["positions"][:, 0])
    apart = sm.Scene()
    apart.implicit_bodies += [SpringChain("upper", upper, m, k), SpringChain("lower", lower + 1, m, k)]
    apart.add(sm.JoinNodes("upper", 2, "lower", 0))
    with pytest.raises(ValueError, match="join: the joined nodes are .* apart"):
        apart.compile(dt=1e-2)


def test_the_watchdog_line_search_keeps_newtons_full_steps_on_a_large_rotation():
    """Static solve of a soft DER cantilever from the straight rod (E = 1e8 Pa: the tip sags
    0.42 L, a large rotation). The first full Newton step stretches the rotating edges, so |R|
    rises although Newton converges in a few full steps; plain Armijo backtracking
    (relaxed_steps=0) answers with tiny steps and falls back to the pseudo-transient
    continuation (hundreds of iterations), while the watchdog (NewtonOptions docstring) keeps
    the full steps: as few iterations as line_search=False, and the same equilibrium (to the
    solve's round-off, 1e-12 of the sag)."""
    solved = {}
    for label, options in (("watchdog", {}), ("full steps", dict(line_search=False)),
                           ("plain Armijo", dict(relaxed_steps=0))):
        sim = cantilever(1e8)[0].compile(dt=1e-3, newton=NewtonOptions(**options))
        sim.solve_static()
        solved[label] = (sim.newton_stats.iterations, sim.get_state("rod")["positions"][0])
    its, x = solved["watchdog"]
    its_full, x_full = solved["full steps"]
    its_armijo, x_armijo = solved["plain Armijo"]
    sag = abs(x_full[-1, 2])
    assert sag > 0.4
    assert its <= its_full
    assert its_armijo > 10 * its
    np.testing.assert_allclose(x, x_full, rtol=0, atol=1e-12 * sag)
    np.testing.assert_allclose(x_armijo, x_full, rtol=0, atol=1e-12 * sag)
