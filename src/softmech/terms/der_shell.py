"""Discrete shells (hinge or mid-edge bending) on the unified engine's discrete kind: the calls of
their elasticity, every shell's own force term (as every discrete rod has
softmech.terms.der_kind's), and the Part of sm.ShellPressure and sm.ShellDrag on them. Kernels:
softmech.kernels.der_shell; the shells' arrays: softmech.shell_packing."""
import numpy as np

from softmech.bodies.shell import _node_dofs
from softmech.der_packing import PackedParam, per_lane_rows
from softmech.integrators.analytic import AnalyticJacobian
from softmech.integrators.driver import Call
from softmech.kernels.analytic_jacobian import adds_nothing
from softmech.kernels.band_lanes import LANES
from softmech.kernels.der_motion import DER_MOTION
from softmech.kernels.der_shell import (DerShellArgs, DerShellLoadArgs,
                                        der_shell_drag, der_shell_drag_jacobian,
                                        der_shell_forces, der_shell_forces_lanes,
                                        der_shell_jacobian, der_shell_pressure,
                                        der_shell_pressure_jacobian, der_shell_pressure_lanes,
                                        der_shell_without)
from softmech.kernels.der_shell_midedge import (DerMidedgeArgs, der_midedge_jacobian,
                                                der_midedge_without, der_shell_midedge)
from softmech.kernels.shell_lanes import HINGE_ROWS
from softmech.shell_packing import held_edges, midedge_dofs, shell_edge_frames
from softmech.terms.der_kind import DerFixedNodes
from softmech.terms.base import Part
from softmech.terms.der_loads import DRAG_ORDER, LOAD_ORDER

ORDER = 1
"""In the force pass right after the discrete rods' elasticity (order 0, which initialises
der_force; without discrete rods this call does)."""

RENEW_EVERY_STEP = False
"""The shells' analytic Jacobian entries are kept as long as the finite differences of the
other terms (AnalyticJacobian.every_step; the static solve renews them at every pseudo step
regardless): renewed at every step, the 1,032-triangle plate took a factorization per step
and ran 3.6x slower (0.260 against 0.072 s for 20 steps, docs/shells.md)."""

MIDEDGE_ORDER = 2
"""After the shells' stretching (which initialises der_force without discrete rods); the
mid-edge call writes its edges' der_torque itself."""


