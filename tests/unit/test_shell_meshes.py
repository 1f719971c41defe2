"""Meshes for discrete shells (softmech.bodies.meshes) and the Shell body's inputs: generated
meshes have the analytic area and topology, files round-trip, bad meshes and arguments raise a
ValueError naming the problem."""
import numpy as np
import pytest

from softmech.bodies import meshes
from softmech.bodies.shell import Shell
from softmech.implicit.layout import DofLayout


def _areas(mesh):
    p = mesh.vertices[mesh.triangles]
    return 0.5 * np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])[:, 2]   # signed, +z normal


def _euler(mesh):
    return len(mesh.vertices) - len(meshes.edge_list(mesh.triangles)) + len(mesh.triangles)


@pytest.mark.parametrize("pattern", ["equilateral", "right"])
def test_rectangle(pattern):
    mesh = meshes.rectangle(0.5, 0.2, 10, pattern=pattern)
    a = _areas(mesh)
    assert np.all(a > 0)                               # counter-clockwise seen from +z
    assert a.sum() == pytest.approx(0.5 * 0.2, rel=1e-12)
    assert _euler(mesh) == 1                           # a disc's topology
    assert np.ptp(mesh.vertices[:, 0]) == pytest.approx(0.5)
    assert np.ptp(mesh.vertices[:, 1]) == pytest.approx(0.2)
    if pattern == "right":
        assert len(mesh.triangles) == 2 * 10 * 4       # 0.2 / 0.05 = 4 rows of square cells
    else:
        # interior triangles: sides dx = 0.05 along x, slanted sides sqrt(dx^2/4 + dy^2) with
        # dy = 0.2 / round(0.2 / (dx sqrt(3)/2)) = 0.05: within 7 % of dx (near-equilateral)
        lengths = np.linalg.norm(np.diff(mesh.vertices[mesh.triangles[:, [0, 1, 2, 0]]], axis=1), axis=2)
        inner = np.all(lengths > 0.04, axis=1)
        assert inner.sum() > len(lengths) / 2
        assert np.all(np.abs(lengths[inner] / 0.05 - 1) < 0.12)


def test_hexagon_is_equilateral_with_exact_area():
    side, n = 0.3, 4
    mesh = meshes.hexagon(side, n)
    assert len(mesh.triangles) == 6 * n ** 2
    assert _areas(mesh).sum() == pytest.approx(3 * np.sqrt(3) / 2 * side ** 2, rel=1e-12)
    e = meshes.edge_list(mesh.triangles)
    lengths = np.linalg.norm(mesh.vertices[e[:, 1]] - mesh.vertices[e[:, 0]], axis=1)
    assert np.allclose(lengths, side / n, rtol=1e-12)
    assert _euler(mesh) == 1
    corners = np.linalg.norm(mesh.vertices[:, :2], axis=1)
    assert corners.max() == pytest.approx(side)


def test_disc_area_is_its_polygon():
    """Ring n holds 6 n nodes on the circle: area of the regular 6n-gon, (6n/2) R^2 sin(2 pi/6n)."""
    R, n = 0.4, 5
    mesh = meshes.disc(R, n)
    assert np.all(_areas(mesh) > 0)
    assert _areas(mesh).sum() == pytest.approx(3 * n * R ** 2 * np.sin(2 * np.pi / (6 * n)), rel=1e-12)
    assert np.linalg.norm(mesh.vertices[:, :2], axis=1).max() == pytest.approx(R)


def test_hinges_and_adjacency():
    mesh = meshes.rectangle(0.3, 0.1, 6)
    tri = mesh.triangles
    edges, edge_tris = meshes.edge_triangles(tri)
    h, inner = meshes.hinges(tri)
    assert len(h) == np.sum(edge_tris[:, 1] >= 0) == len(inner)
    boundary = np.sum(edge_tris[:, 1] < 0)
    assert 2 * len(h) + boundary == 3 * len(tri)       # every triangle side counted once
    as_set = {tuple(np.roll(t, k)) for t in tri.tolist() for k in range(3)}
    for x0, x1, x2, x3 in h:
        assert (x0, x1, x2) in as_set                   # (x0, x1, x2) keeps the mesh orientation
        assert (x1, x0, x3) in as_set
    _, tri_edges = meshes.triangle_edges(tri)
    for t, row in enumerate(tri_edges):
        for k, e in enumerate(row):
            assert set(edges[e]) == set(tri[t]) - {tri[t, k]}   # edge k is opposite node k


