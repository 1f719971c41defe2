"""Mid-edge bending of discrete shells on the unified engine's discrete kind: the adapter that runs
the discrete engine's kernel (softmech.kernels.shell_midedge, ref. 004 sec. 3.3.2, eqs. 19-20)
on one world at a time.

A mid-edge shell's nodes are slots of the kind's node arrays (der_x, der_force) and its edges'
angles xi slots of its edge arrays after the discrete rods' edges (der_theta, der_torque:
softmech.der_packing.DerSlots). For each lane the adapter gathers the shells' node positions and
angles into a DOF vector q (node slot i at 3 i .. 3 i + 2, mid-edge edge j at 3 n + j), sets
the edge frames (tau_e, n0_e: softmech.bodies.shell.edge_frames) and calls the kernel -- the
same compiled function as the discrete engine's binding, whose Jacobian it writes into a
scratch array and does not read -- then adds the node forces to der_force and writes the
generalized forces -dE/dxi to der_torque.

The frames are those of the positions at the start of the step, as the discrete engine sets
them (its begin_step): under implicit Euler the base positions of the step being solved
(der_x_base), so that they stay fixed through its Newton iterations; under the explicit schemes
the positions the forces are evaluated at (position Verlet, as the discrete engine's symplectic
Euler, evaluates them at the configuration it has just drifted to). The edges whose angle
sm.FixNodes holds keep the frames of the built shape (a clamp). The forces are therefore a
function of the state: runs restart bit for bit, and nothing else need be stored.
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.analytic_jacobian import wants_jacobian
from softmech.kernels.der_shell import gather_slots, scatter_slots, zero_slots
from softmech.kernels.shell_midedge import midedge_forces

DerMidedgeArgs = namedtuple("DerMidedgeArgs", [
    "der_x", "der_theta", "der_force", "der_torque",   # State, Workspace
    "der_x_base", "der_implicit",   # Workspace: implicit Euler's base positions, its flag
    "me_slot",        # (k,) int64: the mid-edge shells' node slots, each once
    "me_edge",        # (e,) int64: the kind's edge slot of each of their edges (local order)
    "me_tri_nodes",   # (t, 3) int64: each triangle's node slots
    "me_edge_nodes",  # (e, 2) int64: each edge's node slots (from the first to the second)
    "me_edge_tris",   # (e, 2) int64: each edge's triangles (local; -1: none)
    "me_free",        # (e,) int64: 1 where the frame follows the step's start, 0 held
    "me_tau0", "me_n0",   # (e, 3): the frames of the built shape (held edges)
    "me_dofs",        # (t, 12) int64: each triangle's node DOFs (3 slot + c) and angle DOFs
    "me_tri_edges",   # (t, 3) int64: each triangle's edges (local), opposite its nodes
    "me_sign",        # (t, 3) +-1: t_i . tau_e of each triangle edge at rest
    "me_length_over_area",   # (t, 3) [1/m] l_i / A
    "me_K",           # (t, 9) [N m] bending stiffness matrices (softmech.bodies.shell)
    "me_rest",        # (n_blocks, W, t, 3) [1/m] natural curvatures a_bar per lane
    # scratch, one row per block: q, F (3 n + e); face normals (t, 3); frames (e, 3);
    # the kernel's work (160) and its J argument (0: want_jac False, not written)
    "me_q", "me_F", "me_fn", "me_tau", "me_nrm0", "me_work", "me_J",
])
"""Arrays of der_shell_midedge (every mid-edge shell of the kind, one call)."""


@kernel(inline="always")
def _unit(x, y, z):
    s = math.sqrt(x * x + y * y + z * z)
    return x / s, y / s, z / s


@kernel
def midedge_frames(a, bi, W, lane):
    """me_tau, me_nrm0 <- the edge frames of lane `lane`: n0_e the unit sum of the edge's unit
    face normals, tau_e = e_hat x n0_e normalised (softmech.bodies.shell.edge_frames), at the
    step's start positions (module docstring); held edges: me_tau0, me_n0."""
    x = a.der_x_base[bi] if a.der_implicit[0] != 0 else a.der_x[bi]
    fn, tau, n0 = a.me_fn[bi], a.me_tau[bi], a.me_nrm0[bi]
    tri = a.me_tri_nodes
    for t in range(tri.shape[0]):
        i, j, k = tri[t, 0] * W + lane, tri[t, 1] * W + lane, tri[t, 2] * W + lane
        u0, u1, u2 = x[0, j] - x[0, i], x[1, j] - x[1, i], x[2, j] - x[2, i]
        v0, v1, v2 = x[0, k] - x[0, i], x[1, k] - x[1, i], x[2, k] - x[2, i]
        fn[t, 0], fn[t, 1], fn[t, 2] = _unit(u1 * v2 - u2 * v1, u2 * v0 - u0 * v2,
                                             u0 * v1 - u1 * v0)
    for e in range(tau.shape[0]):
        if a.me_free[e] == 0:
            for c in range(3):
                tau[e, c] = a.me_tau0[e, c]
                n0[e, c] = a.me_n0[e, c]
            continue
        t0, t1 = a.me_edge_tris[e, 0], a.me_edge_tris[e, 1]
        m0, m1, m2 = fn[t0, 0], fn[t0, 1], fn[t0, 2]
        if t1 >= 0:
            m0, m1, m2 = m0 + fn[t1, 0], m1 + fn[t1, 1], m2 + fn[t1, 2]
        m0, m1, m2 = _unit(m0, m1, m2)
        p, q = a.me_edge_nodes[e, 0] * W + lane, a.me_edge_nodes[e, 1] * W + lane
        e0, e1, e2 = _unit(x[0, q] - x[0, p], x[1, q] - x[1, p], x[2, q] - x[2, p])
        tau[e, 0], tau[e, 1], tau[e, 2] = _unit(e1 * m2 - e2 * m1, e2 * m0 - e0 * m2,
                                                e0 * m1 - e1 * m0)
        n0[e, 0], n0[e, 1], n0[e, 2] = m0, m1, m2


