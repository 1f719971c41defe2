"""Contact between rod elements and rigid bodies given as triangle meshes (softmech.terms.
rod_body_contact with a mesh body; the meshes' arrays from softmech.bodies.contact_mesh).

Geometry, in the body's frame (y = Q (x - x_body)), element [ya, yb] of radius r:
* Broad phase: the mesh's bounding sphere, then a static uniform grid of its triangles (each
  triangle listed in every cell its bounding box overlaps): the candidates are the triangles
  of the cells that the element's bounding box, grown by REACH r, overlaps; each is tested once
  per query (a stamp per triangle).
* Narrow phase (softmech.kernels.mesh_distance): the exact closest pair of the element and each
  candidate triangle (squared distance, segment parameter s, closest point c and its feature),
  the closest points of both ends, and where the element crosses a triangle. The signed
  distance of a point is +-|y - c| with the side from the angle-weighted pseudonormal of c's
  feature (Baerentzen and Aanaes 2005): no double counting where c is on an edge or a vertex
  shared by triangles (one closest point, one normal).
* Up to two contacts per element and body. Element outside (no crossing, both ends outside):
  the closest pair, phi = |p(s) - c|, n = (p(s) - c) / phi (the pseudonormal if phi ~ 0):
  exact; and a second contact where the element also touches another face of the mesh (a
  groove, an inner corner): the closest pair over the triangles `beyond` the first contact
  (their direction turned by more than 30 deg, SECOND_COS, their closest point above its
  tangent plane: never on a convex mesh), if nearer than r (second_contact).
  Element partly inside: its deepest point among the ends that are inside and, when both ends
  are outside but it crosses the surface (cutting a convex edge or corner), the middle of its
  crossings; phi < 0 there and n = (c - y) / |c - y|, pointing out (one contact).
  When the deepest point is an end of an element lying (nearly) flat, the convex kernel's
  tie-break moves it towards the middle (tie_break): the same law as on an analytic face.
* Limits: an element is assumed short against the mesh's features (at most two contacts per
  element, a third face at once is not seen); a point deeper inside than (REACH - 1) r
  (one radius for REACH = 2) is not seen: the candidates of a query reach REACH r from the
  element, so a centreline more than one radius inside is lost (use a stiffness that keeps
  overlaps well below r, docs/contact.md).

Force: softmech.kernels.rod_body_contact's law and kinematics (pair_kinematics: the overlap-
weighted application point; regularized_pair_force: the normal force, and the friction at the
contact point with the element's couple, softmech.kernels.contact_point): the same as for
spheres, cylinders and boxes once phi, n, s and the ends' signed distances are known (each
contact its own force, rod_mesh_contacts; with sticking friction each its own anchors,
softmech.kernels.rod_mesh_sticking), so
friction on a mesh also conserves angular momentum and lets a rod roll (issue 30).
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.mesh_distance import NO_CROSSING, segment_crossing, segment_triangle, side
from softmech.kernels.rod_body_contact import (TIE_BREAK, pair_kinematics,
                                               regularized_pair_force, to_body)
from softmech.kernels.rod_contact import add_rows, clear_rows

REACH = 2.0
"""Query radius of an element over its radius r: the candidate triangles are those within REACH
r of its bounding box (signed distances are exact down to (REACH - 1) r inside)."""
G_ORIGIN, G_H, G_INV_H, G_RADIUS = 0, 3, 4, 5
N_GRID = 6
"""Columns of mesh_grid per mesh: grid origin (3) [m] (body frame), cell size h [m], 1 / h,
bounding-sphere radius [m] of the mesh about the body's origin."""
N_DIMS = 5
"""Columns of mesh_dims per mesh: cells along x, y, z, first cell in mesh_cell_start, first
triangle in mesh_tri_x."""
FAR = 1e300
SECOND_COS = math.cos(math.radians(30.0))
"""cos of the least angle between the normals of an element's two contacts with one mesh
(second_contact). Below 30 deg the two triangles act as one curved surface whose facets a
straight element touches together: a faceted concave surface (a pipe's inside, a bowl) would
otherwise push an element once per facet within r of it, stiffening the contact by the number
of facets it spans, while the deepest contact alone has a normal within 30 deg of each of
them. At 30 deg: a V-groove of faces inclined by more than 15 deg (normals 2 alpha apart), a
90 deg inner corner and a step are two contacts; a pipe of 12 facets or more (30 deg or less
between facets) stays one."""
NEAR_ROWS = 32
"""Triangles nearer than r to an element that the first pass keeps for the second
(second_contact; more: a second scan). Estimated, not counted: a 1 cm element with r = 5 mm
on 0.7 cm triangles meets ~10."""
LIFT = 1e-9
"""Height over r [-] by which a second contact's surface point must rise above the first one's
tangent plane (beyond): round-off (the mesh's coordinates ~1e-16 m relative) is not a groove."""

