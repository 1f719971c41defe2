"""The discrete elastic rod kind of the explicit engine's Model/State (softmech.model: DerBodies,
the der_ fields of State and Workspace): where each rod's nodes, edges and springs sit in the
block layout, its per-world parameters, and its model and initial state packed per world.

Numbering: the discrete rods of a scene are concatenated, rod r owning n_nodes[r] node slots,
n_elems[r] edge slots and n_springs[r] spring slots from its offsets (DerSlots). The
elasticity adapter (softmech.kernels.der_kind) gathers one world's nodes and twists into a DOF
vector q = (x_0, y_0, z_0, ..., x_{N-1}, y_{N-1}, z_{N-1}, theta_0, ..., theta_{m-1}) over all
of them, so the DOF tables of softmech.kernels.der_stretch and der_bend_twist (edge_dofs,
spring_dofs) are the rods' own tables, shifted.
"""
from functools import partial
from typing import NamedTuple

import numpy as np

from softmech import _checks
from softmech.blocks import (broadcast_worlds, from_blocks, to_blocks, writable_contiguous,
                             write_slots)
from softmech.fluid_mass import in_fluid
from softmech.model import DerBodies
from softmech.shell_packing import shell_edge_inertia, shell_get_state, shell_set_state

DER_STATE_FIELDS = ("positions", "velocities", "twist", "twist_rates", "reference_a1",
                    "reference_tangent", "reference_twist")
"""What Simulation.get_state returns for a discrete rod (users' shapes, (B, n, ...)): node
positions [m] and velocities [m/s] (B, n_nodes, 3), edge twist angles [rad] and rates
[rad/s] (B, n_elems), and the reference frames that time-parallel transport carries
(softmech.kernels.der_kind): first directors and the tangents they were transported to (B,
n_elems, 3), reference twists [rad] (B, n_springs)."""

_STATE_KEYS = dict(zip(DER_STATE_FIELDS, ("der_x", "der_v", "der_theta", "der_w", "der_a1",
                                          "der_tangent", "der_ref")))
"""DER_STATE_FIELDS -> State field."""

DISCRETE_ENGINE_NAMES = {"angles": "twist", "angular_velocities": "twist_rates"}
"""A discrete rod's fields under the names the discrete engine gives them (its edge angles are
the rod's twists): recorded (softmech.sampling) and set (der_set_state) under either name, so
that one sm.Every records the same series on both engines and a state read from one engine
sets the other."""


