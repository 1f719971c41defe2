"""Discrete elastic rods' elasticity on the unified engine, a block's W > 1 worlds at once
(lanes): the discrete engine's lanes kernels for the bending and twisting
(softmech.kernels.der_bend_twist_lanes, der_frames_lanes; LLVM's loop vectorizer runs LANES
worlds' arithmetic in SIMD registers) driven from the unified engine's block layout, and the
stretching on that layout itself (its rows hold the lanes innermost), where the per-world
adapter (softmech.kernels.der_kind) ran the per-world kernels once per lane.

Each world's numbers are the per-world kernels' bit for bit (the lanes kernels do per lane
what the scalar kernels do, in the same order: der_bend_twist_lanes' docstring), so a batched
run still equals its single runs bit for bit (tests/unit/test_der_kind.py). The stretching
forces are set first, as the per-world adapter's accumulators hold them, and the springs'
forces are subtracted after, in the per-world kernel's order.

Compile cost: numba links a kernel's code into every compiled function that calls it and
optimizes it again there, and the lanes kernels are large (a cold compile of a discrete rod's
implicit scene took 102 s instead of 50 s with them behind a run-time branch of the per-world
kernels, 2026-12-05). So they are separate kernels, which softmech.terms.der_kind puts in the
scene's calls only for blocks of W > 1 worlds: a single world compiles none of them.

Layout: the blocks' lanes scratch is one row of floats per block (DerLanesRows):
block_scratch cuts block bi's into a DerBendTwistLanes, so that the blocks, stepped on
threads of their own, do not share scratch. A block of W < LANES worlds
computes its idle lanes on a copy of lane 0 and writes back only its W.
"""
import math
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.analytic_jacobian import count_flagged, wants_jacobian
from softmech.kernels.band_lanes import LANES
from softmech.kernels.der_bend_twist_lanes import (DerBendTwistLanes, frames_lanes,
                                                    scratch_of, scratch_sizes, spring_lanes)
from softmech.kernels.der_frames_lanes import (copy_lane0, edge_frames_lanes, lane_count,
                                                lane_rows, reference_twists_lanes)

L = LANES


DerLanesRows = namedtuple("DerLanesRows", [
    "dof_map", "edge_ld", "spring_ld", "edge_theta", "accepted_cs",   # DerBendTwistLanes'
    "rows",     # (n_blocks, sum(scratch_sizes) * L): each block's float scratch, one row
])
"""The lanes scratch of the blocks (block_scratch: block bi's DerBendTwistLanes): one row of
floats per block rather than 31 arrays, which every compiled function that passes the
elasticity's arguments would carry (a cold compile of a discrete rod's implicit scene took
72 s instead of 45 s with 36 arrays, 2026-12-05)."""


def block_rows(edge_dofs, spring_dofs, spring_edges, n_blocks):
    """DerLanesRows of the springs (der_bend_twist_lanes.scratch_of's arguments) for n_blocks
    blocks."""
    x = scratch_of(edge_dofs, spring_dofs, spring_edges, 1)
    size = sum(scratch_sizes(x.dof_map.size, x.edge_ld.shape[0], x.spring_ld.shape[0]))
    return DerLanesRows(x.dof_map, x.edge_ld, x.spring_ld, x.edge_theta, x.accepted_cs,
                        np.zeros((n_blocks, size * L)))


@kernel(inline="always")
def _cut(r, o, n):
    """The n * L entries of row r from o * L, and o + n."""
    return r[o * L:(o + n) * L], o + n


