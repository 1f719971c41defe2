"""External loads, dissipation and kinematic constraints, in the block layout of `layout.py`.

Every Python-level term (gravity, end loads, uniform loads, dampers, boundary conditions) compiles
into the generic arrays read here: a body-acceleration field, point forces and couples with a time
profile, per-node / per-element linear dampers, and constrained nodes and frames.

Time profile of a load or prescribed motion, parameters (ramp_time, frequency, phase):
    p(t) = min(t / ramp_time, 1) * sin(2 pi f t + phase)
with the ramp factor 1 when ramp_time == 0 and the sine factor 1 when f == 0.
"""
import math

import numba as nb

from softmech.kernels import kernel
from softmech.kernels.contact import ground_contacts
from softmech.kernels.cosserat_forces import relative_rotation, voronoi_couple_terms
from softmech.kernels.muscles import muscle_waves
from softmech.kernels.so3 import log_jacobian_coefficient


@kernel(inline="always")
def profile_value(t, prof):
    ramp = prof[0]
    freq = prof[1]
    r = 1.0
    if ramp > 0.0:
        r = min(t / ramp, 1.0)
    s = 1.0
    if freq > 0.0:
        s = math.sin(2.0 * math.pi * freq * t + prof[2])
    return r * s


@kernel(inline="always")
def profile_rate(t, prof):
    """d p / dt of `profile_value`."""
    ramp = prof[0]
    freq = prof[1]
    r = 1.0
    dr = 0.0
    if ramp > 0.0 and t < ramp:
        r = t / ramp
        dr = 1.0 / ramp
    s = 1.0
    ds = 0.0
    if freq > 0.0:
        arg = 2.0 * math.pi * freq * t + prof[2]
        s = math.sin(arg)
        ds = 2.0 * math.pi * freq * math.cos(arg)
    return dr * s + r * ds


@kernel(inline="always")
def external_loads(m, s, ws, bi, W, t):
    """Add dissipation, point forces and couples to ws.node_acc [N] and ws.elem_alpha [N m, local],
    then convert them to accelerations: a = F / m + g, dw/dt = e J^{-1} C (handout eq. 4)."""
    acc = ws.node_acc[bi]
    alpha = ws.elem_alpha[bi]
    v = s.v[bi]
    w = s.w[bi]
    Q = s.Q[bi]
    cn = m.node_damping[bi]
    ce = m.elem_damping[bi]
    for c in range(3):
        for k in range(acc.shape[1]):
            acc[c, k] -= cn[k] * v[c, k]
        for k in range(alpha.shape[1]):
            alpha[c, k] -= ce[k] * w[c, k]
    for i in range(m.pf_node.shape[0]):
        p = profile_value(t, m.pf_profile[i])
        base = m.pf_node[i] * W
        for lane in range(W):
            for c in range(3):
                acc[c, base + lane] += p * m.pf_vec[bi, i, c, lane]
    for i in range(m.pc_elem.shape[0]):
        p = profile_value(t, m.pc_profile[i])
        base = m.pc_elem[i] * W
        for lane in range(W):
            k = base + lane
            c0 = p * m.pc_vec[bi, i, 0, lane]
            c1 = p * m.pc_vec[bi, i, 1, lane]
            c2 = p * m.pc_vec[bi, i, 2, lane]
            # lab-frame couple to the local frame: Q c
            for row in range(3):
                alpha[row, k] += Q[3 * row, k] * c0 + Q[3 * row + 1, k] * c1 + Q[3 * row + 2, k] * c2
    frame_anchors(m, s, ws, bi, W)
    muscle_waves(m, s, ws, bi, W, t)
    # contact last: its wall response balances the total force from everything above
    ground_contacts(m, s, ws, bi, W)
    im = m.node_inv_mass[bi]
    g = m.node_body_acc[bi]
    for c in range(3):
        for k in range(acc.shape[1]):
            acc[c, k] = acc[c, k] * im[k] + g[c, k]
    iJ = m.elem_inv_J[bi]
    length = ws.elem_len[bi]
    irl = m.elem_inv_rest_len[bi]
    for c in range(3):
        for k in range(alpha.shape[1]):
            alpha[c, k] *= length[k] * irl[k] * iJ[c, k]


