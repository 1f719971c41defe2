"""Bending and twisting springs of discrete elastic rods: energy, gradient and analytic Hessian.

A spring (ref. 004 sec. 3.2) is a centre node x_b, its neighbours x_a, x_c, the edge e = x_b - x_a
entering it and f = x_c - x_b leaving it, their twist angles theta_e, theta_f and material
frames (m1, m2) (softmech.kernels.der_frames). Its 11 DOFs, in this order:
    (x_a [3], theta_e, x_b [3], theta_f, x_c [3]).

Energies (Bergou et al. 2008 eqs. (3), (8)-(10); ref. 004 eqs. 11-16), with DisMech's discrete
(dimensionless) curvatures and the Voronoi length l_i = (l^_e + l^_f) / 2:
    kb     = 2 t_e x t_f / (1 + t_e . t_f)                  curvature binormal (004 eq. 11)
    kappa1 =  1/2 kb . (m2_e + m2_f),  kappa2 = -1/2 kb . (m1_e + m1_f)       (004 eqs. 12-13)
    E_b    = 1/2 EI1 / l_i (kappa1 - kappa1^)^2 + 1/2 EI2 / l_i (kappa2 - kappa2^)^2  (eq. 14)
    m      = theta_f - theta_e + m_ref                      twist (004 eq. 15)
    E_t    = 1/2 GJ / l_i (m - m^)^2                        (004 eq. 16)

Gradients and Hessians follow M. K. Jawed, A. Novelia, O. M. O'Reilly, "A Primer on the
Kinematics of Discrete Elastic Rods" (Springer 2018), sec. 7 and its code (DisMech's
gradEb_hessEb / gradEt_hessEt), written once for a generic curvature
    kappa = 1/2 kb . (P_e + P_f),   P = m2 for kappa1, P = -m1 for kappa2,
with R = dP/dtheta (-m1 resp. -m2) and d2P/dtheta2 = -P. The reference twist's gradient is
dm_ref/de = kb / (2 |e|), dm_ref/df = kb / (2 |f|) (Bergou 2008 sec. 6; 2010 sec. 4.1).

Exactness: with the reference frames time-parallel transported from the accepted step, these
formulas are the exact gradient of the energy at the accepted configuration and the Hessian is
the symmetric part of the gradient's derivative there (the transport's holonomy adds only an
antisymmetric part); away from it they are DisMech's (Newton-consistent) approximation. The
property tests check both statements (tests/properties/test_der_energies.py).
"""
import math

from softmech.kernels import kernel
from softmech.kernels.der_frames import axpy3, cross3, dot3, load3, node3, scale3

# index of x_a, theta_e, x_b, theta_f, x_c in a spring's 11 DOFs
_XA, _TE, _XB, _TF, _XC = 0, 3, 4, 7, 8


@kernel(inline="always")
def _outer_add(M, k, c, u, v):
    """M[k] += c u v^T."""
    for r in range(3):
        for s in range(3):
            M[k, r, s] += c * u[r] * v[s]


@kernel(inline="always")
def _sym_add(M, k, c, u, v):
    """M[k] += c (u v^T + v u^T)."""
    for r in range(3):
        for s in range(3):
            M[k, r, s] += c * (u[r] * v[s] + v[r] * u[s])


@kernel(inline="always")
def _eye_skew_add(M, k, c_eye, c_skew, a):
    """M[k] += c_eye I + c_skew [a]x  ([a]x b = a x b)."""
    for r in range(3):
        M[k, r, r] += c_eye
    M[k, 0, 1] -= c_skew * a[2]
    M[k, 0, 2] += c_skew * a[1]
    M[k, 1, 0] += c_skew * a[2]
    M[k, 1, 2] -= c_skew * a[0]
    M[k, 2, 0] -= c_skew * a[1]
    M[k, 2, 1] += c_skew * a[0]


