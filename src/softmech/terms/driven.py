"""Driven ends: a clamped rod end or a rigid body moved and turned over time, optionally free to
slide along a direction (kernels and equations: softmech.kernels.driven).

    DrivenEnd(body, end=None, *, times, displacement=None, rotation=None, slide=None)

body: a rod (then end = "first" or "last") or a rigid body (end = None). The motion is a table
at `times` [s] (n,), increasing: displacement u [m] and rotation vector theta [rad] (lab frame,
about the end point; |theta| = angle, theta/|theta| = axis), each an (n, 3) array of values or a
function of time returning a 3-vector, sampled at `times` once when the term is built (the table
is interpolated linearly and held outside it). The rod's end node is placed at x0 + u(t) and its
end frame is turned by exp([theta(t)]x) -- elastically, through the same half Voronoi domain as
`Clamp(frame="boundary")`; a rigid body's centre of mass and frame are placed exactly. With
`slide` (a direction, lab frame) the motion along it is left free: the end slides under the loads
on it (e.g. a rod twisted from a turning clamp with a weight hanging below).
"""
import numpy as np
from scipy.spatial.transform import Rotation

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.anchors import FrameAnchorsArgs, frame_anchors
from softmech.kernels.driven import (
    DRIVE_RIGID_BODY,
    DRIVE_ROD_NODE,
    DrivenArgs,
    drive_positions,
    drive_rates,
)
from softmech.packing import point_table
from softmech.terms.base import Part, Term, end_index
from softmech.terms.boundary import ANCHOR_ORDER, CONSTRAINT_ORDER, boundary_anchor_stiffness

MAX_SAMPLES = 1_000_000
"""Largest motion table (samples): a bound on the memory a scenario file can ask for."""