class DerSlots:
    """Where each discrete rod's nodes, edges and springs sit in the engine's arrays, and the DOF
    tables of the concatenated rods (module docstring). `nodes[rod]` (n_nodes,) int64: each
    node's slot; nodes joined by sm.JoinNodes (`joins`: (rod_a, node_a, rod_b, node_b)) share
    the earlier one's (DisMech's joints through shared nodes, as the discrete engine's
    DofLayout.merge). `edge[rod]`, `spring[rod]`: the offsets of its edges and springs.
    Shells of the kind (softmech.shell_packing) own node slots after the rods' and no springs;
    a mid-edge shell owns one edge slot per mesh edge after the rods' edges (its angle xi in
    der_theta, its rate in der_w; no reference frame: der_a1, der_tangent hold the rods'
    edges only, n_rod_edges), a hinge shell none; a join may name a shell's node. A rod-shell
    joint's network (`networks`) shares its nodes and its rod edges with the bodies and owns
    edge slots for its shell edges (with frames, before the mid-edge shells') and spring
    slots after the rods'."""

    def __init__(self, rods, joins=(), shells=(), networks=()):
        self.nodes, self.edge, self.spring = {}, {}, {}
        first = {}
        n = 0
        for body in list(rods) + list(shells):   # shells' nodes after the rods' (no edges)
            first[body.name] = n
            n += node_count(body)
        parent = np.arange(n)

        def root(i):
            while parent[i] != i:
                i = parent[i]
            return i

        for rod_a, node_a, rod_b, node_b in joins:
            a, b = root(first[rod_a] + node_a), root(first[rod_b] + node_b)
            parent[max(a, b)] = min(a, b)
        roots = np.array([root(i) for i in range(n)], dtype=np.int64)
        kept = np.flatnonzero(roots == np.arange(n))        # the slots of unjoined or first nodes
        slot_of = np.full(n, -1, dtype=np.int64)
        slot_of[kept] = np.arange(len(kept))
        for body in list(rods) + list(shells):
            self.nodes[body.name] = slot_of[roots[first[body.name] + np.arange(node_count(body))]]
        m = s = 0
        for r in rods:
            self.edge[r.name], self.spring[r.name] = m, s
            m, s = m + r.n_elems, s + r.n_springs
        self.networks = list(networks)
        """The rod-shell joints' networks (sm.RodShellJoint.der_network): their shell edges'
        twists and frames are edge slots after the rods' edges (network_edge: the first), their
        springs spring slots after the rods' (network_spring); their rod edges are the rod's
        own slots and their nodes the rod's and shell's (node_refs)."""
        self.network_edge, self.network_spring = {}, {}
        for net in self.networks:
            self.network_edge[net.name], self.network_spring[net.name] = m, s
            m, s = m + net.n_elems - net.n_rod_edges, s + net.n_springs
        self.n_rod_edges = m
        """Edges with reference frames: the discrete rods' and the joints' (the mid-edge shells'
        follow)."""
        for shell in shells:
            self.edge[shell.name] = m
            m += edge_count(shell)
        self.n_nodes, self.n_edges, self.n_springs = len(kept), m, s
        self.joined = len(kept) < n
        """True when some nodes are shared (sm.JoinNodes, sm.RodShellJoint)."""
        self.n_dof = 3 * self.n_nodes + m
        edges, springs, spring_edges, signs = [], [], [], []
        for r, node_slot, edge_slot, new in self._spring_bodies(rods):
            node = 3 * node_slot[:, None] + np.arange(3)                       # (N, 3)
            twist = 3 * self.n_nodes + edge_slot                               # (m,)
            edges.append(np.concatenate([node[r.edge_nodes[new:, 0]],
                                         node[r.edge_nodes[new:, 1]]], 1))
            a, b, c = r.spring_nodes.T
            je, jf = r.spring_edges.T
            springs.append(np.concatenate([node[a], twist[je, None], node[b], twist[jf, None],
                                           node[c]], axis=1))
            spring_edges.append(edge_slot[r.spring_edges])
            signs.append(r.spring_signs)
        cat = lambda parts, width, dtype: np.ascontiguousarray(
            np.concatenate(parts) if parts else np.zeros((0, width)), dtype=dtype)
        self.edge_dofs = cat(edges, 6, np.int64)
        self.spring_dofs = cat(springs, 11, np.int64)
        self.spring_edges = cat(spring_edges, 2, np.int64)
        self.spring_signs = cat(signs, 3, float)

    def _spring_bodies(self, rods):
        """(body, node slots (N,), edge slots (m,) of its local nodes and edges, its first edge
        of its own) for each rod, then each joint network (whose first n_rod_edges edges are
        its rod's): the bodies whose edges and springs fill the tables, in slot order."""
        for r in rods:
            yield r, self.nodes[r.name], self.edge[r.name] + np.arange(r.n_elems), 0
        for net in self.networks:
            yield (net, *self.network_slots(net), net.n_rod_edges)

    def network_slots(self, net):
        """(node slots (N,), edge slots (m,)) int64 of a joint network's local nodes and edges:
        its nodes the rod's and shell's, its first n_rod_edges edges the rod's."""
        nodes = np.array([self.nodes[b][i] for b, i in net.node_refs], dtype=np.int64)
        new = self.network_edge[net.name] + np.arange(net.n_elems - net.n_rod_edges)
        return nodes, np.concatenate([self.edge[net.rod_name] + net.rod_edges, new])

    def index(self, where, rod):
        """(n,) int64 slots of a rod's (or shell's) nodes, edges or springs (where: "node",
        "edge", "spring")."""
        if where == "node":
            return self.nodes[rod.name]
        count = edge_count(rod) if where == "edge" else rod.n_springs
        return getattr(self, where)[rod.name] + np.arange(count, dtype=np.int64)

    def per_slot(self, rods, values, worlds, trailing=()):
        """Per-node values of each body ((B, n_nodes, *trailing) each, in rods' order) ->
        (B, n_slots, *trailing) summed where nodes are shared (masses, forces)."""
        out = np.zeros((worlds, self.n_nodes) + trailing)
        for r, value in zip(rods, values):
            np.add.at(out, (slice(None), self.nodes[r.name]), value)
        return out


