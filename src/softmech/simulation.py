"""Simulation: B worlds of a compiled scene, the run loop, recorders and the divergence guard."""
import warnings
from concurrent.futures import wait
from functools import partial

import numpy as np

from softmech import _checks, run_cost, run_loop
from softmech.bodies.rigid_body import to_engine_frame, to_user_frame
from softmech.der_packing import (DerSlots, der_joins, der_networks, kind_get_state,
                                  kind_set_state)
from softmech.divergence import STATUS_EXPLODED, exploded_blocks, raise_diverged
from softmech.diagnostics import (ENERGY_KEYS, joint_energies, kind_diagnostics,
                                  rigid_diagnostics, rod_diagnostics, total_energy)
from softmech.function_schedules import sample_schedules, sampled_chunks
from softmech.integrators.driver import step_module
from softmech.integrators.explicit import SCHEME_TABLES, SCHEMES
from softmech.integrators.implicit import IMPLICIT_SCHEMES
from softmech.kernels.rod_motion import STATUS_OK
from softmech.packed_params import PackedParams
from softmech.params import Params
from softmech.packing import (Engine, Lanes, Slots, allocate_workspace, assemble_terms,
                              broadcast_worlds, from_blocks, pack_state, scene_parameters,
                              to_blocks)
from softmech.threads import block_pool
from softmech.run_loop import EXPLODING, SimulationDiverged  # noqa: F401 (re-exported)
from softmech.sampling import check_fields, sample_fields
from softmech.state_file import read_state, write_state
from softmech.recording import (DERIVED_FIELDS, IMPLICIT_FIELDS, PRINCIPAL,  # noqa: F401
                                ROD_FIELDS, STATE_FIELDS, Every, Results)
from softmech.stability import assembly_time_step_limit
from softmech.terms.contact import node_forces as contact_node_forces
from softmech.terms.surface_contact import node_forces as surface_node_forces


def _is_key(name, index):
    """Whether `name` is a key of dict `index` (False for an unhashable name, e.g. a list)."""
    try:
        return name in index
    except TypeError:
        return False


