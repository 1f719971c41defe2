"""Reference frames of discrete elastic rods for several worlds at once, the worlds innermost
(lanes): the lockstep Newton loop's form of softmech.kernels.der_frames (its edge and spring
loops), read by the bending-twisting lanes kernel (softmech.kernels.der_bend_twist_lanes) at
every evaluation and by the lockstep accept below at the end of every step.

The formulas are der_frames' (time-parallel transport of the reference directors, Bergou et
al. 2010; DisMech's computeRefTwist), evaluated by the same operations in the same order, so
that each lane's frames are der_frames' bit for bit (the module docstring of
der_bend_twist_lanes says why: no fast-math, no FMA contraction, one SIMD lane does what the
scalar instruction does). Layout: flat (..., LANES) arrays, entry (i, w) of an (n, LANES)
array at i * LANES + w (der_bend_twist_lanes' layout); nl = LANES read from an array's shape.
"""
import math

from softmech.kernels import kernel
from softmech.kernels.band_lanes import LANES
from softmech.kernels.der_frames import axpy3, cross3, dot3, rotate_cs, scale3, transport3

L = LANES


@kernel(inline="always")
def lane_rows(arr, i, n):
    """Rows i .. i + n - 1 of a flat (rows, L) array, as a flat view (n L,). A loop over the
    lanes w that reads arr[i * L + w] with a row i known only at run time gets numba's
    negative-index wraparound (idx < 0 ? idx + size : idx) on every lane, which LLVM cannot
    fold, so its vectorized loads become gathers; through the view, the index is a constant
    offset from w >= 0 and the loads are plain vector loads (the springs' Jacobian entries,
    2026-12-05: 24 gathers, 1,334 ns per spring; through views: none, 232 ns, the same bits).
    Offsets from a loop's counter are fine (LLVM knows their range); a kernel's integer
    argument is not (der_bend_twist_lanes._curvature is compiled for its literal rows)."""
    return arr[i * L:(i + n) * L]


@kernel(inline="always")
def lane_count(x):
    """LANES, read from the shape of x's (der_bend_twist_lanes.DerBendTwistLanes) cg (3, L):
    a run-time value, so that LLVM neither unrolls the loops over lanes fully nor treats them
    as too short to vectorize (der_bend_twist_lanes' docstring)."""
    return x.cg.shape[0] // 3


@kernel(inline="always")
def lane_vec(arr, i, w):
    """Lane w of 3-vector i of a flat (n, 3, L) array, as a 3-tuple (i a constant: a row known
    only at run time is read through its view, lane_rows and vec_at)."""
    o = 3 * i * L + w
    return (arr[o], arr[o + L], arr[o + 2 * L])


@kernel(inline="always")
def vec_at(v, w):
    """Lane w of the 3-vector whose view (3 L,) is v (lane_rows(arr, 3 i, 3)), as a 3-tuple."""
    return (v[w], v[L + w], v[2 * L + w])


@kernel(inline="always")
def put_lane_vec(arr, i, w, v):
    """Lane w of 3-vector i of a flat (n, 3, L) array = v (i a constant, as in lane_vec)."""
    o = 3 * i * L + w
    arr[o] = v[0]
    arr[o + L] = v[1]
    arr[o + 2 * L] = v[2]


@kernel(inline="always")
def put_vec_at(r, w, v):
    """Lane w of the 3-vector whose view (3 L,) is r = v (vec_at's inverse)."""
    r[w] = v[0]
    r[L + w] = v[1]
    r[2 * L + w] = v[2]