@kernel
def block_scratch(X, bi):
    """Block bi's DerBendTwistLanes: X's (DerLanesRows) index arrays and its row bi cut into
    the float arrays (scratch_sizes)."""
    n = scratch_sizes(X.dof_map.shape[0], X.edge_ld.shape[0], X.spring_ld.shape[0])
    r = X.rows[bi]
    o = 0
    q, o = _cut(r, o, n[0])
    acc_a1, o = _cut(r, o, n[1])
    acc_t, o = _cut(r, o, n[2])
    acc_ref, o = _cut(r, o, n[3])
    acc_cos, o = _cut(r, o, n[4])
    acc_sin, o = _cut(r, o, n[5])
    kbar, o = _cut(r, o, n[6])
    tbar, o = _cut(r, o, n[7])
    EI, o = _cut(r, o, n[8])
    GJ, o = _cut(r, o, n[9])
    t, o = _cut(r, o, n[10])
    a1, o = _cut(r, o, n[11])
    a2, o = _cut(r, o, n[12])
    ref, o = _cut(r, o, n[13])
    pt, o = _cut(r, o, n[14])
    ang, o = _cut(r, o, n[15])
    ecos, o = _cut(r, o, n[16])
    esin, o = _cut(r, o, n[17])
    vec, o = _cut(r, o, n[18])
    geo, o = _cut(r, o, n[19])
    trig, o = _cut(r, o, n[20])
    kap, o = _cut(r, o, n[21])
    coef, o = _cut(r, o, n[22])
    cg, o = _cut(r, o, n[23])
    g, o = _cut(r, o, n[24])
    blk, o = _cut(r, o, n[25])
    gE, o = _cut(r, o, n[26])
    qq, o = _cut(r, o, n[27])
    Fl, o = _cut(r, o, n[28])
    Jl, o = _cut(r, o, n[29])
    return DerBendTwistLanes(
        X.dof_map, X.edge_ld, X.spring_ld, X.edge_theta, X.accepted_cs, q, acc_a1,
        acc_t, acc_ref, acc_cos, acc_sin, kbar, tbar, EI, GJ, t, a1, a2, ref, pt, ang,
        ecos, esin, vec, geo, trig, kap, coef, cg, g, blk, gE, qq, Fl, Jl)


