"""sm.EdgeContact among discrete rods and shells in the unified engine
(softmech.simulation.Simulation, Scene.compile(engine="unified")): the part of the kind, its
per-world parameters and its explicit time-step limit. The forces are the discrete engine's pair
kernels (softmech.kernels.edge_contact) run per world by softmech.kernels.der_edge_contact, with
static and kinetic friction (the static excess lagged on the last accepted step's slip, computed
from the state)."""
import numpy as np

from softmech.der_packing import per_lane_rows
from softmech.integrators.driver import Call
from softmech.kernels.der_edge_contact import DerEdgeContactArgs, der_edge_contact
from softmech.terms.base import Part
from softmech.terms.der_ground import (check_parameters, time_step_limit,
                                       warn_slip_below_newton_step)

ORDER = 91
"""After the ground contacts (90): the place of the contacts in the force pass."""

MAX_PAIRS = 1 << 16
"""Pairs of edges the candidate buffer holds per block: every pair of the contact's edges (all
pairs are tested each evaluation), so at most ~362 edges."""


class DerEdgeContacts(Part):
    """Every sm.EdgeContact among discrete rods and shells of the unified engine (their
    edges: a rod's and a shell's `edges`, pairs of its node indices): one call each."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (term, bodies, params (B, 3): stiffness, kinetic, static)

    def add(self, term, rods, p):
        """The contact `term` (softmech.terms.edge_contact.EdgeContact) among discrete rods
        and shells `rods` with per-world parameters p; checks them (softmech.terms.der_ground's
        checks: stiffness > 0, coefficients >= 0), the number of edges (MAX_PAIRS), and
        appends the contact's time-step limit (the ground's penalty bound: the same smooth
        penalty, on the lightest node) to the assembly."""
        check_parameters(term.name, p)
        m = sum(len(r.edges) for r in rods)
        if m * (m - 1) // 2 > MAX_PAIRS:
            raise ValueError(f"{term.name}.bodies: {m} edges are not allowed on discrete rods "
                             f"and shells in the unified engine (every pair is tested: at most "
                             f"{MAX_PAIRS} pairs, ~362 edges); compile with engine='discrete'")
        self.entries.append((term, list(rods),
                             np.stack([p["stiffness"], p["kinetic"], p["static"]], axis=1)))
        mass = np.concatenate([self.ctx.der_node_mass[r.name] for r in rods], axis=1)  # (B, n)
        self.ctx.time_step_limits.append(time_step_limit(mass, p["stiffness"]))

    def check_implicit_step(self, h, options):
        """Warn where the friction's slip velocity is below the Newton's resolution
        (softmech.terms.der_ground.warn_slip_below_newton_step; options: the ImplicitOptions,
        whose delta sets it: this contact's Jacobian is taken by finite differences)."""
        for term, rods, _ in self.entries:
            if term.friction is not None:
                warn_slip_below_newton_step(term, rods, h, options.delta)

    def calls(self, engine):
        calls = []
        for term, rods, params in self.entries:
            # the contact's nodes numbered by their slots: a node joined into two of its rods
            # (sm.JoinNodes) is one node, so their edges meeting there are adjacent
            slot_of = [engine.der_slots.nodes[r.name] for r in rods]
            slots, local = np.unique(np.concatenate(slot_of), return_inverse=True)
            first = len(slots)
            at = np.cumsum([0] + [len(s) for s in slot_of])
            edge_nodes = np.ascontiguousarray(np.concatenate(
                [local[a + np.asarray(r.edges)] for a, r in zip(at, rods)]), dtype=np.int64)
            edge_dofs = 3 * edge_nodes[:, [0, 0, 0, 1, 1, 1]] + np.array([0, 1, 2, 0, 1, 2])
            m = len(edge_nodes)
            pairs = max(m * (m - 1) // 2, 1)
            args = engine.args(
                DerEdgeContactArgs,
                ec_slot=slots.astype(np.int64),
                ec_edge_dofs=np.ascontiguousarray(edge_dofs, dtype=np.int64),
                ec_edge_nodes=edge_nodes,
                ec_geometry=np.array([term.distance, term.sharpness, 15.0 / term.slip_tolerance,
                                      term.distance + term.margin]),
                ec_param=per_lane_rows(params, engine.lanes), ec_q=engine.zeros(3 * first),
                ec_u=engine.zeros(3 * first), ec_F=engine.zeros(3 * first),
                ec_pairs=engine.zeros(pairs, 2, dtype=np.int64), ec_scratch=engine.zeros(51),
                ec_slip=engine.zeros(first), ec_total=engine.zeros(first),
                ec_pair_nodes=engine.zeros(pairs, 4, dtype=np.int64),
                ec_speed=engine.zeros(pairs), ec_weight=engine.zeros(pairs, 4))
            calls.append(Call("forces", ORDER, der_edge_contact, args, "der_edge_contact"))
        return calls
