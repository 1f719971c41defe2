"""Contractile cells: a small contractile filament attached to a rod's surface that pulls its two
attachment points together (kernel and equations: softmech.kernels.contractile).

    ContractileCell(rod, start=0.424e-3, length=100e-6, force=12e-6, frequency=3.6,
                    cell_radius=10e-6, side="d1")

The cell spans the rod's arc length from start to start + length [m] (from the first node; each
end snapped to the nearest node); it sits on the rod's surface on the side of the material
direction `side` ("d1", "-d1", "d2", "-d2"), its axis at h = r + cell_radius from the centreline
(r the rod's radius at that end). It pulls with F (1 - cos(2 pi f t + phase)) / 2 [N] (a
twitch every period, as the cardiomyocytes of the bio-hybrid swimmer), or the constant F when
frequency = 0. force_length="muscle" scales the pull by the active force-length curve of
softmech.ActiveMuscle's default (ACTIVE_FIT, zero below 0.577 and above 1.596 of the cell's rest
length, the arc length between its ends): a cell, like a muscle, cannot pull once shortened by
more than ~42 % (without it, a strong cell on a thin rod folds it until its ends meet);
force_length=None (default) pulls with the same force at any length.

modulus E_c [Pa] (default 0: none) makes the cell a soft filament, as Zhang et al. model the
bio-hybrid swimmer's cardiomyocytes ("a small, soft contractile filament connected to the
substrate"): besides its active pull it resists its own change of length like a rod of radius
cell_radius, adding k (|D| - l_n) to the pull, k = E_c pi cell_radius^2 / l_n [N/m], l_n the
distance between its attachment points at the start (the span's arc length on the initially
straight rods of the scenes). Shortened, it pushes back; its net pull F a(t) - k (l_n - |D|)
vanishes once it has shortened by F a(t) / k, so a stiff cell on a soft rod bends it less than
a force line would (a force line folds a thin tail until its ends meet).

Per-world parameters `<name>.start`, `<name>.length` [m], `<name>.force` [N],
`<name>.frequency` [Hz], `<name>.phase` [rad], `<name>.cell_radius` [m], `<name>.modulus`
[Pa], shape (B,): an
optimizer can move the cell along the rod without rebuilding the scene.

On a discrete elastic rod (Scene.add_der_rod, the implicit integrator) the cell is the same
force line with its Jacobian (softmech.kernels.contractile.contractile_cell_der): its side
direction at each end is the rod's initial material direction d_k there, turned with the
edge's tangent about the fixed normal of the plane it spans with the tangent (the cell bends
the rod in that plane; a planar swimmer's d_k is exactly that).
"""
from typing import NamedTuple

import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.integrators.driver import Call
from softmech.kernels.contractile import (N_CELL_PARAMS, ContractileCellsArgs,
                                          contractile_cell_der, contractile_cells, twitch)
from softmech.packing import lane_table, per_lane
from softmech.terms.active_muscle import ACTIVE_FIT, positive_interval
from softmech.terms.base import Part, Term, rod_name

ORDER = 40
"""Place in the force pass: with the muscles."""

SIDES = {"d1": (0, 1.0), "-d1": (0, -1.0), "d2": (1, 1.0), "-d2": (1, -1.0)}

FORCE_LENGTH = {"muscle": np.array([*positive_interval(ACTIVE_FIT), *ACTIVE_FIT])}
"""Force-length curves of cells, as the kernels read them: [lambda_lo, lambda_hi, c_0, ...]."""
NO_CURVE = np.array([0.0, np.inf, 1.0])


