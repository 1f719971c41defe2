"""Triangle meshes for discrete shells (softmech.bodies.shell): generated (rectangle, disc,
regular hexagon, closed icosphere), read from DisMech's text format or from .obj / .stl
(trimesh), validated, and their topology (edges, hinges, edge-triangle adjacency).

A mesh is `TriangleMesh(vertices (n, 3) [m], triangles (m, 3) int64)`, node indices 0-based.
Generated flat meshes lie in the z = 0 plane with every triangle counter-clockwise seen from +z
(unit normal +z), the closed icosphere's triangles are counter-clockwise seen from outside, so
a shell's normals and a pressure's sign are predictable.
"""
import os
from dataclasses import dataclass

import numpy as np

from softmech import _checks


@dataclass(frozen=True)
class TriangleMesh:
    """vertices: node positions [m], (n_nodes, 3); triangles: node indices, (n_tris, 3) int64."""
    vertices: np.ndarray
    triangles: np.ndarray


# -- validation ------------------------------------------------------------------------------
def validate(vertices, triangles, *, owner="mesh", tolerance=1e-12):
    """Checked copies (vertices float (n, 3), triangles int64 (m, 3)) of a triangle mesh.

    Raises ValueError naming `owner` for: wrong shapes, NaN/inf, non-integer or out-of-range
    indices, a triangle repeating a node, a degenerate triangle (area <= tolerance x the square
    of the mesh size), duplicate nodes (two nodes closer than tolerance x mesh size), the same
    triangle twice, nodes no triangle uses, and edges shared by more than two triangles
    (non-manifold: a hinge needs exactly two).
    """
    vertices = _checks.coordinates(f"{owner}.vertices", vertices, shape=(None, 3)).astype(float)
    try:
        tri = np.asarray(triangles)
    except (TypeError, ValueError):      # a ragged list
        raise ValueError(f"{owner}.triangles = {_checks._show(triangles)} is not allowed: "
                         "must be an (n_tris, 3) array of node indices") from None
    if tri.ndim != 2 or tri.shape[1] != 3 or tri.shape[0] == 0:
        raise ValueError(f"{owner}.triangles has shape {tri.shape}, expected (n_tris >= 1, 3)")
    if tri.dtype.kind == "f":
        if not np.all(np.isfinite(tri)) or np.any(tri != np.round(tri)):
            raise ValueError(f"{owner}.triangles is not allowed: node indices must be integers")
    elif tri.dtype.kind not in "iu":
        raise ValueError(f"{owner}.triangles is not allowed: node indices must be integers")
    tri = tri.astype(np.int64)
    n = len(vertices)
    bad = np.flatnonzero((tri < 0).any(1) | (tri >= n).any(1))
    if bad.size:
        raise ValueError(f"{owner}.triangles[{bad[0]}] = {tri[bad[0]].tolist()} is not allowed: "
                         f"node indices must be in 0..{n - 1} ({n} vertices)")
    rep = np.flatnonzero((tri[:, 0] == tri[:, 1]) | (tri[:, 1] == tri[:, 2]) | (tri[:, 0] == tri[:, 2]))
    if rep.size:
        raise ValueError(f"{owner}.triangles[{rep[0]}] = {tri[rep[0]].tolist()} is not allowed: "
                         "a triangle must have three different nodes")
    size = float(np.ptp(vertices, axis=0).max())
    if size <= 0:
        raise ValueError(f"{owner}.vertices is not allowed: all vertices coincide")
    p = vertices[tri]
    area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    deg = np.flatnonzero(area <= tolerance * size ** 2)
    if deg.size:
        raise ValueError(f"{owner}.triangles[{deg[0]}] = {tri[deg[0]].tolist()} is not allowed: "
                         f"degenerate (area {area[deg[0]]:.3g} m^2, its nodes are collinear)")
    _check_duplicate_nodes(owner, vertices, tolerance * size)
    key = np.sort(tri, axis=1)
    _, first, count = np.unique(key, axis=0, return_index=True, return_counts=True)
    if np.any(count > 1):
        i = int(first[np.argmax(count > 1)])
        raise ValueError(f"{owner}.triangles[{i}] = {tri[i].tolist()} is not allowed: the same "
                         "triangle appears twice")
    unused = np.setdiff1d(np.arange(n), tri.ravel())
    if unused.size:
        raise ValueError(f"{owner}.vertices[{unused[0]}] is not allowed: no triangle uses it "
                         f"({unused.size} unused node(s)): every vertex must be in "
                         f"{owner}.triangles")
    edges, tri_edges, _ = _edges(tri)
    per_edge = np.bincount(tri_edges.ravel(), minlength=len(edges))
    if np.any(per_edge > 2):
        e = edges[np.argmax(per_edge > 2)]
        raise ValueError(f"{owner}.triangles is not allowed: edge {e.tolist()} is shared by "
                         f"{per_edge.max()} triangles (a shell mesh must be a manifold: at most 2)")
    return vertices, tri


