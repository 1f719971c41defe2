"""ImplicitSimulation: B worlds of a scene of discrete rods and shells, advanced by implicit
Euler (softmech.implicit.newton), with the explicit Simulation's run / record / state API.

Worlds are independent: each is stepped by its own Newton iterations (and halves its own
step when Newton fails), so a batched run equals B single runs bit for bit; all worlds meet
at every step of size dt, where they are recorded.
"""
import dataclasses
from functools import partial

import numpy as np

from softmech import _checks, run_loop
from softmech.diagnostics import ENERGY_KEYS
from softmech.implicit.binding import ImplicitContext
from softmech.implicit.layout import DofLayout
from softmech.implicit.near_null import RigidModes
from softmech.implicit.newton import ImplicitStepper, NewtonFailed, NewtonOptions
from softmech.implicit.worlds import WorldSteps
from softmech.kernels.newton import OK
from softmech.params import Params
from softmech.io import atomic_save_npz, read_state_npz
from softmech.run_loop import EXPLODING, SimulationDiverged
from softmech.terms.base import TERM_SECTIONS

STATE_FIELDS = ("positions", "velocities", "angles", "angular_velocities")
"""State of an implicit body: node positions [m] and velocities [m/s] (B, n_nodes, 3); its
scalar DOFs (edge twist or mid-edge angles) [rad] and their rates [rad/s] (B, n_scalars)."""
RECORD_FIELDS = STATE_FIELDS + ("com", "com_velocity") + ENERGY_KEYS + ("total_energy",)
"""Fields an ImplicitSimulation records: the state, the centre of mass and its velocity, and
the energies of softmech.diagnostics (kinetic: translational = nodes, rotational = scalar DOFs;
elastic: from the body's bindings' energy_parts)."""


class ParameterTable(Params):
    """Per-world parameters {"<owner>.<name>": array (B, ...)}. Assigning a value writes it
    into the existing array (broadcast to B rows), so that the compiled bindings, which hold
    these arrays, see it; the shape and finiteness are checked. Renamed fields' old keys
    (softmech.params.RENAMED_FIELDS, e.g. `<name>.friction`) are read and written with a
    DeprecationWarning."""

    def _store(self, key, value):
        if key not in self:
            raise KeyError(f"sim.params has no parameter {key!r}; parameters: {sorted(self)}")
        target = dict.__getitem__(self, key)
        arr = _checks.finite(f"params[{key!r}]", value)
        try:
            target[...] = np.broadcast_to(arr, target.shape)
        except ValueError:
            raise ValueError(f"params[{key!r}] has shape {arr.shape}; expected {target.shape} "
                             f"or {target.shape[1:]} (one row per world or one for all)") from None


STATIC_REPEATS = 8
"""Static solves of solve_static at most, each from the last one's answer (a mid-edge shell's
frames: three reach round-off)."""


