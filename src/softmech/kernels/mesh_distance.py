"""Exact distances between points, segments and triangles, with the feature of the triangle that
holds the closest point (for its angle-weighted pseudonormal): the narrow phase of rod contact
against triangle meshes (softmech.kernels.rod_mesh_contact).

Features of a triangle (a, b, c) = (v0, v1, v2): FACE (0), vertex k (VERTEX + k, k = 0, 1, 2),
edge k (EDGE + k) from v_k to v_(k+1). A mesh stores one unit normal per feature and triangle in
this order (softmech.bodies.contact_mesh): the face normal, then the angle-weighted
pseudonormals of the vertices and edges (Baerentzen and Aanaes, IEEE TVCG 11:243, 2005, eqs.
2-3), so that the sign of (y - c) . N(feature) is the side of the surface a point y lies on,
c its closest point, whichever feature c falls on (their theorem 1, for a closed, consistently
oriented manifold).

Point-triangle: Ericson, Real-Time Collision Detection, 2005, sec. 5.1.5 (Voronoi regions of
the vertices, edges and face). Segment-triangle: if the segment does not cross the triangle,
its closest pair has an end of the segment on one side or an edge of the triangle on the other
(a segment's interior point closest to the face interior would make the segment parallel to the
face, where an end does as well; Ericson sec. 5.1.10, Eberly, "Distance between a line segment
and a triangle", 2008): the minimum over the two ends against the triangle and the segment
against its three edges (softmech.kernels.rod_contact.segment_parameters, Ericson sec. 5.1.9).
A crossing (the segment meets the triangle) is reported separately by its segment parameter.
"""
import math

from softmech.kernels import kernel
from softmech.kernels.rod_contact import segment_parameters

FACE, VERTEX, EDGE = 0, 1, 4
"""Feature codes: FACE, VERTEX + k for vertex k, EDGE + k for the edge from vertex k to k + 1."""
N_FEATURES = 7
"""Normals per triangle: the face, three vertices, three edges."""
NO_CROSSING = -1.0
"""Segment parameter returned when a segment does not cross a triangle."""


@kernel
def point_triangle(p0, p1, p2, T):
    """Closest point c (3 floats) of triangle T (3, 3) (rows v0, v1, v2) [m] to point p [m], and
    the feature holding it (Ericson 2005, sec. 5.1.5, regions tested in his order)."""
    a0, a1, a2 = T[0, 0], T[0, 1], T[0, 2]
    ab0, ab1, ab2 = T[1, 0] - a0, T[1, 1] - a1, T[1, 2] - a2
    ac0, ac1, ac2 = T[2, 0] - a0, T[2, 1] - a1, T[2, 2] - a2
    ap0, ap1, ap2 = p0 - a0, p1 - a1, p2 - a2
    d1 = ab0 * ap0 + ab1 * ap1 + ab2 * ap2
    d2 = ac0 * ap0 + ac1 * ap1 + ac2 * ap2
    if d1 <= 0.0 and d2 <= 0.0:
        return a0, a1, a2, VERTEX
    bp0, bp1, bp2 = p0 - T[1, 0], p1 - T[1, 1], p2 - T[1, 2]
    d3 = ab0 * bp0 + ab1 * bp1 + ab2 * bp2
    d4 = ac0 * bp0 + ac1 * bp1 + ac2 * bp2
    if d3 >= 0.0 and d4 <= d3:
        return T[1, 0], T[1, 1], T[1, 2], VERTEX + 1
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3)
        return a0 + v * ab0, a1 + v * ab1, a2 + v * ab2, EDGE
    cp0, cp1, cp2 = p0 - T[2, 0], p1 - T[2, 1], p2 - T[2, 2]
    d5 = ab0 * cp0 + ab1 * cp1 + ab2 * cp2
    d6 = ac0 * cp0 + ac1 * cp1 + ac2 * cp2
    if d6 >= 0.0 and d5 <= d6:
        return T[2, 0], T[2, 1], T[2, 2], VERTEX + 2
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6)
        return a0 + w * ac0, a1 + w * ac1, a2 + w * ac2, EDGE + 2
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return (T[1, 0] + w * (T[2, 0] - T[1, 0]), T[1, 1] + w * (T[2, 1] - T[1, 1]),
                T[1, 2] + w * (T[2, 2] - T[1, 2]), EDGE + 1)
    denom = 1.0 / (va + vb + vc)
    v, w = vb * denom, vc * denom
    return (a0 + v * ab0 + w * ac0, a1 + v * ab1 + w * ac1, a2 + v * ab2 + w * ac2, FACE)


