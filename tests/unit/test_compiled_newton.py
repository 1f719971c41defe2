"""The compiled Newton loop (softmech.implicit.compiled) against the Python loop
(softmech.implicit.newton.ImplicitStepper.newton, NewtonOptions(compiled=False)): the same
states bit for bit and the same Newton statistics, over many steps, on the validated cantilever
and the built-in rod scenes; failing steps go back to Python (halving, the same error); the loop
is used only where every binding has a compiled form and the matrix is banded."""
import numpy as np
import pytest

import softmech as sm
from softmech.implicit.compiled import CompiledForm
from softmech.implicit.newton import NewtonOptions
from softmech.kernels.implicit_bindings import FixedDofsArgs, no_forces
from softmech.kernels.newton import OK
from softmech.scenarios import SCENES
from softmech.simulation import SimulationDiverged
from softmech.validation.der import cantilever


def rod_scene():
    """A clamped rod with every compiled binding kind: stretch, bend-twist with a natural
    curvature table and a wave on its natural twist, gravity, buoyancy, a tip force, ground
    contact with friction, viscous friction."""
    scene = sm.Scene()
    curvature = {"times": [0.0, 0.05], "values": [np.zeros((9, 2)), np.tile([-20.0, 5.0], (9, 1))]}
    rod = scene.add_der_rod(name="arm", start=(0.0, 0.0, 0.01), direction=(1, 0, 0), length=0.2,
                            n_elems=10, radius=2e-3, density=1200.0, youngs_modulus=2e6,
                            natural_curvature=curvature)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    scene.add(sm.Gravity())
    scene.add(sm.Buoyancy(300.0))
    scene.add(sm.NodeForce(rod, 10, (0.0, 0.01, -0.005), name="tip"))
    scene.add(sm.GroundContact(rod, stiffness=50.0, distance=2e-3,
                               friction=sm.IsotropicFriction(0.3, slip_velocity=1e-3)))
    scene.add(sm.LinearDamping(rod, 0.05, name="viscous_friction"))
    scene.add(sm.ParameterWave("arm.natural_twist", 0.5, 4.0, phase=np.linspace(0, 1, 9),
                               ramp_time=0.02, name="twister"))
    return scene


CASES = {  # name: (build, dt [s], steps, newton options)
    "cantilever": (lambda: cantilever(1e9)[0], 1e-3, 400, dict(line_search=False)),
    "falling_rod": (lambda: SCENES["falling_rod"].build()[0], 1e-3, 300, {}),
    "pneunet": (lambda: SCENES["pneunet"].build()[0], 5e-3, 250, {}),
    "every_binding": (rod_scene, 2e-3, 150, {}),
}


def run(build, dt, steps, record_every=7, **options):
    sim = build().compile(dt=dt, newton=NewtonOptions(**options))
    out = sim.run(steps * dt, record=sm.Every(record_every * dt, ("positions", "angles",
                                                                  "velocities")))
    return sim, out


def stats(sim):
    st = sim.newton_stats
    return st.steps, st.iterations, st.evaluations, st.solves, st.halvings


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_compiled_loop_gives_the_python_loops_states_bit_for_bit(case):
    build, dt, steps, options = CASES[case]
    fast, a = run(build, dt, steps, **options)
    slow, b = run(build, dt, steps, compiled=False, **options)
    assert fast.stepper.loop is not None, fast.stepper.loop_unavailable
    assert slow.stepper.loop is None
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    np.testing.assert_array_equal(fast.q, slow.q)
    np.testing.assert_array_equal(fast.v, slow.v)
    for key, value in fast.history().items():          # the rods' reference frames
        np.testing.assert_array_equal(value, slow.history()[key], err_msg=key)
    assert stats(fast) == stats(slow)
    assert fast.newton_stats.iterations > fast.newton_stats.steps    # Newton did iterate
    # the per-world parameters the actuators write (the last evaluation's values)
    for key in fast.params:
        np.testing.assert_array_equal(fast.params[key], slow.params[key], err_msg=key)


