"""Sparse Newton solves by GMRES preconditioned with reused incomplete LU factors of the
nested-dissection-ordered matrix (softmech.implicit.sparse_solve.ReusedILU and
softmech.implicit.ordering, chosen in softmech.implicit.linear for sparse systems of
KRYLOV_MIN_DOFS free DOFs or more): the same steps as a fresh LU at every solve, the ordering
computed once per sparsity pattern, and a complete LU whenever GMRES does not deliver."""
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.linalg

from softmech.bodies import meshes
from softmech.implicit import linear, ordering, sparse_solve
from softmech.implicit.newton import NewtonOptions


from shell_fixture import pressed_plate


def run(scene, worlds=1, pressures=None):
    """Compile (dt 2 ms, Newton rtol 1e-10) and step 15 times; (simulation, positions)."""
    sim = scene.compile(dt=2e-3, newton=NewtonOptions(rtol=1e-10), worlds=worlds)
    if pressures is not None:
        sim.params["pressure.pressure"] = pressures
    sim.step(15)
    return sim, sim.get_state("plate")["positions"][0]


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_reused_factors_give_the_steps_of_a_fresh_lu(monkeypatch, bending):
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 0)
    sim, reused = run(pressed_plate(bending=bending))
    solver = sim.stepper.pattern.sparse_solver
    assert sim.stepper.pattern.kind == "sparse" and solver.reuse
    # the Krylov path was taken (most solves, with factors reused), not the direct one; the
    # nested-dissection ordering was computed once for the 15 steps' fixed pattern
    assert solver.krylov_solves > solver.factorizations > 0 and solver.direct_solves == 0
    assert solver.ordering.orderings == 1
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 10 ** 9)
    sim2, fresh = run(pressed_plate(bending=bending))
    assert not sim2.stepper.pattern.sparse_solver.reuse
    deflection = np.abs(fresh - meshes.rectangle(0.1, 0.1, 5).vertices).max()
    assert deflection > 1e-4                      # the plate moved: the comparison can fail
    # both Newton solves converge to rtol 1e-10 of the residual; the linear solves agree to
    # KRYLOV_RTOL = 1e-10: the positions agree to far below the deflection (tolerance 1e-8 of it)
    np.testing.assert_allclose(reused, fresh, rtol=0, atol=1e-8 * deflection)


def test_each_world_keeps_its_own_factors(monkeypatch):
    # a batched run equals single runs bit for bit: world 1's steps do not use world 0's factors
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 0)
    sim, _ = run(pressed_plate(), worlds=2, pressures=[20.0, 60.0])
    batched = sim.get_state("plate")["positions"]
    assert set(sim.stepper.pattern.sparse_solvers) == {0, 1}
    # ... and share the pattern's one nested-dissection ordering (METIS ran once)
    assert sim.stepper.pattern.ordering.orderings == 1
    assert all(s.ordering is sim.stepper.pattern.ordering
               for s in sim.stepper.pattern.sparse_solvers.values())
    for b, pressure in enumerate((20.0, 60.0)):
        _, single = run(pressed_plate(pressure))
        assert np.array_equal(batched[b], single)


def random_system(seed, n=60):
    """A sparse, diagonally dominant non-symmetric matrix (CSC), its diagonal and a rhs."""
    rng = np.random.default_rng(seed)
    A = scipy.sparse.random(n, n, density=0.1, random_state=seed, format="csc")
    diagonal = np.full(n, 10.0)
    return (A + scipy.sparse.diags(diagonal)).tocsc(), diagonal, rng.normal(size=n)


def changed(A, scale, seed):
    """A with its values moved by `scale` x normal noise, on the same structure (a mesh's Newton
    matrix keeps its pattern from step to step; a new one would be ordered afresh)."""
    B = A.copy()
    B.data = B.data + scale * np.random.default_rng(seed).normal(size=B.nnz)
    return B


def counters(solver):
    return (solver.factorizations, solver.direct_solves, solver.krylov_solves, solver.fallbacks)


@pytest.mark.parametrize("factor", ["incomplete", "complete"])
def test_the_compiled_solve_applies_superlus_factors_as_superlu_does(factor):
    # softmech.kernels.factored_krylov.precondition: M^-1 v = Pc U^-1 L^-1 Pr v from SuperLU's
    # L, U and permutations (Pr A Pc = L U, scipy's SuperLU documentation) must equal
    # SuperLU.solve to round-off (1e-13 relative: two triangular solves of n = 60 in another
    # order of the same sums); the GMRES around it then accepts only a true residual below
    # KRYLOV_RTOL
    from softmech.kernels import factored_krylov
    A, diagonal, b = random_system(2)
    A = changed(A, 3.0, 5)                   # less dominant: SuperLU pivots
    lu = (scipy.sparse.linalg.spilu(A, drop_tol=1e-2) if factor == "incomplete"
          else scipy.sparse.linalg.splu(A))
    assert np.any(lu.perm_r != np.arange(len(b)))    # both permutations are exercised
    assert np.any(lu.perm_c != np.arange(len(b)))
    factors = sparse_solve.factors_of(lu)
    z = np.full_like(b, np.nan)              # every entry written
    factored_krylov.precondition(factors, b, z)
    np.testing.assert_allclose(z, lu.solve(b), rtol=1e-13, atol=1e-13 * np.abs(z).max())
    x, iterations = sparse_solve.factored_gmres(A, b, factors, sparse_solve.KrylovScratch(),
                                                sparse_solve.Uint32Csc())
    assert np.linalg.norm(A @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)
    assert (iterations == 0) == (factor == "complete")   # exact factors: M^-1 b is the answer


