"""Rod-plane contact with anisotropic Coulomb friction (Gazzola et al., R. Soc. Open Sci. 2018,
eqs. 4.8-4.10; ME498 handout section 2.2.4), per element, in the block layout of `layout.py`.

Wall response on element i in contact (distance of its centre to the plane minus its radius
eps_i <= surface tolerance), with u the plane's unit normal:
    F_wall = H(eps) (-F_perp + k_w |min(eps, 0)| - gamma_w v . u) u
where F_perp = min(F . u, 0) u is the part of the total force F on the element (internal and
external, the end nodes' whole forces at the rod's ends) pushing it into the plane. The friction
normal force is N = max(-F . u, 0) (the force-balance part alone, as in the reference
implementation).

Friction acts in the plane along the axial direction a (the element tangent projected onto the
plane) and the lateral ("rolling") direction r = a x u:
  kinetic, "sign" decomposition (default, the reference implementation of Gazzola 2018):
      F_a = -(1 - s_a) mu_a N sign(v . a) a      mu_a = forward or backward by the sign
      F_r = -(1 - s_r) mu_r N sign(v_r) r
  kinetic, "unit" decomposition (PyElastica >= 0.3): with U the unit total slip velocity,
      F_a = -(1 - s_a) mu_a N (U . a) a,   F_r = -(1 - s_r) mu_r N (U . r) r
  static (active below the slip velocity): F_a = -min(|F . a|, s_a mu_s N) sign(F . a) a and,
      laterally, the no-slip force of a rolling cylinder (-(r F . r - 2 C . a) / (3 r)) capped at
      s_r mu_s,r N (without rolling: the lateral analogue of the axial law).
Here v is the element's (mass-weighted) velocity (per-node option: each half of the element's
kinetic friction, with N/2, uses its own node's velocity and acts on that node); with rolling the lateral slip velocity adds the
contact point's velocity from the section's spin, w x (-r u), and the lateral forces act at the
contact point, adding the couple (-r u) x F. s(v) is the slip function of the reference
implementation: 1 for |v| <= v_eps, 1 - min(1, |v| / v_eps - 1) above (sticking -> slipping).

Everything is computed on element-lane pairs with selects instead of branches (vectorizable);
forces go to the two nodes of the element, half each.
"""
import numpy as np

from softmech.kernels import kernel
from softmech.kernels.cosserat_forces import pair_rows, rows3, rows9

# contact parameter rows of gc_param (n_blocks, n_contacts, N_CONTACT_PARAMS, W)
(P_X, P_Y, P_Z, N_X, N_Y, N_Z, K_WALL, GAMMA_WALL, MU_KF, MU_KB, MU_KL, MU_SF, MU_SB, MU_SL,
 V_EPS, SURFACE_TOL) = range(16)
N_CONTACT_PARAMS = 16
# flags of gc_flags (n_contacts, 3)
FLAG_ROLLING, FLAG_UNIT_DECOMPOSITION, FLAG_PER_NODE = 0, 1, 2


@kernel(inline="always")
def sign(x):
    return (x > 0.0) * 1.0 - (x < 0.0) * 1.0


@kernel(inline="always")
def slip_function(speed, v_eps):
    """1 when sticking (speed <= v_eps), falling linearly to 0 at 2 v_eps (slipping)."""
    return 1.0 if speed <= v_eps else abs(1.0 - min(1.0, speed / v_eps - 1.0))


@kernel(inline="always")
def by_direction(forward, backward, sg):
    """The forward coefficient for sg = +1, the backward one for sg = -1, their mean for 0."""
    return 0.5 * (forward * (1.0 + sg) + backward * (1.0 - sg))