def der_parameters(rods, params, worlds):
    """The discrete rods' per-world parameters broadcast to (B, ...) and checked:
    {rod: {youngs_modulus (B,), shear_modulus (B,) [Pa] > 0, natural_curvature (B, s, 2)
    [1/m], natural_twist (B, s) [rad/m]}}. A rest shape given as a table or a function of time
    is written by the compiled step (softmech.terms.der_kind, softmech.function_schedules);
    these parameters then hold its value at t = 0."""
    out = {}
    for r in rods:
        shapes = {"youngs_modulus": (), "shear_modulus": (), "natural_curvature": (r.n_springs, 2),
                  "natural_twist": (r.n_springs,)}
        rp = {k: broadcast_worlds(f"{r.name}.{k}", params[f"{r.name}.{k}"], worlds, s)
              for k, s in shapes.items()}
        for k in ("youngs_modulus", "shear_modulus"):
            if np.any(rp[k] <= 0):
                raise ValueError(f"params['{r.name}.{k}'] has entries <= 0 (must be > 0)")
        out[r.name] = rp
    return out


def per_lane_rows(values, lanes):
    """(B, n, ...) per-world values -> (n_blocks, W, n, ...): each lane's row contiguous, the
    form in which the adapter hands one world's arrays to the DOF-vector kernels."""
    values = np.asarray(values, dtype=float)[lanes.world_of_lane]
    return np.ascontiguousarray(values.reshape((lanes.n_blocks, lanes.W) + values.shape[1:]))


class PackedParam(NamedTuple):
    """Where a kernel reads one body's per-world parameter on the unified engine's kind: its
    values sit at table[bi, lane, start:start + scale.size] of a packed per-lane table
    (per_lane_rows, flattened past (n_blocks, W)), each the parameter's entry times `scale`
    (a rod's natural curvature and twist: the Voronoi lengths, as DisMech's discrete values;
    a shell's natural angles: 1). Engine.packed_params names them, for the terms that change
    such a parameter during a run (sm.ParameterWave)."""
    table: np.ndarray    # (n_blocks, W, k) a view of the kernel's table
    start: int
    scale: np.ndarray    # (n,) the factor of each entry of the parameter's row, flattened


def node_count(body):
    """Nodes of a discrete rod or shell of the kind."""
    return body.n_nodes if hasattr(body, "n_nodes") else len(body.vertices)


def edge_count(body):
    """Edge slots of a body of the kind: a discrete rod's edges (their twists), a mid-edge
    shell's mesh edges (their angles xi), none for a hinge shell."""
    if hasattr(body, "n_elems"):
        return body.n_elems
    return len(body.edges) if body.bending == "midedge" else 0


def initial_nodes(body):
    """Initial node positions (n, 3) [m] of a discrete rod or shell of the kind."""
    return body.positions if hasattr(body, "n_nodes") else body.vertices


def der_networks(terms, bodies):
    """The rod-shell joints' networks (sm.RodShellJoint.der_network) of `terms` between
    discrete rods and shells of the kind, checked."""
    index = {b.name: b for b in bodies}
    nets = (getattr(t, "der_network", lambda _: None)(index) for t in terms)
    return [n for n in nets if n is not None]


def der_joins(terms, bodies):
    """The sm.JoinNodes of `terms` between discrete rods and shells of the kind, (body_a, node_a,
    body_b, node_b) each, checked (terms' der_join: node ranges, the nodes' gap)."""
    index = {b.name: b for b in bodies}
    joins = (getattr(t, "der_join", lambda _: None)(index) for t in terms)
    return [j for j in joins if j is not None]


