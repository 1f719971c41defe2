"""Contractile cells on rods (softmech.terms.contractile): a cell attached to the rod's surface
at two nodes a, b, at distances h_a, h_b from the centreline along a material direction d_k,
pulls its attachment points p = x + h d_k together with the force

    f(t) = F (1 - cos(2 pi f t + phase)) / 2        (F constant when f = 0)              [N]

along u = (p_b - p_a) / |p_b - p_a|, scaled by an active force-length curve g(|D| / l_0) if one
is given, plus the cell's own axial elasticity k (|D| - l_n) (a soft filament of rest length l_n
and axial stiffness k = E_c A_c / l_n, which pushes its ends apart when shortened): +f u on node
a, -f u on node b, and the couples h_a d_k x f u at node a and -h_b d_k x f u at node b, each
split equally between the node's two elements (all of it on the one element of an end node) and
turned into their local frames:
the moment then jumps at the node itself, so the bent span is l_c, not l_c -+ one element
(d_k: the element inside the span). The pair has zero net force and zero net torque (both
forces lie on the line p_a p_b): the contractile filament of Zhang et al., Nat. Commun.
10:4825 (2019), Fig. 2 (the bio-hybrid swimmer's cardiomyocyte), as a force line.
"""
from collections import namedtuple

import math

import numpy as np

from softmech.kernels import kernel

CELL_FORCE, CELL_FREQUENCY, CELL_PHASE, CELL_HA, CELL_HB, CELL_REST, CELL_K, CELL_NATURAL = range(8)
N_CELL_PARAMS = 8

ContractileCellsArgs = namedtuple("ContractileCellsArgs", [
    "x", "Q",                               # state
    "rod_node_off", "rod_elem_off", "rod_n_elems",
    "cell_rod",      # rod index per cell (n_cells,)
    "cell_axis",     # material direction k (0: d1, 1: d2) per cell (n_cells,)
    "cell_nodes",    # attachment nodes a < b within the rod, (n_blocks, n_cells, 2, W) int64
    "cell_param",    # F [N], f [Hz], phase [rad], h_a, h_b, l_0 [m], k [N/m], l_n [m],
                     # (n_blocks, n_cells, 8, W)
    "cell_curve",    # force-length: [lambda_lo, lambda_hi, c_0, c_1, ...] (2 + C,)
    "node_force", "elem_couple",            # outputs (added to)
])


@kernel(inline="always")
def force_length(curve, lam):
    """(g, dg/dlambda) of the active force-length curve `curve` = [lambda_lo, lambda_hi, c_0,
    c_1, ...] at lambda: max(0, sum c_k lambda^k) inside [lambda_lo, lambda_hi], 0 outside."""
    if lam <= curve[0] or lam >= curve[1]:
        return 0.0, 0.0
    g, dg = 0.0, 0.0
    for k in range(curve.shape[0] - 1, 1, -1):       # Horner for the value and the slope
        dg = dg * lam + g
        g = g * lam + curve[k]
    if g <= 0.0:
        return 0.0, 0.0
    return g, dg


@kernel(inline="always")
def twitch(force, frequency, phase, t):
    """A cell's pull at time t [N]: F (1 - cos(2 pi f t + phase)) / 2, the constant F when
    f = 0 (force F [N], frequency f [Hz], phase [rad])."""
    if frequency > 0.0:
        return force * (0.5 - 0.5 * math.cos(2.0 * math.pi * frequency * t + phase))
    return force


@kernel(inline="always")
def add_node_couple(couple, Q, k0, k1, c0, c1, c2):
    """Half of a lab-frame couple c into each of element slots k0, k1 (their local frames, Q c;
    k0 == k1 for an end node's single element)."""
    for k in (k0, k1):
        for row in range(3):
            couple[row, k] += 0.5 * (Q[3 * row, k] * c0 + Q[3 * row + 1, k] * c1
                                     + Q[3 * row + 2, k] * c2)


