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
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.cosserat_forces import pair_rows, rows3, rows9

# contact parameter rows of contact_param (n_blocks, n_contacts, N_CONTACT_PARAMS, W)
(P_X, P_Y, P_Z, N_X, N_Y, N_Z, K_WALL, GAMMA_WALL, MU_KF, MU_KB, MU_KL, MU_SF, MU_SB, MU_SL,
 V_EPS, SURFACE_TOL) = range(16)
N_CONTACT_PARAMS = 16
# flags of contact_flags (n_contacts, N_CONTACT_FLAGS); FLAG_UNIFORM (set by softmech.packing): the
# contact's parameters and its rod's body accelerations are the same in every element slot and lane
FLAG_ROLLING, FLAG_UNIT_DECOMPOSITION, FLAG_PER_NODE, FLAG_UNIFORM = 0, 1, 2, 3
N_CONTACT_FLAGS = 4

GroundContactArgs = namedtuple("GroundContactArgs", [
    "x", "v", "Q", "w",                                      # state
    "rod_node_off", "rod_elem_off", "rod_n_elems", "rod_closed",
    "node_mass", "node_body_acc", "elem_radius",             # rod bodies
    "contact_rod",                                           # rod index per contact (n_c,)
    "contact_param",  # per element slot (n_blocks, n_c, N_CONTACT_PARAMS, n_elems*W)
    "contact_flags",  # (n_c, N_CONTACT_FLAGS) int64
    "contact_normal", "contact_slip", "contact_axial",       # scratch, per element slot: normal
    # force N [N] (n_blocks, n_elems*W), slip functions (n_blocks, 2, .), axial direction a and Q a
    # (n_blocks, 6, .)
    "contact_force",         # per entry: element forces [N] of pass 1 (wall and kinetic friction),
    "contact_force_diff",    # (first-node - second-node) part of per-node friction [N], and
    "contact_force_static",  # of pass 2 (static friction); each (n_blocks, n_c, 3, n_elems*W):
    # after a force evaluation they hold every entry's forces (softmech.terms.contact.node_forces)
    "node_force", "elem_couple",                             # outputs (added to)
])


@kernel(inline="always")
def sign(x):
    return (x > 0.0) * 1.0 - (x < 0.0) * 1.0


@kernel(inline="always")
def slip_function(speed, v_eps, inv_v_eps):
    """1 when sticking (speed <= v_eps), falling linearly to 0 at 2 v_eps (slipping); inv_v_eps =
    1 / v_eps (loop-invariant for uniform parameters: a multiply instead of a division)."""
    return 1.0 if speed <= v_eps else abs(1.0 - min(1.0, speed * inv_v_eps - 1.0))


@kernel(inline="always")
def by_direction(forward, backward, sg):
    """The forward coefficient for sg = +1, the backward one for sg = -1, their mean for 0."""
    return 0.5 * (forward * (1.0 + sg) + backward * (1.0 - sg))


@kernel(inline="always")
def local_axial(q00, q01, q02, q10, q11, q12, q20, q21, q22, a0, a1, a2):
    """Q a: the axial direction a (lab) in the element's frame (rows of Q: d1, d2, d3).

    It gives both rolling terms with one matrix product, since u x r = u x (a x u) = a for the
    unit normal u and a in the plane: the lateral velocity of the contact point (arm = -rad u),
    (w x Q arm) . (Q r) = w . (Q arm x Q r) = -rad w . Q a, and the local couple of a lateral
    force f r at it, Q (arm x f r) = -rad f Q a."""
    return (q00 * a0 + q01 * a1 + q02 * a2, q10 * a0 + q11 * a1 + q12 * a2,
            q20 * a0 + q21 * a1 + q22 * a2)


@kernel(inline="always")
def lateral_direction(a0, a1, a2, u0, u1, u2):
    """In-plane lateral direction r = a x u (axial direction a, plane normal u)."""
    return a1 * u2 - a2 * u1, a2 * u0 - a0 * u2, a0 * u1 - a1 * u0


