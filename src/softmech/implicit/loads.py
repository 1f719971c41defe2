"""Bindings of the simplest terms: forces that do not depend on the state (gravity, point
forces) and fixed degrees of freedom. Their Jacobian is zero, so they declare no entries."""
import numpy as np

from softmech.implicit.binding import Binding
from softmech.implicit.compiled import CompiledForm
from softmech.kernels.implicit_bindings import (FixedDofsArgs, NodeLoadsArgs, fixed_dofs_constrain,
                                                no_forces, node_loads_binding)


class NodeLoads(Binding):
    """F[dofs] += weights[:, None] * scale[b] * vector[b] for world b.

    dofs: (n, 3) node DOFs (no node twice); weights: (n,) (the node masses [kg] for a body
    acceleration [m/s^2], ones for a force [N], minus the displaced volumes [m^3] for
    buoyancy); vector: the per-world parameter (B, 3) it scales; scale: a per-world factor (B,)
    (the fluid density [kg/m^3] for buoyancy) or None (1)."""

    def __init__(self, name, dofs, weights, vector, scale=None):
        self.name = name
        self.dofs = np.ascontiguousarray(dofs, dtype=np.int64).reshape(-1, 3)
        if np.unique(self.dofs[:, 0]).size != len(self.dofs):
            raise ValueError(f"{name}: a node is loaded twice in one NodeLoads")
        self.weights = np.ascontiguousarray(weights, dtype=float).reshape(-1)
        self.vector = vector
        self.scale = scale
        self.args = NodeLoadsArgs(self.dofs, self.weights, vector,
                                  np.zeros(0) if scale is None else scale)

    def _field(self, b):
        return self.vector[b] if self.scale is None else self.scale[b] * self.vector[b]

    def forces(self, b, q, v, t, h, F, J):
        node_loads_binding(self.args, b, q, v, t, h, F, J)

    def compiled(self):
        return CompiledForm(self.name, self.args, forces=node_loads_binding)

    def energy(self, b, q):
        # a uniform field: E = -sum_i w_i vector . x_i
        return -float(np.sum(self.weights[:, None] * self._field(b) * q[self.dofs]))


class FixedDofs(Binding):
    """DOFs held at fixed values (their values when the scene was compiled)."""

    pure = True         # writes nothing: its values are read-only

    def __init__(self, name, dofs, values):
        self.name = name
        self.constrained_dofs = np.ascontiguousarray(dofs, dtype=np.int64).reshape(-1)
        self._values = np.asarray(values, dtype=float).reshape(-1).copy()

    def constrained_values(self, b, t):
        return self._values

    def compiled(self):
        return CompiledForm(self.name, FixedDofsArgs(self.constrained_dofs, self._values),
                            forces=no_forces, constrain=fixed_dofs_constrain)