def shell_calls(engine):
    """The elasticity call of every shell of the kind (engine.ctx.der_shells), one for all: the
    stretching springs on their edges (k = sqrt(3)/2 E h l0^2) and the hinges on their inner
    edges (softmech.bodies.shell), their DOF tables written in the kind's node slots (a node
    joined to a rod's or another shell's is theirs), the natural hinge angles per world
    (params '<shell>.rest_angle')."""
    ctx, slots, lanes = engine.ctx, engine.der_slots, engine.lanes
    shells = ctx.der_shells
    if not shells:
        return []

    def dofs(shell, stencils):
        return _node_dofs(slots.nodes[shell.name][stencils])

    hinged = [s for s in shells if s.bending == "hinge"]
    edge_dofs = np.concatenate([dofs(s, s.edges) for s in shells])
    hinge_dofs = np.concatenate([dofs(s, s.hinges).reshape(-1, 12) for s in hinged]) \
        if hinged else np.zeros((0, 12), dtype=np.int64)
    rest = np.concatenate([ctx.der_shell_params[s.name]["rest_angle"] for s in hinged],
                          axis=1) if hinged else np.zeros((lanes.worlds, 0))
    n = slots.n_nodes
    args = engine.args(
        DerShellArgs,
        sh_slot=np.unique(np.concatenate([slots.nodes[s.name] for s in shells])),
        sh_edge_dofs=np.ascontiguousarray(edge_dofs, dtype=np.int64),
        sh_rest_len=np.concatenate([s.edge_length for s in shells]),
        sh_stretch_k=np.concatenate([s.stretch_stiffness for s in shells]),
        sh_hinge_dofs=np.ascontiguousarray(hinge_dofs, dtype=np.int64),
        sh_hinge_k=np.concatenate([s.hinge_stiffness for s in hinged] + [np.zeros(0)]),
        sh_rest_angle=per_lane_rows(rest, lanes),
        sh_first=np.array([0 if ctx.der_rods else 1], dtype=np.int64),
        sh_q=engine.zeros(3 * n), sh_F=engine.zeros(3 * n),
        sh_Js=engine.zeros(0), sh_Jh=engine.zeros(0),     # (want_jac False: not written)
        sh_Fl=engine.zeros(3 * n * lanes.W), sh_s=engine.zeros(HINGE_ROWS * LANES))
    offsets = np.cumsum([0] + [len(s.hinges) for s in hinged])
    for shell, first in zip(hinged, offsets):     # (for DerParameterWaves)
        engine.packed_params[f"{shell.name}.rest_angle"] = PackedParam(
            args.sh_rest_angle, int(first), np.ones(len(shell.hinges)))
    jacobian = AnalyticJacobian.blocks(der_shell_jacobian, der_shell_without,
                                       (edge_dofs, hinge_dofs), DER_MOTION,
                                       every_step=RENEW_EVERY_STEP)
    # (blocks of several worlds: the lanes kernels, compiled only then)
    forces = der_shell_forces_lanes if lanes.W > 1 else der_shell_forces
    return [Call("forces", ORDER, forces, args, "der_shell_elasticity",
                 jacobian=jacobian, couplings=jacobian.couplings())] + \
        midedge_calls(engine, [s for s in shells if s.bending == "midedge"])


def midedge_calls(engine, shells):
    """The mid-edge bending call of the mid-edge shells `shells` of the kind, one for all
    (softmech.kernels.der_shell_midedge): their triangles' node DOFs in the kind's node slots
    and angle DOFs after them, their edges' slots, frames of the built shape for the angles that
    sm.FixNodes holds, the natural curvatures per world (params '<shell>.rest_curvature')."""
    if not shells:
        return []
    ctx, slots = engine.ctx, engine.der_slots
    n = slots.n_nodes
    held = ctx.parts[DerFixedNodes].entries if DerFixedNodes in ctx.parts else []
    offsets = np.cumsum([0] + [len(s.edges) for s in shells])
    frames = [shell_edge_frames(s, s.vertices) for s in shells]
    tri_offsets = np.cumsum([0] + [len(s.triangles) for s in shells])
    cat = lambda parts, dtype=float: np.ascontiguousarray(np.concatenate(parts), dtype=dtype)
    tri_edges = cat([o + s.tri_edges for o, s in zip(offsets, shells)], np.int64)
    tri_nodes = cat([slots.nodes[s.name][s.triangles] for s in shells], np.int64)
    edge_tris = cat([np.where(s.edge_tris >= 0, o + s.edge_tris, -1)
                     for o, s in zip(tri_offsets, shells)], np.int64)
    m = int(offsets[-1])
    args = engine.args(
        DerMidedgeArgs,
        me_slot=np.unique(tri_nodes),
        me_edge=cat([slots.index("edge", s) for s in shells], np.int64),
        me_tri_nodes=tri_nodes,
        me_edge_nodes=cat([slots.nodes[s.name][s.edges] for s in shells], np.int64),
        me_edge_tris=edge_tris,
        me_free=cat([1 - held_edges(s, held) for s in shells], np.int64),
        me_tau0=cat([f[0] for f in frames]), me_n0=cat([f[1] for f in frames]),
        me_dofs=midedge_dofs(tri_nodes, tri_edges, n),
        me_tri_edges=tri_edges, me_sign=cat([s.tri_edge_sign for s in shells]),
        me_length_over_area=cat([s.length_over_area for s in shells]),
        me_K=cat([s.midedge_stiffness for s in shells]),
        me_rest=per_lane_rows(np.concatenate(
            [ctx.der_shell_params[s.name]["rest_curvature"] for s in shells], axis=1),
            engine.lanes),
        me_q=engine.zeros(3 * n + m), me_F=engine.zeros(3 * n + m),
        me_fn=engine.zeros(len(tri_nodes), 3), me_tau=engine.zeros(m, 3),
        me_nrm0=engine.zeros(m, 3), me_work=engine.zeros(160),
        me_J=engine.zeros(0))
    rest = args.me_rest.reshape(engine.lanes.n_blocks, engine.lanes.W, -1)
    for shell, first in zip(shells, tri_offsets):  # (for DerParameterWaves)
        engine.packed_params[f"{shell.name}.rest_curvature"] = PackedParam(
            rest, 3 * int(first), np.ones(3 * len(shell.triangles)))
    # each triangle's nodes and its edges' angles, in the kind's numbering (the kernel's own
    # numbers the mid-edge shells' edges from 0: me_edge maps them to the kind's edge slots)
    stencils = np.concatenate([_node_dofs(tri_nodes), 3 * n + args.me_edge[tri_edges]], axis=1)
    jacobian = AnalyticJacobian.blocks(der_midedge_jacobian, der_midedge_without, (stencils,),
                                       DER_MOTION, every_step=RENEW_EVERY_STEP)
    return [Call("forces", MIDEDGE_ORDER, der_shell_midedge, args, "der_shell_midedge",
                 jacobian=jacobian, couplings=jacobian.couplings())]


