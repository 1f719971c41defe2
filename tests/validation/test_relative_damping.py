"""sm.RelativeDamping: linear damping of a Cosserat rod's motion relative to its own rigid motion
(softmech.kernels.relative_damping).

* The kernel: its forces and couples have no resultant and no moment about the weighted centre,
  their power is -sum c |u|^2 <= 0, and a rigid motion (translation and rotation, the elements
  spinning with it) feels none, to round-off, for random rods, velocities and weights.
* A free rod, no gravity: a rigid translation keeps its speed, where LinearDamping's decays as
  exp(-gamma t / (rho A)) (its definition: dv/dt = -gamma v / (rho A) on every node).
* A deformation is damped as LinearDamping damps it: the first axial mode of a free-free rod,
  v(s) = V cos(pi s / L), orthogonal to the rigid motions, has its amplitude decay as
  exp(-gamma t / (2 rho A)) (mass-proportional damping: zeta omega = gamma / (2 rho A); e.g.
  Chopra, Dynamics of Structures, sec. 11.4). Measured from the rod's length oscillation's
  peaks over three periods; tolerance 2 % on the decay rate (the explicit step and the
  discretization of the mode, 20 elements).
* Random velocities on a free open rod and on a ring: the momentum is kept to round-off.
"""
import numpy as np
import pytest

import softmech as sm
from softmech.kernels.relative_damping import RelativeDampingArgs, relative_damping

RHO, RADIUS, LENGTH, E = 1000.0, 2e-3, 0.1, 1e5
RHO_A = RHO * np.pi * RADIUS ** 2


def kernel_args(rng, W=2, nodes=7, elems=6):
    """Random arrays of one block of W lanes with one group of two rods, `nodes` nodes and
    `elems` elements in all (their frames random rotations)."""
    x = rng.normal(size=(1, 3, nodes * W))
    v = rng.normal(size=(1, 3, nodes * W))
    Q = np.zeros((1, 9, elems * W))
    for k in range(elems * W):
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        Q[0, :, k] = q.reshape(9)
    w = rng.normal(size=(1, 3, elems * W))
    return RelativeDampingArgs(
        x=x, v=v, Q=Q, w=w, relative_node=rng.uniform(0.1, 1.0, size=(1, nodes * W)),
        relative_elem=rng.uniform(0.01, 0.1, size=(1, elems * W)),
        relative_rods=np.array([[0, 3, 0, 2], [3, nodes - 3, 2, elems - 2]], dtype=np.int64),
        relative_groups=np.array([0, 2], dtype=np.int64),
        node_force=np.zeros((1, 3, nodes * W)), elem_couple=np.zeros((1, 3, elems * W)))


def lane_view(a, lane, W):
    """(positions (n, 3), velocities, frames (m, 3, 3), spins (m, 3), node weights, element
    weights, forces, couples) of one lane."""
    def per(arr, comps):
        return arr[0].reshape(comps, -1, W)[:, :, lane].T
    return (per(a.x, 3), per(a.v, 3), per(a.Q, 9).reshape(-1, 3, 3), per(a.w, 3),
            a.relative_node[0].reshape(-1, W)[:, lane], a.relative_elem[0].reshape(-1, W)[:, lane],
            per(a.node_force, 3), per(a.elem_couple, 3))


@pytest.mark.parametrize("seed", range(5))
def test_the_forces_have_no_resultant_no_moment_and_dissipate(seed):
    rng = np.random.default_rng(seed)
    W = 2
    a = kernel_args(rng, W)
    relative_damping(a, 0, W, 0.0)
    for lane in range(W):
        x, v, Q, w, cn, ce, f, m = lane_view(a, lane, W)
        centre = cn @ x / cn.sum()
        scale = np.abs(cn[:, None] * v).sum()
        # (the rotation's normal equations carry 1e-12 of their trace on the diagonal, which
        # keeps them solvable for a straight rod without element weights: residuals ~1e-11)
        assert np.allclose(f.sum(axis=0), 0.0, atol=1e-12 * scale)
        moment = np.cross(x - centre, f).sum(axis=0) + np.einsum("eji,ej->i", Q, m)
        assert np.allclose(moment, 0.0, atol=1e-9 * scale)
        # the power: -sum c |u|^2 (u = -f / c, -m / c_e), never positive
        power = np.sum(f * v) + np.sum(m * w)
        assert power < 0
        assert power == pytest.approx(-(np.sum(f * f / cn[:, None]) + np.sum(m * m / ce[:, None])),
                                      rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_a_rigid_motion_feels_no_force(seed):
    rng = np.random.default_rng(seed)
    W = 2
    a = kernel_args(rng, W)
    for lane in range(W):
        x, _, Q, _, _, _, _, _ = lane_view(a, lane, W)
        V, omega = rng.normal(size=3), rng.normal(size=3)
        v = V + np.cross(omega, x)             # about any point: a rigid motion
        w = np.einsum("eij,j->ei", Q, omega)   # the elements spin with it (local frame)
        a.v[0].reshape(3, -1, W)[:, :, lane] = v.T
        a.w[0].reshape(3, -1, W)[:, :, lane] = w.T
    relative_damping(a, 0, W, 0.0)
    # (round-off and the normal equations' 1e-12 regularization, above)
    assert np.abs(a.node_force).max() < 1e-10 * np.abs(a.v).max()
    assert np.abs(a.elem_couple).max() < 1e-10 * np.abs(a.w).max()


def free_rod(term, gamma, n_elems=20):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=LENGTH, n_elems=n_elems, radius=RADIUS,
                                 density=RHO, youngs_modulus=E)
    scene.add(term(rod, gamma))
    return scene.compile(dt=1e-5)


