"""Damping, drag and node forces on the discrete-rod kind of the unified engine
(softmech.simulation.Simulation): the Parts of sm.LinearDamping, sm.SlenderBodyDrag,
sm.QuadraticDrag, sm.NodeForce and sm.ContractileCell on a discrete rod, and sm.NodeUserForce
on a discrete rod or shell. Kernels: softmech.kernels.der_loads (the discrete engine's own
bindings, called per world), softmech.kernels.der_fluids (quadratic drag) and
softmech.kernels.der_user_force; their explicit stability limit: softmech.der_stability (a
user's force is not in it)."""
import numpy as np

from softmech.blocks import to_blocks
from softmech.bodies.shell import _node_dofs
from softmech.integrators.analytic import Couplings
from softmech.integrators.driver import Call
from softmech.kernels.der_fluids import DerQuadraticDragArgs, der_quadratic_drag
from softmech.kernels.der_loads import (DerContractileArgs, DerDampingArgs, DerNodeForceArgs,
                                        DerSlenderDragArgs, der_contractile_cell, der_damping,
                                        der_node_force, der_slender_drag)
from softmech.kernels.der_motion import DER_MOTION
from softmech.kernels.der_user_force import DerUserForceArgs, der_user_force, register
from softmech.terms.base import Part

DAMPING_ORDER = 10
"""Place in the force pass: after the elasticity (0), as the Cosserat rods' damping."""

DRAG_ORDER = 15
"""Quadratic drag after the damping, as the Cosserat rods' (softmech.terms.fluids)."""

LOAD_ORDER = 20
"""Point loads after the damping, as the Cosserat rods' (docs/architecture.md)."""


def per_lane(values, lanes):
    """(B, ...) per-world values -> (n_blocks W, ...): the row of each lane's world, indexed by
    b = bi W + lane in softmech.kernels.der_loads."""
    return np.ascontiguousarray(np.asarray(values, dtype=float)[lanes.world_of_lane])


def edge_couplings(engine, rod):
    """The couplings of a load on each edge of a discrete rod that depends on its two nodes'
    positions and velocities: the edges' 6 x 6 blocks (driver.Call.couplings)."""
    slots = engine.der_slots.nodes[rod.name][rod.edge_nodes]                      # (m, 2)
    return Couplings.blocks(_node_dofs(slots), DER_MOTION)


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
            slot = engine.der_slots.nodes[rod.name]
            K = rod.n_nodes
            args = engine.args(
                DerDampingArgs, node_slot=slot, dofs=np.arange(3 * K).reshape(K, 3),
                lengths=rod.node_lengths(), viscosity=per_lane(eta, engine.lanes),
                v=engine.zeros(3 * K), F=engine.zeros(3 * K), J=np.zeros(0))
            # (each node's force depends on its own velocity alone: no couplings beyond a DOF's
            # own, which the implicit solver always keeps)
            out.append(Call("forces", DAMPING_ORDER, der_damping, args, "der_damping",
                            couplings=Couplings.none(DER_MOTION)))
        return out