class ContractileCells(Part):
    """All contractile cells of a scene in one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod index, axis, nodes (B, 2) int, params (B, 5))

    def calls(self, engine):
        lanes = engine.lanes
        nodes = np.zeros((lanes.n_blocks, len(self.entries), 2, lanes.W), dtype=np.int64)
        for i, e in enumerate(self.entries):
            nodes[:, i] = per_lane(e[2], lanes).astype(np.int64)
        args = engine.args(
            ContractileCellsArgs,
            cell_rod=np.array([e[0] for e in self.entries], dtype=np.int64),
            cell_axis=np.array([e[1] for e in self.entries], dtype=np.int64),
            cell_nodes=nodes,
            cell_param=lane_table([e[3] for e in self.entries], lanes, N_CELL_PARAMS),
            cell_curve=FORCE_LENGTH["muscle"])
        return [Call("forces", ORDER, contractile_cells, args, "contractile_cells")]


class ContractileCell(Term):
    """A contractile cell on a rod's surface (module docstring)."""

    section = "actuators"
    FIELDS = ("start", "length", "force", "frequency", "phase", "cell_radius", "modulus")

    def __init__(self, rod, start, length, force, *, frequency=0.0, phase=0.0, cell_radius=0.0,
                 side="d1", force_length=None, modulus=0.0, name="cell"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.start = float(_checks.nonnegative(f"{name}.start", start, shape=()))
        self.length = float(_checks.positive(f"{name}.length", length, shape=()))
        self.force = float(_checks.nonnegative(f"{name}.force", force, shape=()))
        self.frequency = float(_checks.nonnegative(f"{name}.frequency", frequency, shape=()))
        self.phase = float(_checks.finite(f"{name}.phase", phase, shape=()))
        self.cell_radius = float(_checks.nonnegative(f"{name}.cell_radius", cell_radius, shape=()))
        self.modulus = float(_checks.nonnegative(f"{name}.modulus", modulus, shape=()))
        if self.modulus > 0 and self.cell_radius == 0:
            raise ValueError(f"{name}.modulus = {self.modulus:g} Pa is not allowed with "
                             f"{name}.cell_radius = 0: the filament's stiffness is "
                             "E_c pi cell_radius^2 / length (give cell_radius > 0)")
        self.side = _checks.choice(f"{name}.side", side, set(SIDES))
        if force_length is not None:
            _checks.choice(f"{name}.force_length", force_length, set(FORCE_LENGTH))
        self.force_length = force_length

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in self.FIELDS}

    def _ends(self, rest_lengths, p):
        """Node arc lengths (n_elems + 1,) [m] and the cell's end arc lengths (B, 2) [m] of B
        worlds from the rod's rest lengths and the cell's parameters p {field: (B,)}; checks
        them."""
        for k in ("start", "force", "frequency", "cell_radius", "modulus"):
            if np.any(p[k] < 0):
                raise ValueError(f"params['{self.name}.{k}'] has entries < 0 (must be >= 0)")
        arc = np.concatenate([[0.0], np.cumsum(rest_lengths)])                # node arc lengths
        ends = np.stack([p["start"], p["start"] + p["length"]], axis=1)        # (B, 2)
        if np.any(p["length"] <= 0) or np.any(ends[:, 1] > arc[-1] * (1 + 1e-12)):
            raise ValueError(f"{self.name}: start + length = {ends[:, 1].max():.6g} m is not "
                             f"allowed: the cell must lie on the rod (length {arc[-1]:.6g} m, "
                             f"cell length > 0)")
        return arc, ends

    def _offsets(self, radius, elements, p):
        """Signed offsets h (B, 2) [m]: the radius of the element holding each end plus the
        cell's, negative on a "-" side. radius (B, n_elems) [m], elements (B, 2) int."""
        worlds = np.arange(len(elements))
        h = np.stack([radius[worlds, elements[:, 0]], radius[worlds, elements[:, 1]]], axis=1)
        return SIDES[self.side][1] * (h + np.asarray(p["cell_radius"])[:, None])

    @staticmethod
    def stiffness(p, natural):
        """The filament's axial stiffness k = E_c pi r_c^2 / l_n [N/m], (B,), for parameters p
        {field: (B,)} and natural lengths l_n (B,) [m]."""
        return np.asarray(p["modulus"]) * np.pi * np.asarray(p["cell_radius"]) ** 2 / natural

    def attachments(self, rest_lengths, radius, p):
        """Cosserat rods: attachment nodes (B, 2) int (a < b, nearest to start and start +
        length) and signed offsets h (B, 2) [m] (the elements inside the span) of B worlds, from
        the rod's rest lengths (n_elems,) [m], element radii (B, n_elems) [m] and the cell's
        parameters p {field: (B,)}."""
        arc, ends = self._ends(rest_lengths, p)
        nodes = np.abs(ends[..., None] - arc).argmin(axis=-1)                  # nearest nodes
        if np.any(nodes[:, 1] <= nodes[:, 0]):
            raise ValueError(f"{self.name}.length = {p['length'].min():.3g} m is not allowed: "
                             f"shorter than the rod's elements, both ends on one node")
        return nodes, self._offsets(radius, nodes - [0, 1], p)

    def edge_attachments(self, rest_lengths, radius, p):
        """Discrete rods: the edges (B, 2) int holding the two ends, the ends' fractions
        along them (B, 2) and the signed offsets h (B, 2) [m] (arguments as `attachments`):
        the ends sit exactly at start and start + length, not snapped to nodes (an end on a
        node takes the edge inside the span, as the Cosserat cell's offsets do)."""
        arc, ends = self._ends(rest_lengths, p)
        edges = np.stack([np.searchsorted(arc, ends[:, 0], side="right"),
                          np.searchsorted(arc, ends[:, 1], side="left")], axis=1) - 1
        edges = np.clip(edges, 0, len(rest_lengths) - 1)
        frac = (ends - arc[edges]) / rest_lengths[edges]
        return edges, frac, self._offsets(radius, edges, p)

    def der_attachment(self, rod, p):
        """The cell on the discrete rod `rod` (a polyline) in B worlds, from its parameters p
        {field: (B,)}: a DerAttachment, its ends at their exact arc lengths
        (edge_attachments), its natural length l_n the span's arc length."""
        radius = np.broadcast_to(rod.radius, (len(p["start"]), rod.n_elems))
        edges, frac, h = self.edge_attachments(rod.rest_lengths, radius, p)
        natural = np.asarray(p["length"], dtype=float)
        rest = natural * (self.force_length is not None)
        params = np.column_stack([h, rest, self.stiffness(p, natural), natural, p["force"],
                                  p["frequency"], p["phase"]])
        return DerAttachment(
            nodes=np.stack([edges[:, 0], edges[:, 0] + 1, edges[:, 1], edges[:, 1] + 1], axis=1),
            frac=frac, axes=initial_side_directions(rod, self.side)[edges], params=params,
            curve=FORCE_LENGTH.get(self.force_length, NO_CURVE))

    def contribute(self, ctx, p):
        der = getattr(ctx, "der_index", {}).get(self.rod,
                                                getattr(ctx, "der_shell_index", {}).get(self.rod))
        if der is not None:                  # a discrete rod in the unified engine
            from softmech.terms.der_loads import DerContractileCells
            rod = _polyline(self, der)
            ctx.part(DerContractileCells).add(rod, ORDER, self.der_attachment(rod, p))
            return
        rod = ctx.rod(self.rod, self.name)
        if rod.closed:
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: a cell needs an open rod")
        nodes, h = self.attachments(rod.rest_lengths, ctx.rod_params(self.rod)["radius"], p)
        axis = SIDES[self.side][0]
        arc = np.concatenate([[0.0], np.cumsum(rod.rest_lengths)])
        span = arc[nodes[:, 1]] - arc[nodes[:, 0]]
        rest = span * (self.force_length is not None)
        params = np.column_stack([p["force"], p["frequency"], p["phase"], h, rest,
                                  self.stiffness(p, span), span])
        ctx.part(ContractileCells).entries.append((ctx.rod_index[self.rod], axis, nodes, params))

    def bind_implicit(self, ctx):
        """A discrete elastic rod (polyline): one binding, its attachment DOFs per world
        refreshed at every step from the per-world parameters."""
        return [_CellBinding(self, _polyline(self, ctx.body(self.name, self.rod)), ctx)]


