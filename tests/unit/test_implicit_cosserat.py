"""The implicit integrator of Cosserat rods and rigid bodies (softmech.integrators.implicit):
its sparse LU, its coloring, its options, the constraints it finds, batching and failures."""
import numpy as np
import pytest
import scipy.sparse

import softmech as sm
from softmech.integrators.sparse_pattern import factor_pattern
from softmech.kernels.sparse_lu import EIGHT, lu_factor, lu_solve, single_factor, work_rows
from softmech.kernels.sparse_lu_eight import lu_factor_eight, lu_solve_eight, prepare_factor
from softmech.kernels.sparse_lu import _block_width, _chain_end


def _random_system(n, density, lanes, seed, per_node=1):
    """A random sparse pattern of n DOFs, couplings of density `density` between nodes of
    per_node DOFs each (3: every DOF of two coupled nodes coupled, as a shell's or a discrete
    rod's), diagonally dominant values for each lane."""
    rng = np.random.default_rng(seed)
    nodes = n // per_node
    A = scipy.sparse.random(nodes, nodes, density=density, random_state=seed, format="coo")
    block = np.arange(per_node)
    rows = (per_node * A.row[:, None, None] + block[:, None] + 0 * block).ravel()
    cols = (per_node * A.col[:, None, None] + 0 * block[:, None] + block).ravel()
    fp = factor_pattern(n, rows, cols)
    matrices, values = [], np.zeros((fp.nnz, lanes))
    for lane in range(lanes):
        v = rng.standard_normal(fp.coupling_rows.size)
        v[fp.coupling_rows == fp.coupling_cols] += 2.0 * np.sqrt(n * density) + 2.0
        matrices.append(scipy.sparse.csr_matrix(
            (v, (fp.coupling_rows, fp.coupling_cols)), shape=(n, n)).toarray())
        values[fp.entry_pos, lane] = v
    return fp, matrices, values


def _solved(fp, factor, b):
    """x (n, W) with A x = b in each lane, b (n, W) in DOF numbering, from the factor's values
    (nnz, W) (lu_solve in the factor's permuted numbering)."""
    permuted = b[fp.perm].copy()
    lu_solve(fp.lptr, fp.uptr, fp.rows, factor, permuted)
    x = np.empty_like(b)
    x[fp.perm] = permuted
    return x


