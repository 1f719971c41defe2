"""A discrete elastic rod spring's Jacobian entries for several worlds at once, the worlds
innermost (lanes): der_bend_twist_forces' Hessian assembly (its _add_chain for kappa1, kappa2
and the twist, the sign flips of edges stored the other way, and the outer products of the
gradients) in the lockstep form of softmech.kernels.der_bend_twist_lanes, which supplies the
inputs (each quantity's chain-rule factor, blocks, mixed vectors and angle terms) and its
layout (flat (..., LANES) arrays, entry (i, w) at i * LANES + w).

Each entry is built as the per-world kernel builds it -- 0, + the three chain rules in order,
times the signs (exact: +-1), then + the three outer products -- so each lane's entries equal
the per-world kernel's bit for bit (tests/unit/test_lockstep_newton.py).
"""
from softmech.kernels import kernel
from softmech.kernels.band_lanes import LANES
from softmech.kernels.der_bend_twist import _TE, _TF, _XA, _XB, _XC
from softmech.kernels.der_frames_lanes import lane_rows

L = LANES
_C1, _C2, _CT, _DK1, _DK2, _DTW = range(6)
"""Rows of der_bend_twist_lanes' coef (6, L): c1, c2, ct [N m], dk1, dk2, dtw."""


@kernel(inline="always")
def _chain9(h, cw, b, r, s, w):
    """The 3 x 3 blocks (r, s) of the position rows and columns (a, b, c: h a 9-tuple, aa ab
    ac ba bb bc ca cb cc) + cw * the chain rule of one quantity's blocks b (27 L,) = d2Q/de2,
    d2Q/df2, d2Q/de df (der_bend_twist._add_chain's first loop, lane w)."""
    A = b[(3 * r + s) * L + w]
    C = b[(9 + 3 * r + s) * L + w]
    D = b[(18 + 3 * r + s) * L + w]
    Dt = b[(18 + 3 * s + r) * L + w]
    return (h[0] + cw * A, h[1] + cw * (D - A), h[2] - cw * D,
            h[3] + cw * (Dt - A), h[4] + cw * (A - D - Dt + C), h[5] + cw * (D - C),
            h[6] - cw * Dt, h[7] + cw * (Dt - C), h[8] + cw * C)


@kernel(inline="always")
def _mixed3(h, cw, ge, gf):
    """The entries (a, angle), (b, angle), (c, angle) (h a 3-tuple) + cw * the chain rule of
    the mixed derivatives ge, gf (der_bend_twist._add_chain's second loop)."""
    return (h[0] - cw * ge, h[1] + cw * (ge - gf), h[2] + cw * gf)


@kernel(inline="always")
def _entry(Jl, i, k, w, h, c1, c2, ct, g0, g1, g2):
    """Jl[i, k] (121, L), lane w = h + sum_k c_k g_k[i] g_k[k] (der_bend_twist_forces' last
    loop, before its J -= ...; g0, g1, g2 the gradients' views (11 L,))."""
    Jl[(11 * i + k) * L + w] = (h + c1 * g0[i * L + w] * g0[k * L + w]
                                + c2 * g1[i * L + w] * g1[k * L + w]
                                + ct * g2[i * L + w] * g2[k * L + w])


@kernel(inline="always")
def _mixed_entries(Jl, r, col, sign, ie, w, k0, k1, k2, e0, e1, e2, c1, c2, ct, g0, g1, g2):
    """Jl's entries (a, b, c rows r; angle col) and their transposes, lane w: 0 + the three
    chain rules' mixed parts (gE's views e0, e1, e2; ge its row ie + r, gf its row ie + 3 + r),
    times the column's sign (sign), + the outer products (_entry)."""
    zero3 = (0.0, 0.0, 0.0)
    ge = (ie + r) * L + w
    gf = (ie + 3 + r) * L + w
    h = _mixed3(_mixed3(_mixed3(zero3, k0, e0[ge], e0[gf]), k1, e1[ge], e1[gf]),
                k2, e2[ge], e2[gf])
    va = h[0] * sign
    vb = h[1] * sign
    vc = h[2] * sign
    _entry(Jl, _XA + r, col, w, va, c1, c2, ct, g0, g1, g2)
    _entry(Jl, col, _XA + r, w, va, c1, c2, ct, g0, g1, g2)
    _entry(Jl, _XB + r, col, w, vb, c1, c2, ct, g0, g1, g2)
    _entry(Jl, col, _XB + r, w, vb, c1, c2, ct, g0, g1, g2)
    _entry(Jl, _XC + r, col, w, vc, c1, c2, ct, g0, g1, g2)
    _entry(Jl, col, _XC + r, w, vc, c1, c2, ct, g0, g1, g2)


