"""Discrete shell energies (softmech.bodies.shell, kernels shell_stretch / shell_hinge /
shell_midedge): forces are minus the energy gradient and the Jacobian is minus its Hessian
(central finite differences), rigid motions and in-plane deformations of a flat sheet give no
bending force, and the bending energy of a sheet wrapped onto a cylinder is the plate's
D/2 kappa^2 per unit area."""
import numpy as np
import pytest

from softmech.bodies import meshes
from softmech.bodies.shell import Shell
from softmech.implicit.binding import ImplicitContext
from softmech.implicit.layout import DofLayout

E, H, NU, RHO = 1e6, 1e-3, 0.3, 1000.0


def build(bending, mesh=None, **options):
    mesh = mesh or meshes.rectangle(0.03, 0.02, 3)
    shell = Shell("s", mesh=mesh, thickness=H, youngs_modulus=E, poisson_ratio=NU, density=RHO,
                  bending=bending, **options)
    layout = DofLayout()
    shell.place(layout)
    layout.finalize()
    params = {f"s.{k}": v for k, v in shell.parameters().items()}
    bindings = shell.bind_implicit(ImplicitContext(layout, 1, {"s": shell}, params))
    return shell, layout, bindings


def assemble(bindings, q):
    """Dense forces (n,) and Jacobian (n, n) of the bindings at q, and their energy."""
    n = len(q)
    F = np.zeros(n)
    Jd = np.zeros((n, n))
    for b in bindings:
        Jb = np.zeros(len(b.rows))
        b.forces(0, q, np.zeros(n), 0.0, np.inf, F, Jb)
        np.add.at(Jd, (b.rows, b.cols), Jb)
    return F, Jd, sum(b.energy(0, q) for b in bindings)


def deformed(layout, rng, amplitude=2e-3):
    """Initial DOFs plus a random perturbation of every DOF (positions [m] and xi) by ~amplitude."""
    return layout.q0 + amplitude * rng.standard_normal(len(layout.q0))


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
@pytest.mark.parametrize("part", [0, 1])
def test_forces_and_jacobian_match_finite_differences(bending, part):
    """F = -dE/dq to 1e-6 of max|F| and J = dF/dq to 1e-5 of max|J| (central differences with
    step 1e-7 m: truncation error ~ step^2 |E'''| and round-off ~ 1e-16 |E| / step, both below
    these tolerances for the ~1 mm deformations used); part 0 = stretching, 1 = bending, on a
    sheet curved by a natural curvature and deformed at random."""
    rng = np.random.default_rng(3 + part)
    shell, layout, bindings = build(bending, rest_shape=_bumped(meshes.rectangle(0.03, 0.02, 3)))
    binding = [bindings[part]]
    for b in binding:
        b.begin_step(0, layout.q0, 0.0)
    q = deformed(layout, rng)
    F, J, _ = assemble(binding, q)
    step = 1e-7
    Fd = np.empty_like(F)
    Jd = np.empty_like(J)
    for i in range(len(q)):
        qp, qm = q.copy(), q.copy()
        qp[i] += step
        qm[i] -= step
        Fp, _, Ep = assemble(binding, qp)
        Fm, _, Em = assemble(binding, qm)
        Fd[i] = -(Ep - Em) / (2 * step)
        Jd[:, i] = (Fp - Fm) / (2 * step)
    assert np.abs(F).max() > 0
    assert np.abs(F - Fd).max() < 1e-6 * np.abs(F).max()
    assert np.abs(J - Jd).max() < 1e-5 * np.abs(J).max()
    assert np.abs(J - J.T).max() < 1e-12 * np.abs(J).max()


def _bumped(mesh):
    """The mesh's vertices lifted into a bump z = 5 mm * sin(pi x/L) sin(pi y/W) (a curved rest
    shape, so that the rest angles / curvatures are not zero)."""
    v = mesh.vertices.copy()
    L, W = np.ptp(v[:, 0]), np.ptp(v[:, 1])
    v[:, 2] = 5e-3 * np.sin(np.pi * v[:, 0] / L) * np.sin(np.pi * v[:, 1] / W)
    return v


