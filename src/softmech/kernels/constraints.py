"""Kinematic constraints of rod ends (softmech.terms.boundary): node positions prescribed as
x = pos0 + disp p(t) and element frames held fixed. Imposed by the integrator after every drift
(`constrain_positions`) and kick (`constrain_rates`)."""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.profiles import profile_rate, profile_value

ConstraintArgs = namedtuple("ConstraintArgs", [
    "x", "v", "Q", "w",                              # state (overwritten where constrained)
    "cn_node", "cn_pos0", "cn_disp", "cn_profile",   # node slot (n_cn,), (n_blocks, n_cn, 3, W) x2 [m], (n_cn, 3)
    "cf_elem", "cf_Q",                               # element slot (n_cf,), frame (n_blocks, n_cf, 9, W)
])


@kernel(inline="always")
def constrain_positions(a, bi, W, t):
    """Impose constrained node positions x = pos0 + disp p(t) and fixed frames."""
    x = a.x[bi]
    for i in range(a.cn_node.shape[0]):
        p = profile_value(t, a.cn_profile[i])
        base = a.cn_node[i] * W
        for lane in range(W):
            for c in range(3):
                x[c, base + lane] = a.cn_pos0[bi, i, c, lane] + p * a.cn_disp[bi, i, c, lane]
    Q = a.Q[bi]
    for i in range(a.cf_elem.shape[0]):
        base = a.cf_elem[i] * W
        for lane in range(W):
            for c in range(9):
                Q[c, base + lane] = a.cf_Q[bi, i, c, lane]


@kernel(inline="always")
def constrain_rates(a, bi, W, t):
    """Impose constrained node velocities disp dp/dt and zero angular velocity of fixed frames."""
    v = a.v[bi]
    for i in range(a.cn_node.shape[0]):
        dp = profile_rate(t, a.cn_profile[i])
        base = a.cn_node[i] * W
        for lane in range(W):
            for c in range(3):
                v[c, base + lane] = dp * a.cn_disp[bi, i, c, lane]
    w = a.w[bi]
    for i in range(a.cf_elem.shape[0]):
        base = a.cf_elem[i] * W
        for lane in range(W):
            for c in range(3):
                w[c, base + lane] = 0.0
