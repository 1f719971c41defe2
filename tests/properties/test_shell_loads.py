"""Shell loads (softmech.terms.shell_loads): the Jacobians match finite differences, a pressure
on a closed surface is p times the gradient of the enclosed volume, and the totals on a flat
sheet are the analytic p A and 1/2 rho C_d A U^2."""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from softmech.bodies.shell import Shell
from softmech.implicit.binding import ImplicitContext
from softmech.implicit.layout import DofLayout


def bind(term, mesh):
    shell = Shell("s", mesh=mesh, thickness=1e-3, youngs_modulus=1e6, density=1000.0)
    layout = DofLayout()
    shell.place(layout)
    layout.finalize()
    params = {f"{term.name}.{k}": v for k, v in term.parameters().items()}
    (binding,) = term.bind_implicit(ImplicitContext(layout, 1, {"s": shell}, params))
    return shell, layout, binding


def evaluate(binding, q, v, h):
    F = np.zeros(len(q))
    Jflat = np.zeros(len(binding.rows))
    binding.forces(0, q, v, 0.0, h, F, Jflat)
    J = np.zeros((len(q), len(q)))
    np.add.at(J, (binding.rows, binding.cols), Jflat)
    return F, J


def _sphere():
    import trimesh
    s = trimesh.creation.icosphere(subdivisions=2, radius=0.1)
    return meshes.TriangleMesh(*meshes.validate(s.vertices, s.faces))


def test_pressure_jacobian_and_closed_surface_work():
    """Jacobian = central differences of F (to 1e-7 relative: F is quadratic in q, so central
    differences are exact up to round-off); on a closed sphere mesh (outward normals) F = p dV/dq
    with V the enclosed volume sum(x0 . (x1 x x2))/6 -- the virtual work of a pressure (to 1e-6
    relative, central differences of the cubic V)."""
    p = 250.0
    shell, layout, binding = bind(sm.ShellPressure("s", p), _sphere())
    rng = np.random.default_rng(0)
    q = layout.q0 + 1e-3 * rng.standard_normal(layout.n_dof)
    F, J = evaluate(binding, q, 0 * q, 1e-3)
    tri = layout.node_dof(shell.nodes)[shell.triangles]          # (m, 3, 3) DOFs

    def volume(x):
        a, b, c = x[tri[:, 0]], x[tri[:, 1]], x[tri[:, 2]]
        return np.einsum("ij,ij->", a, np.cross(b, c)) / 6

    step = 1e-6
    Jd = np.empty_like(J)
    gradV = np.empty(len(q))
    for i in range(len(q)):
        qp, qm = q.copy(), q.copy()
        qp[i] += step
        qm[i] -= step
        Jd[:, i] = (evaluate(binding, qp, 0 * q, 1e-3)[0] - evaluate(binding, qm, 0 * q, 1e-3)[0]) / (2 * step)
        gradV[i] = (volume(qp) - volume(qm)) / (2 * step)
    assert volume(q) > 0
    assert np.abs(J - Jd).max() < 1e-7 * np.abs(J).max()
    assert np.abs(F - p * gradV).max() < 1e-6 * np.abs(F).max()
    assert np.abs(F.reshape(-1, 3).sum(0)).max() < 1e-12 * np.abs(F).max() * len(F)


def test_pressure_on_a_flat_sheet_totals_p_times_area():
    mesh = meshes.disc(0.2, 4)
    shell, layout, binding = bind(sm.ShellPressure("s", -30.0), mesh)
    F, _ = evaluate(binding, layout.q0, 0 * layout.q0, 1e-3)
    total = F[layout.node_dof(shell.nodes)].sum(0)
    assert total == pytest.approx([0, 0, -30.0 * shell.tri_area.sum()], abs=1e-12)


