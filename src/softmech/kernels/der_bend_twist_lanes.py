"""Bending and twisting springs of discrete elastic rods for several worlds at once, the worlds
innermost (lanes): the lockstep Newton loop's form of softmech.kernels.der_bend_twist (and
der_frames), so that LLVM's loop vectorizer runs the arithmetic of LANES worlds in SIMD
registers (softmech.implicit.compiled, NewtonOptions.lockstep; docs/benchmarks.md).

The formulas are those of der_bend_twist and der_frames (Bergou et al. 2008; ref. 004 eqs.
11-16; Jawed et al. 2018 sec. 7), evaluated by the same operations in the same order: every
per-lane value is written as the per-world kernel writes it, with the same inline helpers
(softmech.kernels.der_frames' dot3, cross3, axpy3, scale3, transport3, rotate_cs;
der_bend_twist.material_frame; the frames' lanes kernels are softmech.kernels.der_frames_lanes).
numba compiles without fast-math or FMA contraction, and a SIMD
instruction does per lane what the scalar one does, so each world's forces and Jacobian
entries equal the per-world kernel's bit for bit (tests/unit/test_lockstep_newton.py), and a
lane's numbers do not depend on what the other lanes hold.

Layout: every array of the lanes scratch (DerBendTwistLanes) has the lane last, (..., LANES),
stored flat: entry (i, w) of an (n, LANES) array at i * LANES + w, so that LLVM sees rows a
constant LANES entries apart (with numba's n-dimensional indexing the row length is a runtime
shape, and LLVM cannot tell two rows of one array apart: it gave up or wanted runtime checks).
Every loop that does arithmetic runs `for w in range(nl)` (nl = LANES, read from an array's
shape, so that LLVM neither unrolls it fully nor treats it as too short to vectorize) around a
whole formula with no loop inside it (the 3x3 Hessian blocks are 9-tuples written out: a
small loop that LLVM left rolled kept the loop over lanes from being innermost, and it was
not vectorized), with plain array arguments (numba marks them noalias, not a tuple's fields),
and every index a constant offset from w, so that it vectorizes without runtime overlap
checks. LLVM's remarks (-pass-remarks=loop-vectorize) report every arithmetic loop here
vectorized, width 4 (AVX2); only the gathers of the worlds' inputs stay scalar. sin, cos and
atan2 have no SIMD form in this numba (no SVML): they run in loops of their own, each call
scalar, so that they do not keep the arithmetic scalar, and as few times as the formulas allow
(the twist angles' cos and sin once per edge, not per spring; the accepted reference twists'
once per step, not per evaluation: falling_rod, 16 worlds, libm 11 % of the time before).
The helpers are separate compiled functions (not inlined into one body), each one loop
across the lanes: one kernel per piece of the per-world kernel, compiled once for every scene.
A row known only at run time (a DOF's, an edge's, a spring's) is read through a view of its
lanes (der_frames_lanes.lane_rows): indexed as row * L + w, numba's negative-index wraparound
on every lane turned the vectorized loads into gathers. A spring's Hessian is summed entry by
entry in registers (softmech.kernels.der_hessian_lanes: 0, + kappa1's, kappa2's and the
twist's chain rules, the signs, + the outer products; the per-world kernel's operations in its
order), not through an (11, 11, L) scratch passed over five times (2026-12-05: forces and Jacobian of falling_rod's
29 springs for eight lanes 59.5 -> 36.4 us, the forces alone 42.1 -> 21.9 us).

Idle lanes (a chunk of fewer than LANES worlds) compute on a copy of lane 0's inputs and are
not written back.
"""
import math
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.analytic_jacobian import wants_jacobian
from softmech.kernels.band_lanes import LANES, lanes_in_order
from softmech.kernels.der_bend_twist import _TE, _TF, _XA, _XB, _XC, material_frame
from softmech.kernels.der_frames import axpy3, cross3, dot3, scale3
from softmech.kernels.der_frames_lanes import (copy_lane0, edge_frames_lanes, edge_trig_lanes,
                                                gather_frames, lane_count, lane_rows,
                                                lane_vec as _v,
                                                put_lane_vec as _put, reference_twists_lanes,
                                                vec_at)