@kernel(inline="always")
def in_plane_axes(t0, t1, t2, u0, u1, u2):
    """The element's in-plane axial direction a (its tangent t minus its normal part, unit; the
    1e-14 keeps an element standing on the plane finite) and lateral direction r = a x u, for
    the plane normal u: (a0, a1, a2, r0, r1, r2)."""
    tu = t0 * u0 + t1 * u1 + t2 * u2
    t0 -= tu * u0
    t1 -= tu * u1
    t2 -= tu * u2
    it = 1.0 / (np.sqrt(t0 * t0 + t1 * t1 + t2 * t2) + 1e-14)
    a0 = t0 * it
    a1 = t1 * it
    a2 = t2 * it
    r0, r1, r2 = lateral_direction(a0, a1, a2, u0, u1, u2)
    return a0, a1, a2, r0, r1, r2


@kernel(inline="always")
def element_force(fa, fb, ga, gb, ma, mb, wa, wb):
    """One component of the total force [N] on an element from its nodes' forces (fa, fb), with
    gravity m g added, weighted 1/2 each (1 for an open rod's end node: its whole force)."""
    return wa * (fa + ma * ga) + wb * (fb + mb * gb)


@kernel(inline="always")
def kinetic_friction(v_ax, v_lat, normal, mu_f, mu_b, mu_l, v_eps, inv_v_eps, unit):
    """Kinetic friction magnitudes along the axial and lateral directions for slip velocities
    v_ax, v_lat and normal force N: -(1 - s) mu N dir, dir = sign (default) or the unit slip
    velocity's component (unit decomposition)."""
    s_ax = slip_function(abs(v_ax), v_eps, inv_v_eps)
    s_lat = slip_function(abs(v_lat), v_eps, inv_v_eps)
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
def kinetic_element(k, pk, wa, wb, rolling, unit, per_node, X, V, F, G, M, Qr, Wr, AL, radius, P,
                    out_f, out_d, out_n, out_s, out_a):
    """Pass 1 on element-lane k: wall response and kinetic friction. pk indexes the contact
    parameters P and body accelerations G: k, or 0 when they are uniform (loop-invariant)."""
    xa0, xa1, xa2, xb0, xb1, xb2 = X
    va0, va1, va2, vb0, vb1, vb2 = V
    Fa0, Fa1, Fa2, Fb0, Fb1, Fb2 = F
    ga0, ga1, ga2, gb0, gb1, gb2 = G
    ma_, mb_ = M
    Q00, Q01, Q02, Q10, Q11, Q12, Q20, Q21, Q22 = Qr
    w0_, w1_, w2_ = Wr
    al0, al1, al2 = AL
    px, py, pz, ux, uy, uz, kw, gw, v_eps, tol, mkf, mkb, mkl = P
    u0 = ux[pk]
    u1 = uy[pk]
    u2 = uz[pk]
    rad = radius[k]
    ma = ma_[k]
    mb = mb_[k]
    im = 1.0 / (ma + mb)
    ve0 = (ma * va0[k] + mb * vb0[k]) * im
    ve1 = (ma * va1[k] + mb * vb1[k]) * im
    ve2 = (ma * va2[k] + mb * vb2[k]) * im
    dist = (u0 * (0.5 * (xa0[k] + xb0[k]) - px[pk]) + u1 * (0.5 * (xa1[k] + xb1[k]) - py[pk])
            + u2 * (0.5 * (xa2[k] + xb2[k]) - pz[pk]) - rad)
    touching = 1.0 if dist <= tol[pk] else 0.0
    F0 = element_force(Fa0[k], Fb0[k], ga0[pk], gb0[pk], ma, mb, wa, wb)
    F1 = element_force(Fa1[k], Fb1[k], ga1[pk], gb1[pk], ma, mb, wa, wb)
    F2 = element_force(Fa2[k], Fb2[k], ga2[pk], gb2[pk], ma, mb, wa, wb)
    fn = u0 * F0 + u1 * F1 + u2 * F2
    normal = max(-fn, 0.0) * touching
    wall = (normal - kw[pk] * min(dist, 0.0) - gw[pk] * (u0 * ve0 + u1 * ve1 + u2 * ve2)) * touching
    # in-plane axial direction a and lateral direction r = a x u
    a0, a1, a2, r0, r1, r2 = in_plane_axes(xb0[k] - xa0[k], xb1[k] - xa1[k], xb2[k] - xa2[k],
                                           u0, u1, u2)
    v_ax = ve0 * a0 + ve1 * a1 + ve2 * a2
    v_lat = ve0 * r0 + ve1 * r1 + ve2 * r2
    # the section's rolling: lateral velocity of the contact point -rad w . Q a (local_axial)
    b0, b1, b2 = local_axial(Q00[k], Q01[k], Q02[k], Q10[k], Q11[k], Q12[k], Q20[k], Q21[k],
                             Q22[k], a0, a1, a2)
    spin_lat = rolling * (-rad) * (w0_[k] * b0 + w1_[k] * b1 + w2_[k] * b2)
    v_lat += spin_lat
    veps = v_eps[pk]
    iveps = 1.0 / veps  # loop-invariant when uniform: hoisted out of the loop
    s_ax = slip_function(abs(v_ax), veps, iveps)
    s_lat = slip_function(abs(v_lat), veps, iveps)
    if per_node:  # loop-invariant: each half with its own node's velocity and N / 2
        ka_ax, ka_lat = kinetic_friction(
            va0[k] * a0 + va1[k] * a1 + va2[k] * a2,
            va0[k] * r0 + va1[k] * r1 + va2[k] * r2 + spin_lat,
            0.5 * normal, mkf[pk], mkb[pk], mkl[pk], veps, iveps, unit)
        kb_ax, kb_lat = kinetic_friction(
            vb0[k] * a0 + vb1[k] * a1 + vb2[k] * a2,
            vb0[k] * r0 + vb1[k] * r1 + vb2[k] * r2 + spin_lat,
            0.5 * normal, mkf[pk], mkb[pk], mkl[pk], veps, iveps, unit)
        k_ax = ka_ax + kb_ax
        k_lat = ka_lat + kb_lat
        d_ax = ka_ax - kb_ax
        d_lat = ka_lat - kb_lat
        out_d[0][k] = d_ax * a0 + d_lat * r0
        out_d[1][k] = d_ax * a1 + d_lat * r1
        out_d[2][k] = d_ax * a2 + d_lat * r2
    else:
        k_ax, k_lat = kinetic_friction(v_ax, v_lat, normal, mkf[pk], mkb[pk], mkl[pk], veps,
                                       iveps, unit)
    out_f[0][k] = wall * u0 + k_ax * a0 + k_lat * r0
    out_f[1][k] = wall * u1 + k_ax * a1 + k_lat * r1
    out_f[2][k] = wall * u2 + k_ax * a2 + k_lat * r2
    # local couple of the lateral friction at the contact point: -rad k_lat Q a
    couple = rolling * (-rad) * k_lat
    al0[k] += couple * b0
    al1[k] += couple * b1
    al2[k] += couple * b2
    out_n[k] = normal
    out_s[0][k] = s_ax
    out_s[1][k] = s_lat
    out_a[0][k] = a0
    out_a[1][k] = a1
    out_a[2][k] = a2
    out_a[3][k] = b0
    out_a[4][k] = b1
    out_a[5][k] = b2


