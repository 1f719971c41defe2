"""Exact segment-triangle distances and the inside/outside of triangle meshes
(softmech.kernels.mesh_distance, softmech.bodies.contact_mesh), against brute-force sampling
and closed forms."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from softmech.bodies.contact_mesh import grid, pack_meshes, pseudonormals
from softmech.bodies.meshes import icosphere
from softmech.bodies.rigid_body import general
from softmech.kernels.mesh_distance import (EDGE, FACE, NO_CROSSING, VERTEX, point_triangle,
                                            segment_crossing, segment_triangle, side)
from softmech.kernels.rod_mesh_contact import NEAR_ROWS, SECOND_COS, mesh_depth
from softmech.validation.mesh_contact import box_mesh, corner_mesh, v_notch_mesh

coord = st.floats(-1.0, 1.0, allow_nan=False)
vec = st.tuples(coord, coord, coord).map(np.array)


def sampled_distance(a, b, T, n=200):
    """min |p - q| over n + 1 points p of [a, b] and the points q of a barycentric grid of
    triangle T with n subdivisions per side: above the exact distance by at most
    (|b - a| + longest edge of T) / n (the grids' spacing; the distance is 1-Lipschitz)."""
    s = np.linspace(0.0, 1.0, n + 1)
    i, j = np.meshgrid(s, s, indexing="ij")
    keep = i + j <= 1.0 + 1e-12
    Q = T[0] + i[keep, None] * (T[1] - T[0]) + j[keep, None] * (T[2] - T[0])
    P = a + s[:, None] * (b - a)
    from scipy.spatial import cKDTree
    return cKDTree(Q).query(P)[0].min()


@settings(max_examples=40, deadline=None)
@given(a=vec, b=vec, t0=vec, t1=vec, t2=vec)
def test_segment_triangle_distance_matches_sampling(a, b, t0, t1, t2):
    """The exact closest pair is never farther than the sampled minimum, and the sampled
    minimum exceeds it by at most the sampling spacing (plus round-off); the closest points
    found are at the distance reported. A crossing segment has distance 0 (sampled: within
    the spacing)."""
    T = np.array([t0, t1, t2])
    area = np.linalg.norm(np.cross(T[1] - T[0], T[2] - T[0]))
    if area < 1e-3:
        return
    d2, s, c, f, da, ca, fa, db, cb, fb = segment_triangle(tuple(a), tuple(b), T)
    x = segment_crossing(tuple(a), tuple(b), T)
    exact = 0.0 if x != NO_CROSSING else np.sqrt(d2)
    n = 200
    sampled = sampled_distance(a, b, T, n)
    spacing = (np.linalg.norm(b - a) + max(np.linalg.norm(T[k] - T[(k + 1) % 3])
                                           for k in range(3))) / n
    assert exact <= sampled + 1e-12
    assert sampled - exact <= spacing + 1e-12
    assert 0.0 <= s <= 1.0 and f in range(7)
    p = a + s * (b - a)
    assert abs(np.linalg.norm(p - np.array(c)) ** 2 - d2) <= 1e-12
    for end, dd, cc in ((a, da, ca), (b, db, cb)):
        assert abs(np.linalg.norm(end - np.array(cc)) ** 2 - dd) <= 1e-12
        assert np.sqrt(dd) <= sampled_distance(end, end, T, n) + 1e-12
    if x != NO_CROSSING:
        crossing = a + x * (b - a)
        assert sampled_distance(crossing, crossing, T, n) <= spacing + 1e-12


def test_point_triangle_names_the_feature_of_its_closest_point():
    T = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    assert point_triangle(0.2, 0.2, 1.0, T)[3] == FACE
    assert point_triangle(-1.0, -1.0, 0.5, T)[3] == VERTEX + 0
    assert point_triangle(2.0, -0.1, 0.0, T)[3] == VERTEX + 1
    assert point_triangle(-0.1, 2.0, 0.0, T)[3] == VERTEX + 2
    assert point_triangle(0.5, -1.0, 0.0, T)[3] == EDGE + 0      # v0 -> v1
    assert point_triangle(1.0, 1.0, 0.3, T)[3] == EDGE + 1       # v1 -> v2
    assert point_triangle(-1.0, 0.5, 0.0, T)[3] == EDGE + 2      # v2 -> v0


def test_pseudonormals_tell_inside_from_outside_of_a_closed_mesh():
    """Points near an icosphere mesh (80 triangles, so vertices and edges are often the closest
    features): the pseudonormal's sign (Baerentzen and Aanaes 2005, theorem 1) agrees with the
    exact inside test of the convex polyhedron (below every face plane), and |phi| is the
    brute-force distance to the nearest triangle."""
    mesh = icosphere(1.0, 1)
    V, F = mesh.vertices, mesh.triangles
    N = pseudonormals(V, F)
    corners = V[F]
    face = N[:, 0]
    offset = np.einsum("ij,ij->i", face, corners[:, 0])
    rng = np.random.default_rng(1)
    points = rng.normal(size=(500, 3))
    points *= (0.8 + 0.4 * rng.random(500))[:, None] / np.linalg.norm(points, axis=1)[:, None]
    for p in points:
        best = (np.inf, 0, 0, None)
        for t, T in enumerate(corners):
            c0, c1, c2, f = point_triangle(p[0], p[1], p[2], T)
            d = np.linalg.norm(p - (c0, c1, c2))
            if d < best[0]:
                best = (d, t, f, (c0, c1, c2))
        d, t, f, c = best
        phi = side(p[0], p[1], p[2], c[0], c[1], c[2], N, t, f)
        inside = np.all(face @ p - offset < 0.0)
        assert abs(abs(phi) - d) <= 1e-15
        assert (phi < 0.0) == inside


def test_mesh_depth_of_elements_around_an_icosphere():
    """Element against a fine icosphere (R = 1, 5120 triangles) through the grid: a tangent
    element (half length 0.02) at height h has phi = h to within the facets' sagitta (the
    deepest facet plane's distance below the sphere, measured from the mesh: 1.1e-3) plus the
    chord's (2e-4); an element poking in by delta has phi = -delta at its inner end (same
    tolerance); normals point out (radially, within the facets' angle); an element beyond
    reach of the mesh is apart."""
    mesh = icosphere(1.0, 4)
    p = mesh.vertices[mesh.triangles]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    tolerance = 1.0 - np.einsum("ij,ij->i", normal, p[:, 0]).min() + 2e-4
    body = general("ball", position=np.zeros(3), vertices=mesh.vertices, faces=mesh.triangles,
                   directors=np.eye(3), velocity=np.zeros(3), angular_velocity=np.zeros(3),
                   fixed=True)
    args = depth_args(body)
    rng = np.random.default_rng(2)
    r = 0.05
    for _ in range(200):
        u = rng.normal(size=3)
        u /= np.linalg.norm(u)
        t = np.cross(u, rng.normal(size=3))
        t /= np.linalg.norm(t)
        # tangent element at height h above the sphere: phi ~ h (sagitta)
        h = rng.uniform(-0.03, 0.04)
        ya, yb = (1 + h) * u - 0.02 * t, (1 + h) * u + 0.02 * t
        (hit, s, phi, n, da, db), second = mesh_depth(*args, tuple(ya), tuple(yb), r, 0.0,
                                                      SECOND_COS)
        assert second[0] == 0             # convex: one contact
        assert hit == (phi < r)
        assert abs(phi - h) < tolerance      # sagitta of the facets and of the chord
        if hit:
            assert np.dot(n, u) > 0.95
        # radial element poking in by delta at its inner end
        delta = rng.uniform(0.001, 0.04)
        ya, yb = (1 - delta) * u, (1.03 - delta) * u
        (hit, s, phi, n, da, db), _ = mesh_depth(*args, tuple(ya), tuple(yb), r, 0.0, SECOND_COS)
        assert hit == 1 and s == 0.0
        assert abs(phi + delta) < tolerance and abs(da + delta) < tolerance
        assert np.dot(n, u) > 0.95
    (hit, *_), _ = mesh_depth(*args, (0.0, 0.0, 2.0), (0.0, 0.1, 2.0), r, 0.0, SECOND_COS)
    assert hit == 0


def depth_args(body):
    """mesh_depth's leading arguments (the packed mesh of a fixed general body, scratch, m = 0)."""
    a = pack_meshes([body])
    seen, stamp = np.zeros(len(a["mesh_tri_x"]), np.int64), np.zeros(1, np.int64)
    return (a["mesh_tri_x"], a["mesh_tri_n"], a["mesh_grid"], a["mesh_dims"],
            a["mesh_cell_start"], a["mesh_cell_tris"], seen, stamp, np.zeros((NEAR_ROWS, 9)), 0)


def mesh_args(v, f):
    return depth_args(general("mesh", position=np.zeros(3), vertices=v, faces=f,
                              directors=np.eye(3), velocity=np.zeros(3),
                              angular_velocity=np.zeros(3), fixed=True))


def test_a_second_contact_in_a_groove_or_an_inner_corner_of_one_mesh():
    """mesh_depth's second contact (softmech.kernels.rod_mesh_contact.second_contact), element
    of radius r = 0.01 along x (half length 0.025):
    * in a V-notch of half-angle alpha = 30 deg, at height h above the bottom line and y = d:
      one contact per face, phi_+- = h cos(alpha) -+ d sin(alpha) (the distance to each face
      plane), normals (0, -+sin(alpha), cos(alpha)); the deeper first; da, db of the second
      its ends' distances to its own face (= phi there: the element is parallel to it); to
      1e-15 m, normals to 1e-13 (n = (p - c) / phi with phi ~ 8 mm: the rounding of the block's
      0.25 m coordinates, ~5e-17 m, over phi, summed over a few operations);
    * in the 90 deg inner corner of an L (floor z = 0, wall y = 0) at (y, z) = (-0.8 r, 0.7 r):
      the floor (phi = 0.7 r, the deeper) and the wall (phi = 0.8 r, n = -y);
    * one contact: with the same fcos off (2.0); in a notch of alpha = 10 deg (normals 20 deg
      apart, under SECOND_COS's 30 deg: one curved surface); over a box's top face 0.5 r from
      a convex edge at height 0.3 r (the edge is 0.58 r away, its direction 59 deg from the
      face's normal: only the concavity test, `beyond`, refuses it); and a notch's element
      beyond r of the second face."""
    r = 0.01
    alpha = np.radians(30.0)
    ca, sa = np.cos(alpha), np.sin(alpha)
    notch = mesh_args(*v_notch_mesh(alpha, 0.5, 0.1, 1.0))

    def element(y, z):
        return (-0.025, y, z), (0.025, y, z)

    h, d = 1.0 * r, 0.1 * r
    first, second = mesh_depth(*notch, *element(d, h), r, 0.0, SECOND_COS)
    assert first[0] == 1 and second[0] == 1
    for (hit, s, phi, n, da, db), sign in ((first, 1.0), (second, -1.0)):
        assert abs(phi - (h * ca - sign * d * sa)) < 1e-15
        np.testing.assert_allclose(n, (0.0, -sign * sa, ca), rtol=0, atol=1e-13)
        assert abs(da - phi) < 1e-15 and abs(db - phi) < 1e-15
    assert mesh_depth(*notch, *element(d, h), r, 0.0, 2.0)[1][0] == 0
    corner = mesh_args(*corner_mesh(0.2, 1.0))
    first, second = mesh_depth(*corner, *element(-0.8 * r, 0.7 * r), r, 0.0, SECOND_COS)
    assert first[0] == 1 and second[0] == 1
    assert abs(first[2] - 0.7 * r) < 1e-15 and abs(second[2] - 0.8 * r) < 1e-15
    np.testing.assert_allclose(first[3], (0, 0, 1), rtol=0, atol=1e-13)
    np.testing.assert_allclose(second[3], (0, -1, 0), rtol=0, atol=1e-13)
    shallow = mesh_args(*v_notch_mesh(np.radians(10.0), 0.5, 0.1, 1.0))
    first, second = mesh_depth(*shallow, *element(0.0, 1.01 * r), r, 0.0, SECOND_COS)
    assert first[0] == 1 and first[2] < r and second[0] == 0
    v, f = box_mesh((1.0, 1.0, 0.1))
    box = mesh_args(v, f)
    first, second = mesh_depth(*box, *element(0.5 - 0.5 * r, 0.05 + 0.3 * r), r, 0.0, SECOND_COS)
    assert first[0] == 1 and abs(first[2] - 0.3 * r) < 1e-15 and second[0] == 0
    first, second = mesh_depth(*notch, *element(-0.6 * r, 1.2 * r), r, 0.0, SECOND_COS)
    assert first[0] == 1 and second[0] == 0     # the + face at 1.34 r


def test_grid_lists_every_triangle_in_the_cells_its_box_overlaps():
    mesh = icosphere(0.3, 2)
    corners = mesh.vertices[mesh.triangles]
    origin, h, n, start, tris = grid(corners)
    assert start[-1] == len(tris) and np.all(np.diff(start) >= 0)
    for t in range(len(corners)):
        lo = np.floor((corners[t].min(axis=0) - origin) / h).astype(int)
        hi = np.floor((corners[t].max(axis=0) - origin) / h).astype(int)
        hi = np.minimum(hi, n - 1)
        for ix in range(lo[0], hi[0] + 1):
            for iy in range(lo[1], hi[1] + 1):
                for iz in range(lo[2], hi[2] + 1):
                    cell = (ix * n[1] + iy) * n[2] + iz
                    assert t in tris[start[cell]:start[cell + 1]]