def test_batched_worlds_equal_single_runs_and_a_restart_continues_bit_for_bit(tmp_path):
    stiffness = [1e6, 5e6, 2e7]
    batched = rod_scene().compile(worlds=3, dt=2e-3, engine="discrete")
    batched.params["arm.youngs_modulus"] = np.array(stiffness)
    batched.run(0.1)
    for b, E in enumerate(stiffness):
        single = rod_scene().compile(dt=2e-3, engine="discrete")
        single.params["arm.youngs_modulus"] = E
        single.run(0.1)
        np.testing.assert_array_equal(single.q[0], batched.q[b])
    batched.save_state(tmp_path / "half.npz")
    straight = batched.run(0.1, record=sm.Every(0.02, ("positions",)))
    again = rod_scene().compile(worlds=3, dt=2e-3, engine="discrete")
    again.params["arm.youngs_modulus"] = np.array(stiffness)
    again.load_state(tmp_path / "half.npz")
    resumed = again.run(0.1, record=sm.Every(0.02, ("positions",)))
    np.testing.assert_array_equal(straight["arm.positions"], resumed["arm.positions"])


def test_a_step_the_compiled_loop_cannot_converge_is_halved_in_python_as_before():
    # one Newton iteration per step is too few for the full step: the compiled loop reports
    # it, the Python loop halves the step (its sub-steps run compiled again)
    options = dict(max_iterations=2, max_halvings=12, line_search=False)
    build, dt = CASES["cantilever"][:2]
    fast, a = run(build, 5e-3, 40, **options)
    slow, b = run(build, 5e-3, 40, compiled=False, **options)
    assert fast.stepper.loop is not None
    assert fast.newton_stats.halvings > 0
    np.testing.assert_array_equal(a["rod.positions"], b["rod.positions"])
    assert stats(fast) == stats(slow)


def test_a_step_that_fails_stops_with_the_python_loops_error_and_keeps_the_state():
    options = dict(max_iterations=1, max_halvings=0, rtol=1e-12, xtol=0.0)
    messages = []
    for compiled in (True, False):
        sim = cantilever(1e9)[0].compile(dt=1e-2, newton=NewtonOptions(compiled=compiled,
                                                                        **options))
        sim.run(0.0)
        before = sim.q.copy()
        with pytest.raises(SimulationDiverged) as err:
            sim.run(0.05)
        np.testing.assert_array_equal(sim.q, before)
        messages.append(str(err.value))
    assert "failed in world 0" in messages[0]
    assert messages[0] == messages[1]


def test_the_python_loop_runs_where_a_binding_has_no_compiled_form():
    scene, rod = cantilever(1e9, n=10)
    scene.add(sm.NodeUserForce(rod, lambda t, x, v: np.zeros_like(x), name="user"))
    sim = scene.compile(dt=1e-3, engine="discrete")
    assert sim.stepper.loop is None
    assert "'user'" in sim.stepper.loop_unavailable
    # a natural curvature given as a function of time: written from Python at every call
    scene = sm.Scene()
    scene.add_der_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), length=0.1, n_elems=5,
                      radius=1e-3, density=1000.0, youngs_modulus=1e6,
                      natural_curvature=lambda t: np.full((4, 2), t))
    scene.add(sm.FixNodes("rod", nodes=[0, 1], angles=[0]))
    sim = scene.compile(dt=1e-3, engine="discrete")
    assert sim.stepper.loop is None and "rod.bend_twist" in sim.stepper.loop_unavailable
    sim.run(0.005)
    np.testing.assert_array_equal(sim.params["rod.natural_curvature"][0], np.full((4, 2), 0.005))
    assert cantilever(1e9, n=10)[0].compile(
        dt=1e-3, engine="discrete").stepper.loop is not None


def test_newton_options_compiled_must_be_a_bool():
    with pytest.raises(ValueError, match="NewtonOptions.compiled = 1 is not allowed"):
        NewtonOptions(compiled=1)


def test_a_compiled_form_refuses_arguments_that_share_memory():
    values = np.zeros(4)
    with pytest.raises(ValueError, match="dofs and values share memory"):
        CompiledForm("fix", FixedDofsArgs(values.view(np.int64), values), forces=no_forces)


