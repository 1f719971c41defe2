"""The lockstep Newton loop (NewtonOptions.lockstep; softmech.implicit.compiled
run_steps_lockstep) and its solve across worlds (softmech.kernels.band_lanes): the worlds of a
thread advance together, each with its own iterations, line search and status.

- the lanes solve is LAPACK's banded LU with partial pivoting: its answers equal a dense solve's
  to round-off, and a lane's answer is the same bit for bit whatever the other lanes hold and
  however many there are;
- so a world's results in lockstep do not depend on the batch (bit for bit against B = 1 in
  lockstep), a world that fails does not change the others, restarts continue bit for bit;
- against the per-world loop (LAPACK's Cholesky or LU) they differ by the solve's round-off
  only, which the Newton iterations keep within the solver's tolerance;
- the bending-twisting forces are evaluated across worlds too (softmech.kernels.
  der_bend_twist_lanes), and the converged steps' frames accepted across worlds
  (softmech.kernels.der_frames_lanes): the same operations per world as the per-world
  kernels, so the same numbers bit for bit, whatever the other lanes hold.
"""
import numba
import numpy as np
import pytest

import softmech as sm
from softmech.implicit.newton import NewtonOptions
from softmech.kernels.band_lanes import (LANES, allocate, assemble_lanes, band_lu_solve_lanes,
                                         close_lanes, compile_assembly)
from softmech.implicit.compiled import lockstep_work
from softmech.kernels.newton import NONFINITE, OK
from softmech.scenarios.discrete import build_falling_rod, build_pneunet

DT = 1e-3


def band_matrix(n, kd, rng):
    """A random unsymmetric band matrix A (n x n, half bandwidth kd) whose partial pivoting
    swaps rows (a weak diagonal), and the rows and columns of its band's entries: (A, rows,
    cols)."""
    rows, cols = np.nonzero(np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= kd)
    A = np.zeros((n, n))
    A[rows, cols] = rng.normal(size=rows.size)
    A[np.arange(n), np.arange(n)] *= 0.1
    return A, rows, cols


def lanes_solve(matrices, rhs, kd):
    """Solve each (A, entries) of `matrices` (at most LANES) with rhs in the lanes of one
    band_lu_solve_lanes call; returns (solutions (n, L), info (L,))."""
    from softmech.implicit.linear import JacobianPattern
    n = rhs.shape[0]
    L = len(matrices)
    _, rows, cols = matrices[0]
    band = JacobianPattern(n, rows, cols, []).band
    s = allocate(n, kd, kd)
    s.ab[:] = np.nan                        # every entry is written before it is read
    s.rhs[:] = np.nan
    # the Newton matrix diag(d) - J with d = 0: J = -A, lane w from row L - 1 - w of J
    J = np.array([-A[r, c] for A, r, c in matrices[::-1]]).T     # (nnz, worlds)
    lane_world = np.zeros(LANES, np.int64)
    lane_world[:L] = np.arange(L)[::-1]
    assemble_lanes(J, lane_world, band.slot_of_entry, s.ab, L)
    s.rhs[:, :L] = rhs[:, None]
    diagonal = np.zeros((L, n))
    close_lanes(s.ab, L, band.diag_slot, diagonal, lane_world)
    band_lu_solve_lanes(s, L)
    return s.rhs[:, :L].copy(), s.info[:L].copy()


def test_the_lanes_solve_is_a_banded_lu_with_pivoting_and_each_lane_is_independent():
    rng = np.random.default_rng(1)
    n, kd = 40, 4
    matrices = [band_matrix(n, kd, rng) for _ in range(LANES)]
    rhs = rng.normal(size=n)
    x, info = lanes_solve(matrices, rhs, kd)
    assert not info.any()
    for w, (A, _, _) in enumerate(matrices):
        # backward stable: the residual at round-off of |A| |x| (LU with partial pivoting)
        scale = np.abs(A).max() * np.abs(x[:, w]).max() * n
        np.testing.assert_allclose(A @ x[:, w], rhs, rtol=0, atol=1e-13 * scale)
    # a lane's answer, bit for bit, alone, among fewer lanes, at another place
    for w in (0, 4, LANES - 1):
        alone, _ = lanes_solve([matrices[w]], rhs, kd)
        np.testing.assert_array_equal(alone[:, 0], x[:, w])
        moved, _ = lanes_solve([matrices[(w + 1) % LANES], matrices[w]], rhs, kd)
        np.testing.assert_array_equal(moved[:, 1], x[:, w])