@kernel(inline="always")
def static_element(k, pk, wa, wb, rolling, F, G, M, AL, radius, U, MUS, normal_, slip, axial,
                   out_f):
    """Pass 2 on element-lane k: static friction from the total forces including the kinetic
    friction (the axial direction a, its local components Q a, the normal force and the slip
    functions saved by pass 1)."""
    Fa0, Fa1, Fa2, Fb0, Fb1, Fb2 = F
    ga0, ga1, ga2, gb0, gb1, gb2 = G
    ma_, mb_ = M
    al0, al1, al2 = AL
    ux, uy, uz = U
    msf, msb, msl = MUS
    ma = ma_[k]
    mb = mb_[k]
    F0 = element_force(Fa0[k], Fb0[k], ga0[pk], gb0[pk], ma, mb, wa, wb)
    F1 = element_force(Fa1[k], Fb1[k], ga1[pk], gb1[pk], ma, mb, wa, wb)
    F2 = element_force(Fa2[k], Fb2[k], ga2[pk], gb2[pk], ma, mb, wa, wb)
    u0 = ux[pk]
    u1 = uy[pk]
    u2 = uz[pk]
    a0 = axial[0][k]
    a1 = axial[1][k]
    a2 = axial[2][k]
    b0 = axial[3][k]
    b1 = axial[4][k]
    b2 = axial[5][k]
    r0, r1, r2 = lateral_direction(a0, a1, a2, u0, u1, u2)
    rad = radius[k]
    normal = normal_[k]
    f_ax = F0 * a0 + F1 * a1 + F2 * a2
    sg = sign(f_ax)
    mu_s = by_direction(msf[pk], msb[pk], sg)
    st_ax = -min(abs(f_ax), slip[0][k] * mu_s * normal) * sg
    f_lat = F0 * r0 + F1 * r1 + F2 * r2
    # rolling cylinder: no-slip lateral force from the lateral force and the axial couple
    # C . a = (Q^T alpha) . a = alpha . Q a (alpha: the element's local couple)
    c_ax = al0[k] * b0 + al1[k] * b1 + al2[k] * b2
    noslip = rolling * (-(rad * f_lat - 2.0 * c_ax) / (3.0 * rad)) - (1.0 - rolling) * f_lat
    st_lat = min(abs(noslip), slip[1][k] * msl[pk] * normal) * sign(noslip)
    out_f[0][k] = st_ax * a0 + st_lat * r0
    out_f[1][k] = st_ax * a1 + st_lat * r1
    out_f[2][k] = st_ax * a2 + st_lat * r2
    couple = rolling * (-rad) * st_lat  # local couple -rad f Q a (local_axial)
    al0[k] += couple * b0
    al1[k] += couple * b1
    al2[k] += couple * b2