def test_a_close_matrix_is_solved_by_gmres_with_the_old_factors():
    A, diagonal, b = random_system(0)
    solver = sparse_solve.ReusedILU()
    solver.solve(A, diagonal, b)
    assert counters(solver) == (1, 0, 1, 0)
    A2 = changed(A, 1e-2, 1)
    x = solver.solve(A2, diagonal, b)
    assert counters(solver) == (1, 0, 2, 0)                  # no new factorization
    assert np.linalg.norm(A2 @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)


def test_stale_factors_are_replaced_by_fresh_ones(monkeypatch):
    A, diagonal, b = random_system(0)
    solver = sparse_solve.ReusedILU()
    solver.solve(A, diagonal, b)
    # another matrix of the structure, with an iteration budget the old factors cannot meet
    B = changed(A, 1.0, 7)
    monkeypatch.setattr(sparse_solve, "KRYLOV_MAX_ITERATIONS", 3)
    x = solver.solve(B, diagonal, b)
    assert counters(solver) == (2, 0, 2, 1)
    assert np.linalg.norm(B @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)


@pytest.mark.parametrize("factor_cost, factorizations", [(1e9, 1), (-1, 3)])
def test_factors_are_dropped_when_a_solve_costs_more_than_the_mean(monkeypatch, factor_cost,
                                                                   factorizations):
    # the rule: drop after a solve of m iterations, the k-th of S in all since the factors
    # were made, when m k > FACTOR_COST + S. A huge factorization cost: never (one
    # factorization for three solves); a negative one: after every solve (three)
    monkeypatch.setattr(sparse_solve, "FACTOR_COST", factor_cost)
    A, diagonal, b = random_system(0)
    solver = sparse_solve.ReusedILU()
    for seed in range(3):
        solver.solve(changed(A, 1e-3, seed + 1), diagonal, b)
    assert solver.factorizations == factorizations and solver.krylov_solves == 3


def test_a_failing_gmres_falls_back_to_a_complete_lu(monkeypatch):
    A, diagonal, b = random_system(0)
    solver = sparse_solve.ReusedILU()
    solver.solve(A, diagonal, b)
    # no GMRES iteration allowed: neither the old nor the new incomplete factors can deliver
    monkeypatch.setattr(sparse_solve, "KRYLOV_MAX_ITERATIONS", 0)
    B = changed(A, 1.0, 7)
    x = solver.solve(B, diagonal, b)
    assert counters(solver) == (2, 1, 1, 2)
    np.testing.assert_allclose(x, scipy.sparse.linalg.splu(B).solve(b), rtol=1e-12, atol=0)
    # the complete factors are kept: B again is solved by them at once (0 GMRES iterations)
    iterations = solver.krylov_iterations
    solver.solve(B, diagonal, b)
    assert counters(solver) == (2, 1, 2, 2) and solver.krylov_iterations == iterations


def test_a_new_diagonal_refactors_without_trying_the_old_factors():
    A, diagonal, b = random_system(0)
    solver = sparse_solve.ReusedILU()
    solver.solve(A, diagonal, b)
    A4 = (A + scipy.sparse.diags(3 * diagonal)).tocsc()       # h halved: M/h^2 four times
    x = solver.solve(A4, 4 * diagonal, b)
    assert counters(solver) == (2, 0, 2, 0)
    np.testing.assert_allclose(A4 @ x, b, rtol=0, atol=1e-10 * np.abs(b).max())


def test_a_singular_matrix_still_raises_singular_jacobian(monkeypatch):
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 0)
    monkeypatch.setattr(linear, "BANDED_MAX", -1)
    n = 4
    pattern = linear.JacobianPattern(n, np.arange(n), np.arange(n), [])
    assert pattern.kind == "sparse" and pattern.sparse_solver.reuse
    J = np.array([-1.0, -1.0, -1.0, 0.0])               # A = diag(1, 1, 1, 0)
    with pytest.raises(linear.SingularJacobian):
        pattern.solve(J, np.zeros(n), np.ones(n))
    # after good factors, a singular matrix (GMRES cannot solve it) still ends singular
    pattern.solve(-np.ones(n), np.zeros(n), np.ones(n))
    with pytest.raises(linear.SingularJacobian):
        pattern.solve(J, np.zeros(n), np.ones(n))


