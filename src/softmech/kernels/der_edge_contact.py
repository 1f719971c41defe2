"""Contact between the edges of discrete rods in the unified engine's block layout (sm.EdgeContact
on discrete rods, Scene.compile(engine="unified"); part: softmech.terms.der_edge_contact).

The adapter gathers one world's node positions and velocities of the contact's rods into DOF
vectors and runs the discrete engine's own pieces (softmech.kernels.edge_contact): the candidate
pairs (edges sharing no node whose bounding spheres come within the contact distance plus a
margin, all pairs tested) and each pair's IMC penalty and regularized Coulomb friction
(pair_force, MAT-DiSMech ref. 004 eqs. 21-23), then adds the forces to der_force. Forces only:
the unified engine's Newton differentiates the whole force pass by finite differences.

The discrete engine collects the candidates once per step; here they are collected at every
evaluation (the compiled step has no per-step hook), so a pair may enter or leave the list
between two Newton trials. That changes the force by what a pair beyond the cutoff would
contribute, at most the penalty at D = delta + margin: with the default margin (delta) and
sharpness (15 / delta), exp(-15) of the contact's force scale for the penalty and less for its
sigmoid, which the finite differences do not see. Friction is kinetic only (mu_k): the part
refuses a static excess (its lagged state belongs to the pairs' nodes at the last accepted
step, softmech.kernels.edge_contact).
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.der_loads import gather_nodes, scatter_add_nodes, zero
from softmech.kernels.edge_contact import candidate_pairs, pair_force

DerEdgeContactArgs = namedtuple("DerEdgeContactArgs", [
    "der_x", "der_v", "der_force",    # State, Workspace (n_blocks, 3, n_der_nodes*W)
    "ec_slot",       # (K,) int64: the node slots of the contact's rods
    "ec_edge_dofs",  # (m, 6) int64: each edge's two nodes' coordinates in ec_q (3 k + c)
    "ec_edge_nodes",  # (m, 2) int64: each edge's two nodes (0..K-1)
    "ec_geometry",   # (4,): contact distance delta [m], sharpness K [1/m], slip sharpness
                     # K_f [s/m], candidate cutoff delta + margin [m]
    "ec_param",      # (n_blocks, W, 2) per lane: stiffness k [N/m], kinetic mu_k [-]
    # scratch, one row per block: positions q [m], velocities u [m/s], forces F [N] (3 K,);
    # candidate pairs (max_pairs, 2); a pair's coordinates, velocities, force, tmp (51,)
    "ec_q", "ec_u", "ec_F", "ec_pairs", "ec_scratch",
])
"""Arrays of der_edge_contact (one sm.EdgeContact among discrete rods)."""


@kernel
def der_edge_contact(a, bi, W, t):
    """der_force += the contact and friction forces of every candidate pair [N], world by world
    (module docstring); a candidate list larger than its buffer makes the forces NaN (the
    part sizes the buffer for every pair, so this cannot happen)."""
    q, u, F, pairs, s = a.ec_q[bi], a.ec_u[bi], a.ec_F[bi], a.ec_pairs[bi], a.ec_scratch[bi]
    p, w, f, tmp = s[0:12], s[12:24], s[24:36], s[48:51]
    g = a.ec_geometry
    for lane in range(W):
        gather_nodes(a.der_x[bi], a.ec_slot, W, lane, q)
        gather_nodes(a.der_v[bi], a.ec_slot, W, lane, u)
        zero(F)
        k, mu = a.ec_param[bi, lane, 0], a.ec_param[bi, lane, 1]
        n = candidate_pairs(q, a.ec_edge_dofs, a.ec_edge_nodes, g[3], pairs)
        if n < 0:
            F[0] = math.nan
        for r in range(max(n, 0)):
            for half in range(2):
                e = pairs[r, half]
                for i in range(6):
                    p[6 * half + i] = q[a.ec_edge_dofs[e, i]]
                    w[6 * half + i] = u[a.ec_edge_dofs[e, i]]
            pair_force(p, w, k, g[0], g[1], mu, g[2], f, tmp)
            for half in range(2):
                e = pairs[r, half]
                for i in range(6):
                    F[a.ec_edge_dofs[e, i]] += f[6 * half + i]
        scatter_add_nodes(F, a.ec_slot, W, lane, a.der_force[bi])
