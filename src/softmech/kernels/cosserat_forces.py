"""Internal forces and couples of discrete Cosserat rods (Gazzola, Dudte, McCormick, Mahadevan,
Royal Society Open Science 5:171628, 2018; ME498 handout section 2.2.1 with its errata).

Discretization: n elements between n + 1 nodes; element i carries the directors Q_i (rows d1, d2,
d3), the rest length l^_i, the current length l_i and the dilatation e_i = l_i / l^_i; interior
node j carries the Voronoi rest length D^_j = (l^_j + l^_{j+1}) / 2 and eps_j = D_j / D^_j.

Shear/stretch strain (local): sigma_i = Q_i (x_{i+1} - x_i) / l^_i - d3 = e_i Q_i t_i - (0, 0, 1).
Curvature (local, per rest length, handout erratum): kappa_j = -log(Q_{j+1} Q_j^T) / D^_j.

Constitutive laws (per rod):
  * Gazzola 2018 ("current" form, default): n = S (sigma - sigma0) / e, m = B (kappa - kappa0) / eps^3,
    i.e. the stiffnesses of the current cross-section of an incompressible rod (A = A^ / e).
  * hyperelastic ("small-strain" form): n = S (sigma - sigma0), m = B (kappa - kappa0): forces and
    couples are then exactly minus the gradient of
    E = sum_i l^_i/2 (sigma - sigma0)^T S (sigma - sigma0) + sum_j D^_j/2 (kappa - kappa0)^T B (kappa - kappa0),
    which needs the exact inverse Jacobian of the log map (extra c(theta) phi x (phi x m) term).
Kelvin-Voigt viscosity adds tau_kv S d(sigma)/dt and tau_kv B d(kappa)/dt to n and m.

Resulting loads (handout eqs. 3-4, Gazzola 2018 eqs. 2.14-2.17):
  node force            F = Delta^h(Q^T n)
  element couple        C = Delta^h(m) + A^h(phi x m) [+ exact term] + (Q dx) x n
                            + (J w / e) x w + (J w / e^2) de/dt
  with phi = D^ kappa; the last two are the Lagrangian-transport and unsteady-dilatation terms.
The element angular acceleration dw/dt = e J^{-1} C (eq. 4 multiplied by e / J) and the two
velocity-dependent couples belong to the integrator (softmech.kernels.rod_motion).

`rod_elasticity` is the rod body kind's force term: it runs first in the force pass of the step
and *initialises* the accumulators node_force [N] and elem_couple [N m, local] of every rod slot
(every rod has it), so no separate zeroing pass is needed; the other terms add to them.
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel

from softmech.kernels.so3 import log_jacobian_coefficient, theta_over_sin

RodElasticityArgs = namedtuple("RodElasticityArgs", [
    "x", "v", "Q", "w",                                              # state
    "elastic_rods",   # indices of the rods this call handles (all of its variant), (n,) int64
    "rod_node_off", "rod_elem_off", "rod_vor_off", "rod_n_elems", "rod_closed", "rod_law",
    "elem_material",  # rows ELEM_* of the rods' model, (n_blocks, N_ELEM_MATERIAL, n_elems*W)
    "vor_material",   # rows VOR_*, (n_blocks, N_VOR_MATERIAL, n_vor*W)
    "elem_n", "elem_tau", "vor_m", "vor_h", "vor_g",                  # scratch of this term
    "node_force", "elem_couple", "elem_len",                          # outputs (overwritten)
])
"""Arrays of the rod elasticity term (shapes in softmech.model; scratch: see RodElasticity).
The read-only material arrays come as rows of two arrays, not nine: a call's cost grows with
its arguments (11 scalars per array in numba's calling convention)."""

ELEM_S, ELEM_SIGMA0, ELEM_INV_REST_LEN, ELEM_KV_TAU = 0, 3, 6, 7
N_ELEM_MATERIAL = 8
"""Rows of elem_material: S (3) [N], rest strain sigma0 (3) [-], 1/l^ [1/m], tau_kv [s]."""
VOR_B, VOR_KAPPA0, VOR_REST_LEN, VOR_INV_REST_LEN, VOR_KV_TAU = 0, 3, 6, 7, 8
N_VOR_MATERIAL = 9
"""Rows of vor_material: B (3) [N m^2], rest curvature (3) [1/m], D^ [m], 1/D^ [1/m], tau_kv [s]."""


@kernel(inline="always")
def relative_rotation(a00, a01, a02, a10, a11, a12, a20, a21, a22,
                      b00, b01, b02, b10, b11, b12, b20, b21, b22):
    """Rotation vector phi of R = Q_b Q_a^T = exp(-[phi]x) (handout erratum: kappa = phi / D),
    plus sin, cos and theta/sin of its angle. phi has the same components in both local frames.

    R_mn = (row m of Q_b) . (row n of Q_a); only its trace and skew part are needed:
    axial(R - R^T)/2 = -sin(theta) phi/theta and cos(theta) = (tr R - 1)/2."""
    r00 = b00 * a00 + b01 * a01 + b02 * a02
    r11 = b10 * a10 + b11 * a11 + b12 * a12
    r22 = b20 * a20 + b21 * a21 + b22 * a22
    r01 = b00 * a10 + b01 * a11 + b02 * a12
    r10 = b10 * a00 + b11 * a01 + b12 * a02
    r02 = b00 * a20 + b01 * a21 + b02 * a22
    r20 = b20 * a00 + b21 * a01 + b22 * a02
    r12 = b10 * a20 + b11 * a21 + b12 * a22
    r21 = b20 * a10 + b21 * a11 + b22 * a12
    ax0 = 0.5 * (r21 - r12)
    ax1 = 0.5 * (r02 - r20)
    ax2 = 0.5 * (r10 - r01)
    sn = np.sqrt(ax0 * ax0 + ax1 * ax1 + ax2 * ax2)
    cs = 0.5 * (r00 + r11 + r22 - 1.0)
    ratio = theta_over_sin(sn, cs)
    return -ratio * ax0, -ratio * ax1, -ratio * ax2, sn, cs, ratio


@kernel(inline="always")
def voronoi_couple_terms(p0, p1, p2, m0, m1, m2, cc):
    """(h, g) of a bend/twist moment m across a rotation phi: h = phi x m / 2 and
    g = c(theta) phi x (phi x m); element a receives m + h + g and element b -m + h - g (the
    transposed inverse Jacobians of the log map; Gazzola's law drops g, i.e. cc = 0)."""
    h0 = p1 * m2 - p2 * m1
    h1 = p2 * m0 - p0 * m2
    h2 = p0 * m1 - p1 * m0
    return (0.5 * h0, 0.5 * h1, 0.5 * h2,
            cc * (p1 * h2 - p2 * h1), cc * (p2 * h0 - p0 * h2), cc * (p0 * h1 - p1 * h0))


@kernel(inline="always")
def rows3(a, start):
    """Views a[0, start:], a[1, start:], a[2, start:] (0-based, unit-stride: vectorizable)."""
    return a[0, start:], a[1, start:], a[2, start:]


@kernel(inline="always")
def pair_rows(a, start, W):
    """rows3 at the first node of every element (start) and at its second node (start + W)."""
    a0, a1, a2 = rows3(a, start)
    b0, b1, b2 = rows3(a, start + W)
    return a0, a1, a2, b0, b1, b2


@kernel(inline="always")
def rows9(a, start):
    return (a[0, start:], a[1, start:], a[2, start:], a[3, start:], a[4, start:], a[5, start:],
            a[6, start:], a[7, start:], a[8, start:])


@kernel(inline="always")
def rod_element_pass(a, bi, W, r, viscous):
    """Element loop of rod r in block bi: lengths, strains, internal force and element couples
    (the strain rate only for a Kelvin-Voigt rod: viscous is a literal constant of the variant)."""
    element_loop(viscous, a, bi, W, r)


@kernel(inline="always")
def element_loop(viscous, a, bi, W, r):
    """The loop of rod_element_pass; viscous (literal): add tau S d(sigma)/dt to the force."""
    e0 = a.rod_elem_off[r] * W
    ne = a.rod_n_elems[r] * W
    na = a.rod_node_off[r] * W
    stretch_current = a.rod_law[r, 0]
    # every array is viewed from the rod's first entry so the loop index k starts at 0
    xa0, xa1, xa2, xb0, xb1, xb2 = pair_rows(a.x[bi], na, W)
    va0, va1, va2, vb0, vb1, vb2 = pair_rows(a.v[bi], na, W)
    Q00, Q01, Q02, Q10, Q11, Q12, Q20, Q21, Q22 = rows9(a.Q[bi], e0)
    w0_, w1_, w2_ = rows3(a.w[bi], e0)
    E = a.elem_material[bi]
    S0, S1, S2 = E[ELEM_S, e0:], E[ELEM_S + 1, e0:], E[ELEM_S + 2, e0:]
    g0, g1, g2 = E[ELEM_SIGMA0, e0:], E[ELEM_SIGMA0 + 1, e0:], E[ELEM_SIGMA0 + 2, e0:]
    inv_rl = E[ELEM_INV_REST_LEN, e0:]
    kv = E[ELEM_KV_TAU, e0:]
    on0, on1, on2 = rows3(a.elem_n[bi], e0)
    ot0, ot1, ot2 = rows3(a.elem_tau[bi], e0)
    out_len = a.elem_len[bi, e0:]
    for k in range(ne):
        dx0 = xb0[k] - xa0[k]
        dx1 = xb1[k] - xa1[k]
        dx2 = xb2[k] - xa2[k]
        length = np.sqrt(dx0 * dx0 + dx1 * dx1 + dx2 * dx2)
        il = inv_rl[k]
        e = length * il
        inv_e = 1.0 / e
        q00 = Q00[k]; q01 = Q01[k]; q02 = Q02[k]
        q10 = Q10[k]; q11 = Q11[k]; q12 = Q12[k]
        q20 = Q20[k]; q21 = Q21[k]; q22 = Q22[k]
        # Q dx (local edge vector)
        qd0 = q00 * dx0 + q01 * dx1 + q02 * dx2
        qd1 = q10 * dx0 + q11 * dx1 + q12 * dx2
        qd2 = q20 * dx0 + q21 * dx1 + q22 * dx2
        # strain minus rest strain
        s0 = qd0 * il - g0[k]
        s1 = qd1 * il - g1[k]
        s2 = qd2 * il - 1.0 - g2[k]
        if viscous:
            # strain rate d/dt(Q dx / l^) = (Q dv - w x Q dx) / l^
            dv0 = vb0[k] - va0[k]
            dv1 = vb1[k] - va1[k]
            dv2 = vb2[k] - va2[k]
            qv0 = q00 * dv0 + q01 * dv1 + q02 * dv2
            qv1 = q10 * dv0 + q11 * dv1 + q12 * dv2
            qv2 = q20 * dv0 + q21 * dv1 + q22 * dv2
            w0 = w0_[k]; w1 = w1_[k]; w2 = w2_[k]
            tau = kv[k]
            s0 = s0 + tau * ((qv0 - (w1 * qd2 - w2 * qd1)) * il)
            s1 = s1 + tau * ((qv1 - (w2 * qd0 - w0 * qd2)) * il)
            s2 = s2 + tau * ((qv2 - (w0 * qd1 - w1 * qd0)) * il)
        scale = 1.0 + stretch_current * (inv_e - 1.0)
        n0 = S0[k] * s0 * scale
        n1 = S1[k] * s1 * scale
        n2 = S2[k] * s2 * scale
        # lab-frame internal force Q^T n
        on0[k] = q00 * n0 + q10 * n1 + q20 * n2
        on1[k] = q01 * n0 + q11 * n1 + q21 * n2
        on2[k] = q02 * n0 + q12 * n1 + q22 * n2
        # (Q dx) x n  (= (Q t) x S sigma l^ of eq. 4 with n = S sigma / e)
        c0 = qd1 * n2 - qd2 * n1
        c1 = qd2 * n0 - qd0 * n2
        c2 = qd0 * n1 - qd1 * n0
        # the velocity-dependent couples (transport, dilatation) are added in `rod_gyroscopic_kick`
        ot0[k] = c0
        ot1[k] = c1
        ot2[k] = c2
        out_len[k] = length
    if a.rod_closed[r]:
        for lane in range(W):  # ghost element: the closing Voronoi domain reads its length
            out_len[ne + lane] = out_len[lane]


@kernel(inline="always")
def rod_voronoi_pass(a, bi, W, r, exact, viscous):
    """Voronoi loop of rod r: curvature from the log map, bend/twist moment and its couples.

    The law's options reach the loop as literal constants of the variant kernel: as plain flags
    LLVM if-converted their branches and computed the log-Jacobian coefficient and the
    curvature rate in every iteration of every law."""
    v0 = a.rod_vor_off[r] * W
    ea = a.rod_elem_off[r] * W
    voronoi_loop(exact, viscous, (a, bi, W, r, v0, ea))


@kernel(inline="always")
def voronoi_loop(exact, viscous, args):
    """The loop of rod_voronoi_pass for one combination of the literal flags exact (the exact
    log-map Jacobian, g term) and viscous (Kelvin-Voigt curvature rate)."""
    a, bi, W, r, v0, ea = args
    nv = (a.rod_n_elems[r] - 1 + a.rod_closed[r]) * W
    bend_current = a.rod_law[r, 1]
    need_cc = exact or viscous
    A00, A01, A02, A10, A11, A12, A20, A21, A22 = rows9(a.Q[bi], ea)
    B00, B01, B02, B10, B11, B12, B20, B21, B22 = rows9(a.Q[bi], ea + W)
    wa0, wa1, wa2 = rows3(a.w[bi], ea)
    wb0, wb1, wb2 = rows3(a.w[bi], ea + W)
    la = a.elem_len[bi, ea:]
    lb = a.elem_len[bi, ea + W:]
    V = a.vor_material[bi]
    iD = V[VOR_INV_REST_LEN, v0:]
    D = V[VOR_REST_LEN, v0:]
    Bs0, Bs1, Bs2 = V[VOR_B, v0:], V[VOR_B + 1, v0:], V[VOR_B + 2, v0:]
    k00, k01, k02 = V[VOR_KAPPA0, v0:], V[VOR_KAPPA0 + 1, v0:], V[VOR_KAPPA0 + 2, v0:]
    kv = V[VOR_KV_TAU, v0:]
    om0, om1, om2 = rows3(a.vor_m[bi], v0)
    oh0, oh1, oh2 = rows3(a.vor_h[bi], v0)
    og0, og1, og2 = rows3(a.vor_g[bi], v0)
    for j in range(nv):
        p0, p1, p2, sn, cs, ratio = relative_rotation(
            A00[j], A01[j], A02[j], A10[j], A11[j], A12[j], A20[j], A21[j], A22[j],
            B00[j], B01[j], B02[j], B10[j], B11[j], B12[j], B20[j], B21[j], B22[j])
        idj = iD[j]
        cc = 0.0
        rate0 = 0.0
        rate1 = 0.0
        rate2 = 0.0
        if need_cc:
            th2 = p0 * p0 + p1 * p1 + p2 * p2
            cc = log_jacobian_coefficient(th2, sn, cs, ratio)
        if viscous:
            # curvature rate: d(phi)/dt = J_r^{-1}(phi) w_b - J_l^{-1}(phi) w_a
            #   = (w_b - w_a) + phi x (w_a + w_b) / 2 + c phi x (phi x (w_b - w_a))
            wd0 = wb0[j] - wa0[j]
            wd1 = wb1[j] - wa1[j]
            wd2 = wb2[j] - wa2[j]
            ws0 = wb0[j] + wa0[j]
            ws1 = wb1[j] + wa1[j]
            ws2 = wb2[j] + wa2[j]
            u0 = p1 * wd2 - p2 * wd1
            u1 = p2 * wd0 - p0 * wd2
            u2 = p0 * wd1 - p1 * wd0
            rate0 = (wd0 + 0.5 * (p1 * ws2 - p2 * ws1) + cc * (p1 * u2 - p2 * u1)) * idj
            rate1 = (wd1 + 0.5 * (p2 * ws0 - p0 * ws2) + cc * (p2 * u0 - p0 * u2)) * idj
            rate2 = (wd2 + 0.5 * (p0 * ws1 - p1 * ws0) + cc * (p0 * u1 - p1 * u0)) * idj
        inv_eps = 2.0 * D[j] / (la[j] + lb[j])
        ie3 = inv_eps * inv_eps * inv_eps
        scale = 1.0 + bend_current * (ie3 - 1.0)
        tau = kv[j]
        m0 = Bs0[j] * (p0 * idj - k00[j] + tau * rate0) * scale
        m1 = Bs1[j] * (p1 * idj - k01[j] + tau * rate1) * scale
        m2 = Bs2[j] * (p2 * idj - k02[j] + tau * rate2) * scale
        hh0, hh1, hh2, gg0, gg1, gg2 = voronoi_couple_terms(p0, p1, p2, m0, m1, m2,
                                                            cc * (1.0 if exact else 0.0))
        om0[j] = m0
        om1[j] = m1
        om2[j] = m2
        oh0[j] = hh0
        oh1[j] = hh1
        oh2[j] = hh2
        if exact:  # Gazzola's law has no g term (see rod_assemble)
            og0[j] = gg0
            og1[j] = gg1
            og2[j] = gg2


@kernel(inline="always")
def rod_assemble(a, bi, W, r):
    """Sum the internal loads of rod r into node forces (a.node_force) and element couples
    (a.elem_couple), overwriting both; external loads are added afterwards.

    Open rod: node 0 gets +n_0, node i gets n_i - n_{i-1}, node n gets -n_{n-1}. Closed rod:
    node 0 gets n_0 - n_{n-1}, and element 0 also receives the closing Voronoi domain's couple;
    ghost slots get zero (they are overwritten by the ghost copy)."""
    n_e = a.rod_n_elems[r]
    closed = a.rod_closed[r]
    e0 = a.rod_elem_off[r] * W
    n0 = a.rod_node_off[r] * W
    v0 = a.rod_vor_off[r] * W
    ne = n_e * W
    nv = (n_e - 1 + closed) * W
    exact = a.rod_law[r, 2] > 0.0  # else vor_g is not written (g = 0): not read either
    for c in range(3):
        # node forces Delta^h(Q^T n)
        F = a.elem_n[bi, c, e0:]
        acc = a.node_force[bi, c, n0:]
        acc_in = a.node_force[bi, c, n0 + W:]
        for k in range(W):
            acc[k] = F[k]
            acc_in[ne - W + k] = -F[ne - W + k]
        for k in range(ne - W):
            acc_in[k] = F[k + W] - F[k]
        # element couples: own terms + right Voronoi (m + h + g) + left Voronoi (-m + h - g)
        tau = a.elem_tau[bi, c, e0:]
        alpha = a.elem_couple[bi, c, e0:]
        alpha_in = a.elem_couple[bi, c, e0 + W:]
        mm = a.vor_m[bi, c, v0:]
        hh = a.vor_h[bi, c, v0:]
        gg = a.vor_g[bi, c, v0:]
        for k in range(ne):
            alpha[k] = tau[k]
        if exact:
            for j in range(nv):
                alpha[j] += mm[j] + hh[j] + gg[j]
            for j in range(ne - W):
                alpha_in[j] += -mm[j] + hh[j] - gg[j]
        else:
            for j in range(nv):
                alpha[j] += mm[j] + hh[j]
            for j in range(ne - W):
                alpha_in[j] += -mm[j] + hh[j]
        if closed:
            last = nv - W
            for k in range(W):
                acc[k] -= F[ne - W + k]
                acc[ne + k] = 0.0
                if exact:  # vor_g is written for the exact law only: not read otherwise
                    alpha[k] += -mm[last + k] + hh[last + k] - gg[last + k]
                else:
                    alpha[k] += -mm[last + k] + hh[last + k]
                alpha[ne + k] = 0.0


@kernel(inline="always")
def elastic_rods(a, bi, W, exact, viscous):
    """Internal elastic (and Kelvin-Voigt) loads of the call's rods (a.elastic_rods) in block
    bi into a.node_force (as forces [N]) and a.elem_couple (as local couples [N m]),
    overwriting both; a.elem_len gets the current element lengths [m] (read by the integrator
    and by later terms). exact, viscous: literal constants of the variant."""
    for i in range(a.elastic_rods.shape[0]):
        r = a.elastic_rods[i]
        rod_element_pass(a, bi, W, r, viscous)
        rod_voronoi_pass(a, bi, W, r, exact, viscous)
        rod_assemble(a, bi, W, r)


# One kernel per variant of the constitutive law (exact log-map Jacobian: the hyperelastic law;
# viscous: Kelvin-Voigt), so a scene compiles only the laws its rods use
# (softmech.terms.elasticity.RodElasticity groups the rods).
@kernel
def rod_elasticity(a, bi, W, t):
    elastic_rods(a, bi, W, False, False)


@kernel
def rod_elasticity_viscous(a, bi, W, t):
    elastic_rods(a, bi, W, False, True)


@kernel
def rod_elasticity_exact(a, bi, W, t):
    elastic_rods(a, bi, W, True, False)


@kernel
def rod_elasticity_exact_viscous(a, bi, W, t):
    elastic_rods(a, bi, W, True, True)


VARIANTS = {(False, False): rod_elasticity, (False, True): rod_elasticity_viscous,
            (True, False): rod_elasticity_exact, (True, True): rod_elasticity_exact_viscous}
"""(exact log-map Jacobian, Kelvin-Voigt) -> the elasticity kernel of that law variant."""
