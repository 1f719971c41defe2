"""Damping and node forces on the discrete-rod kind of the unified engine
(softmech.simulation.Simulation): the Parts of sm.LinearDamping and sm.NodeForce on a discrete
rod. Kernels: softmech.kernels.der_loads (the discrete engine's own bindings, called per world);
their explicit stability limit: softmech.der_stability."""
import numpy as np

from softmech.integrators.driver import Call
from softmech.kernels.der_loads import (DerDampingArgs, DerNodeForceArgs, der_damping,
                                        der_node_force)
from softmech.terms.base import Part

DAMPING_ORDER = 10
"""Place in the force pass: after the elasticity (0), as the Cosserat rods' damping."""

LOAD_ORDER = 20
"""Point loads after the damping, as the Cosserat rods' (docs/architecture.md)."""


def per_lane(values, lanes):
    """(B, ...) per-world values -> (n_blocks W, ...): the row of each lane's world, indexed by
    b = bi W + lane in softmech.kernels.der_loads."""
    return np.ascontiguousarray(np.asarray(values, dtype=float)[lanes.world_of_lane])


class DerDampers(Part):
    """sm.LinearDamping on discrete rods: F_i = -eta dL_i v_i (ref. 004 eq. 27), one kernel call
    per term; `node_damping` keeps each rod's total eta dL_i [kg/s] per node (B, n_nodes) for
    the stability limit (softmech.der_stability)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod, eta (B,) [kg/(m s)])
        self.node_damping = {}

    def add(self, rod, eta):
        self.entries.append((rod, np.asarray(eta, dtype=float)))
        c = eta[:, None] * rod.node_lengths()[None]
        self.node_damping[rod.name] = self.node_damping.get(rod.name, 0.0) + c

    def calls(self, engine):
        out = []
        for rod, eta in self.entries:
            slot = engine.der_slots.node[rod.name] + np.arange(rod.n_nodes)
            K = rod.n_nodes
            args = engine.args(
                DerDampingArgs, node_slot=slot, dofs=np.arange(3 * K).reshape(K, 3),
                lengths=rod.node_lengths(), viscosity=per_lane(eta, engine.lanes),
                v=engine.zeros(3 * K), F=engine.zeros(3 * K), J=np.zeros(0))
            out.append(Call("forces", DAMPING_ORDER, der_damping, args, "der_damping"))
        return out


class DerNodeForces(Part):
    """sm.NodeForce on discrete rods: a constant per-world force [N] on one node, one kernel call
    per term."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod, node, force (B, 3) [N])

    def add(self, rod, node, force):
        self.entries.append((rod, int(node), np.asarray(force, dtype=float)))

    def calls(self, engine):
        out = []
        for rod, node, force in self.entries:
            args = engine.args(
                DerNodeForceArgs, node_slot=np.array([engine.der_slots.node[rod.name] + node]),
                dofs=np.arange(3).reshape(1, 3), weights=np.ones(1),
                vector=per_lane(force, engine.lanes), scale=np.zeros(0), F=engine.zeros(3),
                J=np.zeros(0))
            out.append(Call("forces", LOAD_ORDER, der_node_force, args, "der_node_force"))
        return out
