"""The snake gait problem of the ME498 handout (section 2.2.6): find the muscle torque wave that
maximizes the forward speed of the Table 2 snake (softmech.scenarios.snake).

Parameters (5): beta_1 .. beta_4 [N m], the interior control points of the clamped cubic
B-spline beta(s) (beta_0 = beta_5 = 0, handout), with |beta_i| <= 50 N m (the handout's bound),
and the wavelength lambda_m [m] in [0.3, 2.0] m: 0.3 m (0.3 body lengths, about 3.3 waves on
the body) is the shortest wave that 50 elements still resolve with 15 elements per wavelength,
and that a real snake's body carries (lateral undulation uses ~1-2 waves); at 2.0 m the body
carries half a wave and the travelling wave degenerates into a bending oscillation that barely
propels. The published optimum (lambda_m = 0.97 m) lies well inside.

Fitness [m/s]: the mean forward centre-of-mass speed over one muscle period after the start-up
transient, (x_com(t_b) - x_com(t_a)) / (t_b - t_a) with (t_a, t_b) = (2 T_m, 3 T_m) by default,
so one evaluation simulates 3 s. The amplitude ramps up over the first period and the gait is
periodic from about 1.3 T_m on (docs/optimization.md); over the populations of a campaign the
speeds over periods 2-3 and 3-4 rank the gaits alike (Spearman 0.91-1.00 while the population
still spreads, same best gait) at 3/4 of the cost. "Forward" is +x, the snake's initial
heading, so a gait that turns is penalized by its heading's cosine.

One generation is ONE batched simulation: the problem is a softmech.optimize.study.Study of the
snake scenario (snake_study: parameters muscle.coefficients[1:5] and muscle.wavelength, objective
com_speed along x over the window, beta_0 = beta_5 = 0 fixed). The study compiles the snake once
with B = popsize worlds, and each evaluation writes the population into the per-world
parameters `muscle.coefficients` (B, 6) and `muscle.wavelength` (B,), resets the state to the
straight snake at rest and the time to 0, and runs. The mirror image of a gait (beta -> -beta) has
exactly the same forward speed (reflection y -> -y of the whole system), so the problem has two
symmetric optima; the campaign finds one of them.
"""
import json
import math
import os

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.io import atomic_write_text
from softmech.progress import progress_bar
from softmech.scenarios.snake import OPTIMAL_GAIT, REFERENCE_SPEED, TABLE2, mean_velocities
from softmech.scenefile.builtin import builtin_scenario
from softmech.scenefile.writer import dumps

NAMES = ("beta_1", "beta_2", "beta_3", "beta_4", "wavelength")
"""Optimized parameters: spline control points [N m] and muscle wavelength [m]."""

BETA_BOUND = 50.0
"""|beta_i| <= 50 N m: the bound the handout used for its campaign."""

WAVELENGTH_RANGE = (0.3, 2.0)
"""Bounds of lambda_m [m] (see the module docstring for why)."""

PUBLISHED_OPTIMUM = dict(zip(NAMES, (*OPTIMAL_GAIT["coefficients"][1:5],
                                     OPTIMAL_GAIT["wavelength"])))
"""The handout's optimum: beta_1..4 = 17.4, 48.5, 5.4, 14.7 N m, lambda_m = 0.97 m."""


CAMPAIGN_DEFAULTS = dict(problem="snake_gait", popsize=16, seed=1, max_generations=60,
                         window=[2.0, 3.0], figure_periods=6.0, beta_bound=BETA_BOUND,
                         wavelength_range=list(WAVELENGTH_RANGE))
"""The [optimize] table of a snake scenario file (`softmech optimize FILE`): the campaign's
settings, with these defaults (window in muscle periods, beta_bound [N m], wavelength_range [m])."""


def campaign_settings(table):
    """Check an [optimize] table; returns it completed with CAMPAIGN_DEFAULTS. ValueError names
    the field, the value and what is allowed."""
    unknown = sorted(set(table) - set(CAMPAIGN_DEFAULTS))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (allowed: {', '.join(CAMPAIGN_DEFAULTS)})")
    s = {**CAMPAIGN_DEFAULTS, **table}
    _checks.choice("problem", s["problem"], {"snake_gait"})
    _checks.integer("popsize", s["popsize"], 4)
    _checks.integer("seed", s["seed"], 0)
    _checks.integer("max_generations", s["max_generations"], 1)
    _checks.positive("figure_periods", s["figure_periods"])
    for key in ("beta_bound", "window", "wavelength_range", "figure_periods"):
        if np.asarray(s[key]).dtype == bool:
            raise ValueError(f"{key} = {s[key]!r} is not allowed: must be numbers, not booleans")
    # the problem's own checks of the search box and the window, without building it
    SnakeGaitProblem.check_box_settings(s["window"], s["beta_bound"], s["wavelength_range"])
    return s