@kernel
def edge_frames_lanes(q, edge_ld, acc_a1, acc_t, t, a1, a2, nl):
    """der_frames' loop over edges: tangents and reference directors, time-parallel transported
    from the accepted step, of every lane (q (k, L), edge_ld (m, 6); frames (m, 3, L))."""
    for j in range(edge_ld.shape[0]):
        q0 = lane_rows(q, edge_ld[j, 0], 1)
        q1 = lane_rows(q, edge_ld[j, 1], 1)
        q2 = lane_rows(q, edge_ld[j, 2], 1)
        q3 = lane_rows(q, edge_ld[j, 3], 1)
        q4 = lane_rows(q, edge_ld[j, 4], 1)
        q5 = lane_rows(q, edge_ld[j, 5], 1)
        acc_a1j = lane_rows(acc_a1, 3 * j, 3)
        acc_tj = lane_rows(acc_t, 3 * j, 3)
        tj_out = lane_rows(t, 3 * j, 3)
        a1j = lane_rows(a1, 3 * j, 3)
        a2j = lane_rows(a2, 3 * j, 3)
        for w in range(nl):
            e = axpy3(-1.0, (q0[w], q1[w], q2[w]), (q3[w], q4[w], q5[w]))
            tj = scale3(1.0 / math.sqrt(dot3(e, e)), e)
            b1 = transport3(vec_at(acc_a1j, w), vec_at(acc_tj, w), tj)
            b1 = axpy3(-dot3(b1, tj), tj, b1)
            b1 = scale3(1.0 / math.sqrt(dot3(b1, b1)), b1)
            put_vec_at(tj_out, w, tj)
            put_vec_at(a1j, w, b1)
            put_vec_at(a2j, w, cross3(tj, b1))


@kernel(inline="always")
def _spring_axes(te_v, tf_v, ae_v, af_v, se, sf, ce, w):
    """der_frames' oriented tangents t^e, t^f and directors a1^e, a1^f of a spring, lane w,
    from the views (3 L,) of its edges' tangents and directors."""
    te = scale3(se, vec_at(te_v, w))
    tf = scale3(sf, vec_at(tf_v, w))
    ae = scale3(se * ce, vec_at(ae_v, w))
    af = scale3(sf, vec_at(af_v, w))
    return te, tf, ae, af


@kernel
def reference_twists_lanes(t, a1, spring_edges, spring_signs, acc_ref, acc_cos, acc_sin, ref,
                           pt, ang, nl):
    """der_frames' loop over springs: the reference twists ref (s, L) [rad], continuous in time
    from acc_ref (s, L) (DisMech's computeRefTwist), whose cos and sin acc_cos, acc_sin (s, L)
    the caller supplies (gather_frames: from the per-step cache, they are constant during a
    step); atan2 in a loop of its own."""
    for s in range(spring_edges.shape[0]):
        je = spring_edges[s, 0]
        jf = spring_edges[s, 1]
        se = spring_signs[s, 0]
        sf = spring_signs[s, 1]
        ce = spring_signs[s, 2]
        te_v = lane_rows(t, 3 * je, 3)
        tf_v = lane_rows(t, 3 * jf, 3)
        ae_v = lane_rows(a1, 3 * je, 3)
        af_v = lane_rows(a1, 3 * jf, 3)
        cos_s = lane_rows(acc_cos, s, 1)
        sin_s = lane_rows(acc_sin, s, 1)
        for w in range(nl):
            te, tf, ae, af = _spring_axes(te_v, tf_v, ae_v, af_v, se, sf, ce, w)
            put_lane_vec(pt, 0, w, transport3(ae, te, tf))
        for w in range(nl):
            te, tf, ae, af = _spring_axes(te_v, tf_v, ae_v, af_v, se, sf, ce, w)
            ut = rotate_cs(lane_vec(pt, 0, w), tf, cos_s[w], sin_s[w])
            wv = cross3(ut, af)          # signed_angle(ut, af, tf)
            ang[w] = dot3(wv, tf)
            ang[L + w] = dot3(ut, af)
        ref_s = lane_rows(ref, s, 1)
        acc_s = lane_rows(acc_ref, s, 1)
        for w in range(nl):
            ref_s[w] = acc_s[w] + math.atan2(ang[w], ang[L + w])


