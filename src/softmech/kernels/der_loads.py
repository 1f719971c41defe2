"""Node loads of discrete elastic rods in the unified engine's block layout (softmech.der_packing):
the adapter that runs the discrete engine's own compiled bindings -- viscous damping
(softmech.kernels.implicit_bindings.viscous_binding, ref. 004 eq. 27), constant node forces
(node_loads_binding) and contractile cells (softmech.kernels.contractile.contractile_cell_der)
-- and its slender-body drag (softmech.kernels.implicit_drag) on one world at a time, without their Jacobians (h = inf: the unified engine's Newton takes a
finite-difference Jacobian of the force pass).

A term's nodes are numbered k = 0..K-1 (`node_slot[k]`: the node slot in der_x / der_v,
softmech.der_packing.DerSlots), so each binding sees a compact DOF vector of 3 K entries (its
`dofs` table is (3 k, 3 k + 1, 3 k + 2)): for each lane the adapter gathers those nodes'
velocities into it, zeroes the force vector, calls the binding with the lane's own row of its
per-world table (the lane index b = bi W + lane: the tables are per lane,
softmech.der_packing.per_lane_rows) and adds the forces to der_force.
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.contractile import contractile_cell_der, twitch
from softmech.kernels.implicit_bindings import (NodeLoadsArgs, ViscousArgs, node_loads_binding,
                                                viscous_binding)
from softmech.kernels.implicit_drag import slender_drag_forces


@kernel(inline="always")
def gather_nodes(vel, node_slot, W, lane, v):
    """v[3 k + c] <- vel[c, node_slot[k] W + lane]: K nodes of one lane of a block array
    (3, n W) into a compact DOF vector (3 K,)."""
    for k in range(node_slot.shape[0]):
        for c in range(3):
            v[3 * k + c] = vel[c, node_slot[k] * W + lane]


@kernel(inline="always")
def scatter_add_nodes(F, node_slot, W, lane, f):
    """f[c, node_slot[k] W + lane] += F[3 k + c]: the inverse of gather_nodes, accumulated."""
    for k in range(node_slot.shape[0]):
        for c in range(3):
            f[c, node_slot[k] * W + lane] += F[3 * k + c]


@kernel(inline="always")
def zero(F):
    for d in range(F.shape[0]):
        F[d] = 0.0


DerDampingArgs = namedtuple("DerDampingArgs", [
    "der_v",          # State: node velocities [m/s] (n_blocks, 3, n W)
    "der_force",      # Workspace: node forces [N] (n_blocks, 3, n W), accumulated into
    "node_slot",      # (K,) int64: the damped rod's node slots
    "dofs",           # (K, 3) int64: (3 k, 3 k + 1, 3 k + 2)
    "lengths",        # (K,) [m] Voronoi length dL_i of each node
    "viscosity",      # (n_blocks W,) [kg/(m s)] eta of each lane's world
    "v", "F",         # scratch (n_blocks, 3 K): compact velocities [m/s] and forces [N]
    "J",              # (0,): no Jacobian is written
])
"""Arrays of der_damping (one sm.LinearDamping on a discrete rod)."""


@kernel(inline="always")
def der_damping(a, bi, W, t):
    """der_force += -eta dL_i v_i on every node of the damped rod (ref. 004 eq. 27)."""
    binding = ViscousArgs(a.dofs, a.lengths, a.viscosity)
    v, F = a.v[bi], a.F[bi]
    for lane in range(W):
        gather_nodes(a.der_v[bi], a.node_slot, W, lane, v)
        zero(F)
        viscous_binding(binding, bi * W + lane, v, v, t, math.inf, F, a.J)
        scatter_add_nodes(F, a.node_slot, W, lane, a.der_force[bi])


DerNodeForceArgs = namedtuple("DerNodeForceArgs", [
    "der_force",      # Workspace: node forces [N] (n_blocks, 3, n W), accumulated into
    "node_slot",      # (1,) int64: the loaded node's slot
    "dofs",           # (1, 3) int64: (0, 1, 2)
    "weights",        # (1,): 1
    "vector",         # (n_blocks W, 3) [N] the force of each lane's world
    "scale",          # (0,): none
    "F",              # scratch (n_blocks, 3) [N]
    "J",              # (0,): no Jacobian is written
])
"""Arrays of der_node_force (one sm.NodeForce on a discrete rod)."""


@kernel(inline="always")
def der_node_force(a, bi, W, t):
    """der_force += the constant force on one node."""
    binding = NodeLoadsArgs(a.dofs, a.weights, a.vector, a.scale)
    F = a.F[bi]
    for lane in range(W):
        zero(F)
        node_loads_binding(binding, bi * W + lane, F, F, t, math.inf, F, a.J)
        scatter_add_nodes(F, a.node_slot, W, lane, a.der_force[bi])


DerSlenderDragArgs = namedtuple("DerSlenderDragArgs", [
    "der_x", "der_v", "der_w",      # State: node positions [m], velocities [m/s], twist rates [rad/s]
    "der_force", "der_torque",      # Workspace: node forces [N], twist moments [N m], accumulated
    "node_slot",      # (K,) int64: the rod's node slots
    "edge_slot",      # (m,) int64: the rod's edge slots
    "edge_dofs",      # (m, 6) int64: each edge's two nodes in the compact DOF vector
    "twist_dofs",     # (m,) int64: 3 K + j
    "rest_len",       # (m,) [m]
    "c_t", "c_n",     # (n_blocks W, m) [N s/m^2] each lane's world's coefficients per edge
    "spin",           # (n_blocks W, m) [N m s] 4 pi mu r^2 l^ per edge
    "q", "v", "F",    # scratch (n_blocks, 3 K + m): compact positions, velocities, forces
    "J",              # scratch (n_blocks, 37 m): the kernel's Jacobian entries (not used)
])
"""Arrays of der_slender_drag (one sm.SlenderBodyDrag on a discrete rod)."""


@kernel(inline="always")
def der_slender_drag(a, bi, W, t):
    """der_force, der_torque += the consistent nodal slender-body drag of every edge and the spin
    drag on its twist (softmech.kernels.implicit_drag.slender_drag_forces, the discrete engine's
    kernel, called per lane with 1/h = 0). The kernel also adds the tangent's Jacobian entries
    (independent of 1/h) into J: zeroed first, so a scratch that is never read stays bounded."""
    q, v, F, J = a.q[bi], a.v[bi], a.F[bi], a.J[bi]
    K = a.node_slot.shape[0]
    for lane in range(W):
        gather_nodes(a.der_x[bi], a.node_slot, W, lane, q)
        gather_nodes(a.der_v[bi], a.node_slot, W, lane, v)
        for j in range(a.edge_slot.shape[0]):
            v[3 * K + j] = a.der_w[bi][0, a.edge_slot[j] * W + lane]
        zero(F)
        zero(J)
        b = bi * W + lane
        slender_drag_forces(q, v, a.edge_dofs, a.twist_dofs, a.rest_len, a.c_t[b], a.c_n[b],
                            a.spin[b], 0.0, F, J)
        scatter_add_nodes(F, a.node_slot, W, lane, a.der_force[bi])
        for j in range(a.edge_slot.shape[0]):
            a.der_torque[bi][0, a.edge_slot[j] * W + lane] += F[3 * K + j]


DerContractileArgs = namedtuple("DerContractileArgs", [
    "der_x",          # State: node positions [m] (n_blocks, 3, n W)
    "der_force",      # Workspace: node forces [N] (n_blocks, 3, n W), accumulated into
    "cell_slot",      # (n_blocks W, 4) int64: each lane's node slots of the edges holding the
                      # cell's two ends, (x_0, x_1, x_2, x_3) of contractile_cell_der
    "cell_frac",      # (n_blocks W, 2): the ends' fractions along those edges
    "cell_axis",      # (n_blocks W, 2, 3): the bending plane's unit normal at each end
    "cell_param",     # (n_blocks W, 8): h_a, h_b [m], l_0 [m] (0: no force-length curve),
                      # k [N/m], l_n [m], F [N], f [Hz], phase [rad]
    "cell_curve",     # (2 + C,) the force-length curve (softmech.kernels.contractile.force_length)
    "dofs",           # (12,) int64: 0..11, the compact positions' DOFs
    "q", "F",         # scratch (n_blocks, 12): compact positions [m] and forces [N]
    "J", "JD", "H",   # scratch (n_blocks, 144), (n_blocks, 3, 12), (n_blocks, 12, 12): the
                      # kernel's Jacobian and its parts (not used)
])
"""Arrays of der_contractile_cell (one sm.ContractileCell on a discrete rod)."""


@kernel(inline="always")
def der_contractile_cell(a, bi, W, t):
    """der_force += the pull of the cell on the four nodes of the edges holding its ends
    (softmech.kernels.contractile.contractile_cell_der, the discrete engine's kernel, on each
    lane's own attachment: per-world start and length give per-world edges)."""
    q, F, J = a.q[bi], a.F[bi], a.J[bi]
    for lane in range(W):
        b = bi * W + lane
        slot, p = a.cell_slot[b], a.cell_param[b]
        gather_nodes(a.der_x[bi], slot, W, lane, q)
        zero(F)
        zero(J)
        contractile_cell_der(q, a.dofs, a.cell_frac[b, 0], a.cell_frac[b, 1], a.cell_axis[b, 0],
                             a.cell_axis[b, 1], p[0], p[1], p[2], a.cell_curve, p[3], p[4],
                             twitch(p[5], p[6], p[7], t), F, J, a.JD[bi], a.H[bi])
        scatter_add_nodes(F, slot, W, lane, a.der_force[bi])
