"""The multigrid's compiled pieces against plain references: the V-cycle (fused sweeps,
residuals and product) against the same cycle written with scipy and dense blocks, the flexible
GMRES's acceptance rule, and the setup's kernels against pyamg's own functions
(softmech.kernels.multigrid_cycle, softmech.kernels.multigrid_setup,
softmech.implicit.multigrid_hierarchy)."""
import numpy as np
import pyamg
import pytest
import scipy.sparse
from pyamg.relaxation.relaxation import gauss_seidel
from pyamg.util.utils import compute_BtBinv

from softmech.implicit import multigrid, multigrid_hierarchy, sparse_solve
from softmech.implicit.near_null import RigidModes
from softmech.kernels import multigrid_cycle, multigrid_setup

from test_multigrid import pressed_plate


def plate_matrix(bending="hinge", divisions=12):
    """The Newton matrix (CSR, sorted) of a plate deflected by three steps, its rigid modes at
    the current positions, each DOF's node."""
    sim = pressed_plate(bending=bending, divisions=divisions).compile(dt=1e-3,
                                                                     engine="discrete")
    sim.step(3)
    st = sim.stepper
    q = sim.q[0].copy()
    st._begin(0, q, 0.0)
    _, J = st.forces(0, q, np.zeros_like(q), 0.0, 1e-3)
    A = st.pattern.sparse_matrix(J, st.mass[st.free] / 1e-6).tocsr()
    A.sort_indices()
    modes = RigidModes.from_layout(sim.layout)
    return A, modes.modes(q, st.free), modes.owners(st.free)


