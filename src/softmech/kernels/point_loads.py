"""Prescribed point forces on nodes and couples on elements (softmech.terms.loads), lab frame,
each times its time profile p(t) (softmech.kernels.profiles); couples are turned into the
element's local frame, Q c."""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.profiles import profile_value

PointLoadsArgs = namedtuple("PointLoadsArgs", [
    "Q",                        # state: element directors
    "force_node",               # node slot per force (n_f,)
    "force_vec",                # force [N], (n_blocks, n_f, 3, W)
    "force_profile",            # time profile (ramp, frequency, phase), (n_f, 3)
    "couple_elem", "couple_vec", "couple_profile",  # couples: element slot, vector [N m], profile
    "node_force", "elem_couple",  # outputs (added to)
])


@kernel(inline="always")
def point_loads(a, bi, W, t):
    """Add the point forces and couples of block bi at time t."""
    acc = a.node_force[bi]
    alpha = a.elem_couple[bi]
    Q = a.Q[bi]
    for i in range(a.force_node.shape[0]):
        p = profile_value(t, a.force_profile[i])
        base = a.force_node[i] * W
        for lane in range(W):
            for c in range(3):
                acc[c, base + lane] += p * a.force_vec[bi, i, c, lane]
    for i in range(a.couple_elem.shape[0]):
        p = profile_value(t, a.couple_profile[i])
        base = a.couple_elem[i] * W
        for lane in range(W):
            k = base + lane
            c0 = p * a.couple_vec[bi, i, 0, lane]
            c1 = p * a.couple_vec[bi, i, 1, lane]
            c2 = p * a.couple_vec[bi, i, 2, lane]
            # lab-frame couple to the local frame: Q c
            for row in range(3):
                alpha[row, k] += Q[3 * row, k] * c0 + Q[3 * row + 1, k] * c1 + Q[3 * row + 2, k] * c2