@kernel(inline="always")
def rod_plane_contact(a, bi, W, i, unit, per_node, param_step):
    """Contact and friction of contact entry i (one rod, one plane) in block bi: adds forces to
    a.node_force [N] and couples to a.elem_couple [N m, local]. unit, per_node (bool) and
    param_step (int: 0 uniform parameters, 1 per element) are literal constants of the variant
    kernel that calls it (see VARIANTS), so each variant compiles one copy of the loops.

    Flat loops over the rod's element-lanes k (vectorizable for any W); the contact parameters
    are stored per element-lane (contact_param). When they and the body accelerations are the same
    for every element-lane (FLAG_UNIFORM, the usual case), the loops read them once, as scalars:
    each array read in the loop costs a pointer register, and the passes read ~50 arrays, far more
    than the 16 registers (measured: half the loop's instructions were pointer reloads and
    spills). An open rod's end elements take their end node's whole force (weights 1 instead of
    1/2); a closed rod's ghost node mirrors node 0."""
    r = a.contact_rod[i]
    ne = a.rod_n_elems[r] * W
    closed = a.rod_closed[r]
    e0 = a.rod_elem_off[r] * W
    n0 = a.rod_node_off[r] * W
    rolling = 1.0 * a.contact_flags[i, FLAG_ROLLING]
    prm = a.contact_param[bi, i]
    X = pair_rows(a.x[bi], n0, W)
    V = pair_rows(a.v[bi], n0, W)
    F = pair_rows(a.node_force[bi], n0, W)
    G = pair_rows(a.node_body_acc[bi], n0, W)
    M = (a.node_mass[bi, n0:], a.node_mass[bi, n0 + W:])
    Qr = rows9(a.Q[bi], e0)
    Wr = rows3(a.w[bi], e0)
    AL = rows3(a.elem_couple[bi], e0)
    radius = a.elem_radius[bi, e0:]
    normal = a.contact_normal[bi, e0:]
    slip = (a.contact_slip[bi, 0, e0:], a.contact_slip[bi, 1, e0:])
    ca = a.contact_axial[bi]
    axial = (ca[0, e0:], ca[1, e0:], ca[2, e0:], ca[3, e0:], ca[4, e0:], ca[5, e0:])
    out_f = rows3(a.contact_force[bi, i], e0)
    out_d = rows3(a.contact_force_diff[bi, i], e0)
    out_s = rows3(a.contact_force_static[bi, i], e0)
    P = (prm[P_X, e0:], prm[P_Y, e0:], prm[P_Z, e0:], prm[N_X, e0:], prm[N_Y, e0:], prm[N_Z, e0:],
         prm[K_WALL, e0:], prm[GAMMA_WALL, e0:], prm[V_EPS, e0:], prm[SURFACE_TOL, e0:],
         prm[MU_KF, e0:], prm[MU_KB, e0:], prm[MU_KL, e0:])
    U = (prm[N_X, e0:], prm[N_Y, e0:], prm[N_Z, e0:])
    MUS = (prm[MU_SF, e0:], prm[MU_SB, e0:], prm[MU_SL, e0:])
    last = ne - W
    end = 1.0 - 0.5 * closed  # weight of an end node: 1 (open rod: its whole force) or 1/2
    mirror_ghost(a.node_force[bi], n0, ne, W, closed)
    # ---- pass 1: wall response and kinetic friction; the options as literal constants of the
    # variant (LLVM if-converts option branches instead of unswitching the loop, which computed
    # every variant in every iteration: measured 528 instructions per 8 lanes with all of them)
    args = (ne, W, last, end, rolling, X, V, F, G, M, Qr, Wr, AL, radius, P, out_f,
            out_d, normal, slip, axial)
    kinetic_pass(unit, per_node, param_step, args)
    scatter_to_nodes(a.node_force[bi], a.contact_force[bi, i], a.contact_force_diff[bi, i], e0, n0,
                     ne, W, closed, per_node)
    mirror_ghost(a.node_force[bi], n0, ne, W, closed)
    # ---- pass 2: static friction, from the total forces including the kinetic friction
    for k in range(ne):
        wa = end if k < W else 0.5
        wb = end if k >= last else 0.5
        static_element(k, k * param_step, wa, wb, rolling, F, G, M, AL, radius, U, MUS, normal,
                       slip, axial, out_s)
    scatter_to_nodes(a.node_force[bi], a.contact_force_static[bi, i], a.contact_force_diff[bi, i],
                     e0, n0, ne, W, closed, False)
    if closed:
        for c in range(3):  # the ghost's force is not used: zero it as rod_assemble does
            for lane in range(W):
                a.node_force[bi, c, n0 + ne + lane] = 0.0