def banded_system(n=30, bw=3, seed=0):
    """A random symmetric band (n x n, half bandwidth bw, strongly diagonal), its pattern."""
    from softmech.implicit.linear import JacobianPattern
    rng = np.random.default_rng(seed)
    rows, cols = np.nonzero(np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= bw)
    A = np.zeros((n, n))
    A[rows, cols] = rng.normal(size=rows.size)
    A = A + A.T + np.diag(np.full(n, 4.0 * bw))
    return A, rows, cols, JacobianPattern(n, rows, cols, [])


@pytest.mark.parametrize("kind", ["positive definite", "indefinite", "not symmetric"])
def test_the_banded_solve_solves_symmetric_indefinite_and_unsymmetric_matrices(kind):
    # the Newton matrix is diag(d) - J; the solve tries the Cholesky where A is symmetric and
    # falls back to the LU where A is indefinite (dpbsv stops) or not symmetric
    from softmech.kernels.newton import _symmetric_upper
    A, rows, cols, pattern = banded_system()
    if kind == "indefinite":
        A[5, 5] = -A[5, 5]
    if kind == "not symmetric":
        A[3, 4] += 0.5
    d = np.diag(A).copy()
    J = -A[rows, cols]
    J[rows == cols] += d[rows[rows == cols]]         # J's diagonal: d - A_ii
    rhs = np.arange(1.0, 31.0)
    x = pattern.solve(J, d, rhs)
    np.testing.assert_allclose(A @ x, rhs, rtol=0, atol=1e-12 * np.abs(rhs).max())
    band = pattern.band
    from softmech.kernels.newton import assemble_band
    assemble_band(J, band.slot_of_entry, band.diag_slot, d, band.ab)
    assert _symmetric_upper(band.ab, band.chol, 3, 30) == (kind != "not symmetric")


def test_round_off_asymmetry_of_cancelled_entries_still_counts_as_symmetric():
    # an entry that cancels to ~1e-13 next to a diagonal of ~10 differs from its mirror by far
    # more than its own size in relative terms, and still by nothing on the matrix's scale
    from softmech.kernels.newton import _symmetric_upper, assemble_band
    A, rows, cols, pattern = banded_system()
    A[7, 9], A[9, 7] = 2.8425755e-13, 2.8425712e-13
    band = pattern.band
    assemble_band(np.ascontiguousarray(-A[rows, cols]), band.slot_of_entry, band.diag_slot,
                  np.zeros(30), band.ab)
    assert _symmetric_upper(band.ab, band.chol, 3, 30)
    A[7, 9] = 1e-9                                   # 1e-10 of the diagonal: not round-off
    assemble_band(np.ascontiguousarray(-A[rows, cols]), band.slot_of_entry, band.diag_slot,
                  np.zeros(30), band.ab)
    assert not _symmetric_upper(band.ab, band.chol, 3, 30)


def test_a_singular_banded_matrix_is_reported():
    from softmech.implicit.linear import SingularJacobian
    A, rows, cols, pattern = banded_system()
    A[:, 4] = A[4, :] = 0.0
    with pytest.raises(SingularJacobian):
        pattern.solve(np.ascontiguousarray(-A[rows, cols]), np.zeros(30), np.ones(30))


@pytest.mark.parametrize("relaxed, E, dt, n, backtracks", [
    (4, 1e7, 0.5, 6, False),   # the default budget: full steps kept while |R| rises
    (2, 1e7, 0.1, 6, True),    # budget spent: back to the watchdog point and backtracking
    (0, 1e8, 0.02, 10, True),  # plain Armijo backtracking (relaxed_steps=0)
])
def test_the_watchdog_line_search_is_the_same_in_both_loops(relaxed, E, dt, n, backtracks):
    """Large steps of a soft cantilever: full Newton steps that raise |R| (the rotation
    stretches the edges) are kept within the solve's budget, or make the line search
    backtrack; the compiled loop runs all n steps itself (status OK) and takes the Python
    loop's iterates bit for bit."""
    options = dict(relaxed_steps=relaxed)
    fast = cantilever(E)[0].compile(dt=dt, newton=NewtonOptions(**options))
    slow = cantilever(E)[0].compile(dt=dt, newton=NewtonOptions(compiled=False, **options))
    q, v = fast.q[0].copy(), fast.v[0].copy()
    status, done, counts = fast.stepper.loop.run(0, q, v, 0.0, 0, dt, n, np.inf)
    assert (status, done) == (OK, n)
    slow.step(n)
    np.testing.assert_array_equal(q, slow.q[0])
    np.testing.assert_array_equal(v, slow.v[0])
    st = slow.newton_stats
    assert tuple(counts) == (st.steps, st.iterations, st.evaluations, st.solves)
    assert st.halvings == 0
    # evaluations beyond the predictor's and one per iteration are backtracking trials
    assert (st.evaluations > st.steps + st.iterations) == backtracks


