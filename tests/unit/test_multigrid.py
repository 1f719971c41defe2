"""Sparse Newton solves by GMRES with a kept smoothed-aggregation multigrid hierarchy
(softmech.implicit.multigrid.ReusedAMG, chosen in softmech.implicit.linear for sparse systems
of AMG_MIN_NODES nodes or more): the same steps as a fresh LU at every solve, batched worlds
equal to single runs, the reuse rules, and a complete LU whenever GMRES does not deliver.

The plates here are small; MAX_COARSE is lowered so that their hierarchies have several levels
(with the default, a level of <= 300 unknowns is solved by LU and the cycle would be exact)."""
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

import softmech as sm
from softmech.bodies import meshes
from softmech.implicit import linear, multigrid, multigrid_hierarchy, sparse_solve
from softmech.implicit.near_null import RigidModes
from softmech.implicit.newton import NewtonOptions

from shell_fixture import pressed_plate as _pressed_plate


def pressed_plate(pressure=20.0, bending="hinge", divisions=12):
    """shell_fixture.pressed_plate with 12 divisions a side by default (several levels)."""
    return _pressed_plate(pressure, bending, divisions)


def run(scene, worlds=1, pressures=None, steps=15):
    """Compile (dt 2 ms, Newton rtol 1e-10) and step; (simulation, world 0's positions)."""
    sim = scene.compile(dt=2e-3, newton=NewtonOptions(rtol=1e-10), worlds=worlds)
    if pressures is not None:
        sim.params["pressure.pressure"] = pressures
    sim.step(steps)
    return sim, sim.get_state("plate")["positions"][0]


@pytest.fixture
def amg(monkeypatch):
    """Every sparse system through ReusedAMG, with hierarchies of several levels."""
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 0)
    monkeypatch.setattr(multigrid, "AMG_MIN_NODES", 0)
    monkeypatch.setattr(multigrid_hierarchy, "MAX_COARSE", 12)


@pytest.mark.parametrize("smooth", multigrid.SMOOTHERS)
@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_multigrid_gives_the_steps_of_a_fresh_lu(amg, monkeypatch, bending, smooth):
    monkeypatch.setattr(multigrid, "AMG_SMOOTH", smooth)
    sim, reused = run(pressed_plate(bending=bending))
    pattern = sim.stepper.pattern
    solver = pattern.sparse_solver
    assert pattern.kind == "sparse" and pattern.solver == "amg"
    assert isinstance(solver, multigrid.ReusedAMG) and solver.smooth == smooth
    # the Krylov path with kept hierarchies of several levels, not the direct one
    assert solver.krylov_solves > solver.setups > 0 and solver.direct_solves == 0
    assert solver._hierarchy.n_levels >= 3
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 10 ** 9)
    sim2, fresh = run(pressed_plate(bending=bending))
    assert sim2.stepper.pattern.solver == "lu"
    deflection = np.abs(fresh - meshes.rectangle(0.1, 0.1, 12).vertices).max()
    assert deflection > 1e-4                      # the plate moved: the comparison can fail
    # both Newton solves converge to rtol 1e-10 of the residual, the linear solves to
    # KRYLOV_RTOL = 1e-10: the positions agree to far below the deflection (1e-8 of it)
    np.testing.assert_allclose(reused, fresh, rtol=0, atol=1e-8 * deflection)


def test_each_world_keeps_its_own_hierarchy(amg):
    # a batched run equals single runs bit for bit: world 1's steps do not use world 0's
    # hierarchy, and the refresh rules count iterations, not seconds
    sim, _ = run(pressed_plate(), worlds=2, pressures=[20.0, 60.0])
    batched = sim.get_state("plate")["positions"]
    assert set(sim.stepper.pattern.sparse_solvers) == {0, 1}
    assert all(isinstance(s, multigrid.ReusedAMG)
               for s in sim.stepper.pattern.sparse_solvers.values())
    for b, pressure in enumerate((20.0, 60.0)):
        _, single = run(pressed_plate(pressure))
        assert np.array_equal(batched[b], single)


def plate_system(bending="hinge", divisions=12, seed=3):
    """The Newton matrix (CSC) of a plate deflected by three steps under pressure, its diagonal
    M/h^2, a random rhs, and a ReusedAMG with the plate's rigid modes; q: the DOF values.
    (Not a randomly perturbed shape: compressed edges make that matrix indefinite, which
    Gauss-Seidel smoothing cannot handle -- the LU fallback's case.)"""
    sim = pressed_plate(bending=bending, divisions=divisions).compile(dt=1e-3, engine="discrete")
    sim.step(3)
    st = sim.stepper
    rng = np.random.default_rng(seed)
    q = sim.q[0].copy()
    st._begin(0, q, 0.0)
    _, J = st.forces(0, q, np.zeros_like(q), 0.0, 1e-3)
    diagonal = st.mass[st.free] / 1e-6
    A = st.pattern.sparse_matrix(J, diagonal)
    solver = multigrid.ReusedAMG(RigidModes.from_layout(sim.layout), st.free)
    return A, diagonal, rng.normal(size=len(st.free)), solver, q


