"""sm.ContractileCell on a discrete rod in the unified engine (softmech.terms.der_loads.
DerContractileCells, kernel softmech.kernels.der_loads.der_contractile_cell): the discrete
engine's cell kernel (contractile_cell_der) run on each world's own attachment. Its statics
against Euler-Bernoulli: tests/validation/test_contractile.py (both engines)."""
import numpy as np
import pytest

import softmech as sm

L, R, RHO, E = 0.2, 0.002, 1000.0, 1e6


def cell_scene(starts=(0.05,), lengths=(0.05,), frequency=3.6):
    """A free discrete rod in a viscous bath, a twitching soft cell on it (one world per
    start/length)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                            length=L, n_elems=20, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.LinearDamping(rod, 0.5))
    scene.add(sm.ContractileCell(rod, starts[0], lengths[0], 2e-3, frequency=frequency,
                                 cell_radius=0.001, modulus=1e4, name="cell"))
    return scene


def tip_path(sim, duration=0.3, every=0.05):
    out = []
    for _ in range(int(round(duration / every))):
        sim.run(every)
        out.append(sim.get_state("rod")["positions"][:, -1].copy())
    return np.array(out)                                        # (samples, B, 3)


def test_a_twitching_cell_moves_the_rod_as_on_the_discrete_engine():
    # the same kernel and parameters, implicit Euler at the same dt on both engines: their
    # Newton solutions differ by the solvers' tolerances (the unified one on a relative
    # correction of 1e-8, the discrete one on its residual), so the paths agree to ~1e-9 m;
    # tolerance 1e-7 m of tip motion that reaches ~1e-3 m (the cell does bend the rod)
    paths = {engine: tip_path(cell_scene().compile(dt=1e-3, engine=engine))
             for engine in ("discrete", "unified")}
    moved = np.abs(paths["discrete"][:, 0, 1]).max()
    assert moved > 1e-4
    np.testing.assert_allclose(paths["unified"], paths["discrete"], rtol=0, atol=1e-7)


def test_per_world_attachments_equal_single_runs():
    # three worlds, the cell at three places and lengths (per-world `start` and `length`: each
    # lane its own four nodes) equal their single runs. Not bit for bit: the worlds share one
    # Jacobian pattern, the union of their cells' stencils (as contacts' proximity groups), so
    # the sparse LU orders a different pattern than each single run's and rounds differently
    # (measured 1e-20 m on motions of 1e-5 m); tolerance 1e-15 m. Worlds whose cells sit alike
    # have the same pattern as their single run and equal it bit for bit (asserted below).
    starts, lengths = np.array([0.02, 0.05, 0.1133]), np.array([0.05, 0.0712, 0.04])
    sim = cell_scene().compile(worlds=3, dt=1e-3, engine="unified")
    sim.params["cell.start"] = starts
    sim.params["cell.length"] = lengths
    batch = tip_path(sim, duration=0.1)
    for b in range(3):
        single = cell_scene(starts=starts[b:b + 1], lengths=lengths[b:b + 1]).compile(
            dt=1e-3, engine="unified")
        np.testing.assert_allclose(tip_path(single, duration=0.1)[:, 0], batch[:, b], rtol=0,
                                   atol=1e-15)
    assert np.abs(batch[-1, 0] - batch[-1, 2]).max() > 1e-6      # the places matter
    # alike worlds (two blocks of two lanes: B = 3): bit for bit (the probed pattern does not
    # depend on the block's width: softmech.integrators.implicit._probe_pattern)
    sim = cell_scene(starts=starts[1:2], lengths=lengths[1:2]).compile(worlds=3, dt=1e-3,
                                                                       engine="unified")
    alike = tip_path(sim, duration=0.1)
    single = cell_scene(starts=starts[1:2], lengths=lengths[1:2]).compile(dt=1e-3,
                                                                          engine="unified")
    np.testing.assert_array_equal(alike, np.repeat(tip_path(single, duration=0.1), 3, axis=1))


def test_a_cell_on_a_shell_is_refused_by_name():
    scene = sm.Scene()
    scene.add_shell(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0]], triangles=[[0, 1, 2]],
                    thickness=1e-3, density=1000.0, youngs_modulus=1e6, name="sheet")
    scene.add(sm.ContractileCell("sheet", 0.0, 0.5, 1e-3, name="cell"))
    with pytest.raises(ValueError, match="cell.rod = 'sheet' is not allowed: a cell needs"):
        scene.compile(dt=1e-3, engine="unified")


def test_the_probed_pattern_does_not_depend_on_the_number_of_worlds():
    # a user's force makes the implicit solver probe the Jacobian's pattern (it declares no
    # couplings); the cell's out-of-plane entries vanish on this planar rod, so a probe finds
    # them only at some perturbed states. The probe perturbs every lane alike, so one world and
    # three alike worlds (two lanes per block) find the same pattern and step alike, bit for bit
    # (a probe drawn per lane found 314 couplings alone and 313 in the batch).
    def probed(worlds):
        scene = cell_scene()
        scene.add(sm.NodeUserForce("rod", lambda t, x, v: -0.1 * v, name="user"))
        sim = scene.compile(worlds=worlds, dt=1e-3, engine="unified")
        path = tip_path(sim, duration=0.02, every=0.01)
        rows, cols = sim.implicit_integrator()._couplings
        return path, set(zip(rows.tolist(), cols.tolist()))

    (one, pattern_one), (three, pattern_three) = probed(1), probed(3)
    assert pattern_one == pattern_three
    np.testing.assert_array_equal(three, np.repeat(one, 3, axis=1))
