"""Ground contact of discrete elastic rods in the unified engine's block layout (sm.GroundContact
on a discrete rod, Scene.compile(engine="unified"); part: softmech.terms.der_ground).

The adapter gathers one world's node positions and velocities of the rod into DOF vectors and
calls the discrete engine's own compiled contact, softmech.kernels.implicit_ground.
ground_contact_forces (MAT-DiSMech ref. 004 eqs. 23, 25-26: IMC's smooth penalty and the
regularized Coulomb friction), then adds its forces to der_force; the same kernel's Jacobian
blocks, dF/dq + dF/dv / h per node, are the unified engine's analytic entries
(der_ground_jacobian, softmech.integrators.analytic).

The static excess (mu_s > mu_k) is lagged on each node's slip speed at the last accepted step
(softmech.kernels.implicit_ground), which in the discrete engine is a state the contact keeps
(the slip at the converged iterate, ground_accept). On the kind it is a function of the state:
the tangential speed |v - (v . n) n| of the node's velocity at the end of the last accepted
step, which under implicit Euler is the base velocity of the step being solved (der_v_base,
softmech.integrators.implicit: the same numbers as the discrete engine's) and under the explicit
schemes the node's velocity when the forces are evaluated (der_v: position Verlet evaluates
them before its kick, at the last step's end velocity). So it needs no history, and a run
restarts bit for bit.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.der_loads import gather_nodes, scatter_add_nodes, zero
from softmech.kernels.implicit_ground import ground_contact_forces, tangential_velocity

DerGroundArgs = namedtuple("DerGroundArgs", [
    "der_x", "der_v", "der_force",    # State, Workspace (n_blocks, 3, n_der_nodes*W)
    "der_v_base", "der_implicit",     # Workspace: implicit Euler's base velocities, its flag
    "dg_slot",       # (n,) int64: the rod's node slots (softmech.der_packing.DerSlots)
    "dg_dofs",       # (n, 3) int64: 3 i + c, node i's coordinates in dg_q, dg_u, dg_F
    "dg_point",      # (3,) [m] a point of the plane
    "dg_normal",     # (3,) unit normal of the plane
    "dg_geometry",   # (3,): contact distance delta [m], sharpness K [1/m], slip sharpness K_f [s/m]
    "dg_param",      # (n_blocks, W, 3) per lane: stiffness k [N/m], kinetic mu_k, static mu_s [-]
    # scratch, one row per block: positions q [m], velocities u [m/s], forces F [N] and the
    # last accepted step's velocities w [m/s] (3 n); its slip speeds (n,) [m/s]; the slip
    # speeds the kernel writes (n,) (not used: the next step reads them from the state);
    # dg_J (0,): the force pass writes no Jacobian blocks
    "dg_q", "dg_u", "dg_F", "dg_w", "dg_slip", "dg_speed", "dg_J",
])
"""Arrays of der_ground_forces (one GroundContact on one discrete rod)."""


@kernel(inline="always")
def ground_lane(a, bi, W, lane, inv_h, J):
    """dg_F <- the ground's forces on lane's nodes (softmech.kernels.implicit_ground), and J +=
    their 3 x 3 blocks dF/dq + dF/dv / h (inv_h = 1/h; 0 and an empty J in the force pass)."""
    q, u, F, w, slip = a.dg_q[bi], a.dg_u[bi], a.dg_F[bi], a.dg_w[bi], a.dg_slip[bi]
    g, n = a.dg_geometry, a.dg_normal
    last = a.der_v_base[bi] if a.der_implicit[0] != 0 else a.der_v[bi]
    gather_nodes(a.der_x[bi], a.dg_slot, W, lane, q)
    gather_nodes(a.der_v[bi], a.dg_slot, W, lane, u)
    zero(F)
    p = a.dg_param[bi, lane]
    # the slip speeds of the last accepted step; without a static excess they are not
    # used (the coefficient is mu_k exactly) and zeroed, so the scratch holds no NaN
    zero(slip)
    if p[2] > p[1]:
        gather_nodes(last, a.dg_slot, W, lane, w)
        for i in range(slip.shape[0]):
            slip[i] = tangential_velocity(w, 3 * i, 3 * i + 1, 3 * i + 2, n[0], n[1],
                                          n[2])[3]
    ground_contact_forces(q, u, a.dg_dofs, a.dg_point, n, p[0], g[0], g[1], p[1],
                          p[2], slip, a.dg_speed[bi], g[2], inv_h, F, J)


@kernel
def der_ground_forces(a, bi, W, t):
    """der_force += the ground's normal force and friction on every node of the rod [N]
    (softmech.kernels.implicit_ground), world by world (its empty dg_J: the forces alone; the
    Jacobian blocks are der_ground_jacobian's)."""
    for lane in range(W):
        ground_lane(a, bi, W, lane, 0.0, a.dg_J[bi])
        scatter_add_nodes(a.dg_F[bi], a.dg_slot, W, lane, a.der_force[bi])


@kernel
def der_ground_jacobian(a, bi, W, t, h, lane, out):
    """out <- dF/dq + dF/dv / h of lane's ground forces (9 entries per node, row-major over its
    3 coordinates: softmech.kernels.implicit_ground, the discrete engine's), for the unified
    engine's implicit step (softmech.integrators.analytic). out: (9 n,) [N/m]."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    ground_lane(a, bi, W, lane, 1.0 / h, out)
