"""Contractile cell, softmech.ContractileCell: a cell pulling with constant force F between two
points of a clamped rod at distance h from its centreline bends the span between them with the
moment M = F h and leaves the rest straight, so the free end turns by (Euler-Bernoulli)

    theta_tip = F h l_c / (E I)          (l_c the cell's span; E I = E pi r^4 / 4)

and the rod beyond the cell stays straight. Tolerance 1 %: the force line is the chord of the
attachment points, which lies up to l_c^2 kappa / 8 further from the bent centreline than h
(+0.03 % here), the shortening F / (E A) (1e-4), and the damping's residual motion after 30
decay times.
"""
import numpy as np
import pytest

import softmech as sm

L, R, E, RHO = 0.2, 0.005, 1e6, 1000.0


@pytest.mark.parametrize("side, sign", [("d1", 1.0), ("-d1", -1.0)])
def test_constant_cell_bends_a_clamped_rod_by_the_beam_formula(side, sign):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                                 length=L, n_elems=40, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.LinearDamping(rod, 1.0, rotational_coefficient=1e-5))
    F, cell_radius, start, span = 5e-3, 0.005, 0.05, 0.05
    scene.add(sm.ContractileCell(rod, start, span, F, cell_radius=cell_radius, side=side))
    sim = scene.compile(dt=5e-5, strict=True)
    sim.run(3.0)
    x = sim.get_state()["positions"][0]
    h = R + cell_radius
    theta = F * h * span / (E * np.pi * R**4 / 4)
    tip = x[-1] - x[-2]
    np.testing.assert_allclose(np.arctan2(tip[1], tip[0]), sign * theta, rtol=1e-2)
    # beyond the cell the rod is straight: every element there has the tip's direction
    d = np.diff(x[20:], axis=0)
    np.testing.assert_allclose(np.arctan2(d[:, 1], d[:, 0]), sign * theta, rtol=1e-2)
    # before it, straight along x
    np.testing.assert_allclose(x[:11, 1], 0.0, atol=1e-4 * theta * L)


def test_cell_forces_have_no_net_force_or_torque():
    """On a random state: the cell pulls with F (1 - cos(2 pi f t)) / 2; its node forces sum to zero and its torque about the origin,
    sum x_i x f_i + sum_e Q_e^T c_e (couples turned back to the lab), is zero (round-off)."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                                 length=L, n_elems=10, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.ContractileCell(rod, 0.03, 0.1, 1e-2, frequency=3.0, cell_radius=0.002))
    sim = scene.compile(dt=1e-5)
    rng = np.random.default_rng(2)
    st = sim.get_state()
    sim.set_state(positions=st["positions"] + rng.normal(scale=0.01, size=st["positions"].shape))
    sim.time = 0.1
    engine = sim._engine()
    sim._evaluate(engine)
    acc, alpha = engine.workspace.node_force.copy(), engine.workspace.elem_couple.copy()
    sim._evaluate(engine, leave_out=("contractile_cells",))
    ctx = engine.ctx
    m = ctx.discrete["rod"]["node_mass"][0]
    J = ctx.discrete["rod"]["elem_J"][0]
    f = (acc - engine.workspace.node_force)[0].T * m[:, None]
    e = (engine.workspace.elem_len * engine.bodies.elem_inv_rest_len)[0]
    c_local = (alpha - engine.workspace.elem_couple)[0].T * J / e[:, None]
    Q = sim.get_state()["directors"][0]
    x = sim.get_state()["positions"][0]
    torque = np.cross(x, f).sum(axis=0) + np.einsum("eji,ej->i", Q, c_local)
    # the cell's force is the difference of two full force passes: round-off of the elastic
    # forces of the random state (scale below), relative 1e-12
    scale = np.abs(acc[0]).max() * m.max()
    np.testing.assert_allclose(np.linalg.norm(f, axis=1).max(),
                               1e-2 * (1 - np.cos(2 * np.pi * 3.0 * 0.1)) / 2, rtol=1e-9)
    np.testing.assert_allclose(f.sum(axis=0), 0.0, atol=1e-12 * scale)
    np.testing.assert_allclose(torque, 0.0, atol=1e-12 * scale * L)


def test_cell_rejects_bad_parameters():
    with pytest.raises(ValueError, match="cell.length"):
        sm.ContractileCell("rod", 0.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="cell.side"):
        sm.ContractileCell("rod", 0.0, 1.0, 1.0, side="up")
    scene = sm.Scene()
    scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0), length=L,
                           n_elems=10, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.ContractileCell("rod", 0.15, 0.1, 1.0))
    with pytest.raises(ValueError, match="the cell must lie on the rod"):
        scene.compile(dt=1e-5)
