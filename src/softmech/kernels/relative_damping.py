"""Damping of Cosserat rods' motion relative to their rigid motion (softmech.terms.
relative_damping.RelativeDamping), in the block layout of softmech.model.

For each group of damped rods (one rod, or several that move as one body) and lane, the sums
below running over all the group's nodes and elements, with node weights c_k = gamma dl_k
[kg/s] and element weights c_e = gamma_r l^_e [N m s]: the rigid motion (V, Omega) closest to
the group's velocities in the metric of the weights,

    min  sum_k c_k |v_k - V - Omega x r_k|^2 + sum_e c_e |Q_e^T w_e - Omega|^2,
    r_k = x_k - X,  X = sum_k c_k x_k / sum_k c_k,

is V = sum_k c_k v_k / sum_k c_k and (sum_k c_k (|r_k|^2 1 - r_k r_k^T) + sum_e c_e 1) Omega =
sum_k c_k r_k x v_k + sum_e c_e Q_e^T w_e (the normal equations; w_e in the element frame, Q_e
its rows d1, d2, d3). The forces and couples

    f_k = -c_k (v_k - V - Omega x r_k),   m_e = -c_e (w_e - Q_e Omega)

then have no resultant and no moment about X (they are the normal equations' residuals), so a
rigid motion is not damped and the group's momentum and angular momentum are kept, and their
power -sum c_k |v_k - V - Omega x r_k|^2 - sum c_e |w_e - Q_e Omega|^2 is never positive: a
dissipation that acts on the deformation alone, as a material's internal friction does (the
velocity damping relative to the rigid motion of position-based dynamics: Mueller, Heidelberger,
Hennix and Ratcliff, J. Vis. Commun. Image R. 18:109, 2007, sec. 3.5)."""
from collections import namedtuple

from softmech.kernels import kernel

RelativeDampingArgs = namedtuple("RelativeDampingArgs", [
    "x", "v", "Q", "w",                 # state
    "relative_node",                    # c_k = gamma dl [kg/s], (n_blocks, n_nodes*W), 0 off
    "relative_elem",                    # c_e = gamma_r l^ [N m s], (n_blocks, n_elems*W), 0 off
    "relative_rods",                    # (n_rods, 4) int64: first node slot, nodes, first
                                        # element slot, elements of each damped rod (no ghosts)
    "relative_groups",                  # (n_groups + 1,) int64: group g's rods are rows
                                        # relative_groups[g] .. [g + 1] - 1 of relative_rods
    "node_force", "elem_couple",        # outputs (added to)
])


