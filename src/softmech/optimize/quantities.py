"""Measured quantities: the objectives of campaigns and sweeps, measured in each world of a
batched run over a time window (t0, t1) in s (simulated from t = 0).

Registry (QUANTITIES; the ``quantity`` field of an ``[optimize.objectives.NAME]`` table):

| quantity | value per world | options |
|---|---|---|
| com_speed | mean centre-of-mass velocity over the window along `axis`, or its magnitude in `plane` [m/s]: (com(t1) - com(t0)) / (t1 - t0) | axis ("x", "y", "z" or a 3-vector; default "x") or plane ("xy", "xz", "yz") |
| distance | net distance the centre of mass moved over the window, in 3-D or in `plane` [m] | plane |
| final_position | centre-of-mass coordinate along `axis` at t1 [m] | axis |
| energy | mechanical energy [J] (`kind`: kinetic, elastic or total) reduced over the window | kind, reduce, every |
| field | any recorded field (sm.Every's names: positions, com, total_energy, ...) reduced over the window; `index` selects one number of the per-world array | field, index, reduce, every |
| muscle_work | energy spent by a MuscleTorqueWave over the window [J]: the time integral (trapezoid, samples `every` s) of its power P = sum over elements of couple . angular velocity; `kind` positive (default: the work it does, negative power counted as 0), absolute (|P|) or net (P) | muscle, kind, every |

Every quantity takes `rod` (default: the scene's first rod) and `window` = (t0, t1) in s
(required). `reduce` is mean, max, min or final (the value at t1); `every` [s] is the sampling
interval of the reductions (default: the window / 50). Each quantity asks the runner for samples
at whole time steps (t / dt rounded), then reduces them; a run is sampled only where some
quantity needs it.
"""
import numpy as np

from softmech import _checks
from softmech.diagnostics import ENERGY_KEYS

AXES = {"x": 0, "y": 1, "z": 2}
PLANES = {"xy": (0, 1), "xz": (0, 2), "yz": (1, 2)}
REDUCTIONS = ("mean", "max", "min", "final")
KINETIC = ("translational_energy", "rotational_energy")
ELASTIC = tuple(k for k in ENERGY_KEYS if k not in KINETIC)
STATE_FIELDS = ("positions", "velocities", "directors", "angular_velocities")
DIAGNOSTIC_FIELDS = ENERGY_KEYS + ("total_energy", "com", "com_velocity", "linear_momentum",
                                   "angular_momentum")


def muscle_power(sim, muscle):
    """Power [W] of the MuscleTorqueWave term `muscle` in every world now, (B,): sum over the
    elements of its couple about d1 times the angular velocity about d1 (local frame). The
    couple is the kernel's (softmech.kernels.muscles): A_j(t) = ramp(t) beta(s_j) sin(omega t
    - k s_j + phase) at interior node j, +A_j on the element after it, -A_j on the one before."""
    from softmech.terms.muscles import muscle_spline

    term = next(t for t in sim.terms if t.name == muscle)
    rod = next(r for r in sim.rods if r.name == term.rod)
    p = {k: np.broadcast_to(sim.params[f"{muscle}.{k}"],
                            (sim.worlds,) + np.shape(sim.params[f"{muscle}.{k}"])[1:])
         for k in ("coefficients", "wavelength", "period", "phase", "ramp_time")}
    s = term.arc_from_head(rod)                                            # (n_vor,)
    beta = np.stack([muscle_spline(c, rod.length)(s) for c in p["coefficients"]])
    t = sim.time
    ramp = np.where(p["ramp_time"] > 0, np.minimum(1.0, t / np.where(p["ramp_time"] > 0,
                                                                       p["ramp_time"], 1.0)), 1.0)
    arg = (2 * np.pi / p["period"] * t + p["phase"])[:, None] - (2 * np.pi / p["wavelength"])[
        :, None] * s
    moment = ramp[:, None] * beta * np.sin(arg)                           # (B, n_vor)
    couple = np.zeros((sim.worlds, rod.n_elems))
    couple[:, 1:] += moment
    couple[:, :-1] -= moment
    return np.einsum("be,be->b", couple, sim.get_state(rod.name)["angular_velocities"][..., 0])


def sample(sim, rod, field, cache):
    """One field of one rod now, (B, ...): state fields from Simulation.get_state, the others
    from Simulation.diagnostics (the same numbers `softmech run` records); cache: a dict that
    keeps the rod's diagnostics for the other fields of the same instant."""
    if field in STATE_FIELDS:
        return sim.get_state(rod)[field]
    if field.startswith("muscle_power:"):
        return muscle_power(sim, field.split(":", 1)[1])
    if field == "contact_force":
        return sim.contact_forces(rod)
    if rod not in cache:
        cache[rod] = sim.diagnostics(rod)
    return cache[rod][field]