def _rotation(rng):
    A, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    return A * np.sign(np.linalg.det(A))


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_rigid_motion_of_the_rest_shape_gives_no_force(bending):
    """The curved rest shape, rotated and translated (the mid-edge frames set at the start of
    the step from the moved nodes, as the integrator does): zero energy and zero force, to
    1e-9 of the force a 1 mm deformation gives."""
    rng = np.random.default_rng(7)
    mesh = meshes.rectangle(0.03, 0.02, 3)
    v = _bumped(mesh)
    shell, layout, bindings = build(bending, mesh=meshes.TriangleMesh(v, mesh.triangles))
    nd = layout.node_dof(shell.nodes)
    R, shift = _rotation(rng), rng.standard_normal(3)
    q = layout.q0.copy()
    q[nd] = v @ R.T + shift
    for b in bindings:
        b.begin_step(0, q, 0.0)
    F, _, energy = assemble(bindings, q)
    F_ref, _, _ = assemble(bindings, deformed(layout, rng, 1e-3))
    assert energy < 1e-12 * E * H ** 3
    assert np.abs(F).max() < 1e-9 * np.abs(F_ref).max()


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_flat_sheet_stretched_in_plane_has_no_bending_force(bending):
    """A flat rest mesh deformed in its own plane (random in-plane node displacements): the
    bending energy and forces are exactly zero (no out-of-plane curvature)."""
    rng = np.random.default_rng(11)
    shell, layout, bindings = build(bending, rest_shape="flat")
    q = layout.q0.copy()
    nd = layout.node_dof(shell.nodes)
    q[nd[:, :2]] += 1e-3 * rng.standard_normal((len(nd), 2))
    bindings[1].begin_step(0, q, 0.0)
    F, _, energy = assemble([bindings[1]], q)
    assert energy == 0.0
    assert np.abs(F).max() == 0.0
    F_stretch, _, _ = assemble([bindings[0]], q)
    assert np.abs(F_stretch).max() > 0        # the same deformation does load the membrane


def _wrapped(mesh, radius, axis):
    """Mesh vertices wrapped isometrically onto a cylinder of `radius` whose axis is along x
    (axis 0: bending along y) or y (axis 1: bending along x)."""
    v = mesh.vertices
    s = v[:, 1 - axis]                          # arc length around the cylinder
    out = np.empty_like(v)
    out[:, axis] = v[:, axis]
    out[:, 1 - axis] = radius * np.sin(s / radius)
    out[:, 2] = radius * (1 - np.cos(s / radius))
    return out


def _cylinder_energy_ratio(bending, axis, radius=0.5):
    """Bending energy of an equilateral sheet wrapped onto a cylinder over D/2 kappa^2 x area."""
    mesh = meshes.rectangle(0.2, 12 * 0.01 * np.sqrt(3) / 2, 20)   # exactly equilateral
    x = _wrapped(mesh, radius, axis)
    D = E * H ** 3 / (12 * (1 - NU ** 2))
    shell, layout, bindings = build(bending, mesh=mesh, rest_shape="flat")
    q = layout.q0.copy()
    q[layout.node_dof(shell.nodes)] = x
    bindings[1].begin_step(0, q, 0.0)
    if bending == "hinge":
        tri = shell.edge_tris[shell.hinge_edges]
        area = float((shell.tri_area[tri[:, 0]] + shell.tri_area[tri[:, 1]]).sum() / 3)
    else:
        mid = 0.5 * (x[shell.edges[:, 0]] + x[shell.edges[:, 1]])
        normal = mid - np.where(np.arange(3) == 2, radius, 0.0)   # from the cylinder's axis
        normal[:, axis] = 0.0
        normal /= -np.linalg.norm(normal, axis=1)[:, None]
        q[layout.scalar_dof(shell.xi)] = np.einsum("ek,ek->e", normal, bindings[1].tau[0])
        area = float(shell.tri_area.sum())
    return bindings[1].energy(0, q) / (0.5 * D / radius ** 2 * area)


def test_cylindrical_bending_energy_hinge():
    """A flat equilateral mesh wrapped onto a cylinder of radius R: hinge bending energy vs the
    plate's D/2 kappa^2 per unit area, kappa = 1/R, D = E h^3 / (12 (1 - nu^2)) (Timoshenko &
    Woinowsky-Krieger, Theory of plates and shells, section 2, cylindrical bending), with
    DisMech's k_b = 2 D / sqrt(3) (ref. 004 eq. 17), on the area the interior edges carry,
    sum (A1 + A2)/3 (a boundary edge has no hinge). The hinge model depends on the mesh's
    orientation (ref. 004 section 3.3: "the mesh orientation significantly influences the
    deflection"): measured -4.9 % bending across the mesh's rows (axis 0) and -0.6 % along them
    (axis 1) at l/R = 0.02; tolerance 6 % for either orientation."""
    ratios = [_cylinder_energy_ratio("hinge", axis) for axis in (0, 1)]
    assert all(abs(r - 1) < 0.06 for r in ratios), ratios


@pytest.mark.parametrize("axis", [0, 1])
def test_cylindrical_bending_energy_midedge(axis):
    """As the hinge test, mid-edge model (ref. 004 eq. 20) over the whole area, each mid-edge
    normal set to the cylinder's normal at the edge's midpoint: within 1 % (Grinspun et al. 2006:
    the discrete shape operator converges to the smooth one; measured +0.004 %)."""
    ratio = _cylinder_energy_ratio("midedge", axis)
    assert abs(ratio - 1) < 0.01, ratio