def coefficients_of(params):
    """Population (B, 5) [beta_1..4, lambda] -> (coefficients (B, 6) with zero ends, wavelengths
    (B,))."""
    params = np.atleast_2d(np.asarray(params, dtype=float))
    coefficients = np.zeros((len(params), 6))
    coefficients[:, 1:5] = params[:, :4]
    return coefficients, params[:, 4].copy()


class SnakeGaitProblem:
    """Batched fitness of snake gaits (callable: params (popsize, 5) -> mean forward speeds
    (popsize,) [m/s]; NaN where a world diverged).

    popsize: worlds of the compiled simulation; n_elems; dt [s] (default Table 2's 2.5e-5 s);
    window: (first, last) muscle periods of the fitness average (default (2, 3)); the simulated
    time is window[1] periods. beta_bound [N m] and wavelength_range [m]: the search box.
    scenario: the snake to optimize, a softmech.scenefile.Scenario of template "snake" whose
    muscle is a MuscleTorqueWave with 6 coefficients (e.g. an edited `softmech new snake` file);
    its dt and elements are used and n_elems / dt are ignored. Default: the Table 2 snake with
    n_elems and dt. executor, chunk, journal: where and in which chunks a generation is simulated,
    and the journal of finished chunks (softmech.optimize.executors.evaluate_batch; default:
    locally, the whole population as one batched simulation).
    """

    def __init__(self, popsize=16, *, n_elems=TABLE2["n_elems"], dt=TABLE2["dt"], window=(2.0, 3.0),
                 beta_bound=BETA_BOUND, wavelength_range=WAVELENGTH_RANGE, scenario=None,
                 executor=None, chunk=None, journal=None):
        self.popsize = _checks.integer("popsize", popsize, 1)
        self.window, self.beta_bound, self.wavelength_range = self.check_box_settings(
            window, beta_bound, wavelength_range)
        self.scenario, info = snake_scenario(scenario, n_elems, dt)
        self.n_elems, self.dt = info.n_elems, self.scenario.run.dt
        self.rod, self.muscle, self.period = info.rod, info.muscle, info.period
        self.names = NAMES
        self.lower = np.array([-self.beta_bound] * 4 + [self.wavelength_range[0]])
        self.upper = np.array([self.beta_bound] * 4 + [self.wavelength_range[1]])
        self.steps = tuple(int(round(f * self.period / self.dt)) for f in self.window)
        self.study = snake_study(self.scenario, info, self.window, self.beta_bound,
                                 self.wavelength_range)
        self.executor, self.journal = executor, journal
        self.chunk = None if chunk is None else _checks.integer("chunk", chunk, 1)

    @staticmethod
    def check_box_settings(window, beta_bound, wavelength_range):
        """Checked (window (first, last) [periods], beta_bound [N m], wavelength_range (low,
        high) [m])."""
        w = _checks.finite("window", window, shape=(2,))
        if not 0 <= w[0] < w[1]:
            raise ValueError(f"window = {w.tolist()} is not allowed: must be (first, last) "
                             "periods with 0 <= first < last")
        bound = float(_checks.positive("beta_bound", beta_bound))
        wr = _checks.positive("wavelength_range", wavelength_range)
        if wr.shape != (2,) or not wr[0] < wr[1]:
            raise ValueError(f"wavelength_range = {wavelength_range!r} is not allowed: must be "
                             "(low, high) with 0 < low < high [m]")
        return (float(w[0]), float(w[1])), bound, (float(wr[0]), float(wr[1]))

    @property
    def duration(self):
        """Simulated time of one evaluation [s]."""
        return self.steps[1] * self.dt

    def meta(self):
        """Settings that define the fitness (stored in the campaign log header)."""
        meta = {"problem": "snake", "n_elems": self.n_elems, "dt": self.dt,
                "window_periods": list(self.window), "period": self.period,
                "beta_bound": self.beta_bound, "wavelength_range": list(self.wavelength_range)}
        if self.scenario.source is not None:     # a scenario file: the log keeps its scene
            meta["scenario"] = dumps(self.scenario)
        return meta

    # ---------------------------------------------------------------------- simulation
    def _compile(self, worlds):
        sim = self.scenario.compile(worlds=worlds)
        return sim, sim.get_state(self.rod)

    @property
    def simulation(self):
        """The compiled popsize-world simulation (compiled on first use, then reused)."""
        return self.study._sim(self.popsize, None)[0]

    def __call__(self, params, progress=None):
        """Mean forward speed [m/s] over the window for each gait of params (popsize, 5); NaN
        for a gait whose simulation diverged (the others keep their speed)."""
        from softmech.optimize.executors import evaluate_batch

        params = _checks.finite("params", params, shape=(self.popsize, len(NAMES)))
        values = evaluate_batch(self.study, params, executor=self.executor, chunk=self.chunk,
                                journal=self.journal, progress=progress)
        return values["forward_speed"]


