"""The shells' analytic Jacobians on the unified engine (softmech.integrators.analytic): their
stretching, hinge and mid-edge bending, pressure and drag enter the Newton matrix from the
discrete engine's own derivatives (ref. 004 eqs. 9-10, 17, 19-20 and Appendix B), so the
finite differences are left with each DOF's own entry (the inertia's identity, a held row)."""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from jacobian_fixture import H, newton_matrices


def loaded_strip(bending, load, analytic=True):
    """A 4 x 10 cm, 1 mm, 1 MPa strip clamped along one short edge, under gravity and a
    follower pressure of 20 Pa (`load` "pressure") or a water drag (C_d = 1, "drag")."""
    mesh = meshes.rectangle(0.04, 0.1, 4, n_y=6)
    scene = sm.Scene()
    shell = scene.add_shell(name="strip", mesh=mesh, thickness=1e-3, youngs_modulus=1e6,
                            poisson_ratio=0.3, density=1000.0, bending=bending)
    scene.add(sm.FixNodes(shell, nodes=np.flatnonzero(mesh.vertices[:, 1] <= 1e-9),
                          name="clamp"))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    scene.add(sm.ShellPressure(shell, pressure=20.0) if load == "pressure"
              else sm.ShellDrag(shell, drag_coefficient=1.0, fluid_density=1000.0))
    return scene.compile(dt=H, engine="unified", scheme="implicit_euler",
                         newton=sm.ImplicitOptions(analytic=analytic, max_iterations=60))


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
@pytest.mark.parametrize("load", ["pressure", "drag"])
def test_the_analytic_entries_are_the_residuals_derivative(bending, load):
    """Every term of a shell has an analytic Jacobian, so the integrator's Newton matrix is
    exact: equal to central differences of the full residual to their error (measured
    2.4e-8 of the largest stiffness entry; allowed 1e-6), the mid-edge angles' rows and
    columns included; every call declares its couplings, so the finite differences take the
    diagonal alone (1 color; 24-45 with the shells' couplings)."""
    sim = loaded_strip(bending, load)
    sim.step(20)        # (bent and moving: every block of the Jacobians non-zero)
    full, ours, K_true, K_ours, angle = newton_matrices(sim)
    scale = np.abs(K_true).max()
    assert np.abs(K_ours - K_true).max() < 1e-6 * scale
    assert angle.any() == (bending == "midedge")
    assert sim.implicit_integrator().pattern.n_colors == 1


def test_the_drags_velocity_part_is_in_the_entries():
    """The drag depends on the velocities: its entries are K = dF/dq + dF/dv / h (the discrete
    engine's, ref. 004 Appendix B), and the velocity part, the diagonal blocks
    -c A/3 2|v.n| n n^T / h, is most of them at h = 2 ms (measured 99.7 % of the largest
    entry; the part the first test's drag case checks is therefore real): K at h and at
    h -> infinity (dF/dq alone) differ by more than half the largest entry."""
    sim = loaded_strip("hinge", "drag")
    sim.step(20)
    ig = sim.implicit_integrator()
    (i_call, entries), = [(i, e) for i, e in ig._analytic
                          if ig._calls[i - 1].name == "der_shell_drag"]
    kernel = ig._calls[i_call - 1].jacobian.kernel
    T, W, t = ig.engine.T, ig.lanes.W, float(sim.time)
    at_h, positions_only = np.zeros(entries.rows.size), np.zeros(entries.rows.size)
    kernel(T[i_call], 0, W, t, H, 0, at_h)
    kernel(T[i_call], 0, W, t, 1e30, 0, positions_only)
    assert np.abs(at_h - positions_only).max() > 0.5 * np.abs(at_h).max() > 0.0


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_a_run_with_analytic_entries_follows_the_finite_difference_run(bending):
    """Both solve the same backward-Euler equations to the Newton tolerance: the strips after
    60 steps (2 mm deflection) within 1e-7 m (measured 6.8e-9 m hinge, 1.1e-9 m mid-edge)."""
    x = {}
    for analytic in (True, False):
        sim = loaded_strip(bending, "pressure", analytic)
        sim.step(60)
        x[analytic] = sim.get_state("strip")["positions"][0]
    assert np.abs(x[True] - x[False]).max() < 1e-7