def test_drag_jacobian_matches_finite_differences():
    """dF/dq + dF/dv / h of the implicit step (v = (q - q_n)/h) against central differences of
    F(q, (q - q_n)/h) in q, to 1e-6 relative (F is smooth where no v . n changes sign: the random
    velocities are ~1 m/s, the step 1e-9 m moves v by 1e-6 m/s)."""
    mesh = meshes.rectangle(0.1, 0.05, 3)
    shell, layout, binding = bind(sm.ShellDrag("s", 1.2, 1.2), mesh)
    rng = np.random.default_rng(1)
    h = 1e-3
    q_n = layout.q0 + 1e-3 * rng.standard_normal(layout.n_dof)
    q = q_n + h * rng.standard_normal(layout.n_dof)
    F, J = evaluate(binding, q, (q - q_n) / h, h)
    step = 1e-9
    Jd = np.empty_like(J)
    for i in range(len(q)):
        qp, qm = q.copy(), q.copy()
        qp[i] += step
        qm[i] -= step
        Jd[:, i] = (evaluate(binding, qp, (qp - q_n) / h, h)[0]
                    - evaluate(binding, qm, (qm - q_n) / h, h)[0]) / (2 * step)
    assert np.abs(J - Jd).max() < 1e-6 * np.abs(J).max()
    v = (q - q_n) / h
    assert F @ v < 0                                  # drag only dissipates


def test_drag_on_a_sheet_moving_along_its_normal():
    """A flat sheet translating at U along +z: total drag -1/2 rho C_d A U^2 along z (ref. 004
    section 5.4 summed over the nodes: each triangle's A/3 per node, three nodes)."""
    rho, cd, U = 1.2, 1.5, 3.0
    mesh = meshes.hexagon(0.3, 3)
    shell, layout, binding = bind(sm.ShellDrag("s", cd, rho), mesh)
    nd = layout.node_dof(shell.nodes)
    v = np.zeros(layout.n_dof)
    v[nd[:, 2]] = U
    F, _ = evaluate(binding, layout.q0, v, 1e-3)
    total = F[nd].sum(0)
    assert total == pytest.approx([0, 0, -0.5 * rho * cd * shell.tri_area.sum() * U ** 2], rel=1e-12)


@pytest.mark.parametrize("make, message", [
    (lambda: sm.ShellPressure("s", float("nan")), "pressure = nan is not allowed"),
    (lambda: sm.ShellDrag("s", -1.0), r"drag_coefficient = -1.0 is not allowed: must be > 0"),
    (lambda: sm.ShellDrag("s", 1.0, 0.0), "fluid_density = 0.0 is not allowed"),
    (lambda: sm.ShellPressure(3, 1.0), "must be a discrete rod or shell, or its name"),
])
def test_arguments_are_validated(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_unknown_shell_is_named():
    shell = Shell("s", mesh=meshes.rectangle(0.1, 0.05, 2), thickness=1e-3, youngs_modulus=1e6,
                  density=1000.0)
    layout = DofLayout()
    shell.place(layout)
    layout.finalize()
    with pytest.raises(ValueError, match="pressure: no discrete rod or shell named 'sail'"):
        sm.ShellPressure("sail", 1.0).bind_implicit(
            ImplicitContext(layout, 1, {"s": shell}, {"pressure.pressure": np.ones(1)}))


@pytest.mark.parametrize("engine", ["discrete", "unified"])
@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_batched_worlds_equal_single_runs(bending, engine):
    """Three worlds with their own pressure and natural curvature (sim.params) step exactly as
    three single simulations given the same values (on both engines: the unified engine's
    params hold one row for a value every world shares, the discrete engine's one per world)."""
    def scene():
        s = sm.Scene()
        mesh = meshes.rectangle(0.05, 0.02, 5)
        s.add_shell(name="sail", mesh=mesh, thickness=1e-3, youngs_modulus=1e6, density=800.0,
                    bending=bending)
        s.add(sm.FixNodes("sail", np.flatnonzero(mesh.vertices[:, 0] == 0.0)))
        s.add(sm.ShellPressure("sail", 1.0))
        return s

    key = "sail.rest_angle" if bending == "hinge" else "sail.rest_curvature"
    pressures = [2.0, -5.0, 10.0]
    batched = scene().compile(worlds=3, dt=1e-3, engine=engine)
    batched.params["pressure.pressure"] = pressures
    rest = np.repeat(batched.params[key], 3 // len(batched.params[key]), axis=0)
    rest[1] += 0.05
    batched.params[key] = rest
    batched.step(5)
    for b, p in enumerate(pressures):
        single = scene().compile(dt=1e-3, engine=engine)
        single.params["pressure.pressure"] = [p]
        single.params[key] = rest[b:b + 1]
        single.step(5)
        assert np.array_equal(single.get_state("sail")["positions"][0],
                              batched.get_state("sail")["positions"][b])
    moved = batched.get_state("sail")["positions"][:, :, 2]
    assert np.abs(moved[0] - moved[2]).max() > 0