@kernel(inline="always")
def contractile_cells(a, bi, W, t):
    """Add the forces and couples of every cell of block bi at time t."""
    x, Q, F, C = a.x[bi], a.Q[bi], a.node_force[bi], a.elem_couple[bi]
    for i in range(a.cell_rod.shape[0]):
        r = a.cell_rod[i]
        row = 3 * a.cell_axis[i]
        for lane in range(W):
            prm = a.cell_param[bi, i, :, lane]
            act = twitch(prm[CELL_FORCE], prm[CELL_FREQUENCY], prm[CELL_PHASE], t)
            ja = a.cell_nodes[bi, i, 0, lane]
            jb = a.cell_nodes[bi, i, 1, lane]
            na = (a.rod_node_off[r] + ja) * W + lane
            nb = (a.rod_node_off[r] + jb) * W + lane
            ka = (a.rod_elem_off[r] + ja) * W + lane          # the elements inside the span
            kb = (a.rod_elem_off[r] + jb - 1) * W + lane
            ka_out = ka - W if ja > 0 else ka                 # and outside it
            kb_out = kb + W if jb < a.rod_n_elems[r] else kb
            ha, hb = prm[CELL_HA], prm[CELL_HB]
            da0, da1, da2 = Q[row, ka], Q[row + 1, ka], Q[row + 2, ka]
            db0, db1, db2 = Q[row, kb], Q[row + 1, kb], Q[row + 2, kb]
            u0 = x[0, nb] + hb * db0 - x[0, na] - ha * da0
            u1 = x[1, nb] + hb * db1 - x[1, na] - ha * da1
            u2 = x[2, nb] + hb * db2 - x[2, na] - ha * da2
            dist = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
            if prm[CELL_REST] > 0.0:
                act *= force_length(a.cell_curve, dist / prm[CELL_REST])[0]
            act += prm[CELL_K] * (dist - prm[CELL_NATURAL])   # the filament's own elasticity
            s = act / dist
            f0, f1, f2 = s * u0, s * u1, s * u2
            F[0, na] += f0
            F[1, na] += f1
            F[2, na] += f2
            F[0, nb] -= f0
            F[1, nb] -= f1
            F[2, nb] -= f2
            add_node_couple(C, Q, ka, ka_out, ha * (da1 * f2 - da2 * f1), ha * (da2 * f0 - da0 * f2),
                             ha * (da0 * f1 - da1 * f0))
            add_node_couple(C, Q, kb, kb_out, -hb * (db1 * f2 - db2 * f1), -hb * (db2 * f0 - db0 * f2),
                             -hb * (db0 * f1 - db1 * f0))