@kernel
def _add_chain(H, c, blk, gEe, gFe, gEf, gFf, qee, qff):
    """H (11, 11) += c * the Hessian over the spring's DOFs of a quantity Q(e, f, theta_e,
    theta_f) with e = x_b - x_a, f = x_c - x_b, given blk[0] = d2Q/de2, blk[1] = d2Q/df2,
    blk[2] = d2Q/de df (rows e, columns f), the mixed vectors gEe = d2Q/de dtheta_e,
    gFe = d2Q/df dtheta_e, gEf, gFf, and qee = d2Q/dtheta_e2, qff = d2Q/dtheta_f2 (the chain rule
    de/dx_a = -I, de/dx_b = df/dx_b... as in DisMech's DDkappa assembly)."""
    for r in range(3):
        for s in range(3):
            A = blk[0, r, s]
            C = blk[1, r, s]
            D = blk[2, r, s]
            Dt = blk[2, s, r]
            H[_XA + r, _XA + s] += c * A
            H[_XA + r, _XB + s] += c * (D - A)
            H[_XA + r, _XC + s] -= c * D
            H[_XB + r, _XA + s] += c * (Dt - A)
            H[_XB + r, _XB + s] += c * (A - D - Dt + C)
            H[_XB + r, _XC + s] += c * (D - C)
            H[_XC + r, _XA + s] -= c * Dt
            H[_XC + r, _XB + s] += c * (Dt - C)
            H[_XC + r, _XC + s] += c * C
    for r in range(3):
        for col, ge, gf in ((_TE, gEe[r], gFe[r]), (_TF, gEf[r], gFf[r])):
            H[_XA + r, col] -= c * ge
            H[_XB + r, col] += c * (ge - gf)
            H[_XC + r, col] += c * gf
            H[col, _XA + r] -= c * ge
            H[col, _XB + r] += c * (ge - gf)
            H[col, _XC + r] += c * gf
    H[_TE, _TE] += c * qee
    H[_TF, _TF] += c * qff


@kernel(inline="always")
def _put_grad(g, row, de, df, dte, dtf):
    """g[row] = gradient over the 11 DOFs of a quantity with dQ/de = de, dQ/df = df."""
    for r in range(3):
        g[row, _XA + r] = -de[r]
        g[row, _XB + r] = de[r] - df[r]
        g[row, _XC + r] = df[r]
    g[row, _TE] = dte
    g[row, _TF] = dtf


@kernel(unliteral=True)
def _curvature(kappa, c, Pe, Pf, Re, Rf, kb, te, tf, tt, chi, ne, nf, want_hess, g, row, blk, H):
    """One material curvature kappa = 1/2 kb . (Pe + Pf) (kappa1: P = m2, R = -m1; kappa2:
    P = -m1, R = -m2): writes its gradient to g[row] and, if want_hess, adds c * its Hessian
    to H (Jawed et al. 2018 sec. 7; the D2kappa formulas of DisMech's gradEb_hessEb)."""
    dt = scale3(1.0 / chi, axpy3(1.0, Pe, Pf))           # tilde d
    tf_x_d = cross3(tf, dt)
    te_x_d = cross3(te, dt)
    de = scale3(1.0 / ne, axpy3(-kappa, tt, tf_x_d))     # dkappa/de
    df = scale3(1.0 / nf, axpy3(-kappa, tt, scale3(-1.0, te_x_d)))
    kRe = 0.5 * dot3(kb, Re)
    kRf = 0.5 * dot3(kb, Rf)
    _put_grad(g, row, de, df, kRe, kRf)
    if not want_hess:
        return
    for k in range(3):
        for r in range(3):
            for s in range(3):
                blk[k, r, s] = 0.0
    ie2 = 1.0 / (ne * ne)
    if2 = 1.0 / (nf * nf)
    ief = 1.0 / (ne * nf)
    # d2kappa/de2
    _outer_add(blk, 0, 2.0 * kappa * ie2, tt, tt)
    _sym_add(blk, 0, -ie2, tf_x_d, tt)
    _eye_skew_add(blk, 0, -kappa * ie2 / chi, 0.0, tt)
    _outer_add(blk, 0, kappa * ie2 / chi, te, te)
    _sym_add(blk, 0, 0.25 * ie2, kb, Pe)
    # d2kappa/df2
    _outer_add(blk, 1, 2.0 * kappa * if2, tt, tt)
    _sym_add(blk, 1, if2, te_x_d, tt)
    _eye_skew_add(blk, 1, -kappa * if2 / chi, 0.0, tt)
    _outer_add(blk, 1, kappa * if2 / chi, tf, tf)
    _sym_add(blk, 1, 0.25 * if2, kb, Pf)
    # d2kappa/de df
    _eye_skew_add(blk, 2, -kappa * ief / chi, -ief, dt)
    _outer_add(blk, 2, -kappa * ief / chi, te, tf)
    _outer_add(blk, 2, 2.0 * kappa * ief, tt, tt)
    _outer_add(blk, 2, -ief, tf_x_d, tt)
    _outer_add(blk, 2, ief, tt, te_x_d)
    # mixed position-angle terms and d2kappa/dtheta2 = -1/2 kb . P
    gEe = scale3(1.0 / ne, axpy3(-kRe, tt, scale3(1.0 / chi, cross3(tf, Re))))
    gEf = scale3(1.0 / ne, axpy3(-kRf, tt, scale3(1.0 / chi, cross3(tf, Rf))))
    gFe = scale3(1.0 / nf, axpy3(-kRe, tt, scale3(-1.0 / chi, cross3(te, Re))))
    gFf = scale3(1.0 / nf, axpy3(-kRf, tt, scale3(-1.0 / chi, cross3(te, Rf))))
    _add_chain(H, c, blk, gEe, gFe, gEf, gFf, -0.5 * dot3(kb, Pe), -0.5 * dot3(kb, Pf))


