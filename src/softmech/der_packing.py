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
import numpy as np

from softmech import _checks
from softmech.blocks import broadcast_worlds, from_blocks, to_blocks, writable_contiguous
from softmech.fluid_mass import in_fluid
from softmech.model import DerBodies

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


class DerSlots:
    """Offsets of each discrete rod's nodes, edges and springs in the engine's arrays, and the
    DOF tables of the concatenated rods (module docstring)."""

    def __init__(self, rods):
        self.node, self.edge, self.spring = {}, {}, {}
        n = m = s = 0
        for r in rods:
            self.node[r.name], self.edge[r.name], self.spring[r.name] = n, m, s
            n, m, s = n + r.n_nodes, m + r.n_elems, s + r.n_springs
        self.n_nodes, self.n_edges, self.n_springs = n, m, s
        self.n_dof = 3 * n + m
        edges, springs, spring_edges, signs = [], [], [], []
        for r in rods:
            n0, e0 = self.node[r.name], self.edge[r.name]
            node = 3 * (n0 + np.arange(r.n_nodes))[:, None] + np.arange(3)      # (N, 3)
            twist = 3 * n + e0 + np.arange(r.n_elems)                            # (m,)
            edges.append(np.concatenate([node[r.edge_nodes[:, 0]], node[r.edge_nodes[:, 1]]], 1))
            a, b, c = r.spring_nodes.T
            je, jf = r.spring_edges.T
            springs.append(np.concatenate([node[a], twist[je, None], node[b], twist[jf, None],
                                           node[c]], axis=1))
            spring_edges.append(e0 + r.spring_edges)
            signs.append(r.spring_signs)
        cat = lambda parts, width, dtype: np.ascontiguousarray(
            np.concatenate(parts) if parts else np.zeros((0, width)), dtype=dtype)
        self.edge_dofs = cat(edges, 6, np.int64)
        self.spring_dofs = cat(springs, 11, np.int64)
        self.spring_edges = cat(spring_edges, 2, np.int64)
        self.spring_signs = cat(signs, 3, float)


def der_parameters(rods, params, worlds):
    """The discrete rods' per-world parameters broadcast to (B, ...) and checked:
    {rod: {youngs_modulus (B,), shear_modulus (B,) [Pa] > 0, natural_curvature (B, s, 2)
    [1/m], natural_twist (B, s) [rad/m]}}. A rest shape given as a table is written by the
    compiled step (softmech.terms.der_kind); one given as a Python function is refused: the
    compiled step cannot call it."""
    out = {}
    for r in rods:
        functions = [k for k, s in getattr(r, "schedules", {}).items() if s.function is not None]
        if functions:
            raise ValueError(f"der_rod '{r.name}': {functions[0]} given as a Python function is not "
                             "supported by the unified engine (its compiled step cannot call "
                             "Python): give it as a table {'times': (k,), 'values': (k, ...)} "
                             "or {'file': path} (softmech.bodies.schedules), or compile with "
                             "engine='discrete'")
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


def pack_der_bodies(rods, ctx, lanes):
    """DerBodies (block layout) of the discrete rods: inverse node masses (ctx.der_node_mass,
    with sm.PointMass's) and twist inertias, and the body acceleration (gravity) the terms
    wrote into ctx.der_body_acc, with the fluid's added mass m_a and displaced mass m_f
    (ctx.der_added_mass, ctx.der_displaced_mass: sm.AddedMass, sm.Buoyancy): mass m + m_a,
    acceleration g (m - m_f) / (m + m_a) (softmech.fluid_mass.in_fluid)."""
    B = lanes.worlds

    def cat(parts, shape):
        return np.concatenate(parts, axis=1) if parts else np.zeros((B, 0) + shape)

    mass = cat([ctx.der_node_mass[r.name] for r in rods], ())
    inertia = cat([np.broadcast_to(r.twist_inertia, (B, r.n_elems))[..., None] for r in rods],
                  (1,))
    acc = cat([ctx.der_body_acc[r.name] for r in rods], (3,))
    mass, acc = in_fluid(mass, acc, cat([ctx.der_added_mass[r.name] for r in rods], ()),
                         cat([ctx.der_displaced_mass[r.name] for r in rods], ()))
    return writable_contiguous(DerBodies(
        der_node_inv_mass=to_blocks(1.0 / mass, lanes),
        der_body_acc=to_blocks(acc, lanes),
        der_edge_inv_inertia=to_blocks(1.0 / inertia, lanes)))


def initial_der_state(rods, lanes):
    """{State field: block array} of the discrete rods as built: at rest, twist angles as
    given, reference frames of the initial shape (DerRod.a1_0, its tangents, ref_twist0)."""
    B = lanes.worlds
    per_rod = {k: [] for k in DER_STATE_FIELDS}
    for r in rods:
        t = r.positions[r.edge_nodes[:, 1]] - r.positions[r.edge_nodes[:, 0]]
        t = t / np.linalg.norm(t, axis=1, keepdims=True)
        for key, value in (("positions", r.positions), ("velocities", np.zeros_like(r.positions)),
                           ("twist", r.twist0[:, None]),
                           ("twist_rates", np.zeros((r.n_elems, 1))), ("reference_a1", r.a1_0),
                           ("reference_tangent", t),
                           ("reference_twist", r.ref_twist0[:, None])):
            per_rod[key].append(np.broadcast_to(value, (B,) + value.shape))
    widths = {"positions": 3, "velocities": 3, "reference_a1": 3, "reference_tangent": 3}
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
        start = getattr(slots, where)[rod.name]
        full = from_blocks(getattr(state, field), lanes, trailing or (1,))
        out[key] = full[:, start:start + count].reshape((lanes.worlds, count) + trailing).copy()
    return out


def der_set_state(state, slots, lanes, rod, fields):
    """Write any of a discrete rod's DER_STATE_FIELDS, (n, ...) or (B, n, ...), into the State;
    every field is checked before any is written. Positions set without reference frames keep
    the stored ones, which the next force evaluation transports onto the new tangents."""
    checked, B, W = {}, lanes.worlds, lanes.W
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
        start = getattr(slots, where)[rod.name]
        blocks = to_blocks(arr if arr.ndim == 3 else arr[..., None], lanes)
        getattr(state, field)[..., start * W:start * W + blocks.shape[-1]] = blocks
