"""Analytic Jacobians in the unified engine's implicit Euler (softmech.integrators.analytic):
the discrete rods' elasticity enters the Newton matrix from its own Hessian (ref. 004 eqs.
9-16, the discrete engine's), the other terms by finite differences over a coloring that no
longer carries the rods' couplings."""
import numpy as np
import pytest

import softmech as sm
from softmech.integrators.analytic import AnalyticJacobian
from softmech.integrators.driver import Call
from softmech.kernels.der_kind import der_clear_forces, der_elastic_forces, der_elastic_jacobian
from jacobian_fixture import H, newton_matrices


def bent_rod(analytic=True):
    """A clamped 1 GPa rod, 12 edges, with a 3D natural curvature and twist, released: after
    a few steps it bends and twists out of its plane (every block of the Hessian non-zero)."""
    scene = sm.Scene()
    n = 12
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                            normal=(0.0, 0.0, 1.0), length=0.2, n_elems=n, radius=2e-3,
                            density=1200.0, youngs_modulus=1e9,
                            natural_curvature=np.tile([2.0, 1.0], (n - 1, 1)),
                            natural_twist=np.full(n - 1, 3.0))
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
    scene.add(sm.Gravity())
    return scene.compile(dt=H, engine="unified", scheme="implicit_euler",
                         newton=sm.ImplicitOptions(analytic=analytic, max_iterations=60))


@pytest.fixture(scope="module")
def matrices():
    sim = bent_rod()
    sim.step(10)
    return newton_matrices(sim)


def test_the_elastic_entries_are_the_symmetric_part_of_the_residuals_derivative(matrices):
    """The analytic stiffness is the Hessian of the elastic energy: the symmetric part of the
    derivative of the forces (the reference twist's transport adds an antisymmetric part,
    softmech.kernels.der_bend_twist): measured 4.5e-7 of the largest entry; the forces on the
    nodes, rows of positions, follow the derivative itself (1.4e-6, the central differences'
    error)."""
    _, _, K_true, K_ours, twist = matrices
    scale = np.abs(K_true).max()
    assert np.abs(K_ours - K_ours.T).max() < 1e-9 * scale
    assert np.abs(K_ours - 0.5 * (K_true + K_true.T)).max() < 1e-5 * scale
    assert np.abs(K_ours - K_true)[~twist].max() < 1e-4 * scale
    # the antisymmetric part is there: the twist rows' position columns differ by a fair
    # share of their own size (measured 0.59), so the test measures something real
    block = np.ix_(twist, ~twist)
    assert np.abs(K_ours - K_true)[block].max() > 0.01 * np.abs(K_true)[block].max()


def test_the_newton_matrix_of_the_other_terms_is_unchanged(matrices):
    """Outside the elasticity's entries (gravity: none; the inertia's identity) the two
    matrices agree: the finite differences of the other terms are still taken."""
    full, ours, *_ = matrices
    assert np.allclose(np.diag(full)[np.diag(full) == 1.0], np.diag(ours)[np.diag(full) == 1.0])


def test_a_run_with_analytic_entries_follows_the_finite_difference_run():
    """Both solve the same backward-Euler equations to the Newton tolerance (tol 1e-8 of an
    edge, 1.7e-10 m): the tips after 40 steps within 1e-8 m (measured 8.8e-10 m); the
    analytic run evaluates the residual fewer times per Jacobian (its colors: a node's own
    3 x 3 block, 3, against 19 with the rods' couplings; 725 evaluations in all against
    2,705)."""
    tips, counts = {}, {}
    for analytic in (True, False):
        sim = bent_rod(analytic)
        sim.step(40)
        tips[analytic] = sim.get_state("rod")["positions"][0][-1]
        ig = sim.implicit_integrator()
        counts[analytic] = ig.pattern.n_colors
    assert np.abs(tips[True] - tips[False]).max() < 1e-8
    assert counts[True] <= 4 < counts[False]