class ImplicitSimulation:
    """B worlds of a scene whose bodies are discrete rods and shells (Scene.add_der_rod,
    Scene.add_shell); built by Scene.compile(worlds=B, dt=...).

    dt [s]: the step (implicit: not limited by stiffness; a failing Newton halves it locally).
    options: softmech.implicit.newton.NewtonOptions. params: ParameterTable. scheme:
    "implicit_euler" or "symplectic_euler" (explicit, stable only below the stiffness limit;
    for comparisons with the same force terms).
    """

    def __init__(self, scene, *, worlds, dt, options=None, scheme="implicit_euler"):
        self.worlds = worlds
        self.dt = dt
        self.scheme = scheme
        self.bodies = {b.name: b for b in scene.implicit_bodies}
        # Forces are summed in binding order; a canonical order (by the scenario file's table
        # order, then as added) makes a scene and its scenario file sum them alike, bit for bit.
        rank = {section: i for i, section in enumerate(TERM_SECTIONS)}
        self.terms = sorted(scene.terms, key=lambda term: rank.get(term.section, len(rank)))
        layout = DofLayout()
        for body in scene.implicit_bodies:
            body.place(layout)
        for term in self.terms:
            place = getattr(term, "place_implicit", None)
            if place is not None:
                place(layout, self.bodies)
        self.layout = layout.finalize()
        params = ParameterTable()
        for owner in list(scene.implicit_bodies) + self.terms:
            for key, value in owner.parameters().items():
                value = np.asarray(value, dtype=float)
                dict.__setitem__(params, f"{owner.name}.{key}",
                                 np.repeat(value[:1], worlds, axis=0).copy())
        self.params = params
        ctx = ImplicitContext(self.layout, worlds, self.bodies, params, self.terms)
        bindings = []
        for body in scene.implicit_bodies:
            bindings += body.bind_implicit(ctx)
        for term in self.terms:
            bind = getattr(term, "bind_implicit", None)
            if bind is None:
                raise ValueError(f"term {term.name!r} ({type(term).__name__}) does not work with "
                                 "discrete rods and shells (the implicit integrator); terms that "
                                 "do have a bind_implicit method")
            bindings += bind(ctx)
        self.stepper = ImplicitStepper(bindings, self.layout.mass, options,
                                       rigid_modes=RigidModes.from_layout(self.layout))
        free_mass = self.layout.mass[self.stepper.free]
        if np.any(free_mass <= 0):
            dof = int(self.stepper.free[np.argmin(free_mass)])
            body, quantity = self._owner(dof)
            raise ValueError(f"body {body!r}: degree of freedom {dof} ({quantity}) has mass "
                             f"{self.layout.mass[dof]:g} kg and is not constrained: every free "
                             "DOF needs a positive mass (density, radius or thickness large "
                             "enough that it does not round to 0)")
        self._world_steps = WorldSteps(self.stepper, worlds)
        self.q = np.repeat(self.layout.q0[None], worlds, axis=0)
        self.v = np.zeros_like(self.q)
        self._origin, self._steps = 0.0, 0
        for b in range(worlds):
            self.stepper.apply_constraints(b, self.q[b], self.time)

    # -- clock and the bodies as the results files see them ---------------------------
    @property
    def time(self):
        """Simulated time [s]: time origin + steps taken x dt (exact on resume)."""
        return self._origin + self._steps * self.dt

    @time.setter
    def time(self, value):
        self._origin, self._steps = float(value), 0

    @property
    def clock(self):
        """(time origin [s], steps taken since): what restores `time` bit for bit."""
        return self._origin, self._steps

    @clock.setter
    def clock(self, value):
        self._origin, self._steps = float(value[0]), int(value[1])

    @property
    def rods(self):
        """The discrete rods that are single polylines (drawn as rods in results files)."""
        return [b for b in self.bodies.values() if getattr(b, "polyline", False)]

    @property
    def shells(self):
        """The bodies that are not polyline rods (shells, rod networks)."""
        return [b for b in self.bodies.values() if not getattr(b, "polyline", False)]

    @property
    def rigid_bodies(self):
        """None: an implicit scene has no rigid bodies (the explicit Simulation's attribute)."""
        return []

    def rod_params(self, name):
        """{"radius": (B, n_elems) [m]} of a discrete rod (results-file description)."""
        return {"radius": self._body(name).drawn_radius(self.worlds)}

    def history(self):
        """What the bindings keep between steps (reference frames) {key: (B, ...)}: saved in
        checkpoints so that a resumed run continues bit for bit."""
        return {k: v for k, v in self._restart_arrays().items() if k not in ("q", "v")}

    def set_history(self, arrays):
        """Restore history() from a checkpoint."""
        own = self.history()
        if set(own) != set(arrays):
            raise ValueError(f"checkpoint history {sorted(arrays)} does not match this scene's "
                             f"{sorted(own)}")
        for key, value in own.items():      # all checked before any is written
            arr = np.asarray(arrays[key])
            if arr.shape != value.shape or arr.dtype.kind not in "fiu" or not np.all(
                    np.isfinite(arr)):
                raise ValueError(f"checkpoint history {key!r} has shape {arr.shape} "
                                 f"{arr.dtype}, expected finite numbers of shape {value.shape}")
        for key, value in own.items():
            value[...] = arrays[key]

    # -- state ------------------------------------------------------------------------
    @property
    def newton_stats(self):
        """softmech.implicit.newton.NewtonStats of the runs so far (steps, iterations, ...)."""
        return self.stepper.stats

    def _body(self, name):
        name = getattr(name, "name", name)
        if name not in self.bodies:
            raise ValueError(f"body = {name!r} is not allowed: no discrete rod or shell of that "
                             f"name (bodies: {sorted(self.bodies)})")
        return self.bodies[name]

    def _scene_size(self):
        """Largest extent [m] of the nodes' initial positions (at least 1 mm)."""
        nodes = self.layout.q0[np.concatenate([self._dofs(b)[0].reshape(-1)
                                               for b in self.bodies.values()])].reshape(-1, 3)
        return max(float(np.max(np.ptp(nodes, axis=0))), 1e-3)

    def _owner(self, dof):
        """(body name, "positions" or "angles" and the index) of a DOF index into q; the
        first body where no DOF is known (NewtonFailed.dof None)."""
        for body in self.bodies.values():
            nd, sd = self._dofs(body)
            if dof is not None and np.any(nd == dof):
                return body.name, f"positions of node {int(np.argwhere(nd == dof)[0, 0])}"
            if dof is not None and np.any(sd == dof):
                return body.name, f"angles, entry {int(np.flatnonzero(sd == dof)[0])}"
        return next(iter(self.bodies)), "state"

    def _dofs(self, body):
        """(node DOFs (n_nodes, 3), scalar DOFs (n_scalars,)) of a body."""
        scalars = getattr(body, "scalars", None)
        scalars = np.zeros(0, np.int64) if scalars is None else scalars
        return self.layout.node_dof(body.nodes), self.layout.scalar_dof(scalars)

    def get_state(self, body, principal=False):
        """{"positions", "velocities": (B, n_nodes, 3); "angles", "angular_velocities":
        (B, n_scalars)} of one body (copies). `principal` is accepted for the explicit
        Simulation's signature and ignored (implicit bodies have no principal frame)."""
        nd, sd = self._dofs(self._body(body))
        return {"positions": self.q[:, nd].copy(), "velocities": self.v[:, nd].copy(),
                "angles": self.q[:, sd].copy(), "angular_velocities": self.v[:, sd].copy()}

    def set_state(self, body, principal=False, **fields):
        """Set fields of get_state (same shapes, or without the leading B) of one body."""
        nd, sd = self._dofs(self._body(body))
        for key, value in fields.items():
            if key not in STATE_FIELDS:
                raise ValueError(f"set_state: field {key!r} is not allowed: must be one of "
                                 f"{STATE_FIELDS}")
            dofs = nd if key in ("positions", "velocities") else sd
            target = self.q if key in ("positions", "angles") else self.v
            arr = _checks.finite(f"set_state {key}", value)
            try:
                target[:, dofs] = np.broadcast_to(arr, (self.worlds,) + dofs.shape)
            except ValueError:
                raise ValueError(f"set_state {key} has shape {arr.shape}; expected "
                                 f"{(self.worlds,) + dofs.shape}") from None

    def _restart_arrays(self):
        arrays = {"q": self.q, "v": self.v}
        for i, bd in enumerate(self.stepper.bindings):
            for key, value in bd.state().items():
                arrays[f"binding{i}.{key}"] = value
        return arrays

    def snapshot(self):
        """A copy of everything a restart needs (DOFs, the bindings' history such as the rods'
        reference frames, the clock), for `restore`: an optimizer's cached simulation starts
        every evaluation from it."""
        return {k: v.copy() for k, v in self._restart_arrays().items()}, self.clock

    def restore(self, snapshot):
        """Return to a `snapshot()` of this simulation (bit for bit)."""
        arrays, clock = snapshot
        for key, value in self._restart_arrays().items():
            value[...] = arrays[key]
        self.clock = clock

    _snapshot, _restore = snapshot, restore

    def save_state(self, path):
        """Write the clock, the DOFs and the bindings' history (reference frames) to .npz."""
        atomic_save_npz(path, time_origin=np.array(self._origin), steps=np.array(self._steps),
                        dt=np.array(self.dt), **self._restart_arrays())

    def load_state(self, path):
        """Restore a state written by save_state of the same scene (same B). Every member is
        checked before it is read (softmech.io.read_state_npz: present, a real finite number
        array of this scene's shape, a header that fits the file); nothing changes if one is
        not."""
        arrays = self._restart_arrays()
        expected = {k: v.shape for k, v in arrays.items()}
        expected.update({"time_origin": (), "steps": ()})
        data = read_state_npz(path, expected, optional={"dt": ()}, counts=("steps",))
        steps = data["steps"]
        if "dt" in data and not data["dt"] > 0:
            raise ValueError(f"{path}: member 'dt' = {data['dt'].tolist()!r} is not allowed: "
                             "must be > 0")
        for key, value in arrays.items():
            value[...] = data[key]
        if "dt" in data and float(data["dt"]) != self.dt:
            # another time step: the same time, not the same number of steps
            self.time = float(data["time_origin"]) + int(steps) * float(data["dt"])
        else:
            self.clock = (float(data["time_origin"]), int(steps))

    # -- stepping ---------------------------------------------------------------------
    def step(self, n_steps=1):
        """Advance every world by n_steps steps of dt."""
        n_steps = _checks.integer("n_steps", n_steps, 0)
        self._advance_steps(n_steps)

    def warm_up(self, record=None):
        """Compile (or load from numba's disk cache) the kernels the steps call -- the compiled
        Newton loop, or the bindings' kernels and the sparse solver of the Python loop -- which
        numba compiles at their first call, i.e. inside the first step: one step of every world
        from a snapshot(), then restore() (DOFs, the bindings' history, the clock) and the
        Newton counters as they were, so that the run that follows gives the same results bit
        for bit. A step that fails here is left for the run to meet and report. record: None,
        or the sm.Every of the run to come, whose fields are then computed once (the energies'
        kernels compile at their first sample). Returns what it compiled, in words (`softmech
        run` prints it)."""
        saved, counts = self.snapshot(), dataclasses.asdict(self.stepper.stats)
        try:
            if record is not None:
                self.run(0.0, record=record, allow_large=True)  # one sample
            self._advance_steps(1)
        except SimulationDiverged:
            pass
        finally:
            self.restore(saved)
            for key, value in counts.items():
                setattr(self.stepper.stats, key, value)
        n = len(self.stepper.bindings)
        if self.stepper.loop is not None and self.scheme == "implicit_euler":
            return f"the compiled Newton loop of {n} bindings"
        why = (self.stepper.loop_unavailable if self.scheme == "implicit_euler"
               else f"scheme {self.scheme}")
        return f"the kernels of {n} bindings (Python step loop: {why})"

    def _advance_steps(self, n_steps):
        """n_steps steps of every world. With the stepper's compiled loop (implicit Euler),
        the worlds run all of them together in one compiled call each, spread over worker
        threads (CompiledLoop.run_worlds); if any world's call stops (a step Newton did not
        converge in, an exploding state), every world returns to where the calls started and
        the steps are taken one by one (_advance), which halves the step or stops with the
        usual error. The results are the same either way (bit for bit), except in lockstep
        (NewtonOptions.lockstep), whose solve across worlds differs from the Python loop's
        LAPACK solve by round-off: a block redone in Python then gives the per-world
        loop's numbers."""
        stepper = self.stepper
        if stepper.loop is None or self.scheme != "implicit_euler" or n_steps < 1:
            for _ in range(n_steps):
                self._advance()
            return
        saved = self._snapshot()
        status, counts = stepper.loop.run_worlds(self.q, self.v, self._origin, self._steps,
                                                 self.dt, n_steps, EXPLODING)
        if np.any(status != OK):
            self._restore(saved)
            for _ in range(n_steps):
                self._advance()
            return
        stepper.add_counts(counts.sum(axis=0))
        self._steps += n_steps

    def _advance(self):
        """One step of every world, the worlds side by side on worker threads where the
        stepper allows it (softmech.implicit.worlds); the outcomes are then taken in world
        order, so the first world that failed stops the run, as when they stepped in turn."""
        saved = self._snapshot()
        method = "step" if self.scheme == "implicit_euler" else "explicit_step"
        outcomes = self._world_steps.step(method, self.q, self.v, self.time, self.dt)
        for b in range(self.worlds):
            err = outcomes[b]
            if isinstance(err, NewtonFailed):
                raise self._stopped(
                    saved, b, err.dof, "implicit step", "failed", f"{err}",
                    f"try a smaller dt (e.g. dt <= {self.dt / 4:.3g} s, current {self.dt:g} s), "
                    "more Newton iterations, or check the scene (interpenetration, an "
                    "unconstrained body)") from None
            if isinstance(err, Exception):
                raise err
            q, v = outcomes[b]
            if self.scheme != "implicit_euler" and not np.max(np.abs(q - self.q[b])) <= \
                    STEP_JUMP * self._scene_size():
                # the explicit scheme's instability: an oscillation that grows by a factor each
                # step; stopped while the kept state is still near the physical one
                worst = int(np.argmax(np.nan_to_num(np.abs(q - self.q[b]), nan=np.inf)))
                raise self._stopped(
                    saved, b, worst, "symplectic Euler step", "diverged",
                    f"exploding state (it moved by more than {STEP_JUMP:g} x the scene's size "
                    f"{self._scene_size():.3g} m in one step)",
                    f"use a smaller dt (e.g. dt <= {self.dt / 4:.3g} s, current {self.dt:g} s) "
                    "or scheme 'implicit_euler'")
            if not (np.max(np.abs(q)) <= EXPLODING and np.max(np.abs(v)) <= EXPLODING):
                worst = int(np.argmax(np.maximum(np.nan_to_num(np.abs(q), nan=np.inf),
                                                 np.nan_to_num(np.abs(v), nan=np.inf))))
                raise self._stopped(
                    saved, b, worst, "step", "diverged",
                    f"exploding state (|value| > {EXPLODING:g} in SI units)",
                    f"try a smaller dt (e.g. dt <= {self.dt / 4:.3g} s, current {self.dt:g} s) "
                    "or check the loads")
            self.q[b], self.v[b] = q, v
        self._steps += 1

    def _stopped(self, saved, b, dof, what, how, reason, advice):
        """Back to the `saved` state; the SimulationDiverged of world b naming the body and
        quantity of DOF `dof`: "<what> from t = .. <how> in world b, body .. (..): <reason>.
        The state at t = .. is kept; <advice>"."""
        self._restore(saved)
        body, quantity = self._owner(dof)
        return SimulationDiverged(
            f"{what} from t = {self.time:.6g} s {how} in world {b}, body {body!r} ({quantity}): "
            f"{reason}. The state at t = {self.time:.6g} s is kept; {advice}", self.time,
            {name: self.get_state(name) for name in self.bodies}, worlds=(b,), body=body,
            quantity=quantity)

    def solve_static(self):
        """Replace every world's state by the equilibrium reached from it at the current time
        (velocities set to 0); raises SimulationDiverged (state kept) if it does not converge."""
        saved = self._snapshot()
        for b in range(self.worlds):
            try:
                self.q[b] = self.stepper.static(b, self.q[b], self.time, self.dt)
            except NewtonFailed as err:
                self._restore(saved)
                body, quantity = self._owner(err.dof)
                raise SimulationDiverged(f"static solve of world {b} failed, body {body!r} "
                                         f"({quantity}): {err}", self.time,
                                         {name: self.get_state(name) for name in self.bodies},
                                         worlds=(b,), body=body, quantity=quantity) from None
            self._settle_frames(b)
        self.v[...] = 0.0

    def _settle_frames(self, b):
        """Solve world b's statics again from its answer until it stays (at most
        STATIC_REPEATS times) if the scene has a mid-edge shell: its bending uses the edge
        frames of the shape Newton starts from (DisMech's), so one solve from a flat plate ends
        7.5e-6 of the sag short of the equilibrium of its own frames
        (tests/validation/test_static_solve_unified.py). A solve that cannot improve on the
        answer (Newton's relative target below round-off there) leaves it."""
        if not any(getattr(body, "bending", None) == "midedge" for body in self.bodies.values()):
            return
        for _ in range(STATIC_REPEATS):
            start, saved = self.q[b].copy(), self._snapshot()
            try:
                self.q[b] = self.stepper.static(b, self.q[b], self.time, self.dt)
            except NewtonFailed:
                self._restore(saved)        # (the bindings' frames too)
                return
            if np.max(np.abs(self.q[b] - start)) <= self.stepper.options.xtol:
                return

    def run(self, duration, *, record=None, progress=False, checkpoint=None, allow_large=False):
        """Advance by `duration` [s] (rounded to whole steps); returns Results.

        record: sm.Every(seconds, fields) with fields among RECORD_FIELDS, as
        "<body>.<field>" or a bare field (every body). checkpoint: .npz path where the last
        good state is written if a step fails. allow_large: run even above the budgets of
        softmech.run_cost (compute, memory of the recording), otherwise refused before the
        first step (softmech.run_loop)."""
        def prepare(fields):
            # the compiled loop runs a block per call; with a progress bar, at most a
            # hundredth of the run per block
            return run_loop.Stepper(
                advance=self._advance_steps,
                sample=partial(self._sample, fields=self._record_names(fields)),
                block=lambda n_total, with_bar: max(1, n_total // 100) if with_bar else n_total,
                rods=tuple(self.bodies))
        return run_loop.run(self, duration, record=record, progress=progress,
                            checkpoint=checkpoint, allow_large=allow_large, prepare=prepare)

    def _record_names(self, fields):
        names = []
        for f in fields:
            owner, base = f.split(".", 1) if "." in f else (None, f)
            if base not in RECORD_FIELDS:
                raise ValueError(f"Every.fields entry {f!r} is not allowed here: a scene of "
                                 f"discrete rods and shells records {RECORD_FIELDS}")
            owners = [self._body(owner).name] if owner else list(self.bodies)
            names += [(o, base) for o in owners]
        return names

    def _sample(self, samples, fields):
        samples["time"].append(self.time)
        energies = {}
        for owner, base in fields:
            if base in ("com", "com_velocity"):
                value = self._mean_of_nodes(owner, self.q if base == "com" else self.v)
            elif base in STATE_FIELDS:
                value = self.get_state(owner)[base]
            else:
                if owner not in energies:
                    energies[owner] = self.energies(owner)
                value = energies[owner][base]
            samples.setdefault(f"{owner}.{base}", []).append(value)

    def _mean_of_nodes(self, body, arr):
        """Mass-weighted mean over a body's nodes of arr (B, n_dof) at the node DOFs: (B, 3)."""
        nd, _ = self._dofs(self._body(body))
        m = self.layout.mass[nd[:, 0]]
        return np.einsum("n,bnk->bk", m, arr[:, nd]) / m.sum()

    def diagnostics(self, body):
        """The explicit Simulation.diagnostics of a discrete rod or shell, each (B, ...): the
        energies of `energies` [J], com [m], com_velocity [m/s], linear_momentum [kg m/s] and
        angular_momentum [kg m^2/s] about the origin of its nodes (point masses; a joined
        node's whole mass counts for each body that has it)."""
        out = self.energies(body)
        nd, _ = self._dofs(self._body(body))
        m = self.layout.mass[nd[:, 0]]
        x, v = self.q[:, nd], self.v[:, nd]
        out["com"] = self._mean_of_nodes(body, self.q)
        out["com_velocity"] = self._mean_of_nodes(body, self.v)
        out["linear_momentum"] = np.einsum("n,bnk->bk", m, v)
        out["angular_momentum"] = np.einsum("n,bnk->bk", m, np.cross(x, v))
        return out

    def energies(self, body):
        """{key: (B,)} [J] for every key of softmech.diagnostics.ENERGY_KEYS and total_energy of
        one body: translational = 1/2 sum m v^2 over its nodes, rotational = 1/2 sum I w^2 over
        its scalar DOFs, and the elastic energies its bindings report (energy_parts)."""
        body = self._body(body)
        nd, sd = self._dofs(body)
        out = {key: np.zeros(self.worlds) for key in ENERGY_KEYS}
        mass = self.layout.mass
        out["translational_energy"] = 0.5 * np.einsum("n,bnk->b", mass[nd[:, 0]], self.v[:, nd] ** 2)
        out["rotational_energy"] = 0.5 * np.einsum("s,bs->b", mass[sd], self.v[:, sd] ** 2)
        for bd in self.stepper.bindings:
            if getattr(bd, "body", None) != body.name:
                continue
            for b in range(self.worlds):
                for key, value in bd.energy_parts(b, self.q[b]).items():
                    out[key][b] += value
        out["total_energy"] = sum(out[key] for key in ENERGY_KEYS)
        return out


STEP_JUMP = 10.0
"""The explicit (symplectic Euler) scheme stops a step that moves a node by more than this many
times the scene's size: no stable step does that, an unstable one soon overflows."""


def compile_implicit(scene, *, worlds, dt, newton=None, scheme="implicit_euler"):
    """The ImplicitSimulation of a scene (called by Scene.compile)."""
    if scene.rods or scene.rigid_bodies:
        raise ValueError("a scene with discrete rods or shells cannot also hold Cosserat rods or "
                         "rigid bodies yet (they are integrated explicitly): build them in "
                         "separate scenes")
    if newton is not None and not isinstance(newton, NewtonOptions):
        raise ValueError(f"newton = {newton!r} is not allowed: must be "
                         "softmech.implicit.newton.NewtonOptions or None")
    return ImplicitSimulation(scene, worlds=worlds, dt=dt, options=newton, scheme=scheme)
