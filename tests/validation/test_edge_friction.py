"""Static and kinetic friction of the edge contact between discrete rods (sm.EdgeContact with
sm.IsotropicFriction(kinetic, static); softmech.kernels.edge_contact: the ground contact's
lagged static excess, kept per edge node):

* a rod across two fixed rods on an incline holds below the friction angle of mu_s and slides
  above it with a = g (sin(alpha) - mu_k cos(alpha)) (Amontons-Coulomb; the validation case);
* a contact sliding from edge to edge keeps the kinetic coefficient (the nodes carry the slip);
* the Jacobian with a static excess, restarts, the deprecated one-coefficient arguments and
  `<name>.friction` key, scenario files and bad input.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import softmech as sm
from softmech.scenefile import load_scenario, save_scenario
from softmech.scenefile.schema import RunSettings, Scenario
from softmech.validation.discrete_rods import (der_rod_on_two_rods,
                                               der_rod_sticks_then_slides_on_two_rods,
                                               rod_across_two_rods,
                                               shell_sticks_then_slides_on_two_rods)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from implicit_fixture import SpringChain, step_jacobian_check  # noqa: E402

DELTA = 0.01
TAN = 0.45             # between mu_k = 0.3 and mu_s = 0.5


def test_a_rod_across_two_rods_holds_below_the_static_friction_angle_and_slides_with_kinetic():
    record = der_rod_sticks_then_slides_on_two_rods()
    assert record["passed"], record["detail"]


def test_a_shell_across_two_rods_holds_below_the_static_friction_angle_and_slides_with_kinetic():
    """The static excess on a shell's edge nodes: the same law as between rods."""
    record = shell_sticks_then_slides_on_two_rods()
    assert record["passed"], record["detail"]
    with pytest.raises(ValueError, match="slider = 'plate' is not allowed"):
        rod_across_two_rods(0.5, 0.3, slider="plate")


@pytest.mark.parametrize("slider", ["rod", "shell"])
def test_a_narrow_regularization_still_holds(slider):
    """At v_s = 1e-5 m/s (dt = 1 ms, distance ~1 cm) the slider holds at 0.98 mu_s for 0.3 s:
    it moves the regularized law's creep 2 artanh(0.98) / K_f = 0.31 v_s (0.9 um; bound
    3 um), not the 0.075 m of sliding at mu_k it moved when the Jacobian's central difference
    moved the velocities by 1e-5 m/s, the regularization's whole width (the step is now at
    most 1e-3 of v_s / 15 in velocity: _EdgeContactBinding._step). On the discrete engine: the
    unified engine's finite-difference Newton cannot resolve so narrow a law at this dt (it
    warns, naming the smallest slip velocity it resolves, 4e-5 m/s here, and slides 7 cm)."""
    t, x, _ = der_rod_on_two_rods([0.98 * 0.5], 0.5, 0.3, 0.3, slip_velocity=1e-5,
                                  slider=slider, engine="discrete")
    assert np.ptp(x[0]) < 3e-6, np.ptp(x[0])


def stick_on_bar(friction, n_bar=40, worlds=1):
    """A fixed bar (0.4 m along y, n_bar edges of 0.4 / n_bar m) and a one-edge stick (0.2 m
    along x) resting across it at mid-edge (static solve under gravity's normal part), gravity
    then tilted along the bar by tan(alpha) = TAN: the stick's contact slides along the bar
    from edge to edge."""
    scene = sm.Scene()
    bar = np.stack([np.zeros(n_bar + 1), np.linspace(-0.2, 0.2, n_bar + 1),
                    np.zeros(n_bar + 1)], axis=1)
    y = 0.2 / n_bar                            # the middle of the edge from y = 0 (n_bar even)
    stick = np.array([[-0.1, y, DELTA], [0.1, y, DELTA]])
    scene.implicit_bodies.append(SpringChain("bar", bar, 0.05, 1e3))
    scene.implicit_bodies.append(SpringChain("stick", stick, 0.05, 1e3))
    scene.add(sm.FixNodes("bar", range(n_bar + 1)))
    alpha = np.arctan(TAN)
    scene.add(sm.Gravity((0.0, 0.0, -9.81 * np.cos(alpha))))
    scene.add(sm.EdgeContact(["bar", "stick"], stiffness=200.0, distance=DELTA,
                             friction=friction))
    sim = scene.compile(worlds=worlds, dt=1e-3)
    sim.solve_static()
    sim.params["gravity.acceleration"] = (0.0, 9.81 * np.sin(alpha), -9.81 * np.cos(alpha))
    return sim