@kernel(inline="always")
def lateral_couple(q00, q01, q02, q10, q11, q12, q20, q21, q22, u0, u1, u2, r0, r1, r2, force,
                   rad):
    """Local couple Q (arm x force r) [N m] of a lateral force [N] acting at the contact point,
    arm = -rad u (the plane's normal u, lateral direction r, lab frame)."""
    fl = -rad * force
    c0 = (u1 * r2 - u2 * r1) * fl
    c1 = (u2 * r0 - u0 * r2) * fl
    c2 = (u0 * r1 - u1 * r0) * fl
    return (q00 * c0 + q01 * c1 + q02 * c2, q10 * c0 + q11 * c1 + q12 * c2,
            q20 * c0 + q21 * c1 + q22 * c2)


@kernel(inline="always")
def element_force(fa, fb, ga, gb, ma, mb, wa, wb):
    """One component of the total force [N] on an element from its nodes' forces (fa, fb), with
    gravity m g added, weighted 1/2 each (1 for an open rod's end node: its whole force)."""
    return wa * (fa + ma * ga) + wb * (fb + mb * gb)


@kernel(inline="always")
def kinetic_friction(v_ax, v_lat, normal, mu_f, mu_b, mu_l, v_eps, unit):
    """Kinetic friction magnitudes along the axial and lateral directions for slip velocities
    v_ax, v_lat and normal force N: -(1 - s) mu N dir, dir = sign (default) or the unit slip
    velocity's component (unit decomposition)."""
    s_ax = slip_function(abs(v_ax), v_eps)
    s_lat = slip_function(abs(v_lat), v_eps)
    sg_ax = sign(v_ax)
    mu_ax = by_direction(mu_f, mu_b, sg_ax)
    dir_ax = sg_ax
    dir_lat = sign(v_lat)
    if unit:
        iu = 1.0 / np.sqrt(v_ax * v_ax + v_lat * v_lat + 1e-28)
        dir_ax = v_ax * iu
        dir_lat = v_lat * iu
    return -(1.0 - s_ax) * mu_ax * normal * dir_ax, -(1.0 - s_lat) * mu_l * normal * dir_lat