class Quantity:
    """Base: rod, window (t0, t1) [s]; rods: {name: rod} of the scene; subclasses say which samples they need (requests) and
    reduce them (value); unit: the value's unit ("" when not known)."""
    options = ()
    unit = ""

    def __init__(self, name, table, rods):
        self.name = name
        where = f"objectives.{name}"
        unknown = sorted(set(table) - {"quantity", "rod", "window"} - set(self.options))
        if unknown:
            raise ValueError(f"{where}: unknown field {unknown[0]!r} (allowed: quantity, rod, "
                             f"window, {', '.join(self.options)})")
        self.rod = table.get("rod", next(iter(rods)))
        if self.rod not in rods:
            raise ValueError(f"{where}.rod = {self.rod!r} is not allowed: no such rod (rods: "
                             f"{list(rods)})")
        if "window" not in table:
            raise ValueError(f"{where}.window is missing: give [t0, t1] in seconds")
        w = _checks.finite(f"{where}.window", table["window"], shape=(2,))
        if not 0 <= w[0] < w[1]:
            raise ValueError(f"{where}.window = {w.tolist()} is not allowed: must be [t0, t1] "
                             "[s] with 0 <= t0 < t1")
        self.window = (float(w[0]), float(w[1]))
        self.where = where

    def steps(self, dt):
        """(first, last) step of the window."""
        return int(round(self.window[0] / dt)), int(round(self.window[1] / dt))

    def _axis(self, table, default="x"):
        axis = table.get("axis", default)
        if isinstance(axis, str):
            _checks.choice(f"{self.where}.axis", axis, AXES)
            return AXES[axis]
        return _checks.unit_vector(f"{self.where}.axis", axis)

    def _plane(self, table):
        plane = table.get("plane")
        return None if plane is None else PLANES[_checks.choice(f"{self.where}.plane", plane,
                                                                PLANES)]


def _along(delta, axis):
    """delta (B, 3) along a named axis (an index: no arithmetic, exact) or a unit vector."""
    return delta[:, axis] if isinstance(axis, int) else delta @ axis


class ComSpeed(Quantity):
    options = ("axis", "plane")
    unit = "m/s"

    def __init__(self, name, table, rods):
        super().__init__(name, table, rods)
        if "axis" in table and "plane" in table:
            raise ValueError(f"{self.where}: give axis or plane, not both")
        self.plane = self._plane(table)
        self.axis = self._axis(table)

    def requests(self, dt):
        return {(s, self.rod, "com") for s in self.steps(dt)}

    def value(self, samples, dt):
        s0, s1 = self.steps(dt)
        com0, com1 = samples[s0, self.rod, "com"], samples[s1, self.rod, "com"]
        if self.plane is not None:
            d = (com1 - com0)[:, list(self.plane)]
            return np.linalg.norm(d, axis=1) / ((s1 - s0) * dt)
        # (x1 - x0) / ((s1 - s0) dt): the snake gait problem's fitness, operation for operation
        return (_along(com1, self.axis) - _along(com0, self.axis)) / ((s1 - s0) * dt)


class Distance(Quantity):
    options = ("plane",)
    unit = "m"

    def __init__(self, name, table, rods):
        super().__init__(name, table, rods)
        self.plane = self._plane(table)

    def requests(self, dt):
        return {(s, self.rod, "com") for s in self.steps(dt)}

    def value(self, samples, dt):
        s0, s1 = self.steps(dt)
        d = samples[s1, self.rod, "com"] - samples[s0, self.rod, "com"]
        return np.linalg.norm(d if self.plane is None else d[:, list(self.plane)], axis=1)


class FinalPosition(Quantity):
    options = ("axis",)
    unit = "m"

    def __init__(self, name, table, rods):
        super().__init__(name, table, rods)
        self.axis = self._axis(table)

    def requests(self, dt):
        return {(self.steps(dt)[1], self.rod, "com")}

    def value(self, samples, dt):
        return _along(samples[self.steps(dt)[1], self.rod, "com"], self.axis)


class Reduced(Quantity):
    """A sampled field reduced over the window (mean, max, min or final)."""
    options = ("reduce", "every")

    def __init__(self, name, table, rods):
        super().__init__(name, table, rods)
        self.reduce = _checks.choice(f"{self.where}.reduce", table.get("reduce", "mean"),
                                     REDUCTIONS)
        every = table.get("every", (self.window[1] - self.window[0]) / 50)
        self.every = float(_checks.positive(f"{self.where}.every", every))

    def sample_steps(self, dt):
        s0, s1 = self.steps(dt)
        if self.reduce == "final":
            return [s1]
        stride = max(1, int(round(self.every / dt)))
        return sorted(set(range(s0, s1, stride)) | {s1})

    def requests(self, dt):
        return {(s, self.rod, f) for s in self.sample_steps(dt) for f in self.fields}

    def value(self, samples, dt):
        series = np.stack([self.combine([samples[s, self.rod, f] for f in self.fields])
                           for s in self.sample_steps(dt)], axis=1)          # (B, n_samples)
        return {"mean": np.mean, "max": np.max, "min": np.min,
                "final": lambda a, axis: a[:, -1]}[self.reduce](series, axis=1)