from softmech.kernels.der_hessian_lanes import (_C1, _C2, _CT, _DK1, _DK2, _DTW,
                                                 chain_jacobian)
from softmech.kernels.implicit_bindings import der_natural_binding

DerBendTwistLanes = namedtuple("DerBendTwistLanes", [
    "dof_map",      # (k,) int64: the global DOFs of the rod's springs and edges
    "edge_ld",      # (m, 6) int64: edge_dofs as rows of q below
    "spring_ld",    # (s, 11) int64: spring_dofs as rows of q below
    "edge_theta",   # (m,) int64: the row of q below holding each edge's twist angle
    "accepted_cs",  # (B, 2, s): cos, sin of each world's accepted reference twists, refreshed
                    #   at its step's first evaluation (LockstepWork.measure; constant in a step)
    # gathered per chunk (lane w: world S.evaluating[c0 + w]); shapes below before flattening
    "q",            # (k, L) [m, rad]
    "acc_a1", "acc_t",   # (m, 3, L) accepted frames
    "acc_ref",      # (s, L) [rad]
    "acc_cos", "acc_sin",   # (s, L) cos, sin of acc_ref
    "kbar",         # (s, 2, L) [-] discrete natural curvatures
    "tbar",         # (s, L) [rad]
    "EI",           # (s, 2, L) [N m^2]
    "GJ",           # (s, L) [N m^2]
    # frames (der_frames)
    "t", "a1", "a2",     # (m, 3, L)
    "ref",          # (s, L) [rad]
    "pt",           # (3, L) scratch: a1^e transported onto t^f
    "ang",          # (2, L) scratch: atan2's (y, x)
    "ecos", "esin",      # (m, L) cos, sin of each edge's twist angle
    # one spring
    "vec",          # (_NV, 3, L): te, tf, a1e, a2e, a1f, a2f, m1e, m1f, m2e, m2f, kb, tt
    "geo",          # (6, L): |e|, |f| [m], theta_e', theta_f' [rad], chi, twist m [rad]
    "trig",         # (4, L): cos, sin of theta_e', cos, sin of theta_f'
    "kap",          # (2, L): kappa1, kappa2
    "coef",         # (6, L): c1, c2, ct [N m], dk1, dk2, dtw (der_bend_twist_forces' names)
    "cg",           # (3, L) the factor c of each quantity's Hessian (c1 dk1, c2 dk2, ct dtw)
    "g",            # (3, 11, L) gradients of kappa1, kappa2, the twist
    "blk",          # (3, 3, 3, 3, L): each quantity's d2Q/de2, d2Q/df2, d2Q/de df
    "gE",           # (3, 4, 3, L): each quantity's gEe, gFe, gEf, gFf (_curvature)
    "qq",           # (3, 2, L): each quantity's qee, qff
    "Fl",           # (11, L) [N, N m] the spring's forces
    "Jl",           # (121, L) its Jacobian entries
])
"""Scratch of der_bend_twist_lanes for one binding (DerBendTwistArgs) and one lockstep thread
(L = LANES): every float array flat (module docstring)."""

_NE, _NF, _THE, _THF, _CHI, _TW = range(6)
_TEV, _TFV, _A1E, _A2E, _A1F, _A2F, _M1E, _M1F, _M2E, _M2F, _KB, _TT = range(12)
"""Rows of DerBendTwistLanes.vec (each m of edge e followed by that of edge f: _curvature)."""
_NV = 12
L = LANES


def lanes_scratch(a):
    """DerBendTwistLanes for the binding arguments `a` (DerBendTwistArgs): the rod's DOFs
    (its edges' and springs') and their rows, and scratch for LANES worlds."""
    return scratch_of(a.edge_dofs, a.spring_dofs, a.spring_edges, a.acc_ref.shape[0])