def test_dismech_text_format(tmp_path):
    path = tmp_path / "sheet.txt"
    path.write_text("*Nodes\n0, 0, 0\n1.0, 0, 0\n0.5, 0.8, 0\n1.5, 0.8, 0\n"
                    "*Triangles\n1, 2, 3\n2, 4, 3\n")
    mesh = meshes.load_mesh(path)
    assert mesh.triangles.tolist() == [[0, 1, 2], [1, 3, 2]]
    assert mesh.vertices[3].tolist() == [1.5, 0.8, 0.0]
    nodes, rods, tris = meshes.read_dismech_text(path)
    assert rods.shape == (0, 2)
    path.write_text("*Nodes\n0,0,0\n1,0,0\n0,1,0\n*Triangles\n1,2,4\n")
    with pytest.raises(ValueError, match=r"node numbers must be in 1..3"):
        meshes.load_mesh(path)
    path.write_text("*Nodes\n0,0,0\n1,0,0\n0,1,0\n*Edges\n1,2\n*Triangles\n1,2,3\n")
    with pytest.raises(ValueError, match="rod edges"):
        meshes.load_mesh(path)
    path.write_text("*Vertices\n0,0,0\n")
    with pytest.raises(ValueError, match=r"section '\*Vertices' is not allowed"):
        meshes.read_dismech_text(path)


@pytest.mark.parametrize("suffix", ["obj", "stl"])
def test_trimesh_files_round_trip(tmp_path, suffix):
    import trimesh
    mesh = meshes.hexagon(0.2, 3)
    path = tmp_path / f"hex.{suffix}"
    trimesh.Trimesh(mesh.vertices, mesh.triangles, process=False).export(path)
    loaded = meshes.load_mesh(path)
    assert len(loaded.triangles) == len(mesh.triangles)
    assert len(loaded.vertices) == len(mesh.vertices)   # .stl's repeated corners merged
    assert _areas(loaded).sum() == pytest.approx(_areas(mesh).sum(), rel=1e-6)


V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float)


@pytest.mark.parametrize("vertices, triangles, message", [
    (V, np.zeros((0, 3), int), r"shape \(0, 3\)"),
    (V, [[0, 1, 4], [1, 3, 2]], r"triangles\[0\] = \[0, 1, 4\] is not allowed: node indices must be in 0..3"),
    (V, [[0, 1, -1], [1, 3, 2]], r"must be in 0..3"),
    (V, [[0, 1, 1], [1, 3, 2]], "three different nodes"),
    (V, [[0.5, 1, 2], [1, 3, 2]], "must be integers"),
    (np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [1, 1, 0]], float), [[0, 1, 2], [1, 3, 0]], "degenerate"),
    (np.vstack([V, [[1, 1, 0]]]), [[0, 1, 2], [1, 4, 2], [1, 3, 2]], "duplicate nodes"),
    (V, [[0, 1, 2], [2, 1, 0]], "appears twice"),
    (np.vstack([V, [[5, 5, 0]]]), [[0, 1, 2], [1, 3, 2]], r"vertices\[4\] is not allowed: no triangle uses it"),
    (np.vstack([V, [[0.5, 0.5, 1], [0.5, 0.5, -1]]]), [[0, 1, 2], [1, 3, 2], [1, 2, 4], [2, 1, 5]], "shared by 4 triangles"),
    (np.array([[0, 0, np.nan], [1, 0, 0], [0, 1, 0]]), [[0, 1, 2]], "NaN"),
])
def test_bad_meshes_raise(vertices, triangles, message):
    with pytest.raises(ValueError, match=message):
        meshes.validate(vertices, triangles, owner="m")


OK = dict(mesh=meshes.rectangle(0.1, 0.05, 4), thickness=1e-3, youngs_modulus=1e7, density=1000.0)