class DerAttachment(NamedTuple):
    """A cell on a discrete rod in B worlds (ContractileCell.der_attachment): the arguments of
    softmech.kernels.contractile.contractile_cell_der per world."""
    nodes: np.ndarray    # (B, 4) int: the nodes (x_0, x_1) and (x_2, x_3) of the edges holding its ends
    frac: np.ndarray     # (B, 2): the ends' fractions along those edges
    axes: np.ndarray     # (B, 2, 3): the bending plane's unit normal at each end
    params: np.ndarray   # (B, 8): h_a, h_b [m], l_0 [m] (0: no curve), k [N/m], l_n [m],
                         # F [N], f [Hz], phase [rad] (DER_H_A ... DER_PHASE)
    curve: np.ndarray    # (2 + C,) the force-length curve as the kernels read it


DER_H_A, DER_H_B, DER_REST, DER_K, DER_NATURAL, DER_FORCE, DER_FREQUENCY, DER_PHASE = range(8)
"""Columns of DerAttachment.params."""


def _polyline(cell, rod):
    """`rod` if it is a discrete rod that is a single polyline (edge j joins nodes j and j + 1);
    ValueError naming the cell's field otherwise."""
    if getattr(rod, "kind", None) != "der_rod" or not np.array_equal(
            rod.edge_nodes, np.column_stack([np.arange(rod.n_elems), np.arange(1, rod.n_elems + 1)])):
        raise ValueError(f"{cell.name}.rod = {cell.rod!r} is not allowed: a cell needs a "
                         "Cosserat rod or a discrete rod that is a single polyline")
    return rod