@kernel
def _twist_hessian(H, c, kb, te, tf, tt, chi, ne, nf, blk):
    """H += c * Hessian of the twist m (its theta part is linear), DisMech's gradEt_hessEt."""
    for k in range(3):
        for r in range(3):
            for s in range(3):
                blk[k, r, s] = 0.0
    _sym_add(blk, 0, -0.25 / (ne * ne), kb, axpy3(1.0, te, tt))
    _sym_add(blk, 1, -0.25 / (nf * nf), kb, axpy3(1.0, tf, tt))
    ief = 1.0 / (ne * nf)
    _eye_skew_add(blk, 2, 0.0, ief / chi, te)
    _outer_add(blk, 2, -0.5 * ief, kb, tt)
    zero = (0.0, 0.0, 0.0)
    _add_chain(H, c, blk, zero, zero, zero, zero, 0.0, 0.0)



@kernel
def _spring_frames(q, d, a1, a2, je, jf, se, sf, ce):
    """Geometry of one spring: unit tangents t_e, t_f, lengths |e|, |f| [m], the oriented
    twist angles theta_e', theta_f' [rad] and material frames m1, m2 of both edges (a1' =
    s c a1, a2' = c a2, theta' = s theta: softmech.kernels.der_frames)."""
    xb = node3(q, d, _XB)
    e = axpy3(-1.0, node3(q, d, _XA), xb)
    f = axpy3(-1.0, xb, node3(q, d, _XC))
    ne = math.sqrt(dot3(e, e))
    nf = math.sqrt(dot3(f, f))
    th_e = se * q[d[_TE]]
    th_f = sf * q[d[_TF]]
    a1e = scale3(se * ce, load3(a1, je))
    a2e = scale3(ce, load3(a2, je))
    a1f = scale3(sf, load3(a1, jf))
    a2f = load3(a2, jf)
    m1e, m2e = material_frame(a1e, a2e, math.cos(th_e), math.sin(th_e))
    m1f, m2f = material_frame(a1f, a2f, math.cos(th_f), math.sin(th_f))
    return scale3(1.0 / ne, e), scale3(1.0 / nf, f), ne, nf, th_e, th_f, m1e, m2e, m1f, m2f


@kernel(inline="always")
def material_frame(a1, a2, cs, sn):
    """(m1, m2) = (cos a1 + sin a2, -sin a1 + cos a2), given cs = cos(theta), sn =
    sin(theta) (the reference frame turned by the twist angle, der_frames' docstring)."""
    return axpy3(cs, a1, scale3(sn, a2)), axpy3(-sn, a1, scale3(cs, a2))