@pytest.mark.parametrize("n, density", [(1, 1.0), (40, 0.1), (250, 0.02)])
def test_sparse_lu_solves_every_lane(n, density):
    """The fixed-pattern LU of each lane solves that lane's matrix (dense solve: 1e-12)."""
    fp, matrices, values = _random_system(n, density, lanes=3, seed=n)
    work = np.zeros((n, 3))
    assert lu_factor(fp.lptr, fp.uptr, fp.rows, values, work, np.ones(3, np.int64)) == -1
    b = np.random.default_rng(1).standard_normal((n, 3))
    x = _solved(fp, values, b)
    for lane, M in enumerate(matrices):
        assert np.allclose(x[:, lane], np.linalg.solve(M, b[:, lane]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n, density", [(1, 1.0), (40, 0.1), (250, 0.02)])
def test_the_single_precision_factor_solves_to_its_rounding(n, density):
    """The solves read the factor rounded to single precision (single_factor), only in the
    flagged lanes (the others keep their copy), and solve in double: each lane's answer must
    be that of the rounded factor, i.e. within the rounding's effect on the solve: a relative
    error of at most cond(A) times the unit roundoff 2^-24 (6e-8) times a small growth factor,
    here 1e-5 for these diagonally dominant matrices (cond ~ 10)."""
    fp, matrices, values = _random_system(n, density, lanes=3, seed=n + 20)
    lu_factor(fp.lptr, fp.uptr, fp.rows, values, np.zeros((n, 3)), np.ones(3, np.int64))
    single = np.full(values.shape, 7.0, np.float32)
    single_factor(values, single, np.array([1, 0, 1]))
    np.testing.assert_array_equal(single[:, 1], 7.0)
    np.testing.assert_array_equal(single[:, [0, 2]], values[:, [0, 2]].astype(np.float32))
    single_factor(values, single, np.ones(3, np.int64))
    b = np.random.default_rng(4).standard_normal((n, 3))
    x = _solved(fp, single, b)
    for lane, M in enumerate(matrices):
        exact = np.linalg.solve(M, b[:, lane])
        assert np.linalg.norm(x[:, lane] - exact) <= 1e-5 * np.linalg.norm(exact)
        # (and not the double factor's answer: the test sees which one was read)
        if n > 1:
            assert np.linalg.norm(x[:, lane] - exact) > 1e-13 * np.linalg.norm(exact)


def test_sparse_lu_factors_only_the_flagged_lanes_and_reports_a_zero_pivot():
    fp, _, values = _random_system(30, 0.1, lanes=2, seed=3)
    kept = values[:, 1].copy()
    lu_factor(fp.lptr, fp.uptr, fp.rows, values, np.zeros((30, 2)), np.array([1, 0]))
    assert np.array_equal(values[:, 1], kept)
    values[:] = 0.0
    assert lu_factor(fp.lptr, fp.uptr, fp.rows, values, np.zeros((30, 2)),
                     np.ones(2, np.int64)) == 0


@pytest.mark.parametrize("precision", [np.float64, np.float32])
@pytest.mark.parametrize("n, density, per_node", [(1, 1.0, 1), (40, 0.1, 1), (250, 0.02, 1),
                                                   (300, 0.015, 3)])
def test_one_lane_is_factored_and_solved_as_among_several_bit_for_bit(n, density, per_node,
                                                                      precision):
    """B = 1 takes the single-lane code (_factor_one, _solve_one: no loops over lanes; the
    factor in chains of columns and blocks of a node's columns): the same operations in the
    same order, so each lane of a 3-lane factor and solve must come out the same bit for bit
    alone; a lane not flagged is left as it is, a zero pivot reported. Nodes of three DOFs
    make blocks of three columns and chains (counted: the test would not try them else)."""
    fp, _, values = _random_system(n, density, lanes=3, seed=n, per_node=per_node)
    if per_node == 3:
        widths = [_block_width(fp.lptr, fp.uptr, fp.rows, j, fp.n) for j in range(fp.n)]
        assert widths.count(3) > n // 30
        chained = [_chain_end(fp.lptr, fp.rows, p, fp.uptr[j]) - fp.rows[p]
                   for j in range(fp.n) for p in range(fp.uptr[j + 1] + 1, fp.uptr[j])]
        assert max(chained) >= 5
    b = np.random.default_rng(2).standard_normal((n, 3))[fp.perm].copy()
    alone = [(values[:, [lane]].copy(), b[:, [lane]].copy()) for lane in range(3)]
    lu_factor(fp.lptr, fp.uptr, fp.rows, values, np.zeros((n, 3)), np.ones(3, np.int64))
    # (the solves read the factor or its single-precision copy: single_factor)
    lu_solve(fp.lptr, fp.uptr, fp.rows, values.astype(precision), b)
    for lane, (v, x) in enumerate(alone):
        assert lu_factor(fp.lptr, fp.uptr, fp.rows, v, np.zeros((work_rows(n, 1), 1)),
                         np.ones(1, np.int64)) == -1
        lu_solve(fp.lptr, fp.uptr, fp.rows, v.astype(precision), x)
        np.testing.assert_array_equal(v[:, 0], values[:, lane])
        np.testing.assert_array_equal(x[:, 0], b[:, lane])
    kept = alone[0][0].copy()
    assert lu_factor(fp.lptr, fp.uptr, fp.rows, kept, np.zeros((work_rows(n, 1), 1)),
                     np.zeros(1, np.int64)) == -1
    np.testing.assert_array_equal(kept, alone[0][0])
    assert lu_factor(fp.lptr, fp.uptr, fp.rows, np.zeros((fp.nnz, 1)),
                     np.zeros((work_rows(n, 1), 1)), np.ones(1, np.int64)) == 0


@pytest.mark.parametrize("n, density, per_node", [(1, 1.0, 1), (40, 0.1, 1), (250, 0.02, 1),
                                                   (300, 0.015, 3)])
def test_eight_lanes_are_factored_as_each_lane_alone_bit_for_bit(n, density, per_node):
    """Blocks of eight lanes take their own code (lu_factor_eight: rows of eight for the SLP
    vectorizer, the pivots' reciprocals in the work array, selects for the lanes not flagged):
    each flagged lane must come out as the single-lane factor of its matrix bit for bit (that
    one in blocks of a node's columns and chains where the nodes have three DOFs), a lane not
    flagged left as it is (even with a zero pivot of its own), and a zero pivot of a flagged
    lane reported at its column."""
    prepare_factor()
    fp, _, values = _random_system(n, density, lanes=EIGHT, seed=n + 8, per_node=per_node)
    work = np.zeros((work_rows(n, EIGHT), EIGHT))
    flags = np.ones(EIGHT, np.int64)
    flags[5] = flags[6] = 0
    values[:, 6] = 0.0                      # (singular, but not flagged)
    before = values.copy()
    assert lu_factor_eight(fp.lptr, fp.uptr, fp.rows, values, work, flags) == -1
    for lane in range(EIGHT):
        alone = before[:, [lane]].copy()
        if flags[lane]:
            lu_factor(fp.lptr, fp.uptr, fp.rows, alone, np.zeros((work_rows(n, 1), 1)),
                      np.ones(1, np.int64))
        np.testing.assert_array_equal(values[:, lane], alone[:, 0])
    singular = before.copy()
    singular[:, 2] = 0.0
    assert lu_factor_eight(fp.lptr, fp.uptr, fp.rows, singular, work, flags) == 0


@pytest.mark.parametrize("precision", [np.float64, np.float32])
@pytest.mark.parametrize("n, density", [(1, 1.0), (40, 0.1), (250, 0.02)])
def test_eight_lanes_are_solved_as_each_lane_alone_bit_for_bit(n, density, precision):
    """Blocks of eight lanes solve with their own code (lu_solve_eight: the solved row read
    into eight locals, rows of eight for the SLP vectorizer), from the factor or its
    single-precision copy (ImplicitOptions.solve_precision): each lane's answer must be the
    single-lane solve's bit for bit, and solve its system (the dense solve: 1e-12 as above in
    double, the rounding's 1e-5 in single: the test above)."""
    prepare_factor(precision == np.float32)
    fp, matrices, values = _random_system(n, density, lanes=EIGHT, seed=n + 9)
    unpermuted = np.random.default_rng(n).standard_normal((n, EIGHT))
    rhs = unpermuted[fp.perm].copy()
    lu_factor(fp.lptr, fp.uptr, fp.rows, values, np.zeros((n, EIGHT)),
              np.ones(EIGHT, np.int64))
    single = values.astype(precision)
    b = rhs.copy()
    lu_solve_eight(fp.lptr, fp.uptr, fp.rows, single, b)
    for lane in range(EIGHT):
        alone = rhs[:, [lane]].copy()
        lu_solve(fp.lptr, fp.uptr, fp.rows, single[:, [lane]].copy(), alone)
        np.testing.assert_array_equal(b[:, lane], alone[:, 0])
    x = np.empty_like(b)
    x[fp.perm] = b
    for lane, M in enumerate(matrices):
        exact = np.linalg.solve(M, unpermuted[:, lane])
        tol = 1e-12 if precision == np.float64 else 1e-5
        assert np.linalg.norm(x[:, lane] - exact) <= tol * np.linalg.norm(exact)


def test_coloring_separates_columns_that_share_a_row():
    """Curtis-Powell-Reid: columns of one color have no row in common, so one residual
    evaluation per color gives every entry."""
    fp, _, _ = _random_system(200, 0.03, lanes=1, seed=5)
    A = scipy.sparse.csc_matrix((np.ones(fp.coupling_rows.size),
                                 (fp.coupling_rows, fp.coupling_cols)), shape=(200, 200))
    for c in range(fp.n_colors):
        cols = np.flatnonzero(fp.color == c)
        rows_hit = A[:, cols].indices
        assert len(rows_hit) == len(set(rows_hit.tolist()))


def _cantilever(n_elems=12, load=(0.0, -15.0, 0.0)):
    scene = sm.Scene()
    beam = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                  length=3.0, n_elems=n_elems, radius=0.25, density=5e3,
                                  youngs_modulus=1e6, shear_modulus=1e4)
    scene.add(sm.Clamp(beam, "first"))
    scene.add(sm.EndLoad(beam, force=load, ramp_time=1.0, name="load"))
    scene.add(sm.LinearDamping(beam, coefficient=1e3, rotational_coefficient=1e3 * 0.25**2 / 4))
    return scene


def test_options_and_scheme_are_validated():
    with pytest.raises(ValueError, match="ImplicitOptions.tol"):
        sm.ImplicitOptions(tol=0.0)
    with pytest.raises(ValueError, match="refresh_rate"):
        sm.ImplicitOptions(refresh_rate=1.5)
    with pytest.raises(ValueError, match="ImplicitOptions.solve_precision.*half"):
        sm.ImplicitOptions(solve_precision="half")
    with pytest.raises(ValueError, match="newton"):
        _cantilever().compile(dt=1e-3, newton=sm.ImplicitOptions())
    with pytest.raises(ValueError, match="scheme"):
        _cantilever().compile(dt=1e-3, scheme="backward")


@pytest.mark.parametrize("frame", ["boundary", "element"])
def test_the_clamp_holds_its_dofs_and_nothing_else(frame):
    """The probe finds exactly the DOFs the Clamp overwrites: node 0's velocity, and element
    0's angular velocity where the clamp holds the element's frame (frame="element"; the
    default clamps through an elastic anchor, a force)."""
    scene = sm.Scene()
    beam = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                  length=1.0, n_elems=8, radius=0.05, density=1e3,
                                  youngs_modulus=1e6)
    scene.add(sm.Clamp(beam, "first", frame=frame))
    sim = scene.compile(dt=1e-2, scheme="implicit_euler")
    kind = sim.implicit_integrator().kinds[0]
    v_mask, w_mask = kind.v_mask[0], kind.w_mask[0]
    assert np.all(v_mask[:, 0] == 0) and np.all(v_mask[:, 1:] == 1)
    assert np.all(w_mask[:, 0] == (0 if frame == "element" else 1))
    assert np.all(w_mask[:, 1:] == 1)