@kernel
def gather_lane_q(a, bi, W, lane):
    """a.q[bi] (n_dof,) <- world `lane` of block bi's node positions and twist angles, in the
    DOF order of softmech.der_packing (3 per node, then one per edge) [m, rad]."""
    q = a.q[bi]
    x = a.der_x[bi]
    th = a.der_theta[bi]
    n = x.shape[1] // W
    for i in range(n):
        for c in range(3):
            q[3 * i + c] = x[c, i * W + lane]
    for j in range(th.shape[1] // W):
        q[3 * n + j] = th[0, j * W + lane]


@kernel
def scatter_lane_forces(a, bi, W, lane):
    """World `lane` of block bi's der_force, der_torque <- a.F[bi] (n_dof,), the DOF order of
    gather_lane_q [N, N m] (set: the elasticity initialises the accumulators)."""
    F = a.F[bi]
    f = a.der_force[bi]
    tq = a.der_torque[bi]
    n = f.shape[1] // W
    for i in range(n):
        for c in range(3):
            f[c, i * W + lane] = F[3 * i + c]
    for j in range(tq.shape[1] // W):
        tq[0, j * W + lane] = F[3 * n + j]


@kernel(inline="always")
def _copy_lanes(dst, src, W):
    """dst[:W] = src[:W] (views of one row's lanes on each side: lane_rows; indexed by the lane
    alone, the copy is vector loads and stores, not gathers and scatters). A full row of L
    lanes is copied by L assignments: LLVM turns the loop of a run-time length into a call
    of libc's memmove, which for 64 bytes costs more than the copy."""
    if W == L:
        for w in range(L):
            dst[w] = src[w]
        return
    for w in range(W):
        dst[w] = src[w]


@kernel
def _gather_state(a, x, bi, W):
    """Lanes 0 .. W - 1 of x from block bi's worlds (a: DerElasticArgs): the springs' DOFs,
    the stored frames and reference twists with the latter's cos and sin; lanes W .. L - 1 a
    copy of lane 0. The stored reference twists change once per step (der_commit_frames_lanes)
    but are gathered at every evaluation, so a twist's cos and sin are kept in the block's
    scratch and computed again only where the twist differs from the one they were computed
    for (or none was yet: cos and sin both zero, the scratch's start): the same values, and
    falling_rod's eight lanes evaluate ~7 us faster (2026-12-05)."""
    xs = a.der_x[bi]
    th = a.der_theta[bi]
    a1 = a.der_a1[bi]
    tg = a.der_tangent[bi]
    ref = a.der_ref[bi]
    n3 = 3 * (xs.shape[1] // W)
    # (the lanes innermost on both sides: a DOF's source row found once for all its lanes)
    for k in range(x.dof_map.shape[0]):
        d = x.dof_map[k]
        if d < n3:
            row = xs[d % 3]
            o = (d // 3) * W
        else:
            row = th[0]
            o = (d - n3) * W
        _copy_lanes(lane_rows(x.q, k, 1), row[o:o + W], W)
    for j in range(x.edge_ld.shape[0]):
        for c in range(3):
            _copy_lanes(lane_rows(x.acc_a1, 3 * j + c, 1), a1[c, j * W:(j + 1) * W], W)
            _copy_lanes(lane_rows(x.acc_t, 3 * j + c, 1), tg[c, j * W:(j + 1) * W], W)
    for s in range(x.spring_ld.shape[0]):
        src = ref[0, s * W:(s + 1) * W]
        acc_ref = lane_rows(x.acc_ref, s, 1)
        acc_cos = lane_rows(x.acc_cos, s, 1)
        acc_sin = lane_rows(x.acc_sin, s, 1)
        for w in range(W):
            r = src[w]
            if acc_ref[w] != r or (acc_cos[w] == 0.0 and acc_sin[w] == 0.0):
                acc_ref[w] = r
                acc_cos[w] = math.cos(r)
                acc_sin[w] = math.sin(r)
    if W < L:
        for arr in (x.q, x.acc_a1, x.acc_t, x.acc_ref, x.acc_cos, x.acc_sin):
            copy_lane0(arr, W)


@kernel
def _gather(a, x, bi, W):
    """_gather_state, and the natural strains and stiffnesses of the springs."""
    _gather_state(a, x, bi, W)
    for w in range(W):
        kbar = a.kbar[bi, w]
        EI = a.EI[bi, w]
        for s in range(x.spring_ld.shape[0]):
            x.tbar[s * L + w] = a.tbar[bi, w, s]
            x.GJ[s * L + w] = a.GJ[bi, w, s]
            for k in range(2):
                x.kbar[(2 * s + k) * L + w] = kbar[s, k]
                x.EI[(2 * s + k) * L + w] = EI[s, k]
    if W < L:
        for arr in (x.kbar, x.tbar, x.EI, x.GJ):
            copy_lane0(arr, W)


@kernel(inline="always")
def clear_forces(a, bi):
    """Block bi's der_force, der_torque <- 0 (a: DerElasticArgs)."""
    f = a.der_force[bi]
    tq = a.der_torque[bi]
    for c in range(3):
        for k in range(f.shape[1]):
            f[c, k] = 0.0
    for k in range(tq.shape[1]):
        tq[0, k] = 0.0


@kernel(inline="always")
def _edge_rows(xs, d, W):
    """The lanes (W,) of an edge's six DOFs d (6,) in the block's (3, n W) lanes-innermost
    array xs (softmech.der_packing: DOF 3 i + c is row c of node i), as views: a loop over the
    lanes reading xs[c, i W + w] with i known only at run time gets numba's negative-index
    wraparound on every lane, and gathers (der_frames_lanes.lane_rows)."""
    o = (d[0] // 3) * W
    p = (d[3] // 3) * W
    return (xs[d[0] % 3, o:o + W], xs[d[1] % 3, o:o + W], xs[d[2] % 3, o:o + W],
            xs[d[3] % 3, p:p + W], xs[d[4] % 3, p:p + W], xs[d[5] % 3, p:p + W])


@kernel(inline="always")
def _edge_lane(r0, r1, r2, s0, s1, s2, w, lbar, ea):
    """der_stretch_forces' strain of one edge, lane w (its nodes' lanes _edge_rows), in its
    order of operations: (eps, 1 / length, unit tangent u)."""
    e0 = s0[w] - r0[w]
    e1 = s1[w] - r1[w]
    e2 = s2[w] - r2[w]
    length = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    eps = length / lbar - 1.0
    inv_l = 1.0 / length
    return eps, inv_l, (e0 * inv_l, e1 * inv_l, e2 * inv_l)


@kernel
def stretch_forces_lanes(a, bi, W):
    """The stretching forces (der_stretch.der_stretch_forces, ref. 004 eqs. 9-10) of every lane
    of block bi, in the block's lanes-innermost rows: der_force, der_torque <- 0, then
    der_force += each edge's -dE/dq [N]. Each lane's operations are der_stretch_forces' in its
    order, so its numbers are the per-world adapter's bit for bit (which ran it lane by lane on
    a gathered copy of the lane's coordinates, scattering its forces back)."""
    f = a.der_force[bi]
    clear_forces(a, bi)
    n_ea = a.EA.shape[2]
    for j in range(a.edge_dofs.shape[0]):
        r0, r1, r2, s0, s1, s2 = _edge_rows(a.der_x[bi], a.edge_dofs[j], W)
        f0, f1, f2, g0, g1, g2 = _edge_rows(f, a.edge_dofs[j], W)
        lbar = a.rest_len[j]
        for w in range(W):
            ea = a.EA[bi, w, j % n_ea]
            eps, inv_l, u = _edge_lane(r0, r1, r2, s0, s1, s2, w, lbar, ea)
            g = ea * eps
            f0[w] += g * u[0]
            g0[w] -= g * u[0]
            f1[w] += g * u[1]
            g1[w] -= g * u[1]
            f2[w] += g * u[2]
            g2[w] -= g * u[2]


@kernel
def stretch_jacobian_lanes(a, bi, W, lanes, values):
    """values[36 j + e, lane] <- the stretching Jacobian entries -d2E/dq2 [N/m] of edge j
    (der_stretch_forces' 6 x 6 blocks [[-H, H], [H, -H]], H = (a - c) u u^T + c I, as 0 - h and
    0 + h: its zeroed J, then -=, +=) on the lanes flagged in lanes (W,) int64 of block bi
    (the others keep theirs). Run lane by lane on a gathered copy it took 10.7 of the 169 us of
    falling_rod's eight-lane Jacobian (2026-12-05)."""
    n_ea = a.EA.shape[2]
    every = count_flagged(lanes, W) == W
    for j in range(a.edge_dofs.shape[0]):
        r0, r1, r2, s0, s1, s2 = _edge_rows(a.der_x[bi], a.edge_dofs[j], W)
        lbar = a.rest_len[j]
        ea = a.EA[bi, :, j % n_ea]
        out = values[36 * j:36 * (j + 1)]
        if every:       # (no test per lane: a loop LLVM vectorizes, the common case)
            for w in range(W):
                _stretch_entries(out, w, r0, r1, r2, s0, s1, s2, lbar, ea[w])
            continue
        for w in range(W):
            if lanes[w] != 0:
                _stretch_entries(out, w, r0, r1, r2, s0, s1, s2, lbar, ea[w])


@kernel(inline="always")
def _stretch_entries(out, w, r0, r1, r2, s0, s1, s2, lbar, ea):
    """out[:, w] (36, W) <- one edge's stretching entries of lane w (stretch_jacobian_lanes)."""
    eps, inv_l, u = _edge_lane(r0, r1, r2, s0, s1, s2, w, lbar, ea)
    ka = ea / lbar
    kc = ea * eps * inv_l
    for r in range(3):
        for c in range(3):
            h = (ka - kc) * u[r] * u[c]
            if r == c:
                h += kc
            out[r * 6 + c, w] = 0.0 - h
            out[r * 6 + 3 + c, w] = 0.0 + h
            out[(3 + r) * 6 + c, w] = 0.0 + h
            out[(3 + r) * 6 + 3 + c, w] = 0.0 - h


@kernel
def der_commit_frames_lanes(a, bi, W, t):
    """der_kind.der_commit_frames for blocks of W > 1 worlds: the stored frames der_a1,
    der_tangent and reference twists der_ref <- those transported to the current positions,
    all lanes at once."""
    x = block_scratch(a.lanes, bi)
    _gather_state(a, x, bi, W)
    nl = lane_count(x)
    edge_frames_lanes(x.q, x.edge_ld, x.acc_a1, x.acc_t, x.t, x.a1, x.a2, nl)
    reference_twists_lanes(x.t, x.a1, a.spring_edges, a.spring_signs, x.acc_ref, x.acc_cos,
                           x.acc_sin, x.ref, x.pt, x.ang, nl)
    a1 = a.der_a1[bi]
    tg = a.der_tangent[bi]
    ref = a.der_ref[bi]
    for j in range(x.edge_ld.shape[0]):
        for c in range(3):
            _copy_lanes(a1[c, j * W:(j + 1) * W], lane_rows(x.a1, 3 * j + c, 1), W)
            _copy_lanes(tg[c, j * W:(j + 1) * W], lane_rows(x.t, 3 * j + c, 1), W)
    for s in range(x.spring_ld.shape[0]):
        _copy_lanes(ref[0, s * W:(s + 1) * W], lane_rows(x.ref, s, 1), W)


@kernel
def der_elastic_forces_lanes(a, bi, W, t):
    """der_kind.der_elastic_forces for blocks of W > 1 worlds: der_force, der_torque <- the
    stretching forces (stretch_forces_lanes), minus every spring's bending and twisting
    forces -dE/dq (all lanes at once) [N, N m]."""
    f = a.der_force[bi]
    tq = a.der_torque[bi]
    n = f.shape[1] // W
    # False, as a run-time flag: numba compiles the kernels once for every caller
    jac = wants_jacobian(a.J)
    stretch_forces_lanes(a, bi, W)
    x = block_scratch(a.lanes, bi)
    _gather(a, x, bi, W)
    nl = lane_count(x)          # = L, as a run-time value (der_bend_twist_lanes' docstring)
    frames_lanes(x, a.spring_edges, a.spring_signs, nl)
    for s in range(a.spring_dofs.shape[0]):
        spring_lanes(x, s, a.spring_edges, a.spring_signs, a.inv_vor, jac, nl)
        d = a.spring_dofs[s]
        for r in range(11):
            k = d[r]
            if k < 3 * n:
                row = f[k % 3]
                o = (k // 3) * W
            else:
                row = tq[0]
                o = (k - 3 * n) * W
            dst = row[o:o + W]
            Fr = lane_rows(x.Fl, r, 1)
            for w in range(W):
                dst[w] -= Fr[w]


@kernel
def der_elastic_jacobian_lanes(a, bi, W, t, h, lanes, values):
    """der_kind.der_elastic_jacobian for every lane flagged in lanes (W,) int64 of a block of
    W > 1 worlds: values[:, lane] (36 m + 121 s,) <- its stretching entries, then its
    springs' (all lanes at once) [N/m, N, N m] (AnalyticJacobian.lanes_kernel: values
    (k, W), the lanes innermost, as Jl's rows)."""
    n_stretch = 36 * a.edge_dofs.shape[0]
    jac = wants_jacobian(values)     # (True: a run-time flag, as above)
    stretch_jacobian_lanes(a, bi, W, lanes, values)
    x = block_scratch(a.lanes, bi)
    _gather(a, x, bi, W)
    nl = lane_count(x)
    frames_lanes(x, a.spring_edges, a.spring_signs, nl)
    # every lane of a full block renewed (the common case): a spring's rows of values are
    # Jl's layout, one flat loop instead of 121 loops over W lanes with a flag each (this
    # driver's own time, its gather included, was 9.6 of falling_rod's 174 us per world and
    # step at 16 worlds; the change was within the noise of the whole run, 2026-12-05)
    flat = W == L and count_flagged(lanes, W) == W
    flat_values = values.reshape(values.size)
    for s in range(a.spring_dofs.shape[0]):
        spring_lanes(x, s, a.spring_edges, a.spring_signs, a.inv_vor, jac, nl)
        base = n_stretch + 121 * s
        # (0 - J: the per-world kernel's zero, then J -= ...)
        if flat:
            # (through a view: flat_values[base L + i] with base known only at run time was
            # a scatter, numba's negative-index wraparound on every lane: 8.5 % of the run)
            dst = flat_values[base * L:(base + 121) * L]
            for i in range(121 * L):
                dst[i] = 0.0 - x.Jl[i]
            continue
        for e in range(121):
            row = values[base + e]
            for lane in range(W):
                row[lane] = 0.0 - x.Jl[e * L + lane] if lanes[lane] != 0 else row[lane]
