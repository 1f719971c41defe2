"""Discrete elastic rods as a body kind of the unified engine (Scene.compile(engine="unified"):
softmech.der_packing, softmech.kernels.der_motion, softmech.kernels.der_kind): free flight
under position Verlet, torsion, mixed scenes, batches and restarts. The static cantilever
against the discrete engine and beam theory: tests/validation/test_der_kind_cantilever.py."""
import math

import numpy as np
import pytest

import softmech as sm
from softmech.implicit.simulation import ImplicitSimulation
from softmech.simulation import Simulation

L, R, RHO, E, N = 0.2, 2e-3, 1200.0, 1e6, 10
G = E / 3.0         # poisson_ratio 0.5
l = L / N


def der_scene(*, gravity=None, fix=False, name="r", scene=None, y=0.0):
    scene = sm.Scene() if scene is None else scene
    rod = scene.add_der_rod(name=name, start=(0.0, y, 0.0), direction=(1.0, 0.0, 0.0),
                            length=L, n_elems=N, radius=R, density=RHO, youngs_modulus=E,
                            normal=(0.0, 0.0, 1.0))
    if fix:
        scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name=f"{name}_clamp"))
    if gravity is not None:
        scene.add(sm.Gravity(gravity))
    return scene, rod


def moving(rod):
    """Velocities (N + 1, 3) [m/s] and twist rates (N,) [rad/s] of a rod that drifts, spins
    about z through its centre and vibrates in bending and twist."""
    x = rod.positions
    c = x - x.mean(axis=0)
    s = np.linspace(0.0, 1.0, len(x))
    v = np.array([0.1, 0.0, 0.0]) + np.cross([0.0, 0.0, 2.0], c)
    v[:, 2] += 0.05 * np.sin(math.pi * s)
    return v, 5.0 * np.cos(math.pi * np.linspace(0.0, 1.0, rod.n_elems))


def test_default_engine_of_discrete_scenes_is_unchanged_and_unified_is_chosen_by_name():
    scene, _ = der_scene(gravity=(0.0, 0.0, -9.81), fix=True)
    assert isinstance(scene.compile(dt=1e-3), ImplicitSimulation)
    sim = scene.compile(dt=1e-3, engine="unified")
    assert isinstance(sim, Simulation) and sim.scheme == "implicit_euler"
    with pytest.raises(ValueError, match="engine = 'fast' is not allowed"):
        scene.compile(dt=1e-3, engine="fast")


def test_unsupported_combinations_are_refused():
    scene, _ = der_scene()
    with pytest.raises(ValueError, match="corotate"):
        scene.compile(dt=1e-3, engine="unified",
                      newton=sm.ImplicitOptions(corotate=True)).step(1)


def energy_and_momentum(dt, duration=0.1, samples=20):
    scene, rod = der_scene()
    sim = scene.compile(dt=dt, engine="unified", scheme="verlet")
    v, w = moving(rod)
    sim.set_state("r", velocities=v, twist_rates=w)
    steps = round(duration / dt) // samples
    d = sim.diagnostics("r")
    energy, momentum = [d["total_energy"][0]], [d["linear_momentum"][0]]
    for _ in range(samples):
        sim.step(steps)
        d = sim.diagnostics("r")
        energy.append(d["total_energy"][0])
        momentum.append(d["linear_momentum"][0])
    return np.array(energy), np.array(momentum)


