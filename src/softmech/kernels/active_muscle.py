"""Active muscle rods (softmech.terms.active_muscle): a contractile axial stress carried by every
element of a Cosserat rod, on top of the rod's own elasticity (Zhang, Chan, Parthasarathy,
Gazzola, Nat. Commun. 10:4825, 2019: the biceps' motor units of Fig. 1, the walker's muscle
rings of eq. 1, the snake's muscles of eq. 2).

Element i between nodes a and b, edge dx = x_b - x_a, length l = |dx|, rest length l^, stretch
eta = l / l^ (the dilatation e of the paper's eqs. 3-4) and stretch rate
d(eta)/dt = (dx . (v_b - v_a)) / (l l^). The contractile stress [Pa]

    sigma_c = sigma_max (a(t, s) f_a(eta) + f_p(eta)) + zeta d(eta)/dt

acts on the current cross-section A = A^ eta^-p: p = 1 for an incompressible muscle (Poisson
ratio 0.5, volume A l = A^ l^ conserved: the section grows as the muscle shortens, as the
rods' own "gazzola2018" law does for its elastic force n = S sigma / e), p = 0 when the curves
are force curves on the rest section. The tension T = A sigma_c [N] pulls the element's two
nodes together along the edge,

    F_a += T dx / l,    F_b -= T dx / l,

so it has no net force and no net torque, does not depend on the frames (no couple: the
force line is the centreline), and a rigid motion (eta and d(eta)/dt unchanged) changes nothing.

f_a(eta) = max(0, sum_k c_k eta^k) inside [eta_lo, eta_hi], 0 outside (active force-length
curve); f_p(eta) = max(0, sum_k p_k (eta - 1)^k) for eta > 1, 0 otherwise (passive curve, in the
strain eta - 1). Activation a(t, s):
  * ACT_TABLE: linear interpolation of a table (times, values), held constant outside it;
  * ACT_ABS_SIN: |sin(2 pi f t + phase)| (the walker's stimulation at f = half the stimulation
    frequency, Zhang et al. 2019 eq. 1);
  * ACT_WAVE: 0.5 + 0.5 side sin(2 pi f t - 2 pi phase - k s) for t >= phase / f, 0 before
    (eq. 2 of Zhang et al. 2019, phase in periods, side +1 right / -1 left; k = 2 pi / lambda
    makes it travel along the arc length s, k = 0 is eq. 2 itself), times
    min(1, (t - phase / f) / t_ramp) with a ramp time t_ramp > 0 (the paper's code ramps its
    snake's muscles over their first second; t_ramp = 0: none).
"""
import math
from collections import namedtuple

from softmech.kernels import kernel

ACT_TABLE, ACT_ABS_SIN, ACT_WAVE = 0, 1, 2

(P_MAX_STRESS, P_DAMPING, P_FREQUENCY, P_PHASE, P_SIDE, P_WAVENUMBER, P_AREA_EXPONENT,
 P_ACTIVE_LO, P_ACTIVE_HI, P_RAMP) = range(10)
N_MUSCLE_PARAMS = 10
"""Rows of muscle_param: sigma_max [Pa], zeta [Pa s], f [Hz], phase [rad (|sin|) or periods
(wave)], side (+-1), k [rad/m], p (0 or 1), eta_lo, eta_hi [-], ramp time [s] (wave)."""

MAX_COEFFICIENTS = 8
"""Largest number of coefficients of each force-length polynomial (degree 7)."""

ActiveMusclesArgs = namedtuple("ActiveMusclesArgs", [
    "x", "v",                                                # state
    "rod_node_off", "rod_elem_off", "rod_n_elems", "rod_closed", "elem_inv_rest_len",
    "muscle_rod",     # rod index per muscle, (n_m,) int64
    "muscle_kind",    # ACT_* per muscle, (n_m,) int64
    "muscle_param",   # rows P_*, (n_blocks, n_m, N_MUSCLE_PARAMS, W)
    "muscle_poly",    # [active c_0.., passive p_0..], (n_m, 2, MAX_COEFFICIENTS)
    "muscle_layer",   # layer of muscle_elem per muscle, (n_m,) int64 (softmech.packing.Engine.elem_layers)
    "muscle_elem",    # rest area A^ [m^2], arc length s [m] per element slot, (n_blocks, n_layers, 2, n_elems*W)
    "muscle_table",   # activation table: times [s], values [-], (n_m, 2, n_t) (padded with the last sample)
    "muscle_count",   # samples per table, (n_m,) int64
    "node_force",     # output (added to)
])


