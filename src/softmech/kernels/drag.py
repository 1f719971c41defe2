"""Viscous (resistive-force) drag on rods (softmech.terms.drag): per element, with t the unit
tangent and v the mean velocity of its two nodes,
    F_e = -l^ [c_t (v . t) t + c_n (v - (v . t) t)]                               [N]
(resistive-force theory: Gray & Hancock, J. Exp. Biol. 32:802, 1955; Lighthill, Mathematical
Biofluiddynamics, SIAM 1975, ch. 3), split equally between the element's two nodes. c_t and c_n
are drag coefficients per unit length [N s/m^2]; c_t = c_n is isotropic drag. And the local
couple resisting the element's own rotation (local angular velocity w):
    C_e = -(k_r w_1, k_r w_2, k_a w_3)                                             [N m]
with k_r = c_n l^^3 / 12 (the drag of a segment turning about its centre, the part of a rotating
rod's drag that the elements' mean velocities miss) and k_a = 4 pi mu r^2 l^ (a cylinder spinning
about its axis: Batchelor, J. Fluid Mech. 44:419, 1970); ViscousDrag leaves both 0.
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.cosserat_forces import pair_rows, rows3

ViscousDragArgs = namedtuple("ViscousDragArgs", [
    "x", "v", "w",                                     # state
    "rod_node_off", "rod_elem_off", "rod_n_elems", "rod_closed",
    "drag_rod",      # rod index per drag entry (n_drag,)
    "drag_layer",    # layer of drag_coeff per entry (n_drag,) (softmech.packing.Engine.elem_layers)
    "drag_coeff",    # per element slot: l^ c_t, l^ c_n [N s/m], k_r, k_a [N m s],
                     # (n_blocks, n_layers, 4, n_elems*W)
    "drag_force",    # scratch: element forces [N], (n_blocks, 3, n_elems*W)
    "node_force", "elem_couple",                       # outputs (added to)
])


@kernel
def viscous_drag(a, bi, W, t):
    """Add the drag of every drag entry of block bi to a.node_force and a.elem_couple."""
    for i in range(a.drag_rod.shape[0]):
        r = a.drag_rod[i]
        ne = a.rod_n_elems[r] * W
        e0 = a.rod_elem_off[r] * W
        n0 = a.rod_node_off[r] * W
        closed = a.rod_closed[r]
        xa0, xa1, xa2, xb0, xb1, xb2 = pair_rows(a.x[bi], n0, W)
        va0, va1, va2, vb0, vb1, vb2 = pair_rows(a.v[bi], n0, W)
        layer = a.drag_layer[i]
        ct = a.drag_coeff[bi, layer, 0, e0:]
        cn = a.drag_coeff[bi, layer, 1, e0:]
        f0 = a.drag_force[bi, 0, e0:]
        f1 = a.drag_force[bi, 1, e0:]
        f2 = a.drag_force[bi, 2, e0:]
        for k in range(ne):
            t0 = xb0[k] - xa0[k]
            t1 = xb1[k] - xa1[k]
            t2 = xb2[k] - xa2[k]
            it = 1.0 / np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
            t0 *= it
            t1 *= it
            t2 *= it
            m0 = 0.5 * (va0[k] + vb0[k])
            m1 = 0.5 * (va1[k] + vb1[k])
            m2 = 0.5 * (va2[k] + vb2[k])
            along = (ct[k] - cn[k]) * (m0 * t0 + m1 * t1 + m2 * t2)
            f0[k] = -0.5 * (cn[k] * m0 + along * t0)   # half of the element's force
            f1[k] = -0.5 * (cn[k] * m1 + along * t1)
            f2[k] = -0.5 * (cn[k] * m2 + along * t2)
        spread_to_nodes(a.drag_force[bi], e0, a.node_force[bi], n0, ne, W, closed)
        kr = a.drag_coeff[bi, layer, 2, e0:]
        ka = a.drag_coeff[bi, layer, 3, e0:]
        w0, w1, w2 = rows3(a.w[bi], e0)
        c0, c1, c2 = rows3(a.elem_couple[bi], e0)
        for k in range(ne):
            c0[k] -= kr[k] * w0[k]
            c1[k] -= kr[k] * w1[k]
            c2[k] -= ka[k] * w2[k]


@kernel(inline="always")
def spread_to_nodes(half, e0, node_force, n0, ne, W, closed):
    """node_force (3, n_slots) += half (3, n_elem_slots) of every element of a rod (element slots
    from e0, node slots from n0, ne = n_elems * W) on each of its two nodes; a closed rod's
    last element ends on node 0."""
    for c in range(3):
        fc = half[c, e0:]
        first = node_force[c, n0:]
        second = node_force[c, n0 + W:]
        for j in range(ne):
            first[j] += fc[j]
        for j in range(ne - closed * W):
            second[j] += fc[j]
        if closed:
            for lane in range(W):
                first[lane] += fc[ne - W + lane]
