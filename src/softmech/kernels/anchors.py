"""Elastic frame anchors (softmech.terms.boundary.Clamp with frame="boundary"): half Voronoi
domains joining an end element's frame to a fixed frame."""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.cosserat_forces import relative_rotation, voronoi_couple_terms
from softmech.kernels.so3 import log_jacobian_coefficient

FrameAnchorsArgs = namedtuple("FrameAnchorsArgs", [
    "Q",              # state
    "anchor_elem",    # element slot per anchor (n_a,)
    "anchor_Q",       # target frame, rows d1, d2, d3, (n_blocks, n_a, 9, W)
    "anchor_K",       # stiffness over length K / D [N m], (n_blocks, n_a, 3, W)
    "anchor_side",    # +1: target before the element (first end), -1: after it (last end), (n_a,)
    "elem_couple",    # output (added to)
])


@kernel(inline="always")
def frame_anchors(a, bi, W, t):
    """Couples of elastic anchors (half Voronoi domains) pulling element frames towards fixed
    frames: m = (K / D) phi with phi the rotation between target and element frame, distributed
    as in the rod's Voronoi domains (exact log-map Jacobian) -- a clamp at the rod's end s = 0
    (or L) rather than at the first element's centre."""
    Q = a.Q[bi]
    alpha = a.elem_couple[bi]
    for i in range(a.anchor_elem.shape[0]):
        side = a.anchor_side[i]
        base = a.anchor_elem[i] * W
        for lane in range(W):
            k = base + lane
            q = a.anchor_Q[bi, i, :, lane]
            if side > 0.0:  # target frame before the element: element is b
                p0, p1, p2, sn, cs, ratio = relative_rotation(
                    q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8],
                    Q[0, k], Q[1, k], Q[2, k], Q[3, k], Q[4, k], Q[5, k], Q[6, k], Q[7, k], Q[8, k])
            else:
                p0, p1, p2, sn, cs, ratio = relative_rotation(
                    Q[0, k], Q[1, k], Q[2, k], Q[3, k], Q[4, k], Q[5, k], Q[6, k], Q[7, k], Q[8, k],
                    q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8])
            cc = log_jacobian_coefficient(p0 * p0 + p1 * p1 + p2 * p2, sn, cs, ratio)
            m0 = a.anchor_K[bi, i, 0, lane] * p0
            m1 = a.anchor_K[bi, i, 1, lane] * p1
            m2 = a.anchor_K[bi, i, 2, lane] * p2
            h0, h1, h2, g0, g1, g2 = voronoi_couple_terms(p0, p1, p2, m0, m1, m2, cc)
            # element b receives -m + h - g, element a receives m + h + g
            alpha[0, k] += -side * (m0 + g0) + h0
            alpha[1, k] += -side * (m1 + g1) + h1
            alpha[2, k] += -side * (m2 + g2) + h2