class Energy(Reduced):
    options = Reduced.options + ("kind",)
    unit = "J"
    KINDS = {"kinetic": KINETIC, "elastic": ELASTIC, "total": ENERGY_KEYS}

    def __init__(self, name, table, rods):
        super().__init__(name, table, rods)
        kind = _checks.choice(f"{self.where}.kind", table.get("kind", "total"), self.KINDS)
        self.fields = self.KINDS[kind]

    def combine(self, values):
        return sum(values)


class Field(Reduced):
    options = Reduced.options + ("field", "index")

    def __init__(self, name, table, rods):
        super().__init__(name, table, rods)
        allowed = STATE_FIELDS + DIAGNOSTIC_FIELDS + ("contact_force",)
        self.fields = (_checks.choice(f"{self.where}.field", table.get("field"), allowed),)
        from softmech.resultsfile.layout import UNITS

        self.unit = UNITS.get(self.fields[0], "")
        index = table.get("index", [])
        index = [index] if isinstance(index, int) else index
        if not isinstance(index, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                  for i in index):
            raise ValueError(f"{self.where}.index = {index!r} is not allowed: must be an "
                             "integer or a list of integers (one per axis after the world's)")
        self.index = tuple(index)
        rod = rods[self.rod]
        shape = {"positions": (rod.n_nodes, 3), "velocities": (rod.n_nodes, 3),
                 "contact_force": (rod.n_nodes, 3), "directors": (rod.n_elems, 3, 3),
                 "angular_velocities": (rod.n_elems, 3)}.get(
            self.fields[0], (3,) if self.fields[0] in DIAGNOSTIC_FIELDS[len(ENERGY_KEYS) + 1:]
            else ())
        if len(self.index) != len(shape) or not all(-n <= i < n for i, n in zip(self.index,
                                                                               shape)):
            raise ValueError(f"{self.where}.index = {list(self.index)} is not allowed: field "
                             f"{self.fields[0]!r} has shape {shape} per world; give one index "
                             "per axis, inside it")

    def combine(self, values):
        return values[0][(slice(None),) + self.index]


class MuscleWork(Reduced):
    """Energy spent by a muscle over the window (the trapezoid integral of its power)."""
    options = ("muscle", "kind", "every")
    KINDS = ("positive", "absolute", "net")
    unit = "J"

    def __init__(self, name, table, rods, terms=()):
        super().__init__(name, {k: v for k, v in table.items() if k not in ("muscle", "kind")},
                         rods)
        from softmech.terms.muscles import MuscleTorqueWave

        waves = [t.name for t in terms if isinstance(t, MuscleTorqueWave)]
        muscle = table.get("muscle", waves[0] if waves else None)
        if muscle not in waves:
            raise ValueError(f"{self.where}.muscle = {muscle!r} is not allowed: must name a "
                             f"MuscleTorqueWave of the scene (muscle torque waves: {waves})")
        self.kind = _checks.choice(f"{self.where}.kind", table.get("kind", "positive"),
                                   self.KINDS)
        self.fields = (f"muscle_power:{muscle}",)
        self.reduce = "mean"

    def combine(self, values):
        p = values[0]
        return {"positive": np.maximum(p, 0.0), "absolute": np.abs(p), "net": p}[self.kind]

    def value(self, samples, dt):
        steps = self.sample_steps(dt)
        power = np.stack([self.combine([samples[s, self.rod, self.fields[0]]]) for s in steps],
                         axis=1)                                           # (B, n_samples)
        t = np.array(steps) * dt
        return np.sum(0.5 * (power[:, 1:] + power[:, :-1]) * np.diff(t), axis=1)


QUANTITIES = {"com_speed": ComSpeed, "distance": Distance, "final_position": FinalPosition,
              "energy": Energy, "field": Field, "muscle_work": MuscleWork}
"""Quantity name (the `quantity` field) -> class."""


def make_quantity(name, table, rods, terms=()):
    """A Quantity from its table (see the module docstring); rods {name: rod}, terms: the
    scene's terms. ValueError naming the field."""
    if not isinstance(table, dict):
        raise ValueError(f"objectives.{name} must be a table with a quantity field")
    quantity = table.get("quantity")
    if quantity not in QUANTITIES:
        raise ValueError(f"objectives.{name}.quantity = {quantity!r} is not allowed: must be one "
                         f"of {sorted(QUANTITIES)}")
    if quantity == "muscle_work":
        return MuscleWork(name, table, rods, terms)
    return QUANTITIES[quantity](name, table, rods)