def test_a_singular_lane_is_reported_and_leaves_the_others_alone():
    rng = np.random.default_rng(2)
    n, kd = 30, 3
    matrices = [band_matrix(n, kd, rng) for _ in range(3)]
    A, r, c = matrices[1]
    A = A.copy()
    A[:, 7] = 0.0                           # column 7 zero: U(7, 7) = 0 in any elimination
    matrices[1] = (A, r, c)
    rhs = rng.normal(size=n)
    x, info = lanes_solve(matrices, rhs, kd)
    assert info[0] == 0 and info[2] == 0 and info[1] == 8
    for w in (0, 2):
        np.testing.assert_array_equal(x[:, w], lanes_solve([matrices[w]], rhs, kd)[0][:, 0])


@pytest.mark.parametrize("lanes", ["consecutive", "shuffled", "fewer"])
def test_each_lane_is_assembled_as_the_per_world_band_bit_for_bit(lanes):
    # assemble_lanes + close_lanes against softmech.kernels.newton.assemble_band, the
    # per-world loop's assembly of diag(d) - J, world by world: the same sums in the same
    # order, subtracted instead of added then negated (exact: rounding to nearest is
    # symmetric), so tolerance zero. Every entry twice (repeated slots, as the bindings'
    # overlapping stencils) and ten worlds: eight consecutive ones (the constant-length loop),
    # the same shuffled and five of them (the general loop); compiled as the lockstep loop
    # compiles it, with LLVM's SLP vectorizer (band_lanes.compile_assembly).
    from softmech.implicit.linear import JacobianPattern
    from softmech.kernels.newton import assemble_band
    rng = np.random.default_rng(5)
    n, kd, worlds = 30, 3, 10
    _, rows, cols = band_matrix(n, kd, rng)
    rows, cols = np.concatenate([rows, rows]), np.concatenate([cols, cols])
    band = JacobianPattern(n, rows, cols, []).band
    J = rng.normal(size=(rows.size, worlds))              # (nnz, worlds): LockstepWork.J
    diagonal = rng.uniform(1.0, 2.0, size=(worlds, n))
    lane_world = {"consecutive": np.arange(2, 2 + LANES), "fewer": np.array([7, 1, 4, 9, 2]),
                  "shuffled": rng.permutation(np.arange(2, 2 + LANES))}[lanes]
    m = lane_world.size
    s = allocate(n, kd, kd)
    s.ab[:] = np.nan                        # every entry is written before it is read
    lw = np.zeros(LANES, np.int64)
    lw[:m] = lane_world
    compile_assembly(J, band.slot_of_entry, s.ab)    # as lockstep_work: the SLP compile
    assemble_lanes(J, lw, band.slot_of_entry, s.ab, m)
    close_lanes(s.ab, m, band.diag_slot, diagonal, lw)
    for w, world in enumerate(lane_world):
        ab = np.full(band.ab.shape, np.nan)
        assemble_band(np.ascontiguousarray(J[:, world]), band.slot_of_entry, band.diag_slot,
                      diagonal[world], ab)
        np.testing.assert_array_equal(s.ab[:-1, w], ab[:-1])
    assert np.abs(s.ab[:-1, :m]).max() > 0


