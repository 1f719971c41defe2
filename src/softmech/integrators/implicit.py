"""Implicit Euler for Cosserat rods and rigid bodies: the explicit engine's scenes stepped at time
steps set by their motion, not by their stiffest element.

The same force terms as the explicit integrators (the generated forces / positions / rates
hooks of softmech.integrators.driver) and the same inertia (each body kind's accelerations
kernel); only the time discretization differs. A step of size h solves, per world, for the end
velocities u (softmech.kernels.implicit_motion: x = x_n + h v, Q = exp(-h [w]x) Q_n,
R(u) = u - u_n - h a(x, Q, u, t_n + h) on free DOFs) by a modified Newton iteration
(Hairer and Wanner, Solving ODEs II, sec. IV.8; the strategy of stiff solvers such as
CVODE/LSODE):

- the Jacobian dR/du is computed by finite differences over a column coloring of its sparsity
  (Curtis, Powell and Reid 1974; softmech.integrators.sparse_pattern), one residual evaluation
  per color: every term's forces count, none needs a Jacobian of its own; a term that has one
  (the discrete rods' elasticity: softmech.integrators.analytic) gives its entries instead,
  renewed at every step, and leaves the coloring;
- it is factored (softmech.kernels.sparse_lu: fixed pattern, fill-reducing ordering) and kept
  over Newton iterations and steps, refreshed only when the iteration contracts slowly (rate
  above `refresh_rate`), after `max_age` steps, when the step size changes, or after a failure;
- a step that does not converge is redone as two half steps, recursively (`max_halvings`);
- the sparsity is probed once, column by column, at a perturbed copy of the initial state
  (every coupling the terms make there: elasticity, joints, muscles, fluid loads), and probed
  again, adding what is new, when a step fails even at the smallest step.

Worlds: a block's W lanes (softmech.packing.Lanes) share the pattern and the evaluations; each
lane has its own Jacobian, convergence test and refresh decisions, so a batched run equals B
single runs bit for bit unless a step is halved (halving acts on the whole block).
"""
from collections import namedtuple
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from softmech import _checks
from softmech.integrators.analytic import analytic_entries, declared_couplings, node_blocks
from softmech.integrators.dof_layout import kind_array, kind_dofs
from softmech.integrators.driver import load_generated
from softmech.integrators.implicit_memory import IntegratorMemory
from softmech.integrators.implicit_source import CONSTRAIN, DIFFERENCES, implicit_source
from softmech.integrators.sparse_pattern import factor_pattern
from softmech.kernels.implicit_motion import ImplicitKindArgs
from softmech.kernels.sparse_lu import EIGHT, work_rows
from softmech.kernels.sparse_lu_eight import prepare_factor

IMPLICIT_SCHEMES = ("implicit_euler",)
"""Schemes of this integrator (softmech.simulation.Simulation; the explicit ones:
softmech.integrators.explicit.SCHEMES)."""

STATUS_NOT_CONVERGED, STATUS_SINGULAR = 3, 4
"""Block status codes beyond softmech.kernels.rod_motion's (0 ok, 1 non-finite, 2 rotation)."""

COUNTS = ("steps", "iterations", "evaluations", "jacobians", "halvings", "residuals")
"""Counters of each block (ImplicitIntegrator.stats; a block's lanes share its steps, solves
and evaluations, so each counts once per block): steps; iterations, the Newton corrections
(linear solves; for one world as the discrete engine's NewtonStats.iterations counts them);
evaluations of the residual, finite differences included; Jacobians factored; steps halved;
residuals, the evaluations at Newton's points (its iterates and line-search trials, the
discrete engine's NewtonStats.evaluations; until 2026-12-06 this engine reported these as its
iterations, docs/benchmarks.md)."""