class DrivenEnds(Part):
    """All driven ends of a scene: one kernel call after each drift (positions) and kick (rates),
    and one frame-anchor call for the rod ends (targets written by drive_positions)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (kind, slot, times, disp, rot, pos0, Q0 (9,), slide (3,))
        self.anchors = []   # (element slot, side, K / D (B, 3)) of rod ends, in entry order

    def calls(self, engine):
        n_d = len(self.entries)
        n_t = max(len(e[2]) for e in self.entries)
        times = np.zeros((n_d, n_t))
        disp, rot = np.zeros((n_d, n_t, 3)), np.zeros((n_d, n_t, 3))
        anchor_row, row = np.full(n_d, -1, dtype=np.int64), 0
        for d, (kind, _, t, u, th, _, _, _) in enumerate(self.entries):
            times[d, :len(t)], times[d, len(t):] = t, t[-1]
            disp[d, :len(t)], rot[d, :len(t)] = u, th
            if kind == DRIVE_ROD_NODE:
                anchor_row[d], row = row, row + 1
        # initial targets (t = 0); drive_positions rewrites them before every force pass
        q0 = [(e[6].reshape(3, 3) @ Rotation.from_rotvec(e[4][0]).as_matrix().T).ravel()
              for e in self.entries if e[0] == DRIVE_ROD_NODE]
        anchor_Q = point_table([(a[0], q) for a, q in zip(self.anchors, q0)], engine.lanes, 9)[1]
        args = engine.args(
            DrivenArgs, drive_kind=np.array([e[0] for e in self.entries], dtype=np.int64),
            drive_slot=np.array([e[1] for e in self.entries], dtype=np.int64),
            drive_anchor=anchor_row, drive_count=np.array([len(e[2]) for e in self.entries],
                                                          dtype=np.int64),
            drive_times=times, drive_disp=disp, drive_rot=rot,
            drive_pos0=np.array([e[5] for e in self.entries]).reshape(n_d, 3),
            drive_Q0=np.array([e[6] for e in self.entries]).reshape(n_d, 9),
            drive_slide=np.array([e[7] for e in self.entries]).reshape(n_d, 3), anchor_Q=anchor_Q)
        calls = [Call("positions", CONSTRAINT_ORDER, drive_positions, args, "drive_positions"),
                 Call("rates", CONSTRAINT_ORDER, drive_rates, args, "drive_rates")]
        if self.anchors:
            anchors = engine.args(
                FrameAnchorsArgs, anchor_elem=np.array([a[0] for a in self.anchors], dtype=np.int64),
                anchor_Q=args.anchor_Q,   # the same array: drive_positions writes the targets
                anchor_K=point_table([(a[0], a[2]) for a in self.anchors], engine.lanes, 3)[1],
                anchor_side=np.array([a[1] for a in self.anchors], dtype=float))
            calls.append(Call("forces", ANCHOR_ORDER, frame_anchors, anchors, "driven_anchors"))
        return calls


def _table(owner, field, values, times):
    """Motion `values` ((n, 3) array, function of time, or None) sampled at `times` -> (n, 3)."""
    n = len(times)
    if values is None:
        return np.zeros((n, 3))
    if callable(values):
        try:
            sampled = [values(float(t)) for t in times]
        except Exception as err:  # the user's function failed: say where
            raise ValueError(f"{owner}.{field}: the function raised {type(err).__name__}: {err} "
                             f"(it must map a time [s] to a 3-vector)") from err
        return _checks.finite(f"{owner}.{field}(t)", sampled, shape=(n, 3))
    arr = _checks.finite(f"{owner}.{field}", values, shape=(None, 3))
    if len(arr) != n:
        raise ValueError(f"{owner}.{field} has shape {arr.shape}, expected ({n}, 3): one "
                         f"3-vector per entry of {owner}.times ({n} samples)")
    return arr


class DrivenEnd(Term):
    """A rod end (end = "first" | "last") or a rigid body (end = None) moved by displacement
    u(t) [m] and turned by rotation vector theta(t) [rad] (lab frame) from a table at `times`
    [s] or functions of time sampled there; with `slide` (3,) free to move along that direction
    (softmech.terms.driven)."""

    section = "boundary"

    def __init__(self, body, end=None, *, times, displacement=None, rotation=None, slide=None,
                 name="driven_end"):
        self.name = name
        self.driven = getattr(body, "name", body)
        if not isinstance(self.driven, str):
            raise ValueError(f"{name}.body = {body!r} is not allowed: must be a rod or rigid body, "
                             f"or its name")
        if end not in (None, "first", "last"):
            raise ValueError(f"{name}.end = {end!r} is not allowed: must be 'first' or 'last' "
                             f"(a rod's end) or None (a rigid body)")
        self.end = end
        self.times = _checks.finite(f"{name}.times", times, shape=(None,))
        if not 1 <= len(self.times) <= MAX_SAMPLES:
            raise ValueError(f"{name}.times has {len(self.times)} samples: must have 1 to "
                             f"{MAX_SAMPLES}")
        if np.any(np.diff(self.times) <= 0):
            raise ValueError(f"{name}.times is not allowed: must be strictly increasing")
        self.displacement = _table(name, "displacement", displacement, self.times)
        self.rotation = _table(name, "rotation", rotation, self.times)
        self.slide = None if slide is None else _checks.unit_vector(f"{name}.slide", slide)

    def bodies(self):
        """Name of the driven rod or rigid body (for the scene's checks)."""
        return (self.driven,)

    def arguments(self):
        """The tables, not the functions they were sampled from (scenario files hold data)."""
        return {"body": self.driven, "end": self.end, "times": self.times,
                "displacement": self.displacement, "rotation": self.rotation,
                "slide": self.slide, "name": self.name}

    @property
    def constrained_end(self):
        """(body, end): one boundary condition per rod end or rigid body."""
        return (self.driven, self.end or "body")

    def contribute(self, ctx, p):
        slide = np.zeros(3) if self.slide is None else self.slide
        table = (self.times, self.displacement, self.rotation)
        part = ctx.part(DrivenEnds)
        name = self.driven
        if name in ctx.rigid_index:
            if self.end is not None:
                raise ValueError(f"{self.name}.end = {self.end!r} is not allowed: {name!r} is a "
                                 f"rigid body (end must be None)")
            body = ctx.rigid_bodies[ctx.rigid_index[name]]
            part.entries.append((DRIVE_RIGID_BODY, ctx.rigid_index[name], *table,
                                 body.position, body.principal_directors.ravel(), slide))
            return
        rod = ctx.rod(name, self.name)
        if self.end is None or rod.closed:
            raise ValueError(f"{self.name}.end = {self.end!r} is not allowed for rod {name!r}: "
                             f"must be 'first' or 'last' of an open rod")
        node = end_index(self.name, self.end, rod.n_nodes)
        elem = end_index(self.name, self.end, rod.n_elems)
        stiffness = boundary_anchor_stiffness(ctx, name, self.name, elem)
        ctx.anchor_stiffness[name][:, elem] += stiffness   # time-step limit
        part.entries.append((DRIVE_ROD_NODE, ctx.node_offset[name] + node, *table,
                             rod.positions[node], rod.directors[elem].ravel(), slide))
        part.anchors.append((ctx.elem_offset[name] + elem, 1.0 if elem == 0 else -1.0,
                             stiffness))