def test_the_solve_compiled_with_the_slp_vectorizer_equals_numbas_plain_compile_bit_for_bit():
    """allocate compiles the lanes LU with LLVM's SLP vectorizer (for that kernel only,
    softmech.kernels.compile_slp_vectorized): SIMD instructions for the same operations in the
    same order, no fast-math, so every entry of L, U and the solutions must be the plain
    compile's exactly (and the overload must be the one the solve calls)."""
    from softmech.kernels import KERNEL_OPTIONS, band_lanes
    rng = np.random.default_rng(3)
    n, kd = 40, 4
    matrices = [band_matrix(n, kd, rng) for _ in range(LANES)]
    rhs = rng.normal(size=n)
    x, _ = lanes_solve(matrices, rhs, kd)              # allocate, then the SLP-compiled solve
    s = allocate(n, kd, kd)
    assert len(band_lanes._solve.overloads) >= 1       # compiled by allocate, before any call
    options = {k: v for k, v in KERNEL_OPTIONS.items() if k != "cache"}
    plain = numba.njit(**options)(band_lanes._solve.py_func)
    from softmech.implicit.linear import JacobianPattern
    _, rows, cols = matrices[0]
    band = JacobianPattern(n, rows, cols, []).band
    J = np.array([-A[r, c] for A, r, c in matrices]).T           # (nnz, worlds)
    lane_world = np.arange(LANES)
    assemble_lanes(J, lane_world, band.slot_of_entry, s.ab, LANES)
    close_lanes(s.ab, LANES, band.diag_slot, np.zeros((LANES, n)), lane_world)
    s.rhs[:] = rhs[:, None]
    c = s._replace(**{k: np.copy(a) for k, a in s._asdict().items()})
    band_lu_solve_lanes(s, LANES)
    plain(c.ab, c.rhs, c.ipiv, c.last, c.recip, c.info, c.col, c.row, c.pick, n, kd, kd, LANES)
    for name, vectorized, scalar in zip(s._fields, s, c):
        np.testing.assert_array_equal(vectorized, scalar, err_msg=name)
    np.testing.assert_array_equal(s.rhs, x)


def falling_rods(worlds, lockstep, moduli=None):
    """falling_rod with B worlds, each its own soft rod's Young's modulus and friction (so that
    they take different Newton iterations), in lockstep or not."""
    scene, _ = build_falling_rod(worlds=worlds)
    sim = scene.compile(worlds=worlds, dt=DT, newton=NewtonOptions(lockstep=lockstep))
    moduli = np.geomspace(3e5, 3e6, worlds) if moduli is None else np.asarray(moduli)
    sim.params["soft.youngs_modulus"] = moduli
    for key in ("soft_ground.kinetic", "soft_ground.static"):
        sim.params[key] = np.linspace(0.3, 0.7, worlds)
    return sim


@pytest.mark.parametrize("worlds", [1, 3, 16])
def test_lockstep_agrees_with_the_per_world_loop_within_the_newton_tolerance(worlds):
    # 0.15 s: the fall and the impact (contact, friction: an unsymmetric Newton matrix)
    a, b = falling_rods(worlds, True), falling_rods(worlds, False)
    assert a.stepper.loop.uses_lockstep(worlds) and not b.stepper.loop.uses_lockstep(worlds)
    a.run(0.15)
    b.run(0.15)
    # Newton stops at |R| <= 1e-9 |R_0| (NewtonOptions.rtol) or an update below xtol = 1e-12
    # m: two loops whose solves differ by round-off (the LU across lanes; LAPACK's Cholesky or
    # LU) reach solutions of each step within that tolerance of each other, ~1e-13 m for
    # these steps' updates (~1e-4 m). Measured after 150 steps: 4e-16, 6e-16, 1e-15 m (B = 1,
    # 3, 16; 8e-15 m at 0.6 s). 1e-12 m leaves room for growth through the contact events.
    assert np.max(np.abs(a.q - b.q)) <= 1e-12
    assert a.newton_stats.steps == b.newton_stats.steps == 150 * worlds
    # Newton converges to the same states even with a poor direction, so the solve is checked
    # by the iterations it takes: the same counts were measured (654, 1976, 10549); a solve
    # wrong beyond round-off (a missed swap, a wrong multiplier) costs many more, or fails
    assert abs(a.newton_stats.iterations - b.newton_stats.iterations) <= \
        0.005 * b.newton_stats.iterations