RodMeshContactArgs = namedtuple("RodMeshContactArgs", [
    "x", "v", "Q", "w", "elem_radius", "rb_x", "rb_v", "rb_Q", "rb_w",   # state and radii
    "node_force", "elem_couple", "rb_force", "rb_torque",           # outputs (added to)
    "rbc_node_a", "rbc_node_b", "rbc_elem", "rbc_body", "rbc_entry",  # per pair, as the convex
    "rbc_mesh",         # mesh of each pair (n_p,) int64
    "rbc_param",        # per entry and world (n_blocks, n_entries, N_PARAMS, W)
    "mesh_tri_x",       # triangle corners (n_tri, 3, 3) [m], body frame (principal)
    "mesh_tri_n",       # unit normals per feature (n_tri, N_FEATURES, 3): face, vertices, edges
    "mesh_grid",        # (n_mesh, N_GRID) float
    "mesh_dims",        # (n_mesh, N_DIMS) int64
    "mesh_cell_start",  # (n_cells + n_mesh,) int64: each mesh's cells' ends, prefixed by 0
    "mesh_cell_tris",   # (n_entries,) int64: triangles (global index) of the cells
    "mesh_seen",        # scratch (n_blocks, n_tri) int64: stamp of the last query per triangle
    "mesh_stamp",       # scratch (n_blocks, 1) int64: the last stamp
    "mesh_near",        # scratch (n_blocks, NEAR_ROWS, 9): the triangles near an element (scan)
    "rbc_force",        # output (n_blocks, 3, n_nodes*W): contact force on every node [N]
    "rbc_stats",        # output (n_blocks, 2, W): max eps / r, number of contacts
])


@kernel(inline="always")
def cell_range(lo, hi, origin, inv_h, n):
    """First and last cell index (clamped to 0 .. n - 1) of the interval [lo, hi] [m] on a grid
    axis; first > last when the interval misses the grid."""
    a = (lo - origin) * inv_h
    b = (hi - origin) * inv_h
    if b < 0.0 or a >= n:
        return 1, 0
    return int(math.floor(max(a, 0.0))), int(math.floor(min(b, n - 1.0)))


@kernel(inline="always")
def beyond(ya, yb, s, q, N, fn, fc, fcos, lift):
    """Whether a triangle whose closest pair with segment [ya, yb] is (p(s), q) [m] (N: the
    pseudonormal of q's feature) may hold a second contact beside a first one at surface point
    fc [m] with normal fn (second_contact): its direction u = (p(s) - q) / |p(s) - q| (N where
    p(s) ~ q) turns from fn by more than acos(fcos), u . fn < fcos, and q lies above the first
    contact's tangent plane by more than lift [m], (q - fc) . fn > lift. The second test keeps
    convex meshes at one contact: a convex body lies below every tangent plane at its closest
    point (the projection theorem), so (q - fc) . fn <= 0 for every q of it (an element over a
    face near a convex edge is not pushed by the edge too); in a groove or an inner corner the
    other face rises above the first one's plane."""
    u0, u1, u2 = (ya[0] + s * (yb[0] - ya[0]) - q[0], ya[1] + s * (yb[1] - ya[1]) - q[1],
                  ya[2] + s * (yb[2] - ya[2]) - q[2])
    d = math.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    if d > lift:
        u0, u1, u2 = u0 / d, u1 / d, u2 / d
    else:
        u0, u1, u2 = N[0], N[1], N[2]
    return (u0 * fn[0] + u1 * fn[1] + u2 * fn[2] < fcos and
            (q[0] - fc[0]) * fn[0] + (q[1] - fc[1]) * fn[1] + (q[2] - fc[2]) * fn[2] > lift)


