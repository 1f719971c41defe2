"""A study: a scenario, the parameters to search (by path, with bounds), the measured objectives,
the optimized one, its goal and penalties. It evaluates candidates as batched simulations.

    study = Study(scenario,
                  parameters=[Parameter("rods.snake.youngs_modulus", 1e6, 1e8, log=True),
                              Parameter("muscle.coefficients[1:5]", -50, 50)],
                  objectives={"speed": {"quantity": "com_speed", "axis": "x",
                                        "window": [2.0, 3.0]}})
    values = study.evaluate(params)        # params (k, n) -> {"speed": (k,)}
    fitness = study.fitness(values)        # (k,), larger is better (penalties subtracted)

One call of `evaluate` with k candidates is ONE simulation of k worlds (compiled once per k and
reused), unless a parameter is a construction field (paths.py): then each candidate's scene is
rebuilt from the scenario with its values and simulated alone. Each world's result does not
depend on its batch-mates or on how worlds are grouped into blocks (tests/unit/test_study.py
checks this bit for bit), so splitting a generation into chunks, locally or on Ray workers,
gives the same numbers.

A run starts from the scenario's initial state at t = 0 and lasts until the latest window end
(or `duration` [s]). If the batch diverges, its candidates are run again one by one and only the
ones that diverge get NaN.
"""
import copy
import dataclasses
import math
import tomllib
import uuid
from dataclasses import dataclass

import numpy as np

from softmech import _checks
from softmech.optimize.paths import path_unit, resolve_path, substitute, write_world_values
from softmech.optimize.quantities import make_quantity, sample
from softmech.progress import progress_bar
from softmech.scenefile.document import read_document
from softmech.scenefile.toml_text import dumps as toml_dumps
from softmech.scenefile.writer import dumps

GOALS = ("maximize", "minimize")
STEP_CHUNK = 4096
"""Steps per compiled call between samples (a run's result does not depend on the split)."""


@dataclass
class Parameter:
    """One searched path (paths.py) with bounds lower < upper [the field's units], scalars or
    one per selected entry; log: search log(value) (needs lower > 0); initial: start value(s)
    (default: the box centre, geometric with log); names: one per search dimension (default
    'path[i]')."""
    path: str
    lower: object
    upper: object
    log: bool = False
    initial: object = None
    names: tuple = None


def parameter_from_table(i, table):
    """Parameter of one [[optimize.parameters]] table; ValueError naming the field."""
    where = f"parameters[{i}]"
    if not isinstance(table, dict):
        raise ValueError(f"{where} must be a table with path, lower and upper")
    allowed = ("path", "lower", "upper", "log", "initial", "names")
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r} (allowed: {', '.join(allowed)})")
    for key in ("path", "lower", "upper"):
        if key not in table:
            raise ValueError(f"{where}.{key} is missing")
    if not isinstance(table.get("log", False), bool):
        raise ValueError(f"{where}.log = {table['log']!r} is not allowed: must be true or false")
    names = table.get("names")
    return Parameter(table["path"], table["lower"], table["upper"], table.get("log", False),
                     table.get("initial"), None if names is None else tuple(names))