@kernel(inline="always")
def midedge_gather(a, bi, W, lane):
    """One lane's node positions and angles of the mid-edge shells into me_q (me_F <- 0 on
    them) and their edge frames into me_tau, me_nrm0; returns n, the kind's node slots."""
    q, F = a.me_q[bi], a.me_F[bi]
    n = (q.shape[0] - a.me_edge.shape[0]) // 3
    th = a.der_theta[bi]
    gather_slots(a.der_x[bi], a.me_slot, q, W, lane)
    zero_slots(a.me_slot, F)
    for j in range(a.me_edge.shape[0]):
        q[3 * n + j] = th[0, a.me_edge[j] * W + lane]
        F[3 * n + j] = 0.0
    midedge_frames(a, bi, W, lane)
    return n


@kernel
def der_shell_midedge(a, bi, W, t):
    """der_force += the mid-edge bending forces [N] on the shells' nodes, der_torque <- -dE/dxi
    [N m] of their edges, lane by lane (module docstring; after the shells' stretching, which
    initialises der_force when the kind has no discrete rod)."""
    q, F = a.me_q[bi], a.me_F[bi]
    tq = a.der_torque[bi]
    for lane in range(W):
        n = midedge_gather(a, bi, W, lane)
        midedge_forces(q, a.me_dofs, a.me_tri_edges, a.me_sign, a.me_tau[bi], a.me_nrm0[bi],
                       a.me_length_over_area, a.me_K, a.me_rest[bi, lane], a.me_work[bi],
                       wants_jacobian(a.me_J[bi]), F, a.me_J[bi])
        scatter_slots(F, a.me_slot, a.der_force[bi], W, lane, True)
        for j in range(a.me_edge.shape[0]):
            tq[0, a.me_edge[j] * W + lane] = F[3 * n + j]


@kernel
def der_midedge_jacobian(a, bi, W, t, h, lane, out):
    """out <- dF/dq of lane's mid-edge bending forces (144 entries per triangle, row-major over
    its 12 DOFs me_dofs: 9 node coordinates, 3 edge angles) at its current state, with the
    frames of the step's start held (as in the forces): the discrete engine's analytic
    Jacobian (ref. 004 eqs. 19-20, Appendix A; softmech.kernels.shell_midedge), for the unified
    engine's implicit step (softmech.integrators.analytic). out: (144 t,) [N/m, N, N m]."""
    q, F = a.me_q[bi], a.me_F[bi]
    midedge_gather(a, bi, W, lane)
    for k in range(out.shape[0]):
        out[k] = 0.0
    midedge_forces(q, a.me_dofs, a.me_tri_edges, a.me_sign, a.me_tau[bi], a.me_nrm0[bi],
                   a.me_length_over_area, a.me_K, a.me_rest[bi, lane], a.me_work[bi],
                   wants_jacobian(out), F, out)


@kernel
def der_midedge_without(a, bi, W, t):
    """What der_shell_midedge leaves for the other terms when its forces are left out of a
    finite-difference evaluation (its analytic Jacobian is used): its edges' der_torque <- 0
    (it writes them; its node forces it adds)."""
    tq = a.der_torque[bi]
    for j in range(a.me_edge.shape[0]):
        for lane in range(W):
            tq[0, a.me_edge[j] * W + lane] = 0.0