def scratch_of(edge_dofs, spring_dofs, spring_edges, n_worlds):
    """DerBendTwistLanes of springs spring_dofs (s, 11) int64 on edges edge_dofs (m, 6) int64
    (their DOFs' rows of q, spring_edges (s, 2) int64) with room for n_worlds worlds'
    accepted_cs, and its scratch for LANES worlds: each float array (n * LANES,), n as
    scratch_sizes gives it."""
    dofs = np.unique(np.concatenate([edge_dofs.ravel(), spring_dofs.ravel()]))
    local = np.full(int(dofs.max()) + 1 if dofs.size else 0, -1, np.int64)
    local[dofs] = np.arange(dofs.size)
    m, s = edge_dofs.shape[0], spring_dofs.shape[0]

    spring_ld = local[spring_dofs]
    # each edge's twist-angle row, from the springs that hold it (an edge of no spring: row 0,
    # computed and never read)
    edge_theta = np.zeros(m, np.int64)
    edge_theta[spring_edges[:, 0]] = spring_ld[:, _TE]
    edge_theta[spring_edges[:, 1]] = spring_ld[:, _TF]
    return DerBendTwistLanes(
        dofs.astype(np.int64), local[edge_dofs].reshape(m, 6), spring_ld.reshape(s, 11),
        edge_theta, np.zeros((n_worlds, 2, s)),
        *[np.zeros(n * L) for n in scratch_sizes(dofs.size, m, s)])


@kernel
def scratch_sizes(k, m, s):
    """The sizes / LANES of DerBendTwistLanes' float arrays, q to Jl in field order, for k
    DOFs, m edges and s springs (tuple of 30 ints)."""
    return (k, 3 * m, 3 * m, s, s, s, 2 * s, s, 2 * s, s, 3 * m, 3 * m, 3 * m, s, 3, 2, m, m,
            3 * _NV, 6, 4, 2, 6, 3, 33, 81, 36, 6, 11, 121)


# -- one spring (der_bend_twist.der_bend_twist_forces, lane by lane) -------------------------
@kernel(inline="always")
def _row(arr, i):
    """Row i (L,) of a flat (rows, L) array, as a view (der_frames_lanes.lane_rows)."""
    return lane_rows(arr, i, 1)


@kernel
def _spring_geometry(q, dl, je, jf, se, sf, ce, a1, a2, vec, geo, nl):
    """_spring_frames without its trigonometry: tangents, lengths, oriented twist angles and
    the oriented reference directors of one spring (its DOF rows dl (11,), edges je, jf,
    signs se, sf, ce), every lane."""
    xa0, xa1, xa2 = _row(q, dl[_XA]), _row(q, dl[_XA + 1]), _row(q, dl[_XA + 2])
    xb0, xb1, xb2 = _row(q, dl[_XB]), _row(q, dl[_XB + 1]), _row(q, dl[_XB + 2])
    xc0, xc1, xc2 = _row(q, dl[_XC]), _row(q, dl[_XC + 1]), _row(q, dl[_XC + 2])
    oe, of = _row(q, dl[_TE]), _row(q, dl[_TF])
    a1e, a2e = lane_rows(a1, 3 * je, 3), lane_rows(a2, 3 * je, 3)
    a1f, a2f = lane_rows(a1, 3 * jf, 3), lane_rows(a2, 3 * jf, 3)
    for w in range(nl):
        xb = (xb0[w], xb1[w], xb2[w])
        e = axpy3(-1.0, (xa0[w], xa1[w], xa2[w]), xb)
        f = axpy3(-1.0, xb, (xc0[w], xc1[w], xc2[w]))
        ne = math.sqrt(dot3(e, e))
        nf = math.sqrt(dot3(f, f))
        geo[_NE * L + w] = ne
        geo[_NF * L + w] = nf
        geo[_THE * L + w] = se * oe[w]
        geo[_THF * L + w] = sf * of[w]
        _put(vec, _A1E, w, scale3(se * ce, vec_at(a1e, w)))
        _put(vec, _A2E, w, scale3(ce, vec_at(a2e, w)))
        _put(vec, _A1F, w, scale3(sf, vec_at(a1f, w)))
        _put(vec, _A2F, w, vec_at(a2f, w))
        _put(vec, _TEV, w, scale3(1.0 / ne, e))
        _put(vec, _TFV, w, scale3(1.0 / nf, f))