def snake_study(scenario, info, window, beta_bound, wavelength_range):
    """The gait problem as a Study: beta_1..4 = muscle.coefficients[1:5] within +-beta_bound
    (N m), wavelength = muscle.wavelength in wavelength_range [m], beta_0 = beta_5
    = 0; objective forward_speed = com_speed of the rod along x over window (periods) * period."""
    from softmech.optimize.study import Parameter, Study

    muscle = info.muscle
    return Study(scenario, [
        Parameter(f"{muscle}.coefficients[1:5]", -beta_bound, beta_bound, names=NAMES[:4]),
        Parameter(f"{muscle}.wavelength", *wavelength_range, names=NAMES[4:])],
        {"forward_speed": {"quantity": "com_speed", "rod": info.rod, "axis": "x",
                           "window": [window[0] * info.period, window[1] * info.period]}},
        fixed={f"{muscle}.coefficients[0]": 0.0, f"{muscle}.coefficients[5]": 0.0})


def snake_scenario(scenario, n_elems, dt):
    """(scenario, SnakeInfo): the given snake scenario, checked, or the Table 2 snake."""
    if scenario is None:
        scenario = builtin_scenario("snake", n_elems=_checks.integer("n_elems", n_elems, 4),
                                    dt=float(_checks.positive("dt", dt)))
    if scenario.template != "snake":
        raise ValueError(f"scenario template = {scenario.template!r} is not allowed: the snake "
                         "gait problem needs a scenario of template 'snake'")
    info = scenario.info()
    muscle = next(t for t in scenario.scene.terms if t.name == info.muscle)
    if not isinstance(muscle, sm.MuscleTorqueWave) or len(muscle.coefficients) != 6:
        raise ValueError(f"muscle = {info.muscle!r} is not allowed: the snake gait problem "
                         "optimizes a MuscleTorqueWave with 6 coefficients (beta_0 .. beta_5)")
    return scenario, info


def set_gaits(sim, muscle, params):
    """Write gaits (B, 5) into the per-world parameters of the muscle term named `muscle`."""
    coefficients, wavelengths = coefficients_of(params)
    sim.params[f"{muscle}.coefficients"] = coefficients
    sim.params[f"{muscle}.wavelength"] = wavelengths


def simulate_gaits(params, *, n_elems=TABLE2["n_elems"], dt=TABLE2["dt"], periods=6.0,
                   sample=0.01, progress=False, scenario=None):
    """Run gaits (B, 5) side by side for `periods` muscle periods from rest; returns sm.Results
    with time (n_samples,) [s] and positions (B, n_samples, n+1, 3) [m], com [m] and
    com_velocity [m/s] (B, n_samples, 3). scenario: as SnakeGaitProblem's."""
    scenario, info = snake_scenario(scenario, n_elems, dt)
    sim = scenario.compile(worlds=len(np.atleast_2d(params)))
    set_gaits(sim, info.muscle, params)
    record = sm.Every(seconds=sample, fields=(f"{info.rod}.positions", f"{info.rod}.com",
                                              f"{info.rod}.com_velocity"))
    out = sim.run(periods * info.period, record=record, progress=progress)
    for field in ("positions", "com", "com_velocity"):
        out[field] = out.pop(f"{info.rod}.{field}")
    return out