@kernel(inline="always")
def kinetic_pass(unit, per_node, param_step, args):
    """Pass 1 over a rod's element-lanes (kinetic_element); the contact parameters of
    element-lane k sit at k * param_step (param_step = 0: uniform, read once, loop-invariant).
    unit, per_node and param_step are literal constants of the variant."""
    (ne, W, last, end, rolling, X, V, F, G, M, Qr, Wr, AL, radius, P, out_f, out_d,
     normal, slip, axial) = args
    for k in range(ne):
        wa = end if k < W else 0.5
        wb = end if k >= last else 0.5
        kinetic_element(k, k * param_step, wa, wb, rolling, unit, per_node, X, V, F, G, M, Qr, Wr,
                        AL, radius, P, out_f, out_d, normal, slip, axial)


@kernel(inline="always")
def mirror_ghost(acc, n0, ne, W, closed):
    """Closed rod: copy node 0's force into the ghost slot, read as the last element's end node."""
    if closed:
        for c in range(3):
            row = acc[c]
            for lane in range(W):
                row[n0 + ne + lane] = row[n0 + lane]


@kernel(inline="always")
def scatter_to_nodes(acc, f, d, e0, n0, ne, W, closed, use_d):
    """Element forces to their two nodes: (f + d)/2 to the first, (f - d)/2 to the second (d = 0:
    half each; use_d False: d is not read, and f + 0.0 keeps the rounding of d = 0 exactly); a
    closed rod's last element ends on node 0.

    The loops run on 1-D row views from offset 0 (rows3): with 2-D indexing acc[c, n0 + j] LLVM
    cannot prove the read-modify-write of acc independent of f and leaves the loop scalar."""
    for c in range(3):
        first = acc[c, n0:]
        second = acc[c, n0 + W:]
        fc = f[c, e0:]
        dc = d[c, e0:]
        if use_d:
            for j in range(ne):
                first[j] += 0.5 * (fc[j] + dc[j])
            for j in range(ne - closed * W):
                second[j] += 0.5 * (fc[j] - dc[j])
        else:
            for j in range(ne):
                first[j] += 0.5 * (fc[j] + 0.0)
            for j in range(ne - closed * W):
                second[j] += 0.5 * fc[j]
        if closed:
            for lane in range(W):
                dd = dc[ne - W + lane] if use_d else 0.0
                first[lane] += 0.5 * (fc[ne - W + lane] - dd)