@kernel(inline="always")
def rod_plane_contact(m, s, ws, bi, W, i):
    """Contact and friction of contact entry i (one rod, one plane) in block bi: adds forces to
    ws.node_acc [N] and couples to ws.elem_alpha [N m, local].

    Flat loops over the rod's element-lanes k (vectorizable for any W); the contact parameters
    are stored per element-lane (gc_param). An open rod's end elements take their end node's
    whole force (weights 1 instead of 1/2); a closed rod's ghost node mirrors node 0."""
    r = m.gc_rod[i]
    ne = m.rod_n_elems[r] * W
    closed = m.rod_closed[r]
    e0 = m.rod_elem_off[r] * W
    n0 = m.rod_node_off[r] * W
    rolling = 1.0 * m.gc_flags[i, FLAG_ROLLING]
    unit = m.gc_flags[i, FLAG_UNIT_DECOMPOSITION] == 1
    per_node = m.gc_flags[i, FLAG_PER_NODE] == 1
    prm = m.gc_param[bi, i]
    xa0, xa1, xa2, xb0, xb1, xb2 = pair_rows(s.x[bi], n0, W)
    va0, va1, va2, vb0, vb1, vb2 = pair_rows(s.v[bi], n0, W)
    Fa0, Fa1, Fa2, Fb0, Fb1, Fb2 = pair_rows(ws.node_acc[bi], n0, W)
    ga0, ga1, ga2, gb0, gb1, gb2 = pair_rows(m.node_body_acc[bi], n0, W)
    ma_ = m.node_mass[bi, n0:]
    mb_ = m.node_mass[bi, n0 + W:]
    Q00, Q01, Q02, Q10, Q11, Q12, Q20, Q21, Q22 = rows9(s.Q[bi], e0)
    w0_, w1_, w2_ = rows3(s.w[bi], e0)
    al0, al1, al2 = rows3(ws.elem_alpha[bi], e0)
    radius = m.elem_radius[bi, e0:]
    N_arr = ws.contact_normal[bi, e0:]
    sa_arr = ws.contact_slip[bi, 0, e0:]
    sr_arr = ws.contact_slip[bi, 1, e0:]
    ax0_, ax1_, ax2_ = rows3(ws.contact_axial[bi], e0)
    ro0_, ro1_, ro2_ = rows3(ws.contact_lateral[bi], e0)
    f0_, f1_, f2_ = rows3(ws.contact_force[bi], e0)
    d0_, d1_, d2_ = rows3(ws.contact_force_diff[bi], e0)
    px, py, pz = prm[P_X, e0:], prm[P_Y, e0:], prm[P_Z, e0:]
    ux, uy, uz = prm[N_X, e0:], prm[N_Y, e0:], prm[N_Z, e0:]
    kw, gw, veps, tol = prm[K_WALL, e0:], prm[GAMMA_WALL, e0:], prm[V_EPS, e0:], prm[SURFACE_TOL, e0:]
    mkf, mkb, mkl = prm[MU_KF, e0:], prm[MU_KB, e0:], prm[MU_KL, e0:]
    msf, msb, msl = prm[MU_SF, e0:], prm[MU_SB, e0:], prm[MU_SL, e0:]
    last = ne - W
    open_ = 1.0 - closed
    mirror_ghost(ws.node_acc[bi], n0, ne, W, closed)
    # ---- pass 1: wall response and kinetic friction
    for k in range(ne):
        wa = 0.5 + 0.5 * open_ * (k < W)
        wb = 0.5 + 0.5 * open_ * (k >= last)
        u0 = ux[k]
        u1 = uy[k]
        u2 = uz[k]
        rad = radius[k]
        ma = ma_[k]
        mb = mb_[k]
        im = 1.0 / (ma + mb)
        ve0 = (ma * va0[k] + mb * vb0[k]) * im
        ve1 = (ma * va1[k] + mb * vb1[k]) * im
        ve2 = (ma * va2[k] + mb * vb2[k]) * im
        dist = (u0 * (0.5 * (xa0[k] + xb0[k]) - px[k]) + u1 * (0.5 * (xa1[k] + xb1[k]) - py[k])
                + u2 * (0.5 * (xa2[k] + xb2[k]) - pz[k]) - rad)
        touching = 1.0 if dist <= tol[k] else 0.0
        F0 = element_force(Fa0[k], Fb0[k], ga0[k], gb0[k], ma, mb, wa, wb)
        F1 = element_force(Fa1[k], Fb1[k], ga1[k], gb1[k], ma, mb, wa, wb)
        F2 = element_force(Fa2[k], Fb2[k], ga2[k], gb2[k], ma, mb, wa, wb)
        fn = u0 * F0 + u1 * F1 + u2 * F2
        normal = max(-fn, 0.0) * touching
        wall = (normal - kw[k] * min(dist, 0.0) - gw[k] * (u0 * ve0 + u1 * ve1 + u2 * ve2)) * touching
        # in-plane axial direction a and lateral direction r = a x u
        t0 = xb0[k] - xa0[k]
        t1 = xb1[k] - xa1[k]
        t2 = xb2[k] - xa2[k]
        tu = t0 * u0 + t1 * u1 + t2 * u2
        t0 -= tu * u0
        t1 -= tu * u1
        t2 -= tu * u2
        it = 1.0 / (np.sqrt(t0 * t0 + t1 * t1 + t2 * t2) + 1e-14)
        a0 = t0 * it
        a1 = t1 * it
        a2 = t2 * it
        r0 = a1 * u2 - a2 * u1
        r1 = a2 * u0 - a0 * u2
        r2 = a0 * u1 - a1 * u0
        v_ax = ve0 * a0 + ve1 * a1 + ve2 * a2
        v_lat = ve0 * r0 + ve1 * r1 + ve2 * r2
        # contact point velocity from the section's spin: Q^T (w x Q arm), arm = -rad u
        q00 = Q00[k]; q01 = Q01[k]; q02 = Q02[k]
        q10 = Q10[k]; q11 = Q11[k]; q12 = Q12[k]
        q20 = Q20[k]; q21 = Q21[k]; q22 = Q22[k]
        qa0 = -rad * (q00 * u0 + q01 * u1 + q02 * u2)
        qa1 = -rad * (q10 * u0 + q11 * u1 + q12 * u2)
        qa2 = -rad * (q20 * u0 + q21 * u1 + q22 * u2)
        c0 = w1_[k] * qa2 - w2_[k] * qa1
        c1 = w2_[k] * qa0 - w0_[k] * qa2
        c2 = w0_[k] * qa1 - w1_[k] * qa0
        spin_lat = rolling * ((q00 * c0 + q10 * c1 + q20 * c2) * r0 + (q01 * c0 + q11 * c1 + q21 * c2) * r1
                              + (q02 * c0 + q12 * c1 + q22 * c2) * r2)
        v_lat += spin_lat
        s_ax = slip_function(abs(v_ax), veps[k])
        s_lat = slip_function(abs(v_lat), veps[k])
        if per_node:  # loop-invariant: each half with its own node's velocity and N / 2
            ka_ax, ka_lat = kinetic_friction(
                va0[k] * a0 + va1[k] * a1 + va2[k] * a2,
                va0[k] * r0 + va1[k] * r1 + va2[k] * r2 + spin_lat,
                0.5 * normal, mkf[k], mkb[k], mkl[k], veps[k], unit)
            kb_ax, kb_lat = kinetic_friction(
                vb0[k] * a0 + vb1[k] * a1 + vb2[k] * a2,
                vb0[k] * r0 + vb1[k] * r1 + vb2[k] * r2 + spin_lat,
                0.5 * normal, mkf[k], mkb[k], mkl[k], veps[k], unit)
            k_ax = ka_ax + kb_ax
            k_lat = ka_lat + kb_lat
            d_ax = ka_ax - kb_ax
            d_lat = ka_lat - kb_lat
        else:
            k_ax, k_lat = kinetic_friction(v_ax, v_lat, normal, mkf[k], mkb[k], mkl[k], veps[k], unit)
            d_ax = 0.0
            d_lat = 0.0
        f0_[k] = wall * u0 + k_ax * a0 + k_lat * r0
        f1_[k] = wall * u1 + k_ax * a1 + k_lat * r1
        f2_[k] = wall * u2 + k_ax * a2 + k_lat * r2
        d0_[k] = d_ax * a0 + d_lat * r0
        d1_[k] = d_ax * a1 + d_lat * r1
        d2_[k] = d_ax * a2 + d_lat * r2
        c0, c1, c2 = lateral_couple(q00, q01, q02, q10, q11, q12, q20, q21, q22,
                                    u0, u1, u2, r0, r1, r2, rolling * k_lat, rad)
        al0[k] += c0
        al1[k] += c1
        al2[k] += c2
        N_arr[k] = normal
        sa_arr[k] = s_ax
        sr_arr[k] = s_lat
        ax0_[k] = a0
        ax1_[k] = a1
        ax2_[k] = a2
        ro0_[k] = r0
        ro1_[k] = r1
        ro2_[k] = r2
    scatter_to_nodes(ws.node_acc[bi], ws.contact_force[bi], ws.contact_force_diff[bi], e0, n0, ne,
                     W, closed)
    mirror_ghost(ws.node_acc[bi], n0, ne, W, closed)
    # ---- pass 2: static friction, from the total forces including the kinetic friction
    for k in range(ne):
        wa = 0.5 + 0.5 * open_ * (k < W)
        wb = 0.5 + 0.5 * open_ * (k >= last)
        ma = ma_[k]
        mb = mb_[k]
        F0 = element_force(Fa0[k], Fb0[k], ga0[k], gb0[k], ma, mb, wa, wb)
        F1 = element_force(Fa1[k], Fb1[k], ga1[k], gb1[k], ma, mb, wa, wb)
        F2 = element_force(Fa2[k], Fb2[k], ga2[k], gb2[k], ma, mb, wa, wb)
        a0 = ax0_[k]
        a1 = ax1_[k]
        a2 = ax2_[k]
        r0 = ro0_[k]
        r1 = ro1_[k]
        r2 = ro2_[k]
        rad = radius[k]
        normal = N_arr[k]
        f_ax = F0 * a0 + F1 * a1 + F2 * a2
        sg = sign(f_ax)
        mu_s = by_direction(msf[k], msb[k], sg)
        st_ax = -min(abs(f_ax), sa_arr[k] * mu_s * normal) * sg
        f_lat = F0 * r0 + F1 * r1 + F2 * r2
        # rolling cylinder: no-slip lateral force from the lateral force and the axial couple
        q00 = Q00[k]; q01 = Q01[k]; q02 = Q02[k]
        q10 = Q10[k]; q11 = Q11[k]; q12 = Q12[k]
        q20 = Q20[k]; q21 = Q21[k]; q22 = Q22[k]
        C0 = q00 * al0[k] + q10 * al1[k] + q20 * al2[k]
        C1 = q01 * al0[k] + q11 * al1[k] + q21 * al2[k]
        C2 = q02 * al0[k] + q12 * al1[k] + q22 * al2[k]
        c_ax = C0 * a0 + C1 * a1 + C2 * a2
        noslip = rolling * (-(rad * f_lat - 2.0 * c_ax) / (3.0 * rad)) - (1.0 - rolling) * f_lat
        st_lat = min(abs(noslip), sr_arr[k] * msl[k] * normal) * sign(noslip)
        f0_[k] = st_ax * a0 + st_lat * r0
        f1_[k] = st_ax * a1 + st_lat * r1
        f2_[k] = st_ax * a2 + st_lat * r2
        d0_[k] = 0.0
        d1_[k] = 0.0
        d2_[k] = 0.0
        c0, c1, c2 = lateral_couple(q00, q01, q02, q10, q11, q12, q20, q21, q22,
                                    ux[k], uy[k], uz[k], r0, r1, r2, rolling * st_lat, rad)
        al0[k] += c0
        al1[k] += c1
        al2[k] += c2
    scatter_to_nodes(ws.node_acc[bi], ws.contact_force[bi], ws.contact_force_diff[bi], e0, n0, ne,
                     W, closed)
    if closed:
        for c in range(3):  # the ghost's force is not used: zero it as rod_assemble does
            for lane in range(W):
                ws.node_acc[bi, c, n0 + ne + lane] = 0.0