class DerSlenderDrags(Part):
    """sm.SlenderBodyDrag on discrete rods: the consistent nodal drag -C v of each edge and the
    spin drag -4 pi mu r^2 l theta' of its twist (softmech.kernels.implicit_drag; slender-body
    theory, softmech.terms.drag.slender_body_coefficients), one kernel call per term. For the stability limit (softmech.der_stability)
    `node_damping` keeps a Gershgorin bound of each node's coefficient [kg/s] (B, n_nodes): an
    edge's consistent matrix (l/3, l/6; l/6, l/3) (x) C adds max(c_t, c_n) l / 2 to the row sum of
    each of its nodes; `edge_damping` the spin coefficient [N m s] of each twist (B, n_elems)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod, c_t, c_n [N s/m^2], spin [N m s], each (B, m))
        self.node_damping, self.edge_damping = {}, {}

    def add(self, rod, c_t, c_n, spin):
        self.entries.append((rod, c_t, c_n, spin))
        row = 0.5 * np.maximum(c_t, c_n) * rod.rest_lengths
        nodes = np.zeros((row.shape[0], rod.n_nodes))
        for end in (0, 1):
            np.add.at(nodes, (slice(None), rod.edge_nodes[:, end]), row)
        self.node_damping[rod.name] = self.node_damping.get(rod.name, 0.0) + nodes
        self.edge_damping[rod.name] = self.edge_damping.get(rod.name, 0.0) + spin

    def calls(self, engine):
        out = []
        for rod, c_t, c_n, spin in self.entries:
            K, m = rod.n_nodes, rod.n_elems
            node_dofs = 3 * rod.edge_nodes[:, :, None] + np.arange(3)            # (m, 2, 3)
            args = engine.args(
                DerSlenderDragArgs, node_slot=engine.der_slots.nodes[rod.name],
                edge_slot=engine.der_slots.edge[rod.name] + np.arange(m),
                edge_dofs=np.ascontiguousarray(node_dofs.reshape(m, 6), dtype=np.int64),
                twist_dofs=3 * K + np.arange(m), rest_len=rod.rest_lengths,
                c_t=per_lane(c_t, engine.lanes), c_n=per_lane(c_n, engine.lanes),
                spin=per_lane(spin, engine.lanes), q=engine.zeros(3 * K + m),
                v=engine.zeros(3 * K + m), F=engine.zeros(3 * K + m), J=engine.zeros(37 * m))
            # each edge's two nodes (its tangent and its consistent matrix); its twist's spin
            # drag depends on its own rate alone
            out.append(Call("forces", DAMPING_ORDER, der_slender_drag, args, "der_slender_drag",
                            couplings=edge_couplings(engine, rod)))
        return out


class DerQuadraticDrags(Part):
    """sm.QuadraticDrag on discrete rods (softmech.kernels.der_fluids, Renda et al. 2018 eq. 11),
    one kernel call per term, each edge's coefficients c_n, c_t [kg/m] per world. Not in the
    explicit stability estimate (a drag that grows with the speed; as for Cosserat rods)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod, c_n, c_t (B, m) [kg/m])

    def add(self, rod, c_n, c_t):
        self.entries.append((rod, c_n, c_t))

    def calls(self, engine):
        out = []
        for rod, c_n, c_t in self.entries:
            nodes = engine.der_slots.nodes[rod.name][rod.edge_nodes]
            args = engine.args(
                DerQuadraticDragArgs, edge_nodes=np.ascontiguousarray(nodes, dtype=np.int64),
                c_n=to_blocks(c_n, engine.lanes), c_t=to_blocks(c_t, engine.lanes))
            out.append(Call("forces", DRAG_ORDER, der_quadratic_drag, args, "der_quadratic_drag",
                            couplings=edge_couplings(engine, rod)))
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
                DerNodeForceArgs, node_slot=engine.der_slots.nodes[rod.name][[node]],
                dofs=np.arange(3).reshape(1, 3), weights=np.ones(1),
                vector=per_lane(force, engine.lanes), scale=np.zeros(0), F=engine.zeros(3),
                J=np.zeros(0))
            out.append(Call("forces", LOAD_ORDER, der_node_force, args, "der_node_force",
                            couplings=Couplings.none(DER_MOTION)))
        return out


class DerUserForces(Part):
    """sm.NodeUserForce on discrete rods and shells: the user's function on all of a body's
    nodes, called per world from the force pass (softmech.kernels.der_user_force), one kernel
    call per term. The unified engine's Newton differentiates the whole force pass by finite
    differences, so the term's `jacobian` is not needed there (and forces that couple nodes
    enter the Jacobian too, which the discrete engine's node-by-node blocks leave out)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (name, body, function)

    def add(self, name, body, function):
        self.entries.append((name, body, function))

    def calls(self, engine):
        out = []
        for name, body, function in self.entries:
            slots = engine.der_slots.nodes[body.name]
            K = slots.size
            args = engine.args(
                DerUserForceArgs, node_slot=slots,
                key=np.array([register(name, function)], dtype=np.int64),
                user_x=engine.zeros(3 * K), user_v=engine.zeros(3 * K),
                user_f=engine.zeros(3 * K))
            out.append(Call("forces", LOAD_ORDER, der_user_force, args, "der_user_force"))
        return out


class DerContractileCells(Part):
    """sm.ContractileCell on discrete rods (softmech.kernels.der_loads.der_contractile_cell: the
    discrete engine's kernel), one kernel call per cell, each lane's attachment (the edges
    holding the cell's ends, their fractions, offsets and side directions) from its world's
    parameters (softmech.terms.contractile.ContractileCell.der_attachment). Its couplings: the
    twelve DOFs of each world's four nodes (their union over the worlds)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod, order, attachment (ContractileCell.der_attachment))

    def add(self, rod, order, attachment):
        self.entries.append((rod, order, attachment))

    def calls(self, engine):
        out = []
        for rod, order, at in self.entries:
            lanes = engine.lanes
            slots = engine.der_slots.nodes[rod.name][at.nodes]                      # (B, 4)
            args = engine.args(
                DerContractileArgs,
                cell_slot=np.ascontiguousarray(slots[lanes.world_of_lane], dtype=np.int64),
                cell_frac=per_lane(at.frac, lanes), cell_axis=per_lane(at.axes, lanes),
                cell_param=per_lane(at.params, lanes), cell_curve=at.curve,
                dofs=np.arange(12, dtype=np.int64), q=engine.zeros(12), F=engine.zeros(12),
                J=engine.zeros(144), JD=engine.zeros(3, 12), H=engine.zeros(12, 12))
            stencils = _node_dofs(np.unique(slots, axis=0))
            out.append(Call("forces", order, der_contractile_cell, args, "der_contractile_cell",
                            couplings=Couplings.blocks(stencils, DER_MOTION)))
        return out
