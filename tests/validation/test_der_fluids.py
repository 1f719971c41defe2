"""Slender-body drag and the contractile cell on discrete elastic rods (implicit integrator).

Drag (softmech.kernels.implicit_drag): the consistent nodal forces of the local resistive force
-C v per unit length, C = c_t t t^T + c_n (I - t t^T), are exact for a straight rod moving
rigidly, so:
* a straight rod sinking under its weight W = rho A g L reaches v = rho A g / c (c = c_t along,
  c_n across; weight = drag, slender-body theory, Lighthill 1975), to 1e-9 after 40 relaxation
  times m / (c L);
* a straight rod turned by a couple T turns at Omega = 12 T / (c_n L^3) (the integral of
  c_n Omega s^2 over -L/2..L/2), to 1e-4 after 40 relaxation times (the couple's force pair keeps
  its lab direction while the rod turns by < 1e-3 rad: cos 1e-3 - 1 = 5e-7);
the forces and the Jacobians of both kernels match finite differences (1e-7 relative).
Cell: it bends a clamped discrete rod by the beam formula theta = F h l_c / (E I) (static
solve, 1 %), like the Cosserat rod's (tests/validation/test_contractile.py).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.kernels.contractile import contractile_cell_der
from softmech.kernels.implicit_drag import slender_drag_forces
from softmech.terms.contractile import FORCE_LENGTH, NO_CURVE
from softmech.terms.drag import slender_body_coefficients
from softmech.validation.discrete_rods import der_rod_sinks_at_slender_body_speed, sinking_der_rod

RNG = np.random.default_rng(7)


def _fd_jacobian(force, q, eps=1e-7):
    n = len(q)
    out = np.zeros((n, n))
    for k in range(n):
        dq = np.zeros(n)
        dq[k] = eps
        out[:, k] = (force(q + dq) - force(q - dq)) / (2 * eps)
    return out


def _dense(J, rows, cols, n):
    out = np.zeros((n, n))
    np.add.at(out, (rows, cols), J)
    return out


def _chain(n_nodes=4):
    """A bent 3D chain in a rod's DOF layout (x0 th0 x1 th1 ... x_last): q, node dofs, twists."""
    nd = np.array([[4 * i, 4 * i + 1, 4 * i + 2] for i in range(n_nodes)])
    tw = np.array([4 * i + 3 for i in range(n_nodes - 1)])
    n = 4 * n_nodes - 1
    q = RNG.normal(size=n)
    q[nd] = np.cumsum([[1.0, 0.2, 0.1]] * n_nodes, axis=0) + 0.1 * RNG.normal(size=(n_nodes, 3))
    return q, nd, tw, n


def test_drag_jacobian_matches_finite_differences():
    q, nd, tw, n = _chain()
    edges = np.concatenate([nd[:-1], nd[1:]], axis=1).astype(np.int64)
    m, h = len(edges), 0.01
    v = RNG.normal(size=n)
    q_n = q - h * v
    coef = (np.array([1.0, 0.7, 1.3]), np.array([1.0, 1.2, 0.8]), np.array([2.0, 2.5, 1.5]),
            np.array([0.3, 0.2, 0.1]))

    def forces(qq, jac=False):
        F, J = np.zeros(n), np.zeros(36 * m + m)
        slender_drag_forces(qq, (qq - q_n) / h, edges, tw, *coef, 1.0 / h, F, J)
        return (F, J) if jac else F

    F, J = forces(q, True)
    rows = np.concatenate([np.repeat(edges, 6, axis=1).reshape(-1), tw])
    cols = np.concatenate([np.tile(edges, (1, 6)).reshape(-1), tw])
    fd = _fd_jacobian(forces, q)
    np.testing.assert_allclose(_dense(J, rows, cols, n), fd, atol=1e-7 * np.abs(fd).max())


@pytest.mark.parametrize("curve", ["none", "muscle", "elastic"])
def test_cell_forces_and_jacobian_match_finite_differences(curve):
    q, nd, _, n = _chain()
    dofs = nd.reshape(-1).astype(np.int64)                 # edges (0, 1) and (2, 3)
    axis_a = np.array([0.0, 0.0, 1.0])
    axis_b = np.array([0.1, 0.0, 1.0]) / np.linalg.norm([0.1, 0.0, 1.0])
    x = q[nd]
    rest = 1.1 * np.linalg.norm(x[3] - x[0]) if curve == "muscle" else 0.0
    table = FORCE_LENGTH["muscle"] if curve == "muscle" else NO_CURVE
    # "elastic": the soft filament's own spring k (|D| - l_n), here shortened by 10 %
    k, natural = (3.0, 1.1 * np.linalg.norm(x[3] - x[0])) if curve == "elastic" else (0.0, 0.0)
    scratch = (np.empty((3, 12)), np.empty((12, 12)))

    def call(qq):
        F, J = np.zeros(n), np.zeros(144)
        dist = contractile_cell_der(qq, dofs, 0.3, 0.8, axis_a, axis_b, 0.3, -0.2, rest, table,
                                    k, natural, 2.0, F, J, *scratch)
        return dist, F, J

    dist, F, J = call(q)
    fd = _fd_jacobian(lambda qq: call(qq)[1], q)
    np.testing.assert_allclose(_dense(J, np.repeat(dofs, 12), np.tile(dofs, 12), n), fd,
                               atol=1e-7 * np.abs(fd).max())
    if curve != "muscle":   # F = -dE/dq, E = f |D| + k (|D| - l_n)^2 / 2
        energy = (lambda d: 2.0 * d + 0.5 * k * (d - natural) ** 2)
        grad = _fd_jacobian(lambda qq: np.full(n, energy(call(qq)[0])), q)[0]
        np.testing.assert_allclose(F, -grad, atol=1e-7 * np.abs(F).max())
    else:                   # the pull is 2 g(lambda): the net force on edge a's nodes
        g = np.polynomial.polynomial.polyval(dist / rest, table[2:])
        assert 0.0 < g < 1.0
        np.testing.assert_allclose(np.linalg.norm(F[nd[0]] + F[nd[1]]), 2.0 * g, rtol=1e-12)