@pytest.mark.parametrize("term", [sm.RelativeDamping, sm.LinearDamping])
def test_a_rigid_translation_keeps_its_speed(term):
    gamma, t_end = 0.25, 0.02
    sim = free_rod(term, gamma)
    n = sim.get_state("rod")["positions"].shape[1]
    sim.set_state("rod", velocities=np.tile([0.01, -0.02, 0.005], (n, 1)))
    sim.step(int(round(t_end / sim.dt)))
    v = sim.get_state("rod")["velocities"][0]
    expected = 1.0 if term is sm.RelativeDamping else np.exp(-gamma * t_end / RHO_A)
    # (LinearDamping: 0.67 of the speed left; the explicit step's error is O(dt) relative)
    assert np.allclose(v, np.array([0.01, -0.02, 0.005]) * expected, rtol=1e-4, atol=0.0)


@pytest.mark.parametrize("term", [sm.RelativeDamping, sm.LinearDamping])
def test_the_first_axial_mode_decays_at_gamma_over_2_rho_a(term):
    gamma = 0.25                        # decay rate gamma / (2 rho A) = 9.95 1/s
    sim = free_rod(term, gamma)
    x0 = sim.get_state("rod")["positions"][0]
    s = x0[:, 0]
    velocities = np.zeros_like(x0)
    velocities[:, 0] = 1e-3 * np.cos(np.pi * s / LENGTH)
    sim.set_state("rod", velocities=velocities)
    # the mode's period: 2 L / sqrt(E / rho) = 0.02 s; the length sampled every 20 us
    times, lengths = [], []
    for i in range(3000):
        sim.step(2)
        x = sim.get_state("rod")["positions"][0]
        times.append((i + 1) * 2 * sim.dt)
        lengths.append(x[-1, 0] - x[0, 0] - LENGTH)
    times, lengths = np.array(times), np.abs(np.array(lengths))
    peaks = [i for i in range(1, len(lengths) - 1)
             if lengths[i] >= lengths[i - 1] and lengths[i] > lengths[i + 1]]
    assert len(peaks) >= 6
    t, amp = times[peaks], lengths[peaks]
    rate = -np.polyfit(t, np.log(amp), 1)[0]
    assert rate == pytest.approx(gamma / (2 * RHO_A), rel=0.02)


@pytest.mark.parametrize("closed", [False, True])
def test_a_free_rod_keeps_its_momentum(closed):
    scene = sm.Scene()
    if closed:
        rod = scene.add_cosserat_ring(name="rod", ring_radius=0.02, n_elems=24, radius=RADIUS,
                                      density=RHO, youngs_modulus=E)
    else:
        rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0),
                                     normal=(0, 0, 1), length=LENGTH, n_elems=20, radius=RADIUS,
                                     density=RHO, youngs_modulus=E)
    scene.add(sm.RelativeDamping(rod, 0.5))
    sim = scene.compile(worlds=2, dt=1e-6)
    state = sim.get_state("rod")
    rng = np.random.default_rng(3)
    sim.set_state("rod", velocities=rng.normal(size=state["velocities"].shape) * 1e-2,
                  angular_velocities=rng.normal(size=state["angular_velocities"].shape) * 0.1)
    before = sim.get_state("rod")["velocities"]
    sim.step(2000)
    after = sim.get_state("rod")["velocities"]
    # node masses in units of one element's: equal on a ring, halves at an open rod's ends
    m = np.ones(before.shape[1])
    if not closed:
        m[[0, -1]] = 0.5
    momentum_before = np.einsum("n,bnc->bc", m, before)
    assert np.allclose(np.einsum("n,bnc->bc", m, after), momentum_before, rtol=0,
                       atol=1e-12 * np.abs(momentum_before).max())
