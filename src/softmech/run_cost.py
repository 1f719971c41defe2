"""What a run will cost, estimated before its first step: compute (steps x worlds x elements),
the memory of its recording (samples x recorded values x 8 bytes) and the disk of its results
file. A request above a budget below is refused before any work starts, with the estimate and
the way to allow it (allow_large=True on Simulation.run and record_to_file, `softmech run
--allow-large`, `allow_large = true` in a scenario file's [run] table).

The estimate reads counts only (elements, nodes, recorded fields): no state is copied and
nothing is compiled, so it costs microseconds even for the largest scenes, and every run (and
each of record_to_file's per-sample runs) makes it.
"""
import math
import weakref
from dataclasses import dataclass

from softmech import _checks
from softmech.der_packing import edge_count, node_count
from softmech.diagnostics import ENERGY_KEYS
from softmech.recording import ROD_FIELDS, rods_of

MAX_ELEMENT_STEPS = 10**12
"""Most element-steps (steps x worlds x elements; rigid bodies and the nodes of discrete rods
and shells count as elements) of a run without allow_large: at the fastest measured ~0.14 us
per element-step (docs/benchmarks.md, DESIGN.md) 10^12 is over a day of one laptop core, and
most scenes are slower -- a request beyond it is more likely a typo in dt, duration or worlds
than a run anyone means to wait for."""

MAX_RECORD_BYTES = 2 * 10**9
"""Most bytes of recorded samples held in memory without allow_large: Simulation.run keeps every
sample and stacks them at the end (twice this at the peak), and record_to_file reads its whole
file back, so 2 GB of samples is already half of a common 8 GB laptop's memory."""

MAX_RESULTS_BYTES = 10 * 10**9
"""Most bytes on disk of a results file (record_to_file, `softmech run`) without allow_large:
the uncompressed samples plus the checkpoint copy kept beside the file while it runs (an upper
bound: the datasets are gzip-compressed). 10 GB is a large share of a laptop's free disk."""

MIN_DT_FRACTION = 1e-12
"""Smallest dt as a fraction of the explicit stability limit, refused outright (no allow_large):
a dt = 1e-300 s typo would take 10^12 times the steps the run needs. Checked where the limit is
already known: Simulation (Cosserat rods, rigid bodies) computes it when it is compiled, from
the parameters (softmech.stability; no kernel is compiled). ImplicitSimulation (discrete rods,
shells) has no such estimate -- implicit Euler is stable at any dt -- so there only the
absolute bounds of _checks.run_steps apply."""

BYTES_PER_VALUE = 8
"""Recorded values are float64."""

_ELEMENTS = weakref.WeakKeyDictionary()
"""Element count per simulation, counted once (scenes of thousands of rods are sampled often)."""


