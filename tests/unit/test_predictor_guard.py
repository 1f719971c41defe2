"""The implicit integrator's predictor guard (ImplicitOptions.predictor_guard,
softmech.kernels.implicit_newton.mark_rough): a world whose step had a trial point rejected by
Newton's line search starts its next step from its velocities instead of extrapolating them.
The kernels alone, then the built-in falling_rod's soft rod striking frictional ground on the
unified engine: the guard engages there, saves Newton iterations, keeps the path, and a run
saved at a guarded step continues bit for bit."""
import numpy as np
import pytest

import softmech as sm
from softmech.kernels.implicit_newton import mark_rough, predict


def test_a_rough_lane_starts_from_its_velocities_and_the_others_extrapolate():
    """predict with rough = (0, 1, 0): lanes 0 and 2 get the line through the last two steps,
    U + (U - U_old), lane 1 keeps U; every lane's history shifts (U_old2 <- U_old,
    U_old <- U)."""
    rng = np.random.default_rng(3)
    U, U_old, U_old2 = (rng.standard_normal((5, 3)) for _ in range(3))
    before, old = U.copy(), U_old.copy()
    predict(U, U_old, U_old2, 1, np.array([0, 1, 0]))
    assert np.array_equal(U[:, [0, 2]], before[:, [0, 2]] + (before[:, [0, 2]] - old[:, [0, 2]]))
    assert np.array_equal(U[:, 1], before[:, 1])
    assert np.array_equal(U_old, before) and np.array_equal(U_old2, old)


def test_the_option_is_validated():
    with pytest.raises(ValueError, match="ImplicitOptions.predictor_guard = 'yes' .*True or False"):
        sm.ImplicitOptions(predictor_guard="yes")


def test_only_a_rejected_trial_point_marks_a_lane():
    """mark_rough sets rough where retry is set and leaves the other lanes as they were (a lane
    marked earlier in the solve stays marked)."""
    rough = np.array([0, 0, 1, 0])
    mark_rough(rough, np.array([1, 0, 0, 0]), 4)
    assert rough.tolist() == [1, 0, 1, 0]


def soft_rod(guard):
    """The built-in falling_rod's soft rod (E = 1 MPa, tilted 20 degrees, dropped from 5 cm onto
    ground with mu = 0.5, slip velocity 1e-3 m/s; implicit Euler at 1 ms) on the unified engine,
    with the predictor guard on or off."""
    from softmech.scenarios.discrete import FALLING_ROD as p
    tilt = np.radians(p["tilt_deg"])
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, p["height"]),
                            direction=(np.cos(tilt), 0.0, np.sin(tilt)), length=p["length"],
                            n_elems=p["n_elems"], radius=p["radius"], density=p["density"],
                            youngs_modulus=p["soft_modulus"], poisson_ratio=p["poisson_ratio"])
    scene.add(sm.GroundContact(rod, stiffness=p["contact_stiffness"], distance=p["radius"],
                               friction=sm.IsotropicFriction(p["friction"], slip_velocity=1e-3),
                               name="ground"))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene, scene.compile(dt=p["dt"], engine="unified",
                                newton=sm.ImplicitOptions(predictor_guard=guard))


@pytest.fixture(scope="module")
def impacts():
    """{guard: (positions every 10 ms (30, n, 3), Newton iterations, steps ending guarded)} of
    the soft rod's first 0.3 s (it lands at ~0.1 s, slides and comes to rest)."""
    out = {}
    for guard in (False, True):
        _, sim = soft_rod(guard)
        frames, rough = [], 0
        for _ in range(300):
            sim.step(1)
            rough += int(sim.implicit_integrator().solver.rough.any())
            if sim.time >= 0.01 * (len(frames) + 1) - 1e-9:
                frames.append(sim.get_state("rod")["positions"][0].copy())
        out[guard] = (np.array(frames), sim.implicit_integrator().stats["iterations"], rough)
    return out


def test_the_guard_engages_at_the_impact_and_saves_newton_iterations(impacts):
    """The landing's frictional contacts make Newton's line search reject trial points, so some
    steps end guarded (none can without the guard: its flags stay 0); and the guarded run needs
    fewer Newton iterations: extrapolating the falling velocities past the first contacts lands
    the guess on the wrong side of the contact's and the friction's kinks (the built-in scene's
    0.6 s: 2.88 against 3.28 Newton iterations (corrections) per step, 3.46 against 4.38
    residual evaluations at Newton's points; here 1,225 against 1,432 iterations in 0.3 s,
    1,562 against 2,027 residual evaluations, 2026-12-06). The path is the same within 1e-6 m
    (measured 2.0e-8 m): only Newton's starting points differ, both runs stop within
    tol = 1e-8 of an edge (7e-11 m) per step, and the impact's stick and slip carry the
    different stopping points over (the unified and the discrete engines, whose Newtons differ
    more, part by 4.9e-5 m on this rod: tests/validation/test_der_kind_ground.py)."""
    (path_off, iterations_off, rough_off), (path_on, iterations_on, rough_on) = (
        impacts[False], impacts[True])
    assert rough_off == 0 and rough_on > 0
    assert iterations_on < iterations_off
    assert np.abs(path_on - path_off).max() < 1e-6


def test_a_run_saved_at_a_guarded_step_continues_bit_for_bit(tmp_path):
    """The guard's flags are the integrator's memory (save_state): a run saved right after a
    guarded step and loaded into a new simulation makes the same next 50 steps bit for bit (a
    lost flag would extrapolate the loaded run's first step)."""
    scene, sim = soft_rod(True)
    for _ in range(300):
        sim.step(1)
        if sim.implicit_integrator().solver.rough.any():
            break
    assert sim.implicit_integrator().solver.rough.any()
    sim.save_state(tmp_path / "guarded.npz")
    sim.step(50)
    _, loaded = soft_rod(True)
    loaded.load_state(tmp_path / "guarded.npz")
    loaded.step(50)
    for key, value in sim.get_state("rod").items():
        assert np.array_equal(loaded.get_state("rod")[key], value), key
