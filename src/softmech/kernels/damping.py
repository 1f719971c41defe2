"""Linear damping of rods (softmech.terms.damping): force -gamma dl v on every node and local
couple -gamma_r l^ w on every element, coefficients per node / element slot and lane (zero on
undamped rods), in the block layout of softmech.model."""
from collections import namedtuple

from softmech.kernels import kernel

LinearDampingArgs = namedtuple("LinearDampingArgs", [
    "v", "w",                       # state
    "node_damping",                 # gamma dl [kg/s], (n_blocks, n_nodes*W)
    "elem_damping",                 # gamma_r l^ [N m s], (n_blocks, n_elems*W)
    "node_force", "elem_couple",    # outputs (added to)
])


@kernel(inline="always")
def linear_damping(a, bi, W, t):
    """node_force -= c_n v and elem_couple -= c_e w on block bi."""
    acc = a.node_force[bi]
    alpha = a.elem_couple[bi]
    v = a.v[bi]
    w = a.w[bi]
    cn = a.node_damping[bi]
    ce = a.elem_damping[bi]
    for c in range(3):
        for k in range(acc.shape[1]):
            acc[c, k] -= cn[k] * v[c, k]
        for k in range(alpha.shape[1]):
            alpha[c, k] -= ce[k] * w[c, k]