def counters(solver):
    return (solver.setups, solver.refreshes, solver.direct_solves, solver.krylov_solves,
            solver.fallbacks)


def changed(A, scale, seed):
    """A with its values moved by `scale` x |entry| x normal noise, on the same structure."""
    B = A.copy()
    B.data = B.data * (1 + scale * np.random.default_rng(seed).normal(size=B.nnz))
    return B


def test_a_close_matrix_is_solved_with_the_kept_hierarchy(amg):
    A, diagonal, b, solver, q = plate_system()
    x = solver.solve(A, diagonal, b, q)
    assert counters(solver) == (1, 0, 0, 1, 0)
    assert np.linalg.norm(A @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)
    A2 = changed(A, 1e-3, 1)
    x = solver.solve(A2, diagonal, b, q)
    assert counters(solver) == (1, 0, 0, 2, 0)                # no new hierarchy, no refresh
    assert np.linalg.norm(A2 @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)
    np.testing.assert_allclose(x, scipy.sparse.linalg.splu(A2).solve(b), rtol=0,
                               atol=1e-8 * np.abs(x).max())


@pytest.mark.parametrize("costs, expected", [((1e9, 1e9), (1, 0)), ((1e9, -1), (1, 2)),
                                             ((-1, 1e9), (3, 0))])
def test_refresh_and_rebuild_rules(amg, monkeypatch, costs, expected):
    # after a solve of m iterations, the k-th since the setup (S in all since then): rebuild
    # when m k > SETUP_COST + S, else refresh the coarse operators when m k' >
    # REFRESH_COST + S' (since the last refresh). Huge costs: never; a negative refresh cost:
    # a refresh before every later solve; a negative setup cost: a setup for every solve
    monkeypatch.setattr(multigrid, "SETUP_COST", costs[0])
    monkeypatch.setattr(multigrid, "REFRESH_COST", costs[1])
    A, diagonal, b, solver, q = plate_system()
    for seed in range(3):
        solver.solve(changed(A, 1e-3, seed + 1), diagonal, b, q)
    assert (solver.setups, solver.refreshes) == expected and solver.krylov_solves == 3


def test_a_new_diagonal_refreshes_the_coarse_operators(amg):
    A, diagonal, b, solver, q = plate_system()
    solver.solve(A, diagonal, b, q)
    A4 = (A + scipy.sparse.diags(3 * diagonal)).tocsc()       # h halved: M/h^2 four times
    x = solver.solve(A4, 4 * diagonal, b, q)
    assert counters(solver) == (1, 1, 0, 2, 0)
    assert np.linalg.norm(A4 @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)


def test_a_failing_gmres_falls_back_to_a_complete_lu(amg, monkeypatch):
    A, diagonal, b, solver, q = plate_system()
    solver.solve(A, diagonal, b, q)
    # no GMRES iteration allowed: neither the kept nor a new hierarchy can deliver
    monkeypatch.setattr(sparse_solve, "KRYLOV_MAX_ITERATIONS", 0)
    B = changed(A, 1e-2, 7)
    x = solver.solve(B, diagonal, b, q)
    assert counters(solver) == (2, 0, 1, 1, 2)
    np.testing.assert_allclose(x, scipy.sparse.linalg.splu(B).solve(b), rtol=1e-12, atol=0)
    # the complete factors are kept: B again is solved by them at once (0 GMRES iterations)
    iterations = solver.krylov_iterations
    solver.solve(B, diagonal, b, q)
    assert counters(solver) == (2, 0, 1, 2, 2) and solver.krylov_iterations == iterations
    # ... until a new diagonal: a hierarchy again
    monkeypatch.setattr(sparse_solve, "KRYLOV_MAX_ITERATIONS", 50)
    A4 = (B + scipy.sparse.diags(3 * diagonal)).tocsc()
    solver.solve(A4, 4 * diagonal, b, q)
    assert counters(solver)[:3] == (3, 0, 1) and solver._lu is None


def test_a_singular_matrix_still_raises_singular_jacobian(amg, monkeypatch):
    monkeypatch.setattr(linear, "BANDED_MAX", -1)
    n = 6
    modes = RigidModes(np.tile([0, 1, 2], 2), np.repeat([0, 3], 3), np.full(n, -1),
                       surface=np.ones(n, dtype=bool))
    rows, cols = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    pattern = linear.JacobianPattern(n, rows.ravel(), cols.ravel(), [], rigid_modes=modes)
    assert pattern.kind == "sparse" and pattern.solver == "amg"
    J = -np.ones(n * n)                                 # A = all ones: rank 1
    with pytest.raises(linear.SingularJacobian):
        pattern.solve(J, np.zeros(n), np.ones(n), q=np.arange(n, dtype=float))
    # without q a hierarchy cannot be built: refused, not guessed
    pattern.sparse_solvers.clear()
    with pytest.raises(ValueError, match="q is required"):
        pattern.solve(-np.eye(n).ravel(), np.zeros(n), np.ones(n))


