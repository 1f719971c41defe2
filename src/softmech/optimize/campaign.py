"""CMA-ES campaigns over any batched objective, with an append-only log and exact resume.

    campaign = Campaign(objective, names=("a", "b"), lower=(-1, 0), upper=(1, 2),

                        log_path="campaign.jsonl", popsize=16, seed=1)
    result = campaign.run()          # maximizes objective; result.best_params, result.best_fitness

The objective is called once per generation with the whole population, so that a simulation can
evaluate it as one batched run: ``objective(params, progress=None) -> fitness`` with params of
shape (popsize, n_params) in physical units (inside [lower, upper]) and fitness of shape
(popsize,), larger is better; NaN marks a failed evaluation (it ranks below every finite one).
``progress`` is None or a dict of tqdm keyword arguments for an optional per-generation bar.

CMA-ES (Hansen's ``cma`` package) searches the unit box [0, 1]^n mapped affinely onto
[lower, upper], so that parameters of different units and ranges are sampled on the same scale;
the bounds are enforced by cma's ``BoundTransform`` (every evaluated point lies inside the box).
cma minimizes, so it is told -fitness.

Log (JSON lines, ``campaign.jsonl``): a header line with everything that defines the sampled
sequence (names, bounds, popsize, seed, x0, sigma0, the caller's ``meta``), then one line per
finished generation with every evaluated point (unit coordinates ``x`` exactly as cma produced
them, physical ``params``) and its fitness. Each line is written with one write, flushed and
fsync'ed before the next generation starts, so a killed campaign loses at most the generation
that was being evaluated; a truncated last line (a crash mid-write) is dropped on resume.

Resume replays the log: a fresh CMAEvolutionStrategy with the same seed is asked for each logged
generation, the asked points are checked against the logged ones (same seed and settings give
the same samples, bit for bit), and it is told the logged fitnesses. The strategy then continues
exactly as the uninterrupted campaign would have, so a resumed campaign reproduces its result.
cma draws its samples from numpy's global random generator; the campaign keeps that generator's
state of its own and swaps it in only around cma's calls, so neither the caller nor the
objective can perturb the sequence (and the campaign does not perturb theirs).
"""
import json
import math
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from softmech import _checks
from softmech.progress import progress_bar

LOG_FORMAT = "softmech.campaign/1"
"""Format tag of the header line of a campaign log."""

REPLAY_TOLERANCE = 1e-12
"""Largest |asked - logged| difference (unit box coordinates) accepted on replay: the same seed
gives bit-identical samples on one machine; this leaves room for last-digit differences of a
different linear-algebra library only."""


@dataclass
class Generation:
    """One finished generation: unit coordinates x (popsize, n), params (popsize, n) [physical
    units], fitness (popsize,) (NaN for failed evaluations), sigma (cma step size after the
    generation's update), wall_s [s] of its evaluation."""
    generation: int
    x: np.ndarray
    params: np.ndarray
    fitness: np.ndarray
    sigma: float
    wall_s: float

    @property
    def best_index(self):
        f = np.where(np.isnan(self.fitness), -np.inf, self.fitness)
        return int(np.argmax(f))

    @property
    def best_fitness(self):
        return float(self.fitness[self.best_index])

    @property
    def mean_fitness(self):
        """Mean of the finite fitness values (NaN if there are none)."""
        finite = self.fitness[np.isfinite(self.fitness)]
        return float(finite.mean()) if finite.size else math.nan


@dataclass
class CampaignResult:
    """Outcome of Campaign.run: best_fitness, best_params (name -> value), best_vector (n,),
    best_generation (1-based), generations, evaluations, stop_reason, wall_s [s] of this call,
    evaluation_wall_s [s] summed over all logged generations, history (list of Generation),
    resumed_generations (how many came from the log)."""
    best_fitness: float
    best_params: dict
    best_vector: np.ndarray
    best_generation: int
    generations: int
    evaluations: int
    stop_reason: str
    wall_s: float
    evaluation_wall_s: float
    history: list = field(repr=False)
    resumed_generations: int = 0