def pack_der_bodies(ctx, lanes, slots):
    """DerBodies (block layout) of the discrete rods: inverse node masses (ctx.der_node_mass,
    with sm.PointMass's) and twist inertias (the rods', the rod-shell joints' shell edges', the
    mid-edge shells' angles'), and the body acceleration (gravity) the terms
    wrote into ctx.der_body_acc, with the fluid's added mass m_a and displaced mass m_f
    (ctx.der_added_mass, ctx.der_displaced_mass: sm.AddedMass, sm.Buoyancy): mass m + m_a,
    acceleration g (m - m_f) / (m + m_a) (softmech.fluid_mass.in_fluid). A node shared by
    joined rods or shells (slots: DerSlots) carries the sum of their masses and their
    mass-weighted acceleration; the shells' nodes (ctx.der_shells) follow the rods'."""
    B, rods = lanes.worlds, ctx.der_rods
    bodies = rods + ctx.der_shells
    per_slot = partial(slots.per_slot, bodies, worlds=B)
    mass = per_slot([ctx.der_node_mass[r.name] for r in bodies])
    # the edges' rotary inertias: rods' twists, then mid-edge shells' angles
    inertia = [np.broadcast_to(r.twist_inertia, (B, r.n_elems)) for r in rods] + [
        np.broadcast_to(net.twist_inertia[net.n_rod_edges:], (B, net.n_elems - net.n_rod_edges))
        for net in slots.networks] + [
        np.broadcast_to(shell_edge_inertia(s), (B, len(s.edges)))
        for s in ctx.der_shells if s.bending == "midedge"]
    inertia = np.concatenate(inertia, axis=1)[..., None] if inertia else np.zeros((B, 0, 1))
    if slots.joined:
        acc = per_slot([ctx.der_node_mass[r.name][..., None] * ctx.der_body_acc[r.name]
                        for r in bodies], trailing=(3,)) / mass[..., None]
    else:   # (the bodies' own accelerations, bit for bit)
        acc = per_slot([ctx.der_body_acc[r.name] for r in bodies], trailing=(3,))
    mass, acc = in_fluid(mass, acc, per_slot([ctx.der_added_mass[r.name] for r in bodies]),
                         per_slot([ctx.der_displaced_mass[r.name] for r in bodies]))
    return writable_contiguous(DerBodies(
        der_node_inv_mass=to_blocks(1.0 / mass, lanes),
        der_body_acc=to_blocks(acc, lanes),
        der_edge_inv_inertia=to_blocks(1.0 / inertia, lanes)))


def initial_der_state(rods, lanes, slots, shells=()):
    """{State field: block array} of the discrete rods and shells as built: at rest, twist
    angles as given, reference frames of the initial shape (DerRod.a1_0, its tangents,
    ref_twist0), of the rods' edges and the rod-shell joints' (slots.networks); mid-edge
    shells' angles xi = 0; a shared node (slots: DerSlots) at the position of the first body
    that has it."""
    B = lanes.worlds
    per_rod = {k: [] for k in DER_STATE_FIELDS}
    nodes = np.zeros((slots.n_nodes, 3))
    for r in reversed(list(rods) + list(shells)):        # the first body's written last
        nodes[slots.nodes[r.name]] = initial_nodes(r)
    # the rods' edges and springs, then the rod-shell joints' shell edges and springs
    for r, first in [(r, 0) for r in rods] + [(n, n.n_rod_edges) for n in slots.networks]:
        ends = r.positions[r.edge_nodes[first:]]
        t = ends[:, 1] - ends[:, 0]
        t = t / np.linalg.norm(t, axis=1, keepdims=True)
        for key, value in (("twist", r.twist0[first:, None]),
                           ("twist_rates", np.zeros((r.n_elems - first, 1))),
                           ("reference_a1", r.a1_0[first:]), ("reference_tangent", t),
                           ("reference_twist", r.ref_twist0[:, None])):
            per_rod[key].append(np.broadcast_to(value, (B,) + value.shape))
    for shell in shells:      # mid-edge angles xi = 0, at rest (no reference frames: the
        if shell.bending == "midedge":      # kernel sets its edge frames from the positions)
            for key in ("twist", "twist_rates"):
                per_rod[key].append(np.zeros((B, len(shell.edges), 1)))
    per_rod["positions"] = [np.broadcast_to(nodes, (B,) + nodes.shape)]
    per_rod["velocities"] = [np.zeros((B,) + nodes.shape)]
    widths = {"reference_a1": 3, "reference_tangent": 3}
    return {_STATE_KEYS[k]: to_blocks(np.concatenate(v, axis=1) if v else
                                      np.zeros((B, 0, widths.get(k, 1))), lanes)
            for k, v in per_rod.items()}


