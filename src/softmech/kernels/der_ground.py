"""Ground contact of discrete elastic rods in the unified engine's block layout (sm.GroundContact
on a discrete rod, Scene.compile(engine="unified"); part: softmech.terms.der_ground).

The adapter gathers one world's node positions and velocities of the rod into DOF vectors and
calls the discrete engine's own compiled contact, softmech.kernels.implicit_ground.
ground_contact_forces (MAT-DiSMech ref. 004 eqs. 23, 25-26: IMC's smooth penalty and the
regularized Coulomb friction), then adds its forces to der_force. The unified engine's Newton
differentiates the residual by finite differences, so the Jacobian blocks that the kernel also
writes go to a scratch that nothing reads. The kernel's static excess (mu_s > mu_k, lagged on
each node's slip at the last accepted step) is not used here: the part refuses it
(softmech.terms.der_ground), so the coefficient is mu_k exactly (lagged_coefficient with
excess 0) and the lagged slip speeds are zeros that are never written.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.der_loads import gather_nodes, scatter_add_nodes, zero
from softmech.kernels.implicit_ground import ground_contact_forces

DerGroundArgs = namedtuple("DerGroundArgs", [
    "der_x", "der_v", "der_force",    # State, Workspace (n_blocks, 3, n_der_nodes*W)
    "dg_slot",       # (n,) int64: the rod's node slots (softmech.der_packing.DerSlots)
    "dg_dofs",       # (n, 3) int64: 3 i + c, node i's coordinates in dg_q, dg_u, dg_F
    "dg_point",      # (3,) [m] a point of the plane
    "dg_normal",     # (3,) unit normal of the plane
    "dg_geometry",   # (3,): contact distance delta [m], sharpness K [1/m], slip sharpness K_f [s/m]
    "dg_param",      # (n_blocks, W, 3) per lane: stiffness k [N/m], kinetic mu_k, static mu_s [-]
    "dg_slip",       # (n,) zeros: slip speeds of the last accepted step (no static excess)
    # scratch, one row per block: positions q [m], velocities u [m/s], forces F [N] (3 n);
    # slip speeds (n,) (written only with a static excess: never); Jacobian blocks (9 n,)
    "dg_q", "dg_u", "dg_F", "dg_speed", "dg_J",
])
"""Arrays of der_ground_forces (one GroundContact on one discrete rod)."""


@kernel
def der_ground_forces(a, bi, W, t):
    """der_force += the ground's normal force and friction on every node of the rod [N]
    (softmech.kernels.implicit_ground), world by world; inv_h 0: the Jacobian is not used."""
    q = a.dg_q[bi]
    u = a.dg_u[bi]
    F = a.dg_F[bi]
    g = a.dg_geometry
    for lane in range(W):
        gather_nodes(a.der_x[bi], a.dg_slot, W, lane, q)
        gather_nodes(a.der_v[bi], a.dg_slot, W, lane, u)
        zero(F)
        p = a.dg_param[bi, lane]
        ground_contact_forces(q, u, a.dg_dofs, a.dg_point, a.dg_normal, p[0], g[0], g[1], p[1],
                              p[2], a.dg_slip, a.dg_speed[bi], g[2], 0.0, F, a.dg_J[bi])
        scatter_add_nodes(F, a.dg_slot, W, lane, a.der_force[bi])
