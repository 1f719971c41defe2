"""Fluid loads of Renda et al., IJRR 2018, section 3.5 and 4.1 (softmech.terms.fluids).

Quadratic drag on a rod's elements (eq. 11), with vbar the mean velocity of the element's two
nodes, u = Q vbar its components along d1, d2, d3 (d3 the tangent) and l^ the rest length:

    F_e = -rho_f |vbar| sum_k D_k u_k d_k l^,    D = (C_n r, C_n r, pi/2 C_t r)          [N]

(Renda's D_b = diag(pi/2 C_bx, C_by, C_bz) h_b with x the axial direction), split equally
between the two nodes. On rigid bodies (eq. 20): F = -1/2 rho_f C_r |v| v, C_r [m^2].

Added mass of a rod (eq. 13, F_b = diag(0, A B_b, A B_b): normal to the axis only) belongs to
the integrator's mass, not to the force list: a node's mass matrix is m I + m_a (I - t t^T)
(t the node's unit tangent, m_a its share of B_b rho_f A l^). softmech.packing gives the kick
the scalar mass m + m_a and the body acceleration g (m - m_f) / (m + m_a) (m_f the displaced
mass: gravity and buoyancy, eq. 10); `added_mass`, the last kernel of the force pass, then turns
the force F into F' such that the kick's F' / (m + m_a) + g (m - m_f) / (m + m_a) equals the
exact (m I + m_a P)^-1 X, X = F + (m - m_f) g + R, with P = I - t t^T:

    (m I + m_a P)^-1 = t t^T / m + P / (m + m_a)   ->   F' = F + R + (m_a / m) (X . t) t,

and R = -(dM_a/dt) v = m_a (tdot (t . v) + t (tdot . v)) the second term of eq. 13 (the added
mass turns with the rod; without it the momentum of rod + fluid would not be conserved), tdot =
P (v_next - v_prev) / |x_next - x_prev|. The node tangent is the chord of its neighbours
(x_next - x_prev; an end node: its element), which replaces the element-wise sum of the two
half elements' P at O((l kappa)^2).
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.cosserat_forces import pair_rows, rows9
from softmech.kernels.drag import spread_to_nodes

QuadraticDragArgs = namedtuple("QuadraticDragArgs", [
    "v", "Q",                                           # state
    "rod_node_off", "rod_elem_off", "rod_n_elems", "rod_closed",
    "qdrag_rod",     # rod index per entry (n_qdrag,)
    "qdrag_layer",   # layer of qdrag_coeff per entry (n_qdrag,) (softmech.packing.Engine.elem_layers)
    "qdrag_coeff",   # rho_f D_k l^ along d1, d2, d3 [kg/m], (n_blocks, n_layers, 3, n_elems*W)
    "qdrag_force",   # scratch: half of each element's force [N], (n_blocks, 3, n_elems*W)
    "node_force",    # output (added to)
])


@kernel
def quadratic_drag(a, bi, W, t):
    """Add the quadratic drag of every entry of block bi to a.node_force (Renda eq. 11)."""
    for i in range(a.qdrag_rod.shape[0]):
        r = a.qdrag_rod[i]
        ne = a.rod_n_elems[r] * W
        e0 = a.rod_elem_off[r] * W
        n0 = a.rod_node_off[r] * W
        va0, va1, va2, vb0, vb1, vb2 = pair_rows(a.v[bi], n0, W)
        q0, q1, q2, q3, q4, q5, q6, q7, q8 = rows9(a.Q[bi], e0)
        layer = a.qdrag_layer[i]
        c1 = a.qdrag_coeff[bi, layer, 0, e0:]
        c2 = a.qdrag_coeff[bi, layer, 1, e0:]
        c3 = a.qdrag_coeff[bi, layer, 2, e0:]
        f0 = a.qdrag_force[bi, 0, e0:]
        f1 = a.qdrag_force[bi, 1, e0:]
        f2 = a.qdrag_force[bi, 2, e0:]
        for k in range(ne):
            m0 = 0.5 * (va0[k] + vb0[k])
            m1 = 0.5 * (va1[k] + vb1[k])
            m2 = 0.5 * (va2[k] + vb2[k])
            speed = np.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
            u1 = -0.5 * speed * c1[k] * (q0[k] * m0 + q1[k] * m1 + q2[k] * m2)  # half force
            u2 = -0.5 * speed * c2[k] * (q3[k] * m0 + q4[k] * m1 + q5[k] * m2)
            u3 = -0.5 * speed * c3[k] * (q6[k] * m0 + q7[k] * m1 + q8[k] * m2)
            f0[k] = u1 * q0[k] + u2 * q3[k] + u3 * q6[k]
            f1[k] = u1 * q1[k] + u2 * q4[k] + u3 * q7[k]
            f2[k] = u1 * q2[k] + u2 * q5[k] + u3 * q8[k]
        spread_to_nodes(a.qdrag_force[bi], e0, a.node_force[bi], n0, ne, W, a.rod_closed[r])


AddedMassArgs = namedtuple("AddedMassArgs", [
    "x", "v",                                           # state
    "rod_node_off", "rod_n_elems",
    "node_mass",      # m + m_a [kg] (the kick's mass)
    "node_body_acc",  # g (m - m_f) / (m + m_a) [m/s^2]
    "am_rod",         # open rods with added mass (n_am,)
    "am_mass",        # m_a per node slot [kg], (n_blocks, n_nodes*W), 0 elsewhere
    "am_ratio",       # m_a / m per node slot [-]
    "node_force",     # in: every other term's force [N]; out: F' (see the module docstring)
])


@kernel
def added_mass(a, bi, W, t):
    """Replace a.node_force of the added-mass rods of block bi by F' (module docstring); the
    last kernel of the force pass (it needs the total force)."""
    x, v, F = a.x[bi], a.v[bi], a.node_force[bi]
    ma, ratio = a.am_mass[bi], a.am_ratio[bi]
    M, g = a.node_mass[bi], a.node_body_acc[bi]
    for i in range(a.am_rod.shape[0]):
        r = a.am_rod[i]
        n = a.rod_n_elems[r]
        n0 = a.rod_node_off[r] * W
        for j in range(n + 1):
            for lane in range(W):
                k = n0 + j * W + lane
                kp = k - W if j > 0 else k
                kn = k + W if j < n else k
                t0 = x[0, kn] - x[0, kp]
                t1 = x[1, kn] - x[1, kp]
                t2 = x[2, kn] - x[2, kp]
                il = 1.0 / np.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
                t0 *= il
                t1 *= il
                t2 *= il
                d0 = (v[0, kn] - v[0, kp]) * il
                d1 = (v[1, kn] - v[1, kp]) * il
                d2 = (v[2, kn] - v[2, kp]) * il
                along = d0 * t0 + d1 * t1 + d2 * t2
                d0 -= along * t0                     # tdot = P (v_next - v_prev) / |chord|
                d1 -= along * t1
                d2 -= along * t2
                tv = t0 * v[0, k] + t1 * v[1, k] + t2 * v[2, k]
                dv = d0 * v[0, k] + d1 * v[1, k] + d2 * v[2, k]
                r0 = ma[k] * (d0 * tv + t0 * dv)     # R = -(dM_a/dt) v
                r1 = ma[k] * (d1 * tv + t1 * dv)
                r2 = ma[k] * (d2 * tv + t2 * dv)
                xt = ((F[0, k] + r0 + M[k] * g[0, k]) * t0 + (F[1, k] + r1 + M[k] * g[1, k]) * t1
                      + (F[2, k] + r2 + M[k] * g[2, k]) * t2) * ratio[k]
                F[0, k] += r0 + xt * t0
                F[1, k] += r1 + xt * t1
                F[2, k] += r2 + xt * t2


RigidQuadraticDragArgs = namedtuple("RigidQuadraticDragArgs", [
    "rb_v", "rb_force",
    "rqdrag_body",   # rigid-body slot per entry (n,)
    "rqdrag_coeff",  # 1/2 rho_f C_r [kg/m], (n_blocks, n, 1, W)
])


@kernel(inline="always")
def rigid_quadratic_drag(a, bi, W, t):
    """rb_force += -1/2 rho_f C_r |v| v for every entry (Renda eq. 20)."""
    v, f = a.rb_v[bi], a.rb_force[bi]
    for i in range(a.rqdrag_body.shape[0]):
        for lane in range(W):
            k = a.rqdrag_body[i] * W + lane
            c = a.rqdrag_coeff[bi, i, 0, lane] * np.sqrt(v[0, k] ** 2 + v[1, k] ** 2 + v[2, k] ** 2)
            for d in range(3):
                f[d, k] -= c * v[d, k]