def test_in_lockstep_a_worlds_results_do_not_depend_on_the_batch():
    # B = 5 worlds on one and on two threads, against each world alone (B = 1, lockstep)
    moduli = [3e5, 1e6, 5e5, 2e6, 8e5]
    threads = numba.get_num_threads()
    batched = []
    try:
        for n in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(n)
            sim = falling_rods(5, True, moduli)
            sim.run(0.12)
            batched.append(sim)
    finally:
        numba.set_num_threads(threads)
    for b, E in enumerate(moduli):
        alone = falling_rods(1, True, [E])
        for key in ("soft_ground.kinetic", "soft_ground.static"):
            alone.params[key] = batched[0].params[key][b]
        alone.run(0.12)
        for sim in batched:
            np.testing.assert_array_equal(sim.q[b], alone.q[0])
            np.testing.assert_array_equal(sim.v[b], alone.v[0])


def test_worlds_converge_in_different_iterations_and_one_that_fails_stops_alone():
    sim = falling_rods(4, True)
    sim.run(0.09)                       # just before the soft rods land
    loop = sim.stepper.loop
    start = sim.snapshot()
    q, v = sim.q.copy(), sim.v.copy()
    status, counts = loop.run_worlds(q, v, sim.time, 0, DT, 30, 1e3)
    assert status.tolist() == [OK] * 4
    assert len(set(counts[:, 1].tolist())) > 1          # iterations differ between worlds
    reference = q.copy()
    # world 1 meets a NaN, world 2 a node thrown at 2 km/s (its Newton solve fails or its
    # state passes the bound)
    sim.restore(start)
    q, v = sim.q.copy(), sim.v.copy()
    v[2, 5] = 2e3
    q[1, 7] = np.nan
    status, counts = loop.run_worlds(q, v, sim.time, 0, DT, 30, 1e3)
    assert status[1] == NONFINITE and status[2] != OK
    assert status[0] == status[3] == OK
    for b in (0, 3):
        np.testing.assert_array_equal(q[b], reference[b])


def test_a_lockstep_restart_continues_bit_for_bit(tmp_path):
    sim = falling_rods(3, True)
    sim.run(0.1)
    sim.save_state(tmp_path / "half.npz")
    straight = sim.run(0.05, record=sm.Every(0.01, ("positions",)))
    again = falling_rods(3, True)
    again.load_state(tmp_path / "half.npz")
    resumed = again.run(0.05, record=sm.Every(0.01, ("positions",)))
    np.testing.assert_array_equal(straight["soft.positions"], resumed["soft.positions"])
    np.testing.assert_array_equal(sim.q, again.q)


def unwinding_helices(worlds, lockstep):
    """A free rod bent into a helix with a straight rest shape, unwinding in 3D: its reference
    twists change at every step (falling_rod's planar rods keep theirs at 0), B worlds with
    their own modulus, in lockstep or not."""
    s = np.linspace(0.0, 3.0 * np.pi, 25)
    x = np.stack([0.05 * np.cos(s), 0.05 * np.sin(s), 0.02 * s], axis=1)
    scene = sm.Scene()
    scene.add_der_rod(name="helix", centerline=x, radius=0.004, density=1000.0,
                      youngs_modulus=1e6)
    sim = scene.compile(worlds=worlds, dt=DT, newton=NewtonOptions(lockstep=lockstep))
    sim.params["helix.youngs_modulus"] = np.geomspace(5e5, 2e6, worlds)
    return sim


def test_a_twisting_rod_in_lockstep_agrees_with_the_per_world_loop_and_restarts_exactly(
        tmp_path):
    # the lanes kernels read the accepted reference twists' cos and sin from a cache refreshed
    # at each world's first evaluation of a step (der_bend_twist_lanes_binding): a cache left
    # unrefreshed (all zeros) moves the twists by O(1) rad here and misses the per-world loop by
    # far more than the Newton tolerance (the same bound and measure as the falling rods'
    # test above: measured 1.4e-14 m) or, where Newton fails with it, makes the lockstep blocks
    # fail and be redone by the per-world loop (which the runs here refuse); one refreshed only
    # once is stale after a restart (which refreshes it), so the restart would not be bit for
    # bit.
    def no_python_redo():
        raise AssertionError("a lockstep block failed and was redone in Python")
    a, b = unwinding_helices(3, True), unwinding_helices(3, False)
    a._advance = no_python_redo
    assert a.stepper.loop.uses_lockstep(3) and not b.stepper.loop.uses_lockstep(3)
    a.run(0.05)
    b.run(0.05)
    moved = np.max(np.abs(a.q - unwinding_helices(3, True).q))
    assert moved > 1e-3
    assert np.max(np.abs(a.q - b.q)) <= 1e-12
    a.save_state(tmp_path / "half.npz")
    straight = a.run(0.03, record=sm.Every(0.01, ("positions",)))
    again = unwinding_helices(3, True)
    again._advance = no_python_redo
    again.load_state(tmp_path / "half.npz")
    resumed = again.run(0.03, record=sm.Every(0.01, ("positions",)))
    np.testing.assert_array_equal(straight["helix.positions"], resumed["helix.positions"])
    np.testing.assert_array_equal(a.q, again.q)