def test_the_kept_differences_are_saved_in_the_factors_layout_and_continue_bit_for_bit(
        tmp_path):
    """The last finite differences are kept at their entries only (SolverArgs.fd_values,
    since 2026-12-06) and saved as before, in the factor's values layout: zero outside the
    differenced entries. The rod's analytic entries are renewed at every step from its kept
    differences, so a restart that put them back at the wrong places would not continue bit
    for bit; a memory whose differences have another shape is refused, naming them."""
    sim = bent_rod()
    sim.step(10)
    ig = sim.implicit_integrator()
    saved = ig.memory()["fd_values"]
    nnz, at = ig.solver.values.shape[1], ig.solver.entry_pos
    assert saved.shape == (1, nnz)
    assert np.all(np.delete(saved, at, axis=1) == 0.0) and np.any(saved[:, at] != 0.0)
    sim.save_state(tmp_path / "s.npz")
    sim.step(15)
    loaded = bent_rod()
    loaded.load_state(tmp_path / "s.npz")
    loaded.step(15)
    assert np.array_equal(loaded.get_state("rod")["positions"], sim.get_state("rod")["positions"])
    with pytest.raises(ValueError, match="fd_values has shape"):
        loaded.implicit_integrator().restore_memory({**ig.memory(), "fd_values": saved[:, at]})


def test_the_declarations_are_checked():
    rows = np.arange(4)
    with pytest.raises(ValueError, match="rows and cols"):
        AnalyticJacobian(kernel=der_elastic_jacobian, without=der_clear_forces, rows=rows,
                         cols=rows[:3], kind=None)
    spec = AnalyticJacobian(kernel=der_elastic_jacobian, without=der_clear_forces, rows=rows,
                            cols=rows, kind=None)
    with pytest.raises(ValueError, match="Call.jacobian"):
        Call("positions", 0, der_elastic_forces, (), jacobian=spec)
    with pytest.raises(ValueError, match="ImplicitOptions.analytic"):
        sm.ImplicitOptions(analytic="yes")


@pytest.mark.parametrize("W", [1, 3, 8])
@pytest.mark.parametrize("flags", ["all", "some", "none"])
def test_the_entries_are_added_and_kept_as_lane_by_lane(W, flags):
    """add_analytic_lanes takes shortcuts where every lane (or none) is flagged (a flat loop,
    no test per lane); each lane must get exactly what the lane-by-lane definition gives:
    vals[pos[k], lane] -= h^2 weight values on the flagged lanes, in the entries' order
    (repeated positions included) (bit for bit: the same operations in the same order). And
    keep_differences exchanges kept and vals at the differenced entries' positions per the
    flags, leaving every other position alone."""
    from softmech.kernels.analytic_jacobian import (AnalyticArgs, add_analytic_lanes,
                                                    keep_differences)
    rng = np.random.default_rng(W)
    nnz, k, h = 40, 90, 1e-3
    pos = rng.integers(0, nnz, k)                 # repeated positions: the order matters
    a = AnalyticArgs(values=rng.normal(size=(1, k, W)), rows=np.zeros(k, np.int64),
                     cols=np.zeros(k, np.int64), pos=pos,
                     weight=rng.random((1, k, W)))
    lanes = {"all": np.ones(W, np.int64), "none": np.zeros(W, np.int64),
             "some": (np.arange(W) % 2).astype(np.int64)}[flags]
    vals = rng.normal(size=(nnz, W))
    expected = vals.copy()
    for e in range(k):
        for lane in np.flatnonzero(lanes):
            expected[pos[e], lane] -= h * h * a.weight[0, e, lane] * a.values[0, e, lane]
    add_analytic_lanes(a, 0, W, h, vals, lanes)
    assert np.array_equal(vals, expected)

    refresh = np.ones(W, np.int64)
    entry_pos = rng.permutation(nnz)[:nnz // 3]     # the differenced entries' positions
    kept = rng.normal(size=(entry_pos.size, W))
    want_kept = np.where(lanes != 0, vals[entry_pos], kept)
    want_vals = vals.copy()
    want_vals[entry_pos] = np.where((lanes == 0) & (refresh != 0), kept, vals[entry_pos])
    keep_differences(vals, kept, entry_pos, lanes, refresh)
    assert np.array_equal(kept, want_kept) and np.array_equal(vals, want_vals)
