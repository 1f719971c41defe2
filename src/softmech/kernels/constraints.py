"""Kinematic constraints (softmech.terms.boundary for rod ends, softmech.terms.hold for rigid
bodies): node positions prescribed as x = pos0 + disp p(t), component by component where the
node's mask is nonzero, and element frames held fixed. Imposed by the integrator after every
drift (`constrain_positions`) and kick (`constrain_rates`); the implicit integrator finds the
held components by probing these two hooks (softmech.integrators.implicit)."""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.profiles import profile_rate, profile_value

ConstraintArgs = namedtuple("ConstraintArgs", [
    "x", "v", "Q", "w",                  # state (overwritten where constrained)
    "fixed_node",                        # node slot per constrained node (n_cn,)
    "fixed_node_pos0", "fixed_node_disp",  # x = pos0 + disp p(t) [m], (n_blocks, n_cn, 3, W) each
    "fixed_node_profile",                # time profile (ramp, frequency, phase), (n_cn, 3)
    "fixed_node_mask",                   # 1: component held, 0: free, (n_cn, 3)
    "fixed_elem", "fixed_elem_Q",        # element slot (n_cf,), held frame (n_blocks, n_cf, 9, W)
])


@kernel(inline="always")
def constrain_positions(a, bi, W, t):
    """Impose constrained node positions x = pos0 + disp p(t) (held components) and fixed
    frames."""
    x = a.x[bi]
    for i in range(a.fixed_node.shape[0]):
        p = profile_value(t, a.fixed_node_profile[i])
        base = a.fixed_node[i] * W
        for c in range(3):
            if a.fixed_node_mask[i, c] == 0.0:
                continue
            for lane in range(W):
                x[c, base + lane] = a.fixed_node_pos0[bi, i, c, lane] + p * a.fixed_node_disp[bi, i, c, lane]
    Q = a.Q[bi]
    for i in range(a.fixed_elem.shape[0]):
        base = a.fixed_elem[i] * W
        for lane in range(W):
            for c in range(9):
                Q[c, base + lane] = a.fixed_elem_Q[bi, i, c, lane]


@kernel(inline="always")
def constrain_rates(a, bi, W, t):
    """Impose constrained node velocities disp dp/dt (held components) and zero angular
    velocity of fixed frames."""
    v = a.v[bi]
    for i in range(a.fixed_node.shape[0]):
        dp = profile_rate(t, a.fixed_node_profile[i])
        base = a.fixed_node[i] * W
        for c in range(3):
            if a.fixed_node_mask[i, c] == 0.0:
                continue
            for lane in range(W):
                v[c, base + lane] = dp * a.fixed_node_disp[bi, i, c, lane]
    w = a.w[bi]
    for i in range(a.fixed_elem.shape[0]):
        base = a.fixed_elem[i] * W
        for lane in range(W):
            for c in range(3):
                w[c, base + lane] = 0.0
