"""Corotated kept Jacobians of the implicit integrator (ImplicitOptions.corotate;
softmech.kernels.corotation) and its quadratic predictor (ImplicitOptions.predictor): the slot
rotations, the turned solve, the predictor's exactness, and what the options do to a run --
the same solution within the Newton tolerance, fewer Jacobians, restarts bit for bit."""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import softmech as sm
from softmech.kernels.corotation import keep_frames, node_rotations, rotate_dofs
from softmech.kernels.implicit_motion import ImplicitKindArgs
from softmech.kernels.implicit_newton import predict


def _kind(Q, Qf, Rn, adjacent, offsets):
    """The integrator's own argument tuple (an importable type: numba's cache of the kernels
    records it) with the frames and rotations given, no velocity or position slots."""
    none = np.zeros((1, 3, 0))
    return ImplicitKindArgs(
        x=none, v=none, Q=Q, w=none, acc=none, alpha=none, xb=none, Qb=Q.copy(), vb=none,
        wb=none, xs=none, Qs=Q.copy(), vs=none, ws=none, v_mask=none, w_mask=none,
        v_scale=none, v_inv_mass=np.zeros((1, 0)), w_inv_inertia=none,
        offsets=np.asarray(offsets, dtype=np.int64),
        violations=np.zeros(1, dtype=np.int64), inertia=np.ones(1), Qf=Qf, Rn=Rn,
        adjacent=np.asarray(adjacent, dtype=np.int64))


def _frames(rotations, W):
    """Block array (1, 9, n*W) of frames whose rows are the directors: Q = R^T for each
    rotation R (n, W) of the world axes onto the directors."""
    n = len(rotations)
    Q = np.zeros((1, 9, n * W))
    for s in range(n):
        for lane in range(W):
            Q[0, :, s * W + lane] = rotations[s][lane].as_matrix().T.ravel()
    return Q


def test_slot_rotations_are_the_mean_turn_of_the_adjacent_frames():
    """Three frames (W = 2 lanes with different start frames) turned about z by a, a and b
    since the factorization: R_i of the four nodes of an open rod is R_z(a), R_z(a),
    R_z((a + b) / 2) (the mean of two turns about one axis) and R_z(b), to round-off."""
    W, a, b = 2, 0.3, -0.2
    rng = np.random.default_rng(3)
    start = [[Rotation.random(random_state=rng) for _ in range(W)] for _ in range(3)]
    turns = [a, a, b]
    now = [[Rotation.from_rotvec([0, 0, turns[s]]) * start[s][lane] for lane in range(W)]
           for s in range(3)]
    kind = _kind(_frames(now, W), _frames(start, W), np.zeros((1, 9, 4 * W)),
                 [[0, 0], [0, 1], [1, 2], [2, 2]], [0, 12])
    node_rotations(kind, 0, W)
    for s, angle in enumerate([a, a, (a + b) / 2, b]):
        expected = Rotation.from_rotvec([0, 0, angle]).as_matrix().ravel()
        for lane in range(W):
            assert np.allclose(kind.Rn[0, :, s * W + lane], expected, rtol=0, atol=1e-14)
    keep_frames(kind, 0, W, np.array([0, 1], dtype=np.int64))
    node_rotations(kind, 0, W)                   # lane 1 refactored now: no turn since
    assert np.allclose(kind.Rn[0, :, 1::2], np.eye(3).ravel()[:, None], rtol=0, atol=1e-15)
    assert not np.allclose(kind.Rn[0, :, 0::2], np.eye(3).ravel()[:, None])


def test_turned_solve_rotates_velocity_dofs_only():
    """rotate_dofs applies R_i (forward) or R_i^T (transpose) to each slot's 3 velocity DOFs
    and leaves the angular-velocity DOFs (body axes) alone; forward after transpose is the
    identity (R_i orthogonal)."""
    W, n_x = 2, 3
    rng = np.random.default_rng(4)
    R = Rotation.random(n_x * W, random_state=rng).as_matrix()
    Rn = np.zeros((1, 9, n_x * W))
    Rn[0] = R.reshape(-1, 9).T
    kind = _kind(np.zeros((1, 9, 0)), np.zeros((1, 9, 0)), Rn, np.zeros((0, 2)), [0, 9])
    X = rng.standard_normal((9 + 6, W))
    Y = X.copy()
    rotate_dofs(kind, 0, W, Y, False)
    for s in range(n_x):
        for lane in range(W):
            assert np.allclose(Y[3 * s:3 * s + 3, lane], R[s * W + lane] @ X[3 * s:3 * s + 3, lane],
                               rtol=0, atol=1e-14)
    assert np.array_equal(Y[9:], X[9:])
    rotate_dofs(kind, 0, W, Y, True)
    assert np.allclose(Y, X, rtol=0, atol=1e-14)