def _check_duplicate_nodes(owner, vertices, gap):
    from scipy.spatial import cKDTree
    pairs = cKDTree(vertices).query_pairs(gap, output_type="ndarray")
    if len(pairs):
        i, j = sorted(int(k) for k in pairs[0])
        d = float(np.linalg.norm(vertices[i] - vertices[j]))
        raise ValueError(f"{owner}.vertices[{i}] and [{j}] are duplicate nodes ({d:.3g} m apart): "
                         "merge them and renumber the triangles")


# -- topology ------------------------------------------------------------------------------
def _edges(triangles):
    """Unique edges (n_edges, 2) (sorted node pair), each triangle's edges (m, 3) (edge k of a
    triangle is opposite its node k) and the orientation (m, 3) (+1 when the triangle runs along
    the sorted pair, -1 otherwise)."""
    t = np.asarray(triangles, dtype=np.int64)
    a = np.stack([t[:, 1], t[:, 2], t[:, 0]], axis=1)    # edge k opposite node k: (k+1, k+2)
    b = np.stack([t[:, 2], t[:, 0], t[:, 1]], axis=1)
    pairs = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=2).reshape(-1, 2)
    edges, inverse = np.unique(pairs, axis=0, return_inverse=True)
    return edges, inverse.reshape(-1, 3), np.where(a < b, 1, -1)


def edge_list(triangles):
    """Unique edges of a mesh, (n_edges, 2) int64, each as (smaller node, larger node)."""
    return _edges(triangles)[0]


def triangle_edges(triangles):
    """(edges (n_edges, 2), tri_edges (n_tris, 3)): tri_edges[t, k] is the edge of triangle t
    opposite its node k."""
    edges, tri_edges, _ = _edges(triangles)
    return edges, tri_edges


def edge_triangles(triangles):
    """Edge-triangle adjacency: (edges (n_edges, 2), edge_tris (n_edges, 2)) with the one or two
    triangles of each edge (-1 where a boundary edge has one)."""
    edges, tri_edges, _ = _edges(triangles)
    edge_tris = np.full((len(edges), 2), -1, dtype=np.int64)
    for t, row in enumerate(tri_edges):
        for e in row:
            edge_tris[e, 0 if edge_tris[e, 0] < 0 else 1] = t
    return edges, edge_tris


def hinges(triangles):
    """Interior edges with their two opposite vertices: (n_hinges, 4) int64 rows (x0, x1, x2, x3)
    with the hinge edge x0 -> x1 and x2, x3 the opposite nodes, ordered so that triangle
    (x0, x1, x2) runs along x0 -> x1 (its normal is the first face normal of the hinge angle,
    ref. 004 Fig. 2(c); Tamstorf & Grinspun 2013 Fig. 1). Also returns the edge id of each
    hinge (n_hinges,)."""
    t = np.asarray(triangles, dtype=np.int64)
    edges, edge_tris = edge_triangles(t)
    inner = np.flatnonzero(edge_tris[:, 1] >= 0)
    out = np.empty((len(inner), 4), dtype=np.int64)
    for h, e in enumerate(inner):
        t1, t2 = t[edge_tris[e, 0]], t[edge_tris[e, 1]]
        a, b = edges[e]
        k = int(np.flatnonzero((t1 != a) & (t1 != b))[0])
        # triangle t1 is (t1[k], t1[k+1], t1[k+2]) counter-clockwise: its edge runs t1[k+1] -> t1[k+2]
        x0, x1 = t1[(k + 1) % 3], t1[(k + 2) % 3]
        x2 = t1[k]
        x3 = t2[(t2 != a) & (t2 != b)][0]
        out[h] = (x0, x1, x2, x3)
    return out, inner