def reference_cycle(h, A, b):
    """The V-cycle of multigrid_cycle.vcycle written plainly: one pointwise symmetric
    Gauss-Seidel sweep (forward, backward) before and after the coarse correction on the
    finest level, block sweeps (6 x 6 blocks, their pseudo-inverses) on the coarse ones, the
    coarsest solved by the dense inverse of its nonzero rows and columns."""
    def sweep(M, x, r, rows, size):
        D = [M[I * size:(I + 1) * size, I * size:(I + 1) * size] for I in range(M.shape[0] // size)]
        for I in rows:
            s = slice(I * size, (I + 1) * size)
            x[s] += np.linalg.pinv(D[I]) @ (r[s] - M[s] @ x)

    def level(l, r):
        M = h.ops[l].toarray()
        if l == h.n_levels - 1:
            kept = np.flatnonzero(np.any(M != 0, axis=0) | np.any(M != 0, axis=1))
            x = np.zeros_like(r)
            x[kept] = np.linalg.solve(M[np.ix_(kept, kept)], r[kept])
            return x
        size = 1 if l == 0 else h.blocksize
        blocks = M.shape[0] // size
        x = np.zeros_like(r)
        for rows in (range(blocks), range(blocks - 1, -1, -1)):
            sweep(M, x, r, rows, size)
        P = h.P[l].toarray()
        x += P @ level(l + 1, P.T @ (r - M @ x))
        for rows in (range(blocks), range(blocks - 1, -1, -1)):
            sweep(M, x, r, rows, size)
        return x

    return level(0, b)


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_the_compiled_cycle_is_the_plain_v_cycle(monkeypatch, bending):
    monkeypatch.setattr(multigrid_hierarchy, "MAX_COARSE", 4)
    A, B, owner = plate_matrix(bending, divisions=8)
    h = multigrid_hierarchy.Hierarchy(A, B, owner, "energy")
    assert h.n_levels >= 3                     # a finest, a block level and the coarsest
    b = np.random.default_rng(1).normal(size=A.shape[0])
    x = np.full_like(b, np.nan)                # every entry written
    Ax = np.full_like(b, np.nan)
    multigrid_cycle.vcycle(multigrid_hierarchy.CsrOf().finest(A), h.levels, b, x, Ax)
    expected = reference_cycle(h, A, b)
    # the same operations up to the order of the sums (the fused sweeps use the Gauss-Seidel
    # identities, exact in exact arithmetic): round-off apart
    np.testing.assert_allclose(x, expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    np.testing.assert_allclose(Ax, A @ x, rtol=0, atol=1e-12 * np.abs(A @ x).max())


def test_fgmres_accepts_only_a_true_residual_below_the_target(monkeypatch):
    monkeypatch.setattr(multigrid_hierarchy, "MAX_COARSE", 4)
    A, B, owner = plate_matrix(divisions=8)
    solver = multigrid.ReusedAMG(RigidModes(np.zeros(0), np.zeros(0), np.zeros(0)), [])
    solver._hierarchy = multigrid_hierarchy.Hierarchy(A, B, owner, "energy")
    b = np.random.default_rng(2).normal(size=A.shape[0])
    x, iterations = solver._fgmres(A, b)
    assert x is not None and 0 < iterations <= sparse_solve.KRYLOV_MAX_ITERATIONS
    assert np.linalg.norm(A @ x - b) <= sparse_solve.KRYLOV_RTOL * np.linalg.norm(b)
    # too few iterations allowed: refused, with the iterations spent
    monkeypatch.setattr(sparse_solve, "KRYLOV_MAX_ITERATIONS", 2)
    assert solver._fgmres(A, b) == (None, 2)
    # a zero right-hand side: x = 0 at once
    x, iterations = solver._fgmres(A, np.zeros_like(b))
    assert iterations == 0 and not x.any()
    # a matrix whose cycle produces non-finite numbers is refused, not accepted
    monkeypatch.setattr(sparse_solve, "KRYLOV_MAX_ITERATIONS", 50)
    bad = A.copy()
    bad.data[bad.indptr[3]] = np.nan
    assert solver._fgmres(bad, b)[0] is None


def test_btb_inverse_is_pyamgs():
    # rows of a coarse-level prolongator pattern, and rows whose modes are rank-deficient
    # (an aggregate of 2 DOFs for 3 modes), which take the SVD pseudo-inverse
    # (an aggregate whose modes have rank one), and an empty row
    rng = np.random.default_rng(3)
    dense = rng.random((40, 12)) < 0.25
    dense[0] = False
    dense[0, 1] = True                                         # row 0: block column 1 only
    dense[1] = False                                           # row 1: empty
    pattern = pyamg.util.utils.unamal(scipy.sparse.csr_array(dense.astype(float)), 2, 3)
    pattern.sort_indices()
    B = rng.normal(size=(36, 3))
    B[3:6] = np.outer(rng.normal(size=3), [1.0, 2.0, 0.0])     # rank one on block column 1
    flagged = np.zeros(40, dtype=bool)
    multigrid_setup.btb_inverse(pattern.indptr.astype(np.int64),
                                pattern.indices.astype(np.int64), 2, 3, B, np.zeros((40, 3, 3)),
                                flagged)
    assert flagged[0] and flagged[1] and not flagged.all()     # both paths are exercised
    got = multigrid_hierarchy.btb_inverse(pattern, B)
    np.testing.assert_allclose(got, compute_BtBinv(B, pattern), rtol=1e-7, atol=1e-10)


def test_candidate_sweeps_are_pyamgs_gauss_seidel():
    A, B, _ = plate_matrix(divisions=6)
    X = np.array(B)
    multigrid_setup.smooth_candidates(A.indptr, A.indices, A.data, X, 2)
    for k in range(B.shape[1]):
        x = np.array(B[:, k])
        gauss_seidel(A, x, np.zeros_like(x), iterations=2, sweep="symmetric")
        np.testing.assert_allclose(X[:, k], x, rtol=1e-13, atol=1e-13 * np.abs(x).max())


def test_the_setup_is_pyamgs_smoothed_aggregation():
    # level 0 (the prolongator of the scaled matrix and the coarse operator R A P) as pyamg's
    # smoothed_aggregation_solver builds it with the same options
    A, B, owner = plate_matrix(divisions=12)
    h = multigrid_hierarchy.Hierarchy(A, B, owner, "energy")
    root = np.sqrt(np.abs(A.diagonal()))
    scale = scipy.sparse.diags(1.0 / root)
    ml = pyamg.smoothed_aggregation_solver(
        (scale @ A @ scale).tocsr(), B=B * root[:, None], strength="symmetric",
        smooth=("energy", {"degree": 1, "maxiter": multigrid_hierarchy.ENERGY_CG_ITERATIONS}),
        max_coarse=multigrid_hierarchy.MAX_COARSE,
        aggregate=[("predefined", {"AggOp": multigrid_hierarchy.node_aggregates(A, owner)})]
        + ["standard"] * 9, coarse_solver=None, keep=False)
    P0 = (scale @ ml.levels[0].P).toarray()
    np.testing.assert_allclose(h.P[0].toarray(), P0, rtol=0, atol=1e-8 * np.abs(P0).max())
    A1 = ml.levels[1].A.toarray()
    np.testing.assert_allclose(h.ops[1].toarray(), A1, rtol=0, atol=1e-8 * np.abs(A1).max())