@kernel(inline="always")
def frame_anchors(m, s, ws, bi, W):
    """Couples of elastic anchors (half Voronoi domains) pulling element frames towards fixed
    frames: m = (K / D) phi with phi the rotation between target and element frame, distributed
    as in the rod's Voronoi domains (exact log-map Jacobian) -- a clamp at the rod's end s = 0
    (or L) rather than at the first element's centre."""
    Q = s.Q[bi]
    alpha = ws.elem_alpha[bi]
    for i in range(m.fa_elem.shape[0]):
        side = m.fa_side[i]
        base = m.fa_elem[i] * W
        for lane in range(W):
            k = base + lane
            t = m.fa_Q[bi, i, :, lane]
            if side > 0.0:  # target frame before the element: element is b
                p0, p1, p2, sn, cs, ratio = relative_rotation(
                    t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8],
                    Q[0, k], Q[1, k], Q[2, k], Q[3, k], Q[4, k], Q[5, k], Q[6, k], Q[7, k], Q[8, k])
            else:
                p0, p1, p2, sn, cs, ratio = relative_rotation(
                    Q[0, k], Q[1, k], Q[2, k], Q[3, k], Q[4, k], Q[5, k], Q[6, k], Q[7, k], Q[8, k],
                    t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8])
            cc = log_jacobian_coefficient(p0 * p0 + p1 * p1 + p2 * p2, sn, cs, ratio)
            m0 = m.fa_K[bi, i, 0, lane] * p0
            m1 = m.fa_K[bi, i, 1, lane] * p1
            m2 = m.fa_K[bi, i, 2, lane] * p2
            h0, h1, h2, g0, g1, g2 = voronoi_couple_terms(p0, p1, p2, m0, m1, m2, cc)
            # element b receives -m + h - g, element a receives m + h + g
            alpha[0, k] += -side * (m0 + g0) + h0
            alpha[1, k] += -side * (m1 + g1) + h1
            alpha[2, k] += -side * (m2 + g2) + h2


@kernel(inline="always")
def constrain_positions(m, s, bi, W, t):
    """Impose constrained node positions x = pos0 + disp p(t) and fixed frames; refresh ghosts."""
    x = s.x[bi]
    for i in range(m.cn_node.shape[0]):
        p = profile_value(t, m.cn_profile[i])
        base = m.cn_node[i] * W
        for lane in range(W):
            for c in range(3):
                x[c, base + lane] = m.cn_pos0[bi, i, c, lane] + p * m.cn_disp[bi, i, c, lane]
    Q = s.Q[bi]
    for i in range(m.cf_elem.shape[0]):
        base = m.cf_elem[i] * W
        for lane in range(W):
            for c in range(9):
                Q[c, base + lane] = m.cf_Q[bi, i, c, lane]
    copy_slots(x, m.ghost_node, m.ghost_node_src, W)
    copy_slots(Q, m.ghost_elem, m.ghost_elem_src, W)


@kernel(inline="always")
def constrain_rates(m, s, bi, W, t):
    """Impose constrained node velocities disp dp/dt and zero angular velocity of fixed frames;
    refresh ghosts."""
    v = s.v[bi]
    for i in range(m.cn_node.shape[0]):
        dp = profile_rate(t, m.cn_profile[i])
        base = m.cn_node[i] * W
        for lane in range(W):
            for c in range(3):
                v[c, base + lane] = dp * m.cn_disp[bi, i, c, lane]
    w = s.w[bi]
    for i in range(m.cf_elem.shape[0]):
        base = m.cf_elem[i] * W
        for lane in range(W):
            for c in range(3):
                w[c, base + lane] = 0.0
    copy_slots(v, m.ghost_node, m.ghost_node_src, W)
    copy_slots(w, m.ghost_elem, m.ghost_elem_src, W)


@kernel(inline="always")
def copy_slots(a, dst, src, W):
    """a[:, dst[i]*W + lane] = a[:, src[i]*W + lane]: refresh the ghost slots of closed rods."""
    for i in range(dst.shape[0]):
        for c in range(a.shape[0]):
            for lane in range(W):
                a[c, dst[i] * W + lane] = a[c, src[i] * W + lane]