def der_state_view(key, rod):
    """(State field, slots key of DerSlots ("node", "edge" or "spring"), user trailing shape)
    of the DER_STATE_FIELDS entry `key` of a discrete rod."""
    where = {"positions": "node", "velocities": "node", "twist": "edge", "twist_rates": "edge",
             "reference_a1": "edge", "reference_tangent": "edge", "reference_twist": "spring"}
    trailing = (3,) if key in ("positions", "velocities", "reference_a1",
                               "reference_tangent") else ()
    count = {"node": rod.n_nodes, "edge": rod.n_elems, "spring": rod.n_springs}[where[key]]
    return _STATE_KEYS[key], where[key], count, trailing


def der_get_state(state, slots, lanes, rod):
    """A discrete rod's DER_STATE_FIELDS (users' shapes (B, n, ...), copies) from the State."""
    out = {}
    for key in DER_STATE_FIELDS:
        field, where, count, trailing = der_state_view(key, rod)
        full = from_blocks(getattr(state, field), lanes, trailing or (1,))
        out[key] = full[:, slots.index(where, rod)].reshape((lanes.worlds, count) + trailing)
    return out


def der_set_state(state, slots, lanes, rod, fields):
    """Write any of a discrete rod's DER_STATE_FIELDS, (n, ...) or (B, n, ...), into the State;
    every field is checked before any is written (the discrete engine's names "angles" and
    "angular_velocities" for "twist" and "twist_rates": DISCRETE_ENGINE_NAMES). Positions set
    without reference frames keep
    the stored ones, which the next force evaluation transports onto the new tangents. A node
    shared with another rod (sm.JoinNodes) takes the value written last."""
    checked, B = {}, lanes.worlds
    for name in set(fields) & set(DISCRETE_ENGINE_NAMES):
        if DISCRETE_ENGINE_NAMES[name] in fields:
            raise ValueError(f"set_state fields {name!r} and {DISCRETE_ENGINE_NAMES[name]!r} of "
                             f"discrete rod {rod.name!r} are the same: give one")
    fields = {DISCRETE_ENGINE_NAMES.get(k, k): v for k, v in fields.items()}
    for key, value in fields.items():
        if key not in DER_STATE_FIELDS:
            raise ValueError(f"set_state field {key!r} is not allowed for discrete rod "
                             f"{rod.name!r}: must be one of {list(DER_STATE_FIELDS)}")
        field, where, count, trailing = der_state_view(key, rod)
        shape = (count,) + trailing
        arr = _checks.finite(f"{rod.name}.{key}", value)
        if arr.shape == shape:
            arr = np.broadcast_to(arr, (B,) + shape)
        _checks.finite(f"{rod.name}.{key}", arr, shape=(B,) + shape)
        checked[key] = (field, where, arr)
    for field, where, arr in checked.values():
        write_slots(getattr(state, field), slots.index(where, rod),
                    arr if arr.ndim == 3 else arr[..., None], lanes)


def kind_get_state(state, slots, lanes, body):
    """A discrete rod's DER_STATE_FIELDS or a shell's SHELL_STATE_FIELDS (users' shapes, copies)
    from the State (der_get_state, softmech.shell_packing.shell_get_state)."""
    get = der_get_state if body.kind == "der_rod" else shell_get_state
    return get(state, slots, lanes, body)


def kind_set_state(state, slots, lanes, body, fields):
    """Write fields of a discrete rod or shell into the State (der_set_state,
    softmech.shell_packing.shell_set_state)."""
    put = der_set_state if body.kind == "der_rod" else shell_set_state
    put(state, slots, lanes, body, fields)