@pytest.mark.parametrize("precision", ["single", "double"])
def test_batched_worlds_equal_single_runs_bit_for_bit(precision):
    """Each lane has its own Jacobian, convergence test and refresh decisions: a batch of
    worlds with different stiffness equals the single runs (no step is halved here), with the
    solves in either precision (ImplicitOptions.solve_precision); the two precisions end
    within Newton's tolerance of each other (1e-8 of the elements' 0.25 m: 2.5e-9 m; they
    were 4e-16 m apart on 2026-12-06, with the same Newton statistics)."""
    moduli = [0.6e6, 1e6, 2e6]
    newton = sm.ImplicitOptions(solve_precision=precision)
    batch = _cantilever().compile(dt=2e-2, scheme="implicit_euler", worlds=3, n_threads=1,
                                  newton=newton)
    batch.params["rod.youngs_modulus"] = np.array(moduli)[:, None]
    batch.step(60)
    assert batch.implicit_integrator().stats["halvings"] == 0
    for b, E in enumerate(moduli):
        single = _cantilever().compile(dt=2e-2, scheme="implicit_euler", newton=newton)
        single.params["rod.youngs_modulus"] = np.array([[E]])
        single.step(60)
        assert np.array_equal(single.get_state()["positions"][0],
                              batch.get_state()["positions"][b])
    other = _cantilever().compile(dt=2e-2, scheme="implicit_euler", worlds=3, n_threads=1,
                                  newton=sm.ImplicitOptions(solve_precision="double" if
                                                            precision == "single" else "single"))
    other.params["rod.youngs_modulus"] = np.array(moduli)[:, None]
    other.step(60)
    np.testing.assert_allclose(other.get_state()["positions"], batch.get_state()["positions"],
                               rtol=0, atol=2.5e-9)