@kernel
def _trig(ecos, esin, je, jf, se, sf, trig, nl):
    """cos and sin of the spring's oriented twist angles se theta_e, sf theta_f, every lane,
    from its edges' (edge_trig_lanes: the sign on the sine)."""
    ce, cf = _row(ecos, je), _row(ecos, jf)
    sine, sinf = _row(esin, je), _row(esin, jf)
    for w in range(nl):
        trig[w] = ce[w]
        trig[L + w] = se * sine[w]
        trig[2 * L + w] = cf[w]
        trig[3 * L + w] = sf * sinf[w]


@kernel
def _strains(s, trig, ref, kbar, tbar, inv_vor, EI, GJ, vec, geo, kap, coef, nl):
    """Material frames, curvature binormal, curvatures, twist and their stiffness factors of
    spring s (ref. 004 eqs. 11-16), every lane."""
    iv = inv_vor[s]
    ref_s, tbar_s, GJ_s = _row(ref, s), _row(tbar, s), _row(GJ, s)
    kbar_s, EI_s = lane_rows(kbar, 2 * s, 2), lane_rows(EI, 2 * s, 2)
    for w in range(nl):
        m1, m2 = material_frame(_v(vec, _A1E, w), _v(vec, _A2E, w), trig[w], trig[L + w])
        n1, n2 = material_frame(_v(vec, _A1F, w), _v(vec, _A2F, w), trig[2 * L + w],
                                trig[3 * L + w])
        _put(vec, _M1E, w, m1)
        _put(vec, _M2E, w, m2)
        _put(vec, _M1F, w, n1)
        _put(vec, _M2F, w, n2)
        t_e = _v(vec, _TEV, w)
        t_f = _v(vec, _TFV, w)
        chi = 1.0 + dot3(t_e, t_f)
        geo[_CHI * L + w] = chi
        b = scale3(2.0 / chi, cross3(t_e, t_f))
        _put(vec, _KB, w, b)
        _put(vec, _TT, w, scale3(1.0 / chi, axpy3(1.0, t_e, t_f)))
        k1 = 0.5 * (dot3(b, m2) + dot3(b, n2))
        k2 = -0.5 * (dot3(b, m1) + dot3(b, n1))
        kap[w] = k1
        kap[L + w] = k2
        tw = geo[_THF * L + w] - geo[_THE * L + w] + ref_s[w]
        coef[_C1 * L + w] = EI_s[w] * iv
        coef[_C2 * L + w] = EI_s[L + w] * iv
        coef[_CT * L + w] = GJ_s[w] * iv
        coef[_DK1 * L + w] = k1 - kbar_s[w]
        coef[_DK2 * L + w] = k2 - kbar_s[L + w]
        coef[_DTW * L + w] = tw - tbar_s[w]


@kernel(inline="always")
def _outer_add(M, c, u, v):
    """The 3x3 block M (a row-major 9-tuple) + c u v^T (der_bend_twist._outer_add's
    M[k] += c u v^T, entry by entry; written out, without loops, so that the loop over lanes
    around it has none inside)."""
    return (M[0] + c * u[0] * v[0], M[1] + c * u[0] * v[1], M[2] + c * u[0] * v[2],
            M[3] + c * u[1] * v[0], M[4] + c * u[1] * v[1], M[5] + c * u[1] * v[2],
            M[6] + c * u[2] * v[0], M[7] + c * u[2] * v[1], M[8] + c * u[2] * v[2])


@kernel(inline="always")
def _sym_add(M, c, u, v):
    """M + c (u v^T + v u^T) (der_bend_twist._sym_add)."""
    return (M[0] + c * (u[0] * v[0] + v[0] * u[0]), M[1] + c * (u[0] * v[1] + v[0] * u[1]),
            M[2] + c * (u[0] * v[2] + v[0] * u[2]), M[3] + c * (u[1] * v[0] + v[1] * u[0]),
            M[4] + c * (u[1] * v[1] + v[1] * u[1]), M[5] + c * (u[1] * v[2] + v[1] * u[2]),
            M[6] + c * (u[2] * v[0] + v[2] * u[0]), M[7] + c * (u[2] * v[1] + v[2] * u[1]),
            M[8] + c * (u[2] * v[2] + v[2] * u[2]))