@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_predictor_is_exact_for_polynomials_of_its_order(order):
    """Velocities u(t) = c0 + c1 t + c2 t^2 (up to the order) at t = -2h, -h, 0: the guess for
    t = h is u(h) exactly (Lagrange extrapolation through the last order + 1 steps), and the
    history shifts (U_old <- u(0), U_old2 <- u(-h))."""
    rng = np.random.default_rng(5)
    c = rng.standard_normal((3, 4, 2))
    c[order + 1:] = 0.0
    u = lambda t: c[0] + c[1] * t + c[2] * t**2
    h = 0.1
    U, U_old, U_old2 = u(0.0), u(-h), u(-2 * h)
    predict(U, U_old, U_old2, order, np.zeros(U.shape[1], dtype=np.int64))
    assert np.allclose(U, u(h), rtol=0, atol=1e-14)
    assert np.array_equal(U_old, u(0.0)) and np.array_equal(U_old2, u(-h))
    if order == 2:      # a lower order is not exact for a parabola
        U, U_old, U_old2 = u(0.0), u(-h), u(-2 * h)
        predict(U, U_old, U_old2, 1, np.zeros(U.shape[1], dtype=np.int64))
        assert not np.allclose(U, u(h), rtol=0, atol=1e-6)


def test_options_are_validated():
    with pytest.raises(ValueError, match="ImplicitOptions.corotate"):
        sm.ImplicitOptions(corotate=1)
    with pytest.raises(ValueError, match=r"ImplicitOptions.predictor = 3 .*0, 1 or 2"):
        sm.ImplicitOptions(predictor=3)
    with pytest.raises(ValueError, match="ImplicitOptions.predictor"):
        sm.ImplicitOptions(predictor=-1)


def _swimmer(worlds=1, corotate=True, predictor=1):
    """The Cosserat swimmer of Zhang et al. 2019 (20 elements, no inertia scaling) at 1000 steps
    per beat, compiled with implicit Euler: its stiff, light elements turn by up to ~5 mrad per
    step while their shear and stretch hold them (the setting corotation is for)."""
    from softmech.scenarios.swimmer import build_swimmer

    scene, info = build_swimmer(model="cosserat", n_elems=20, rotary_inertia=1.0, cycles=1,
                                dt=1 / 3.6 / 1000, worlds=worlds)
    return scene.compile(dt=info.dt, scheme="implicit_euler", worlds=worlds,
                         newton=sm.ImplicitOptions(corotate=corotate, predictor=predictor)), info


def test_corotated_jacobians_give_the_same_run_with_fewer_renewals():
    """The option changes how the Newton iteration gets to each step's solution, not the
    solution: after 300 steps the nodes agree with the plain run within 300 x tol x the
    element length (each step's solution is within tol of its length scale, errors that
    add up at worst; measured 2e-6 of an element); and the kept Jacobian, turned with the
    elements, is renewed at fewer than half as many steps (measured 65 against 225)."""
    runs = {}
    for corotate in (False, True):
        sim, info = _swimmer(corotate=corotate)
        sim.step(300)
        runs[corotate] = (sim.get_state()["positions"][0], sim.implicit_integrator().stats)
    (plain, s0), (turned, s1) = runs[False], runs[True]
    element = 1.927e-3 / 20
    assert np.abs(plain - turned).max() < 300 * sim.implicit_integrator().options.tol * element
    assert np.ptp(plain[:, 1]) > element                # the flagellum did bend
    assert s1["jacobians"] < 0.5 * s0["jacobians"], (s0, s1)


@pytest.mark.parametrize("worlds", [1, 2])
def test_a_corotated_run_restarts_bit_for_bit(tmp_path, worlds):
    """save_state keeps each kind's frames of the factorization (implicit.frames<j>) with the
    kept factor, so a restarted run turns it the same way, and the velocities of the step
    before the last (implicit.U_old2) that the quadratic predictor extrapolates from."""
    def build():
        return _swimmer(worlds, predictor=2)[0]
    straight = build()
    straight.step(60)
    first = build()
    first.step(30)
    first.save_state(tmp_path / "state.npz")
    assert {"implicit.frames0", "implicit.U_old2"} <= set(first.history())
    second = build()
    second.load_state(tmp_path / "state.npz")
    second.step(30)
    assert np.array_equal(straight.get_state()["positions"], second.get_state()["positions"])
