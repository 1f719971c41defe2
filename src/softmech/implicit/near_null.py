"""The rigid-body motions of a scene's implicit DOFs: the near-null space that algebraic
multigrid (softmech.implicit.multigrid) needs to build its coarse spaces.

The elastic forces of rods and shells do not change under a rigid motion of the body, so the
six infinitesimal rigid motions (three translations, three rotations) lie in the null space of
the stiffness dF/dq of a free body; in the Newton matrix A = M/h^2 - dF/dq (with supports, a
mass term, loads) they are its softest, "near-null", directions. Smoothed aggregation
(Vanek, Mandel & Brezina 1996) interpolates exactly what it is given as near-null space; with
only the translations it cannot represent a plate's soft bending modes w = a + b x + c y
(rotations about in-plane axes), and its iteration count grows with n (docs/benchmarks_log.md).

For a DOF of node i at position X_i [m], with c the centroid of the free nodes (for conditioning):

    translation k:  u_i = e_k                        (k = x, y, z)
    rotation k:     u_i = e_k x (X_i - c)

For a scalar DOF that is an angle [rad] about an edge with unit vector e_hat (a discrete rod
edge's twist, ref. 004 section 3.1; a shell edge's mid-edge normal angle xi, section 3.3.2;
the twist of a rod-shell joint's shell edge, section 3.4), an infinitesimal rotation omega of
the whole body turns the edge's material frame, or its mid-edge normal m, by omega x (.), so:

    translation k:  0
    rotation k:     e_k . e_hat

(the rod: the reference frame is parallel transported with the tangent, so the material frame's
rotation about the tangent, omega . t, is the twist's change; the mid-edge angle xi = m . tau
with tau = e_hat x n0 changes by (omega x m) . tau = omega . (m x tau) = omega . e_hat where
m = n0, the frames being set at the start of each step). Scalars that are not such angles get
0 in every mode. tests/unit/test_near_null.py checks that A's elastic part maps these modes to
(nearly) zero force for free rods and shells of both bending models.
"""
import numpy as np

N_MODES = 6
"""Three translations, then three rotations about the x, y, z axes."""


class RigidModes:
    """The rigid motions of the free DOFs of a scene.

    component (n_dof,) int: 0, 1, 2 for a node's x, y, z, -1 for a scalar DOF; node (n_dof,)
    int: index in q of the x of the DOF's node (for a scalar: the node it is attached to);
    axis_to (n_dof,) int: for a scalar that is an angle about an edge, the index in q of the x
    of the edge's other node (the edge points from `node` to it), else -1; surface (n_dof,)
    bool: the DOF's node belongs to a surface (a shell), default all False. These are
    softmech.implicit.layout.DofLayout.dof_geometry()'s arrays (`from_layout`)."""

    def __init__(self, component, node, axis_to, surface=None):
        self.component = np.asarray(component, dtype=np.int64)
        self.node = np.asarray(node, dtype=np.int64)
        self.axis_to = np.asarray(axis_to, dtype=np.int64)
        n = self.component.size
        self.surface = (np.zeros(n, dtype=bool) if surface is None
                        else np.asarray(surface, dtype=bool))
        if self.node.shape != (n,) or self.axis_to.shape != (n,) or self.surface.shape != (n,):
            raise ValueError(f"RigidModes: component, node, axis_to and surface must have one "
                             f"entry per DOF; got shapes {self.component.shape}, "
                             f"{self.node.shape}, {self.axis_to.shape}, {self.surface.shape}")
        if n and (self.component.min() < -1 or self.component.max() > 2):
            raise ValueError("RigidModes: component must be 0, 1, 2 (x, y, z) or -1 (scalar)")

    @classmethod
    def from_layout(cls, layout):
        """The rigid modes of a finalized softmech.implicit.layout.DofLayout."""
        return cls(*layout.dof_geometry())

    @property
    def n_dof(self):
        return self.component.size

    def owners(self, free):
        """For each free DOF (free: (n_free,) indices into q), the index of its node among the
        nodes of the free DOFs, (n_free,) int64: the DOFs of one node (and the scalars attached
        to it) share one (multigrid aggregates whole nodes)."""
        _, owner = np.unique(self.node[free], return_inverse=True)
        return owner.reshape(-1)

    def n_nodes(self, free, surface=False):
        """The number of nodes that DOFs among `free` (n_free,) belong to (a scalar DOF's:
        the node it is attached to); surface=True: of surface nodes only."""
        nodes = self.node[free]
        if surface:
            nodes = nodes[self.surface[free]]
        return int(np.unique(nodes).size)

    def modes(self, q, free):
        """B (n_free, 6): the translations and rotations (module docstring) of the free DOFs
        `free` (n_free,) at the positions of q (n_dof,) [m]."""
        component = self.component[free]
        node = self.node[free]
        positions = q[node[:, None] + np.arange(3)]                  # (n_free, 3) [m]
        is_node = component >= 0
        centre = positions[is_node].mean(axis=0) if is_node.any() else np.zeros(3)
        arm = positions - centre
        B = np.zeros((len(free), N_MODES))
        rows = np.flatnonzero(is_node)
        comp = component[rows]
        B[rows, comp] = 1.0
        # (e_k x r)_j = eps_kjl r_l: rotation k moves component j by r_l with l = the third
        # axis, with the sign of the permutation (k, j, l)
        for k in range(3):
            j1, j2 = (k + 1) % 3, (k + 2) % 3
            B[rows, 3 + k] = np.where(comp == j1, -arm[rows, j2],
                                      np.where(comp == j2, arm[rows, j1], 0.0))
        angles = np.flatnonzero((component < 0) & (self.axis_to[free] >= 0))
        if angles.size:
            edge = (q[self.axis_to[free][angles][:, None] + np.arange(3)]
                    - positions[angles])
            length = np.linalg.norm(edge, axis=1)
            if np.any(length == 0.0):
                raise ValueError("RigidModes.modes: an edge of an angle DOF has zero length")
            B[angles, 3:] = edge / length[:, None]
        return B