def test_free_flight_conserves_momentum_and_energy_to_second_order():
    """A free rod drifting, spinning and vibrating (moving) under position Verlet: the internal
    forces sum to zero (a translation changes no energy), so the linear momentum stays to
    round-off (1e-12 of its value over 2,000 steps); the energy -- kinetic, stretching,
    bending and twisting (softmech.diagnostics.der_diagnostics) -- oscillates about its initial
    value with an amplitude O(dt^2) (a symplectic scheme: Hairer, Lubich and Wanner, Geometric
    Numerical Integration, IX.8), so halving dt divides the largest deviation by ~4 (accepted
    3 to 5: the deviation is sampled at 20 instants, not at its exact maximum)."""
    errors = []
    for dt in (1e-4, 5e-5):
        energy, momentum = energy_and_momentum(dt)
        assert np.abs(momentum - momentum[0]).max() < 1e-12 * np.abs(momentum[0]).max()
        errors.append(np.abs(energy - energy[0]).max() / energy[0])
    assert errors[0] < 1e-3                      # a small error to begin with
    assert 3.0 < errors[0] / errors[1] < 5.0, errors


def test_end_twisted_by_phi_carries_torque_gj_phi_over_length():
    """A straight rod with every node held, edge 0 at twist 0 and the last edge at phi, in its
    equilibrium (uniform twist, theta_j = phi j / (m - 1)): every interior edge is free of
    moment and the ends carry +-GJ phi / L_t, L_t = (m - 1) l the length between the two
    held edges' midpoints, GJ = G pi r^4 / 2 (Saint-Venant torsion of a circular bar, e.g.
    Gere & Timoshenko sec. 3.3; exact for the discrete rod: each of its m - 1 springs is
    twisted by phi / (m - 1) over a Voronoi length l). Tolerance 1e-9 relative (round-off)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                            n_elems=N, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.FixNodes(rod, nodes=range(N + 1), angles=[0, N - 1]))
    sim = scene.compile(dt=1e-4, engine="unified", scheme="verlet")
    phi = 0.3
    sim.set_state("r", twist=np.linspace(0.0, phi, N))
    _, alpha = sim.accelerations("r")
    torque = alpha[0] * rod.twist_inertia                     # -dE/dtheta [N m]
    expected = G * math.pi * R**4 / 2 * phi / ((N - 1) * l)
    assert abs(torque[-1] / -expected - 1) < 1e-9
    assert abs(torque[0] / expected - 1) < 1e-9
    assert np.abs(torque[1:-1]).max() < 1e-9 * expected


def test_mixed_scene_steps_each_body_as_when_alone():
    """A discrete rod, a Cosserat rod and a rigid sphere in one scene under gravity, stepped by
    one Simulation (no coupling term): each body's state after 200 Verlet steps equals, bit for
    bit, that of a scene holding it alone -- the kinds' kernels share no array and run in the
    same order either way."""
    def add_cosserat(scene):
        rod = scene.add_cosserat_rod(name="c", start=(0, 0.1, 0), direction=(1, 0, 0),
                                     normal=(0, 0, 1), length=L, n_elems=N, radius=R,
                                     density=RHO, youngs_modulus=E)
        scene.add(sm.Clamp(rod))

    def add_sphere(scene):
        scene.add_sphere(name="s", position=(0, 0.2, 0), radius=0.01, density=1000.0,
                         velocity=(0.1, 0.0, 0.2), angular_velocity=(0.0, 1.0, 2.0))

    dt, g = 2e-5, (0.0, 0.0, -9.81)
    mixed, _ = der_scene(gravity=g, fix=True)
    add_cosserat(mixed)
    add_sphere(mixed)
    sim = mixed.compile(dt=dt, scheme="verlet")          # a mixed scene: unified by default
    sim.step(200)
    alone = {"r": der_scene(gravity=g, fix=True)[0]}
    for name, add in (("c", add_cosserat), ("s", add_sphere)):
        alone[name] = sm.Scene()
        add(alone[name])
        alone[name].add(sm.Gravity(g))
    for name, scene in alone.items():
        single = scene.compile(dt=dt, scheme="verlet", engine="unified")
        single.step(200)
        a, b = sim.get_state(name), single.get_state(name)
        assert a.keys() == b.keys()
        for key in a:
            assert np.array_equal(a[key], b[key]), (name, key)
    # it moved: the tip falls freely until the bending wave reaches it (g t^2 / 2 = 7.8e-5 m)
    assert sim.get_state("r")["positions"][0, -1, 2] < -0.5 * 0.5 * 9.81 * (200 * dt) ** 2


@pytest.mark.parametrize("scheme", ["verlet", "implicit_euler"])
def test_batched_worlds_equal_single_runs(scheme):
    """B = 3 worlds with their own Young's modulus equal three single runs bit for bit."""
    moduli = (1e6, 2e6, 5e6)
    dt, steps = (5e-5, 200) if scheme == "verlet" else (2e-3, 20)
    scene, rod = der_scene(gravity=(0.0, 0.0, -9.81), fix=True)
    batch = scene.compile(worlds=3, dt=dt, engine="unified", scheme=scheme)
    batch.params["r.youngs_modulus"] = np.array(moduli)
    batch.step(steps)
    for k, modulus in enumerate(moduli):
        single = scene.compile(dt=dt, engine="unified", scheme=scheme)
        single.params["r.youngs_modulus"] = np.array([modulus])
        single.step(steps)
        for key, value in single.get_state("r").items():
            assert np.array_equal(batch.get_state("r")[key][k], value[0]), (k, key)