class Campaign:
    """CMA-ES campaign maximizing a batched objective (see the module docstring).

    names: parameter names (n,); lower, upper: bounds (n,) [physical units]; log_path: the JSON
    lines log; popsize >= 4; seed: integer >= 0; x0: start mean in unit box coordinates (n,),
    default the centre; sigma0: initial step size in unit box coordinates (0.25 = a quarter of
    each range). Stop rule: after at least min_generations, stop when the best fitness has not
    improved by more than `tolerance` over the last `patience` generations; always stop at
    max_generations or when cma's own termination criteria fire. meta: JSON-serializable dict of
    the objective's settings, stored in the header and compared on resume. resume: continue an
    existing log (False: the log must not exist yet). progress: tqdm bars (overall and, through
    the objective, per generation).
    """

    def __init__(self, objective, *, names, lower, upper, log_path, popsize=16, seed=1, x0=None,
                 sigma0=0.25, max_generations=60, min_generations=20, patience=10,
                 tolerance=1e-3, meta=None, resume=False, progress=False, log=None):
        self.objective = objective
        self.names = [str(n) for n in names]
        n = len(self.names)
        if n < 2 or len(set(self.names)) != n:
            raise ValueError(f"names = {names!r} is not allowed: must be distinct, at least two "
                             "(cma's CMA-ES needs two dimensions; sweep a single parameter with "
                             "`softmech sweep`)")
        self.lower = _checks.finite("lower", lower, shape=(n,))
        self.upper = _checks.finite("upper", upper, shape=(n,))
        if np.any(self.upper <= self.lower):
            raise ValueError(f"upper = {self.upper.tolist()} is not allowed: must be > lower = "
                             f"{self.lower.tolist()} in every entry")
        self.log = np.zeros(n, dtype=bool) if log is None else np.array(log, dtype=bool)
        if self.log.shape != (n,) or np.any(self.lower[self.log] <= 0):
            raise ValueError(f"log = {log!r} is not allowed: one flag per parameter, and a "
                             "log-scale parameter needs lower > 0")
        self.popsize = _checks.integer("popsize", popsize, 4)
        self.seed = _checks.integer("seed", seed, 0)
        self.x0 = np.full(n, 0.5) if x0 is None else _checks.finite("x0", x0, shape=(n,))
        if np.any(self.x0 < 0) or np.any(self.x0 > 1):
            raise ValueError(f"x0 = {self.x0.tolist()} is not allowed: unit box coordinates "
                             "must lie in [0, 1]")
        self.sigma0 = float(_checks.positive("sigma0", sigma0))
        self.max_generations = _checks.integer("max_generations", max_generations, 1)
        self.min_generations = _checks.integer("min_generations", min_generations, 1)
        self.patience = _checks.integer("patience", patience, 1)
        self.tolerance = float(_checks.nonnegative("tolerance", tolerance))
        self.meta = {} if meta is None else json.loads(json.dumps(meta))
        self.log_path = os.fspath(log_path)
        self.resume = bool(resume)
        self.progress = bool(progress)

    # ------------------------------------------------------------------------ mapping
    def to_params(self, x):
        """Unit box coordinates (..., n) -> physical parameters (..., n): affine, or
        geometric (lower * (upper / lower)^x) for log-scale parameters."""
        x = np.asarray(x, dtype=float)
        linear = self.lower + x * (self.upper - self.lower)
        if not self.log.any():
            return linear
        with np.errstate(divide="ignore", invalid="ignore"):
            geometric = np.exp(np.log(self.lower) + x * (np.log(self.upper) - np.log(self.lower)))
        return np.where(self.log, geometric, linear)

    def to_unit(self, params):
        """Inverse of to_params: physical (..., n) -> unit box coordinates (..., n)."""
        p = np.asarray(params, dtype=float)
        linear = (p - self.lower) / (self.upper - self.lower)
        if not self.log.any():
            return linear
        with np.errstate(divide="ignore", invalid="ignore"):
            geometric = (np.log(p) - np.log(self.lower)) / (np.log(self.upper) - np.log(self.lower))
        return np.where(self.log, geometric, linear)

    def header(self):
        import cma
        from softmech import __version__
        log = {"log": self.log.tolist()} if self.log.any() else {}
        return {"kind": "header", "format": LOG_FORMAT, "names": self.names, **log,
                "lower": self.lower.tolist(), "upper": self.upper.tolist(),
                "popsize": self.popsize, "seed": self.seed, "x0": self.x0.tolist(),
                "sigma0": self.sigma0, "meta": self.meta, "softmech_version": __version__,
                "cma_version": cma.__version__}

    # ------------------------------------------------------------------------ cma + rng
    def _new_strategy(self):
        import cma
        # cma seeds numpy's global generator itself (and treats seed 0 as "from the clock"):
        # seed our own generator instead and pass seed=nan so cma leaves it alone.
        self._rng_state = np.random.RandomState(self.seed).get_state()
        options = {"seed": math.nan, "popsize": self.popsize,
                   "bounds": [[0.0] * len(self.names), [1.0] * len(self.names)],
                   "verbose": -9, "verb_log": 0, "verb_disp": 0}
        with self._own_rng():
            return cma.CMAEvolutionStrategy(self.x0.tolist(), self.sigma0, options)

    @contextmanager
    def _own_rng(self):
        outer = np.random.get_state()
        np.random.set_state(self._rng_state)
        try:
            yield
        finally:
            self._rng_state = np.random.get_state()
            np.random.set_state(outer)

    def _ask(self, es):
        with self._own_rng():
            return es.ask()

    def _tell(self, es, asked, fitness):
        # cma minimizes and is rank based: -fitness, failed evaluations ranked last.
        told = -np.asarray(fitness, dtype=float)
        finite = np.isfinite(told)
        worst = told[finite].max() if finite.any() else 0.0
        told = np.where(finite, told, worst + 1.0)
        with self._own_rng():
            es.tell(asked, told.tolist())

    # ------------------------------------------------------------------------ running
    def run(self):
        """Run (or resume) the campaign to its stop rule; returns a CampaignResult."""
        started = time.perf_counter()
        es = self._new_strategy()
        history = self._replay(es) if self.resume else self._start_log()
        resumed = len(history)
        bar = progress_bar(self.max_generations, self.progress, unit="gen",
                           initial=min(resumed, self.max_generations), desc="CMA-ES generations",
                           position=0)
        reason = self.stop_reason(history, es)
        try:
            if bar is not None and history:
                bar.set_postfix_str(f"best {max(g.best_fitness for g in history):.4g}")
            while reason is None:
                g = len(history) + 1
                asked = self._ask(es)
                x = np.array(asked, dtype=float)
                params = self.to_params(x)
                t0 = time.perf_counter()
                progress = (dict(desc=f"generation {g}", position=1, leave=False)
                            if self.progress else None)
                fitness = self._evaluate(params, progress)
                wall = time.perf_counter() - t0
                self._tell(es, asked, fitness)
                gen = Generation(g, x, params, fitness, float(es.sigma), wall)
                history.append(gen)
                self._append(gen, history)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix_str(f"best {max(h.best_fitness for h in history):.4g}")
                reason = self.stop_reason(history, es)
        finally:
            if bar is not None:
                bar.close()
        return self._result(history, reason, time.perf_counter() - started, resumed)

    def _evaluate(self, params, progress):
        fitness = np.asarray(self.objective(params.copy(), progress=progress), dtype=float)
        if fitness.shape != (self.popsize,):
            raise ValueError(f"objective returned fitness of shape {fitness.shape}, expected "
                             f"({self.popsize},)")
        if np.isinf(fitness).any():
            raise ValueError("objective returned an infinite fitness: use NaN for a failed "
                             "evaluation")
        return fitness

    def stop_reason(self, history, es=None):
        """Why the campaign stops after `history`, or None to go on."""
        n = len(history)
        if n >= self.max_generations:
            return f"max_generations ({self.max_generations}) reached"
        if n >= max(self.min_generations, self.patience + 1):
            best = np.maximum.accumulate([_finite_or(g.best_fitness, -np.inf) for g in history])
            gain = best[-1] - best[-1 - self.patience]
            if gain <= self.tolerance:
                return (f"best fitness improved by {gain:.3g} <= {self.tolerance:g} over the "
                        f"last {self.patience} generations")
        if es is not None and n > 0:
            with self._own_rng():
                stop = es.stop()
            stop = {k: v for k, v in stop.items() if k not in ("maxfevals", "maxiter")}
            if stop:
                return "cma termination: " + ", ".join(f"{k}={v}" for k, v in stop.items())
        return None

    def _result(self, history, reason, wall, resumed):
        if not history:
            raise ValueError("the campaign has no finished generation")
        if not any(np.isfinite(h.fitness).any() for h in history):
            raise ValueError(f"every evaluation of the campaign failed ({reason}; "
                             f"{sum(len(h.fitness) for h in history)} NaN fitness values: "
                             "diverged runs, or runs too short to measure): no best to report; "
                             f"the log {self.log_path} keeps the generations")
        best_g = max(history, key=lambda h: _finite_or(h.best_fitness, -np.inf))
        vec = best_g.params[best_g.best_index]
        return CampaignResult(
            best_fitness=best_g.best_fitness,
            best_params={k: float(v) for k, v in zip(self.names, vec)}, best_vector=vec.copy(),
            best_generation=best_g.generation, generations=len(history),
            evaluations=sum(len(h.fitness) for h in history), stop_reason=reason, wall_s=wall,
            evaluation_wall_s=float(sum(h.wall_s for h in history)), history=history,
            resumed_generations=resumed)

    # ------------------------------------------------------------------------ the log
    def _start_log(self):
        if os.path.exists(self.log_path):
            raise ValueError(f"log_path = {self.log_path!r} is not allowed: the campaign log "
                             "already exists (resume it, or choose another output folder)")
        os.makedirs(os.path.dirname(os.path.abspath(self.log_path)), exist_ok=True)
        append_line(self.log_path, self.header())
        return []

    def _append(self, gen, history):
        best = max(history, key=lambda h: _finite_or(h.best_fitness, -np.inf))
        append_line(self.log_path, {
            "kind": "generation", "generation": gen.generation, "x": gen.x.tolist(),
            "params": gen.params.tolist(), "fitness": [_json_float(f) for f in gen.fitness],
            "generation_best_fitness": _json_float(gen.best_fitness),
            "mean_fitness": _json_float(gen.mean_fitness), "sigma": gen.sigma,
            "best_fitness": _json_float(best.best_fitness),
            "best_params": dict(zip(self.names, best.params[best.best_index].tolist())),
            "wall_s": gen.wall_s})

    def _replay(self, es):
        if not os.path.exists(self.log_path):
            raise ValueError(f"log_path = {self.log_path!r} is not allowed for resume: no "
                             "campaign log there (start a new campaign instead)")
        header, records = read_log(self.log_path, repair=True)
        mine = self.header()
        for key in ("format", "names", "lower", "upper", "popsize", "seed", "x0", "sigma0",
                    "meta", "log"):
            if header.get(key) != mine.get(key):
                raise ValueError(f"resume: {key} = {mine.get(key)!r} differs from the log's "
                                 f"{header.get(key)!r} ({self.log_path}); resume with the "
                                 "logged settings")
        history = []
        for i, rec in enumerate(records, start=1):
            if rec.get("generation") != i:
                raise ValueError(f"{self.log_path}: generation {rec.get('generation')!r} found "
                                 f"where generation {i} was expected")
            asked = self._ask(es)
            x = np.array(rec["x"], dtype=float)
            if x.shape != (self.popsize, len(self.names)) or not np.allclose(
                    np.array(asked), x, rtol=0.0, atol=REPLAY_TOLERANCE):
                raise ValueError(f"{self.log_path}: generation {i} does not match the samples "
                                 "of this seed and settings (the log was edited or written by "
                                 "another cma version); cannot resume it")
            fitness = np.array([math.nan if f is None else f for f in rec["fitness"]], dtype=float)
            self._tell(es, asked, fitness)
            history.append(Generation(i, x, np.array(rec["params"], dtype=float), fitness,
                                      float(es.sigma), float(rec.get("wall_s", 0.0))))
            if i < len(records):   # the same calls on es as the uninterrupted run (run() makes
                self.stop_reason(history, es)   # the one after the last generation)
        return history