@kernel
def scan(tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, m, ya, yb, reach, fn, fc,
         fcos, lift, near, near2):
    """Every candidate triangle of mesh m for segment [ya, yb] (body frame, grown by reach [m]):
    (found, closest pair (d^2, s, c (3), triangle, feature), end a's closest (d^2, c (3),
    triangle, feature), end b's likewise, first and last crossing parameter (NO_CROSSING if
    none)). found 0: no candidate. Filter: with fcos < 2 only the triangles `beyond` a first
    contact (surface point fc (3,) [m], normal fn (3,), cosine fcos, height lift [m]) count;
    fcos = 2.0: off (every triangle: the first pass, unchanged by the filter). The triangles
    nearer than sqrt(near2) [m] are written to the rows of `near` (NEAR_ROWS, 9): d^2, s, c (3),
    triangle, feature, the ends' d^2 (near_contact); the last value returned is their number
    (beyond NEAR_ROWS: not all written)."""
    g, n = grid[m], dims[m]
    lx, hx = cell_range(min(ya[0], yb[0]) - reach, max(ya[0], yb[0]) + reach, g[0], g[G_INV_H], n[0])
    ly, hy = cell_range(min(ya[1], yb[1]) - reach, max(ya[1], yb[1]) + reach, g[1], g[G_INV_H], n[1])
    lz, hz = cell_range(min(ya[2], yb[2]) - reach, max(ya[2], yb[2]) + reach, g[2], g[G_INV_H], n[2])
    ny, nz, first = n[1], n[2], n[3]
    stamp[0] += 1
    mark = stamp[0]
    found = 0
    best, s, c, bt, bf = FAR, 0.0, (0.0, 0.0, 0.0), 0, 0
    da, ca, ta, fa = FAR, (0.0, 0.0, 0.0), 0, 0
    db, cb, tb, fb = FAR, (0.0, 0.0, 0.0), 0, 0
    s_lo, s_hi = 2.0, -1.0
    count = 0
    for ix in range(lx, hx + 1):
        for iy in range(ly, hy + 1):
            for iz in range(lz, hz + 1):
                cell = first + (ix * ny + iy) * nz + iz
                for j in range(cell_start[cell], cell_start[cell + 1]):
                    t = cell_tris[j]
                    if seen[t] == mark:
                        continue
                    seen[t] = mark
                    found = 1
                    d, st, q, f, d_a, q_a, f_a, d_b, q_b, f_b = segment_triangle(ya, yb, tri_x[t])
                    if fcos < 2.0 and not beyond(ya, yb, st, q, tri_n[t, f], fn, fc, fcos, lift):
                        continue
                    if d < near2:
                        if count < near.shape[0]:
                            row = near[count]
                            row[0], row[1], row[2], row[3], row[4] = d, st, q[0], q[1], q[2]
                            row[5], row[6], row[7], row[8] = t, f, d_a, d_b
                        count += 1
                    if d < best:
                        best, s, c, bt, bf = d, st, q, t, f
                    if d_a < da:
                        da, ca, ta, fa = d_a, q_a, t, f_a
                    if d_b < db:
                        db, cb, tb, fb = d_b, q_b, t, f_b
                    x = segment_crossing(ya, yb, tri_x[t])
                    if x != NO_CROSSING:
                        s_lo, s_hi = min(s_lo, x), max(s_hi, x)
    if s_hi < 0.0:
        s_lo = s_hi = NO_CROSSING
    return found, best, s, c, bt, bf, da, ca, ta, fa, db, cb, tb, fb, s_lo, s_hi, count


@kernel(inline="always")
def tie_break(s, phi, pa, pb, eta):
    """(s, phi) of a contact whose deepest point is an end (s = 0 or 1) of an element lying
    (nearly) flat, |pb - pa| < 2 eta: the minimum of pa + s (pb - pa) + eta (s - 1/2)^2, the
    convex kernel's tie-break (softmech.kernels.rod_body_contact.closest_parameter), so that
    the force law on a face is the same for a mesh and for the analytic body (without it the
    end's overlap alone sets the force, a law that is not a gradient: a rod resting on a mesh
    face was seen to start oscillating after ~0.5 s). Otherwise (s, phi) unchanged."""
    if (s == 0.0 or s == 1.0) and abs(pb - pa) < 2.0 * eta:
        s = 0.5 - (pb - pa) / (2.0 * eta)
        return s, pa + s * (pb - pa)
    return s, phi