class DerShellLoads(Part):
    """sm.ShellPressure and sm.ShellDrag on shells of the kind: one kernel call per term
    (softmech.kernels.der_shell.der_shell_pressure, der_shell_drag: the discrete engine's
    kernels run per lane), per-world values, with their analytic Jacobians."""

    KERNELS = {"pressure": (der_shell_pressure, der_shell_pressure_lanes,
                            der_shell_pressure_jacobian, LOAD_ORDER, "der_shell_pressure"),
               "drag": (der_shell_drag, der_shell_drag, der_shell_drag_jacobian, DRAG_ORDER,
                        "der_shell_drag")}
    """{kind: (kernel for blocks of one world, for blocks of several -- the drag runs per
    world in both --, analytic Jacobian kernel, order, call name)}."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (kind, shell, value (B,): pressure [Pa] or 1/2 rho C_d [kg/m^3])

    def add(self, kind, shell, value):
        self.entries.append((kind, shell, np.asarray(value, dtype=float)))

    def calls(self, engine):
        out = []
        n = engine.der_slots.n_nodes
        for kind, shell, value in self.entries:
            slot = engine.der_slots.nodes[shell.name]
            one, several, jacobian_kernel, order, name = self.KERNELS[kind]
            kernel = several if engine.lanes.W > 1 else one         # (as shell_calls)
            args = engine.args(
                DerShellLoadArgs, sl_slot=np.unique(slot),
                sl_tri_dofs=np.ascontiguousarray(_node_dofs(slot[shell.triangles]), dtype=np.int64),
                sl_rest_area=shell.tri_area.astype(float), sl_value=per_lane_rows(value, engine.lanes),
                sl_q=engine.zeros(3 * n), sl_v=engine.zeros(3 * n), sl_F=engine.zeros(3 * n),
                sl_J=engine.zeros(0), sl_Fl=engine.zeros(3 * n * engine.lanes.W),
                sl_s=engine.zeros(HINGE_ROWS * LANES))
            jacobian = AnalyticJacobian.blocks(jacobian_kernel, adds_nothing, (args.sl_tri_dofs,),
                                               DER_MOTION, every_step=RENEW_EVERY_STEP)
            out.append(Call("forces", order, kernel, args, name, jacobian=jacobian,
                            couplings=jacobian.couplings()))
        return out
