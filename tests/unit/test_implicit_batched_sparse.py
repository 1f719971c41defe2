"""The worlds of a sparse implicit scene (shells) stepped side by side on worker threads
(softmech.implicit.worlds): the same numbers as one thread and as single runs, bit for bit,
and the same error for the same world when one fails."""
import numba
import numpy as np
import pytest

import softmech as sm
from shell_fixture import pressed_plate
from softmech.implicit import multigrid, multigrid_hierarchy, sparse_solve
from softmech.implicit.newton import NewtonOptions
from softmech.run_loop import SimulationDiverged

PRESSURES = [20.0, 60.0, 5.0]


@pytest.fixture(params=["ilu", "amg"])
def solver(request, monkeypatch):
    """Every sparse system of the small test plates through ReusedILU (GMRES with incomplete
    LU factors) or ReusedAMG (with hierarchies of several levels)."""
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 0)
    if request.param == "amg":
        monkeypatch.setattr(multigrid, "AMG_MIN_NODES", 0)
        monkeypatch.setattr(multigrid_hierarchy, "MAX_COARSE", 12)
    return request.param


def run(scene, worlds, threads, pressures, duration=0.03, newton=NewtonOptions(rtol=1e-10)):
    """Compile (dt 2 ms), set the pressures, run with `threads` numba threads; (simulation,
    the recorded positions)."""
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(threads)
        sim = scene.compile(worlds=worlds, dt=2e-3, newton=newton)
        sim.params["pressure.pressure"] = pressures
        out = sim.run(duration, record=sm.Every(0.01, ("positions", "angles")))
    finally:
        numba.set_num_threads(before)
    return sim, out


def counters(sim):
    """The sparse solvers' counters per world (what their reuse rules decided)."""
    keys = ("factorizations", "setups", "refreshes", "direct_solves", "krylov_solves",
            "krylov_iterations", "fallbacks")
    return {b: tuple(getattr(s, k, None) for k in keys)
            for b, s in sorted(sim.stepper.pattern.sparse_solvers.items())}


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_worlds_on_threads_equal_one_thread_and_single_runs(solver, bending):
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    scene = pressed_plate(bending=bending, divisions=8)
    one, a = run(scene, 3, 1, PRESSURES)
    many, b = run(scene, 3, threads, PRESSURES)
    assert one.stepper.pattern.solver == solver
    assert len(many._world_steps.steppers()) == threads     # the threads did step worlds
    assert np.ptp(a["plate.positions"][:, -1, :, 2]) > 1e-5   # the worlds differ
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    np.testing.assert_array_equal(one.v, many.v)
    for key, value in one.history().items():                 # mid-edge frames
        np.testing.assert_array_equal(value, many.history()[key], err_msg=key)
    assert one.newton_stats == many.newton_stats
    assert counters(one) == counters(many)
    # and each world as a run of its own
    single, c = run(scene, 1, 1, PRESSURES[2:])
    for key in ("plate.positions", "plate.angles"):
        np.testing.assert_array_equal(c[key][0], b[key][2], err_msg=key)
    assert counters(single)[0] == counters(many)[2]


def test_the_first_failing_world_stops_the_run_whatever_the_threads():
    # one Newton iteration and no halving allowed: world 0 (no pressure, at rest) is in
    # equilibrium, worlds 1 and 2 need more: the run stops at the first step, naming world 1,
    # with every world back where that step started
    scene = pressed_plate(divisions=6)
    errors, states = [], []
    strict = NewtonOptions(max_iterations=1, max_halvings=0)
    for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
        with pytest.raises(SimulationDiverged) as err:
            run(scene, 3, threads, [0.0, 20.0, 20.0], duration=0.01, newton=strict)
        errors.append((str(err.value), err.value.worlds, err.value.time))
        states.append(err.value.state["plate"]["positions"])
    assert errors[0] == errors[1] and errors[0][1] == (1,) and errors[0][2] == 0.0
    assert "no convergence in 1 Newton iterations" in errors[0][0]
    np.testing.assert_array_equal(states[0], states[1])
    np.testing.assert_array_equal(states[0], np.broadcast_to(states[0][0], states[0].shape))


def test_a_binding_not_known_to_be_thread_safe_keeps_one_thread():
    scene = pressed_plate(divisions=4)
    scene.add(sm.NodeUserForce("plate", lambda t, x, v: np.zeros_like(x)))
    sim = scene.compile(worlds=2, dt=2e-3, engine="discrete")     # (its worlds' threads)
    assert sim.stepper.for_thread(2) is None
    assert sim._world_steps.steppers() == [sim.stepper]