def test_newton_options_lockstep_is_true_false_or_none():
    with pytest.raises(ValueError, match="NewtonOptions.lockstep = 1 is not allowed"):
        NewtonOptions(lockstep=1)
    assert NewtonOptions().lockstep is None


def test_lockstep_is_chosen_by_the_batch_size_alone():
    from softmech.implicit.compiled import LOCKSTEP_MIN_WORLDS
    loop = falling_rods(1, None).stepper.loop
    assert not loop.uses_lockstep(1)
    assert not loop.uses_lockstep(LOCKSTEP_MIN_WORLDS - 1)
    assert loop.uses_lockstep(LOCKSTEP_MIN_WORLDS)
    assert falling_rods(1, True).stepper.loop.uses_lockstep(1)
    assert not falling_rods(1, False).stepper.loop.uses_lockstep(16)


def test_a_block_that_fails_in_lockstep_is_redone_in_python_with_halvings():
    # two Newton iterations are too few for the cantilever's full steps: the lockstep call
    # reports the failing worlds, every world returns to the block's start and the Python
    # loop halves the steps (its sub-steps run the compiled per-world loop), as without
    # lockstep; the two runs then differ by the lockstep solve's round-off in the blocks
    # that did not fail (Newton tolerance: the 1e-12 m of the test above)
    from softmech.validation.der import cantilever
    options = dict(max_iterations=2, max_halvings=12, line_search=False)
    runs = []
    for lockstep in (True, False):
        sim = cantilever(1e9)[0].compile(worlds=2, dt=5e-3, newton=NewtonOptions(
            lockstep=lockstep, **options))
        sim.run(0.2)
        runs.append(sim)
    assert runs[0].stepper.loop.uses_lockstep(2)
    assert runs[0].newton_stats.halvings > 0
    assert runs[0].newton_stats.halvings == runs[1].newton_stats.halvings
    assert np.max(np.abs(runs[0].q - runs[1].q)) <= 1e-12


def star_rods(worlds):
    """A rod network (three arms meeting at a node, edges stored both ways: every orientation
    sign and half-turned frame of der_frames, as tests/properties/test_der_energies.py's star)
    with a random natural curvature per world, under gravity: B worlds in lockstep."""
    x = np.array([[0, 0, 0], [0.3, 0, 0], [0.6, 0.05, 0], [-0.2, 0.25, 0.02], [-0.4, 0.5, 0.0],
                  [-0.15, -0.3, 0.05], [-0.3, -0.55, 0.1]], float) + [0, 0, 0.2]
    edges = [[0, 1], [1, 2], [3, 0], [4, 3], [0, 5], [5, 6]]
    scene = sm.Scene()
    net = scene.add_der_rod(name="net", centerline=x, edges=edges, radius=0.01,
                            density=1000.0, youngs_modulus=1e6, natural_curvature="initial",
                            natural_twist="initial")
    assert (net.spring_signs[:, :2] < 0).any() and (net.spring_signs[:, 2] < 0).any()
    scene.add(sm.Gravity())
    sim = scene.compile(worlds=worlds, dt=DT, newton=NewtonOptions(lockstep=True))
    rng = np.random.default_rng(5)
    sim.params["net.natural_curvature"] = rng.normal(0, 2, (worlds,) + net.natural_curvature.shape)
    return sim


