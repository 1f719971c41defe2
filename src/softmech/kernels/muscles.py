"""Muscle torque waves (ME498 handout section 2.2.4 with its sign erratum; Gazzola et al. 2018):
    A(s_j, t) = ramp(t) beta(s_j) sin(2 pi t / T - 2 pi s_j / lambda + phase)
at every Voronoi domain j (interior node), applied as an internal joint moment about the local
d1 axis: +A on the element after the node, -A on the element before it, so the actuation puts
no net couple on the body. s_j is the arc length from the head.

The spatial part is precomputed per world (softmech.terms.muscles): with S = sin(w t + phase) and
C = cos(w t + phase), A = ramp (S beta cos(k s) - C beta sin(k s)), so a step costs one sin/cos pair
per world instead of one per node.
"""
import math

from softmech.kernels import kernel

# rows of mt_wave (n_blocks, n_muscles, 3, W)
W_OMEGA, W_PHASE, W_RAMP = 0, 1, 2


@kernel(inline="always")
def muscle_waves(m, s, ws, bi, W, t):
    """Add the muscle moments of block bi at time t to ws.elem_alpha [N m, local]."""
    alpha = ws.elem_alpha[bi]
    for i in range(m.mt_rod.shape[0]):
        r = m.mt_rod[i]
        n_e = m.rod_n_elems[r]
        closed = m.rod_closed[r]
        nv = n_e - 1 + closed
        e0 = m.rod_elem_off[r] * W
        for lane in range(W):
            arg = m.mt_wave[bi, i, W_OMEGA, lane] * t + m.mt_wave[bi, i, W_PHASE, lane]
            ramp_time = m.mt_wave[bi, i, W_RAMP, lane]
            factor = min(1.0, t / ramp_time) if ramp_time > 0.0 else 1.0
            sn = factor * math.sin(arg)
            cs = factor * math.cos(arg)
            for j in range(nv):
                moment = sn * m.mt_beta_cos[bi, i, j, lane] - cs * m.mt_beta_sin[bi, i, j, lane]
                ka = e0 + j * W + lane
                kb = e0 + lane if (closed == 1 and j == n_e - 1) else ka + W
                alpha[0, ka] -= moment
                alpha[0, kb] += moment