def _edge(sim):
    return next(bd for bd in sim.stepper.bindings if bd.name == "edge_contact")


def test_a_contact_sliding_from_edge_to_edge_keeps_the_kinetic_coefficient():
    """The stick slides along the bar (kicked; tan alpha = 0.45 < mu_s = 0.5), its contact
    crossing bar nodes, the pair list changing at each. From the same sliding state,
    (mu_s, mu_k) = (0.5, 0.3) and (0.3, 0.3) must give the same motion within 1e-9 m/s (the
    eroded excess is (v_S / v)^8 ~ 1e-16 of it). A slip state lost when the pairs change (new
    pairs at rest, mu_s for a step) fails this: measured 0.019 m/s apart."""
    sim = stick_on_bar(sm.IsotropicFriction(0.3, 0.5, slip_velocity=1e-3))
    sim.set_state("stick", velocities=(0.0, 0.3, 0.0))
    sim.run(0.01)                             # the slip state now that of a sliding contact
    start = sim.snapshot()
    y0 = sim.get_state("stick")["positions"][0, :, 1].mean()
    runs = []
    for static in (0.5, 0.3):
        sim.restore(start)
        sim.params["edge_contact.static"] = static
        out = sim.run(0.1, record=sm.Every(1e-3, ("stick.velocities",)))
        runs.append(out["stick.velocities"][0, :, :, 1].mean(axis=1))
    crossed = sim.get_state("stick")["positions"][0, :, 1].mean() - y0
    assert crossed > 0.03                     # three bar edges at least
    np.testing.assert_allclose(runs[0], runs[1], rtol=0, atol=1e-9)
    # sliding faster (tan alpha > mu_k; not monotone: the penalty counts a contact at a
    # bar node twice, a small conservative bump)
    assert runs[1][-1] > runs[1][0] + 0.1


def test_the_jacobian_with_a_static_excess_matches_finite_differences():
    """With mu_s > mu_k and a slip state that leaves part of the excess (the coefficient is
    fixed within the step), dF/dq + dF/dv / h matches central differences of the force."""
    rng = np.random.default_rng(7)
    sim = stick_on_bar(sm.IsotropicFriction(0.3, 0.6, slip_velocity=1e-3), n_bar=2)
    binding = _edge(sim)
    h = 1e-3
    q_n = sim.layout.q0.copy()
    q = q_n + rng.normal(scale=1e-5, size=q_n.size)     # slip ~10 slip velocities
    binding.begin_step(0, q_n, 0.0)
    binding.slip[0] = 1.5e-3 * rng.uniform(0.5, 1.5, size=binding.slip.shape[1])   # ~v_S
    dense, fd = step_jacobian_check(binding, q, q_n, h, eps=1e-10)
    np.testing.assert_allclose(dense, fd, rtol=1e-4, atol=1e-5 * np.abs(fd).max())
    lagged = _edge(sim).slip.copy()
    step_jacobian_check(binding, q, q_n, h, eps=1e-10)
    assert np.array_equal(binding.slip, lagged)      # evaluations leave the state alone


def test_a_restart_continues_bit_for_bit(tmp_path):
    """The nodes' slip speeds are saved with the state: a run saved mid-slide and resumed
    equals the whole run; resumed without them (at rest) it does not."""
    friction = sm.IsotropicFriction(0.3, 0.5, slip_velocity=1e-3)
    whole = stick_on_bar(friction, n_bar=4)
    whole.set_state("stick", velocities=(0.0, 0.3, 0.0))
    whole.run(0.02)
    whole.save_state(tmp_path / "mid.npz")
    assert np.any(_edge(whole).slip > 0)
    whole.run(0.02)
    ends = []
    for forget in (False, True):
        resumed = stick_on_bar(friction, n_bar=4)
        resumed.load_state(tmp_path / "mid.npz")
        if forget:
            _edge(resumed).slip[:] = 0.0
        resumed.run(0.02)
        ends.append(resumed.get_state("stick")["velocities"])
    assert np.array_equal(whole.get_state("stick")["velocities"], ends[0])
    assert not np.allclose(whole.get_state("stick")["velocities"], ends[1], rtol=0, atol=1e-6)