def optimize_snake(output_dir, *, popsize=16, seed=1, max_generations=60, min_generations=20,
                   patience=10, tolerance=1e-3, resume=False, progress=False,
                   n_elems=TABLE2["n_elems"], dt=TABLE2["dt"], window=(2.0, 3.0),
                   figure_periods=6.0, say=None, scenario=None, beta_bound=BETA_BOUND,
                   wavelength_range=WAVELENGTH_RANGE, executor=None, chunk=None):
    """Run (or resume) a CMA-ES campaign for the snake gait, then simulate the best gait next to
    the published one and draw the Fig. 4 panels. Writes into output_dir: campaign.jsonl (the
    log), evaluations.jsonl (the journal of finished chunks), best.json, fitness.png,
    velocities.png, envelope.png, snapshots.png. executor, chunk: where and in chunks of how
    many gaits a generation is simulated (softmech.optimize.executors; default: this machine,
    the whole population at once). Returns the summary dict that best.json holds, plus 'files'
    and 'wall_s' [s] (this call)."""
    import time

    from softmech.optimize.campaign import Campaign
    from softmech.optimize import figures

    started = time.perf_counter()
    say = say or (lambda text: None)
    figure_periods = float(_checks.positive("figure_periods", figure_periods))
    os.makedirs(output_dir, exist_ok=True)
    from softmech.optimize.executors import EvaluationJournal
    from softmech.optimize.design import campaign_resume

    problem = SnakeGaitProblem(popsize, n_elems=n_elems, dt=dt, window=window, scenario=scenario,
                               beta_bound=beta_bound, wavelength_range=wavelength_range,
                               executor=executor, chunk=chunk)
    n_elems, dt = problem.n_elems, problem.dt
    resume_log = campaign_resume(resume, output_dir)       # before the journal is created
    problem.journal = EvaluationJournal(os.path.join(output_dir, "evaluations.jsonl"),
                                        problem.meta(), resume=resume)
    campaign = Campaign(problem, names=NAMES, lower=problem.lower, upper=problem.upper,
                        log_path=os.path.join(output_dir, "campaign.jsonl"), popsize=popsize,
                        seed=seed, max_generations=max_generations,
                        min_generations=min_generations, patience=patience, tolerance=tolerance,
                        meta=problem.meta(), progress=progress,
                        resume=resume_log)
    say(f"CMA-ES snake gait campaign: population {popsize}, seed {seed}, at most "
        f"{max_generations} generations; each generation = one batched run of {popsize} snakes "
        f"({n_elems} elements, dt = {dt:g} s, {problem.duration:g} s simulated; fitness = mean "
        f"forward speed over periods {problem.window[0]:g}-{problem.window[1]:g})")
    result = campaign.run()
    if result.resumed_generations:
        say(f"  resumed {result.resumed_generations} logged generation(s)")
    say(f"  stopped after {result.generations} generations ({result.evaluations} evaluations): "
        f"{result.stop_reason}")
    say(f"  best fitness {result.best_fitness:.4f} m/s (generation {result.best_generation}): "
        + ", ".join(f"{k} = {v:.4g}" for k, v in result.best_params.items()))

    # the best gait and the published optimum side by side, for the figures and best.json
    published = np.array([PUBLISHED_OPTIMUM[k] for k in NAMES])
    say(f"  simulating the best and the published gait for {figure_periods:g} periods")
    out = simulate_gaits(np.stack([result.best_vector, published]), periods=figure_periods,
                         progress=progress, scenario=problem.scenario)
    period = problem.period
    # periods 3-6: where the course's reference speed of the published gait is measured
    check = (min(3.0, figure_periods / 2), figure_periods)
    forward, lateral = mean_velocities(out["time"], out["com"], period, *check)
    summary = {
        "best_fitness": result.best_fitness, "best_params": result.best_params,
        "best_generation": result.best_generation, "generations": result.generations,
        "evaluations": result.evaluations, "stop_reason": result.stop_reason,
        "resumed_generations": result.resumed_generations,
        "evaluation_wall_s": result.evaluation_wall_s, "popsize": popsize, "seed": seed,
        "settings": problem.meta(), "published_params": PUBLISHED_OPTIMUM,
        "check_periods": list(check),
        "best_mean_forward_speed": float(forward[0]), "best_mean_lateral_speed": float(lateral[0]),
        "published_mean_forward_speed": float(forward[1]),
        "published_mean_lateral_speed": float(lateral[1]),
    }
    files = [campaign.log_path, problem.journal.path, _write_json(os.path.join(output_dir, "best.json"), summary)]

    h = result.history
    best_so_far = np.maximum.accumulate([g.best_fitness if math.isfinite(g.best_fitness)
                                         else -np.inf for g in h])
    files.append(figures.plot_fitness(
        [g.generation for g in h], best_so_far, [g.best_fitness for g in h],
        [g.mean_fitness for g in h], os.path.join(output_dir, "fitness.png"),
        reference=REFERENCE_SPEED))
    files.append(figures.plot_velocities(
        out["time"], out["com_velocity"], period, os.path.join(output_dir, "velocities.png"),
        labels=("best gait", "published optimum"),
        window=(problem.window[0] * period, problem.window[1] * period)))
    last = max(0.0, math.floor(figure_periods) - 1.0)
    files.append(figures.plot_envelope(out["time"], out["positions"][0], period, last,
                                       os.path.join(output_dir, "envelope.png")))
    instants = figure_periods * period * np.array([0.25, 0.5, 0.75, 1.0])
    files.append(figures.plot_snapshots(out["time"], out["positions"][0], out["com"][0],
                                        instants, period, os.path.join(output_dir, "snapshots.png"),
                                        radius=problem.scenario.info().radius))
    summary["files"] = files
    summary["wall_s"] = time.perf_counter() - started
    return summary


def _write_json(path, obj):
    """Write obj as JSON to path atomically; returns path."""
    return atomic_write_text(path, json.dumps(obj, indent=2, allow_nan=False) + "\n")
