"""Quadratic (form) drag on the edges of discrete elastic rods in the unified engine's block
layout (softmech.der_packing; the term: sm.QuadraticDrag, softmech.terms.fluids).

Renda et al., IJRR 2018, eq. 11, as the Cosserat rods' kernel (softmech.kernels.fluids) applies
it to an element, for a round section (the drag the same about the axis, so the material
frame is not needed): with vbar the mean velocity of the edge's two nodes, t its unit tangent,
u_t = vbar . t and u_n = vbar - u_t t,

    F_e = -|vbar| (c_n u_n + c_t u_t t),   c_n = rho_f C_n r l^,  c_t = rho_f pi/2 C_t r l^   [N]

split equally between the two nodes.
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel

DerQuadraticDragArgs = namedtuple("DerQuadraticDragArgs", [
    "der_x", "der_v",       # State: node positions [m] and velocities [m/s] (n_blocks, 3, n W)
    "der_force",            # Workspace: node forces [N] (n_blocks, 3, n W), added to
    "edge_nodes",           # (m, 2) int64: the node slots of each edge of the rod
    "c_n", "c_t",           # (n_blocks, m W) [kg/m]: each edge's coefficients, per lane
])
"""Arrays of der_quadratic_drag (one sm.QuadraticDrag on a discrete rod)."""


@kernel
def der_quadratic_drag(a, bi, W, t):
    """der_force += half of each edge's quadratic drag on each of its nodes (module docstring),
    for every lane of block bi (the lanes innermost)."""
    x, v, f = a.der_x[bi], a.der_v[bi], a.der_force[bi]
    c_n, c_t = a.c_n[bi], a.c_t[bi]
    for j in range(a.edge_nodes.shape[0]):
        na, nb = a.edge_nodes[j, 0] * W, a.edge_nodes[j, 1] * W
        for lane in range(W):
            ia, ib, k = na + lane, nb + lane, j * W + lane
            e0, e1, e2 = x[0, ib] - x[0, ia], x[1, ib] - x[1, ia], x[2, ib] - x[2, ia]
            inv = 1.0 / np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
            t0, t1, t2 = e0 * inv, e1 * inv, e2 * inv
            m0 = 0.5 * (v[0, ia] + v[0, ib])
            m1 = 0.5 * (v[1, ia] + v[1, ib])
            m2 = 0.5 * (v[2, ia] + v[2, ib])
            speed = np.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
            ut = m0 * t0 + m1 * t1 + m2 * t2
            # half force: -|vbar| (c_n (vbar - u_t t) + c_t u_t t) / 2
            cn, along = 0.5 * speed * c_n[k], 0.5 * speed * (c_t[k] - c_n[k]) * ut
            h0, h1, h2 = -(cn * m0 + along * t0), -(cn * m1 + along * t1), -(cn * m2 + along * t2)
            f[0, ia] += h0
            f[1, ia] += h1
            f[2, ia] += h2
            f[0, ib] += h0
            f[1, ib] += h1
            f[2, ib] += h2