def test_the_solver_is_chosen_by_size(monkeypatch):
    # a sparse structure of KRYLOV_MIN_DOFS free DOFs or more reuses its factors; smaller ones
    # factor afresh at every solve; a narrow band stays with LAPACK's banded LU
    monkeypatch.setattr(linear, "BANDED_MAX", -1)
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 50)
    n = 50
    big = linear.JacobianPattern(n, np.arange(n), np.arange(n), [])
    small = linear.JacobianPattern(n, np.arange(n), np.arange(n), [0])
    assert big.sparse_solver.reuse and not small.sparse_solver.reuse
    monkeypatch.setattr(linear, "BANDED_MAX", 24)
    assert linear.JacobianPattern(n, np.arange(n), np.arange(n), []).kind == "banded"


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_the_ordered_solve_of_a_shell_jacobian_equals_a_direct_solve(monkeypatch, bending):
    # a deformed plate's Newton matrix (not symmetric: the pressure follows the surface)
    monkeypatch.setattr(sparse_solve, "KRYLOV_MIN_DOFS", 0)
    sim = pressed_plate(bending=bending, divisions=8).compile(dt=1e-3, engine="discrete")
    st = sim.stepper
    rng = np.random.default_rng(3)
    q = sim.q[0] + 1e-3 * rng.normal(size=sim.q[0].shape)
    st._begin(0, q, 0.0)
    _, J = st.forces(0, q, np.zeros_like(q), 0.0, 1e-3)
    diagonal = st.mass[st.free] / 1e-6
    b = rng.normal(size=len(st.free))
    A = st.pattern.sparse_matrix(J, diagonal)
    assert st.pattern.kind == "sparse" and abs(A - A.T).max() > 0
    x = st.pattern.solve(J, diagonal, b)
    solver = st.pattern.sparse_solver
    assert solver.krylov_solves == 1 and solver.ordering.orderings == 1
    # accepted at the true residual KRYLOV_RTOL |b| on the original (unpermuted) system
    assert np.linalg.norm(A @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)
    direct = scipy.sparse.linalg.splu(A).solve(b)
    # x and the direct solution differ by A^-1 of residuals below 1e-10 |b|: the condition
    # number of this mass-dominated matrix (h = 1 ms) is small, so 1e-8 relative is ample
    np.testing.assert_allclose(x, direct, rtol=0, atol=1e-8 * np.abs(direct).max())


def test_the_symmetric_permutation_is_p_a_pt_and_kept_per_pattern():
    A, _, _ = random_system(0)
    order = ordering.SymmetricOrdering()
    Ap, perm = order.permute(A)
    assert np.array_equal(np.sort(perm), np.arange(A.shape[0]))     # a permutation
    dense = A.toarray()
    np.testing.assert_array_equal(Ap.toarray(), dense[perm][:, perm])
    # new values on the same structure: no new ordering, the same permutation of them
    B = A.copy()
    B.data = np.random.default_rng(1).normal(size=B.nnz)
    Bp, perm_b = order.permute(B)
    assert order.orderings == 1 and perm_b is perm
    np.testing.assert_array_equal(Bp.toarray(), B.toarray()[perm][:, perm])
    # an added entry (contact): a new structure, ordered afresh
    C = (A + scipy.sparse.csc_matrix(([1.0], ([0], [59])), shape=A.shape)).tocsc()
    assert C.nnz == A.nnz + (A[0, 59] == 0)
    Cp, perm_c = order.permute(C)
    assert order.orderings == 2
    np.testing.assert_array_equal(Cp.toarray(), C.toarray()[perm_c][:, perm_c])


def test_a_new_pattern_drops_the_factors_of_the_old_one():
    A, diagonal, b = random_system(0)
    solver = sparse_solve.ReusedILU()
    solver.solve(A, diagonal, b)
    # the same values plus one new entry: the old factors (of another ordering) are not tried
    C = (A + scipy.sparse.csc_matrix(([1e-3], ([0], [59])), shape=A.shape)).tocsc()
    x = solver.solve(C, diagonal, b)
    assert solver.ordering.orderings == 2 and counters(solver) == (2, 0, 2, 0)
    assert np.linalg.norm(C @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)


def test_a_diagonal_matrix_is_ordered_and_solved():
    # no off-diagonal entry: METIS gets an empty graph, the identity order is used
    n = 5
    A = scipy.sparse.diags(np.arange(1.0, n + 1)).tocsc()
    x = sparse_solve.ReusedILU().solve(A, np.arange(1.0, n + 1), np.ones(n))
    np.testing.assert_allclose(x, 1 / np.arange(1.0, n + 1), rtol=1e-12)