def append_line(path, record):
    """Append one JSON line to `path` durably: one write, flush, fsync (a crash leaves at most a
    truncated last line, which read_log drops)."""
    line = json.dumps(record, allow_nan=False, separators=(",", ":")) + "\n"
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def read_log(path, repair=False):
    """(header dict, list of generation records) of a campaign log. A last line that is
    truncated (no newline, or not valid JSON) is ignored, and with repair=True cut off the file so
    that the next append starts on a clean line; a bad line anywhere else raises ValueError."""
    return read_jsonl(path, LOG_FORMAT, repair)


def read_jsonl(path, fmt, repair=False):
    """(header, records) of an append-only JSON-lines file whose header line has format `fmt`
    (a campaign log, an evaluation journal); a truncated last line is dropped (and with
    repair=True cut off the file)."""
    with open(path, "rb") as f:
        raw = f.read()
    lines = raw.split(b"\n")
    complete, tail = lines[:-1], lines[-1]      # text after the last newline is unfinished
    records, good_bytes = [], 0
    for i, line in enumerate(complete):
        try:
            records.append(json.loads(line.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            if i == len(complete) - 1 and not tail:
                break                            # a damaged last line: treat as truncated
            raise ValueError(f"{path}: line {i + 1} is not valid JSON (the log is damaged "
                             "before its last line); cannot resume it") from None
        good_bytes += len(line) + 1
    if repair and good_bytes != len(raw):
        with open(path, "r+b") as f:
            f.truncate(good_bytes)
            f.flush()
            os.fsync(f.fileno())
    if not records or records[0].get("kind") != "header":
        raise ValueError(f"{path}: no header line; not a softmech {fmt.split('/')[0]} file")
    header = records[0]
    if header.get("format") != fmt:
        raise ValueError(f"{path}: log format {header.get('format')!r} is not supported "
                         f"(expected {fmt!r})")
    return header, records[1:]


def _finite_or(value, default):
    return value if math.isfinite(value) else default


def _json_float(value):
    value = float(value)
    return value if math.isfinite(value) else None