@kernel
def outside_contact(tri_n, ya, yb, r, eta, best, s, c, t, f, pa, pb):
    """The contact of an element [ya, yb] [m] (body frame) lying outside the mesh at its closest
    pair over some triangles (squared distance best [m^2], parameter s, surface point c (3,)
    [m] on feature f of triangle t) with ends at distances pa, pb [m]: (hit, s, phi [m],
    outward normal n (3,)): phi = |p(s) - c|, n = (p(s) - c) / phi (the feature's pseudonormal
    if phi ~ 0), then the tie-break (tie_break); hit 0 when phi >= r [m]."""
    phi = math.sqrt(best)
    if not phi < r:
        return 0, 0.0, phi, (0.0, 0.0, 0.0)
    y = (ya[0] + s * (yb[0] - ya[0]), ya[1] + s * (yb[1] - ya[1]), ya[2] + s * (yb[2] - ya[2]))
    n = (tri_n[t, f, 0], tri_n[t, f, 1], tri_n[t, f, 2])
    if phi > 1e-12 * r:
        n = ((y[0] - c[0]) / phi, (y[1] - c[1]) / phi, (y[2] - c[2]) / phi)
    s, phi = tie_break(s, phi, pa, pb, eta)
    return 1, s, phi, n


@kernel
def second_contact(tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, m, ya, yb, r,
                   eta, n1, c1, fcos, near, count):
    """The second contact of an element [ya, yb] (body frame) [m] of radius r [m] lying outside
    mesh m and touching it at surface point c1 (3,) [m] with normal n1 (3,) (its first,
    deepest contact): the closest pair over the triangles `beyond` it (normals turned by more
    than acos(fcos), rising above the first contact's tangent plane): another face of a groove
    or an inner corner. (hit, s, phi [m], n (3,), da, db [m]): as mesh_depth's, da and db the
    ends' distances to those triangles (the second face: the application point's weights,
    softmech.kernels.rod_body_contact.application_parameter, are then the ends' overlaps with
    the face that pushes; the ends are outside the mesh, so unsigned distances are signed
    ones). hit 0 when none is nearer than r.

    The query reaches r, not REACH r: a second contact is nearer than r, and so are the
    triangles that matter for its ends (an end's distance counts where below r: as an overlap
    in the application point, or in tie_break, where the nearer end is the contact itself);
    the ends farther than r from them count as FAR. So the first pass's triangles nearer than
    r (near, count: scan's) are all it needs; only when more than NEAR_ROWS were does it scan
    the cells again (reaching r)."""
    lift = LIFT * r
    if count <= near.shape[0]:
        # the first pass's triangles nearer than r, filtered: no second scan
        best, s, c, bt, bf, da, db = FAR, 0.0, (0.0, 0.0, 0.0), 0, 0, FAR, FAR
        for i in range(count):
            row = near[i]
            q = (row[2], row[3], row[4])
            t, f = int(row[5]), int(row[6])
            if not beyond(ya, yb, row[1], q, tri_n[t, f], n1, c1, fcos, lift):
                continue
            if row[0] < best:
                best, s, c, bt, bf = row[0], row[1], q, t, f
            da, db = min(da, row[7]), min(db, row[8])
    else:
        _, best, s, c, bt, bf, da, _, _, _, db, _, _, _, _, _, _ = scan(
            tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, m, ya, yb, r, n1, c1,
            fcos, lift, near, 0.0)
    if not best < r * r:
        return 0, 0.0, r, (0.0, 0.0, 0.0), r, r
    pa = math.sqrt(da) if da < r * r else FAR
    pb = math.sqrt(db) if db < r * r else FAR
    hit, s, phi, n = outside_contact(tri_n, ya, yb, r, eta, best, s, c, bt, bf, pa, pb)
    return hit, s, phi, n, pa, pb