def test_static_equal_to_kinetic_is_the_one_coefficient_law_and_worlds_have_their_own():
    """static 0 (the default) and static = kinetic give the same numbers bit for bit; per-world
    coefficients: world 0 (0.5, 0.3) holds at tan alpha = 0.45, world 1 (0.3, 0.3) slides."""
    runs = []
    for friction in (sm.IsotropicFriction(0.3, slip_velocity=1e-3),
                     sm.IsotropicFriction(0.3, 0.3, slip_velocity=1e-3)):
        sim = stick_on_bar(friction, n_bar=4)
        sim.run(0.03)
        runs.append(sim.q.copy())
    assert np.array_equal(runs[0], runs[1])
    sim = stick_on_bar(sm.IsotropicFriction(0.3, 0.5, slip_velocity=1e-3), n_bar=4, worlds=2)
    sim.params["edge_contact.static"] = [0.5, 0.3]
    sim.run(0.05)
    v = sim.get_state("stick")["velocities"][:, :, 1].mean(axis=1)
    # world 0 creeps where mu_s tanh(K_f w / 2) = tan alpha: w = 0.2 slip velocities; world 1
    # slides, 0.05 s at g (sin - mu_k cos) = 1.71 m/s^2
    assert abs(v[0]) < 1e-3 and v[1] > 0.05


def test_the_old_one_coefficient_arguments_and_key_are_read_with_a_warning(tmp_path):
    with pytest.warns(DeprecationWarning, match="friction = 0.2 and slip_tolerance = 0.0001"):
        old = sm.EdgeContact("rod", stiffness=1.0, distance=DELTA, friction=0.2,
                             slip_tolerance=1e-4)
    assert old.friction == sm.IsotropicFriction(0.2, slip_velocity=1e-4)
    assert (old.kinetic, old.static, old.slip_tolerance) == (0.2, 0.2, 1e-4)
    with pytest.warns(DeprecationWarning):
        assert sm.EdgeContact("bar", stiffness=1.0, distance=DELTA,
                              slip_tolerance=1e-4).friction == sm.IsotropicFriction(
                                  0.0, slip_velocity=1e-4)
    sim = stick_on_bar(sm.IsotropicFriction(0.3, 0.5, slip_velocity=1e-3), n_bar=2, worlds=2)
    with pytest.warns(DeprecationWarning, match="edge_contact.kinetic"):
        assert np.array_equal(sim.params["edge_contact.friction"], [0.3, 0.3])
    with pytest.warns(DeprecationWarning):
        sim.params["edge_contact.friction"] = [0.6, 0.7]
    np.testing.assert_array_equal(sim.params["edge_contact.static"], [0.6, 0.7])
    np.testing.assert_array_equal(sim.params["edge_contact.kinetic"], [0.6, 0.7])
    # a scenario file holds the law, not the old arguments
    scene = sm.Scene()
    scene.add_der_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), length=0.1, n_elems=4,
                      radius=1e-3, density=1000.0, youngs_modulus=1e6)
    scene.add(old)
    files = save_scenario(Scenario(scene=scene, run=RunSettings(dt=1e-3, duration=0.01)),
                          tmp_path / "old.toml")
    assert "slip_tolerance" not in open(files[0]).read()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        back = load_scenario(files[0]).scene.terms[-1]
    assert back.friction == old.friction


@pytest.mark.parametrize("kwargs, message", [
    (dict(friction=-0.1), r"edge_contact.friction = -0.1 is not allowed"),
    (dict(friction=0.1, slip_tolerance=0.0), r"edge_contact.slip_tolerance = 0.0 is not allowed"),
    (dict(friction=sm.IsotropicFriction(0.3, 0.2)),
     r"edge_contact.friction .*static = 0.2 must be 0 .* >= kinetic = 0.3"),
    (dict(friction=sm.AnisotropicFriction(0.1, 0.2, 0.3)),
     r"edge_contact.friction .* is not allowed .*isotropic"),
    (dict(friction=sm.StickingFriction(0.5, 0.3, tangential_stiffness=10.0)),
     r"edge_contact.friction .* is not allowed .*must be sm.IsotropicFriction"),
    (dict(friction="rough"), r"edge_contact.friction = 'rough' is not allowed"),
    (dict(friction=sm.IsotropicFriction(0.3), slip_tolerance=1e-3),
     r"edge_contact.slip_tolerance = 0.001 is not allowed with edge_contact.friction"),
])
def test_bad_friction_names_the_field_value_and_range(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sm.EdgeContact("bar", stiffness=1.0, distance=DELTA, **kwargs)