def lanes_forces(sim, Q, t, order, F0, J0):
    """Each bending-twisting binding's forces and Jacobian entries at the worlds' DOFs Q (B,
    n_dof), time t, from its lanes kernel (CompiledForm.lanes) for the worlds `order` (their
    lanes in that order), added to F0 (B, n_dof) and J0 (B, nnz) (the lockstep work holds
    J0 transposed: LockstepWork.J (nnz, B)); and from the per-world kernel, world by world:
    [(name, lanes F, lanes J (B, nnz), per-world F, per-world J)]. The lockstep
    work S is falling_rod's with the scene's F, J and offsets (a rod network has no compiled
    loop of its own: its matrix is not banded; the kernels' types are the same)."""
    worlds = Q.shape[0]
    bindings = sim.stepper.bindings
    offsets = np.concatenate([[0], np.cumsum([len(bd.rows) for bd in bindings])])
    S = lockstep_work(falling_rods(1, True).stepper.loop.W, worlds)._replace(
        F=np.zeros_like(F0), J=np.zeros(J0.T.shape), offsets=offsets.astype(np.int64))
    S.rows[:] = np.arange(worlds)
    S.evaluating[:len(order)] = order
    S.measure[:] = 1            # each world's first evaluation of a step: its accepted twists'
    #                             cos and sin computed (der_bend_twist_lanes_binding)
    out = []
    for i, bd in enumerate(bindings):
        form = bd.compiled()
        if form.lanes is None:
            continue
        S.F[:] = F0
        S.J[:] = J0.T
        form.lanes(form.args, form.lanes_scratch(form.args), S, i, 0, Q, t, DT, len(order))
        F, J = F0.copy(), J0.copy()
        for b in order:
            form.forces(form.args, b, Q[b].copy(), np.zeros(Q.shape[1]), t, DT, F[b],
                        J[b, offsets[i]:offsets[i + 1]])
        out.append((form.name, S.F.copy(), S.J.T.copy(), F, J))
    assert out
    return out


def lanes_scene(scene, worlds):
    """B worlds in lockstep of the lanes tests' scenes: falling_rod (a per-world modulus),
    pneunet (natural curvature tables), a rod network (reversed edges, half-turned frames)."""
    if scene == "falling_rod":
        return falling_rods(worlds, True)
    if scene == "pneunet":
        return build_pneunet(worlds=worlds)[0].compile(worlds=worlds, dt=DT,
                                                       newton=NewtonOptions(lockstep=True))
    return star_rods(worlds)


@pytest.mark.parametrize("scene, worlds, in_order", [
    ("falling_rod", 10, False), ("pneunet", 10, False), ("network", 10, False),
    ("falling_rod", LANES, True)])
def test_the_lanes_bend_twist_kernel_is_the_per_world_kernel_bit_for_bit(scene, worlds,
                                                                          in_order):
    # random configurations: the rods' DOFs (positions and twist angles) perturbed per world,
    # the accepted frames of a run, a per-world modulus (falling_rod), natural curvature
    # tables written at time t (pneunet), reversed edges and half-turned frames (network).
    # The lanes kernel does the per-world kernel's operations in its order (numba: no
    # fast-math, no FMA contraction), so the tolerance is zero: measured 0 difference on
    # every entry. 10 worlds in random order: a full chunk of LANES = 8 and one of 2 (6 idle
    # lanes); LANES worlds in order: the other way of writing the Jacobian entries
    # (_write_jacobian: a thread's LANES worlds in order, one flat loop over LockstepWork.J's
    # rows). Random F0, J0 underneath, so that a missed or doubled entry shows.
    sim = lanes_scene(scene, worlds)
    sim.run(0.02)
    rng = np.random.default_rng(3)
    Q = sim.q + 0.02 * rng.standard_normal(sim.q.shape)
    nnz = sum(len(bd.rows) for bd in sim.stepper.bindings)
    F0 = rng.standard_normal(Q.shape)
    J0 = rng.standard_normal((worlds, nnz))
    order = np.arange(worlds) if in_order else rng.permutation(worlds)
    results = lanes_forces(sim, Q, 0.05, order, F0, J0)
    for name, F, J, F_ref, J_ref in results:
        assert np.abs(F - F0).max() > 0 and np.abs(J - J0).max() > 0, name
        np.testing.assert_array_equal(F, F_ref, err_msg=name)
        np.testing.assert_array_equal(J, J_ref, err_msg=name)