# -- generated meshes ----------------------------------------------------------------------
def _zip_rows(row_a, xa, row_b, xb):
    """Triangulate the strip between two rows of nodes sorted by x (row_a below row_b)."""
    tris, i, j = [], 0, 0
    while i < len(row_a) - 1 or j < len(row_b) - 1:
        # advance the row whose new diagonal is the shorter one (the Delaunay choice)
        adv_a = j == len(row_b) - 1 or (
            i < len(row_a) - 1 and abs(xa[i + 1] - xb[j]) <= abs(xa[i] - xb[j + 1]))
        if adv_a:
            tris.append((row_a[i], row_a[i + 1], row_b[j]))
            i += 1
        else:
            tris.append((row_a[i], row_b[j + 1], row_b[j]))
            j += 1
    return tris


def rectangle(length, width, n_x, *, pattern="equilateral", n_y=None, origin=(0.0, 0.0, 0.0)):
    """A flat rectangle [0, length] x [0, width] (+ origin) in the z = 0 plane.

    pattern "equilateral": rows of nodes n_y apart (default: the count making triangles closest to
    equilateral, row spacing ~ dx sqrt(3)/2), every other row offset by dx/2 with half triangles
    at the sides -- the structured equilateral mesh DisMech's shell stiffnesses are derived for.
    pattern "right": a grid of n_x x n_y cells, each cut by the same diagonal (right triangles).
    n_x: divisions along x (>= 1). Returns a TriangleMesh.
    """
    length = float(_checks.positive("rectangle.length", length, shape=()))
    width = float(_checks.positive("rectangle.width", width, shape=()))
    n_x = _checks.integer("rectangle.n_x", n_x, 1)
    _checks.choice("rectangle.pattern", pattern, {"equilateral", "right"})
    origin = _checks.finite("rectangle.origin", origin, shape=(3,))
    dx = length / n_x
    if n_y is None:
        spacing = dx * np.sqrt(3) / 2 if pattern == "equilateral" else dx
        n_y = max(1, int(round(width / spacing)))
    n_y = _checks.integer("rectangle.n_y", n_y, 1)
    dy = width / n_y
    verts, rows, xs = [], [], []
    for r in range(n_y + 1):
        if pattern == "equilateral" and r % 2 == 1:
            x = np.concatenate([[0.0], (np.arange(n_x) + 0.5) * dx, [length]])
        else:
            x = np.arange(n_x + 1) * dx
        rows.append(np.arange(len(verts), len(verts) + len(x)))
        xs.append(x)
        verts.extend((xi, r * dy, 0.0) for xi in x)
    tris = []
    for r in range(n_y):
        tris += _zip_rows(rows[r], xs[r], rows[r + 1], xs[r + 1])
    return _finish(np.array(verts) + origin, tris, "rectangle")


def _ring_mesh(n_rings, position, owner):
    """Center node + rings k = 1..n_rings of 6k nodes (6 sectors of k nodes): the triangulation
    of the hexagonal lattice (6 n^2 triangles); position(k, s, i) places node i of sector s of
    ring k."""
    n_rings = _checks.integer(f"{owner}.n_rings", n_rings, 1)

    def node(k, p):
        return 0 if k == 0 else 1 + 3 * k * (k - 1) + p % (6 * k)

    verts = [(0.0, 0.0)]
    for k in range(1, n_rings + 1):
        verts.extend(position(k, s, i) for s in range(6) for i in range(k))
    tris = []
    for k in range(1, n_rings + 1):
        for s in range(6):
            for i in range(k):        # "up" triangles: two outer nodes, one inner
                tris.append((node(k, s * k + i), node(k, s * k + i + 1), node(k - 1, s * (k - 1) + i)))
            for i in range(k - 1):    # "down" triangles: two inner nodes, one outer
                tris.append((node(k - 1, s * (k - 1) + i), node(k, s * k + i + 1),
                             node(k - 1, s * (k - 1) + i + 1)))
    v = np.array(verts)
    return np.column_stack([v, np.zeros(len(v))]), tris


