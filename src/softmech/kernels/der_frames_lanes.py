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
def lane_vec(arr, i, w):
    """Lane w of 3-vector i of a flat (n, 3, L) array, as a 3-tuple."""
    o = 3 * i * L + w
    return (arr[o], arr[o + L], arr[o + 2 * L])


@kernel(inline="always")
def put_lane_vec(arr, i, w, v):
    """Lane w of 3-vector i of a flat (n, 3, L) array = v."""
    o = 3 * i * L + w
    arr[o] = v[0]
    arr[o + L] = v[1]
    arr[o + 2 * L] = v[2]


@kernel
def edge_frames_lanes(q, edge_ld, acc_a1, acc_t, t, a1, a2, nl):
    """der_frames' loop over edges: tangents and reference directors, time-parallel transported
    from the accepted step, of every lane (q (k, L), edge_ld (m, 6); frames (m, 3, L))."""
    for j in range(edge_ld.shape[0]):
        d0 = edge_ld[j, 0] * L
        d1 = edge_ld[j, 1] * L
        d2 = edge_ld[j, 2] * L
        d3 = edge_ld[j, 3] * L
        d4 = edge_ld[j, 4] * L
        d5 = edge_ld[j, 5] * L
        for w in range(nl):
            e = axpy3(-1.0, (q[d0 + w], q[d1 + w], q[d2 + w]), (q[d3 + w], q[d4 + w], q[d5 + w]))
            tj = scale3(1.0 / math.sqrt(dot3(e, e)), e)
            b1 = transport3(lane_vec(acc_a1, j, w), lane_vec(acc_t, j, w), tj)
            b1 = axpy3(-dot3(b1, tj), tj, b1)
            b1 = scale3(1.0 / math.sqrt(dot3(b1, b1)), b1)
            put_lane_vec(t, j, w, tj)
            put_lane_vec(a1, j, w, b1)
            put_lane_vec(a2, j, w, cross3(tj, b1))


@kernel(inline="always")
def _spring_axes(t, a1, je, jf, se, sf, ce, w):
    """der_frames' oriented tangents t^e, t^f and directors a1^e, a1^f of a spring, lane w."""
    te = scale3(se, lane_vec(t, je, w))
    tf = scale3(sf, lane_vec(t, jf, w))
    ae = scale3(se * ce, lane_vec(a1, je, w))
    af = scale3(sf, lane_vec(a1, jf, w))
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
        o = s * L
        for w in range(nl):
            te, tf, ae, af = _spring_axes(t, a1, je, jf, se, sf, ce, w)
            put_lane_vec(pt, 0, w, transport3(ae, te, tf))
        for w in range(nl):
            te, tf, ae, af = _spring_axes(t, a1, je, jf, se, sf, ce, w)
            ut = rotate_cs(lane_vec(pt, 0, w), tf, acc_cos[o + w], acc_sin[o + w])
            wv = cross3(ut, af)          # signed_angle(ut, af, tf)
            ang[w] = dot3(wv, tf)
            ang[L + w] = dot3(ut, af)
        for w in range(nl):
            ref[o + w] = acc_ref[o + w] + math.atan2(ang[w], ang[L + w])


@kernel
def edge_trig_lanes(q, edge_theta, ecos, esin, nl):
    """cos and sin of every edge's twist angle (q (k, L) [m, rad]; edge_theta (m,) int64: the
    row of q holding edge j's angle) into ecos, esin (m, L): once per edge, where the springs
    read them twice (an edge is the e of one spring and the f of the next). A spring whose edge
    is stored the other way (sign -1) takes (cos, -sin): cos and sin of the negated angle, bit
    for bit, as libm's cos is even and its sin odd (round to nearest is symmetric)."""
    for j in range(edge_theta.shape[0]):
        o = edge_theta[j] * L
        for w in range(nl):
            ecos[j * L + w] = math.cos(q[o + w])
        for w in range(nl):
            esin[j * L + w] = math.sin(q[o + w])


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
    nl = x.cg.shape[0]
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
