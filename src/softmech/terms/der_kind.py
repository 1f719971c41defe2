"""Discrete elastic rods as a body kind of the explicit engine (softmech.simulation.Simulation):
their elasticity, the kind's own force term (every discrete rod has it), and the nodes held by
sm.FixNodes. Kernels: softmech.kernels.der_kind; the kind's arrays: softmech.der_packing."""
import numpy as np

from softmech.der_packing import PackedParam, per_lane_rows
from softmech.function_schedules import CAPACITY, SampledSchedule
from softmech.integrators.analytic import AnalyticJacobian, Couplings
from softmech.integrators.driver import Call
from softmech.kernels.der_kind import (DerElasticArgs, DerFixArgs, DerScheduleArgs,
                                       DerWaveArgs, der_clear_forces, der_commit_frames,
                                       der_elastic_forces, der_elastic_jacobian,
                                       der_fix_positions, der_fix_rates, der_parameter_wave,
                                       der_rest_schedule)
from softmech.kernels.der_kind_lanes import (block_rows, der_commit_frames_lanes,
                                             der_elastic_forces_lanes, der_elastic_jacobian_lanes)
from softmech.kernels.der_motion import DER_MOTION
from softmech.terms.base import Part

ORDER = 0
"""First in the force pass: it overwrites the discrete rods' accumulators."""

SCHEDULE_ORDER = -2
"""Before the elasticity in the force pass: the scheduled natural curvatures and twists it reads
(after rigid_clear at -1, which touches other arrays)."""

COMMIT_ORDER = 50
"""After the constraints (FixNodes: order 0) in the positions stage: the frames follow the
positions as they are held."""


class DerElasticity(Part):
    """Stretching (ref. 004 eqs. 9-10) and bending-twisting (eqs. 11-16) of every discrete rod,
    with EA = A E, EI = I E, GJ = J G from the per-world moduli and the natural curvature and
    twist as DisMech's discrete values kappa^ l_i, tau^ l_i (softmech.bodies.der_rod), and the
    frames' time-parallel transport after every drift. A natural curvature or twist given as a
    table (softmech.bodies.schedules) is written at every force evaluation from the table at
    the evaluation's time (der_rest_schedule), as the discrete engine does; the per-world
    parameter then keeps its value at t = 0."""

    def calls(self, engine):
        ctx, lanes, slots = self.ctx, engine.lanes, engine.der_slots
        rods = ctx.der_rods
        # blocks of several worlds run the springs' lanes kernels, all lanes at once (the same
        # numbers; a single world, or shells without rods, compile none of them:
        # softmech.kernels.der_kind_lanes)
        together = lanes.W > 1 and slots.n_rod_edges > 0
        m, s = slots.n_rod_edges, slots.n_springs      # (a mid-edge shell's edges have no frames)
        cat = lambda values: np.concatenate(values, axis=1)
        per = {k: [] for k in ("EA", "EI", "GJ", "kbar", "tbar")}
        rest, vor = [], []
        for r, E, G, kappa, tau, first in _spring_sets(ctx, slots):
            # (a joint network's edges are stretched by their rod and shell, not here: EA = 0)
            per["EA"].append(r.section_area[None, first:] * E[:, None] * (first == 0))
            per["EI"].append(r.section_inertia[None] * E[:, None, None])
            per["GJ"].append(r.section_polar[None] * G[:, None])
            per["kbar"].append(kappa * r.voronoi_lengths[None, :, None])
            per["tbar"].append(tau * r.voronoi_lengths[None])
            rest.append(r.rest_lengths[first:])
            vor.append(r.voronoi_lengths)
        tables = {k: per_lane_rows(cat(v), lanes) for k, v in per.items()}
        args = engine.args(
            DerElasticArgs, edge_dofs=slots.edge_dofs, spring_dofs=slots.spring_dofs,
            spring_edges=slots.spring_edges, spring_signs=slots.spring_signs,
            rest_len=np.concatenate(rest), inv_vor=1.0 / np.concatenate(vor),
            **tables, q=engine.zeros(slots.n_dof), F=engine.zeros(slots.n_dof),
            t=engine.zeros(m, 3), a1=engine.zeros(m, 3), a2=engine.zeros(m, 3),
            ref=engine.zeros(s), t_old=engine.zeros(m, 3), a1_old=engine.zeros(m, 3),
            ref_old=engine.zeros(s), g=engine.zeros(3, 11), H=engine.zeros(11, 11),
            blk=engine.zeros(3, 3, 3), J=np.zeros(0),
            # (one world: a placeholder)
            lanes=block_rows(slots.edge_dofs, slots.spring_dofs, slots.spring_edges,
                             lanes.n_blocks) if together else np.zeros(0))
        for r in rods:          # (a ParameterWave writes these tables: DerParameterWaves)
            first = slots.spring[r.name]
            engine.packed_params[f"{r.name}.natural_curvature"] = PackedParam(
                args.kbar.reshape(lanes.n_blocks, lanes.W, -1), 2 * first,
                np.repeat(r.voronoi_lengths, 2))
            engine.packed_params[f"{r.name}.natural_twist"] = PackedParam(
                args.tbar, first, r.voronoi_lengths)
        jacobian = _elastic_jacobian(slots, together)
        forces = der_elastic_forces_lanes if together else der_elastic_forces
        commit = der_commit_frames_lanes if together else der_commit_frames
        return [Call("forces", ORDER, forces, args, "der_elasticity",
                     jacobian=jacobian, couplings=jacobian.couplings()),
                Call("positions", COMMIT_ORDER, commit, args, "der_frames",
                     history=True, couplings=Couplings.none(DER_MOTION))] + \
            _schedule_calls(engine, rods, slots, args)


