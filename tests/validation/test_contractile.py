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

from softmech.validation.muscles import CELL_E as E
from softmech.validation.muscles import CELL_L as L
from softmech.validation.muscles import CELL_R as R
from softmech.validation.muscles import CELL_RHO as RHO
from softmech.validation.muscles import contractile_cell_bends_a_clamped_rod


@pytest.mark.parametrize("side", ["d1", "-d1"])
def test_constant_cell_bends_a_clamped_rod_by_the_beam_formula(side):
    """softmech.validation.muscles.contractile_cell_bends_a_clamped_rod on both sides: the free
    end and everything beyond the cell turn by the beam formula's angle (1 %) with the side's
    sign, the rod before it stays straight."""
    record = contractile_cell_bends_a_clamped_rod(side)
    assert (record["reference"] > 0) == (side == "d1")
    assert record["passed"], record["detail"]


def soft_cell_rotation(F, k, h, span, EI, EA):
    """Rotation [rad] of a clamped rod beyond a soft cell (module docstring's beam, the cell a
    spring of stiffness k and natural length span in parallel with its pull F): the pull f
    compresses the span to the length l = span (1 - f / (E A)) and its moment f h bends it to the
    curvature kappa = f h / (E I), which brings the attachment points, on the concave side at h
    from the centreline, to the chord 2 (1/kappa - h) sin(kappa l / 2); the cell then pulls with
    f = F - k (span - chord). Solved for f; returns kappa span."""
    from scipy.optimize import brentq

    def chord(f):
        kappa = f * h / EI
        return 2.0 * (1.0 / kappa - h) * np.sin(0.5 * kappa * span * (1.0 - f / EA))

    f = brentq(lambda f: f - F + k * (span - chord(f)), 1e-6 * F, F)
    return f * h / EI * span


def clamped_cell_rotation(model, n_elems, F, cell_radius, start, span, modulus, engine=None):
    """Rotation [rad] of the free end of a clamped rod (the module's) bent by a cell, at rest
    (a discrete rod on `engine`, "discrete" or "unified"; None: the default)."""
    scene = sm.Scene()
    add = scene.add_cosserat_rod if model == "cosserat" else scene.add_der_rod
    rod = add(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0), length=L,
              n_elems=n_elems, radius=R, density=RHO, youngs_modulus=E)
    # the clamp: the first node and element (a discrete rod: its first two nodes and twist)
    scene.add(sm.Clamp(rod, "first") if model == "cosserat"
              else sm.FixNodes(rod, [0, 1], angles=[0]))
    scene.add(sm.ContractileCell(rod, start, span, F, cell_radius=cell_radius, modulus=modulus))
    if model == "cosserat":
        scene.add(sm.LinearDamping(rod, 1.0, rotational_coefficient=1e-5))
        sim = scene.compile(dt=2e-3 / n_elems, strict=True)
        sim.run(3.0)
    else:                   # implicit Euler with large steps settles to the equilibrium
        sim = scene.compile(dt=0.05, engine=engine)
        sim.run(20.0)
    x = sim.get_state("rod")["positions"][0]
    return float(np.arctan2(x[-1, 1] - x[-2, 1], x[-1, 0] - x[-2, 0]))


@pytest.mark.parametrize("model, engine", [("cosserat", None), ("discrete", "discrete"),
                                           ("discrete", "unified")])
def test_soft_cell_bends_a_clamped_rod_by_the_spring_in_series(model, engine):
    # ContractileCell(modulus=E_c): a soft filament (Zhang et al. 2019's swimmer cell) pulls
    # with F less its own elastic resistance k (l_n - |D|), k = E_c pi r_c^2 / l_n. The rod's
    # rotation beyond it is soft_cell_rotation (Euler-Bernoulli and the span's compression, with
    # the spring in the force balance); E_c is chosen so that the spring takes ~25 % of F. The
    # spring sees the chord's shortening (~4e-5 m), which both discretizations of the cell's
    # couples change at first order in the element length (measured at 40, 80, 160, 320
    # elements: Cosserat +2.6 %, +1.3 %, discrete -7.7 %, -3.7 %, -1.8 %, -0.8 %), so the test
    # extrapolates 40 and 80 elements to zero length (Richardson, 2 a(80) - a(40)); tolerance
    # 0.5 % (measured +0.1 %, +0.2 %). Without its modulus the same cell must bend the rod by
    # > 20 % more (else this proves nothing about the spring).
    F, cell_radius, start, span, modulus = 5e-3, 0.005, 0.05, 0.05, 2e4
    # (a discrete rod: on either engine, the same kernel, contractile_cell_der)
    coarse, fine = (clamped_cell_rotation(model, n, F, cell_radius, start, span, modulus, engine)
                    for n in (40, 80))
    k = modulus * np.pi * cell_radius**2 / span
    theta = soft_cell_rotation(F, k, R + cell_radius, span, E * np.pi * R**4 / 4, E * np.pi * R**2)
    np.testing.assert_allclose(2.0 * fine - coarse, theta, rtol=5e-3)
    assert clamped_cell_rotation(model, 80, F, cell_radius, start, span, 0.0, engine) > 1.2 * fine


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
    with pytest.raises(ValueError, match="cell.modulus"):
        sm.ContractileCell("rod", 0.0, 1.0, 1.0, modulus=-1.0)
    with pytest.raises(ValueError,
                       match="cell.modulus = 1e\\+06 Pa is not allowed with cell.cell_radius = 0"):
        sm.ContractileCell("rod", 0.0, 1.0, 1.0, modulus=1e6)
    with pytest.raises(ValueError, match="cell.side"):
        sm.ContractileCell("rod", 0.0, 1.0, 1.0, side="up")
    scene = sm.Scene()
    scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0), length=L,
                           n_elems=10, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.ContractileCell("rod", 0.15, 0.1, 1.0))
    with pytest.raises(ValueError, match="the cell must lie on the rod"):
        scene.compile(dt=1e-5)