@dataclass(frozen=True)
class ImplicitOptions:
    """Settings of the unified engine's implicit integrator (every body kind).

    tol: Newton stops when its correction moves no DOF by more than tol times its length scale
    (a node: its shortest element's rest length; a rigid body: its radius of gyration; a frame:
    1 rad) [-]. max_iterations: Newton corrections per solve (line-search trials not counted;
    25, the discrete engine's default: a frictional contact that has just started takes
    damped corrections that converge linearly, and 12 halved the built-in falling_rod's steps
    at its soft rod's first contacts until they failed at dt / 256); max_halvings of a failing
    step; max_age: steps a Jacobian is kept at most (the entries of analytic Jacobians,
    below, are renewed at every step: cheap, and inexact where the discrete rods' are, so
    kept over steps they let a stiff rod's step stop at 10^3 times its tolerance);
    refresh_rate: a Jacobian is recomputed
    when one iteration shrinks the correction by less than this factor [-]; delta: relative
    finite-difference step [-]. overdamped: drop the inertia, so each step solves the force
    balance at its end (x = x_n + h v with F(x, v) = 0: Stokes flow, where the viscous drag
    balances every other force and the Reynolds number is ~0; the state's velocities are then
    those of that balance). It needs a term that resists every motion (a drag or damping on
    every DOF), else the force balance is singular. corotate: apply a kept Jacobian in the axes
    of the current configuration, turned by the rotations of the frames since its factorization
    (softmech.kernels.corotation), so that it stays accurate while stiff bodies turn (the
    Cosserat swimmer: renewed at ~0.1 of the steps instead of ~0.7). predictor: order of the
    extrapolation of each step's Newton guess from the last steps' end velocities (0: none,
    1: linear, 2: quadratic; softmech.kernels.implicit_newton.predict). predictor_guard: a
    world whose last step had a trial point rejected by Newton's line search (its velocities
    crossed a kink of the forces: a contact starting, friction switching between sticking and
    sliding) starts its next step from its velocities, not extrapolated past the kink
    (softmech.kernels.implicit_newton.mark_rough; the built-in falling_rod: 2.88 Newton
    iterations per step instead of 3.28, docs/implicit_cosserat.md). analytic: take the
    Newton matrix's entries of the terms that have an analytic Jacobian (the discrete rods'
    elasticity) from it, the rest by finite differences (softmech.integrators.analytic);
    False: every term by finite differences. solve_precision: "double" (the default), or
    "single": the solves read the factor rounded to single precision and compute in double
    (softmech.kernels.sparse_lu.single_factor), for batches of large factors: half the bytes
    that eight worlds' solves stream from memory (the 1,032-triangle plate's 16 worlds 21 %
    faster on 2026-12-06 evening, 0.227 against 0.288 s; the manta's 6 %), at the same Newton
    iterations on the built-in implicit scenes, but one world's solve, which reads its factor
    from the caches, slower (the plate's single world 3 % that evening, 5-10 % before; the
    Cosserat swimmer's 7-24 % at 500 steps per beat), and less margin where
    Newton barely converges (a contact without its Jacobian entries, which crawls in double,
    diverged at dt / 256: tests/unit/test_implicit_contact_pattern.py's `without`);
    docs/benchmarks.md."""
    tol: float = 1e-8
    max_iterations: int = 25
    max_halvings: int = 8
    max_age: int = 50
    refresh_rate: float = 0.25
    delta: float = 1e-7
    overdamped: bool = False
    corotate: bool = False
    predictor: int = 1
    predictor_guard: bool = True
    analytic: bool = True
    solve_precision: str = "double"

    @property
    def single_solves(self):
        """Whether the solves read the factor's single-precision copy (solve_precision)."""
        return self.solve_precision == "single"

    def __post_init__(self):
        _checks.positive("ImplicitOptions.tol", self.tol)
        _checks.boolean("ImplicitOptions.overdamped", self.overdamped)
        _checks.boolean("ImplicitOptions.corotate", self.corotate)
        _checks.boolean("ImplicitOptions.analytic", self.analytic)
        _checks.boolean("ImplicitOptions.predictor_guard", self.predictor_guard)
        _checks.choice("ImplicitOptions.solve_precision", self.solve_precision,
                       ("single", "double"))
        _checks.integer("ImplicitOptions.predictor", self.predictor, 0)
        if self.predictor > 2:
            raise ValueError(f"ImplicitOptions.predictor = {self.predictor!r} is not allowed: "
                             "must be 0, 1 or 2")
        _checks.integer("ImplicitOptions.max_iterations", self.max_iterations, 1)
        _checks.integer("ImplicitOptions.max_halvings", self.max_halvings, 0)
        _checks.integer("ImplicitOptions.max_age", self.max_age, 1)
        if not 0 < self.refresh_rate < 1:
            raise ValueError(f"ImplicitOptions.refresh_rate = {self.refresh_rate!r} is not "
                             "allowed: must be in (0, 1)")
        if not 1e-12 <= self.delta <= 1e-3:
            raise ValueError(f"ImplicitOptions.delta = {self.delta!r} is not allowed: must be "
                             "in [1e-12, 1e-3]")


