"""Parameter sweeps: a grid or random set of candidates of a Study, evaluated in chunks (one
batched simulation each, locally or on Ray), written as one table with one row per run.

    softmech sweep snake.toml --param rods.snake.youngs_modulus=1e6:1e8:5 \\
                              --param muscle.wavelength=0.6,0.97,1.4

`--param PATH=v1,v2,...` lists values; `PATH=lo:hi:n` gives n evenly spaced values (lo:hi:n:log
geometric ones). Without `--random` the runs are every combination (the grid, the first
parameter varying slowest); `--random N` draws N runs instead, each parameter uniformly (log-
uniformly for :log ranges) in [lo, hi] or among its listed values, with numpy's default_rng(seed).
The objectives are the scenario's [optimize] objectives (every one is measured and written).

Outputs in the output folder: sweep.csv and sweep.parquet (or sweep.h5 with table_format
"hdf5"): columns run, the parameters, every objective and fitness (the optimized objective with
its goal and penalties); sweep.png (the optimized objective against each parameter); and
evaluations.jsonl, the journal of finished chunks: a killed sweep continues with resume=True
without simulating a finished chunk again.

    plan = plan_sweep(scenario, specs, output_dir, table_format="hdf5")   # every check
    summary = run_sweep(plan, executor=None)                             # the work

plan_sweep checks every option, the package the table format needs and the journal before
anything is simulated or written.
"""
import csv
import io
import itertools
import os
import time
from dataclasses import dataclass

import numpy as np

from softmech import _checks
from softmech.io import atomic_write, atomic_write_text

FORMATS = ("parquet", "hdf5")
DEFAULT_CHUNK = 16
"""Runs per batched simulation of a sweep (one Ray task each)."""


def parse_param(text):
    """'PATH=v1,v2,...' or 'PATH=lo:hi:n[:log]' -> (path, values (m,), spec) where spec is
    ('list', values) or ('range', lo, hi, log); ValueError naming the option."""
    if not isinstance(text, str) or "=" not in text:
        raise ValueError(f"--param {text!r} is not allowed: write PATH=v1,v2,... or "
                         "PATH=lo:hi:n (e.g. muscle.wavelength=0.5:1.5:5)")
    path, spec = (part.strip() for part in text.split("=", 1))
    where = f"--param {path}"
    try:
        if ":" in spec:
            parts = spec.split(":")
            log = len(parts) == 4 and parts[3] == "log"
            if len(parts) not in (3, 4) or (len(parts) == 4 and not log):
                raise ValueError
            lo, hi, n = float(parts[0]), float(parts[1]), int(parts[2])
        else:
            values = np.array([float(v) for v in spec.split(",")])
    except ValueError:
        raise ValueError(f"{where} = {spec!r} is not allowed: values v1,v2,... or a range "
                         "lo:hi:n or lo:hi:n:log (numbers, n an integer)") from None
    if ":" not in spec:
        _checks.finite(where, values)
        return path, values, ("list", values)
    _checks.finite(where, [lo, hi])
    if not lo < hi or n < 2:
        raise ValueError(f"{where} = {spec!r} is not allowed: a range needs lo < hi and n >= 2")
    if log and lo <= 0:
        raise ValueError(f"{where} = {spec!r} is not allowed: a log range needs lo > 0")
    values = np.geomspace(lo, hi, n) if log else np.linspace(lo, hi, n)
    return path, values, ("range", lo, hi, log)


def sweep_points(specs, random=None, seed=0):
    """Candidates (n_runs, n_params): the grid of the parsed --param specs, or `random` runs."""
    if random is None:
        return np.array(list(itertools.product(*[values for _, values, _ in specs])), dtype=float)
    random = _checks.integer("--random", random, 1)
    rng = np.random.default_rng(_checks.integer("--seed", seed, 0))
    columns = []
    for _, values, spec in specs:
        if spec[0] == "list":
            columns.append(rng.choice(values, size=random))
        elif spec[3]:
            columns.append(np.exp(rng.uniform(np.log(spec[1]), np.log(spec[2]), size=random)))
        else:
            columns.append(rng.uniform(spec[1], spec[2], size=random))
    return np.column_stack(columns)


def sweep_study(scenario, specs):
    """The Study of a sweep: the --param paths (bounds: their value ranges) and the scenario's
    [optimize] objectives."""
    from softmech.optimize.settings import is_generic, study_of
    from softmech.optimize.study import Parameter, Study

    base = study_of(scenario)
    s = scenario.optimize if is_generic(scenario.optimize) else {}
    parameters = []
    for path, values, spec in specs:
        lo, hi = (spec[1], spec[2]) if spec[0] == "range" else (values.min(), values.max())
        if lo == hi:                       # one listed value: any non-empty box holds it
            hi = lo + max(1.0, abs(lo))
        parameters.append(Parameter(path, lo, hi))
    fixed = {k: v for k, v in base.meta()["fixed"].items()
             if k not in {path for path, _, _ in specs}}
    return Study(scenario, parameters, base.objective_tables, objective=base.objective,
                 goal=base.goal, constraints=base.constraints, fixed=fixed or None,
                 duration=s.get("duration"))