def test_worlds_stepped_on_worker_threads_equal_worlds_stepped_one_by_one():
    # run_worlds spreads the worlds over numba's threads, each with its own NewtonWork and
    # scratch copies; one thread steps them one after another: the same numbers bit for bit
    # (the per-world loop; in lockstep: tests/unit/test_lockstep_newton.py)
    import numba
    stiffness = np.array([1e6, 5e6, 2e7, 4e6, 8e6])
    threads = numba.get_num_threads()
    results = []
    try:
        for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(n)
            sim = rod_scene().compile(worlds=5, dt=2e-3, newton=NewtonOptions(lockstep=False))
            sim.params["arm.youngs_modulus"] = stiffness
            out = sim.run(0.06, record=sm.Every(0.02, ("positions", "angles")))
            results.append((sim, out))
            assert len(sim.stepper.loop._contexts) == n
    finally:
        numba.set_num_threads(threads)
    (one, a), (many, b) = results
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    np.testing.assert_array_equal(one.v, many.v)
    for key, value in one.history().items():
        np.testing.assert_array_equal(value, many.history()[key], err_msg=key)
    assert stats(one) == stats(many)


def test_argument_tuples_not_known_to_be_thread_safe_run_on_one_thread():
    from collections import namedtuple

    from softmech.kernels.implicit_bindings import SCRATCH, threads_safe
    Unknown = namedtuple("Unknown", ["x"])
    assert not threads_safe(Unknown(np.zeros(3)), 4)
    assert threads_safe(FixedDofsArgs(np.zeros(1, np.int64), np.zeros(1)), 4)
    bend = rod_scene().compile(worlds=2, dt=2e-3, engine="discrete").stepper.loop.forms[1].args
    assert type(bend).__name__ == "DerBendTwistArgs" and set(SCRATCH["DerBendTwistArgs"]) <= \
        set(bend._fields)
    assert threads_safe(bend, 2)                       # its tables write per-world rows
    assert not threads_safe(bend._replace(curv=bend.curv[:1]), 2)   # ... not a shared one


def test_one_call_steps_every_world_and_reports_each_worlds_status():
    # run_worlds makes one compiled call per thread for all its worlds (run_steps loops over
    # them): a world that stops (here: its state beyond the `exploding` bound after its first
    # step) reports its own status and steps done, and the worlds after it in the same call
    # still take all their steps, bit for bit as when each world is stepped alone (`run`)
    from softmech.kernels.newton import COUNTS_FIELDS, EXPLODED
    sim = rod_scene().compile(worlds=3, dt=2e-3, engine="discrete")
    loop = sim.stepper.loop
    q, v = sim.q.copy(), sim.v.copy()
    v[1, -1] = 50.0            # world 1: its last DOF (a twist) spins at 50 rad/s
    bound = 10.0               # |q|, |v| of worlds 0 and 2 stay far below; world 1's do not
    start = sim.snapshot()     # the rods' reference frames (history) that the steps update
    alone = []
    for b in range(3):
        qb, vb = q[b].copy(), v[b].copy()
        alone.append(loop.run(b, qb, vb, 0.0, 0, 2e-3, 5, bound) + (qb, vb))
    sim.restore(start)
    status, counts = loop.run_worlds(q, v, 0.0, 0, 2e-3, 5, bound)
    assert status.tolist() == [OK, EXPLODED, OK]
    assert counts.shape == (3, len(COUNTS_FIELDS))
    for b in range(3):
        state, done, count, qb, vb = alone[b]
        assert state == status[b] and done == (5 if b != 1 else 0)
        np.testing.assert_array_equal(count, counts[b])
        np.testing.assert_array_equal(qb, q[b])
        np.testing.assert_array_equal(vb, v[b])