@kernel(inline="always")
def _eye_skew_add(M, c_eye, c_skew, a):
    """M + c_eye I + c_skew [a]x (der_bend_twist._eye_skew_add: the diagonal first, then the
    skew part, each entry's operations in its order)."""
    return (M[0] + c_eye, M[1] - c_skew * a[2], M[2] + c_skew * a[1],
            M[3] + c_skew * a[2], M[4] + c_eye, M[5] - c_skew * a[0],
            M[6] - c_skew * a[1], M[7] + c_skew * a[0], M[8] + c_eye)


@kernel(inline="always")
def _store9(blk, k, w, M):
    """Block k of blk (3, 3, 3, L), lane w = the 9-tuple M."""
    o = 9 * k * L + w
    blk[o] = M[0]
    blk[o + L] = M[1]
    blk[o + 2 * L] = M[2]
    blk[o + 3 * L] = M[3]
    blk[o + 4 * L] = M[4]
    blk[o + 5 * L] = M[5]
    blk[o + 6 * L] = M[6]
    blk[o + 7 * L] = M[7]
    blk[o + 8 * L] = M[8]


@kernel(inline="always")
def _put_grad(g, row, w, de, df, dte, dtf):
    """Row `row` of g (3, 11, L), lane w = the gradient over the 11 DOFs
    (der_bend_twist._put_grad)."""
    o = 11 * row * L + w
    g[o + _XA * L] = -de[0]
    g[o + (_XA + 1) * L] = -de[1]
    g[o + (_XA + 2) * L] = -de[2]
    g[o + _XB * L] = de[0] - df[0]
    g[o + (_XB + 1) * L] = de[1] - df[1]
    g[o + (_XB + 2) * L] = de[2] - df[2]
    g[o + _XC * L] = df[0]
    g[o + (_XC + 1) * L] = df[1]
    g[o + (_XC + 2) * L] = df[2]
    g[o + _TE * L] = dte
    g[o + _TF * L] = dtf


@kernel(inline="always")
def _h(r, c, w):
    """Flat index of H[r, c] (11, 11, L), lane w."""
    return (11 * r + c) * L + w


@kernel
def _curvature(row, sp, sr, ip, ir, kap, coef, vec, geo, g, blk, gE, qq, cg, jac, nl):
    """der_bend_twist._curvature for curvature `row` (0: kappa1, P = m2, R = -m1; 1: kappa2,
    P = -m1, R = -m2), P = sp * vec[ip (e), ip + 1 (f)], R = sr * vec[ir, ir + 1], every
    lane: its gradient into g[row], and, if jac, the inputs of chain_jacobian for its
    Hessian (its thirds of blk, gE, qq; cg: c1 dk1 or c2 dk2 always). (Loops inside the loop
    over lanes are short, so that LLVM unrolls them and vectorizes the loop over lanes; the
    rows are literal constants at its calls, spring_lanes.)"""
    for w in range(nl):
        kappa = kap[row * L + w]
        cg[w] = coef[(_C1 + row) * L + w] * coef[(_DK1 + row) * L + w]
        Pe = scale3(sp, _v(vec, ip, w))
        Pf = scale3(sp, _v(vec, ip + 1, w))
        Re = scale3(sr, _v(vec, ir, w))
        Rf = scale3(sr, _v(vec, ir + 1, w))
        b = _v(vec, _KB, w)
        t_e = _v(vec, _TEV, w)
        t_f = _v(vec, _TFV, w)
        ttw = _v(vec, _TT, w)
        chi = geo[_CHI * L + w]
        ne = geo[_NE * L + w]
        nf = geo[_NF * L + w]
        dt = scale3(1.0 / chi, axpy3(1.0, Pe, Pf))
        tf_x_d = cross3(t_f, dt)
        te_x_d = cross3(t_e, dt)
        de = scale3(1.0 / ne, axpy3(-kappa, ttw, tf_x_d))
        df = scale3(1.0 / nf, axpy3(-kappa, ttw, scale3(-1.0, te_x_d)))
        kRe = 0.5 * dot3(b, Re)
        kRf = 0.5 * dot3(b, Rf)
        _put_grad(g, row, w, de, df, kRe, kRf)
        if not jac:
            continue
        ie2 = 1.0 / (ne * ne)
        if2 = 1.0 / (nf * nf)
        ief = 1.0 / (ne * nf)
        zero = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        # d2kappa/de2
        M = _outer_add(zero, 2.0 * kappa * ie2, ttw, ttw)
        M = _sym_add(M, -ie2, tf_x_d, ttw)
        M = _eye_skew_add(M, -kappa * ie2 / chi, 0.0, ttw)
        M = _outer_add(M, kappa * ie2 / chi, t_e, t_e)
        _store9(blk, 0, w, _sym_add(M, 0.25 * ie2, b, Pe))
        # d2kappa/df2
        M = _outer_add(zero, 2.0 * kappa * if2, ttw, ttw)
        M = _sym_add(M, if2, te_x_d, ttw)
        M = _eye_skew_add(M, -kappa * if2 / chi, 0.0, ttw)
        M = _outer_add(M, kappa * if2 / chi, t_f, t_f)
        _store9(blk, 1, w, _sym_add(M, 0.25 * if2, b, Pf))
        # d2kappa/de df
        M = _eye_skew_add(zero, -kappa * ief / chi, -ief, dt)
        M = _outer_add(M, -kappa * ief / chi, t_e, t_f)
        M = _outer_add(M, 2.0 * kappa * ief, ttw, ttw)
        M = _outer_add(M, -ief, tf_x_d, ttw)
        _store9(blk, 2, w, _outer_add(M, ief, ttw, te_x_d))
        _put(gE, 0, w, scale3(1.0 / ne, axpy3(-kRe, ttw, scale3(1.0 / chi, cross3(t_f, Re)))))
        _put(gE, 2, w, scale3(1.0 / ne, axpy3(-kRf, ttw, scale3(1.0 / chi, cross3(t_f, Rf)))))
        _put(gE, 1, w, scale3(1.0 / nf, axpy3(-kRe, ttw, scale3(-1.0 / chi, cross3(t_e, Re)))))
        _put(gE, 3, w, scale3(1.0 / nf, axpy3(-kRf, ttw, scale3(-1.0 / chi, cross3(t_e, Rf)))))
        qq[w] = -0.5 * dot3(b, Pe)
        qq[L + w] = -0.5 * dot3(b, Pf)