@kernel
def edge_trig_lanes(q, edge_theta, ecos, esin, nl):
    """cos and sin of every edge's twist angle (q (k, L) [m, rad]; edge_theta (m,) int64: the
    row of q holding edge j's angle) into ecos, esin (m, L): once per edge, where the springs
    read them twice (an edge is the e of one spring and the f of the next). A spring whose edge
    is stored the other way (sign -1) takes (cos, -sin): cos and sin of the negated angle, bit
    for bit, as libm's cos is even and its sin odd (round to nearest is symmetric)."""
    for j in range(edge_theta.shape[0]):
        qj = lane_rows(q, edge_theta[j], 1)
        cj = lane_rows(ecos, j, 1)
        sj = lane_rows(esin, j, 1)
        for w in range(nl):
            cj[w] = math.cos(qj[w])
        for w in range(nl):
            sj[w] = math.sin(qj[w])


@kernel
def gather_frames(a, x, b, q, w):
    """Lane w of x (DerBendTwistLanes) from world b (a: DerBendTwistArgs): its DOFs q (n_dof,),
    accepted tangents, directors and reference twists, and the latter's cos and sin from the
    cache x.accepted_cs[b] (filled at the world's first evaluation of a step)."""
    for k in range(x.dof_map.shape[0]):
        x.q[k * L + w] = q[x.dof_map[k]]
    for j in range(a.acc_a1.shape[1]):
        for k in range(3):
            x.acc_a1[(3 * j + k) * L + w] = a.acc_a1[b, j, k]
            x.acc_t[(3 * j + k) * L + w] = a.acc_tangent[b, j, k]
    cs = x.accepted_cs[b]
    for s in range(a.acc_ref.shape[1]):
        x.acc_ref[s * L + w] = a.acc_ref[b, s]
        x.acc_cos[s * L + w] = cs[0, s]
        x.acc_sin[s * L + w] = cs[1, s]


@kernel
def copy_lane0(x, m):
    """Lanes m .. L - 1 of the flat (n, L) array x = its lane 0 (idle lanes compute on a copy
    of a world)."""
    for i in range(0, x.shape[0], L):
        for w in range(m, L):
            x[i + w] = x[i]


@kernel
def der_bend_twist_accept_lanes(a, x, S, world0, Q, n):
    """The lockstep form of softmech.kernels.implicit_bindings.der_bend_twist_accept: commit
    the frames and reference twists at the accepted DOFs Q[S.rows[r]] of the worlds
    r = S.evaluating[0 .. n - 1] of a lockstep thread (S: LockstepWork; world world0 +
    S.rows[r]), LANES worlds a call of the frames' lanes kernels (x: the binding's
    DerBendTwistLanes scratch); each world's accepted frames those of the per-world accept,
    bit for bit. The cos and sin of the accepted reference twists are read from the cache
    that the world's first evaluation of this step filled (der_bend_twist_lanes.
    refresh_accepted_trig): the accept runs in the lockstep loop after its worlds' evaluations,
    with the same scratch. (Per world, the per-world accept had cost 4.6 % of falling_rod's
    16 worlds; this one costs 1.95 us per rod of 29 springs.)"""
    nl = lane_count(x)
    for c0 in range(0, n, L):
        m = min(L, n - c0)
        for w in range(m):
            row = S.rows[S.evaluating[c0 + w]]
            gather_frames(a, x, world0 + row, Q[row], w)
        if m < L:
            for arr in (x.q, x.acc_a1, x.acc_t, x.acc_ref, x.acc_cos, x.acc_sin):
                copy_lane0(arr, m)
        edge_frames_lanes(x.q, x.edge_ld, x.acc_a1, x.acc_t, x.t, x.a1, x.a2, nl)
        reference_twists_lanes(x.t, x.a1, a.spring_edges, a.spring_signs, x.acc_ref, x.acc_cos,
                               x.acc_sin, x.ref, x.pt, x.ang, nl)
        for w in range(m):
            b = world0 + S.rows[S.evaluating[c0 + w]]
            for j in range(a.acc_a1.shape[1]):
                for k in range(3):
                    a.acc_tangent[b, j, k] = x.t[(3 * j + k) * L + w]
                    a.acc_a1[b, j, k] = x.a1[(3 * j + k) * L + w]
            for s in range(a.acc_ref.shape[1]):
                a.acc_ref[b, s] = x.ref[s * L + w]