@pytest.mark.parametrize("change, message", [
    (dict(thickness=-1e-3), r"shell 's'.thickness = -0.001 is not allowed: must be > 0"),
    (dict(youngs_modulus=float("inf")), "youngs_modulus"),
    (dict(density="1000"), "not text"),
    (dict(poisson_ratio=0.7), r"poisson_ratio = 0.7 is not allowed: must be in \(-1, 0.5\]"),
    (dict(bending="plate"), r"bending = 'plate' is not allowed: must be one of \['hinge', 'midedge'\]"),
    (dict(rest_shape="curved"), "rest_shape = 'curved' is not allowed"),
    (dict(rest_shape=np.zeros((3, 3))), r"rest_shape has shape \(3, 3\)"),
    (dict(vertices=V), "either mesh or vertices"),
    (dict(mesh="no/such/file.obj"), "no such file"),
    (dict(mesh=V), "must be a TriangleMesh"),
    (dict(natural_curvature=(1.0, 0.0)), r"natural_curvature has shape \(2,\)"),
    (dict(natural_curvature=(1.0, 0.0, 0.0), rest_shape=np.zeros((16, 3))), "needs a flat mesh"),
])
def test_shell_arguments_are_validated(change, message):
    with pytest.raises(ValueError, match=message):
        Shell("s", **{**OK, **change})


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_lumped_mass_and_layout(bending):
    """Each triangle gives rho h A / 3 to each node: the node masses add up to rho h sum(A) per
    axis; mid-edge: one scalar DOF per edge, placed after its first node."""
    shell = Shell("s", **OK, bending=bending)
    layout = DofLayout()
    shell.place(layout)
    layout.finalize()
    nd = layout.node_dof(shell.nodes)
    assert layout.mass[nd[:, 0]].sum() == pytest.approx(1000.0 * 1e-3 * 0.1 * 0.05, rel=1e-12)
    assert shell.mass == pytest.approx(1000.0 * 1e-3 * 0.1 * 0.05, rel=1e-12)
    n_scalar = layout.n_dof - 3 * len(shell.vertices)
    if bending == "hinge":
        assert n_scalar == 0
    else:
        assert n_scalar == len(shell.edges)
        xi = layout.scalar_dof(shell.xi)
        assert np.all(layout.mass[xi] > 0)
        owner = layout.node_of_dof()
        assert np.all(owner[xi] == owner[nd[shell.edges[:, 0], 0]])



@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_a_single_triangle_shell_falls_freely(bending):
    """The smallest shell (one triangle: no hinge, three boundary edges) builds, and under
    gravity alone falls as a rigid body: z = -g t^2/2 after implicit Euler's n steps is
    -g h^2 n (n + 1)/2 exactly (v_k = -g h k, z_n = sum h v_k)."""
    import softmech as sm

    scene = sm.Scene()
    scene.add_shell(name="tri", vertices=[[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]],
                    triangles=[[0, 1, 2]], thickness=1e-3, youngs_modulus=1e6, density=1000.0,
                    bending=bending)
    scene.add(sm.Gravity((0, 0, -9.81)))
    sim = scene.compile(dt=0.01)
    sim.step(10)
    z = sim.get_state("tri")["positions"][0, :, 2]
    assert z == pytest.approx(np.full(3, -9.81 * 0.01 ** 2 * 10 * 11 / 2), rel=1e-9)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_icosphere_is_a_closed_outward_sphere(n):
    """10 4^n + 2 nodes on the sphere, 20 4^n triangles, every edge shared by two of them
    (closed), Euler characteristic 2, unit normals outwards, edge lengths within a factor 1.2
    (n = 0: the regular icosahedron, all equal), and the divergence-theorem volume of the flat
    triangles below that of the sphere but converging to it (area 99.5 % at n = 3)."""
    R, c = 0.05, np.array([0.1, -0.2, 0.3])
    mesh = meshes.icosphere(R, n, center=c)
    v, t = mesh.vertices - c, mesh.triangles
    assert len(v) == 10 * 4 ** n + 2 and len(t) == 20 * 4 ** n
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), R, rtol=1e-12)
    _, edge_tris = meshes.edge_triangles(t)
    assert np.all(edge_tris >= 0)                                  # closed: no boundary edge
    assert _euler(mesh) == 2
    p = v[t]
    normals = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    assert np.all(np.einsum("ij,ij->i", normals, p.mean(axis=1)) > 0)      # outwards
    volume = np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6
    sphere = 4 / 3 * np.pi * R ** 3
    assert 0.6 * sphere < volume < sphere
    area = 0.5 * np.linalg.norm(normals, axis=1).sum()
    if n == 3:
        assert area == pytest.approx(4 * np.pi * R * R, rel=0.006)
    e = meshes.edge_list(t)
    lengths = np.linalg.norm(v[e[:, 1]] - v[e[:, 0]], axis=1)
    assert lengths.max() / lengths.min() < (1.2 if n else 1 + 1e-12)


@pytest.mark.parametrize("kwargs, message", [
    (dict(radius=0.0, subdivisions=1), "icosphere.radius"),
    (dict(radius=1.0, subdivisions=-1), "icosphere.subdivisions"),
    (dict(radius=1.0, subdivisions=8), r"icosphere.subdivisions = 8 is not allowed"),
    (dict(radius=1.0, subdivisions=1.5), "icosphere.subdivisions")])
def test_icosphere_arguments_are_validated(kwargs, message):
    with pytest.raises(ValueError, match=message):
        meshes.icosphere(**kwargs)