@kernel
def segment_crossing(ya, yb, T):
    """Segment parameter s in [0, 1] where segment [ya, yb] meets triangle T (3, 3) [m], or
    NO_CROSSING: the ends on opposite sides of (or one on) the triangle's plane, and the
    crossing point inside the triangle (on the inner side of its three edges, edges included)."""
    e10, e11, e12 = T[1, 0] - T[0, 0], T[1, 1] - T[0, 1], T[1, 2] - T[0, 2]
    e20, e21, e22 = T[2, 0] - T[0, 0], T[2, 1] - T[0, 1], T[2, 2] - T[0, 2]
    n0, n1, n2 = e11 * e22 - e12 * e21, e12 * e20 - e10 * e22, e10 * e21 - e11 * e20
    ha = n0 * (ya[0] - T[0, 0]) + n1 * (ya[1] - T[0, 1]) + n2 * (ya[2] - T[0, 2])
    hb = n0 * (yb[0] - T[0, 0]) + n1 * (yb[1] - T[0, 1]) + n2 * (yb[2] - T[0, 2])
    if (ha > 0.0 and hb > 0.0) or (ha < 0.0 and hb < 0.0) or ha == hb:
        return NO_CROSSING
    s = ha / (ha - hb)
    x0, x1, x2 = ya[0] + s * (yb[0] - ya[0]), ya[1] + s * (yb[1] - ya[1]), ya[2] + s * (yb[2] - ya[2])
    for k in range(3):
        j = (k + 1) % 3
        u0, u1, u2 = T[j, 0] - T[k, 0], T[j, 1] - T[k, 1], T[j, 2] - T[k, 2]
        w0, w1, w2 = x0 - T[k, 0], x1 - T[k, 1], x2 - T[k, 2]
        # (u x w) . n < 0: x is outside edge k
        if (u1 * w2 - u2 * w1) * n0 + (u2 * w0 - u0 * w2) * n1 + (u0 * w1 - u1 * w0) * n2 < 0.0:
            return NO_CROSSING
    return s


@kernel
def segment_triangle(ya, yb, T):
    """Closest pair of segment [ya, yb] and triangle T (3, 3) [m], ignoring a crossing (see
    segment_crossing): (squared distance [m^2], segment parameter s, closest point c (3,) of
    the triangle, its feature), then each end's own closest point: (squared distance, c (3,),
    feature) for ya and for yb. Ties keep the first candidate in the order: end a, end b,
    edges 0, 1, 2."""
    a0, a1, a2, fa = point_triangle(ya[0], ya[1], ya[2], T)
    da = (ya[0] - a0) ** 2 + (ya[1] - a1) ** 2 + (ya[2] - a2) ** 2
    b0, b1, b2, fb = point_triangle(yb[0], yb[1], yb[2], T)
    db = (yb[0] - b0) ** 2 + (yb[1] - b1) ** 2 + (yb[2] - b2) ** 2
    best, s, c0, c1, c2, f = da, 0.0, a0, a1, a2, fa
    if db < best:
        best, s, c0, c1, c2, f = db, 1.0, b0, b1, b2, fb
    for k in range(3):
        j = (k + 1) % 3
        sk, u = segment_parameters(ya[0], ya[1], ya[2], yb[0], yb[1], yb[2],
                                   T[k, 0], T[k, 1], T[k, 2], T[j, 0], T[j, 1], T[j, 2])
        p0 = ya[0] + sk * (yb[0] - ya[0])
        p1 = ya[1] + sk * (yb[1] - ya[1])
        p2 = ya[2] + sk * (yb[2] - ya[2])
        q0 = T[k, 0] + u * (T[j, 0] - T[k, 0])
        q1 = T[k, 1] + u * (T[j, 1] - T[k, 1])
        q2 = T[k, 2] + u * (T[j, 2] - T[k, 2])
        d = (p0 - q0) ** 2 + (p1 - q1) ** 2 + (p2 - q2) ** 2
        if d < best:
            g = EDGE + k
            if u <= 0.0:
                g = VERTEX + k
            elif u >= 1.0:
                g = VERTEX + j
            best, s, c0, c1, c2, f = d, sk, q0, q1, q2, g
    return (best, s, (c0, c1, c2), f, da, (a0, a1, a2), fa, db, (b0, b1, b2), fb)


@kernel(inline="always")
def side(y0, y1, y2, c0, c1, c2, N, t, f):
    """Signed distance [m] of point y from its closest point c on feature f of triangle t:
    +|y - c| on the side pseudonormal N[t, f] points to, -|y - c| on the other
    (Baerentzen and Aanaes 2005, theorem 1)."""
    d = math.sqrt((y0 - c0) ** 2 + (y1 - c1) ** 2 + (y2 - c2) ** 2)
    if (y0 - c0) * N[t, f, 0] + (y1 - c1) * N[t, f, 1] + (y2 - c2) * N[t, f, 2] < 0.0:
        return -d
    return d