class Simulation:
    """B worlds of a scene. `params['<owner>.<field>']` are per-world parameters with a leading
    dimension of 1 (shared) or B; edit them in place or assign new arrays between runs."""

    def __init__(self, scene, *, worlds, dt, scheme, strict, n_threads=None, implicit=None,
                 der_rods=(), der_shells=()):
        self.rods = list(scene.rods)
        self.rigid_bodies = list(getattr(scene, "rigid_bodies", ()))
        self.der_rods = list(der_rods)
        """Discrete elastic rods stepped by this engine (Scene.compile(engine="unified"):
        softmech.der_packing, softmech.kernels.der_kind)."""
        self.der_shells = list(der_shells)
        """Discrete shells (hinge bending) stepped by it, nodes of the same kind
        (softmech.shell_packing)."""
        self.terms = list(scene.terms)
        self.worlds = worlds
        self.dt = dt
        self.scheme = scheme
        self.strict = strict
        self.implicit_options = implicit
        """softmech.integrators.implicit.ImplicitOptions of scheme "implicit_euler"."""
        self._implicit = None   # (engine, ImplicitIntegrator) of the current engine
        self._t0, self._steps = 0.0, 0
        self.lanes = Lanes.for_worlds(worlds, n_threads)
        self.params = Params(scene_parameters(self.rods + self.rigid_bodies + self.der_rods
                                              + self.der_shells, self.terms))
        self._known_params = frozenset(self.params)
        self._packed = PackedParams(self.params)
        self._index = {r.name: i for i, r in enumerate(self.rods)}
        self._rigid_index = {b.name: i for i, b in enumerate(self.rigid_bodies)}
        self._der_index = {r.name: r for r in self.der_rods + self.der_shells}
        self._slots = Slots(self.rods)
        kind_bodies = self._der_index.values()
        self._der_slots = DerSlots(self.der_rods, der_joins(self.terms, kind_bodies),
                                   self.der_shells, der_networks(self.terms, kind_bodies))
        self.workspace = allocate_workspace(self._slots, self.lanes, len(self.rigid_bodies),
                                            self._der_slots)
        initial = [{"positions": np.broadcast_to(r.positions, (worlds,) + r.positions.shape),
                    "velocities": np.broadcast_to(r.velocities, (worlds,) + r.velocities.shape),
                    "directors": np.broadcast_to(r.directors, (worlds,) + r.directors.shape),
                    "angular_velocities": np.broadcast_to(r.angular_velocities,
                                                          (worlds,) + r.angular_velocities.shape)}
                   for r in self.rods]
        rigid = [{k: np.broadcast_to(v, (worlds, 1) + np.shape(v)) for k, v in (
            ("positions", b.position), ("velocities", b.velocity), ("directors", b.directors),
            ("angular_velocities", b.angular_velocity))} for b in self.rigid_bodies]
        self._state = pack_state(self.rods, initial, self.lanes, self.rigid_bodies, rigid,
                                 der_rods=self.der_rods, der_slots=self._der_slots,
                                 der_shells=self.der_shells)
        self._histories = {}
        """The terms' history (softmech.packing.Engine.history), outliving each engine."""
        self.check_time_step(strict)

    @property
    def shells(self):
        """The shells of the discrete kind (results files describe them under /shells)."""
        return self.der_shells

    @property
    def time(self):
        """Simulated time [s] = start time + steps taken * dt (no accumulated round-off)."""
        return self._t0 + self._steps * self.dt

    @time.setter
    def time(self, value):
        self._t0, self._steps = float(value), 0

    @property
    def clock(self):
        """The exact clock (time origin [s], steps taken): time = origin + steps * dt. Saving and
        restoring it (with the state) continues a run bit for bit; setting `time` instead loses
        the step count and changes the round-off of later times."""
        return self._t0, self._steps

    @clock.setter
    def clock(self, value):
        origin, steps = value
        self._t0 = float(_checks.finite("clock time origin", origin, shape=()))
        self._steps = _checks.integer("clock steps", steps, 0)

    # ----------------------------------------------------------------- parameters and state
    def rod_params(self, name):
        """Parameters of rod `name` broadcast to (B, ...); a discrete rod's: {"radius" (B, m)}."""
        if name in self._der_index:
            der = self._der_index[name]
            return {"radius": der.drawn_radius(self.worlds)} if der.kind == "der_rod" else {}
        rod = self.rods[self._index[name]]
        return {k: broadcast_worlds(f"{name}.{k}", self.params[f"{name}.{k}"], self.worlds,
                                    v.shape[1:]) for k, v in rod.parameters().items()}

    def time_step_limit(self):
        """Estimated largest stable dt [s] per world, (B,) (see softmech.stability)."""
        return assembly_time_step_limit(self._engine().ctx)

    def check_time_step(self, strict=False):
        """The estimated stability limit [s]; warns (strict: raises) if dt is above it, and
        refuses a dt below run_cost.MIN_DT_FRACTION of it (any scheme) outright."""
        limit = float(self.time_step_limit().min())
        run_cost.check_time_step(self.dt, limit)
        if self.dt > limit and self.scheme not in IMPLICIT_SCHEMES:
            msg = (f"dt = {self.dt:g} s is above the estimated stability limit {limit:.3g} s of the "
                   f"explicit integrator; use dt <= {limit:.3g} s")
            if strict:
                raise ValueError(msg)
            warnings.warn(msg, RuntimeWarning, stacklevel=3)
        return limit

    def _rod_name(self, rod):
        """Name of a body (rod, rigid body or discrete rod) given by name or object; None for
        the only one."""
        indexes = (self._index, self._rigid_index, self._der_index)
        if rod is None:
            names = [name for index in indexes for name in index]
            if len(names) != 1:
                raise ValueError(f"rod = None is ambiguous: the scene has bodies {names}")
            return names[0]
        name = getattr(rod, "name", rod)
        # dict lookups, not a list of every body: called per body and sample (thousands of
        # rods: the wing)
        if not any(_is_key(name, index) for index in indexes):
            names = [name for index in indexes for name in index]
            raise ValueError(f"rod = {rod!r} is not allowed: no such body (bodies: {names})")
        return name

    def _der(self, name):
        """The discrete rod or shell called `name`, or None."""
        return self._der_index.get(name)

    def _der_get_state(self, name):
        return kind_get_state(self._state, self._der_slots, self.lanes, self._der_index[name])

    def _der_set_state(self, name, fields):
        kind_set_state(self._state, self._der_slots, self.lanes, self._der_index[name], fields)

    def _rigid(self, name):
        """The rigid body called `name`, or None if `name` is a rod."""
        i = self._rigid_index.get(name)
        return None if i is None else self.rigid_bodies[i]

    def _slices(self, name):
        """Engine slots of the rod's real nodes and elements (ghost slots excluded)."""
        r = self.rods[self._index[name]]
        n0, e0 = self._slots.node[name], self._slots.elem[name]
        return slice(n0, n0 + r.n_nodes), slice(e0, e0 + r.n_elems)

    def get_state(self, rod=None, *, principal=False):
        """Copy of the state of one rod: positions (B, n_nodes, 3) [m], velocities [m/s],
        directors (B, n, 3, 3), angular_velocities (B, n, 3) [rad/s, local frame]; of a rigid
        body: the same with n_nodes = n = 1 (centre of mass, the body's own frame; with
        principal=True its principal frame as the engine holds it, Q_p = P Q: exact, for
        checkpoints)."""
        name = self._rod_name(rod)
        if self._der(name) is not None:
            return self._der_get_state(name)
        s = self._state
        body = self._rigid(name)
        if body is not None:
            i = slice(self._rigid_index[name], self._rigid_index[name] + 1)
            Q = from_blocks(s.rb_Q, self.lanes, (3, 3))[:, i].copy()
            w = from_blocks(s.rb_w, self.lanes, (3,))[:, i].copy()
            if not principal:
                Q, w = to_user_frame(body, Q, w)
            return {"positions": from_blocks(s.rb_x, self.lanes, (3,))[:, i].copy(),
                    "velocities": from_blocks(s.rb_v, self.lanes, (3,))[:, i].copy(),
                    "directors": Q, "angular_velocities": w}
        ns, es = self._slices(name)
        return {"positions": from_blocks(s.x, self.lanes, (3,))[:, ns].copy(),
                "velocities": from_blocks(s.v, self.lanes, (3,))[:, ns].copy(),
                "directors": from_blocks(s.Q, self.lanes, (3, 3))[:, es].copy(),
                "angular_velocities": from_blocks(s.w, self.lanes, (3,))[:, es].copy()}

    def set_state(self, rod=None, *, principal=False, **fields):
        """Overwrite state fields of one rod; arrays of shape (n, ...) or (B, n, ...). A rigid
        body's directors and angular velocities are in its own frame, or with principal=True in
        its principal frame (as get_state(principal=True) returns them). The other bodies'
        states are kept exactly."""
        name = self._rod_name(rod)
        if self._der(name) is not None:
            self._der_set_state(name, fields)
            return
        body = self._rigid(name)
        rod_obj = body or self.rods[self._index[name]]
        shapes = {"positions": (rod_obj.n_nodes, 3), "velocities": (rod_obj.n_nodes, 3),
                  "directors": (rod_obj.n_elems, 3, 3), "angular_velocities": (rod_obj.n_elems, 3)}
        checked = {}
        for key, value in fields.items():
            if key not in shapes:
                raise ValueError(f"set_state field {key!r} is not allowed: must be one of {list(shapes)}")
            arr = _checks.finite(f"{name}.{key}", value)
            if arr.shape == shapes[key]:
                arr = np.broadcast_to(arr, (self.worlds,) + shapes[key])
            _checks.finite(f"{name}.{key}", arr, shape=(self.worlds,) + shapes[key])
            if key == "directors":
                _checks.orthonormal_frames(f"{name}.directors", arr)
            if body is not None and not principal and key == "directors":
                arr = to_engine_frame(body, arr, np.zeros(3))[0]
            elif body is not None and not principal and key == "angular_velocities":
                arr = to_engine_frame(body, np.eye(3), arr)[1]
            checked[key] = arr
        # write this body's slots only (ghost slots of a closed rod included): the other bodies
        # are untouched, and setting every body of a 10,000-rod scene stays linear in its size
        s = self._state
        if body is None:
            n0, e0 = self._slots.node[name], self._slots.elem[name]
            where = {"positions": (s.x, n0), "velocities": (s.v, n0), "directors": (s.Q, e0),
                     "angular_velocities": (s.w, e0)}
        else:
            k = self._rigid_index[name]
            where = {"positions": (s.rb_x, k), "velocities": (s.rb_v, k), "directors": (s.rb_Q, k),
                     "angular_velocities": (s.rb_w, k)}
        W = self.lanes.W
        for key, arr in checked.items():
            dst, start = where[key]
            blocks = to_blocks(arr if body is not None else Slots.with_ghost(rod_obj, arr), self.lanes)
            dst[..., start * W:start * W + blocks.shape[-1]] = blocks
        for history in self._histories.values():   # anchors of the old configuration: forget
            history[...] = 0.0                      # them (a contact starts sticking afresh)

    def snapshot(self):
        """A copy of everything a run continues from, for restore(): the state's arrays of
        every body kind and the terms' history (_snapshot), the clock, and with implicit Euler
        the integrator's memory (ImplicitIntegrator.memory: the predictor's last velocities,
        the kept factor, ...), None before its first step. An optimizer's cached simulation
        starts every evaluation from it (softmech.optimize.study), as from the discrete
        engine's (softmech.implicit.simulation.ImplicitSimulation.snapshot)."""
        self._engine()          # (the terms' histories exist once an engine was built)
        memory = None if self._implicit is None else self._implicit[1].memory()
        return self._snapshot(), self.clock, memory

    def restore(self, snapshot):
        """Return to a snapshot() of this simulation, bit for bit: the state, the terms'
        history, the clock and the implicit integrator's memory. A snapshot taken before the
        integrator's first step drops the integrator, so that the next step starts it afresh,
        as a new simulation's first step does (it probes the Newton matrix's pattern there)."""
        arrays, clock, memory = snapshot
        self._restore(arrays, memory)
        self.clock = clock
        if memory is None:
            self._implicit = None

    def _snapshot(self):
        """Copies of the state's arrays, then the terms' history (what _restore takes)."""
        return tuple(a.copy() for a in self._state) + tuple(
            a.copy() for a in self._histories.values())

    def _restore(self, arrays, memory=None):
        """Copy arrays into the state, then the terms' history, in place (the compiled step
        holds their arrays); memory: the implicit integrator's (ImplicitIntegrator.memory), or
        None to leave it."""
        for dst, src in zip(tuple(self._state) + tuple(self._histories.values()), arrays):
            dst[...] = src
        if memory is not None:
            self.implicit_integrator().restore_memory(memory)

    def diagnostics(self, rod=None):
        """Energies [J], com [m], momenta of one rod now, each (B, ...) (see softmech.diagnostics)."""
        name, engine = self._rod_name(rod), self._engine()
        if (der := self._der(name)) is not None:
            d = kind_diagnostics(der, engine.ctx, self.get_state(name))
            self._add_joint_energies(d, name, engine.ctx)
        elif (body := self._rigid(name)) is not None:
            d = rigid_diagnostics(body, engine.ctx.rigid_params[name], self.get_state(name))
        else:
            d = rod_diagnostics(self.rods[self._index[name]], engine.ctx.all_rod_params[name],
                                self.get_state(name), engine.ctx.discrete[name])
        d["total_energy"] = total_energy(d)
        return d

    def energies(self, rod=None):
        """{key: (B,)} [J] of one body now: diagnostics' energies (ENERGY_KEYS) and their
        total_energy (as softmech.implicit.simulation.ImplicitSimulation.energies)."""
        d = self.diagnostics(rod)
        return {k: d[k] for k in (*ENERGY_KEYS, "total_energy")}

    def _add_joint_energies(self, d, name, ctx):
        """Add the energies of the rod-shell joints on discrete rod `name` to its diagnostics d
        (softmech.diagnostics.joint_energies), as the discrete engine counts them."""
        nets = [n for n in self._der_slots.networks if n.rod_name == name]
        if not nets:
            return
        widths = {"der_x": (3,), "der_a1": (3,), "der_tangent": (3,)}
        kind = {k: from_blocks(getattr(self._state, k), self.lanes, widths.get(k, ()))
                for k in ("der_x", "der_theta", "der_w", "der_a1", "der_tangent", "der_ref")}
        for net in nets:
            for key, value in joint_energies(net, self._der_slots, ctx, kind).items():
                d[key] = d[key] + value

    def accelerations(self, rod=None):
        """(node accelerations (B, n+1, 3) [m/s^2], element angular accelerations (B, n, 3)) at
        the current state and time, without stepping; of a discrete rod, (node accelerations
        (B, N, 3), edge twist accelerations (B, m) [rad/s^2])."""
        name = self._rod_name(rod)
        self._evaluate(self._engine())
        der = self._der(name)
        if der is not None:     # (node accelerations (B, N, 3), twist accelerations (B, m))
            ws, slots = self.workspace, self._der_slots
            edges = slots.index("edge", der) if der.kind == "der_rod" else []
            return (from_blocks(ws.der_force, self.lanes, (3,))[:, slots.nodes[name]],
                    from_blocks(ws.der_torque, self.lanes, ())[:, edges])
        body = self._rigid(name)
        if body is not None:
            i = slice(self._rigid_index[name], self._rigid_index[name] + 1)
            acc = from_blocks(self.workspace.rb_force, self.lanes, (3,))[:, i].copy()
            return acc, from_blocks(self.workspace.rb_torque, self.lanes, (3,))[:, i] @ body.P
        ns, es = self._slices(name)
        return (from_blocks(self.workspace.node_force, self.lanes, (3,))[:, ns].copy(),
                from_blocks(self.workspace.elem_couple, self.lanes, (3,))[:, es].copy())

    def _evaluate(self, engine, leave_out=()):
        """Accelerations of the current state into the workspace, without the force terms named
        in leave_out (softmech.integrators.driver.Call.name): the force pass's kernels called
        one by one from Python (diagnostics: no per-scene compilation), then the inertia. The
        histories are restored afterwards: a force kernel may record in them what the next
        positions pass reads (softmech.kernels.rod_ground_sticking: each element's normal
        force), and a diagnostic must not change the run that follows it."""
        W, t = self.lanes.W, self.time
        kept = [(h, h.copy()) for h in self._histories.values()]
        for bi in range(self.lanes.n_blocks):
            for call in engine.calls:
                if call.stage == "forces" and call.name not in leave_out:
                    call.kernel(call.args, bi, W, t)
            for (kind, _), motion in zip(engine.kinds, engine.motions):
                kind.accelerations(motion.kick, bi, W)
        for history, copy in kept:
            history[...] = copy

    def contact_forces(self, rod=None):
        """Ground-contact force on each node of one rod [N], (B, n_nodes, 3): wall response plus
        kinetic and static friction, exactly as it enters the equations of motion, at the
        current state and time: an output of the contact kernels (their element forces of both
        passes, split between the nodes; softmech.terms.contact.node_forces; with surface=True
        the end spheres' forces, softmech.terms.surface_contact.node_forces) after one force
        evaluation."""
        name = self._rod_name(rod)
        engine = self._engine()
        self._evaluate(engine)
        ns, _ = self._slices(name)
        total = contact_node_forces(engine) + surface_node_forces(engine)
        return from_blocks(total, self.lanes, (3,))[:, ns]

    # ----------------------------------------------------------------------------- running
    def _check_params(self):
        """Every params key must name a known per-world parameter (no silently ignored typo)."""
        unknown = sorted(self.params.keys() - self._known_params)
        if unknown:
            raise ValueError(f"params key {unknown[0]!r} is not allowed: no such parameter "
                             f"(known: {sorted(self._known_params)})")

    def _engine(self):
        """The compiled scene's arrays (softmech.packing.Engine) for the current params, rebuilt
        only when a parameter changed (params may be edited in place, so the cache compares
        against copies)."""
        self._check_params()
        cached = getattr(self, "_engine_cache", None)
        if cached is not None and self._packed.unchanged(self.params, cached[0]):
            return self._sampled_now(cached[1])
        ctx = assemble_terms(self.rods, self.terms, self.params, self.worlds, self.rigid_bodies,
                             self.der_rods, self.der_shells)
        engine = Engine(self.rods, ctx, self.lanes, self._state, self.workspace,
                        self._histories)
        self._engine_cache = (self._packed.snapshot(self.params), engine)
        if cached is not None:  # parameters changed since the last run: stiffer may mean unstable
            self.check_time_step(self.strict)
        return self._sampled_now(engine)

    def _sampled_now(self, engine):
        """The engine, its function schedules sampled at the current time unless they were
        sampled at this clock (a force evaluation outside a step reads them there; a chunk's
        samples hold it too)."""
        if engine.sampled_clock != self.clock:
            sample_schedules(engine, [self.time], self.clock)
        return engine

    def _step(self, engine):
        """The generated step module of the engine's term set (softmech.integrators.driver)."""
        return step_module(engine.calls, engine.kinds)

    def step(self, n_steps):
        """Advance all worlds by n_steps steps of dt (no recording); raises SimulationDiverged."""
        n_steps = _checks.integer("n_steps", n_steps, 0)
        self._advance(self._engine(), n_steps)

    def warm_up(self, record=None):
        """Compile (or load from numba's disk cache) what stepping calls, without stepping: each
        scheme's step is one compiled function, which a call of zero steps compiles (the state
        and clock do not change). record: None, or the sm.Every of the run to come, whose fields
        are then computed once (their kernels, e.g. the energies', compile at their first
        sample). Returns what it compiled, in words (`softmech run` prints it)."""
        self.step(0)
        if record is not None:
            self.run(0.0, record=record, allow_large=True)  # one sample
        calls = [c.name for c in self._engine().calls]
        return f"the {self.scheme} step with {', '.join(calls)}"

    def solve_static(self):
        """Replace every world's state by the equilibrium reached from it at the current time
        (velocities set to 0), by pseudo-transient continuation with the implicit integrator
        (softmech.static_solve); raises SimulationDiverged (state kept) if it does not
        converge."""
        from softmech.static_solve import solve_static
        solve_static(self)

    def implicit_integrator(self):
        """The softmech.integrators.implicit.ImplicitIntegrator of the current parameters
        (scheme "implicit_euler"), built (sparsity probed) when they change."""
        engine = self._engine()
        if self._histories:     # its Newton iterations would move the anchors at trial states
            raise ValueError(f"scheme = {self.scheme!r} is not allowed with terms that keep a "
                             f"history ({sorted(self._histories)}: sm.StickingFriction): use "
                             "'verlet' or 'pefrl'")
        if self._implicit is None or self._implicit[0] is not engine:
            from softmech.integrators.implicit import ImplicitIntegrator, ImplicitOptions
            options = self.implicit_options or ImplicitOptions()
            for part in engine.ctx.parts.values():      # terms' limits of the FD Newton
                if hasattr(part, "check_implicit_step"):
                    part.check_implicit_step(self.dt, options)
            self._implicit = (engine, ImplicitIntegrator(engine, self.lanes, options, self.dt,
                                                         self.time))
        return self._implicit[1]

    def _advance(self, engine, n_steps):
        if not engine.sampled or n_steps == 0:
            self._advance_steps(engine, n_steps)
            return
        drifts = None if self.scheme in IMPLICIT_SCHEMES else SCHEME_TABLES[SCHEMES[self.scheme]][0]
        for _, n, times in sampled_chunks(self._t0, self._steps, self.dt, n_steps, drifts):
            sample_schedules(engine, times, self.clock)     # (they hold the current time too)
            self._advance_steps(engine, n)

    def _advance_steps(self, engine, n_steps):
        saved = self._snapshot()
        implicit = self.implicit_integrator() if self.scheme in IMPLICIT_SCHEMES else None
        # (the integrator's memory too: a failed step leaves NaN in its kept factor, and the
        # last good state, saved with it, must continue as the run would have)
        if implicit is not None:
            implicit.keep()
        try:
            if implicit is not None:
                status = implicit.advance(block_pool(), self._t0, self._steps, self.dt, n_steps)
            else:
                status = self._explicit_blocks(engine, n_steps)
        except ValueError:  # a kernel refused the state (softmech.kernels.rod_sticking.OVERFLOW)
            self._restore(saved)
            if implicit is not None:
                implicit.restore_kept()
            raise
        exploded = exploded_blocks(self)
        status[(status == STATUS_OK) & exploded] = STATUS_EXPLODED
        if np.any(status != STATUS_OK):
            if implicit is not None:
                implicit.restore_kept()
            raise_diverged(self, saved, n_steps, status)
        self._steps += n_steps

    def _explicit_blocks(self, engine, n_steps):
        """n_steps of the explicit scheme on every block; the blocks' status (n_blocks,)."""
        status = np.zeros(self.lanes.n_blocks, dtype=np.int64)
        drifts, kicks = SCHEME_TABLES[SCHEMES[self.scheme]]
        step = self._step(engine)
        run = partial(step.step_block, engine.T, W=self.lanes.W, t_origin=self._t0,
                      step0=self._steps, dt=self.dt, n_steps=n_steps, drifts=drifts, kicks=kicks)
        if self.lanes.n_blocks == 1:
            status[0] = run(0)
        else:  # one block per task; step_block releases the GIL; all end before any raises
            tasks = [block_pool().submit(run, bi) for bi in range(self.lanes.n_blocks)]
            wait(tasks)
            status[:] = [task.result() for task in tasks]
        return status

    def run(self, duration, *, record=None, progress=False, checkpoint=None, allow_large=False):
        """Advance by `duration` [s] (rounded to whole steps); returns Results.

        record: Every(seconds, fields) or None (only the final time). checkpoint: path of an
        .npz file where the last good state is written (atomically) if the run diverges.
        allow_large: run even above the budgets of softmech.run_cost (compute, memory of the
        recording), which are otherwise refused before the first step (softmech.run_loop).
        """
        def prepare(fields):
            engine = self._engine()
            check_fields(self, engine, fields)
            # Steps between divergence checks: on divergence the state of the last check is
            # kept, so it must not be too old; at >= ~1 us per step a check (~20 us) costs < 1 %.
            return run_loop.Stepper(advance=partial(self._advance, engine),
                                    sample=partial(sample_fields, self, fields=fields),
                                    block=lambda n_total, with_bar: GUARD_STEPS,
                                    rods=tuple(r.name for r in self.rods + self.der_rods),
                                    rigid_bodies=tuple(b.name for b in self.rigid_bodies))
        return run_loop.run(self, duration, record=record, progress=progress,
                            checkpoint=checkpoint, allow_large=allow_large, prepare=prepare)

    def _node_mass(self, name):
        """Node masses [kg] of one rod, (B, n_nodes), as packed in the rods' model."""
        ns, _ = self._slices(name)
        return from_blocks(self._engine().bodies.node_mass, self.lanes)[:, ns]

    def history(self):
        """What the terms and the integrator carry between steps, {key: array}: the terms'
        history, keys 'term.<key>' (B, n, rows) (softmech.packing.Engine.history: friction
        anchors), and for implicit Euler once it has stepped its memory (the predictor's last
        velocities, the kept Jacobian factor, the sparsity; ImplicitIntegrator.memory), keys
        'implicit.<name>'. Saved with the state (save_state, results-file checkpoints) so that a
        restart continues bit for bit."""
        self._engine()      # the terms' histories exist once an engine was built
        out = {f"{TERM_HISTORY}{k}": np.ascontiguousarray(
            from_blocks(v, self.lanes, (v.shape[1],))) for k, v in self._histories.items()}
        if self.scheme not in IMPLICIT_SCHEMES or self._implicit is None:
            return out
        out.update({f"implicit.{k}": v for k, v in self.implicit_integrator().memory().items()})
        return out

    def set_history(self, arrays):
        """Restore history() (after the bodies' states and the clock); {} leaves the
        integrator to start afresh, as it does at a run's first step, and the terms' history
        as it is. A term history of another shape or key raises ValueError."""
        if not arrays:
            return
        terms = {k[len(TERM_HISTORY):]: v for k, v in arrays.items() if k.startswith(TERM_HISTORY)}
        keys = {k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith("implicit.")}
        if len(keys) + len(terms) != len(arrays) or (keys and self.scheme not in IMPLICIT_SCHEMES):
            raise ValueError(f"saved integrator history {sorted(arrays)} does not fit scheme "
                             f"{self.scheme!r}")
        self._engine()
        for key, value in terms.items():
            dst = self._histories.get(key)
            n = None if dst is None else dst.shape[2] // self.lanes.W
            expected = None if dst is None else (self.worlds, n, dst.shape[1])
            if dst is None or np.shape(value) != expected:
                raise ValueError(f"saved history {TERM_HISTORY}{key} of shape {np.shape(value)} "
                                 f"does not fit this scene (expected {expected}; its histories: "
                                 f"{sorted(self._histories)})")
        for key, value in terms.items():
            self._histories[key][...] = to_blocks(np.asarray(value, dtype=float), self.lanes)
        if keys:
            self.implicit_integrator().restore_memory(keys)

    def save_state(self, path):
        """Write the clock, every body's state and the integrator's history() to an .npz file
        atomically: load_state continues the run bit for bit (softmech.state_file.write_state:
        `time` is kept too, for readers; a rigid body's frame both in its own frame and exactly
        as the engine holds it)."""
        write_state(self, path)

    def load_state(self, path):
        """Restore a state written by save_state. The clock continues bit for bit when the time
        step is the same; with another dt (or a file without a clock) the time is restored.
        Every member is checked before it is read (softmech.state_file.read_state); a file that
        is not a state of this scene is refused with a ValueError naming the member, and
        nothing of the simulation changes."""
        read_state(self, path)


TERM_HISTORY = "term."
"""Prefix of the terms' history in history() (and in state files)."""

GUARD_STEPS = 4096
"""Largest number of steps between two divergence checks of Simulation.run."""