def _straight_rod(scene, n_elems=20, direction=(1.0, 0.0, 0.0)):
    return scene.add_der_rod(name="rod", start=(0, 0, 0), direction=direction, length=0.1,
                             n_elems=n_elems, radius=1e-3, density=2000.0, youngs_modulus=1e8)


@pytest.mark.parametrize("engine", [None, "unified"])
@pytest.mark.parametrize("across", [True, False])
def test_rod_sinks_at_the_slender_body_terminal_speed(across, engine):
    """softmech.validation.discrete_rods.sinking_der_rod (the case
    der_rod_sinks_at_slender_body_speed is the "across" one): v = rho A g / c to 1e-9, no
    sideways motion; in the discrete engine and on the discrete-rod kind of the unified one
    (its finite-difference Newton: the same fixed point, the exact balance)."""
    v, expected = sinking_der_rod(across, engine=engine)
    np.testing.assert_allclose(v[:, 2], -expected, rtol=1e-9)
    np.testing.assert_allclose(v[:, :2], 0.0, atol=1e-9 * np.abs(v[:, 2]).max())
    if across and engine is None:
        record = der_rod_sinks_at_slender_body_speed()
        assert record["passed"], record["detail"]


@pytest.mark.parametrize("engine", [None, "unified"])
def test_rod_turns_at_the_slender_body_rate_under_a_couple(engine):
    """Two opposite end forces T / L turn a straight rod at omega = 12 T / (c_n L^3) (the
    couple balances the drag on the rotation, int c_n (s omega) s ds = c_n omega L^3 / 12;
    slender-body theory, Lighthill 1975; the consistent nodal drag is exact for a rigid
    rotation) within 1e-6: measured -1.2e-7 in both engines (the rod has turned and bent a
    little by then)."""
    scene = sm.Scene()
    rod = _straight_rod(scene, n_elems=21)
    mu, T, L = 1.0, 1e-6, 0.1
    scene.add(sm.SlenderBodyDrag(rod, mu, form="spheroid"))
    scene.add(sm.NodeForce(rod, 0, (0.0, -T / L, 0.0), name="push"))
    scene.add(sm.NodeForce(rod, 21, (0.0, T / L, 0.0), name="pull"))
    _, c_n = slender_body_coefficients(mu, L / 1e-3, "spheroid")
    omega = 12 * T / (c_n * L**3)
    tau = 2000.0 * np.pi * 1e-6 / c_n                       # I / (c_n L^3 / 12) = m / (c_n L)
    sim = scene.compile(dt=tau / 5, engine=engine)
    sim.run(40 * tau)
    x = sim.get_state("rod")
    v, pos = x["velocities"][0], x["positions"][0]
    rate = (v[-1, 1] - v[0, 1]) / (pos[-1, 0] - pos[0, 0])
    assert abs(omega * 40 * tau) < 1e-3                    # turned by < 1e-3 rad
    np.testing.assert_allclose(rate, omega, rtol=1e-6)


def test_cell_bends_a_clamped_discrete_rod_by_the_beam_formula():
    """As tests/validation/test_contractile.py for the Cosserat rod (static solve)."""
    L, R, E = 0.2, 0.005, 1e6
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                            length=L, n_elems=40, radius=R, density=1000.0, youngs_modulus=E)
    scene.add(sm.FixNodes(rod, [0, 1], angles=[0]))
    F, cell_radius, start, span = 5e-3, 0.005, 0.0525, 0.05
    scene.add(sm.ContractileCell(rod, start, span, F, cell_radius=cell_radius))
    sim = scene.compile(dt=1e-3)
    sim.solve_static()
    x = sim.get_state("rod")["positions"][0]
    theta = F * (R + cell_radius) * span / (E * np.pi * R**4 / 4)
    tip = x[-1] - x[-2]
    np.testing.assert_allclose(np.arctan2(tip[1], tip[0]), theta, rtol=1e-2)