@kernel(inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@kernel
def contractile_cell_der(q, dofs, frac_a, frac_b, axis_a, axis_b, h_a, h_b, rest, curve,
                         stiffness, natural, force, F, J, JD, H):
    """A contractile cell on a discrete elastic rod (softmech.terms.contractile, implicit
    integrator): add its forces to F (n_dof,) and its Jacobian (12 x 12, row-major) to J (144,);
    returns |D| [m]. JD (3, 12), H (12, 12): scratch. rest l_0 [m] and curve: the force-length
    curve g(|D| / l_0) (`force_length`) that scales `force`; rest = 0: none. stiffness k [N/m],
    natural l_n [m]: the filament's own elasticity, adding k (|D| - l_n) to the pull (k = 0:
    none).

    dofs (12,) int64: the nodes (x_0, x_1) of the edge holding the cell's first end and
    (x_2, x_3) of the edge holding its second (repeats allowed). The attachment points lie at
    the fractions frac_a, frac_b along those edges, offset from the centreline:
    p_a = (1 - frac_a) x_0 + frac_a x_1 + h_a n_a, n_a = axis_a x t_a with t_a the edge's unit
    tangent, and p_b likewise on (x_2, x_3): the side direction turns with the edge about the
    fixed `axis` (the normal of the bending plane), which is the material direction d_k of a rod
    bending in that plane. The cell pulls them together with `force` f [N]: its potential is
    E = f |D|, D = p_b - p_a, so

        F = -f J_D^T u,   dF/dq = -f [J_D^T (I - u u^T) J_D / |D| + sum_i u_i d2 D_i / dq2],

    (with the force-length curve and the elasticity, f = F g + k (|D| - l_n) and dF/dq gains
    -(F g'(lambda) / l_0 + k) J_D^T u u^T J_D)

    u = D / |D|. With dn/de = [axis]x P / |e| (P = I - t t^T) the blocks of J_D = dD/dq are
    (-((1 - frac_a) I - h_a N_a), -(frac_a I + h_a N_a), (1 - frac_b) I - h_b N_b,
    frac_b I + h_b N_b); u . n = t . (u x axis) =: t . w, whose Hessian in e is
    -(t (P w)^T + (P w) t^T + (t . w) P) / |e|^2.
    """
    JD[:, :] = 0.0
    D0, D1, D2 = 0.0, 0.0, 0.0
    for end in range(2):
        i0, i1 = (0, 1) if end == 0 else (2, 3)
        frac = frac_a if end == 0 else frac_b
        axis = axis_a if end == 0 else axis_b
        h = h_a if end == 0 else h_b
        sign = -1.0 if end == 0 else 1.0             # D = p_b - p_a
        e0 = q[dofs[3 * i1]] - q[dofs[3 * i0]]
        e1 = q[dofs[3 * i1 + 1]] - q[dofs[3 * i0 + 1]]
        e2 = q[dofs[3 * i1 + 2]] - q[dofs[3 * i0 + 2]]
        ne = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        t = (e0 / ne, e1 / ne, e2 / ne)
        n0, n1, n2 = _cross(axis[0], axis[1], axis[2], t[0], t[1], t[2])
        D0 += sign * ((1.0 - frac) * q[dofs[3 * i0]] + frac * q[dofs[3 * i1]] + h * n0)
        D1 += sign * ((1.0 - frac) * q[dofs[3 * i0 + 1]] + frac * q[dofs[3 * i1 + 1]] + h * n1)
        D2 += sign * ((1.0 - frac) * q[dofs[3 * i0 + 2]] + frac * q[dofs[3 * i1 + 2]] + h * n2)
        for c in range(3):          # column c of N = axis x P[:, c] / |e|, times h
            c0, c1, c2 = _cross(axis[0], axis[1], axis[2], (1.0 if c == 0 else 0.0) - t[0] * t[c],
                                (1.0 if c == 1 else 0.0) - t[1] * t[c],
                                (1.0 if c == 2 else 0.0) - t[2] * t[c])
            col = (c0 * h / ne, c1 * h / ne, c2 * h / ne)
            for r in range(3):
                JD[r, 3 * i1 + c] += sign * col[r]           # de/dx_i1 = I
                JD[r, 3 * i0 + c] -= sign * col[r]           # de/dx_i0 = -I
        for r in range(3):
            JD[r, 3 * i0 + r] += sign * (1.0 - frac)
            JD[r, 3 * i1 + r] += sign * frac
    dist = np.sqrt(D0 * D0 + D1 * D1 + D2 * D2)
    u = (D0 / dist, D1 / dist, D2 / dist)
    slope = 0.0                                               # d f / d|D|
    if rest > 0.0:
        g, dg = force_length(curve, dist / rest)
        slope = force * dg / rest
        force *= g
    force += stiffness * (dist - natural)
    slope += stiffness
    for k in range(12):                                       # dE/dq = f J_D^T u
        F[dofs[k]] -= force * (JD[0, k] * u[0] + JD[1, k] * u[1] + JD[2, k] * u[2])
    for r in range(12):                                       # J_D^T (I - u u^T) J_D / |D|
        ur = JD[0, r] * u[0] + JD[1, r] * u[1] + JD[2, r] * u[2]
        for c in range(12):
            uc = JD[0, c] * u[0] + JD[1, c] * u[1] + JD[2, c] * u[2]
            H[r, c] = (JD[0, r] * JD[0, c] + JD[1, r] * JD[1, c] + JD[2, r] * JD[2, c]
                       - ur * uc) / dist * force + slope * ur * uc
    for end in range(2):
        i0, i1 = (0, 1) if end == 0 else (2, 3)
        axis = axis_a if end == 0 else axis_b
        scale = -h_a if end == 0 else h_b                      # sign * h
        e0 = q[dofs[3 * i1]] - q[dofs[3 * i0]]
        e1 = q[dofs[3 * i1 + 1]] - q[dofs[3 * i0 + 1]]
        e2 = q[dofs[3 * i1 + 2]] - q[dofs[3 * i0 + 2]]
        ne2 = e0 * e0 + e1 * e1 + e2 * e2
        ne = np.sqrt(ne2)
        t = (e0 / ne, e1 / ne, e2 / ne)
        w = _cross(u[0], u[1], u[2], axis[0], axis[1], axis[2])
        tw = t[0] * w[0] + t[1] * w[1] + t[2] * w[2]
        pw = (w[0] - tw * t[0], w[1] - tw * t[1], w[2] - tw * t[2])
        for r in range(3):
            for c in range(3):
                he = -(t[r] * pw[c] + pw[r] * t[c]
                       + tw * ((1.0 if r == c else 0.0) - t[r] * t[c])) / ne2 * scale * force
                H[3 * i0 + r, 3 * i0 + c] += he
                H[3 * i1 + r, 3 * i1 + c] += he
                H[3 * i0 + r, 3 * i1 + c] -= he
                H[3 * i1 + r, 3 * i0 + c] -= he
    for r in range(12):
        for c in range(12):
            J[12 * r + c] -= H[r, c]
    return dist
