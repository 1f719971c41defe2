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
from collections import namedtuple

from softmech.kernels import kernel

# rows of muscle_wave (n_blocks, n_muscles, 3, W)
W_OMEGA, W_PHASE, W_RAMP = 0, 1, 2

MuscleWavesArgs = namedtuple("MuscleWavesArgs", [
    "rod_elem_off", "rod_n_elems", "rod_closed",     # rod bodies
    "muscle_rod",            # rod index per muscle (n_mt,)
    "muscle_beta_cos",       # beta cos(k s) per Voronoi domain [N m], (n_blocks, n_mt, n_vor_max, W)
    "muscle_beta_sin",       # beta sin(k s), same shape
    "muscle_wave",           # [omega [rad/s], phase [rad], ramp time [s]], (n_blocks, n_mt, 3, W)
    "muscle_phase",          # scratch: ramp sin, ramp cos per lane, (n_blocks, 2, W)
    "muscle_moment",         # scratch: one muscle's moments [N m], (n_blocks, n_elems*W)
    "elem_couple",           # output (added to)
])


@kernel(inline="always")
def muscle_waves(a, bi, W, t):
    """Add the muscle moments of block bi at time t to a.elem_couple [N m, local].

    Per muscle: the time factors ramp sin and ramp cos of every lane (a.muscle_phase, one
    sin/cos pair per lane), the moment of every Voronoi domain and lane (a.muscle_moment, in the
    elements' lane-interleaved order), then two flat loops: +A to the element after each domain,
    then -A to the one before. Each element receives the two in the order of a sweep over the
    domains (+ from the domain before it, then - from the one after), so the result does not
    depend on this arrangement; flat unit-stride loops vectorize across lanes, where a loop over
    the domains of one lane (stride W) stays scalar."""
    alpha = a.elem_couple[bi]
    sn = a.muscle_phase[bi, 0]
    cs = a.muscle_phase[bi, 1]
    moment = a.muscle_moment[bi]
    for i in range(a.muscle_rod.shape[0]):
        r = a.muscle_rod[i]
        n_e = a.rod_n_elems[r]
        closed = a.rod_closed[r]
        nv = n_e - 1 + closed
        e0 = a.rod_elem_off[r] * W
        for lane in range(W):
            arg = a.muscle_wave[bi, i, W_OMEGA, lane] * t + a.muscle_wave[bi, i, W_PHASE, lane]
            ramp_time = a.muscle_wave[bi, i, W_RAMP, lane]
            factor = min(1.0, t / ramp_time) if ramp_time > 0.0 else 1.0
            sn[lane] = factor * math.sin(arg)
            cs[lane] = factor * math.cos(arg)
        beta_cos = a.muscle_beta_cos[bi, i]
        beta_sin = a.muscle_beta_sin[bi, i]
        for j in range(nv):
            for lane in range(W):
                moment[j * W + lane] = sn[lane] * beta_cos[j, lane] - cs[lane] * beta_sin[j, lane]
        before = alpha[0, e0:]       # element j * W + lane: the one before domain j
        after = alpha[0, e0 + W:]    # element (j + 1) * W + lane: the one after it
        n_inner = (n_e - 1) * W      # domains between two elements of the open sequence
        for k in range(n_inner):
            after[k] += moment[k]
        for k in range(nv * W):
            before[k] -= moment[k]
        if closed:  # the closing domain (after the last element) acts on element 0
            for lane in range(W):
                before[lane] += moment[n_inner + lane]
