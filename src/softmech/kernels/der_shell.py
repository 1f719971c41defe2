"""Discrete shells (hinge bending) as nodes of the unified engine's discrete kind: the adapter
that runs the discrete engine's DOF-vector kernels of a shell's stretching edges
(softmech.kernels.shell_stretch, ref. 004 sec. 3.1, eqs. 9-10) and bending hinges
(softmech.kernels.shell_hinge, ref. 004 sec. 3.4, eq. 17) on one world at a time, and, for
blocks of several worlds, their lanes forms on every world at once
(softmech.kernels.shell_lanes: der_shell_forces_lanes, der_shell_pressure_lanes).

A shell's nodes are slots of the kind's node arrays (der_x, der_v, der_force:
softmech.der_packing.DerSlots, after the discrete rods' nodes). For each lane the adapter
gathers the shells' node positions into a DOF vector q (node slot i at 3 i .. 3 i + 2: the DOF
tables index it by slot), calls the kernels -- the same compiled functions, with the same
argument types, as the discrete engine's shell bindings, whose Jacobian blocks it writes into
a scratch array and does not read -- and adds the forces to der_force.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.analytic_jacobian import wants_jacobian
from softmech.kernels.der_loads import zero
from softmech.kernels.shell_hinge import hinge_forces
from softmech.kernels.shell_lanes import (hinge_forces_lanes, pressure_forces_lanes,
                                         stretch_forces_lanes)
from softmech.kernels.shell_loads import drag_forces, pressure_forces
from softmech.kernels.shell_stretch import stretch_forces

DerShellArgs = namedtuple("DerShellArgs", [
    "der_x", "der_force",       # State, Workspace
    "sh_slot",        # (k,) int64: the shells' node slots, each once
    "sh_edge_dofs",   # (e, 6) int64: the x, y, z DOFs (3 slot + c) of each edge's two nodes
    "sh_rest_len",    # (e,) [m] rest lengths
    "sh_stretch_k",   # (e,) [J] stretching stiffnesses (softmech.bodies.shell)
    "sh_hinge_dofs",  # (h, 12) int64: the DOFs of each hinge's four nodes
    "sh_hinge_k",     # (h,) [J] hinge stiffnesses
    "sh_rest_angle",  # (n_blocks, W, h) [rad] natural hinge angles per lane
    "sh_first",       # (1,) int64: 1 when no discrete rod initialises der_force (this writes)
    "sh_q",           # (n_blocks, 3 n) scratch: one world's positions (n: the kind's node slots)
    "sh_F",           # (n_blocks, 3 n) scratch: its forces
    "sh_Js",          # (n_blocks, 0): the stretching kernel's J argument, unused: the kernels
    "sh_Jh",          # (n_blocks, 0):   run with want_jac False (the Jacobian is probed)
    "sh_Fl",          # (n_blocks, 3 n W) scratch: the lanes' forces (blocks of W > 1 worlds)
    "sh_s",           # (n_blocks, HINGE_ROWS LANES) scratch of the lanes kernels
])
"""Arrays of der_shell_forces."""


@kernel(inline="always")
def gather_slots(src, slot, dst, W, lane):
    """dst[3 s + c] <- src[c, s W + lane] for the node slots s in `slot`: one lane's rows of a
    block field (der_x, der_v) into a flat DOF vector."""
    for k in range(slot.shape[0]):
        s = slot[k]
        for c in range(3):
            dst[3 * s + c] = src[c, s * W + lane]


@kernel(inline="always")
def zero_slots(slot, F):
    """F[3 s + c] <- 0 for the node slots s in `slot`."""
    for k in range(slot.shape[0]):
        for c in range(3):
            F[3 * slot[k] + c] = 0.0


@kernel(inline="always")
def scatter_slots(F, slot, f, W, lane, add):
    """f[c, s W + lane] <- (or += with add) F[3 s + c] for the node slots s in `slot`."""
    for k in range(slot.shape[0]):
        s = slot[k]
        for c in range(3):
            if add:
                f[c, s * W + lane] += F[3 * s + c]
            else:
                f[c, s * W + lane] = F[3 * s + c]


@kernel(inline="always")
def shell_elastic_lane(a, bi, W, lane, Js, Jh):
    """sh_F <- lane's stretching and hinge bending forces [N] on the shells' node slots, and
    their Jacobian blocks added to Js (36 per edge) and Jh (144 per hinge) where those have
    room (the force pass's scratches are empty: softmech.kernels.analytic_jacobian.
    wants_jacobian)."""
    q, F = a.sh_q[bi], a.sh_F[bi]
    gather_slots(a.der_x[bi], a.sh_slot, q, W, lane)
    zero_slots(a.sh_slot, F)
    stretch_forces(q, a.sh_edge_dofs, a.sh_rest_len, a.sh_stretch_k, wants_jacobian(Js), F, Js)
    hinge_forces(q, a.sh_hinge_dofs, a.sh_rest_angle[bi, lane], a.sh_hinge_k,
                 wants_jacobian(Jh), F, Jh)


@kernel
def der_shell_forces(a, bi, W, t):
    """der_force <- (or +=, after the discrete rods' elasticity) the stretching and hinge bending
    forces [N] of every shell node (module docstring), lane by lane: blocks of one world
    (several: der_shell_forces_lanes)."""
    add = a.sh_first[0] != 1
    for lane in range(W):
        shell_elastic_lane(a, bi, W, lane, a.sh_Js[bi], a.sh_Jh[bi])
        scatter_slots(a.sh_F[bi], a.sh_slot, a.der_force[bi], W, lane, add)


@kernel
def der_shell_forces_lanes(a, bi, W, t):
    """der_shell_forces for blocks of several worlds, by the lanes kernels
    (softmech.kernels.shell_lanes: each lane's forces bit for bit the per-world kernels'; the
    1,032-triangle plate's 16 worlds spent 25 % of their time in the per-world kernels, lane
    after lane, 2026-12-05). A separate kernel, chosen when the scene is compiled
    (softmech.terms.der_shell), so that a single world does not compile the lanes kernels."""
    x = a.der_x[bi].reshape(a.der_x[bi].size)
    F = a.sh_Fl[bi]
    zero(F)
    stretch_forces_lanes(x, F, a.sh_edge_dofs, a.sh_rest_len, a.sh_stretch_k, W, a.sh_s[bi])
    hinge_forces_lanes(x, F, a.sh_hinge_dofs, a.sh_rest_angle[bi], a.sh_hinge_k, W,
                       a.sh_s[bi])
    put_slots_lanes(F, a.sh_slot, a.der_force[bi], W, a.sh_first[0] != 1)


@kernel(inline="always")
def put_slots_lanes(F, slot, f, W, add):
    """f[c, s W + w] <- (or += with add) F[c n W + s W + w] for the node slots s in `slot` and
    every lane w: a block of lanes' forces F, a flat block field, into the kind's f (3, n W)
    (scatter_slots' form for every lane at once, the same operations per lane)."""
    flat = f.reshape(f.size)
    nW = flat.shape[0] // 3
    for k in range(slot.shape[0]):
        o = slot[k] * W
        for c in range(3):
            src = F[c * nW + o:c * nW + o + W]
            dst = flat[c * nW + o:c * nW + o + W]
            for w in range(W):
                dst[w] = dst[w] + src[w] if add else src[w]


@kernel
def der_shell_jacobian(a, bi, W, t, h, lane, out):
    """out <- dF/dq of lane's stretching (36 entries per edge, first) and hinge bending (144 per
    hinge) forces at its current positions, each element's entries row-major over its DOFs
    (sh_edge_dofs, sh_hinge_dofs): the discrete engine's analytic Jacobians (ref. 004 eqs.
    9-10 and 17; softmech.kernels.shell_stretch, shell_hinge), for the unified engine's
    implicit step (softmech.integrators.analytic). out: (36 e + 144 h,) [N/m]."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    n_stretch = 36 * a.sh_edge_dofs.shape[0]
    # (the forces are computed alongside, into sh_F: not read)
    shell_elastic_lane(a, bi, W, lane, out[:n_stretch], out[n_stretch:])


@kernel
def der_shell_without(a, bi, W, t):
    """What der_shell_forces leaves for the other terms when its forces are left out of a
    finite-difference evaluation (its analytic Jacobian is used): the shells' der_force <- 0
    when no discrete rod's elasticity initialises it, nothing otherwise (that one's own
    `without` clears the accumulators: softmech.kernels.der_kind.der_clear_forces)."""
    if a.sh_first[0] != 1:
        return
    f = a.der_force[bi]
    for k in range(a.sh_slot.shape[0]):
        s = a.sh_slot[k]
        for lane in range(W):
            for c in range(3):
                f[c, s * W + lane] = 0.0


DerShellLoadArgs = namedtuple("DerShellLoadArgs", [
    "der_x", "der_v", "der_force",      # State, Workspace
    "sl_slot",       # (k,) int64: the shell's node slots, each once
    "sl_tri_dofs",   # (t, 9) int64: the x, y, z DOFs (3 slot + c) of each triangle's nodes
    "sl_rest_area",  # (t,) [m^2] rest areas (drag)
    "sl_value",      # (n_blocks, W) per lane: the pressure [Pa] or the drag's 1/2 rho C_d [kg/m^3]
    "sl_q", "sl_v", "sl_F",   # (n_blocks, 3 n) scratch: one world's positions, velocities, forces
    "sl_J",          # (n_blocks, 0): the kernels' J argument, unused (want_jac False)
    "sl_Fl",         # (n_blocks, 3 n W) scratch: the lanes' forces (blocks of W > 1 worlds)
    "sl_s",          # (n_blocks, HINGE_ROWS LANES) scratch of the lanes kernel
])
"""Arrays of der_shell_pressure and der_shell_drag (one shell's sm.ShellPressure or
sm.ShellDrag: softmech.kernels.shell_loads, run per lane as der_shell_forces runs the
elasticity)."""


@kernel(inline="always")
def shell_lanes_gather(a, bi, W, lane):
    """One lane's positions and velocities of the shell's nodes into sl_q, sl_v; sl_F <- 0."""
    gather_slots(a.der_x[bi], a.sl_slot, a.sl_q[bi], W, lane)
    gather_slots(a.der_v[bi], a.sl_slot, a.sl_v[bi], W, lane)
    zero_slots(a.sl_slot, a.sl_F[bi])


@kernel
def der_shell_pressure(a, bi, W, t):
    """der_force += a follower pressure p A n / 3 on each node of each triangle, per lane
    (softmech.kernels.shell_loads.pressure_forces): blocks of one world (several:
    der_shell_pressure_lanes)."""
    for lane in range(W):
        shell_lanes_gather(a, bi, W, lane)
        pressure_forces(a.sl_q[bi], a.sl_tri_dofs, a.sl_value[bi, lane],
                        wants_jacobian(a.sl_J[bi]), a.sl_F[bi],
                        a.sl_J[bi])
        scatter_slots(a.sl_F[bi], a.sl_slot, a.der_force[bi], W, lane, True)


@kernel
def der_shell_pressure_lanes(a, bi, W, t):
    """der_shell_pressure for blocks of several worlds, by the lanes kernel
    (softmech.kernels.shell_lanes.pressure_forces_lanes, each lane's forces bit for bit the
    per-world kernel's; chosen as der_shell_forces_lanes is)."""
    F = a.sl_Fl[bi]
    zero(F)
    pressure_forces_lanes(a.der_x[bi].reshape(a.der_x[bi].size), F, a.sl_tri_dofs,
                          a.sl_value[bi], W, a.sl_s[bi])
    put_slots_lanes(F, a.sl_slot, a.der_force[bi], W, True)


@kernel
def der_shell_pressure_jacobian(a, bi, W, t, h, lane, out):
    """out <- dF/dx of lane's follower pressure (81 entries per triangle, row-major over its 9
    node DOFs sl_tri_dofs: p/6 [w_k]x, softmech.kernels.shell_loads.pressure_forces) at its
    current positions, for the unified engine's implicit step
    (softmech.integrators.analytic). out: (81 t,) [N/m]."""
    shell_lanes_gather(a, bi, W, lane)
    for k in range(out.shape[0]):
        out[k] = 0.0
    pressure_forces(a.sl_q[bi], a.sl_tri_dofs, a.sl_value[bi, lane], wants_jacobian(out),
                    a.sl_F[bi], out)


@kernel
def der_shell_drag_jacobian(a, bi, W, t, h, lane, out):
    """out <- dF/dx + dF/dv / h of lane's drag (81 entries per triangle, row-major over its 9
    node DOFs sl_tri_dofs: softmech.kernels.shell_loads.drag_forces, ref. 004 Appendix B) at
    its current positions and velocities, for the unified engine's implicit step
    (softmech.integrators.analytic). out: (81 t,) [N/m]."""
    shell_lanes_gather(a, bi, W, lane)
    for k in range(out.shape[0]):
        out[k] = 0.0
    drag_forces(a.sl_q[bi], a.sl_v[bi], 1.0 / h, a.sl_tri_dofs, a.sl_rest_area,
                a.sl_value[bi, lane], wants_jacobian(out), a.sl_F[bi], out)


@kernel
def der_shell_drag(a, bi, W, t):
    """der_force += DisMech's aerodynamic drag -c A/3 (v.n)|v.n| n on each node of each
    triangle, per lane (softmech.kernels.shell_loads.drag_forces; its Jacobian's 1/h: 0, the
    blocks are not read)."""
    for lane in range(W):
        shell_lanes_gather(a, bi, W, lane)
        drag_forces(a.sl_q[bi], a.sl_v[bi], 0.0, a.sl_tri_dofs, a.sl_rest_area,
                    a.sl_value[bi, lane], wants_jacobian(a.sl_J[bi]), a.sl_F[bi], a.sl_J[bi])
        scatter_slots(a.sl_F[bi], a.sl_slot, a.der_force[bi], W, lane, True)