@kernel
def mesh_depth(tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, near, m, ya, yb, r,
               eta, fcos):
    """Contacts of element [ya, yb] (body frame) [m] of radius r [m] with mesh m (module
    docstring): the first, deepest one (hit, s, phi [m] at p(s), outward normal n (3,) (body
    frame), signed distances of the ends da, db [m]) and a second one in the same form
    (second_contact; only for an element outside the mesh and only when fcos < 2: fcos =
    SECOND_COS for two contacts, 2.0 for the first alone); hit 0 when apart (phi >= r) or out
    of reach. eta [m]: the tie-break weight (tie_break); near: scratch (NEAR_ROWS, 9) (scan)."""
    zero = (0.0, 0.0, 0.0)
    none = (0, 0.0, r, zero, r, r)
    reach = REACH * r
    found, best, s, c, bt, bf, da, ca, ta, fa, db, cb, tb, fb, s_lo, s_hi, count = scan(
        tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, m, ya, yb, reach, zero,
        zero, 2.0, 0.0, near, r * r if fcos < 2.0 else 0.0)
    if found == 0 or best > reach * reach:
        return none, none
    # the ends' signed distances: beyond the reach their closest candidate may be wrong, so
    # they count as outside (a point that far inside is lost: module docstring)
    pa = side(ya[0], ya[1], ya[2], ca[0], ca[1], ca[2], tri_n, ta, fa) if da <= reach * reach \
        else FAR
    pb = side(yb[0], yb[1], yb[2], cb[0], cb[1], cb[2], tri_n, tb, fb) if db <= reach * reach \
        else FAR
    if pa >= 0.0 and pb >= 0.0 and s_lo == NO_CROSSING:
        # outside: the exact closest pair, and the next face's if asked
        hit, s1, phi, n = outside_contact(tri_n, ya, yb, r, eta, best, s, c, bt, bf, pa, pb)
        if hit == 0 or not fcos < 2.0:
            return (hit, s1, phi, n, pa, pb), none
        return (hit, s1, phi, n, pa, pb), second_contact(
            tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, m, ya, yb, r, eta, n, c,
            fcos, near, count)
    # partly inside: the deepest of the inside ends and, for an element crossing in and out,
    # the middle of its crossings
    phi, s, y, c, t, f = FAR, 0.0, ya, ca, ta, fa
    if pa < 0.0:
        phi = pa
    if pb < phi and pb < 0.0:
        phi, s, y, c, t, f = pb, 1.0, yb, cb, tb, fb
    if pa >= 0.0 and pb >= 0.0:
        sm = 0.5 * (s_lo + s_hi)
        ym = (ya[0] + sm * (yb[0] - ya[0]), ya[1] + sm * (yb[1] - ya[1]),
              ya[2] + sm * (yb[2] - ya[2]))
        _, _, _, _, _, _, dm, cm, tm, fm, _, _, _, _, _, _, _ = scan(
            tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, m, ym, ym, reach, zero,
            zero, 2.0, 0.0, near, 0.0)
        if dm > reach * reach:
            return (0, 0.0, r, zero, pa, pb), none
        phi = side(ym[0], ym[1], ym[2], cm[0], cm[1], cm[2], tri_n, tm, fm)
        s, y, c, t, f = sm, ym, cm, tm, fm
    if not phi < r:
        return (0, 0.0, phi, zero, pa, pb), none
    d = math.sqrt((c[0] - y[0]) ** 2 + (c[1] - y[1]) ** 2 + (c[2] - y[2]) ** 2)
    n = (tri_n[t, f, 0], tri_n[t, f, 1], tri_n[t, f, 2])
    if d > 1e-12 * r and phi < 0.0:
        n = ((c[0] - y[0]) / d, (c[1] - y[1]) / d, (c[2] - y[2]) / d)
    s, phi = tie_break(s, phi, pa, pb, eta)
    return (1, s, phi, n, pa, pb), none


@kernel
def mesh_pair_depths(a, bi, W, lane, p, fcos):
    """The contacts of pair p in one lane (mesh_depth's two tuples, body frame; fcos as there)
    and the pair's element ends xa, xe (3,) [m] (lab), radius r [m], node slots ia, ib and
    body slot k."""
    X = a.x[bi]
    ia, ib = a.rbc_node_a[p] * W + lane, a.rbc_node_b[p] * W + lane
    k = a.rbc_body[p] * W + lane
    m = a.rbc_mesh[p]
    xb, Q = a.rb_x[bi], a.rb_Q[bi]
    xa = (X[0, ia], X[1, ia], X[2, ia])
    xe = (X[0, ib], X[1, ib], X[2, ib])
    r = a.elem_radius[bi, a.rbc_elem[p] * W + lane]
    zero = (0.0, 0.0, 0.0)
    none = (0, 0.0, r, zero, r, r)
    m0, m1, m2 = 0.5 * (xa[0] + xe[0]) - xb[0, k], 0.5 * (xa[1] + xe[1]) - xb[1, k], \
        0.5 * (xa[2] + xe[2]) - xb[2, k]
    half = 0.5 * math.sqrt((xe[0] - xa[0]) ** 2 + (xe[1] - xa[1]) ** 2 + (xe[2] - xa[2]) ** 2)
    reach = a.mesh_grid[m, G_RADIUS] + half + REACH * r
    if m0 * m0 + m1 * m1 + m2 * m2 > reach * reach:      # the mesh's bounding sphere
        return none, none, xa, xe, r, ia, ib, k
    ya = to_body(Q, k, xa[0] - xb[0, k], xa[1] - xb[1, k], xa[2] - xb[2, k])
    ye = to_body(Q, k, xe[0] - xb[0, k], xe[1] - xb[1, k], xe[2] - xb[2, k])
    # the convex kernel's tie-break weight, with the mesh's bounding radius for the body's
    first, second = mesh_depth(a.mesh_tri_x, a.mesh_tri_n, a.mesh_grid, a.mesh_dims,
                               a.mesh_cell_start, a.mesh_cell_tris, a.mesh_seen[bi],
                               a.mesh_stamp[bi], a.mesh_near[bi], m, ya, ye, r,
                               TIE_BREAK * (a.mesh_grid[m, G_RADIUS] + half + r), fcos)
    return first, second, xa, xe, r, ia, ib, k