def _bytes_text(n):
    """n bytes as '3.7 TB' (decimal units, as disks are sold)."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} bytes"


def budgets_text():
    """The budgets in words (help texts, docs)."""
    return (f"{MAX_ELEMENT_STEPS:.0e} element-steps, {_bytes_text(MAX_RECORD_BYTES)} of recorded "
            f"samples in memory, {_bytes_text(MAX_RESULTS_BYTES)} of results file on disk")


@dataclass(frozen=True)
class RunCost:
    """The cost of one run: steps of dt, worlds, elements (rod elements, rigid bodies, nodes
    of discrete rods and shells), samples recorded (the first, at the start, included),
    values[name] the values per world of each recorded dataset per sample, and the run's
    duration, dt and record interval [s] (None: no recording) for the messages."""
    steps: int
    worlds: int
    elements: int
    samples: int
    values: dict
    duration: float
    dt: float
    every: float = None

    @property
    def element_steps(self):
        """steps x worlds x elements: the compute of the run."""
        return self.steps * self.worlds * self.elements

    @property
    def record_bytes(self):
        """Memory of the recorded samples [bytes]: the times and every recorded value."""
        per_sample = 1 + self.worlds * sum(self.values.values())
        return self.samples * per_sample * BYTES_PER_VALUE

    @property
    def file_bytes(self):
        """Disk of a results file of these samples at its peak [bytes]: the file and its
        checkpoint copy (uncompressed, an upper bound)."""
        return 2 * self.record_bytes

    def _recording(self):
        return (f"record every = {self.every:g} s for {self.duration:g} s at dt = {self.dt:g} s: "
                f"{self.samples:.3g} samples x {len(self.values)} fields "
                f"({sum(self.values.values())} values per world) x {self.worlds} worlds x "
                f"{BYTES_PER_VALUE} bytes")

    def excesses(self, to_file=False):
        """The budgets this run exceeds, one sentence each naming the fields and the estimate
        ([] within budget); to_file: also the disk budget of a results file."""
        out = []
        if self.element_steps > MAX_ELEMENT_STEPS:
            out.append(f"duration = {self.duration:g} s at dt = {self.dt:g} s: {self.steps:.3g} "
                       f"steps x {self.worlds} worlds x {self.elements} elements = "
                       f"{self.element_steps:.2g} element-steps (about "
                       f"{self.element_steps * 0.14e-6 / 3600:.3g} hours of one core at best); "
                       f"the budget is {MAX_ELEMENT_STEPS:.0e} element-steps")
        if self.every is not None and self.record_bytes > MAX_RECORD_BYTES:
            out.append(f"{self._recording()} = {_bytes_text(self.record_bytes)} in memory; the "
                       f"budget is {_bytes_text(MAX_RECORD_BYTES)}")
        if to_file and self.every is not None and self.file_bytes > MAX_RESULTS_BYTES:
            out.append(f"{self._recording()} = {_bytes_text(self.file_bytes)} on disk (results "
                       f"file and its checkpoint copy); the budget is "
                       f"{_bytes_text(MAX_RESULTS_BYTES)}")
        return out


def estimate(sim, duration, every=None, fields=(), recorders=(), recorder_sizes=None):
    """RunCost of running `sim` (Simulation or ImplicitSimulation) for `duration` [s], recording
    `fields` (names as in sm.Every) and the user's sm.Recorder `recorders` every `every` [s]
    (None: the end only). A recorder counts with recorder_sizes[name] values per world, else
    one (the least it can record: it is not called here, a user's recorder may count its calls
    or have effects; record_to_file checks again with the sizes of its first sample).
    Refuses (ValueError) what _checks.run_steps refuses outright: more than MAX_STEPS steps or
    MAX_SAMPLES samples."""
    steps, every_steps = _checks.run_steps(duration, sim.dt, every)
    samples = 1 + (math.ceil(steps / every_steps) if every is not None and steps else 0)
    values = _field_values(sim, fields if every is not None else ())
    sizes = recorder_sizes or {}
    values.update({r.name: int(sizes.get(r.name, 1)) for r in recorders if every is not None})
    if sim not in _ELEMENTS:
        _ELEMENTS[sim] = _count_elements(sim)
    return RunCost(steps=steps, worlds=sim.worlds, elements=_ELEMENTS[sim], samples=samples,
                   values=values, duration=duration, dt=sim.dt,
                   every=None if every is None else every_steps * sim.dt)


def check_run(sim, duration, every, fields, allow_large):
    """The check of a simulation's `run`: what _checks.run_steps refuses outright, then, unless
    allow_large, the budgets (`estimate`, `check`). With allow_large the estimate is skipped:
    record_to_file checks its whole run once and then calls `run` once per sample, and the
    estimate of a scene of ~2,800 rods costs ~8 ms."""
    if _checks.boolean("allow_large", allow_large):
        _checks.run_steps(duration, sim.dt, every)
        return None
    return check(estimate(sim, duration, every, fields), allow_large)


def check(cost, allow_large, *, to_file=False, allow="pass allow_large=True"):
    """ValueError naming the fields and the estimate if `cost` exceeds a budget and
    allow_large is not True; `allow`: how the caller allows it, for the message."""
    excesses = [] if _checks.boolean("allow_large", allow_large) else cost.excesses(to_file)
    if excesses:
        raise ValueError("; ".join(excesses) + f". Shorten the run, take a larger dt, record "
                         f"less often or fewer fields, or {allow} to run it anyway")
    return cost


def check_time_step(dt, limit):
    """ValueError if dt [s] is below MIN_DT_FRACTION of the stability limit `limit` [s] (an
    infinite limit, nothing stiff in the scene, bounds nothing)."""
    if math.isfinite(limit) and dt < MIN_DT_FRACTION * limit:
        raise ValueError(f"dt = {dt:g} s is not allowed: below {MIN_DT_FRACTION:g} x the "
                         f"estimated stability limit {limit:.3g} s (the run would take 10^12 "
                         f"times the steps it needs); the allowed range is "
                         f"[{MIN_DT_FRACTION * limit:.3g}, ~{limit:.3g}] s")


def _count_elements(sim):
    """Rod elements + rigid bodies + nodes of discrete rods and shells."""
    implicit = getattr(sim, "bodies", None)
    if isinstance(implicit, dict):
        return sum(sim._dofs(b)[0].shape[0] for b in implicit.values())
    shells = getattr(sim, "der_shells", ())         # (the unified engine's)
    return sum(r.n_elems for r in rods_of(sim)) + len(sim.rigid_bodies) + sum(
        node_count(s) for s in shells)


def _field_values(sim, fields):
    """{'<body>.<field>': values per world of one sample} of the recorded `fields`."""
    if isinstance(getattr(sim, "bodies", None), dict):       # ImplicitSimulation
        out = {}
        for owner, base in sim._record_names(fields):
            nodes, scalars = sim._dofs(sim.bodies[owner])
            out[f"{owner}.{base}"] = (nodes.size if base in ("positions", "velocities") else
                                      scalars.size if base in ("angles", "angular_velocities")
                                      else _summary_size(base))
        return out
    bodies = rods_of(sim) + list(sim.rigid_bodies) + list(getattr(sim, "der_shells", ()))
    rods = {r.name for r in rods_of(sim)}
    out = {}
    for f in fields:
        owner, base = f.split(".", 1) if "." in f else (None, f)
        chosen = ([b for b in bodies if b.name == owner] if owner else bodies)
        for body in chosen:
            if getattr(body, "kind", "") in ("der_rod", "shell"):
                out[f"{body.name}.{base}"] = _kind_field_size(body, base)
                continue
            if base in ROD_FIELDS and body.name not in rods:
                continue
            rigid = body.name not in rods
            n_nodes, n_elems = (1, 1) if rigid else (body.n_nodes, body.n_elems)
            out[f"{body.name}.{base}"] = {
                "positions": 3 * n_nodes, "velocities": 3 * n_nodes, "contact_force": 3 * n_nodes,
                "rod_contact_force": 3 * n_nodes, "directors": 9 * n_elems,
                "angular_velocities": 3 * n_elems, "twist": n_elems, "twist_rates": n_elems,
                "reference_a1": 3 * n_elems, "reference_tangent": 3 * n_elems,
                "reference_twist": getattr(body, "n_springs", 0)}.get(base) or _summary_size(base)
    return out


def _kind_field_size(body, base):
    """Values per world of one sample of a field of a discrete rod or shell of the unified
    engine (softmech.sampling._der_sample: its state fields, a rod's twists also as angles)."""
    nodes, edges = node_count(body), edge_count(body)
    size = {"positions": 3 * nodes, "velocities": 3 * nodes, "angles": edges,
            "angular_velocities": edges, "twist": edges, "twist_rates": edges,
            "reference_a1": 3 * edges, "reference_tangent": 3 * edges,
            "reference_twist": getattr(body, "n_springs", 0)}.get(base)
    return _summary_size(base) if size is None else size


def _summary_size(base):
    """Values per world of a summary field: an energy 1, a 3-vector (com, momenta) 3."""
    return 1 if base in ENERGY_KEYS + ("total_energy",) else 3