@kernel(inline="always")
def polynomial(c, x):
    """sum_k c[k] x^k (Horner)."""
    out = 0.0
    for k in range(c.shape[0] - 1, -1, -1):
        out = out * x + c[k]
    return out


@kernel(inline="always")
def table_value(times, values, count, t):
    """Linear interpolation of (times, values)[:count] at t, held constant outside."""
    if count == 1 or t <= times[0]:
        return values[0]
    if t >= times[count - 1]:
        return values[count - 1]
    lo, hi = 0, count - 1
    while hi - lo > 1:   # bisection: times[lo] <= t < times[hi]
        mid = (lo + hi) // 2
        if times[mid] <= t:
            lo = mid
        else:
            hi = mid
    w = (t - times[lo]) / (times[hi] - times[lo])
    return values[lo] + w * (values[hi] - values[lo])


@kernel
def active_muscles(a, bi, W, t):
    """Add the contractile forces of every active muscle rod of block bi at time t [s] to
    a.node_force [N] (equations: module docstring)."""
    x, v, F = a.x[bi], a.v[bi], a.node_force[bi]
    for i in range(a.muscle_rod.shape[0]):
        r = a.muscle_rod[i]
        kind = a.muscle_kind[i]
        active = a.muscle_poly[i, 0]
        passive = a.muscle_poly[i, 1]
        base = 0.0
        if kind == ACT_TABLE:
            base = table_value(a.muscle_table[i, 0], a.muscle_table[i, 1], a.muscle_count[i], t)
        for lane in range(W):
            prm = a.muscle_param[bi, i, :, lane]
            act = base
            if kind == ACT_ABS_SIN:
                act = abs(math.sin(2.0 * math.pi * prm[P_FREQUENCY] * t + prm[P_PHASE]))
            started = t * prm[P_FREQUENCY] >= prm[P_PHASE]     # eq. 2: active for t > phase
            ramp = 1.0
            if prm[P_RAMP] > 0.0:
                ramp = min(1.0, (t * prm[P_FREQUENCY] - prm[P_PHASE])
                           / (prm[P_FREQUENCY] * prm[P_RAMP]))
            omega_t = 2.0 * math.pi * (prm[P_FREQUENCY] * t - prm[P_PHASE])
            n_e = a.rod_n_elems[r]
            for j in range(n_e):
                k = (a.rod_elem_off[r] + j) * W + lane
                na = (a.rod_node_off[r] + j) * W + lane
                nb = na + W
                if a.rod_closed[r] and j == n_e - 1:
                    nb = a.rod_node_off[r] * W + lane          # a ring's last element ends on node 0
                dx0 = x[0, nb] - x[0, na]
                dx1 = x[1, nb] - x[1, na]
                dx2 = x[2, nb] - x[2, na]
                length = math.sqrt(dx0 * dx0 + dx1 * dx1 + dx2 * dx2)
                inv_rl = a.elem_inv_rest_len[bi, k]
                eta = length * inv_rl
                rate = (dx0 * (v[0, nb] - v[0, na]) + dx1 * (v[1, nb] - v[1, na])
                        + dx2 * (v[2, nb] - v[2, na])) * inv_rl / length
                if kind == ACT_WAVE:
                    act = 0.0
                    if started:
                        arc = a.muscle_elem[bi, a.muscle_layer[i], 1, k]
                        act = ramp * (0.5 + 0.5 * prm[P_SIDE] * math.sin(
                            omega_t - prm[P_WAVENUMBER] * arc))
                f_a = 0.0
                if prm[P_ACTIVE_LO] <= eta <= prm[P_ACTIVE_HI]:
                    f_a = max(0.0, polynomial(active, eta))
                f_p = 0.0
                if eta > 1.0:
                    f_p = max(0.0, polynomial(passive, eta - 1.0))
                stress = prm[P_MAX_STRESS] * (act * f_a + f_p) + prm[P_DAMPING] * rate
                area = a.muscle_elem[bi, a.muscle_layer[i], 0, k]
                if prm[P_AREA_EXPONENT] > 0.0:
                    area = area / eta                              # A = A^ / e (Poisson 0.5)
                s = area * stress / length                         # T / l
                F[0, na] += s * dx0
                F[1, na] += s * dx1
                F[2, na] += s * dx2
                F[0, nb] -= s * dx0
                F[1, nb] -= s * dx1
                F[2, nb] -= s * dx2