def test_sixteen_worlds_in_single_precision_equal_their_single_runs_bit_for_bit():
    """Blocks of eight lanes (16 worlds: lu_factor_eight, single_factor and lu_solve_eight on
    the single-precision copy) against one world alone (the one-lane code on the same rounded
    factor): a world's results do not depend on its batch in either precision."""
    moduli = np.linspace(0.6e6, 2e6, 16)
    newton = sm.ImplicitOptions(solve_precision="single")
    batch = _cantilever().compile(dt=2e-2, scheme="implicit_euler", worlds=16, newton=newton)
    batch.params["rod.youngs_modulus"] = moduli[:, None]
    batch.step(30)
    for world in (0, 11):
        single = _cantilever().compile(dt=2e-2, scheme="implicit_euler", newton=newton)
        single.params["rod.youngs_modulus"] = np.array([[moduli[world]]])
        single.step(30)
        assert np.array_equal(single.get_state()["positions"][0],
                              batch.get_state()["positions"][world])


def test_a_failing_newton_stops_with_the_state_kept():
    """One Newton iteration allowed and no halving: the step fails, the run stops with
    SimulationDiverged naming the implicit step, and the state is the last good one."""
    sim = _cantilever().compile(dt=0.5, scheme="implicit_euler",
                                newton=sm.ImplicitOptions(max_iterations=1, max_halvings=0))
    before = sim.get_state()["positions"].copy()
    with pytest.raises(sm.SimulationDiverged, match="Newton did not converge"):
        sim.step(4)
    assert np.array_equal(sim.get_state()["positions"], before)
    assert sim.time == 0.0