@kernel
def der_bend_twist_forces(q, spring_dofs, spring_edges, spring_signs, a1, a2, ref_twist,
                          kappa_bar, twist_bar, inv_vor, EI, GJ, want_jac, g, H, blk, F, J):
    """Add the bending and twisting forces F -= dE/dq and, if want_jac, J -= d2E/dq2 (121
    entries per spring, row-major over its 11 DOFs). Returns the energy [J].

    q: (n_dof,) [m, rad]; spring_dofs: (s, 11) int64; spring_edges: (s, 2) int64 (edges e, f);
    spring_signs: (s, 3) (s_e, s_f, c_e) +-1.0; a1, a2: (m, 3) the current reference
    directors and ref_twist (s,) [rad] (softmech.kernels.der_frames.der_frames); kappa_bar:
    (s, 2) natural discrete curvatures [-]; twist_bar: (s,) natural discrete twist [rad]; inv_vor: (s,) 1 / l_i [1/m];
    EI: (s, 2) [N m^2]; GJ: (s,) [N m^2]. Scratch: g (3, 11), H (11, 11), blk (3, 3, 3).
    F: (n_dof,) [N, N m]; J: (121 s,) [N/m, N, N m].
    """
    energy = 0.0
    for s in range(spring_dofs.shape[0]):
        d = spring_dofs[s]
        se = spring_signs[s, 0]
        sf = spring_signs[s, 1]
        te, tf, ne, nf, th_e, th_f, m1e, m2e, m1f, m2f = _spring_frames(
            q, d, a1, a2, spring_edges[s, 0], spring_edges[s, 1], se, sf, spring_signs[s, 2])
        chi = 1.0 + dot3(te, tf)
        kb = scale3(2.0 / chi, cross3(te, tf))
        tt = scale3(1.0 / chi, axpy3(1.0, te, tf))
        k1 = 0.5 * (dot3(kb, m2e) + dot3(kb, m2f))
        k2 = -0.5 * (dot3(kb, m1e) + dot3(kb, m1f))
        tw = th_f - th_e + ref_twist[s]
        iv = inv_vor[s]
        c1 = EI[s, 0] * iv
        c2 = EI[s, 1] * iv
        ct = GJ[s] * iv
        dk1 = k1 - kappa_bar[s, 0]
        dk2 = k2 - kappa_bar[s, 1]
        dtw = tw - twist_bar[s]
        energy += 0.5 * (c1 * dk1 * dk1 + c2 * dk2 * dk2 + ct * dtw * dtw)
        if want_jac:
            for r in range(11):
                for k in range(11):
                    H[r, k] = 0.0
        minus_m1e = scale3(-1.0, m1e)
        minus_m1f = scale3(-1.0, m1f)
        _curvature(k1, c1 * dk1, m2e, m2f, minus_m1e, minus_m1f, kb, te, tf, tt, chi, ne, nf,
                   want_jac, g, 0, blk, H)
        _curvature(k2, c2 * dk2, minus_m1e, minus_m1f, scale3(-1.0, m2e), scale3(-1.0, m2f),
                   kb, te, tf, tt, chi, ne, nf, want_jac, g, 1, blk, H)
        _put_grad(g, 2, scale3(0.5 / ne, kb), scale3(0.5 / nf, kb), -1.0, 1.0)
        # edges stored the other way: d theta'/d theta = sign
        for row in range(3):
            g[row, _TE] *= se
            g[row, _TF] *= sf
        for r in range(11):
            F[d[r]] -= c1 * dk1 * g[0, r] + c2 * dk2 * g[1, r] + ct * dtw * g[2, r]
        if want_jac:
            _twist_hessian(H, ct * dtw, kb, te, tf, tt, chi, ne, nf, blk)
            for r in range(11):
                H[_TE, r] *= se
                H[r, _TE] *= se
                H[_TF, r] *= sf
                H[r, _TF] *= sf
            base = 121 * s
            for r in range(11):
                for k in range(11):
                    J[base + 11 * r + k] -= (H[r, k] + c1 * g[0, r] * g[0, k]
                                             + c2 * g[1, r] * g[1, k] + ct * g[2, r] * g[2, k])
    return energy


@kernel
def der_strains(q, spring_dofs, spring_edges, spring_signs, a1, a2, ref_twist, kappa, twist):
    """Discrete material curvatures kappa (s, 2) [-] (ref. 004 eqs. 12-13) and twists (s,) [rad]
    (eq. 15) of every spring, arguments as der_bend_twist_forces (writes kappa and twist)."""
    for s in range(spring_dofs.shape[0]):
        te, tf, _, _, th_e, th_f, m1e, m2e, m1f, m2f = _spring_frames(
            q, spring_dofs[s], a1, a2, spring_edges[s, 0], spring_edges[s, 1],
            spring_signs[s, 0], spring_signs[s, 1], spring_signs[s, 2])
        kb = scale3(2.0 / (1.0 + dot3(te, tf)), cross3(te, tf))
        kappa[s, 0] = 0.5 * (dot3(kb, m2e) + dot3(kb, m2f))
        kappa[s, 1] = -0.5 * (dot3(kb, m1e) + dot3(kb, m1f))
        twist[s] = th_f - th_e + ref_twist[s]
