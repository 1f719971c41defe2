"""Scene.time_step_limit() (issue 30): the explicit time-step estimate before compiling, from the
terms' assembly alone, is the compiled Simulation's estimate bit for bit, on scenes whose limit
is set by each kind of stiff term (rod elasticity, plane contact on the element centres and on
the surface, rod-rod and rod-body contact, a rigid body's ground contact, joints), and it
compiles nothing."""
import warnings

import numpy as np
import pytest

import softmech as sm
import softmech.simulation
from softmech.scenarios.discrete import build_falling_rod
from softmech.scenarios.snake import build_snake
from softmech.scenarios.walker import build_walker

ROD = dict(radius=0.01, density=1000.0, youngs_modulus=1e6, shear_modulus=1e6 / 1.5)


def rods_with_contact(surface, stiffness=300.0):
    scene = sm.Scene()
    a = scene.add_cosserat_rod(name="a", start=(0, 0, 0.01), direction=(1, 0, 0),
                               normal=(0, 0, 1), length=0.5, n_elems=20, **ROD)
    b = scene.add_cosserat_rod(name="b", start=(0.25, -0.2, 0.04), direction=(0, 1, 0),
                               normal=(0, 0, 1), length=0.4, n_elems=16, **ROD)
    scene.add(sm.Gravity())
    for rod in (a, b):
        scene.add(sm.GroundContact(rod, stiffness=stiffness, damping=0.1, surface=surface,
                                   name=f"ground_{rod.name}"))
    scene.add(sm.RodContact(stiffness=2e4, damping=1.0))
    return scene


def rod_on_box():
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(-0.2, 0, 0.12), direction=(1, 0, 0),
                           normal=(0, 0, 1), length=0.4, n_elems=20, **ROD)
    scene.add_box(name="box", position=(0, 0, 0.05), lengths=(0.5, 0.5, 0.1), density=500.0)
    scene.add(sm.Gravity())
    scene.add(sm.RodBodyContact(stiffness=5e4, damping=2.0))
    scene.add(sm.GroundContact("box", stiffness=1e6, damping=100.0))
    return scene


def sphere_on_ground():
    scene = sm.Scene()
    scene.add_sphere(name="ball", position=(0, 0, 0.05), radius=0.05, density=1000.0)
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact("ball", stiffness=2e5, damping=10.0,
                               friction=sm.IsotropicFriction(0.5)))
    return scene


SCENES = {"centre_contact": lambda: rods_with_contact(False),
          "surface_contact": lambda: rods_with_contact(True),
          "rod_on_box": rod_on_box, "sphere_on_ground": sphere_on_ground,
          "snake": lambda: build_snake()[0],
          "walker": lambda: build_walker(frequencies=(1.0, 2.0))[0]}


@pytest.mark.parametrize("name", SCENES)
def test_the_limit_before_compiling_is_the_compiled_one(name):
    scene = SCENES[name]()
    before = scene.time_step_limit(worlds=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # dt 1.0 s: far above the limit, never stepped
        sim = scene.compile(dt=1.0, worlds=2)
    assert before.shape == (2,) and np.all(np.isfinite(before)) and np.all(before > 0)
    np.testing.assert_array_equal(before, sim.time_step_limit())


def test_stiff_contact_sets_the_limit():
    # the surface penalty on a node of mass m and stiffness k: sqrt(m / k) (softmech.terms.
    # surface_contact.time_step_limit); 100x the stiffness must lower the scene's limit 10x
    # once it is below the rods' own limit
    soft = rods_with_contact(True).time_step_limit()[0]
    stiff = rods_with_contact(True, stiffness=3e6).time_step_limit()[0]
    assert stiff < 0.5 * soft


def test_nothing_is_compiled(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("Scene.time_step_limit built a Simulation")
    monkeypatch.setattr(softmech.simulation.Simulation, "__init__", refuse)
    assert rod_on_box().time_step_limit()[0] > 0


def test_discrete_bodies_have_no_explicit_limit():
    scene = build_falling_rod()[0]
    with pytest.raises(ValueError, match="time_step_limit.*discrete"):
        scene.time_step_limit()