@kernel
def chain_jacobian(se, sf, coef, g, cg, blk, gE, qq, Jl, nl):
    """The spring's Jacobian entries Jl (121, L) = H + sum_k c_k g_k g_k^T, every lane, where H
    is the sum of the chain rules of kappa1, kappa2 and the twist (der_bend_twist._add_chain,
    factors cg (3, L), blocks blk (3, 27, L), mixed vectors gE (3, 12, L) and angle terms
    qq (3, 2, L): _curvature's and _twist's, in that order) with the sign flips of edges stored
    the other way. Each entry is built as the per-world kernel builds it -- 0, + the three
    chain rules in order, times the signs (exact: +-1), then + the three outer products -- but
    in registers, in one pass: H's three read-modify-write passes, its zeroing and its sign
    pass are gone (a spring's forces and Jacobian for eight lanes, through views: 1,448 ->
    1,255 ns, 2026-12-05)."""
    g0, g1, g2 = lane_rows(g, 0, 11), lane_rows(g, 11, 11), lane_rows(g, 22, 11)
    b0, b1, b2 = lane_rows(blk, 0, 27), lane_rows(blk, 27, 27), lane_rows(blk, 54, 27)
    e0, e1, e2 = lane_rows(gE, 0, 12), lane_rows(gE, 12, 12), lane_rows(gE, 24, 12)
    zero9 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    # (the loops over lanes innermost, with no loop inside: LLVM vectorizes them; offsets
    # from loop counters, not arguments, so no negative-index wraparound: lane_rows)
    for r in range(3):
        for s in range(3):
            for w in range(nl):
                c1 = coef[_C1 * L + w]
                c2 = coef[_C2 * L + w]
                ct = coef[_CT * L + w]
                h = _chain9(_chain9(_chain9(zero9, cg[w], b0, r, s, w), cg[L + w], b1, r, s, w),
                            cg[2 * L + w], b2, r, s, w)
                _entry(Jl, _XA + r, _XA + s, w, h[0], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XA + r, _XB + s, w, h[1], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XA + r, _XC + s, w, h[2], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XB + r, _XA + s, w, h[3], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XB + r, _XB + s, w, h[4], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XB + r, _XC + s, w, h[5], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XC + r, _XA + s, w, h[6], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XC + r, _XB + s, w, h[7], c1, c2, ct, g0, g1, g2)
                _entry(Jl, _XC + r, _XC + s, w, h[8], c1, c2, ct, g0, g1, g2)
    # the position-angle entries: gE's rows gEe, gFe (theta_e), gEf, gFf (theta_f), each
    # (3, L); the rows r written out (with r a loop counter, LLVM could not tell a row's
    # stores from its transpose's and left the loop scalar)
    for w in range(nl):
        c1 = coef[_C1 * L + w]
        c2 = coef[_C2 * L + w]
        ct = coef[_CT * L + w]
        k0 = cg[w]
        k1 = cg[L + w]
        k2 = cg[2 * L + w]
        _mixed_entries(Jl, 0, _TE, se, 0, w, k0, k1, k2, e0, e1, e2, c1, c2, ct, g0, g1, g2)
        _mixed_entries(Jl, 1, _TE, se, 0, w, k0, k1, k2, e0, e1, e2, c1, c2, ct, g0, g1, g2)
        _mixed_entries(Jl, 2, _TE, se, 0, w, k0, k1, k2, e0, e1, e2, c1, c2, ct, g0, g1, g2)
        _mixed_entries(Jl, 0, _TF, sf, 6, w, k0, k1, k2, e0, e1, e2, c1, c2, ct, g0, g1, g2)
        _mixed_entries(Jl, 1, _TF, sf, 6, w, k0, k1, k2, e0, e1, e2, c1, c2, ct, g0, g1, g2)
        _mixed_entries(Jl, 2, _TF, sf, 6, w, k0, k1, k2, e0, e1, e2, c1, c2, ct, g0, g1, g2)
    for w in range(nl):
        c1 = coef[_C1 * L + w]
        c2 = coef[_C2 * L + w]
        ct = coef[_CT * L + w]
        hee = 0.0 + cg[w] * qq[w]
        hff = 0.0 + cg[w] * qq[L + w]
        hee = hee + cg[L + w] * qq[2 * L + w]
        hff = hff + cg[L + w] * qq[3 * L + w]
        hee = hee + cg[2 * L + w] * qq[4 * L + w]
        hff = hff + cg[2 * L + w] * qq[5 * L + w]
        hef = 0.0 * se * sf
        _entry(Jl, _TE, _TE, w, hee * se * se, c1, c2, ct, g0, g1, g2)
        _entry(Jl, _TF, _TF, w, hff * sf * sf, c1, c2, ct, g0, g1, g2)
        _entry(Jl, _TE, _TF, w, hef, c1, c2, ct, g0, g1, g2)
        _entry(Jl, _TF, _TE, w, hef, c1, c2, ct, g0, g1, g2)