@kernel(inline="always")
def mirror_ghost(acc, n0, ne, W, closed):
    """Closed rod: copy node 0's force into the ghost slot, read as the last element's end node."""
    if closed:
        for c in range(3):
            for lane in range(W):
                acc[c, n0 + ne + lane] = acc[c, n0 + lane]


@kernel(inline="always")
def scatter_to_nodes(acc, f, d, e0, n0, ne, W, closed):
    """Element forces to their two nodes: (f + d)/2 to the first, (f - d)/2 to the second (d = 0:
    half each); a closed rod's last element ends on node 0."""
    for c in range(3):
        for j in range(ne):
            acc[c, n0 + j] += 0.5 * (f[c, e0 + j] + d[c, e0 + j])
        for j in range(ne - closed * W):
            acc[c, n0 + W + j] += 0.5 * (f[c, e0 + j] - d[c, e0 + j])
        if closed:
            for lane in range(W):
                acc[c, n0 + lane] += 0.5 * (f[c, e0 + ne - W + lane] - d[c, e0 + ne - W + lane])


@kernel(inline="always")
def ground_contacts(m, s, ws, bi, W):
    """All rod-plane contacts of block bi (see module docstring)."""
    for i in range(m.gc_rod.shape[0]):
        rod_plane_contact(m, s, ws, bi, W, i)