@dataclass
class SweepPlan:
    """A sweep whose every option was checked by plan_sweep, before any work: the Study, the
    candidates points (n_runs, n_params) [the parameters' units], the output folder, runs per
    batched simulation (chunk), the table format, whether to resume, and the journal's meta."""
    study: object
    points: np.ndarray
    output_dir: str
    chunk: int
    table_format: str
    resume: bool
    meta: dict

    @property
    def journal_path(self):
        return os.path.join(self.output_dir, "evaluations.jsonl")


def require_table_format(table_format):
    """table_format checked, with the package it needs (pyarrow for "parquet"); ValueError
    naming --format and how to install it, before any run is simulated."""
    _checks.choice("--format", table_format, FORMATS)
    if table_format == "parquet":
        _checks.optional_module("pyarrow", "--format parquet", "pip install pyarrow (or "
                                "pip install 'softmech[sweep]'), or use --format hdf5")
    return table_format


def plan_sweep(scenario, specs, output_dir, *, random=None, seed=0, chunk=DEFAULT_CHUNK,
               table_format="parquet", resume=False):
    """Every check of a sweep, before any work and without writing anything: the table format
    and its package, chunk, the --param specs and paths (the Study), the candidates, and the
    journal in output_dir (--resume needs one of these settings; without it an earlier sweep's
    finished chunks are not overwritten). Returns a SweepPlan for run_sweep."""
    from softmech.optimize.executors import check_journal

    require_table_format(table_format)
    chunk = _checks.integer("--chunk", chunk, 1)
    if not specs:
        raise ValueError("--param is missing: give at least one parameter to sweep")
    study = sweep_study(scenario, specs)
    if len(study.names) != len(specs):
        raise ValueError("--param paths must name one value each (no [a:b] slices in a sweep)")
    points = sweep_points(specs, random, seed)
    output_dir = os.path.abspath(output_dir)
    plan = SweepPlan(study, points, output_dir, chunk, table_format, bool(resume),
                     {**study.meta(), "points": points.tolist(), "chunk": chunk})
    if resume and not os.path.exists(plan.journal_path):
        raise ValueError(f"--resume: nothing to resume in {output_dir} (no evaluations.jsonl); "
                         "start the sweep without --resume")
    check_journal(plan.journal_path, plan.meta, resume)
    return plan


def run_sweep(plan, *, executor=None, progress=False, say=None):
    """Run (or resume) a planned sweep (plan_sweep); returns a summary dict: runs, simulated
    (runs simulated by this call), reused (runs found finished in the journal), parameters,
    objectives, units, columns, files, wall_s [s]."""
    from softmech.optimize import figures
    from softmech.optimize.executors import EvaluationJournal, chunks_of, evaluate_batch
    from softmech.progress import progress_bar

    started = time.perf_counter()
    say = say or (lambda text: None)
    study, points, chunk = plan.study, plan.points, plan.chunk
    os.makedirs(plan.output_dir, exist_ok=True)
    journal = EvaluationJournal(plan.journal_path, plan.meta, resume=plan.resume)
    say(f"sweep of {len(points)} runs over {', '.join(study.names)} in chunks of {chunk} worlds; "
        f"objectives: {', '.join(study.objective_tables)}")
    bar = progress_bar(len(points), progress, unit="run", desc="sweep")
    parts = []
    try:
        for s in chunks_of(len(points), chunk * 64):      # bounded memory per call
            parts.append(evaluate_batch(study, points[s], executor=executor, chunk=chunk,
                                        journal=journal))
            if bar is not None:
                bar.update(s.stop - s.start)
    finally:
        if bar is not None:
            bar.close()
    values = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    table = {"run": np.arange(len(points))}
    table.update({name: points[:, j] for j, name in enumerate(study.names)})
    table.update(values)
    table["fitness"] = study.fitness(values)
    out = plan.output_dir
    units = study.units()
    files = [journal.path, write_csv(table, os.path.join(out, "sweep.csv"))]
    files.append(write_parquet(table, os.path.join(out, "sweep.parquet"))
                 if plan.table_format == "parquet" else
                 write_hdf5(table, os.path.join(out, "sweep.h5")))
    files.append(figures.plot_sweep(table, study.names, study.objective,
                                    os.path.join(out, "sweep.png"), units=units))
    return {"runs": len(points), "simulated": journal.simulated, "reused": journal.reused,
            "parameters": list(study.names), "objectives": list(study.objective_tables),
            "objective": study.objective, "goal": study.goal, "units": units,
            "columns": list(table), "chunk": chunk, "files": files,
            "wall_s": time.perf_counter() - started}


def write_csv(table, path):
    """Columns {name: (n,)} as CSV (header line, repr floats: exact round trip), atomically."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(table))
    for row in zip(*table.values()):
        writer.writerow([repr(int(v)) if isinstance(v, np.integer) else repr(float(v))
                         for v in row])
    return atomic_write_text(path, out.getvalue())


def write_parquet(table, path):
    """Columns as a Parquet file (pyarrow), atomically."""
    require_table_format("parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = pa.table({k: np.asarray(v) for k, v in table.items()})
    return atomic_write(path, lambda f: pq.write_table(arrow, f))


def write_hdf5(table, path):
    """Columns as datasets of an HDF5 file (/sweep/<column>), atomically."""
    import h5py

    def write(f):
        with h5py.File(f, "w") as h5:
            for k, v in table.items():
                h5.create_dataset(f"sweep/{k}", data=np.asarray(v))

    return atomic_write(path, write)
