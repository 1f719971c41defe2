"""B worlds simulated side by side equal B single-world runs bit for bit.

The engine groups worlds into blocks of W lanes (softmech.packing.Lanes) and vectorizes its loops
across the lanes, while a single world (W = 1) is vectorized across elements. Every lane does the
same IEEE operations in the same order on its own data (no reductions across worlds, no
fast-math, so no FMA contraction or reassociation), hence the results must be identical, not
merely close: the tests use assert_array_equal on purpose. A difference would mean lanes leak
into each other, a parameter is read from the wrong world, or the compiler changed the
arithmetic between the vector and scalar paths.
"""
import numpy as np
import pytest

import softmech as sm
from softmech.kernels.contact import FLAG_UNIFORM

N_ELEMS = 14
N_STEPS = 1000
DT = 1e-4
STATE_KEYS = ("positions", "velocities", "directors", "angular_velocities")


def build_scene(law="gazzola2018"):
    """Clamped rod (1 m, 14 elements) under a tip load, linear damping, Kelvin-Voigt and gravity."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                                 length=1.0, n_elems=N_ELEMS, radius=0.03, density=1000.0,
                                 youngs_modulus=1e6, shear_modulus=4e5, law=law)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.EndLoad(rod, force=(0.0, -1.0, 0.5), couple=(0.0, 0.0, 0.01), name="tip"))
    scene.add(sm.LinearDamping(rod, coefficient=0.05))
    scene.add(sm.KelvinVoigt(rod, retardation_time=1e-4))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene


def world_params(B, seed):
    """Per-world parameters: Young's modulus (B, n) [Pa], tip force (B, 3) [N], gravity (B, 3)."""
    rng = np.random.default_rng(seed)
    return {"rod.youngs_modulus": rng.uniform(0.8e6, 1.2e6, size=(B, N_ELEMS)),
            "tip.force": rng.normal(size=(B, 3)),
            "gravity.acceleration": np.array([0.0, 0.0, -9.81]) + rng.normal(scale=0.5, size=(B, 3))}


def run(scene, B, params, *, scheme="verlet", n_threads=None):
    sim = scene.compile(worlds=B, dt=DT, scheme=scheme, strict=True, n_threads=n_threads)
    for key, value in params.items():
        sim.params[key] = np.array(value)
    sim.step(N_STEPS)
    return sim.get_state()


def assert_states_equal(batched, b, single):
    for key in STATE_KEYS:
        np.testing.assert_array_equal(batched[key][b], single[key][0], err_msg=f"world {b}: {key}")


@pytest.mark.parametrize("B", [2, 3, 5, 16, 17])
def test_batched_worlds_equal_single_runs(B):
    scene = build_scene()
    params = world_params(B, seed=B)
    batched = run(scene, B, params)
    # the worlds really differ (else equality would be trivially true)
    assert np.all(np.abs(np.diff(batched["positions"][:, -1, 1])) > 1e-9)
    for b in range(B):
        single = run(scene, 1, {k: v[b:b + 1] for k, v in params.items()})
        assert_states_equal(batched, b, single)


@pytest.mark.parametrize("B", [3, 17])
def test_batched_pefrl_hyperelastic_equals_single_runs(B):
    """Same with the other scheme and law (different kernel paths: 4 kicks, exact log Jacobian)."""
    scene = build_scene(law="hyperelastic")
    params = world_params(B, seed=100 + B)
    batched = run(scene, B, params, scheme="pefrl")
    for b in range(B):
        single = run(scene, 1, {k: v[b:b + 1] for k, v in params.items()}, scheme="pefrl")
        assert_states_equal(batched, b, single)


@pytest.mark.parametrize("B", [1, 5, 17])
def test_block_layout_does_not_change_results(B):
    """n_threads=1 puts all worlds in blocks of up to 8 lanes; the default (numba's thread count)
    may split them differently. Results must be identical."""
    scene = build_scene()
    params = world_params(B, seed=200 + B)
    default = run(scene, B, params)
    one_thread = run(scene, B, params, n_threads=1)
    for key in STATE_KEYS:
        np.testing.assert_array_equal(default[key], one_thread[key], err_msg=key)


def test_shared_parameters_broadcast_to_all_worlds():
    """Leading dimension 1 means shared: B identical worlds equal the single run exactly."""
    scene = build_scene()
    params = {k: v[:1] for k, v in world_params(1, seed=7).items()}
    batched = run(scene, 4, params)
    single = run(scene, 1, params)
    for b in range(4):
        assert_states_equal(batched, b, single)


def contact_scene():
    """A free rod lying on the ground, sliding sideways under gravity with anisotropic friction."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0.02), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=0.5, n_elems=N_ELEMS, radius=0.02,
                                 density=1000.0, youngs_modulus=1e6, shear_modulus=4e5)
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    scene.add(sm.GroundContact(rod, stiffness=10.0, damping=1e-3,
                               friction=sm.AnisotropicFriction(0.2, 0.3, 0.4, 0.4, 0.6, 0.8)))
    return scene


@pytest.mark.parametrize("vary", ["ground.kinetic", "gravity.acceleration", None])
def test_batched_contact_equals_single_runs(vary):
    """The contact kernel reads its parameters and the body acceleration as scalars when they are
    the same in every world (FLAG_UNIFORM) and per element-lane otherwise: both paths must give
    the single runs' results bit for bit (a batch whose worlds differ takes the per-lane path,
    each single run the scalar one)."""
    B = 5
    rng = np.random.default_rng(11)
    values = {"ground.kinetic": rng.uniform(0.1, 0.5, size=(B, 3)),
              "gravity.acceleration": np.array([0.0, 0.0, -9.81])
              + rng.normal(scale=0.5, size=(B, 3))}
    params = {} if vary is None else {vary: values[vary]}
    velocities = np.tile([0.05, 0.3, 0.0], (N_ELEMS + 1, 1))
    scene = contact_scene()
    batched_sim = scene.compile(worlds=B, dt=DT, strict=True)
    for key, value in params.items():
        batched_sim.params[key] = np.array(value)
    uniform = batched_sim._engine().call_args("ground_contacts").contact_flags[0, FLAG_UNIFORM]
    assert uniform == (vary is None)
    batched_sim.set_state("rod", velocities=np.broadcast_to(velocities, (B,) + velocities.shape))
    batched_sim.step(N_STEPS)
    batched = batched_sim.get_state()
    if vary is not None:  # the worlds really differ
        assert np.all(np.abs(np.diff(batched["positions"][:, -1, 1])) > 1e-12)
    for b in range(B):
        sim = scene.compile(worlds=1, dt=DT, strict=True)
        for key, value in params.items():
            sim.params[key] = np.array(value[b:b + 1])
        assert sim._engine().call_args("ground_contacts").contact_flags[0, FLAG_UNIFORM] == 1
        sim.set_state("rod", velocities=velocities[None])
        sim.step(N_STEPS)
        assert_states_equal(batched, b, sim.get_state())
