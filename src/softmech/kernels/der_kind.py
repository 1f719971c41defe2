"""Discrete elastic rods in the explicit engine's block layout: the adapter that runs the DOF-vector
kernels of the discrete engine (softmech.kernels.der_stretch, der_bend_twist, der_frames) on
one world at a time, and the nodes held by sm.FixNodes.

For each lane (world) of a block the adapter gathers the discrete rods' node positions and twist
angles into one DOF vector q (softmech.der_packing: 3 per node, then one per edge) and the
stored reference frames into (m, 3) tables, calls the existing kernels on them -- the same
compiled functions, with the same argument types, as the discrete engine's bindings
(softmech.kernels.implicit_bindings), without their Jacobians -- and scatters the forces
back. The reference frames follow the motion by time-parallel transport (Bergou et al. 2010
sec. 4.1; ref. 004 sec. 3.2): `der_commit_frames`, a positions-stage kernel after every drift,
transports each edge's a1 from the tangent it was last transported to onto the current one and
advances the reference twists continuously (softmech.kernels.der_frames.der_frames), and the
force kernel transports the stored frames to the current positions itself, so that the forces
are a function of the state alone (a diagnostic, or a state saved at a block's end, where the
last drift's commit has not run yet, gives the same forces as the step does).
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.analytic_jacobian import wants_jacobian
from softmech.kernels.der_bend_twist import der_bend_twist_forces
from softmech.kernels.der_frames import der_frames
from softmech.kernels.der_kind_lanes import clear_forces, gather_lane_q, scatter_lane_forces
from softmech.kernels.der_stretch import der_stretch_forces
from softmech.kernels.implicit_bindings import table_write

DerElasticArgs = namedtuple("DerElasticArgs", [
    "der_x", "der_theta", "der_a1", "der_tangent", "der_ref",   # State
    "der_force", "der_torque",                                  # Workspace
    "edge_dofs",      # (m, 6) int64: DOFs of each edge's two nodes in q (softmech.der_packing)
    "spring_dofs",    # (s, 11) int64
    "spring_edges",   # (s, 2) int64: edges e, f of each spring
    "spring_signs",   # (s, 3) float: s_e, s_f, c_e (softmech.kernels.der_frames)
    "rest_len",       # (m,) [m]
    "inv_vor",        # (s,) [1/m] 1 / Voronoi length
    "EA",             # (n_blocks, W, m) [N] per lane
    "EI",             # (n_blocks, W, s, 2) [N m^2]
    "GJ",             # (n_blocks, W, s) [N m^2]
    "kbar",           # (n_blocks, W, s, 2) [-] discrete natural curvatures kappa^ l_i
    "tbar",           # (n_blocks, W, s) [rad] discrete natural twists tau^ l_i
    # scratch, one row per block: q, F (n_blocks, n_dof); current and stored frames
    # (n_blocks, m, 3) and reference twists (n_blocks, s); der_bend_twist_forces' g, H, blk;
    # J (0,): no Jacobian is written
    "q", "F", "t", "a1", "a2", "ref", "t_old", "a1_old", "ref_old", "g", "H", "blk", "J",
    "lanes",  # blocks of W > 1 worlds: the lanes kernels' scratch (der_kind_lanes); else (0,)
])
"""Arrays of der_elastic_forces and der_commit_frames."""


@kernel
def der_lane_frames(a, bi, W, lane):
    """Gather world `lane` of block bi into a.q[bi] and its stored frames into the *_old
    scratch, and transport them to q: a.t, a.a1, a.a2 (m, 3), a.ref (s,) (der_frames)."""
    gather_lane_q(a, bi, W, lane)
    q = a.q[bi]
    a1 = a.der_a1[bi]
    tg = a.der_tangent[bi]
    a1_old = a.a1_old[bi]
    t_old = a.t_old[bi]
    for j in range(a1_old.shape[0]):     # the rods' edges (mid-edge shells' have no frames)
        for c in range(3):
            a1_old[j, c] = a1[c, j * W + lane]
            t_old[j, c] = tg[c, j * W + lane]
    ref = a.der_ref[bi]
    ref_old = a.ref_old[bi]
    for s in range(ref_old.shape[0]):
        ref_old[s] = ref[0, s * W + lane]
    der_frames(q, a.edge_dofs, a1_old, t_old, ref_old, a.spring_edges, a.spring_signs,
               a.t[bi], a.a1[bi], a.a2[bi], a.ref[bi])


@kernel
def der_elastic_forces(a, bi, W, t):
    """der_force <- stretching and bending-twisting forces [N] (ref. 004 eqs. 9-16), der_torque
    <- -dE/dtheta [N m] of every edge: the first force kernel of the discrete rods (it
    initialises their accumulators, as the rods' elasticity does theirs). Blocks of W > 1
    worlds take der_kind_lanes.der_elastic_forces_lanes instead (the same numbers)."""
    jac = wants_jacobian(a.J)       # (False: the scratch is empty)
    for lane in range(W):
        der_lane_frames(a, bi, W, lane)
        q = a.q[bi]
        F = a.F[bi]
        for d in range(F.shape[0]):
            F[d] = 0.0
        der_stretch_forces(q, a.edge_dofs, a.rest_len, a.EA[bi, lane], jac, F, a.J)
        der_bend_twist_forces(q, a.spring_dofs, a.spring_edges, a.spring_signs, a.a1[bi],
                              a.a2[bi], a.ref[bi], a.kbar[bi, lane], a.tbar[bi, lane], a.inv_vor,
                              a.EI[bi, lane], a.GJ[bi, lane], jac, a.g[bi], a.H[bi],
                              a.blk[bi], F, a.J)
        scatter_lane_forces(a, bi, W, lane)


@kernel
def der_elastic_jacobian(a, bi, W, t, h, lane, out):
    """out <- dF/dq of lane's stretching (36 entries per edge, first) and bending-twisting (121
    per spring) forces at its current state, each element's entries row-major over its DOFs
    (edge_dofs, spring_dofs): the discrete engine's analytic Jacobian (ref. 004 eqs. 9-16;
    softmech.kernels.der_stretch, der_bend_twist), for the unified engine's implicit step
    (softmech.integrators.analytic). out: (36 m + 121 s,) [N/m, N, N m]."""
    der_lane_frames(a, bi, W, lane)
    q = a.q[bi]
    F = a.F[bi]
    for d in range(F.shape[0]):
        F[d] = 0.0
    for k in range(out.shape[0]):
        out[k] = 0.0
    n_stretch = 36 * a.edge_dofs.shape[0]
    jac = wants_jacobian(out)
    der_stretch_forces(q, a.edge_dofs, a.rest_len, a.EA[bi, lane], jac, F, out[:n_stretch])
    der_bend_twist_forces(q, a.spring_dofs, a.spring_edges, a.spring_signs, a.a1[bi], a.a2[bi],
                          a.ref[bi], a.kbar[bi, lane], a.tbar[bi, lane], a.inv_vor,
                          a.EI[bi, lane], a.GJ[bi, lane], jac, a.g[bi], a.H[bi], a.blk[bi],
                          F, out[n_stretch:])


@kernel
def der_clear_forces(a, bi, W, t):
    """der_force, der_torque <- 0: what der_elastic_forces leaves for the other terms when its
    forces are left out of a finite-difference evaluation (its analytic Jacobian is used)."""
    clear_forces(a, bi)


@kernel
def der_commit_frames(a, bi, W, t):
    """Store the frames transported to the current positions (time-parallel transport, module
    docstring): der_a1, der_tangent, der_ref. A positions-stage history update
    (softmech.integrators.driver.Call.history). Blocks of W > 1 worlds take
    der_kind_lanes.der_commit_frames_lanes instead."""
    a1 = a.der_a1[bi]
    tg = a.der_tangent[bi]
    ref = a.der_ref[bi]
    for lane in range(W):
        der_lane_frames(a, bi, W, lane)
        t_new = a.t[bi]
        a1_new = a.a1[bi]
        for j in range(t_new.shape[0]):
            for c in range(3):
                a1[c, j * W + lane] = a1_new[j, c]
                tg[c, j * W + lane] = t_new[j, c]
        ref_new = a.ref[bi]
        for s in range(ref_new.shape[0]):
            ref[0, s * W + lane] = ref_new[s]


DerScheduleArgs = namedtuple("DerScheduleArgs", [
    "times",     # (k,) [s] increasing: the schedule's table (softmech.bodies.schedules)
    "values",    # (1, 1, k, n) a table's values, flattened (natural curvature: kappa1, kappa2
                 # per spring), or (n_blocks, W, k, n) one row per lane: a function's samples
                 # (softmech.function_schedules)
    "scale",     # (n,) [m]: the Voronoi length of each value's spring
    "start",     # (1,) int64: where the rod's first value sits in target's last axis
    "target",    # (n_blocks, W, L): a view of der_elastic_forces' kbar (L = 2 s) or tbar (L = s)
    "row",       # (n_blocks, n) scratch: the table's value at t
])
"""Arrays of der_rest_schedule (one rod's natural curvature or twist given as a table or as a
function of time sampled into one)."""


@kernel
def der_rest_schedule(a, bi, W, t):
    """Every lane's discrete natural curvature kappa^ l_i (or twist tau^ l_i) of one rod <- its
    table's value at t [s] (the end of the step solved for, implicit Euler) times the Voronoi
    length, as the discrete engine's der_natural_binding writes it (ref. 004 sec. 6.1,
    actuation by natural curvature). A forces-stage kernel before der_elastic_forces. A table
    shared by every lane is interpolated once."""
    row = a.row[bi]
    target = a.target[bi]
    s0 = a.start[0]
    shared = a.values.shape[0] == 1 and a.values.shape[1] == 1   # (one lane: either way)
    for lane in range(W):
        if lane == 0 or not shared:
            table_write(a.times, a.values[0 if shared else bi, 0 if shared else lane], t, row)
        for i in range(row.shape[0]):
            target[lane, s0 + i] = row[i] * a.scale[i]


DerWaveArgs = namedtuple("DerWaveArgs", [
    "target",    # (n_blocks, W, k): a view of the packed table the kind's kernel reads
                 # (softmech.der_packing.PackedParam)
    "start",     # (1,) int64: where the parameter's first entry sits in target's last axis
    "scale",     # (n,): each entry's factor (a rod's Voronoi lengths [m]; a shell's 1)
    "amplitude", "phase", "offset",     # (n,) the wave per entry (phase [rad])
    "wave",      # (2,): frequency [Hz], ramp time [s]
    "row",       # (n_blocks, n) scratch: the parameter's row at t
])
"""Arrays of der_parameter_wave (sm.ParameterWave on a body of the unified engine's kind)."""


@kernel
def der_parameter_wave(a, bi, W, t):
    """Every lane's packed parameter <- (offset + ramp(t) amplitude sin(2 pi f t + phase))
    scale, ramp(t) = min(t / ramp_time, 1) (1 without a ramp), at t [s] (the end of the step
    solved for, implicit Euler): the discrete engine's parameter_wave_update, then the scale
    its kernels apply (der_natural_binding: the natural curvature times the Voronoi length).
    A forces-stage kernel before the elasticity that reads the table."""
    row = a.row[bi]
    frequency, ramp_time = a.wave[0], a.wave[1]
    ramp = 1.0 if ramp_time == 0.0 else min(t / ramp_time, 1.0)
    arg = 2.0 * math.pi * frequency * t
    for i in range(row.shape[0]):
        row[i] = (a.offset[i] + ramp * a.amplitude[i] * math.sin(arg + a.phase[i])) * a.scale[i]
    target = a.target[bi]
    s0 = a.start[0]
    for lane in range(W):
        for i in range(row.shape[0]):
            target[lane, s0 + i] = row[i]


DerFixArgs = namedtuple("DerFixArgs", [
    "der_x", "der_v", "der_theta", "der_w",
    "fix_slot",    # (k,) int64: node slot of each held coordinate
    "fix_comp",    # (k,) int64: its axis 0, 1, 2
    "fix_value",   # (n_blocks, k, W) [m]: the value it is held at
    "fix_edge",    # (k',) int64: edge slot of each held twist angle
    "fix_angle",   # (n_blocks, k', W) [rad]
])
"""Arrays of der_fix_positions and der_fix_rates (sm.FixNodes on a discrete rod)."""


@kernel(inline="always")
def der_hold(a, bi, W, x, th, rates):
    """The held entries of x (c, n*W) and th (1, m*W) -- node coordinates and twist angles
    (rates False: x = der_x [m], th = der_theta [rad]) or their rates (rates True: x = der_v
    [m/s], th = der_w [rad/s]) -- <- their held values, or 0 for rates."""
    for e in range(a.fix_slot.shape[0]):
        for lane in range(W):
            x[a.fix_comp[e], a.fix_slot[e] * W + lane] = 0.0 if rates else a.fix_value[bi, e, lane]
    for e in range(a.fix_edge.shape[0]):
        for lane in range(W):
            th[0, a.fix_edge[e] * W + lane] = 0.0 if rates else a.fix_angle[bi, e, lane]


@kernel(inline="always")
def der_fix_positions(a, bi, W, t):
    """Held node coordinates and twist angles <- their values (a positions constraint)."""
    der_hold(a, bi, W, a.der_x[bi], a.der_theta[bi], False)


@kernel(inline="always")
def der_fix_rates(a, bi, W, t):
    """Their velocities and twist rates <- 0 (a rates constraint)."""
    der_hold(a, bi, W, a.der_v[bi], a.der_w[bi], True)