@kernel
def contact_kinematics(a, bi, contact, xa, xe, r, ia, ib, k):
    """pair_geometry's result (softmech.kernels.rod_body_contact: hit, eps, r, s_c, n lab,
    lever, w_t, v_n, ia, ib, k) of one contact (hit, s, phi, nl, da, db) of a mesh pair
    (mesh_depth's form) of element [xa, xe] (lab) [m], radius r [m]; zeros when hit is 0."""
    hit, s, phi, nl, da, db = contact
    if hit == 0:
        return 0, 0.0, r, 0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0, ia, ib, k
    return pair_kinematics(a, bi, ia, ib, k, xa, xe, r, s, phi, nl, da, db)


@kernel
def mesh_contact_force(a, bi, W, lane, p, contact, xa, xe, r, ia, ib, k):
    """Add the regularized force of one contact (hit, s, phi, nl, da, db) of pair p
    (mesh_depth's form) in one lane: eps / r [-] (0 when apart)."""
    hit, eps, r, s, n, lev, rel, vn, ia, ib, k = contact_kinematics(a, bi, contact, xa, xe, r,
                                                                    ia, ib, k)
    if hit == 0:
        return 0.0
    regularized_pair_force(a, bi, W, lane, p, a.rbc_param[bi, a.rbc_entry[p]], eps, r, s, n,
                           lev, rel, vn, ia, ib, k)
    return eps / r


@kernel
def rod_mesh_contacts(a, bi, W, t):
    """Add the rod-mesh contact forces of block bi to a.node_force, the friction's couples to
    a.elem_couple and the bodies' force and torque (every rod-mesh pair of the scene in this one
    call; up to two contacts per pair, mesh_depth); a.rbc_force keeps the rods' share per node
    slot, a.rbc_stats per lane (as softmech.kernels.rod_body_contact; both contacts counted)."""
    clear_rows(a.rbc_force[bi])
    for lane in range(W):
        worst = 0.0
        count = 0
        for p in range(a.rbc_node_a.shape[0]):
            first, second, xa, xe, r, ia, ib, k = mesh_pair_depths(a, bi, W, lane, p, SECOND_COS)
            for contact in (first, second):
                if contact[0] == 0:
                    continue
                worst = max(worst, mesh_contact_force(a, bi, W, lane, p, contact, xa, xe, r, ia,
                                                      ib, k))
                count += 1
        a.rbc_stats[bi, 0, lane] = worst
        a.rbc_stats[bi, 1, lane] = count
    add_rows(a.node_force[bi], a.rbc_force[bi])


@kernel
def initial_mesh_overlaps(x0, x1, rad, tri_x, tri_n, grid, dims, cell_start, cell_tris, seen,
                          stamp, near, m, out):
    """eps / r = (r - phi) / r [-] (0 when apart) of elements [x0[p], x1[p]] (body frame of
    mesh m) [m] of radii rad[p] [m]: the scene's check of its initial geometry."""
    for p in range(x0.shape[0]):
        (hit, _, phi, _, _, _), _ = mesh_depth(
            tri_x, tri_n, grid, dims, cell_start, cell_tris, seen, stamp, near, m,
            (x0[p, 0], x0[p, 1], x0[p, 2]), (x1[p, 0], x1[p, 1], x1[p, 2]), rad[p], 0.0, 2.0)
        out[p] = (rad[p] - phi) / rad[p] if hit else 0.0