def hexagon(side, n_rings, *, center=(0.0, 0.0, 0.0)):
    """A flat regular hexagon of side `side` [m] (corners at angles 0, 60, ..., 300 deg) in the
    z = 0 plane, meshed with 6 n_rings^2 equilateral triangles of side side / n_rings."""
    side = float(_checks.positive("hexagon.side", side, shape=()))
    center = _checks.finite("hexagon.center", center, shape=(3,))
    corners = side * np.array([[np.cos(a), np.sin(a)] for a in np.arange(7) * np.pi / 3])

    def position(k, s, i):
        c0, c1 = corners[s] * k / n_rings, corners[s + 1] * k / n_rings
        return tuple(c0 + (c1 - c0) * i / k)

    v, tris = _ring_mesh(n_rings, position, "hexagon")
    return _finish(v + center, tris, "hexagon")


def disc(radius, n_rings, *, center=(0.0, 0.0, 0.0)):
    """A flat disc of radius [m] in the z = 0 plane: the hexagon's triangulation with ring k's 6k
    nodes spread evenly on the circle of radius k radius / n_rings (nearly equilateral)."""
    radius = float(_checks.positive("disc.radius", radius, shape=()))
    center = _checks.finite("disc.center", center, shape=(3,))

    def position(k, s, i):
        a = 2 * np.pi * (s * k + i) / (6 * k)
        return (radius * k / n_rings * np.cos(a), radius * k / n_rings * np.sin(a))

    v, tris = _ring_mesh(n_rings, position, "disc")
    return _finish(v + center, tris, "disc")


def icosphere(radius, subdivisions, *, center=(0.0, 0.0, 0.0)):
    """A closed sphere of radius [m]: the regular icosahedron with every triangle cut into four
    `subdivisions` times (each edge halved) and the new nodes pushed out onto the sphere (the
    "geodesic" or "subdivided icosahedron" mesh). 10 * 4^n + 2 nodes, 20 * 4^n triangles, every
    triangle counter-clockwise seen from outside (unit normals point outwards, so a positive
    ShellPressure inflates it). Nearly equilateral: the edge lengths stay within a factor 1.2 of
    each other for every n (the icosahedron's 12 five-valent nodes keep their neighbourhoods
    slightly smaller). subdivisions: >= 0 (0: the icosahedron itself)."""
    radius = float(_checks.positive("icosphere.radius", radius, shape=()))
    subdivisions = _checks.integer("icosphere.subdivisions", subdivisions, 0)
    if subdivisions > 7:
        raise ValueError(f"icosphere.subdivisions = {subdivisions} is not allowed: must be <= 7 "
                         f"({20 * 4 ** subdivisions} triangles; larger meshes exhaust memory)")
    center = _checks.finite("icosphere.center", center, shape=(3,))
    g = (1.0 + np.sqrt(5.0)) / 2.0          # the golden ratio: corners (0, +-1, +-g) and cyclic
    verts = [(-1, g, 0), (1, g, 0), (-1, -g, 0), (1, -g, 0), (0, -1, g), (0, 1, g), (0, -1, -g),
             (0, 1, -g), (g, 0, -1), (g, 0, 1), (-g, 0, -1), (-g, 0, 1)]
    verts = [np.array(v, float) / np.linalg.norm(v) for v in verts]
    tris = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
            (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
            (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(subdivisions):
        middle = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in middle:
                m = verts[a] + verts[b]
                verts.append(m / np.linalg.norm(m))
                middle[key] = len(verts) - 1
            return middle[key]

        finer = []
        for a, b, c in tris:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            finer += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        tris = finer
    v = radius * np.array(verts)
    t = np.array(tris, dtype=np.int64)
    p = v[t]
    outward = np.einsum("ij,ij->i", np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), p.sum(axis=1))
    t[outward < 0] = t[outward < 0][:, [0, 2, 1]]
    v, t = validate(v + center, t, owner="icosphere")
    return TriangleMesh(v, t)


def _finish(vertices, tris, owner):
    tris = np.array(tris, dtype=np.int64)
    p = vertices[tris]
    nz = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])[:, 2]
    tris[nz < 0] = tris[nz < 0][:, [0, 2, 1]]           # counter-clockwise seen from +z
    v, t = validate(vertices, tris, owner=owner)
    return TriangleMesh(v, t)