@kernel
def _twist(se, sf, coef, vec, geo, g, Fl, blk, gE, qq, cg, jac, nl):
    """The twist's gradient into g[2], the sign flips of edges stored the other way, the
    spring's forces Fl (11, L), and, if jac, the inputs of chain_jacobian for the twist's
    Hessian (der_bend_twist._twist_hessian), every lane."""
    if jac:
        _zero(gE)
        _zero(qq)
    for w in range(nl):
        b = _v(vec, _KB, w)
        ne = geo[_NE * L + w]
        nf = geo[_NF * L + w]
        _put_grad(g, 2, w, scale3(0.5 / ne, b), scale3(0.5 / nf, b), -1.0, 1.0)
        g[_TE * L + w] *= se
        g[_TF * L + w] *= sf
        g[(11 + _TE) * L + w] *= se
        g[(11 + _TF) * L + w] *= sf
        g[(22 + _TE) * L + w] *= se
        g[(22 + _TF) * L + w] *= sf
        cg[w] = coef[_CT * L + w] * coef[_DTW * L + w]
        if not jac:
            continue
        t_e = _v(vec, _TEV, w)
        t_f = _v(vec, _TFV, w)
        ttw = _v(vec, _TT, w)
        zero = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        _store9(blk, 0, w, _sym_add(zero, -0.25 / (ne * ne), b, axpy3(1.0, t_e, ttw)))
        _store9(blk, 1, w, _sym_add(zero, -0.25 / (nf * nf), b, axpy3(1.0, t_f, ttw)))
        ief = 1.0 / (ne * nf)
        M = _eye_skew_add(zero, 0.0, ief / geo[_CHI * L + w], t_e)
        _store9(blk, 2, w, _outer_add(M, -0.5 * ief, b, ttw))
    for r in range(11):
        for w in range(nl):
            c1dk1 = coef[_C1 * L + w] * coef[_DK1 * L + w]
            c2dk2 = coef[_C2 * L + w] * coef[_DK2 * L + w]
            Fl[r * L + w] = (c1dk1 * g[r * L + w] + c2dk2 * g[(11 + r) * L + w]
                             + cg[w] * g[(22 + r) * L + w])