def test_dismech_hinge_convention_is_mat_dismechs_uniform_stiffness():
    """hinge_convention="dismech": every hinge has MAT-DiSMech's k_b = 2 / sqrt(3) E h^3 / 12
    (ref. 004 eq. 17; its code: kb = 2/sqrt(3) * Y * h^3 / 12), exactly; on an equilateral mesh
    that is (1 - nu^2) times the plate convention's 2 D / sqrt(3) (1e-12 relative; the plate
    convention's mesh weight differs on the mesh border's cut triangles, DisMech's does not),
    so DisMech's hinge bends like a plate of nu = 0 in cylindrical bending."""
    mesh = meshes.rectangle(0.2, 12 * 0.01 * np.sqrt(3) / 2, 20)   # exactly equilateral
    plate = build("hinge", mesh=mesh)[0]
    dismech = build("hinge", mesh=mesh, hinge_convention="dismech")[0]
    assert plate.hinge_convention == "plate"
    assert np.allclose(dismech.hinge_stiffness, 2 / np.sqrt(3) * E * H ** 3 / 12, rtol=1e-15)
    D = E * H ** 3 / (12 * (1 - NU ** 2))
    equilateral = np.isclose(plate.hinge_stiffness, 2 * D / np.sqrt(3), rtol=1e-12)
    assert equilateral.mean() > 0.5            # the interior hinges (the border's are cut)
    ratio = dismech.hinge_stiffness[equilateral] / plate.hinge_stiffness[equilateral]
    assert np.allclose(ratio, 1 - NU ** 2, rtol=1e-12)


def test_hinge_convention_defaults_to_dismech_for_dismech_files_and_is_checked(tmp_path):
    """A mesh read from DisMech's .txt format gets DisMech's hinge (its model reproduces DisMech);
    arrays and other files the plate's; a bad value names the field before any work."""
    path = tmp_path / "sheet.txt"
    path.write_text("*Nodes\n0, 0, 0\n1, 0, 0\n0, 1, 0\n1, 1, 0\n*Triangles\n1, 2, 3\n2, 4, 3\n")
    shell = Shell("s", mesh=str(path), thickness=H, youngs_modulus=E, poisson_ratio=NU,
                  density=RHO)
    assert shell.hinge_convention == "dismech"
    assert Shell("s", mesh=str(path), thickness=H, youngs_modulus=E, poisson_ratio=NU,
                 density=RHO, hinge_convention="plate").hinge_convention == "plate"
    with pytest.raises(ValueError, match=r"hinge_convention = 'kirchhoff' is not allowed"):
        Shell("s", mesh=str(path), thickness=H, youngs_modulus=E, poisson_ratio=NU,
              density=RHO, hinge_convention="kirchhoff")


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_without_want_jac_the_kernels_add_the_same_forces_and_leave_j_alone(bending):
    """The unified engine calls the shell kernels with want_jac False (its Jacobian is probed):
    the forces must be those of want_jac True bit for bit (the Jacobian's code only adds to J)
    and J must not be written (a NaN canary stays). Stretching, bending, pressure and drag on a
    curved, randomly deformed sheet with random node velocities."""
    from softmech.bodies.shell import _node_dofs
    from softmech.kernels.shell_hinge import hinge_forces
    from softmech.kernels.shell_loads import drag_forces, pressure_forces
    from softmech.kernels.shell_midedge import midedge_forces
    from softmech.kernels.shell_stretch import stretch_forces
    from softmech.shell_packing import midedge_dofs, shell_edge_frames

    rng = np.random.default_rng(11)
    shell, layout, _ = build(bending, rest_shape=_bumped(meshes.rectangle(0.03, 0.02, 3)))
    q = deformed(layout, rng)
    v = rng.standard_normal(q.size)
    tris = _node_dofs(shell.triangles)
    rest = shell.parameters()["rest_angle" if bending == "hinge" else "rest_curvature"][0]
    rest = np.ascontiguousarray(rest)
    if bending == "hinge":
        bend = (hinge_forces, (q, _node_dofs(shell.hinges), rest, shell.hinge_stiffness), 144,
                len(shell.hinges))
    else:
        tau, n0 = shell_edge_frames(shell, shell.vertices)
        bend = (midedge_forces, (q, midedge_dofs(shell.triangles, shell.tri_edges,
                                                 len(shell.vertices)),
                                 shell.tri_edges, shell.tri_edge_sign.astype(float), tau, n0,
                                 shell.length_over_area, shell.midedge_stiffness, rest,
                                 np.zeros(160)), 144, len(shell.triangles))
    cases = [(stretch_forces, (q, _node_dofs(shell.edges), shell.edge_length,
                               shell.stretch_stiffness), 36, len(shell.edges)), bend,
             (pressure_forces, (q, tris, 7.0), 81, len(tris)),
             (drag_forces, (q, v, 1e3, tris, shell.tri_area.astype(float), 0.6), 81, len(tris))]
    for kernel, args, block, count in cases:
        F_with, F_without = np.zeros(q.size), np.zeros(q.size)
        J = np.zeros(block * count)
        kernel(*args, True, F_with, J)
        assert np.abs(J).max() > 0.0, kernel.__name__
        canary = np.full(block * count, np.nan)
        kernel(*args, False, F_without, canary)
        np.testing.assert_array_equal(F_without, F_with, err_msg=kernel.__name__)
        assert np.isnan(canary).all(), kernel.__name__