def _elastic_jacobian(slots, together):
    """The elasticity's analytic Jacobian (softmech.integrators.analytic): the entries of
    der_elastic_jacobian, each edge's 6 x 6 then each spring's 11 x 11, in the kind's
    coordinates (node slot s, axis c: 3 s + c; edge slot j: 3 n + j, as the kernels' q);
    together: a block's lanes at once (der_elastic_jacobian_lanes)."""
    return AnalyticJacobian.blocks(der_elastic_jacobian, der_clear_forces,
                                   (slots.edge_dofs, slots.spring_dofs), DER_MOTION,
                                   lanes_kernel=der_elastic_jacobian_lanes if together else None)


def _spring_sets(ctx, slots):
    """(body, E (B,), G (B,) [Pa], natural curvature (B, s, 2) [1/m], natural twist (B, s)
    [rad/m], its first edge of its own) of each discrete rod, then each rod-shell joint's
    network (softmech.terms.rod_shell_joint: its springs' moduli the rod's times the joint's
    per-world stiffness factor, its rest shape as built; its first n_rod_edges edges are the
    rod's), in the order of the kind's edge and spring slots (softmech.der_packing.DerSlots)."""
    for r in ctx.der_rods:
        p = ctx.der_params[r.name]
        yield (r, p["youngs_modulus"], p["shear_modulus"], p["natural_curvature"],
               p["natural_twist"], 0)
    for net in slots.networks:
        p = ctx.der_params[net.rod_name]
        factor = ctx.der_joint_stiffness[net.stiffness_key]
        B = len(factor)
        yield (net, p["youngs_modulus"] * factor, p["shear_modulus"] * factor,
               np.broadcast_to(net.natural_curvature, (B,) + net.natural_curvature.shape),
               np.broadcast_to(net.natural_twist, (B,) + net.natural_twist.shape),
               net.n_rod_edges)


def _schedule_calls(engine, rods, slots, elastic):
    """One der_rest_schedule call per scheduled natural curvature or twist of a rod, writing
    into the elasticity's kbar / tbar (`elastic`: its DerElasticArgs). A table is the call's
    own; a Python function is sampled into a table before each chunk of steps
    (softmech.function_schedules: the SampledSchedule is added to engine.sampled)."""
    calls = []
    for r in rods:
        for key, target, width in (("natural_curvature", elastic.kbar, 2),
                                   ("natural_twist", elastic.tbar, 1)):
            schedule = getattr(r, "schedules", {}).get(key)
            if schedule is None:
                continue
            n = r.n_springs * width
            if schedule.function is None:
                times = schedule.times
                values = schedule.values.reshape(1, 1, len(times), n)
            else:
                times = np.zeros(CAPACITY)
                values = np.zeros((engine.lanes.n_blocks, engine.lanes.W, CAPACITY, n))
            args = engine.args(
                DerScheduleArgs, times=times, values=values,
                scale=np.repeat(r.voronoi_lengths, width),
                start=np.array([slots.spring[r.name] * width], dtype=np.int64),
                # a view of the elasticity's contiguous table: the kernel writes into it
                target=target.reshape(target.shape[0], target.shape[1], -1), row=engine.zeros(n))
            if schedule.function is not None:
                engine.sampled.append(SampledSchedule(schedule, args,
                                                      engine.lanes.world_of_lane))
            calls.append(Call("forces", SCHEDULE_ORDER, der_rest_schedule, args,
                              "der_rest_schedule", couplings=Couplings.none(DER_MOTION)))
    return calls