class Study:
    """See the module docstring. scenario: a softmech.scenefile.Scenario; parameters: list of
    Parameter; objectives: {name: quantity table (quantities.py) or callable(sim) -> (B,)
    evaluated at the end of the run}; objective: the optimized name (default: the only one);
    goal: "maximize" or "minimize"; constraints: list of {objective, min and/or max, weight}
    (fitness -= weight * violation); fixed: {path: value} written into every candidate;
    duration [s]: at least the latest window end (required if only callables)."""

    def __init__(self, scenario, parameters, objectives, *, objective=None, goal="maximize",
                 constraints=(), fixed=None, duration=None):
        self.doc = tomllib.loads(dumps(dataclasses.replace(scenario, optimize=None)))
        self.source = scenario.source
        self.scenario = scenario
        self.uid = uuid.uuid4().hex          # workers cache compiled simulations under it
        # the bodies objectives may name, and whose per-world parameters may be searched:
        # rods, and the discrete rods and shells (e.g. "<der rod>.youngs_modulus")
        bodies = list(scenario.scene.rods) + list(scenario.scene.implicit_bodies)
        rods = {r.name: r for r in bodies}
        params0 = {f"{o.name}.{k}": v for o in bodies + list(scenario.scene.terms)
                   for k, v in o.parameters().items()}
        self.parameters = list(parameters)
        if not self.parameters:
            raise ValueError("parameters = [] is not allowed: name at least one parameter path")
        self.paths, names, lower, upper, log, initial, given = [], [], [], [], [], [], []
        for i, p in enumerate(self.parameters):
            path = resolve_path(p.path, params0, self.doc, field=f"parameters[{i}].path")
            self.paths.append(path)
            n = path.size
            lo = np.broadcast_to(_checks.finite(f"parameters[{i}].lower", p.lower), (n,))
            hi = np.broadcast_to(_checks.finite(f"parameters[{i}].upper", p.upper), (n,))
            if np.any(hi <= lo):
                raise ValueError(f"parameters[{i}] ({p.path}): lower = {lo.tolist()}, upper = "
                                 f"{hi.tolist()} is not allowed: the bounds are empty (need "
                                 "lower < upper)")
            if p.log and np.any(lo <= 0):
                raise ValueError(f"parameters[{i}] ({p.path}).lower = {lo.tolist()} is not "
                                 "allowed with log = true: must be > 0")
            x0 = (np.sqrt(lo * hi) if p.log else 0.5 * (lo + hi)) if p.initial is None else \
                np.broadcast_to(_checks.finite(f"parameters[{i}].initial", p.initial), (n,))
            if np.any(x0 < lo) or np.any(x0 > hi):
                raise ValueError(f"parameters[{i}] ({p.path}).initial = {x0.tolist()} is not "
                                 f"allowed: must lie in [lower, upper]")
            dim_names = path.dimension_names() if p.names is None else tuple(map(str, p.names))
            if len(dim_names) != n:
                raise ValueError(f"parameters[{i}].names = {list(dim_names)} is not allowed: "
                                 f"the path has {n} dimension(s)")
            names += dim_names
            lower += lo.tolist()
            upper += hi.tolist()
            log += [bool(p.log)] * n
            initial += x0.tolist()
            given += [p.initial is not None] * n
        if len(set(names)) != len(names):
            raise ValueError(f"parameters: the dimension names {names} are not distinct")
        self.names, self.log = tuple(names), np.array(log)
        self.lower, self.upper, self.initial = np.array(lower), np.array(upper), np.array(initial)
        self.initial_given = np.array(given)      # False: the box centre (exactly 0.5 unit)
        self.fixed = [(resolve_path(k, params0, self.doc, field=f"fixed[{k!r}]"),
                       np.atleast_1d(_checks.finite(f"fixed[{k!r}]", v)).astype(float))
                      for k, v in (fixed or {}).items()]
        for path, value in self.fixed:
            if value.size not in (1, path.size):
                raise ValueError(f"fixed[{path.text!r}] = {value.tolist()} is not allowed: "
                                 f"give 1 or {path.size} values")
        self.rebuild = any(p.kind == "build" for p in self.paths + [f[0] for f in self.fixed])
        self._set_objectives(objectives, objective, goal, constraints, rods, duration,
                             scenario.scene.terms)
        self._sims = {}

    def _set_objectives(self, objectives, objective, goal, constraints, rods, duration, terms):
        if not isinstance(objectives, dict) or not objectives:
            raise ValueError("objectives is missing or empty: name at least one measured "
                             "quantity ([optimize.objectives.NAME] with quantity = ...)")
        self.objective_tables = {k: (v if callable(v) else dict(v)) for k, v in objectives.items()}
        self.quantities = {k: make_quantity(k, v, rods, terms) for k, v in objectives.items()
                           if not callable(v)}
        self.callables = {k: v for k, v in objectives.items() if callable(v)}
        if objective is None:
            if len(objectives) != 1:
                raise ValueError(f"objective is missing: name the optimized one of "
                                 f"{sorted(objectives)}")
            objective = next(iter(objectives))
        if objective not in objectives:
            raise ValueError(f"objective = {objective!r} is not allowed: no such objective "
                             f"(objectives: {sorted(objectives)})")
        self.objective = objective
        self.goal = _checks.choice("goal", goal, GOALS)
        self.constraints = [self._constraint(i, c, objectives) for i, c in enumerate(constraints)]
        ends = [q.window[1] for q in self.quantities.values()]
        if duration is None and not ends:
            raise ValueError("duration is missing: callable objectives need the run's duration")
        self.duration = max(ends) if duration is None else float(
            _checks.positive("duration", duration))
        if ends and self.duration < max(ends):
            raise ValueError(f"duration = {self.duration:g} is not allowed: must be >= the "
                             f"latest window end {max(ends):g} s")

    @staticmethod
    def _constraint(i, c, objectives):
        where = f"constraints[{i}]"
        unknown = sorted(set(c) - {"objective", "min", "max", "weight"})
        if unknown:
            raise ValueError(f"{where}: unknown field {unknown[0]!r} (allowed: objective, min, "
                             "max, weight)")
        if c.get("objective") not in objectives:
            raise ValueError(f"{where}.objective = {c.get('objective')!r} is not allowed: no such "
                             f"objective (objectives: {sorted(objectives)})")
        if "min" not in c and "max" not in c:
            raise ValueError(f"{where}: give min and/or max")
        out = {"objective": c["objective"],
               "weight": float(_checks.positive(f"{where}.weight", c.get("weight", 1.0)))}
        for key in ("min", "max"):
            if key in c:
                out[key] = float(_checks.finite(f"{where}.{key}", c[key]))
        return out

    # ------------------------------------------------------------------------- description
    def meta(self):
        """JSON description of everything that defines the values (campaign log header)."""
        return {"scenario": toml_dumps(self.doc), "names": list(self.names),
                "paths": [p.path for p in self.parameters], "log": self.log.tolist(),
                "objectives": {k: (f"callable {getattr(v, '__qualname__', type(v).__qualname__)}"
                                   if callable(v) else v) for k, v in self.objective_tables.items()},
                "objective": self.objective, "goal": self.goal, "constraints": self.constraints,
                "fixed": {p.text: v.tolist() for p, v in self.fixed}, "duration": self.duration}

    def units(self):
        """{name: unit} of every search dimension (its field's unit) and measured objective, and
        of "fitness" (the optimized objective's); "" where not known (a callable objective)."""
        units, j = {}, 0
        for path in self.paths:
            for name in self.names[j:j + path.size]:
                units[name] = path_unit(path, self.doc)
            j += path.size
        for name in self.objective_tables:
            units[name] = getattr(self.quantities.get(name), "unit", "")
        units["fitness"] = units[self.objective]
        return units

    def fitness(self, values):
        """Fitness (k,) to maximize: the objective (negated for goal = minimize) minus the
        weighted constraint violations; NaN where the run failed."""
        f = np.asarray(values[self.objective], dtype=float)
        f = f.copy() if self.goal == "maximize" else -f
        for c in self.constraints:
            v = np.asarray(values[c["objective"]], dtype=float)
            excess = np.maximum(v - c.get("max", np.inf), 0) + np.maximum(c.get("min", -np.inf) - v, 0)
            f -= c["weight"] * excess
        return f

    def check(self, params):
        """params (k, n) checked: finite and inside the bounds; ValueError naming the dimension."""
        params = _checks.finite("params", params, shape=(None, len(self.names)))
        tol = 1e-9 * (self.upper - self.lower)
        bad = np.flatnonzero(np.any((params < self.lower - tol) | (params > self.upper + tol),
                                    axis=0))
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"params[:, {k}] ({self.names[k]}) = {params[:, k].tolist()} is not "
                             f"allowed: must lie in [{self.lower[k]:g}, {self.upper[k]:g}]")
        return params

    # ------------------------------------------------------------------------- evaluation
    def __getstate__(self):            # sent to Ray workers without compiled simulations
        state = dict(self.__dict__)
        state["_sims"] = {}
        return state

    def evaluate(self, params, progress=None):
        """Measured objectives of candidates params (k, n) [physical units]: {name: (k,)}, NaN
        where a run diverged. progress: None or tqdm keyword arguments (steps bar)."""
        from softmech.simulation import SimulationDiverged

        params = self.check(params)
        k = len(params)
        if self.rebuild:
            rows = [self._run_one(params[i:i + 1], None) for i in range(k)]
            return {name: np.concatenate([r[name] for r in rows]) for name in rows[0]}
        try:
            return self._run(self._sim(k, None), params, progress)
        except SimulationDiverged:       # find the culprits: one world at a time
            return self._one_by_one(params)

    def _one_by_one(self, params):
        rows = [self._run_one(params[i:i + 1], self._sim(1, None)) for i in range(len(params))]
        return {name: np.concatenate([r[name] for r in rows]) for name in rows[0]}

    def _run_one(self, row, compiled):
        from softmech.simulation import SimulationDiverged

        try:
            return self._run(compiled or self._sim(1, row[0]), row, None)
        except SimulationDiverged:
            return {name: np.array([math.nan]) for name in self.objective_tables}

    def _sim(self, worlds, row):
        """(simulation, initial states, base per-world parameters) of `worlds` worlds: cached
        for the scenario as written; rebuilt (and not cached) for construction values `row`."""
        if row is None and worlds in self._sims:
            return self._sims[worlds]
        doc = self.doc
        if row is not None:
            doc = copy.deepcopy(self.doc)
            for path, values in self._split(row[None]) + [(p, v[None]) for p, v in self.fixed]:
                if path.kind == "build":
                    substitute(doc, path, np.broadcast_to(values[0], (path.size,)))
        scenario = read_document(doc, source=self.source or "<study>")
        sim = scenario.compile(worlds=worlds)
        # the initial state of every body kind, with what the simulation carries from step to
        # step (the rods' reference frames, the terms' history, the implicit integrator's
        # memory), restored for every evaluation (snapshot / restore, both engines): without
        # it each evaluation started where the last one left a body, and a campaign depended
        # on its evaluation order (rigid bodies once: tests/reliability/test_determinism.py;
        # discrete rods and shells on the unified engine until 2026-12-05:
        # tests/unit/test_der_study.py)
        initial = sim.snapshot()
        compiled = (sim, initial, {key: np.array(v, copy=True) for key, v in sim.params.items()})
        if row is None:
            self._sims[worlds] = compiled
        return compiled

    def _split(self, params):
        """[(path, values (k, path.size))] of a population."""
        out, j = [], 0
        for path in self.paths:
            out.append((path, params[:, j:j + path.size]))
            j += path.size
        return out

    def _run(self, compiled, params, progress):
        sim, initial, base = compiled
        k = len(params)
        arrays = {}
        for path, values in self._split(params) + [(p, np.broadcast_to(v, (k, v.size)))
                                                    for p, v in self.fixed]:
            if path.kind == "world":
                if path.key not in arrays:
                    arrays[path.key] = np.repeat(base[path.key][:1], k, axis=0)
                write_world_values(arrays, path, np.asarray(values, dtype=float))
        for key, value in base.items():
            sim.params[key] = arrays.get(key, value)
        sim.restore(initial)                          # the initial state at t = 0
        sim.time = 0.0
        dt = sim.dt
        requests = set().union(*(q.requests(dt) for q in self.quantities.values()))
        targets = sorted({s for s, _, _ in requests} | {int(round(self.duration / dt))})
        samples, done = {}, 0
        bar = progress_bar(targets[-1], progress is not None, **(progress or {}))
        try:
            for target in targets:
                while done < target:
                    n = min(target - done, STEP_CHUNK)
                    sim.step(n)
                    done += n
                    if bar is not None:
                        bar.update(n)
                diagnostics = {}
                for s, rod, field in requests:
                    if s == target:
                        samples[s, rod, field] = sample(sim, rod, field, diagnostics)
        finally:
            if bar is not None:
                bar.close()
        values = {name: np.asarray(q.value(samples, dt), dtype=float)
                  for name, q in self.quantities.items()}
        for name, f in self.callables.items():
            values[name] = np.asarray(f(sim), dtype=float)
            if values[name].shape != (k,):
                raise ValueError(f"objective {name!r} returned shape {values[name].shape}, "
                                 f"expected ({k},): one number per world (NaN for a failure)")
        return {name: values[name] for name in self.objective_tables}