SolverArgs = namedtuple("SolverArgs", [
    "U", "Up", "R", "Rp", "dU", "U_watch", "dU_watch", "U_old", "U_old2", "eps", "b",
    "work",                   # (nb, work_rows(n_dof, W), W) (softmech.kernels.sparse_lu)
    "values",                                            # factor values (n_blocks, nnz, W)
    "single",        # (n_blocks, nnz, W) float32: the factor as the solves read it (sparse_lu;
                     # nnz 0 with ImplicitOptions.solve_precision "double")
    "lptr", "uptr", "rows", "perm",                      # factor pattern (sparse_pattern)
    "color_ptr", "color_dofs",                           # DOFs of each color (CSR)
    "col_ptr", "col_entries", "coupling_rows", "entry_pos",   # couplings of each column
    "refresh", "fresh", "active", "age", "backtracks",   # per lane (n_blocks, W) int64
    "searching", "retry", "iterations", "watch", "exact_watch", "relaxed",
    "norm", "prev", "phi", "phi_watch",                  # per lane (n_blocks, W) float
    "factored_h",                                        # (n_blocks,) h of the factors [s]
    "Rfd",               # (n_blocks, n_dof, W) residual without the analytic terms' forces
    "analytic",          # tuple of AnalyticArgs (softmech.integrators.analytic)
    "fd_values",         # (n_blocks, n_entries, W) the last finite differences at their
                         # entries' positions entry_pos (kernels.analytic_jacobian)
    "partial", "fd_mask",  # (n_blocks, W) int64: renewing the analytic entries alone
    "renew_every",       # (1,) int64: 1 renews the analytic entries at every step's start
    "history",                               # (n_blocks,) int64: U_old, U_old2 valid (0-2)
    "rough",         # (n_blocks, W) int64: the lane's last step crossed a kink (mark_rough)
    "counts",                                            # (n_blocks, len(COUNTS)) int64
])
"""The Newton solver's arrays (one row per block)."""