def test_the_solver_is_chosen_by_size_and_rigid_modes(monkeypatch):
    # free DOFs below KRYLOV_MIN_DOFS: a fresh LU; shell nodes with free DOFs from
    # AMG_MIN_NODES and rigid modes: multigrid; in between, without rigid modes, or rod nodes
    # (not surface nodes): the incomplete LU
    monkeypatch.setattr(linear, "BANDED_MAX", -1)
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 30)
    monkeypatch.setattr(multigrid, "AMG_MIN_NODES", 20)
    component, node = np.tile([0, 1, 2], 30), np.repeat(3 * np.arange(30), 3)
    shell = RigidModes(component, node, np.full(90, -1), surface=np.ones(90, dtype=bool))
    rods = RigidModes(component, node, np.full(90, -1))

    def pattern(n, modes=shell):
        return linear.JacobianPattern(90, np.arange(90), np.arange(90), np.arange(n, 90),
                                      rigid_modes=modes)

    assert pattern(20).solver == "lu" and pattern(45).solver == "ilu"
    assert pattern(60).solver == "amg" and pattern(60, modes=None).solver == "ilu"
    assert pattern(60, modes=rods).solver == "ilu"
    assert isinstance(pattern(60).sparse_solver, multigrid.ReusedAMG)
    assert pattern(45).sparse_solver.reuse and not pattern(20).sparse_solver.reuse


def test_shell_nodes_choose_the_multigrid_and_rod_nodes_do_not(monkeypatch):
    # DofLayout.add_nodes(surface=True) for a shell's mesh, not for a rod network's nodes
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 0)
    monkeypatch.setattr(multigrid, "AMG_MIN_NODES", 100)
    plate = pressed_plate().compile(dt=1e-3, engine="discrete")
    assert plate.stepper.pattern.solver == "amg"
    k = 12
    x, y = np.meshgrid(np.linspace(0, 0.1, k), np.linspace(0, 0.1, k), indexing="ij")
    idx = np.arange(k * k).reshape(k, k)
    edges = np.concatenate([np.stack([idx[:-1].ravel(), idx[1:].ravel()], 1),
                            np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], 1)])
    scene = sm.Scene()
    scene.add_der_rod(name="net", centerline=np.stack([x.ravel(), y.ravel(), 0 * x.ravel()], 1),
                      edges=edges, radius=1e-3, density=1000.0, youngs_modulus=1e9,
                      normal=(0.0, 0.0, 1.0))
    scene.add(sm.FixNodes("net", [0]))
    net = scene.compile(dt=1e-3, engine="discrete")
    assert net.stepper.pattern.kind == "sparse" and net.stepper.pattern.solver == "ilu"


def test_rigid_modes_make_the_coarse_spaces(amg):
    # the rotations carry the plate's soft bending modes: with the translations only, the
    # hierarchy needs more GMRES iterations (measured 10 against 13 here; 7 against 11 at
    # 1,000 triangles, 19 against 32 at 30,000 on benchmarks/shells.py's plate)
    A, diagonal, b, solver, q = plate_system(divisions=16)
    Acsr = A.tocsr()
    B = solver.modes.modes(q, solver.free)
    iterations = []
    for modes in (B, B[:, :3]):
        solver._hierarchy = multigrid.Hierarchy(Acsr, modes, solver.owner, "jacobi")
        x, it = solver._fgmres(Acsr, b)
        assert x is not None
        iterations.append(it)
    assert iterations[0] <= iterations[1] - 2


def test_a_bad_smoother_is_refused():
    modes = RigidModes([0, 1, 2], [0, 0, 0], [-1, -1, -1])
    with pytest.raises(ValueError, match="smooth"):
        multigrid.ReusedAMG(modes, np.arange(3), smooth="gauss")


def test_csr_copies_of_one_structure():
    A = scipy.sparse.random(40, 40, density=0.2, random_state=1, format="csc")
    csr = multigrid.CsrOf()
    np.testing.assert_array_equal(csr(A).toarray(), A.toarray())
    B = A.copy()
    B.data = np.random.default_rng(2).normal(size=B.nnz)
    np.testing.assert_array_equal(csr(B).toarray(), B.toarray())
    C = scipy.sparse.random(40, 40, density=0.1, random_state=3, format="csc")
    np.testing.assert_array_equal(csr(C).toarray(), C.toarray())   # a new structure
