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
sigmoid, which the finite differences do not see.

Static friction: the excess mu_s - mu_k is lagged on each node's slip at the last accepted step
(softmech.kernels.edge_contact: the mean of the tangential slip speeds of the pairs the node
belongs to, weighted by the normal force it carries in each; a pair reads the largest of its
four nodes'). The discrete engine keeps that slip as a state, computed at its converged
iterate; here it is computed from the state at the end of the last accepted step -- implicit
Euler's base positions and velocities (der_x_base, der_v_base) of the step being solved, or,
under the explicit schemes, the positions and velocities at the force evaluation -- over the
candidate pairs of that configuration, so it needs no history.
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.der_loads import gather_nodes, scatter_add_nodes, zero
from softmech.kernels.edge_contact import (candidate_pairs, closest_points, edge_slip_accept,
                                           pair_force, slip_state)
from softmech.kernels.implicit_ground import inverse_stribeck_speed, lagged_coefficient

DerEdgeContactArgs = namedtuple("DerEdgeContactArgs", [
    "der_x", "der_v", "der_force",    # State, Workspace (n_blocks, 3, n_der_nodes*W)
    "der_x_base", "der_v_base", "der_implicit",   # Workspace: implicit Euler's base state, flag
    "ec_slot",       # (K,) int64: the node slots of the contact's rods
    "ec_edge_dofs",  # (m, 6) int64: each edge's two nodes' coordinates in ec_q (3 k + c)
    "ec_edge_nodes",  # (m, 2) int64: each edge's two nodes (0..K-1)
    "ec_geometry",   # (4,): contact distance delta [m], sharpness K [1/m], slip sharpness
                     # K_f [s/m], candidate cutoff delta + margin [m]
    "ec_param",      # (n_blocks, W, 3) per lane: stiffness k [N/m], kinetic mu_k, static mu_s
    # scratch, one row per block: positions q [m], velocities u [m/s], forces F [N] (3 K,);
    # candidate pairs (max_pairs, 2); a pair's coordinates, velocities, force, tmp (51,);
    # the last accepted step's slip per node and its weights (K,) [m/s, N]; its pairs' nodes
    # (max_pairs, 4), slip speeds (max_pairs,) and node weights (max_pairs, 4)
    "ec_q", "ec_u", "ec_F", "ec_pairs", "ec_scratch", "ec_slip", "ec_total",
    "ec_pair_nodes", "ec_speed", "ec_weight",
])
"""Arrays of der_edge_contact (one sm.EdgeContact among discrete rods)."""


@kernel
def der_edge_contact(a, bi, W, t):
    """der_force += the contact and friction forces of every candidate pair [N], world by world
    (module docstring); a candidate list larger than its buffer makes the forces NaN (the
    part sizes the buffer for every pair, so this cannot happen)."""
    q, u, F, pairs, s = a.ec_q[bi], a.ec_u[bi], a.ec_F[bi], a.ec_pairs[bi], a.ec_scratch[bi]
    p, w, f, tmp = s[0:12], s[12:24], s[24:36], s[48:51]
    slip = a.ec_slip[bi]
    g = a.ec_geometry
    implicit = a.der_implicit[0] != 0
    inv_vs = inverse_stribeck_speed(g[2])
    for lane in range(W):
        k, kinetic = a.ec_param[bi, lane, 0], a.ec_param[bi, lane, 1]
        excess = max(a.ec_param[bi, lane, 2] - kinetic, 0.0)
        zero(slip)
        if excess > 0.0:       # the slip of the last accepted step (module docstring)
            gather_nodes(a.der_x_base[bi] if implicit else a.der_x[bi], a.ec_slot, W, lane, q)
            gather_nodes(a.der_v_base[bi] if implicit else a.der_v[bi], a.ec_slot, W, lane, u)
            last_step_slip(a, bi, q, u, k, pairs, p, w, tmp, slip)
        gather_nodes(a.der_x[bi], a.ec_slot, W, lane, q)
        gather_nodes(a.der_v[bi], a.ec_slot, W, lane, u)
        zero(F)
        n = candidate_pairs(q, a.ec_edge_dofs, a.ec_edge_nodes, g[3], pairs)
        if n < 0:
            F[0] = math.nan
        for r in range(max(n, 0)):
            w_n = 0.0
            for half in range(2):
                e = pairs[r, half]
                for i in range(6):
                    p[6 * half + i] = q[a.ec_edge_dofs[e, i]]
                    w[6 * half + i] = u[a.ec_edge_dofs[e, i]]
                w_n = max(w_n, max(slip[a.ec_edge_nodes[e, 0]], slip[a.ec_edge_nodes[e, 1]]))
            mu = lagged_coefficient(kinetic, excess, w_n, inv_vs)  # mu_k exactly without excess
            pair_force(p, w, k, g[0], g[1], mu, g[2], f, tmp)
            for half in range(2):
                e = pairs[r, half]
                for i in range(6):
                    F[a.ec_edge_dofs[e, i]] += f[6 * half + i]
        scatter_add_nodes(F, a.ec_slot, W, lane, a.der_force[bi])


@kernel
def last_step_slip(a, bi, q, u, k, pairs, p, w, tmp, slip):
    """slip (K,) <- each node's slip [m/s] in the configuration q, u (3 K,) (the last accepted
    step's end): the candidate pairs' tangential slip speeds and node weights, as
    softmech.kernels.edge_contact.edge_contact_forces writes them at an evaluation, averaged
    per node by its edge_slip_accept."""
    g = a.ec_geometry
    nodes, speed, weight = a.ec_pair_nodes[bi], a.ec_speed[bi], a.ec_weight[bi]
    n = max(candidate_pairs(q, a.ec_edge_dofs, a.ec_edge_nodes, g[3], pairs), 0)
    for r in range(n):
        for half in range(2):
            e = pairs[r, half]
            nodes[r, 2 * half] = a.ec_edge_nodes[e, 0]
            nodes[r, 2 * half + 1] = a.ec_edge_nodes[e, 1]
            for i in range(6):
                p[6 * half + i] = q[a.ec_edge_dofs[e, i]]
                w[6 * half + i] = u[a.ec_edge_dofs[e, i]]
        speed[r] = 0.0
        for j in range(4):
            weight[r, j] = 0.0
        closest_points(p, tmp)
        z = g[1] * (g[0] - tmp[2])
        if z < -40.0 or tmp[2] == 0.0:
            continue
        slip_state(p, w, tmp[0], tmp[1], tmp[2], z, k, g[1], speed, weight, r)
    edge_slip_accept(nodes[:n], speed[:n], weight[:n], slip, a.ec_total[bi])