@kernel
def _zero(x):
    """x = 0."""
    for i in range(x.shape[0]):
        x[i] = 0.0


@kernel
def frames_lanes(x, spring_edges, spring_signs, nl):
    """The frames of every lane at x.q from its accepted ones (der_frames: tangents, reference
    directors, reference twists) and the cos and sin of its edges' twist angles, into x."""
    edge_frames_lanes(x.q, x.edge_ld, x.acc_a1, x.acc_t, x.t, x.a1, x.a2, nl)
    reference_twists_lanes(x.t, x.a1, spring_edges, spring_signs, x.acc_ref, x.acc_cos,
                           x.acc_sin, x.ref, x.pt, x.ang, nl)
    edge_trig_lanes(x.q, x.edge_theta, x.ecos, x.esin, nl)


@kernel
def spring_lanes(x, s, spring_edges, spring_signs, inv_vor, jac, nl):
    """Spring s of der_bend_twist_forces, every lane, at the frames of frames_lanes: its
    forces -dE/dq into x.Fl (11, L) (to be subtracted: F[d] -= Fl, as the per-world kernel
    does) and, if jac, its Jacobian entries H + sum_k c_k g_k g_k^T into x.Jl (121, L)."""
    se = spring_signs[s, 0]
    sf = spring_signs[s, 1]
    _spring_geometry(x.q, x.spring_ld[s], spring_edges[s, 0], spring_edges[s, 1], se, sf,
                     spring_signs[s, 2], x.a1, x.a2, x.vec, x.geo, nl)
    _trig(x.ecos, x.esin, spring_edges[s, 0], spring_edges[s, 1], se, sf, x.trig, nl)
    _strains(s, x.trig, x.ref, x.kbar, x.tbar, inv_vor, x.EI, x.GJ, x.vec, x.geo, x.kap,
             x.coef, nl)
    # kappa1: P = m2, R = -m1 (1.0 * m2 is m2 exactly); kappa2: P = -m1, R = -m2; each
    # quantity's chain-rule inputs in its own third of cg, blk, gE, qq (chain_jacobian).
    # Constants, not a loop over the two: numba compiles _curvature for the literal rows,
    # which LLVM needs to vectorize it (with them as variables it stayed scalar)
    _curvature(0, 1.0, -1.0, _M2E, _M1E, x.kap, x.coef, x.vec, x.geo, x.g,
               lane_rows(x.blk, 0, 27), lane_rows(x.gE, 0, 12), lane_rows(x.qq, 0, 2),
               lane_rows(x.cg, 0, 1), jac, nl)
    _curvature(1, -1.0, -1.0, _M1E, _M2E, x.kap, x.coef, x.vec, x.geo, x.g,
               lane_rows(x.blk, 27, 27), lane_rows(x.gE, 12, 12), lane_rows(x.qq, 2, 2),
               lane_rows(x.cg, 1, 1), jac, nl)
    _twist(se, sf, x.coef, x.vec, x.geo, x.g, x.Fl, lane_rows(x.blk, 54, 27),
           lane_rows(x.gE, 24, 12), lane_rows(x.qq, 4, 2), lane_rows(x.cg, 2, 1), jac, nl)
    if jac:
        chain_jacobian(se, sf, x.coef, x.g, x.cg, x.blk, x.gE, x.qq, x.Jl, nl)


@kernel
def _forces_lanes(a, x, F, J, worlds, m, j0):
    """der_bend_twist_forces (want_jac) for the worlds of lanes 0 .. m - 1, whose inputs x
    holds (_gather): adds to the forces F[worlds[w]] (n_dof,) and the Jacobian entries
    J[j0 + 121 s + ..., worlds[w]] of lane w's world (J (nnz, worlds): LockstepWork.J), in
    the per-world kernel's order."""
    nl = lane_count(x)
    # True, as a run-time flag: numba compiles spring_lanes once for this caller and the
    # unified engine's (softmech.kernels.der_kind_lanes), which passes False for its forces
    jac = wants_jacobian(J)
    frames_lanes(x, a.spring_edges, a.spring_signs, nl)
    for s in range(a.spring_dofs.shape[0]):
        spring_lanes(x, s, a.spring_edges, a.spring_signs, a.inv_vor, jac, nl)
        d = a.spring_dofs[s]
        for w in range(m):
            Fw = F[worlds[w]]
            for r in range(11):
                Fw[d[r]] -= x.Fl[r * L + w]
        _write_jacobian(J, j0 + 121 * s, x.Jl, worlds, m)


