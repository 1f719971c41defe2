"""Contractile cells on rods (softmech.terms.contractile): a cell attached to the rod's surface
at two nodes a, b, at distances h_a, h_b from the centreline along a material direction d_k,
pulls its attachment points p = x + h d_k together with the force

    f(t) = F (1 - cos(2 pi f t + phase)) / 2        (F constant when f = 0)              [N]

along u = (p_b - p_a) / |p_b - p_a|: +f u on node a, -f u on node b, and the couples
h_a d_k x f u at node a and -h_b d_k x f u at node b, each split equally between the node's two
elements (all of it on the one element of an end node) and turned into their local frames:
the moment then jumps at the node itself, so the bent span is l_c, not l_c -+ one element
(d_k: the element inside the span). The pair has zero net force and zero net torque (both
forces lie on the line p_a p_b): the contractile filament of Zhang et al., Nat. Commun.
10:4825 (2019), Fig. 2 (the bio-hybrid swimmer's cardiomyocyte), as a force line.
"""
from collections import namedtuple

import math

import numpy as np

from softmech.kernels import kernel

CELL_FORCE, CELL_FREQUENCY, CELL_PHASE, CELL_HA, CELL_HB = range(5)
N_CELL_PARAMS = 5

ContractileCellsArgs = namedtuple("ContractileCellsArgs", [
    "x", "Q",                               # state
    "rod_node_off", "rod_elem_off", "rod_n_elems",
    "cell_rod",      # rod index per cell (n_cells,)
    "cell_axis",     # material direction k (0: d1, 1: d2) per cell (n_cells,)
    "cell_nodes",    # attachment nodes a < b within the rod, (n_blocks, n_cells, 2, W) int64
    "cell_param",    # F [N], f [Hz], phase [rad], h_a, h_b [m], (n_blocks, n_cells, 5, W)
    "node_force", "elem_couple",            # outputs (added to)
])


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
            act = prm[CELL_FORCE]
            if prm[CELL_FREQUENCY] > 0.0:
                act *= 0.5 - 0.5 * math.cos(2.0 * math.pi * prm[CELL_FREQUENCY] * t
                                            + prm[CELL_PHASE])
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
            s = act / np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
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