@pytest.mark.parametrize("scene", ["falling_rod", "pneunet", "network"])
def test_the_lanes_accept_commits_the_per_world_accepts_frames_bit_for_bit(scene):
    # the lockstep loop accepts its converged worlds together (CompiledForm.lanes_accept,
    # softmech.kernels.der_frames_lanes): the frames' lanes kernels do der_frames' operations
    # in its order, so each world's accepted tangents, directors and reference twists are the
    # per-world accept's bit for bit (tolerance zero; measured 0). 10 worlds in random order
    # (a full chunk and one of 2 with 6 idle lanes), DOFs perturbed from a run's state so
    # that the frames move; the worlds not accepted keep their history. As in the loop, the
    # lanes forces run first (each world's first evaluation of the step, S.measure = 1): they
    # fill the cache of the accepted twists' cos and sin that the accept reads.
    worlds = 10
    sim = lanes_scene(scene, worlds)
    sim.run(0.02)
    rng = np.random.default_rng(6)
    Q = sim.q + 0.02 * rng.standard_normal(sim.q.shape)
    order = rng.permutation(worlds)[:9]
    bindings = sim.stepper.bindings
    offsets = np.concatenate([[0], np.cumsum([len(bd.rows) for bd in bindings])])
    S = lockstep_work(falling_rods(1, True).stepper.loop.W, worlds)._replace(
        F=np.zeros(Q.shape), J=np.zeros((offsets[-1], worlds)),
        offsets=offsets.astype(np.int64))
    S.rows[:] = np.arange(worlds)
    S.evaluating[:order.size] = order
    S.measure[:] = 1
    checked = 0
    for i, bd in enumerate(bindings):
        form = bd.compiled()
        if form.lanes_accept is None:
            continue
        history = ("acc_a1", "acc_tangent", "acc_ref")
        before = [getattr(form.args, k).copy() for k in history]
        x = form.lanes_scratch(form.args)
        form.lanes(form.args, x, S, i, 0, Q, 0.05, DT, order.size)
        for b in order:
            form.accept(form.args, b, Q[b].copy())
        per_world = [getattr(form.args, k).copy() for k in history]
        for k, v in zip(history, before):
            getattr(form.args, k)[:] = v
        form.lanes_accept(form.args, x, S, 0, Q, order.size)
        for k, v0, v in zip(history, before, per_world):
            assert np.abs(v - v0)[order].max() > 0, (form.name, k)
            np.testing.assert_array_equal(getattr(form.args, k), v, err_msg=f"{form.name} {k}")
        checked += 1
    assert checked


def test_a_worlds_lanes_forces_do_not_depend_on_the_other_lanes():
    # world 2 alone in a chunk (7 idle lanes computing on its copy), and among 7 others, one
    # of them non-finite (a NaN DOF) and one far from the rest: its numbers bit for bit
    worlds = 8
    sim = falling_rods(worlds, True)
    sim.run(0.02)
    rng = np.random.default_rng(4)
    Q = sim.q + 0.01 * rng.standard_normal(sim.q.shape)
    Q[5, 3] = np.nan
    Q[6] *= 1e3
    zeros = np.zeros_like(Q), np.zeros((worlds, sim.stepper.loop.W.J.size))
    assert sim.stepper.loop.W.J.size == sum(len(bd.rows) for bd in sim.stepper.bindings)
    alone = lanes_forces(sim, Q, 0.05, np.array([2]), *zeros)
    crowd = lanes_forces(sim, Q, 0.05, np.array([5, 0, 6, 2, 1, 7, 3, 4]), *zeros)
    for (name, F1, J1, _, _), (_, F8, J8, _, _) in zip(alone, crowd):
        np.testing.assert_array_equal(F1[2], F8[2], err_msg=name)
        np.testing.assert_array_equal(J1[2], J8[2], err_msg=name)
    # the NaN reached its world's forces (DOF 3: the soft rod's first twist angle)
    assert not np.isfinite(crowd[0][1][5]).all() and crowd[0][0] == "soft.bend_twist"
