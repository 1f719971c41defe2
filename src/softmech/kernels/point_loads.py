"""Prescribed point forces on nodes and couples on elements (softmech.terms.loads), lab frame,
each times its time profile p(t) (softmech.kernels.profiles); couples are turned into the
element's local frame, Q c."""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.profiles import profile_value

PointLoadsArgs = namedtuple("PointLoadsArgs", [
    "Q",                                     # state: element directors
    "pf_node", "pf_vec", "pf_profile",       # forces: node slot (n_pf,), vector (n_blocks, n_pf, 3, W) [N], profile (n_pf, 3)
    "pc_elem", "pc_vec", "pc_profile",       # couples: element slot, vector [N m], profile
    "node_force", "elem_couple",             # outputs (added to)
])


@kernel(inline="always")
def point_loads(a, bi, W, t):
    """Add the point forces and couples of block bi at time t."""
    acc = a.node_force[bi]
    alpha = a.elem_couple[bi]
    Q = a.Q[bi]
    for i in range(a.pf_node.shape[0]):
        p = profile_value(t, a.pf_profile[i])
        base = a.pf_node[i] * W
        for lane in range(W):
            for c in range(3):
                acc[c, base + lane] += p * a.pf_vec[bi, i, c, lane]
    for i in range(a.pc_elem.shape[0]):
        p = profile_value(t, a.pc_profile[i])
        base = a.pc_elem[i] * W
        for lane in range(W):
            k = base + lane
            c0 = p * a.pc_vec[bi, i, 0, lane]
            c1 = p * a.pc_vec[bi, i, 1, lane]
            c2 = p * a.pc_vec[bi, i, 2, lane]
            # lab-frame couple to the local frame: Q c
            for row in range(3):
                alpha[row, k] += Q[3 * row, k] * c0 + Q[3 * row + 1, k] * c1 + Q[3 * row + 2, k] * c2