# -- files ---------------------------------------------------------------------------------
def read_dismech_text(path):
    """Read DisMech's geometry text file (ref. 004 section 6.1; MAT-DiSMech / pyDiSMech inputs):
    sections headed `*Nodes` (one node per line: x, y, z [m]), `*Edges` (rod edges: two node
    numbers) and `*Triangles` (three node numbers), values separated by commas or spaces, node
    numbers 1-based as in the MATLAB files; blank lines and lines starting with # ignored.
    Returns (nodes (n, 3), rod_edges (k, 2) 0-based, triangles (m, 3) 0-based), unvalidated."""
    sections = {"nodes": [], "edges": [], "triangles": []}
    current = None
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith("*"):
                current = text[1:].strip().lower()
                if current not in sections:
                    raise ValueError(f"{path}:{number}: section {text!r} is not allowed: expected "
                                     "*Nodes, *Edges or *Triangles")
                continue
            if current is None:
                raise ValueError(f"{path}:{number}: data before the first section header "
                                 "(*Nodes, *Edges or *Triangles)")
            try:
                values = [float(v) for v in text.replace(",", " ").split()]
            except ValueError:
                raise ValueError(f"{path}:{number}: {text!r} is not a row of numbers") from None
            want = 3 if current != "edges" else 2
            if len(values) != want:
                raise ValueError(f"{path}:{number}: {len(values)} values in section *{current}, "
                                 f"expected {want}")
            sections[current].append(values)
    nodes = np.array(sections["nodes"], dtype=float).reshape(-1, 3)
    idx = {}
    for key, width in (("edges", 2), ("triangles", 3)):
        a = np.array(sections[key], dtype=float).reshape(-1, width)
        if np.any(a != np.round(a)):
            raise ValueError(f"{path}: *{key.title()} holds a non-integer node number")
        idx[key] = a.astype(np.int64) - 1
    return nodes, idx["edges"], idx["triangles"]


def load_mesh(path):
    """A validated TriangleMesh from a file: DisMech's text format (.txt, read_dismech_text; rod
    edges in the file are refused, a shell takes triangles only) or any triangle mesh trimesh
    reads (.obj, .stl, .ply, ...; trimesh merges the duplicated vertices of .stl files)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"mesh = {path!r} is not allowed: no such file")
    if path.lower().endswith(".txt"):
        nodes, rod_edges, tris = read_dismech_text(path)
        if len(rod_edges):
            raise ValueError(f"mesh = {path!r} is not allowed for a shell: it has {len(rod_edges)} "
                             "rod edges (*Edges); build the rods with scene.add_der_rod")
        if len(tris) and (tris.min() < 0 or tris.max() >= len(nodes)):
            bad = int(np.flatnonzero((tris < 0).any(1) | (tris >= len(nodes)).any(1))[0])
            raise ValueError(f"{path}: *Triangles row {bad + 1} = {(tris[bad] + 1).tolist()} is "
                             f"not allowed: node numbers must be in 1..{len(nodes)}")
    else:
        import trimesh
        try:
            m = trimesh.load(path, force="mesh", process=True)
        except Exception as exc:   # trimesh raises many types for unreadable files
            raise ValueError(f"mesh = {path!r} could not be read by trimesh: {exc}") from None
        nodes, tris = np.asarray(m.vertices, float), np.asarray(m.faces, np.int64)
    v, t = validate(nodes, tris, owner=f"mesh {os.path.basename(path)!r}")
    return TriangleMesh(v, t)