@kernel
def relative_damping(a, bi, W, t):
    """node_force and elem_couple of block bi get each group's forces and couples relative to
    the group's rigid motion (module docstring: the sums run over every node and element of the
    group's rods); a group whose weights are zero in a lane is left alone there."""
    x, v, Q, w = a.x[bi], a.v[bi], a.Q[bi], a.w[bi]
    cn, ce = a.relative_node[bi], a.relative_elem[bi]
    force, couple = a.node_force[bi], a.elem_couple[bi]
    rods, groups = a.relative_rods, a.relative_groups
    for g in range(groups.shape[0] - 1):
        for lane in range(W):
            total = 0.0
            X0 = X1 = X2 = V0 = V1 = V2 = 0.0
            for r in range(groups[g], groups[g + 1]):
                for k in range(rods[r, 0] * W + lane, (rods[r, 0] + rods[r, 1]) * W + lane, W):
                    c = cn[k]
                    total += c
                    X0 += c * x[0, k]
                    X1 += c * x[1, k]
                    X2 += c * x[2, k]
                    V0 += c * v[0, k]
                    V1 += c * v[1, k]
                    V2 += c * v[2, k]
            if total <= 0.0:
                continue
            X0 /= total
            X1 /= total
            X2 /= total
            V0 /= total
            V1 /= total
            V2 /= total
            # the normal equations of Omega: J Omega = L
            j00 = j11 = j22 = j01 = j02 = j12 = 0.0
            L0 = L1 = L2 = 0.0
            for r in range(groups[g], groups[g + 1]):
                for k in range(rods[r, 0] * W + lane, (rods[r, 0] + rods[r, 1]) * W + lane, W):
                    c = cn[k]
                    r0, r1, r2 = x[0, k] - X0, x[1, k] - X1, x[2, k] - X2
                    u0, u1, u2 = v[0, k] - V0, v[1, k] - V1, v[2, k] - V2
                    rr = r0 * r0 + r1 * r1 + r2 * r2
                    j00 += c * (rr - r0 * r0)
                    j11 += c * (rr - r1 * r1)
                    j22 += c * (rr - r2 * r2)
                    j01 -= c * r0 * r1
                    j02 -= c * r0 * r2
                    j12 -= c * r1 * r2
                    L0 += c * (r1 * u2 - r2 * u1)
                    L1 += c * (r2 * u0 - r0 * u2)
                    L2 += c * (r0 * u1 - r1 * u0)
                for e in range(rods[r, 2] * W + lane, (rods[r, 2] + rods[r, 3]) * W + lane, W):
                    c = ce[e]
                    j00 += c
                    j11 += c
                    j22 += c
                    # Q^T w: the element's angular velocity in the lab frame
                    L0 += c * (Q[0, e] * w[0, e] + Q[3, e] * w[1, e] + Q[6, e] * w[2, e])
                    L1 += c * (Q[1, e] * w[0, e] + Q[4, e] * w[1, e] + Q[7, e] * w[2, e])
                    L2 += c * (Q[2, e] * w[0, e] + Q[5, e] * w[1, e] + Q[8, e] * w[2, e])
            # J is symmetric and positive semi-definite; without element weights a straight
            # rod's J is singular about its axis, where its nodes see no rotation: solve on the
            # complement (a tiny multiple of the trace on the diagonal leaves that part zero)
            eps = 1e-12 * (j00 + j11 + j22)
            j00 += eps
            j11 += eps
            j22 += eps
            c00 = j11 * j22 - j12 * j12
            c01 = j02 * j12 - j01 * j22
            c02 = j01 * j12 - j02 * j11
            det = j00 * c00 + j01 * c01 + j02 * c02
            O0 = O1 = O2 = 0.0
            if det > 0.0:
                c11 = j00 * j22 - j02 * j02
                c12 = j01 * j02 - j00 * j12
                c22 = j00 * j11 - j01 * j01
                O0 = (c00 * L0 + c01 * L1 + c02 * L2) / det
                O1 = (c01 * L0 + c11 * L1 + c12 * L2) / det
                O2 = (c02 * L0 + c12 * L1 + c22 * L2) / det
            for r in range(groups[g], groups[g + 1]):
                for k in range(rods[r, 0] * W + lane, (rods[r, 0] + rods[r, 1]) * W + lane, W):
                    c = cn[k]
                    r0, r1, r2 = x[0, k] - X0, x[1, k] - X1, x[2, k] - X2
                    force[0, k] -= c * (v[0, k] - V0 - (O1 * r2 - O2 * r1))
                    force[1, k] -= c * (v[1, k] - V1 - (O2 * r0 - O0 * r2))
                    force[2, k] -= c * (v[2, k] - V2 - (O0 * r1 - O1 * r0))
                for e in range(rods[r, 2] * W + lane, (rods[r, 2] + rods[r, 3]) * W + lane, W):
                    c = ce[e]
                    couple[0, e] -= c * (w[0, e] - (Q[0, e] * O0 + Q[1, e] * O1 + Q[2, e] * O2))
                    couple[1, e] -= c * (w[1, e] - (Q[3, e] * O0 + Q[4, e] * O1 + Q[5, e] * O2))
                    couple[2, e] -= c * (w[2, e] - (Q[6, e] * O0 + Q[7, e] * O1 + Q[8, e] * O2))
