"""A run's result does not depend on how it is split into compiled calls (recording interval,
divergence-guard chunks, step() calls): bit for bit. This is what makes a resumed run equal an
uninterrupted one. Uses the snake (contact, friction, time-dependent muscles) and a clamped rod
with a sinusoidal load and prescribed motion."""
import numpy as np
import pytest

import softmech as sm
from softmech.scenarios.snake import build_snake


def snake():
    scene, info = build_snake(n_elems=20)
    return scene.compile(dt=info.dt)


def loaded_rod():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=1.0, n_elems=12, radius=0.02, density=1000.0,
                                 youngs_modulus=1e6)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.EndLoad(rod, force=(0, 0.1, 0), frequency=3.0, name="tip"))
    scene.add(sm.PrescribedMotion(rod, displacement=(0, 0, 0.01), end="last", frequency=2.0,
                                  name="shaker"))
    return scene.compile(dt=1e-4, scheme="pefrl")


@pytest.mark.parametrize("make", [snake, loaded_rod])
def test_result_independent_of_call_splitting(make):
    reference = make()
    reference.step(3000)
    final = reference.get_state()
    for split in ([1000, 2000], [1, 2998, 1], [700] * 4 + [200]):
        sim = make()
        for n in split:
            sim.step(n)
        assert sim.time == reference.time
        for key, value in sim.get_state().items():
            np.testing.assert_array_equal(value, final[key], err_msg=f"{key} split {split}")


def test_recording_interval_does_not_change_the_trajectory():
    finals = []
    for every in (None, 1e-3, 7.5e-3):
        sim = snake()
        sim.run(0.06, record=None if every is None else sm.Every(seconds=every, fields=("com",)))
        finals.append(sim.get_state()["positions"])
    for other in finals[1:]:
        np.testing.assert_array_equal(other, finals[0])