@kernel(inline="always")
def contact_entries(a, bi, W, unit, per_node, param_step):
    """Every contact entry of the call (all of one variant) in block bi."""
    for i in range(a.contact_rod.shape[0]):
        rod_plane_contact(a, bi, W, i, unit, per_node, param_step)


# One kernel per variant (kinetic decomposition, per-node friction, uniform parameters), so a
# scene compiles only the variants it uses (softmech.terms.contact.GroundContacts groups its
# entries): with every variant in one kernel, its cold compile took ~46 s and ~2 GB.
@kernel
def ground_contacts_sign(a, bi, W, t):
    contact_entries(a, bi, W, False, False, 1)


@kernel
def ground_contacts_sign_uniform(a, bi, W, t):
    contact_entries(a, bi, W, False, False, 0)


@kernel
def ground_contacts_unit(a, bi, W, t):
    contact_entries(a, bi, W, True, False, 1)


@kernel
def ground_contacts_unit_uniform(a, bi, W, t):
    contact_entries(a, bi, W, True, False, 0)


@kernel
def ground_contacts_sign_per_node(a, bi, W, t):
    contact_entries(a, bi, W, False, True, 1)


@kernel
def ground_contacts_sign_per_node_uniform(a, bi, W, t):
    contact_entries(a, bi, W, False, True, 0)


@kernel
def ground_contacts_unit_per_node(a, bi, W, t):
    contact_entries(a, bi, W, True, True, 1)


@kernel
def ground_contacts_unit_per_node_uniform(a, bi, W, t):
    contact_entries(a, bi, W, True, True, 0)


VARIANTS = {
    (False, False, False): ground_contacts_sign, (False, False, True): ground_contacts_sign_uniform,
    (True, False, False): ground_contacts_unit, (True, False, True): ground_contacts_unit_uniform,
    (False, True, False): ground_contacts_sign_per_node,
    (False, True, True): ground_contacts_sign_per_node_uniform,
    (True, True, False): ground_contacts_unit_per_node,
    (True, True, True): ground_contacts_unit_per_node_uniform,
}
"""(unit decomposition, per-node friction, uniform parameters) -> the variant's kernel; each
takes GroundContactArgs whose entries all have that variant, and runs last in the force pass
(its wall response balances the total force from every other term)."""
