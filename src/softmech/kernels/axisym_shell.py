"""Axisymmetric Cosserat shell on a meridian rod (softmech.terms.axisym_shell): the hoop part of
the shell law, the cavity pressure, the radial actuation, the clamp to the root body, and the
mantle's fluid loads (drag, eq. 12; pulsed-jet thrust, eq. 15 of Renda et al., IJRR 2018).

The shell's meridian is a Cosserat rod whose section makes the rod's own elasticity the
meridional part of the shell law (softmech.bodies.axisym_shell). This kernel adds, per element e
(nodes i, i+1; r the distance from the symmetry axis a through c, z = (x - c).a), the energy
per reference area A0 = 2 pi r0 l0 (plane stress, Renda eq. 7 with Simo & Fox 1989 strains,
linearized: e22 / r*^2 ~ eps_t, d22 / r*^2 ~ -dk):

    E_e = A0 [ C/2 eps_t^2 + C nu eps_s eps_t + D/2 dk^2 ]
    eps_t = r_m / r0 - 1 (hoop stretch at the element's mid radius r_m = (r_i + r_i+1) / 2),
    eps_s = l / l0 - 1 (meridional stretch), dk = (d3.a) / r_m - k0 (hoop curvature change:
    the hoop normal curvature of a surface of revolution is (t.a) / r, t the meridian director),
    C = E h / (1 - nu^2), D = E h^3 / (12 (1 - nu^2)); the Kelvin-Voigt part (eq. 7) adds tau x
    the same law on the strain rates (tau = 3 eta / E, Renda's viscous/elastic ratio).
The rod's elasticity supplies C/2 eps_s^2, the meridional bending D/2 kappa_s^2 and the shear.
The Poisson coupling of the two bendings (plane stress, Renda eq. 7's bending block; the
Kirchhoff-Love thin-shell law of Timoshenko & Woinowsky-Krieger's Theory of Plates and Shells:
M_s = D (k_s + nu k_t), M_t = D (k_t + nu k_s)) is the energy D nu kappa_s dk per area, kept
per interior node j of the meridian (its Voronoi domain of rest length D^_j = (l0_j-1 + l0_j)
/ 2 and area A_j = 2 pi r^_j D^_j, r^_j the mean rest radius of its two elements) by
`bending_coupling`:

    E_j = A_j D nu kappa_s,j dk_j,   kappa_s,j = -(theta_j - theta0_j) / D^_j,
    dk_j = (dk_j-1 + dk_j) / 2 (the two elements' hoop curvature changes),

theta_j the angle from element j-1's d3 to element j's about the hoop direction d2 (the
meridian's normal curvature is -d(theta)/ds with the normal d3 x d2 for which the hoop one is
(t.a) / r: both are -1/R on a sphere); its Kelvin-Voigt part again adds tau x the rates.

Cavity volume (the frustums between the meridian and the axis), Renda eq. 15's U:
    U = s sum_e pi/3 (r_i^2 + r_i r_i+1 + r_i+1^2)(z_i+1 - z_i)     (s = +-1: U0 > 0),
the pressure p(t) does the work p dU, so its nodal forces are p dU/dx (exact for the discrete
surface, and their axial sum is zero); the radial actuation f_r(t) [Pa] (eq. 24's pressure)
pushes each node along e_r with half the reference area of its elements inside [X_s1, X_s2].
Thrust (eq. 15, the total over the mantle): T = -rho_w C_f U' |U'| / A_n a on the root body,
A_n = A_no for outflow (U' < 0) and A_ni for inflow; drag (eq. 12, total -1/2 rho_w C_d A_ref
V |V| a, V = a.v_root) spread over the nodes by reference area. The clamp holds the first two
nodes at their body-frame positions (penalty k, c); the root receives only its axial part: the
ring's radial forces cancel around the circumference (axisymmetry), as do their moments.
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.driven import table_sample
from softmech.kernels.joints import to_lab

# per-element table columns
SE_R0, SE_L0, SE_AREA, SE_C, SE_D, SE_NU, SE_K0, SE_ACT, SE_TH0 = range(9)
N_SE = 9
# per-shell per-world parameters
SP_K, SP_C, SP_TAU, SP_JET_OUT, SP_JET_IN, SP_DRAG = range(6)
N_SP = 6
# per-shell outputs
SO_U, SO_UDOT, SO_THRUST, SO_DRAG = range(4)
N_SO = 4

AxisymShellArgs = namedtuple("AxisymShellArgs", [
    "x", "v", "Q", "w", "rb_x", "rb_v", "rb_Q", "rb_w",          # state
    "sh_node0",    # first node slot of each shell's meridian rod, (n_sh,) int64
    "sh_elem0",    # first element slot, (n_sh,) int64
    "sh_e0",       # first row of the shell in sh_elem, (n_sh + 1,) int64
    "sh_body",     # rigid-body slot of the root (-1: axis fixed in the lab), (n_sh,) int64
    "sh_axis",     # axis a and point c: body principal frame (relative to the COM) or lab, (n_sh, 2, 3)
    "sh_clamp",    # body-frame offsets of the two clamped nodes (lab points without body), (n_sh, 2, 3)
    "sh_sign",     # s: sign making the rest cavity volume positive (+1 for U0 = 0), (n_sh,)
    "sh_elem",     # r0 [m], l0 [m], A0 [m^2], C [N/m], D [N m], nu, k0 [1/m], actuated (0/1),
                   # theta0 [rad] (rest meridian turn from the previous element), (n_e, 9)
    "sh_times",    # signal times [s], (n_sh, n_t)
    "sh_signal",   # cavity pressure p [Pa], radial actuation f_r [Pa], unused, (n_sh, n_t, 3)
    "sh_count",    # samples used per shell, (n_sh,) int64
    "sh_params",   # k [N/m], c [N s/m], tau [s], rho C_f / A_no, rho C_f / A_ni [kg/m^7],
                   # 1/2 rho C_d A_ref [kg/m], (n_blocks, n_sh, 6, W)
    "sh_out",      # output: U [m^3], U' [m^3/s], thrust [N], drag [N] along a, (n_blocks, n_sh, 4, W)
    "node_force", "elem_couple", "rb_force",                      # outputs (added to)
])


@kernel(inline="always")
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel(inline="always")
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel
def radial(x, v, n, c, a, vc, wl):
    """Of node slot n relative to the axis (point c, unit a, moving with velocity vc + wl x
    (x - c)): (r [m], z [m], e_r (3,), r' [m/s], z' [m/s], relative velocity (3,))."""
    rel = (x[0, n] - c[0], x[1, n] - c[1], x[2, n] - c[2])
    z = dot(rel, a)
    rv = (rel[0] - z * a[0], rel[1] - z * a[1], rel[2] - z * a[2])
    r = np.sqrt(dot(rv, rv))
    er = (0.0, 0.0, 0.0)
    if r > 0.0:
        er = (rv[0] / r, rv[1] / r, rv[2] / r)
    spin = cross(wl, rel)
    u = (v[0, n] - vc[0] - spin[0], v[1, n] - vc[1] - spin[1], v[2, n] - vc[2] - spin[2])
    return r, z, er, dot(er, u), dot(a, u), u


@kernel
def add_node(F, n, er, a, fr, fz):
    for d in range(3):
        F[d, n] += fr * er[d] + fz * a[d]


@kernel
def add_couple(C_, k, q, m, u):
    """Adds the lab couple m u [N m] to element slot k's local couple C_[:, k] (q: its
    directors, rows d1 d2 d3: local = Q u)."""
    C_[0, k] += m * (q[0] * u[0] + q[1] * u[1] + q[2] * u[2])
    C_[1, k] += m * (q[3] * u[0] + q[4] * u[1] + q[5] * u[2])
    C_[2, k] += m * (q[6] * u[0] + q[7] * u[1] + q[8] * u[2])


@kernel
def hoop_curvature(a, bi, k, wl, ax, rm, rmd, k0):
    """Hoop curvature of element slot k at mid radius rm [m] (rate rmd [m/s]): (c = d3.a,
    dk = c / rm - k0 [1/m], its rate [1/(m s)], the element's directors q (9,), rows d1 d2 d3);
    wl [rad/s] the axis' angular velocity, ax (3,) the axis."""
    Q, w = a.Q[bi], a.w[bi]
    q = (Q[0, k], Q[1, k], Q[2, k], Q[3, k], Q[4, k], Q[5, k], Q[6, k], Q[7, k], Q[8, k])
    d3 = (q[6], q[7], q[8])
    wel = to_lab(q, (w[0, k], w[1, k], w[2, k]))
    ca = dot(d3, ax)
    cad = dot(cross(wel, d3), ax) + dot(d3, cross(wl, ax))
    return ca, ca / rm - k0, cad / rm - ca * rmd / (rm * rm), q


@kernel
def hoop_moment(a, bi, k, n0, n1, ea, eb, ax, ca, rm, q, G):
    """Loads of an energy's derivative G = dE/d(dk) [N m] through element k's hoop curvature
    dk = (d3.a) / rm - k0: radial forces -dE/drm / 2 = G ca / (2 rm^2) on its nodes n0, n1
    (directions ea, eb) and the couple -d3 x dE/dd3 (dE/dd3 = G / rm a) in its local frame."""
    F = a.node_force[bi]
    fr = 0.5 * G * ca / (rm * rm)
    add_node(F, n0, ea, ax, fr, 0.0)
    add_node(F, n1, eb, ax, fr, 0.0)
    add_couple(a.elem_couple[bi], k, q, -G / rm, cross((q[6], q[7], q[8]), ax))


@kernel
def shell_element(a, bi, W, lane, s, e, row, c, ax, vc, wl, p, fr, tau, o):
    """Hoop elasticity, pressure and actuation of element e (row of sh_elem) of shell s;
    accumulates U, U' into o[SO_U, lane], o[SO_UDOT, lane] (o = sh_out[bi, s])."""
    x, v, F = a.x[bi], a.v[bi], a.node_force[bi]
    g = a.sh_elem[row]
    n0 = (a.sh_node0[s] + e) * W + lane
    n1 = n0 + W
    ra, za, ea, rda, zda, ua = radial(x, v, n0, c, ax, vc, wl)
    rb, zb, eb, rdb, zdb, ub = radial(x, v, n1, c, ax, vc, wl)
    sg = a.sh_sign[s]
    k3 = np.pi / 3.0
    # cavity volume and its gradient (frustum between the element and the axis)
    ring = ra * ra + ra * rb + rb * rb
    dz = zb - za
    dUra, dUrb, dUz = sg * k3 * (2 * ra + rb) * dz, sg * k3 * (ra + 2 * rb) * dz, sg * k3 * ring
    o[SO_U, lane] += sg * k3 * ring * dz
    o[SO_UDOT, lane] += dUra * rda + dUrb * rdb + dUz * (zdb - zda)
    # hoop strain, meridional stretch and hoop curvature (and their rates)
    r0, l0, A0, C, D, nu = g[SE_R0], g[SE_L0], g[SE_AREA], g[SE_C], g[SE_D], g[SE_NU]
    rm, rmd = 0.5 * (ra + rb), 0.5 * (rda + rdb)
    eps_t, epsd_t = rm / r0 - 1.0, rmd / r0
    t = (x[0, n1] - x[0, n0], x[1, n1] - x[1, n0], x[2, n1] - x[2, n0])
    ln = np.sqrt(dot(t, t))
    th = (t[0] / ln, t[1] / ln, t[2] / ln)
    eps_s, epsd_s = ln / l0 - 1.0, dot(th, (ub[0] - ua[0], ub[1] - ua[1], ub[2] - ua[2])) / l0
    k = (a.sh_elem0[s] + e) * W + lane
    ca, dk, dkd, q = hoop_curvature(a, bi, k, wl, ax, rm, rmd, g[SE_K0])
    # generalized forces of E_e (eq. 7 linearized) and its Kelvin-Voigt part
    Nt = C * (eps_t + nu * eps_s + tau * (epsd_t + nu * epsd_s))
    Mt = D * (dk + tau * dkd)
    dE_drm = A0 * Nt / r0
    dE_dl = A0 * C * nu * (eps_t + tau * epsd_t) / l0
    # radial: pressure work p dU, actuation pressure on half the element's area per node
    act = 0.5 * fr * A0 * g[SE_ACT]
    add_node(F, n0, ea, ax, p * dUra - 0.5 * dE_drm + act, -p * dUz)
    add_node(F, n1, eb, ax, p * dUrb - 0.5 * dE_drm + act, p * dUz)
    for d in range(3):
        F[d, n0] += dE_dl * th[d]
        F[d, n1] -= dE_dl * th[d]
    hoop_moment(a, bi, k, n0, n1, ea, eb, ax, ca, rm, q, A0 * Mt)


@kernel
def element_hoop(a, bi, W, lane, s, e, c, ax, vc, wl):
    """Element e of shell s: (slot k, nodes n0 n1, their e_r, rm [m], dk [1/m], its rate, d3.a,
    directors q (9,)), as shell_element computes them."""
    x, v = a.x[bi], a.v[bi]
    n0 = (a.sh_node0[s] + e) * W + lane
    n1 = n0 + W
    ra, _, ea, rda, _, _ = radial(x, v, n0, c, ax, vc, wl)
    rb, _, eb, rdb, _, _ = radial(x, v, n1, c, ax, vc, wl)
    rm = 0.5 * (ra + rb)
    k = (a.sh_elem0[s] + e) * W + lane
    ca, dk, dkd, q = hoop_curvature(a, bi, k, wl, ax, rm, 0.5 * (rda + rdb),
                                    a.sh_elem[a.sh_e0[s] + e, SE_K0])
    return k, n0, n1, ea, eb, rm, dk, dkd, ca, q


@kernel
def bending_coupling(a, bi, W, lane, s, j, c, ax, vc, wl, tau):
    """The Poisson coupling of the meridional and hoop bendings at interior node j of shell s
    (module docstring: E_j = A_j D nu kappa_s,j dk_j with its Kelvin-Voigt part): couples
    -/+ dE/dtheta d2 on elements j, j-1 and the hoop loads of dE/d(dk) on both."""
    ka, na0, na1, eaa, eab, rma, dka, dkda, caa, qa = element_hoop(a, bi, W, lane, s, j - 1,
                                                                   c, ax, vc, wl)
    kb, nb0, nb1, eba, ebb, rmb, dkb, dkdb, cab, qb = element_hoop(a, bi, W, lane, s, j,
                                                                   c, ax, vc, wl)
    ga, gb = a.sh_elem[a.sh_e0[s] + j - 1], a.sh_elem[a.sh_e0[s] + j]
    D, nu = gb[SE_D], gb[SE_NU]
    lv = 0.5 * (ga[SE_L0] + gb[SE_L0])
    area = 2.0 * np.pi * 0.5 * (ga[SE_R0] + gb[SE_R0]) * lv
    # turn of the meridian about the hoop direction d2 (mean of the two elements')
    d3a, d3b = (qa[6], qa[7], qa[8]), (qb[6], qb[7], qb[8])
    h = (qa[3] + qb[3], qa[4] + qb[4], qa[5] + qb[5])
    hn = np.sqrt(dot(h, h))
    d2 = (h[0] / hn, h[1] / hn, h[2] / hn)
    theta = np.arctan2(dot(cross(d3a, d3b), d2), dot(d3a, d3b))
    w = a.w[bi]
    wa = to_lab(qa, (w[0, ka], w[1, ka], w[2, ka]))
    wb = to_lab(qb, (w[0, kb], w[1, kb], w[2, kb]))
    kappa_s = -(theta - gb[SE_TH0]) / lv
    kappa_sd = -dot((wb[0] - wa[0], wb[1] - wa[1], wb[2] - wa[2]), d2) / lv
    dk, dkd = 0.5 * (dka + dkb), 0.5 * (dkda + dkdb)
    # dE/dtheta and dE/d(dk) of each element (half of dE/d(mean dk))
    dE_dtheta = -area * D * nu * (dk + tau * dkd) / lv
    G = 0.5 * area * D * nu * (kappa_s + tau * kappa_sd)
    hoop_moment(a, bi, ka, na0, na1, eaa, eab, ax, caa, rma, qa, G)
    hoop_moment(a, bi, kb, nb0, nb1, eba, ebb, ax, cab, rmb, qb, G)
    # theta grows with element j's rotation about d2 and falls with element j-1's
    add_couple(a.elem_couple[bi], ka, qa, dE_dtheta, d2)
    add_couple(a.elem_couple[bi], kb, qb, -dE_dtheta, d2)


@kernel
def axisym_shells(a, bi, W, t):
    """Every shell: hoop law, pressure, actuation, clamp, drag and thrust (module docstring)."""
    F = a.node_force[bi]
    for s in range(a.sh_node0.shape[0]):
        p_s = a.sh_params[bi, s]
        sig, _ = table_sample(a.sh_times[s], a.sh_signal[s], a.sh_count[s], t)
        b = a.sh_body[s]
        for lane in range(W):
            ax = (a.sh_axis[s, 0, 0], a.sh_axis[s, 0, 1], a.sh_axis[s, 0, 2])
            c = (a.sh_axis[s, 1, 0], a.sh_axis[s, 1, 1], a.sh_axis[s, 1, 2])
            vc, wl, xb = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
            qb = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
            kb = max(b, 0) * W + lane
            if b >= 0:
                Qb = a.rb_Q[bi]
                qb = (Qb[0, kb], Qb[1, kb], Qb[2, kb], Qb[3, kb], Qb[4, kb], Qb[5, kb],
                      Qb[6, kb], Qb[7, kb], Qb[8, kb])
                xb = (a.rb_x[bi][0, kb], a.rb_x[bi][1, kb], a.rb_x[bi][2, kb])
                vc = (a.rb_v[bi][0, kb], a.rb_v[bi][1, kb], a.rb_v[bi][2, kb])
                wl = to_lab(qb, (a.rb_w[bi][0, kb], a.rb_w[bi][1, kb], a.rb_w[bi][2, kb]))
                ax = to_lab(qb, ax)
                cl = to_lab(qb, c)
                c = (xb[0] + cl[0], xb[1] + cl[1], xb[2] + cl[2])
                # the axis point moves with the body: vc + wl x (c - xb)
                vc = (vc[0] + wl[1] * cl[2] - wl[2] * cl[1], vc[1] + wl[2] * cl[0] - wl[0] * cl[2],
                      vc[2] + wl[0] * cl[1] - wl[1] * cl[0])
            o = a.sh_out[bi, s]
            o[SO_U, lane] = 0.0
            o[SO_UDOT, lane] = 0.0
            for e in range(a.sh_e0[s + 1] - a.sh_e0[s]):
                shell_element(a, bi, W, lane, s, e, a.sh_e0[s] + e, c, ax, vc, wl,
                              sig[0], sig[1], p_s[SP_TAU, lane], o)
            for j in range(1, a.sh_e0[s + 1] - a.sh_e0[s]):
                bending_coupling(a, bi, W, lane, s, j, c, ax, vc, wl, p_s[SP_TAU, lane])
            # drag (eq. 12) spread by reference area, thrust (eq. 15) on the root
            V = dot(ax, (a.rb_v[bi][0, kb], a.rb_v[bi][1, kb], a.rb_v[bi][2, kb])) if b >= 0 else 0.0
            drag = -p_s[SP_DRAG, lane] * V * abs(V)
            area = 0.0
            for row in range(a.sh_e0[s], a.sh_e0[s + 1]):
                area += a.sh_elem[row, SE_AREA]
            for e in range(a.sh_e0[s + 1] - a.sh_e0[s]):
                n0 = (a.sh_node0[s] + e) * W + lane
                share = 0.5 * drag * a.sh_elem[a.sh_e0[s] + e, SE_AREA] / area
                for d in range(3):
                    F[d, n0] += share * ax[d]
                    F[d, n0 + W] += share * ax[d]
            Ud = o[SO_UDOT, lane]
            jet = p_s[SP_JET_OUT, lane] if Ud < 0.0 else p_s[SP_JET_IN, lane]
            thrust = -jet * Ud * abs(Ud)
            o[SO_THRUST, lane] = thrust
            o[SO_DRAG, lane] = drag
            # clamp of the first two nodes; the root takes the axial part and the thrust
            axial = thrust
            for j in range(2):
                n = (a.sh_node0[s] + j) * W + lane
                r = (a.sh_clamp[s, j, 0], a.sh_clamp[s, j, 1], a.sh_clamp[s, j, 2])
                pt, u = r, (0.0, 0.0, 0.0)
                if b >= 0:
                    rl = to_lab(qb, r)
                    pt = (xb[0] + rl[0], xb[1] + rl[1], xb[2] + rl[2])
                    sp = cross(wl, rl)
                    u = (a.rb_v[bi][0, kb] + sp[0], a.rb_v[bi][1, kb] + sp[1],
                         a.rb_v[bi][2, kb] + sp[2])
                f = (-p_s[SP_K, lane] * (a.x[bi][0, n] - pt[0]) - p_s[SP_C, lane] * (a.v[bi][0, n] - u[0]),
                     -p_s[SP_K, lane] * (a.x[bi][1, n] - pt[1]) - p_s[SP_C, lane] * (a.v[bi][1, n] - u[1]),
                     -p_s[SP_K, lane] * (a.x[bi][2, n] - pt[2]) - p_s[SP_C, lane] * (a.v[bi][2, n] - u[2]))
                for d in range(3):
                    F[d, n] += f[d]
                axial -= dot(f, ax)
            if b >= 0:
                for d in range(3):
                    a.rb_force[bi][d, kb] += axial * ax[d]
