"""Contractile cells: a small contractile filament attached to a rod's surface that pulls its two
attachment points together (kernel and equations: softmech.kernels.contractile).

    ContractileCell(rod, start=0.424e-3, length=100e-6, force=12e-6, frequency=3.6,
                    cell_radius=10e-6, side="d1")

The cell spans the rod's arc length from start to start + length [m] (from the first node; each
end snapped to the nearest node); it sits on the rod's surface on the side of the material
direction `side` ("d1", "-d1", "d2", "-d2"), its axis at h = r + cell_radius from the centreline
(r the rod's radius at that end). It pulls with F (1 - cos(2 pi f t + phase)) / 2 [N] (a
twitch every period, as the cardiomyocytes of the bio-hybrid swimmer), or the constant F when
frequency = 0. Per-world parameters `<name>.start`, `<name>.length` [m], `<name>.force` [N],
`<name>.frequency` [Hz], `<name>.phase` [rad], `<name>.cell_radius` [m], shape (B,): an
optimizer can move the cell along the rod without rebuilding the scene.
"""
import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.contractile import N_CELL_PARAMS, ContractileCellsArgs, contractile_cells
from softmech.packing import lane_table, per_lane
from softmech.terms.base import Part, Term, rod_name

ORDER = 40
"""Place in the force pass: with the muscles."""

SIDES = {"d1": (0, 1.0), "-d1": (0, -1.0), "d2": (1, 1.0), "-d2": (1, -1.0)}


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
            cell_param=lane_table([e[3] for e in self.entries], lanes, N_CELL_PARAMS))
        return [Call("forces", ORDER, contractile_cells, args, "contractile_cells")]


class ContractileCell(Term):
    """A contractile cell on a rod's surface (module docstring)."""

    section = "actuators"
    FIELDS = ("start", "length", "force", "frequency", "phase", "cell_radius")

    def __init__(self, rod, start, length, force, *, frequency=0.0, phase=0.0, cell_radius=0.0,
                 side="d1", name="cell"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.start = float(_checks.nonnegative(f"{name}.start", start))
        self.length = float(_checks.positive(f"{name}.length", length))
        self.force = float(_checks.nonnegative(f"{name}.force", force))
        self.frequency = float(_checks.nonnegative(f"{name}.frequency", frequency))
        self.phase = float(_checks.finite(f"{name}.phase", phase))
        self.cell_radius = float(_checks.nonnegative(f"{name}.cell_radius", cell_radius))
        self.side = _checks.choice(f"{name}.side", side, set(SIDES))

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in self.FIELDS}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        if rod.closed:
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: a cell needs an open rod")
        for k in ("start", "force", "frequency", "cell_radius"):
            if np.any(p[k] < 0):
                raise ValueError(f"params['{self.name}.{k}'] has entries < 0 (must be >= 0)")
        arc = np.concatenate([[0.0], np.cumsum(rod.rest_lengths)])            # node arc lengths
        ends = np.stack([p["start"], p["start"] + p["length"]], axis=1)        # (B, 2)
        if np.any(p["length"] <= 0) or np.any(ends[:, 1] > arc[-1] * (1 + 1e-12)):
            raise ValueError(f"{self.name}: start + length = {ends[:, 1].max():.6g} m is not "
                             f"allowed: the cell must lie on the rod (length {arc[-1]:.6g} m, "
                             f"cell length > 0)")
        nodes = np.abs(ends[..., None] - arc).argmin(axis=-1)                  # nearest nodes
        if np.any(nodes[:, 1] <= nodes[:, 0]):
            raise ValueError(f"{self.name}.length = {p['length'].min():.3g} m is not allowed: "
                             f"shorter than the rod's elements, both ends on one node")
        radius = ctx.rod_params(self.rod)["radius"]                            # (B, n_elems)
        worlds = np.arange(len(nodes))
        h = np.stack([radius[worlds, nodes[:, 0]], radius[worlds, nodes[:, 1] - 1]], axis=1)
        axis, sign = SIDES[self.side]
        h = sign * (h + p["cell_radius"][:, None])
        params = np.column_stack([p["force"], p["frequency"], p["phase"], h])
        ctx.part(ContractileCells).entries.append((ctx.rod_index[self.rod], axis, nodes, params))