@kernel
def _write_jacobian(J, base, Jl, worlds, m):
    """J[base + e, worlds[w]] -= Jl[e L + w] for the spring's 121 entries e and lanes w < m
    (J (nnz, worlds): LockstepWork.J; each entry once, so the order of the loops is free).
    Where the lanes are all of J's L worlds in order (a thread of L worlds that all evaluate:
    the common round), J's rows base .. base + 120 are Jl's layout, one flat loop that LLVM's
    loop vectorizer takes (a loop over 8 lanes it leaves scalar)."""
    if J.shape[1] == L and worlds[0] == 0 and lanes_in_order(worlds, m, L):
        flat = J[base:base + 121].reshape(121 * L)
        for k in range(121 * L):
            flat[k] -= Jl[k]
        return
    for e in range(121):
        Je = J[base + e]
        for w in range(m):
            Je[worlds[w]] -= Jl[e * L + w]


@kernel
def _gather(a, x, b, q, t, w):
    """Lane w of x's inputs from world b: its DOFs q (n_dof,), accepted frames
    (der_frames_lanes.gather_frames), and its natural strains and stiffnesses at time t [s]
    (der_natural_binding: the actuation tables written, as the per-world binding does)."""
    gather_frames(a, x, b, q, w)
    der_natural_binding(a, b, t, True)
    for s in range(a.acc_ref.shape[1]):
        x.tbar[s * L + w] = a.tbar[s]
        x.GJ[s * L + w] = a.GJ[s]
        for k in range(2):
            x.kbar[(2 * s + k) * L + w] = a.kbar[s, k]
            x.EI[(2 * s + k) * L + w] = a.EI[s, k]


@kernel
def refresh_accepted_trig(a, x, b):
    """x.accepted_cs[b] = cos and sin of world b's accepted reference twists, at the world's
    first evaluation of a step (they are constant during a step, so that the libm calls run
    once per step, not once per evaluation; gather_frames then reads them)."""
    cs = x.accepted_cs[b]
    for s in range(a.acc_ref.shape[1]):
        cs[0, s] = math.cos(a.acc_ref[b, s])
    for s in range(a.acc_ref.shape[1]):
        cs[1, s] = math.sin(a.acc_ref[b, s])


@kernel
def der_bend_twist_lanes_binding(a, x, S, i, world0, Q, t, h, n):
    """The lockstep form of softmech.kernels.implicit_bindings.der_bend_twist_binding: for
    the worlds r = S.evaluating[0 .. n - 1] of a lockstep thread (S: LockstepWork; world
    world0 + S.rows[r], DOFs Q[S.rows[r]]), binding i's bending and twisting forces added to
    S.F[r] and its Jacobian entries to S.J[S.offsets[i]:S.offsets[i + 1], r], LANES worlds a
    call of _forces_lanes; each world's numbers those of the per-world binding, bit for bit.
    S.measure[r] == 1 marks world r's first evaluation of a step (the lockstep loop sets it),
    where the cos and sin of its accepted reference twists are computed (refresh_accepted_trig);
    later evaluations of the step read them."""
    j0 = S.offsets[i]
    for c0 in range(0, n, L):
        m = min(L, n - c0)
        for w in range(m):
            r = S.evaluating[c0 + w]
            row = S.rows[r]
            if S.measure[r] == 1:
                refresh_accepted_trig(a, x, world0 + row)
            _gather(a, x, world0 + row, Q[row], t, w)
        if m < L:
            for arr in (x.q, x.acc_a1, x.acc_t, x.acc_ref, x.acc_cos, x.acc_sin, x.kbar, x.tbar,
                        x.EI, x.GJ):
                copy_lane0(arr, m)
        _forces_lanes(a, x, S.F, S.J, S.evaluating[c0:c0 + m], m, j0)
