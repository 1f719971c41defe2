"""Static and kinetic friction on a discrete rod's or shell's ground contact
(sm.GroundContact with sm.IsotropicFriction(kinetic, static); softmech.kernels.implicit_ground:
the paper's regularized Coulomb law with a static excess that the last step's slip erodes):

* a rod on an incline holds below the friction angle of mu_s and slides above it with
  a = g (sin(alpha) - mu_k cos(alpha)) (Amontons-Coulomb; the validation case);
* static 0 or equal to kinetic is the paper's one-coefficient law, the same numbers;
* per-world coefficients, the deprecated `<name>.friction` key, restarts and bad input.
"""
import numpy as np
import pytest

import softmech as sm
from softmech.validation.discrete_rods import (der_rod_on_incline,
                                               der_rod_sticks_then_slides_on_an_incline)


def test_a_discrete_rod_holds_below_the_static_friction_angle_and_slides_with_kinetic():
    record = der_rod_sticks_then_slides_on_an_incline()
    assert record["passed"], record["detail"]


def test_without_a_static_excess_only_the_kinetic_coefficient_acts():
    """mu_s = mu_k = 0.3 at tan(alpha) = 0.49 (between mu_k and the mu_s = 0.5 of the case
    above): the rod does not hold; it slides with the kinetic acceleration within 1e-4
    (measured 5e-6 with the static excess, the same law)."""
    t, x, v = der_rod_on_incline([0.49], 0.3, 0.3, 0.3)
    window = t >= 0.1
    slope = float(np.polyfit(t[window], v[0, window], 1)[0])
    alpha = np.arctan(0.49)
    expected = 9.81 * (np.sin(alpha) - 0.3 * np.cos(alpha))
    assert abs(slope - expected) <= 1e-4 * expected


def _rod_scene(friction):
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.012), direction=(1.0, 0.0, 0.2),
                            length=0.2, n_elems=8, radius=0.01, density=1000.0,
                            youngs_modulus=1e7)
    scene.add(sm.Gravity((2.0, 0.0, -9.81)))
    scene.add(sm.GroundContact(rod, stiffness=500.0, distance=0.01, name="ground",
                               friction=friction))
    return scene


def test_static_zero_and_static_equal_to_kinetic_are_the_one_coefficient_law():
    """A rod dropped tilted onto the ground, sliding and stopping: static 0 (the paper's one mu)
    and static = kinetic give the same numbers, bit for bit."""
    runs = []
    for friction in (sm.IsotropicFriction(0.4, slip_velocity=1e-4),
                     sm.IsotropicFriction(0.4, 0.4, slip_velocity=1e-4)):
        sim = _rod_scene(friction).compile(dt=1e-3)
        sim.run(0.15)
        runs.append(sim.get_state("rod")["positions"])
    assert np.array_equal(runs[0], runs[1])


def test_each_world_has_its_own_coefficients():
    """Worlds with (mu_s, mu_k) = (0.5, 0.3) and (0.3, 0.3) on the same incline, tan 0.45:
    the first holds (creeps at ~0.3 slip velocities), the second slides."""
    t, x, _ = der_rod_on_incline([0.45, 0.45], [0.5, 0.3], 0.3, 0.1)
    moved = x[:, -1] - x[:, 0]
    assert abs(moved[0]) < 1e-6
    assert moved[1] > 1e-3          # 0.5 g (sin - 0.3 cos) t^2 = 3.5 mm in 0.1 s from rest


@pytest.mark.parametrize("engine", ["discrete", "unified"])
def test_the_old_one_coefficient_key_reads_kinetic_and_writes_both(engine):
    """`<name>.friction` (the paper's one coefficient, before static and kinetic) reads the
    kinetic coefficient and writes both, with a DeprecationWarning, on either engine
    (softmech.params.RENAMED_FIELDS)."""
    sim = _rod_scene(sm.IsotropicFriction(0.3, 0.5, slip_velocity=1e-6)).compile(
        worlds=2, dt=1e-3, engine=engine)
    with pytest.warns(DeprecationWarning, match="ground.kinetic"):
        # (the unified engine keeps a parameter shared by the worlds as one row)
        assert np.array_equal(np.broadcast_to(sim.params["ground.friction"], 2), [0.3, 0.3])
    with pytest.warns(DeprecationWarning):
        sim.params["ground.friction"] = [0.6, 0.7]
    np.testing.assert_array_equal(sim.params["ground.static"], [0.6, 0.7])
    np.testing.assert_array_equal(sim.params["ground.kinetic"], [0.6, 0.7])
    if engine == "discrete":
        with pytest.raises(KeyError):
            sim.params["ground.frictions"] = 0.5
    else:                   # the unified engine checks its keys when it runs
        sim.params["ground.frictions"] = 0.5
        with pytest.raises(ValueError, match="'ground.frictions' is not allowed"):
            sim.run(1e-3)


def test_a_restart_continues_bit_for_bit(tmp_path):
    """The static excess's state (each node's slip speed at the last step) is saved with the
    state: a run saved mid-slide and resumed equals the whole run."""
    scene = _rod_scene(sm.IsotropicFriction(0.3, 0.5, slip_velocity=1e-4))
    whole = scene.compile(dt=1e-3)
    whole.run(0.1)
    whole.save_state(tmp_path / "mid.npz")
    whole.run(0.1)
    resumed = scene.compile(dt=1e-3)
    resumed.load_state(tmp_path / "mid.npz")
    resumed.run(0.1)
    assert np.array_equal(whole.get_state("rod")["positions"],
                          resumed.get_state("rod")["positions"])


def test_a_static_coefficient_below_the_kinetic_one_is_refused():
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.01), direction=(1.0, 0.0, 0.0),
                            length=0.2, n_elems=4, radius=0.01, density=1000.0,
                            youngs_modulus=1e7)
    with pytest.raises(ValueError, match=r"ground\.friction .*static = 0\.2 must be 0 .* >= "
                                         r"kinetic = 0\.3"):
        scene.add(sm.GroundContact(rod, stiffness=500.0, distance=0.01, name="ground",
                                   friction=sm.IsotropicFriction(0.3, 0.2)))
