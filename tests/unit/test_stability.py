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