def test_full_lanes_of_moving_twisting_worlds_equal_single_runs():
    """B = 16 worlds (two blocks of eight: every lane of the lanes kernels busy,
    softmech.kernels.der_kind_lanes), each with its own Young's modulus, spinning, vibrating
    in bending and twist (so the frames' transport, the reference twists and the twist terms
    all act), under implicit Euler with its analytic Hessian renewed every step: worlds in
    either block and at either end of a block equal their single runs bit for bit (the lanes
    kernels do per lane what the per-world kernels do, in the same order)."""
    worlds, dt, steps = 16, 1e-3, 15
    moduli = np.geomspace(5e5, 5e6, worlds)
    scene, rod = der_scene(gravity=(0.0, 0.0, -9.81), fix=True)
    v, w = moving(rod)
    scale = np.linspace(0.5, 1.5, worlds)
    batch = scene.compile(worlds=worlds, dt=dt, engine="unified")
    assert batch.lanes.W == 8
    batch.params["r.youngs_modulus"] = moduli
    batch.set_state("r", velocities=scale[:, None, None] * v,
                    twist_rates=scale[:, None] * w)
    batch.step(steps)
    end = batch.get_state("r")
    for k in (0, 7, 8, 15):
        single = scene.compile(dt=dt, engine="unified")
        single.params["r.youngs_modulus"] = moduli[k:k + 1]
        single.set_state("r", velocities=scale[k] * v, twist_rates=scale[k] * w)
        single.step(steps)
        for key, value in single.get_state("r").items():
            assert np.array_equal(end[key][k], value[0]), (k, key)
    # it twisted and moved: the twist rates' integral is not small against round-off
    assert np.abs(end["twist"][:, 1:]).max() > 1e-3


def test_restart_and_split_runs_are_bit_for_bit(tmp_path):
    """Position Verlet: 100 steps in one call equal 60 + 40, and a run saved after 60 steps and
    loaded into a new simulation continues bit for bit (the frames' transport runs after each
    drift but not at a block's closing configuration: driver.Call.history; the frames and the
    tangents they belong to are state, saved with it)."""
    scene, rod = der_scene()
    v, w = moving(rod)

    def start():
        sim = scene.compile(dt=1e-4, engine="unified", scheme="verlet")
        sim.set_state("r", velocities=v, twist_rates=w)
        return sim

    whole = start()
    whole.step(100)
    split = start()
    split.step(60)
    split.save_state(tmp_path / "s.npz")
    split.step(40)
    loaded = scene.compile(dt=1e-4, engine="unified", scheme="verlet")
    loaded.load_state(tmp_path / "s.npz")
    loaded.step(40)
    for key, value in whole.get_state("r").items():
        assert np.array_equal(split.get_state("r")[key], value), key
        assert np.array_equal(loaded.get_state("r")[key], value), key
    assert whole.time == loaded.time