def _restart_states(tmp_path, worlds, columns=False):
    """(uninterrupted, restarted) positions after 2 x 25 steps: the restarted run saves its
    state after 25 steps and a new simulation of the same scene loads it and takes 25 more.
    columns: the file is rewritten as before 2026-12-06, its factor's columns stored whole
    (without "implicit.factor_layout")."""
    def build():
        sim = _cantilever().compile(dt=2e-2, scheme="implicit_euler", worlds=worlds)
        sim.params["rod.youngs_modulus"] = np.linspace(0.6e6, 2e6, worlds)[:, None]
        return sim
    straight = build()
    straight.step(50)
    first = build()
    first.step(25)
    first.save_state(tmp_path / "state.npz")
    if columns:
        from softmech.integrators.sparse_pattern import columns_of, pass_layout
        pattern = first.implicit_integrator().pattern
        where = pass_layout(*columns_of(pattern.lptr, pattern.uptr))[2]
        saved = dict(np.load(tmp_path / "state.npz"))
        del saved["implicit.factor_layout"]
        saved["implicit.values"] = saved["implicit.values"][:, where]
        np.savez(tmp_path / "state.npz", **saved)
    second = build()
    second.load_state(tmp_path / "state.npz")
    second.step(25)
    return straight.get_state()["positions"], second.get_state()["positions"]


@pytest.mark.parametrize("worlds", [1, 3])
def test_a_failed_step_leaves_the_integrators_memory_as_it_was(worlds):
    """After a failed block the integrator's memory (its kept factor, with the failed step's
    NaN before 2026-12-04: memory() handed out views of it with one world) is the last good
    step's, so the last good state and a restart from it continue as the run would have; with
    several blocks (3 worlds on two threads) too."""
    sim = _cantilever().compile(worlds=worlds, dt=2e-2, scheme="implicit_euler", n_threads=2)
    sim.step(3)
    before = sim.implicit_integrator().memory()
    assert np.any(before["values"] != 0.0)                      # a factor is kept
    velocities = sim.get_state("rod")["velocities"]
    sim.set_state("rod", velocities=np.full_like(velocities, 1e300))     # Newton overflows
    with pytest.raises(sm.SimulationDiverged):
        sim.step(2)
    after = sim.implicit_integrator().memory()
    assert before.keys() == after.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, key)