def initial_side_directions(rod, side):
    """Unit normals of the bending plane (n_elems, 3) of each edge of a discrete rod: t0 x d,
    with t0 the edge's initial tangent and d its initial material direction `side` ("d1": m1,
    "d2": m2; the sign of "-d1", "-d2" goes into the offset), so that axis x t0 = d."""
    t0 = rod.positions[rod.edge_nodes[:, 1]] - rod.positions[rod.edge_nodes[:, 0]]
    t0 /= np.linalg.norm(t0, axis=1, keepdims=True)
    a1 = rod.a1_0
    a2 = np.cross(t0, a1)
    theta = np.broadcast_to(rod.twist0, (rod.n_elems,))[:, None]
    m1 = np.cos(theta) * a1 + np.sin(theta) * a2
    m2 = -np.sin(theta) * a1 + np.cos(theta) * a2
    return np.cross(t0, m1 if SIDES[side][0] == 0 else m2)


class _CellBinding(Binding):
    """A ContractileCell on a discrete rod (softmech.kernels.contractile.contractile_cell_der),
    its ends at their exact arc lengths (ContractileCell.edge_attachments).
    Its 12 DOFs depend on the world's `start` and `length`: a dynamic binding (begin_step
    refreshes them; the Jacobian's structure is rebuilt only when they change)."""

    dynamic = True

    def __init__(self, term, rod, ctx):
        self.name = term.name
        self.term = term
        self.rod = rod
        self.node_dofs = ctx.layout.node_dof(rod.nodes)               # (N, 3)
        self.p = {k: ctx.params[f"{term.name}.{k}"] for k in term.FIELDS}
        self._JD, self._H = np.empty((3, 12)), np.empty((12, 12))      # kernel scratch
        self._setup(0)

    def _setup(self, b):
        row = {k: v[b:b + 1] for k, v in self.p.items()}
        key = tuple(float(row[k][0]) for k in ("start", "length", "cell_radius", "modulus"))
        if key == getattr(self, "_key", None):      # the same attachment as the last step's
            return
        self._key = key
        at = self.term.der_attachment(self.rod, row)
        dofs = np.ascontiguousarray(self.node_dofs[at.nodes[0]].reshape(-1))
        if getattr(self, "dofs", None) is None or not np.array_equal(dofs, self.dofs):
            self.dofs = dofs
            self.rows = np.repeat(dofs, 12)
            self.cols = np.tile(dofs, 12)
            self.pattern_version += 1
        p = at.params[0]
        self.ends = (float(at.frac[0, 0]), float(at.frac[0, 1]), at.axes[0, 0], at.axes[0, 1],
                     p[DER_H_A], p[DER_H_B], p[DER_REST], at.curve, p[DER_K], p[DER_NATURAL])

    def begin_step(self, b, q, t):
        self._setup(b)

    def amplitude(self, b, t):
        """The cell's pull at time t [N] (softmech.kernels.contractile.twitch)."""
        return twitch(float(self.p["force"][b]), float(self.p["frequency"][b]),
                      float(self.p["phase"][b]), t)

    def forces(self, b, q, v, t, h, F, J):
        contractile_cell_der(q, self.dofs, *self.ends, self.amplitude(b, t), F, J, self._JD,
                             self._H)
