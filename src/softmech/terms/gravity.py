"""Uniform gravity: a body acceleration g [m/s^2] on every node of every rod (F = m_i g), every
rigid body, and every node of the discrete rods and shells (in either engine)."""

import numpy as np

from softmech import _checks
from softmech.implicit.loads import NodeLoads
from softmech.terms.base import Term


class Gravity(Term):
    """Gravity(acceleration=(0, 0, -9.81)); per-world parameter `<name>.acceleration` (B, 3)."""

    section = "environment"

    def __init__(self, acceleration=(0.0, 0.0, -9.81), *, name="gravity"):
        self.name = name
        self.acceleration = _checks.finite(f"{name}.acceleration", acceleration, shape=(3,))

    def parameters(self):
        return {"acceleration": self.acceleration[None].copy()}

    def contribute(self, ctx, p):
        for rod in ctx.rods:
            ctx.body_acc[rod.name] += p["acceleration"][:, None, :]
        for body in ctx.rigid_bodies:
            ctx.rigid_body_acc[body.name] += p["acceleration"]
        # discrete rods and shells in the unified engine: F_i = m_i g
        for body in ctx.der_rods + getattr(ctx, "der_shells", []):
            ctx.der_body_acc[body.name] += p["acceleration"][:, None, :]

    def bind_implicit(self, ctx):
        """Discrete rods and shells: F_i = m_i g on every node (the lumped node masses)."""
        dofs = ctx.layout.node_dof(np.concatenate([b.nodes for b in ctx.bodies.values()]))
        dofs = np.unique(dofs, axis=0)          # a node shared by two bodies counts once
        return [NodeLoads(self.name, dofs, ctx.layout.mass[dofs[:, 0]],
                          ctx.params[f"{self.name}.acceleration"])]