def test_a_memory_without_its_members_is_refused_naming_them():
    """A state file or results checkpoint whose integrator memory lacks a member raises a
    ValueError naming it (was KeyError), before anything changes."""
    sim = _cantilever().compile(dt=2e-2, scheme="implicit_euler")
    sim.step(2)
    memory = sim.implicit_integrator().memory()
    for key in ("couplings", "values", "factored_h"):
        partial = {k: v for k, v in memory.items() if k != key}
        with pytest.raises(ValueError, match=f"'{key}'.*missing"):
            sim.implicit_integrator().restore_memory(partial)
    with pytest.raises(ValueError, match="factored_h has shape"):
        sim.implicit_integrator().restore_memory({**memory, "factored_h": np.zeros(3)})


@pytest.mark.parametrize("worlds", [1, 3])
def test_a_restart_from_a_saved_state_continues_bit_for_bit(tmp_path, worlds):
    """save_state keeps the integrator's memory (the predictor's last velocities, the kept
    Jacobian factor and its age, the sparsity: Simulation.history): without it the restarted
    run refactors and does not extrapolate at its first step and ends 1.6e-15 m away."""
    straight, restarted = _restart_states(tmp_path, worlds)
    assert np.array_equal(straight, restarted)
    assert np.abs(straight).max() > 0.01                      # the beam did bend


def test_a_state_saved_with_the_factors_columns_whole_continues_bit_for_bit(tmp_path):
    """A state file written before the factor was stored in the order of the solve's passes
    (2026-12-06: no "implicit.factor_layout", each column's values together) is reordered on
    loading: the restart continues bit for bit; a layout this version does not know is
    refused."""
    straight, restarted = _restart_states(tmp_path, 3, columns=True)
    assert np.array_equal(straight, restarted)
    sim = _cantilever().compile(dt=2e-2, scheme="implicit_euler")
    sim.step(2)
    memory = sim.implicit_integrator().memory()
    with pytest.raises(ValueError, match="factor_layout 2 is not known"):
        sim.implicit_integrator().restore_memory({**memory, "factor_layout": np.array(2)})


def test_a_results_file_resumes_an_implicit_run_bit_for_bit(tmp_path):
    """The results file's checkpoint carries the same memory (its history group)."""
    import h5py

    from softmech.resultsfile import record_to_file
    from softmech.resultsfile.writer import HISTORY

    run = dict(duration=0.6, every=0.04, fields=("positions",), checkpoint_every=0.2,
               flush_seconds=0.0, scene_text="[scene]\nname = 'beam'\n", scene_name="beam")
    reference = tmp_path / "straight.h5"
    record_to_file(_cantilever().compile(dt=2e-2, scheme="implicit_euler"), reference, **run)
    path = tmp_path / "resumed.h5"
    calls = []

    def interrupted(sim):
        calls.append(sim.time)
        if len(calls) == 12:
            raise KeyboardInterrupt
        return sim.get_state()["positions"][:, -1, 1]

    with pytest.raises(KeyboardInterrupt):
        record_to_file(_cantilever().compile(dt=2e-2, scheme="implicit_euler"), path,
                       recorders=[sm.Recorder("tip", interrupted, "m")], **run)
    with h5py.File(path, "r") as f:
        assert any(k.startswith("implicit.") for k in f[f"checkpoint/{HISTORY}"])
    record_to_file(_cantilever().compile(dt=2e-2, scheme="implicit_euler"), path,
                   recorders=[sm.Recorder("tip", lambda s: s.get_state()["positions"][:, -1, 1],
                                          "m")], resume=True, **run)
    with h5py.File(reference, "r") as a, h5py.File(path, "r") as b:
        assert np.array_equal(a["rods/rod/positions"][:], b["rods/rod/positions"][:])