class ImplicitIntegrator(IntegratorMemory):
    """Implicit Euler steps of an explicit engine's scene (softmech.packing.Engine): its state
    arrays advanced in place. Built by softmech.simulation.Simulation for scheme
    "implicit_euler"; `advance` runs the blocks on the simulation's thread pool."""

    def __init__(self, engine, lanes, options, dt, time):
        from softmech.kernels.der_motion import DER_MOTION
        from softmech.kernels.rigid_motion import RIGID_MOTION
        from softmech.kernels.rod_motion import ROD_MOTION

        self.engine, self.lanes, self.options = engine, lanes, options
        self._kept = None           # (couplings, buffers): keep() / restore_kept()
        nb, W = lanes.n_blocks, lanes.W
        s, ws = engine.state, engine.workspace
        kinds, offset = [], 0
        self._rod_kind = self._rigid_kind = None
        for kind, _ in engine.kinds:
            if kind is DER_MOTION:
                if options.corotate:
                    raise ValueError("ImplicitOptions.corotate = True is not allowed with discrete "
                                     "elastic rods (their DOFs are positions and twist angles: "
                                     "nothing to corotate)")
                kinds.append(self._der_kind(engine, lanes, offset, options))
                offset += kinds[-1].v.shape[2] * 3 // W + kinds[-1].w.shape[2] // W
                continue
            if kind is ROD_MOTION:
                arrays = (s.x, s.v, s.Q, s.w, ws.node_force, ws.elem_couple)
                inverse = (engine.bodies.node_inv_mass, engine.bodies.elem_inv_J)
                scale = self._rod_scales(engine, lanes)
                adjacent = self._rod_adjacency(engine)
            elif kind is RIGID_MOTION:
                arrays = (s.rb_x, s.rb_v, s.rb_Q, s.rb_w, ws.rb_force, ws.rb_torque)
                inverse = (engine.rigid.rb_inv_mass, engine.rigid.rb_inv_J)
                scale = self._rigid_scales(engine, lanes)
                adjacent = np.repeat(np.arange(s.rb_v.shape[2] // W), 2).reshape(-1, 2)
            else:                                   # pragma: no cover - a new body kind
                raise ValueError(f"body kind {kind!r} has no implicit form")
            if kind is ROD_MOTION:
                self._rod_kind = len(kinds)
            else:
                self._rigid_kind = len(kinds)
            x, v, Q, w, acc, alpha = arrays
            n_x, n_q = v.shape[2] // W, w.shape[2] // W
            kinds.append(ImplicitKindArgs(
                x=x, v=v, Q=Q, w=w, acc=acc, alpha=alpha,
                xb=np.zeros_like(x), Qb=np.zeros_like(Q), vb=np.zeros_like(v),
                wb=np.zeros_like(w), xs=np.zeros_like(x), Qs=np.zeros_like(Q),
                vs=np.zeros_like(v), ws=np.zeros_like(w), v_mask=np.ones_like(v),
                w_mask=np.ones_like(w), v_scale=scale, v_inv_mass=inverse[0],
                w_inv_inertia=inverse[1],
                offsets=np.array([offset, offset + 3 * n_x], dtype=np.int64),
                violations=np.zeros(nb, dtype=np.int64),
                inertia=np.array([0.0 if options.overdamped else 1.0]),
                Qf=np.zeros_like(Q), Rn=np.zeros((nb, 9, v.shape[2])), adjacent=adjacent))
            offset += 3 * (n_x + n_q)
        self.kinds = tuple(kinds)
        self.n_dof = offset
        self._calls = calls = engine.calls if options.analytic else [
            replace(c, jacobian=None) for c in engine.calls]
        # the eight-lane LU only where blocks of eight lanes exist, compiled before the module
        # that calls it (implicit_source's eight)
        eight = lanes.W == EIGHT
        if eight:
            prepare_factor(options.single_solves)
        self.module = load_generated(
            implicit_source(calls, engine.kinds, options.corotate, options.single_solves,
                            eight), "implicit")
        self.dt = dt
        self._probe_masks(time)
        self._analytic = analytic_entries(calls, engine.kinds, self.kinds, lanes.W, nb,
                                          self.n_dof)
        self.pattern = None
        self._couplings = (np.zeros(0, np.int64), np.zeros(0, np.int64))
        self._probe_pattern(time)

    # -- setup -----------------------------------------------------------------------
    @staticmethod
    def _der_kind(engine, lanes, offset, options):
        """DerImplicitArgs of the discrete rods (softmech.kernels.der_motion): their state, its
        base and saved copies, and each node's length scale (its shortest edge [m])."""
        from softmech.kernels.der_motion import DerImplicitArgs
        from softmech.packing import to_blocks

        s, ws, nb = engine.state, engine.workspace, lanes.n_blocks
        scale = np.full(engine.der_slots.n_nodes, np.inf)     # (a joined node: every rod's)
        for r in engine.der_rods + engine.ctx.der_shells:
            slot = engine.der_slots.nodes[r.name]
            pairs, lengths = (r.edge_nodes, r.rest_lengths) if r in engine.der_rods else \
                (r.edges, r.edge_length)
            np.minimum.at(scale, slot[pairs[:, 0]], lengths)
            np.minimum.at(scale, slot[pairs[:, 1]], lengths)
        n_x = scale.size
        like = lambda arrays: [np.zeros_like(a) for a in arrays]
        state = (s.der_x, s.der_v, s.der_theta, s.der_w, s.der_a1, s.der_tangent, s.der_ref)
        base = like(state)
        # the base positions and velocities in the workspace, where a term lagged on the last
        # accepted step reads them (the static excess of softmech.kernels.der_ground and
        # der_edge_contact); the flag says so
        base[0], base[1] = ws.der_x_base, ws.der_v_base
        ws.der_implicit[0] = 1
        return DerImplicitArgs(
            x=s.der_x, v=s.der_v, theta=s.der_theta, w=s.der_w, a1=s.der_a1,
            tangent=s.der_tangent, ref=s.der_ref, acc=ws.der_force, alpha=ws.der_torque,
            **dict(zip(("xb", "vb", "thb", "wb", "a1b", "tb", "refb"), base)),
            **dict(zip(("xs", "vs", "ths", "ws", "a1s", "ts", "refs"), like(state))),
            v_mask=np.ones_like(s.der_v), w_mask=np.ones_like(s.der_w),
            v_scale=to_blocks(np.broadcast_to(scale[None, :, None], (lanes.worlds, n_x, 3)),
                              lanes),
            v_inv_mass=engine.der.der_node_inv_mass,
            w_inv_inertia=engine.der.der_edge_inv_inertia,
            offsets=np.array([offset, offset + 3 * n_x], dtype=np.int64),
            violations=np.zeros(nb, dtype=np.int64),
            inertia=np.array([0.0 if options.overdamped else 1.0]))

    @staticmethod
    def _rod_adjacency(engine):
        """The element slots before and after each rod node slot, (n_node_slots, 2) int64
        (softmech.packing.Slots: an end node's one element twice; a closed rod wraps around,
        its ghost node slot taking node 0's)."""
        pairs = []
        e0 = 0
        for r in engine.rods:
            n = r.n_elems
            node = np.arange(n + 1)
            if r.closed:
                node[-1] = 0
                pair = np.stack([(node - 1) % n, node], axis=1)
            else:
                pair = np.stack([np.clip(node - 1, 0, n - 1), np.clip(node, 0, n - 1)], axis=1)
            pairs.append(e0 + pair)
            e0 += n + int(r.closed)
        return (np.concatenate(pairs) if pairs else np.zeros((0, 2))).astype(np.int64)

    @staticmethod
    def _rod_scales(engine, lanes):
        """Length scale of each rod node slot [m]: its shortest adjacent element (ghost slots:
        their source's), (n_blocks, 3, n_node_slots*W)."""
        from softmech.packing import Slots, to_blocks

        per_rod = []
        for r in engine.rods:
            lengths = np.asarray(r.rest_lengths, dtype=float)
            before = np.roll(lengths, 1) if r.closed else np.concatenate([lengths[:1], lengths])
            after = lengths if r.closed else np.concatenate([lengths, lengths[-1:]])
            node = np.minimum(before, after)[:r.n_elems + 1]
            per_rod.append(Slots.with_ghost(r, node[None])[0])
        scale = np.concatenate(per_rod) if per_rod else np.zeros(0)
        full = np.broadcast_to(scale[None, :, None], (lanes.worlds, scale.size, 3))
        return to_blocks(full, lanes)

    @staticmethod
    def _rigid_scales(engine, lanes):
        """Radius of gyration sqrt(J_max / m) of each rigid body [m], (n_blocks, 3, n_rb*W)."""
        from softmech.packing import to_blocks

        ctx = engine.ctx
        values = np.stack([np.sqrt(np.max(ctx.rigid_params[b.name]["inertia"], axis=-1)
                                   / ctx.rigid_params[b.name]["mass"])
                           for b in ctx.rigid_bodies], axis=1)          # (B, n_rb)
        return to_blocks(np.repeat(values[..., None], 3, axis=2), lanes)

    def _copy_states(self, bi, to_base=False, to_save=False, from_save=False):
        from softmech.kernels.implicit_motion import copy_state
        for a, (kind, _) in zip(self.kinds, self.engine.kinds):
            (kind.implicit_copy or copy_state)(a, bi, to_base, to_save, from_save)

    def _velocities(self, bi):
        """The current velocities of block bi as DOFs (n_dof, W)."""
        from softmech.kernels.implicit_motion import gather_kind
        U = np.zeros((self.n_dof, self.lanes.W))
        for a in self.kinds:
            gather_kind(a, bi, self.lanes.W, U)
        return U

    def _probe_masks(self, time):
        """Which DOFs the constraints hold: those whose velocity a probe of random velocities
        does not keep (checked on every block: per-world parameters may differ)."""
        W = self.lanes.W
        rng = np.random.default_rng(0)
        for bi in range(self.lanes.n_blocks):
            self._copy_states(bi, to_base=True, to_save=True)
            U = self._velocities(bi) + rng.uniform(0.5, 1.5, (self.n_dof, W))
            # the compiled evaluation's constraints alone, then the kinds' velocities gathered
            # from Python: a compiled probe doing both linked every constraint kernel into one
            # more function per scene (the residual's argument is not touched in this mode)
            self.module.evaluate(self.engine.T, self.kinds, bi, W, time + self.dt, self.dt, U,
                                 np.zeros_like(U), CONSTRAIN)
            free = (self._velocities(bi) == U).astype(float)
            for a in self.kinds:
                v_off, w_off = a.offsets
                n_x, n_q = a.v.shape[2] // W, a.w.shape[2] // W
                rows = a.w.shape[1]
                a.v_mask[bi] = kind_array(free[v_off:v_off + 3 * n_x], W)
                a.w_mask[bi] = kind_array(free[w_off:w_off + rows * n_q], W, rows)
            self._copy_states(bi, from_save=True)

    def _probe_pattern(self, time, bi=0):
        """Add the couplings dR_i/du_j != 0 found at a perturbed copy of block bi's state (lane
        0), column by column, to the known ones, and rebuild the factor pattern and the
        solver's arrays."""
        W, h = self.lanes.W, self.dt
        self._copy_states(bi, to_base=True, to_save=True)
        rng = np.random.default_rng(1)
        U0 = self._velocities(bi)
        scale = np.ones((self.n_dof, W))
        for a in self.kinds:
            v_off = a.offsets[0]
            n_x = a.v.shape[2] // W
            scale[v_off:v_off + 3 * n_x] = kind_dofs(a.v_scale[bi], W)
        # one draw per DOF, the same for every lane: lane 0's probed state, and with it the
        # pattern, do not depend on the block's width (a batch's pattern then equals its first
        # world's single run's: a coupling that vanishes at some states, e.g. a planar cell's
        # out-of-plane entries, was found at one width and missed at another)
        U0 = U0 + 1e-3 * scale / h * rng.uniform(-1.0, 1.0, (U0.shape[0], 1))
        R0, Rp = np.zeros_like(U0), np.zeros_like(U0)
        # (the analytic terms' couplings: not probed)
        evaluate = lambda *args: self.module.evaluate(*args, DIFFERENCES)
        T = self.engine.T
        rows, cols = [self._couplings[0]], [self._couplings[1]]
        # every call declares its couplings (shells, waves, constraints): no probe
        declared = declared_couplings(self._calls, self.engine.kinds, self.kinds, W,
                                      self.lanes.n_blocks, self.n_dof)
        if declared is not None:
            rows.append(declared[0])
            cols.append(declared[1])
        else:
            evaluate(T, self.kinds, bi, W, time + h, h, U0, R0)
            finite = np.isfinite(R0[:, 0])
        for j in range(self.n_dof if declared is None else 0):
            Up = U0.copy()
            Up[j, 0] += 1e-6 * max(abs(U0[j, 0]), scale[j, 0] / h)
            evaluate(T, self.kinds, bi, W, time + h, h, Up, Rp)
            # a non-finite residual (a diverging state) couples nothing: the step reports it
            changed = np.flatnonzero((Rp[:, 0] != R0[:, 0]) & finite)
            rows.append(changed)
            cols.append(np.full(changed.size, j, dtype=np.int64))
        self._copy_states(bi, from_save=True)
        near_rows, near_cols = self._proximity_couplings()
        # (where every call declares its couplings they are all known: no node blocks)
        node_rows, node_cols = node_blocks(self._calls, self.engine.kinds, self.kinds, W) \
            if self._analytic and declared is None else (near_rows[:0],) * 2
        self._couplings = (np.concatenate(rows + [near_rows, node_rows]).astype(np.int64),
                           np.concatenate(cols + [near_cols, node_cols]).astype(np.int64))
        self._build_pattern()

    def _build_pattern(self):
        """The factor pattern of the probed couplings (colored) and of the analytic terms'
        entries (not colored: softmech.integrators.analytic), and the solver's arrays."""
        extra = [a for _, a in self._analytic]
        self.pattern = factor_pattern(
            self.n_dof, *self._couplings,
            extra=(np.concatenate([a.rows for a in extra]), np.concatenate([a.cols for a in extra]))
            if extra else None)
        start = 0
        for a in extra:
            a.pos[:] = self.pattern.extra_pos[start:start + a.rows.size]
            start += a.rows.size
        self.solver = self._solver_arrays(self.pattern)

    def _proximity_couplings(self):
        """Couplings (rows, cols) of the rod elements and rigid bodies that the scene's contact
        calls may couple in any world (driver.Call.proximity: near each other, touching or
        not; the union over every block's lanes, since the worlds share one pattern and their
        geometry may differ): every velocity of a group's rod nodes, element frames and bodies
        (linear and angular) with every other. A probe of the forces sees a contact only while
        it touches; without these, a contact that starts later has no entries in the Jacobian,
        and Newton on a contact stiffer than the inertia (k h^2 > m) diverges: the walker's
        rings around their pillars, ~240 iterations and ~3 halvings per step, 3 iterations with
        them (docs/implicit_cosserat.md)."""
        lanes, empty = self.lanes, np.zeros(0, dtype=np.int64)
        calls = [c for c in self.engine.calls if c.proximity is not None]
        if self._rod_kind is None or not calls:
            return empty, empty
        rod_v, rod_w = self.kinds[self._rod_kind].offsets
        # (a call that names bodies exists only in a scene with them)
        body_v, body_w = (self.kinds[self._rigid_kind].offsets if self._rigid_kind is not None
                          else (0, 0))
        rows, cols = [empty], [empty]
        for c in calls:
            groups = []
            for world in range(lanes.worlds):
                near = c.proximity(c.args, world // lanes.W, world % lanes.W, lanes.W)
                groups.append(np.concatenate([rod_v + 3 * near.nodes, rod_w + 3 * near.elems,
                                              body_v + 3 * near.bodies, body_w + 3 * near.bodies],
                                             axis=1))
            dofs = np.unique(np.concatenate(groups), axis=0)                    # (m, slots)
            dofs = (dofs[:, :, None] + np.arange(3)).reshape(len(dofs), -1)     # (m, 3 slots)
            rows.append(np.repeat(dofs, dofs.shape[1], axis=1).ravel())
            cols.append(np.tile(dofs, (1, dofs.shape[1])).ravel())
        return np.concatenate(rows), np.concatenate(cols)

    def _solver_arrays(self, fp):
        nb, W, n = self.lanes.n_blocks, self.lanes.W, self.n_dof
        order = np.argsort(fp.color, kind="stable")
        color_ptr = np.zeros(fp.n_colors + 1, dtype=np.int64)
        np.add.at(color_ptr, fp.color + 1, 1)
        vec = lambda: np.zeros((nb, n, W))
        lane_ints = lambda: np.zeros((nb, W), dtype=np.int64)
        return SolverArgs(
            U=vec(), Up=vec(), R=vec(), Rp=vec(), dU=vec(), U_watch=vec(), dU_watch=vec(),
            U_old=vec(), U_old2=vec(), eps=vec(), b=vec(),
            work=np.zeros((nb, work_rows(n, W), W)),
            values=np.zeros((nb, fp.nnz, W)),
            single=np.zeros((nb, fp.nnz if self.options.single_solves else 0, W), np.float32),
            lptr=fp.lptr, uptr=fp.uptr, rows=fp.rows,
            perm=fp.perm, color_ptr=np.cumsum(color_ptr), color_dofs=order.astype(np.int64),
            col_ptr=fp.col_ptr, col_entries=fp.col_entries, coupling_rows=fp.coupling_rows,
            entry_pos=fp.entry_pos, refresh=np.ones((nb, W), dtype=np.int64),
            active=lane_ints(), age=lane_ints(), backtracks=lane_ints(), fresh=lane_ints(),
            searching=lane_ints(), retry=lane_ints(), iterations=lane_ints(),
            watch=lane_ints(), exact_watch=lane_ints(), relaxed=lane_ints(),
            history=np.zeros(nb, dtype=np.int64), rough=lane_ints(),
            norm=np.zeros((nb, W)), prev=np.zeros((nb, W)), phi=np.zeros((nb, W)),
            phi_watch=np.zeros((nb, W)),
            factored_h=np.full(nb, np.nan),
            counts=np.zeros((nb, len(COUNTS)), dtype=np.int64),
            Rfd=vec() if self._analytic else np.zeros((nb, 0, W)),
            analytic=tuple(a for _, a in self._analytic),
            fd_values=np.zeros((nb, fp.entry_pos.size if self._analytic else 0, W)),
            partial=lane_ints(), fd_mask=lane_ints(),
            renew_every=np.array([int(any(c.jacobian.every_step for c in self._calls
                                          if c.jacobian is not None))]))

    @contextmanager
    def renewing_every_step(self):
        """Within: every step renews the analytic Jacobian entries at its start (the static
        solve's pseudo steps, each far from the last; softmech.static_solve), whatever the
        terms declare (AnalyticJacobian.every_step)."""
        flag = self.solver.renew_every
        before = flag[0]
        flag[0] = 1
        try:
            yield
        finally:
            flag[0] = before

    # -- stepping --------------------------------------------------------------------
    @property
    def stats(self):
        """{counter: total over the blocks} (COUNTS) since the integrator was built."""
        totals = self.solver.counts.sum(axis=0)
        return {k: int(v) for k, v in zip(COUNTS, totals)}

    def advance(self, pool, t_origin, step0, dt, n_steps):
        """Advance every block by n_steps steps of dt (step i ends at t_origin + (i + 1) dt);
        returns the status of each block (n_blocks,) int64. A block whose Newton iterations
        fail even at the smallest step has its couplings probed again at the failing step's
        start (contact, a muscle switched on) and tries once more from there."""
        o = self.options
        status = np.zeros(self.lanes.n_blocks, dtype=np.int64)

        def run(bi, start, count):
            return self.module.implicit_block(
                self.engine.T, self.kinds, self.solver, bi, self.lanes.W, t_origin, start, dt,
                count, o.tol, o.max_iterations, o.max_halvings, o.delta, o.max_age,
                o.refresh_rate, o.corotate, o.predictor, o.predictor_guard)

        before = self.solver.counts[:, 0].copy()
        blocks = range(self.lanes.n_blocks)
        if self.lanes.n_blocks == 1:
            status[0] = run(0, step0, n_steps)
        else:
            status[:] = list(pool.map(lambda bi: run(bi, step0, n_steps), blocks))
        for bi in np.flatnonzero((status == STATUS_NOT_CONVERGED) | (status == STATUS_SINGULAR)):
            done = int(self.solver.counts[bi, 0] - before[bi])
            t = t_origin + (step0 + done) * dt
            counts = self.solver.counts.copy()
            self._probe_pattern(t - dt, bi)
            self.solver.counts[...] = counts
            status[bi] = run(bi, step0 + done, n_steps - done)
        return status