class DerParameterWaves(Part):
    """sm.ParameterWave on bodies of the kind: one der_parameter_wave call per wave, writing
    the parameter's packed table (Engine.packed_params: a rod's natural curvature or twist, a
    shell's natural hinge angles or mid-edge curvatures) before the elasticity reads it, at
    every force evaluation, as the discrete engine's wave binding writes sim.params. The
    per-world parameter in sim.params keeps its built value here (changing it would rebuild
    the engine)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (term, amplitude, phase, offset: (n,) each)

    def add(self, term, amplitude, phase, offset):
        self.entries.append((term, amplitude, phase, offset))

    def calls(self, engine):
        out = []
        for term, amplitude, phase, offset in self.entries:
            packed = engine.packed_params[term.parameter]
            n = packed.scale.size
            args = engine.args(
                DerWaveArgs, target=packed.table,
                start=np.array([packed.start], dtype=np.int64), scale=packed.scale,
                amplitude=amplitude, phase=phase, offset=offset,
                wave=np.array([term.frequency, term.ramp_time]),
                row=engine.zeros(n))
            out.append(Call("forces", SCHEDULE_ORDER, der_parameter_wave, args, term.name,
                            couplings=Couplings.none(DER_MOTION)))
        return out


WAVE_PARAMETERS = {"rod": ("natural_curvature", "natural_twist"),
                   "hinge": ("rest_angle",), "midedge": ("rest_curvature",)}
"""The parameters a ParameterWave drives on each body of the unified engine's kind (a
discrete rod; a shell by its bending), those its elasticity reads from packed tables."""


def wave_parameter(ctx, owner, parameter):
    """The per-world values (B, ...) of `parameter` ('<body>.<name>') of a body of the kind in
    the Assembly ctx, checked to be one WAVE_PARAMETERS allows (the error names `owner`'s
    field); None where the body is not on the kind."""
    body, name = parameter.split(".", 1)
    if body in getattr(ctx, "der_index", {}):
        kind, values = "rod", ctx.der_params[body]
    elif body in getattr(ctx, "der_shell_index", {}):
        kind, values = ctx.der_shell_index[body].bending, ctx.der_shell_params[body]
    else:
        return None
    if name not in WAVE_PARAMETERS[kind]:
        raise ValueError(f"{owner}.parameter = {parameter!r} is not allowed on the unified "
                         f"engine: a {'discrete rod' if kind == 'rod' else kind + ' shell'}'s "
                         f"wave drives {WAVE_PARAMETERS[kind]} there (the discrete engine, "
                         "engine='discrete', drives any per-world parameter)")
    return values[name]


class DerFixedNodes(Part):
    """The node coordinates and twist angles held by sm.FixNodes on discrete rods, at their
    values when the engine is built (the initial state)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod, node indices, axes (0-2), edge indices)
        self.planar = False     # whether sm.Planar has added its entries

    def hold(self, rod, nodes, axes, angles):
        self.entries.append((rod, np.asarray(nodes, np.int64), list(axes),
                             np.asarray(angles, np.int64)))

    def calls(self, engine):
        slots, lanes = engine.der_slots, engine.lanes
        initial = engine.der_initial
        slot, comp, edge = [], [], []
        for rod, nodes, axes, angles in self.entries:
            for i in nodes:
                for c in axes:
                    slot.append(slots.nodes[rod.name][i])
                    comp.append(c)
            if angles.size:         # (a shell of the kind has no angles)
                edge.extend(slots.edge[rod.name] + angles)
        slot, comp, edge = (np.array(v, dtype=np.int64) for v in (slot, comp, edge))
        W = lanes.W
        x, th = initial["der_x"], initial["der_theta"]       # (n_blocks, c, n*W)
        lane = np.arange(W)
        value = x[:, comp[:, None], slot[:, None] * W + lane] if slot.size else \
            np.zeros((lanes.n_blocks, 0, W))
        angle = th[:, 0][:, edge[:, None] * W + lane] if edge.size else \
            np.zeros((lanes.n_blocks, 0, W))
        args = engine.args(DerFixArgs, fix_slot=slot, fix_comp=comp, fix_value=value,
                           fix_edge=edge, fix_angle=angle)
        return [Call("positions", 0, der_fix_positions, args, "der_fix_positions",
                     couplings=Couplings.none(DER_MOTION)),
                Call("rates", 0, der_fix_rates, args, "der_fix_rates",
                     couplings=Couplings.none(DER_MOTION))]
