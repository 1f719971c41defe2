"""The bio-hybrid swimmer design problem of Zhang et al., Nat. Commun. 10:4825 (2019), Fig. 2c:
CMA-ES over head length, head radius, tail radius and cell location (the caption's
manufacturability ranges, softmech.scenarios.swimmer.RANGES) at fixed total length, maximizing
the swimming speed.

Search variables: head_length [m] in [0, L - cell length - one element], head_radius [m] in
[4, 40] um, tail_radius [m] in [4, 6.5] um, and cell_position in [0, 1]: the cell's near end
at head_length + cell_position (L - head_length - cell length), i.e. anywhere on the tail.
Fitness [m/s]: the distance the centre of mass covers between the starts of beats window[0] and
window[1], over the time (the swimmer turns slowly, so the distance, not one axis); the first
beat is the start-up (from the second beat on, the distance per beat repeats to 4 digits).

model "discrete" (the default): each design is its own discrete-rod swimmer (implicit Euler,
softmech.scenarios.swimmer with model="discrete"), run twice, at steps_per_beat and at half of
it, and its speed extrapolated to dt -> 0 (Richardson, implicit Euler being first order:
U = 2 U(h) - U(2 h); docs/swimmer.md checks it against finer steps). The designs of a
generation run in `workers` processes (default: the machine's cores, at most popsize).

model "cosserat": one generation is ONE batched explicit simulation of popsize swimmers: the
design enters through per-world parameters only (`flagellum.radius` (B, n_elems) from
radius_profile, `cell.start` (B,)), so the scene compiles once. All worlds share dt: the
stability estimate of the stiffest corner of the box (the thinnest tail). The run uses the
rotary-inertia scaling of the swimmer scene (rotary_inertia, default 100; docs/swimmer.md
measures its error and why this campaign takes hours).
"""
import math
import os
import time

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.scenarios.swimmer import (CELL_MODELS, FIG2, MODELS, PAPER_OPTIMUM, RANGES,
                                        build_swimmer, radius_profile, stable_dt)

NAMES = ("head_length", "head_radius", "tail_radius", "cell_position")

CAMPAIGN_DEFAULTS = dict(problem="swimmer_design", popsize=8, seed=1, max_generations=48,
                         model="discrete", window=[1.0, 2.0], n_elems=100, steps_per_beat=400,
                         rotary_inertia=100.0, workers=None, cell="force_line")
"""Settings of `softmech optimize swimmer` (window in beats; rotary_inertia: cosserat only;
steps_per_beat, workers, cell (softmech.scenarios.swimmer.CELL_MODELS): discrete only)."""

SAMPLES_PER_BEAT = 20
"""Centre-of-mass samples per beat of a discrete design's run (the window's ends are taken at
the nearest sample)."""

COSSERAT_DEFAULTS = dict(window=[1.0, 3.0], n_elems=50)
"""The explicit model's defaults where they differ."""


def design_cell_location(design):
    """Arc length [m] of the cell's near end from the head's front, for search variables (4,)."""
    head, _, _, position = design
    return head + position * (FIG2["length"] - head - FIG2["cell_length"])


def discrete_design_speed(design, window, n_elems, steps_per_beat, cell="force_line",
                          cell_modulus=None):
    """Swimming speed [m/s] of one design (search variables (4,)) with the discrete model,
    extrapolated to dt -> 0 from steps_per_beat and steps_per_beat / 2 (module docstring);
    NaN if a run diverged. cell: a key of CELL_MODELS; cell_modulus [Pa]: the soft cell's
    Young's modulus instead of the model's (None: the model's)."""
    options = dict(CELL_MODELS[cell])
    if cell_modulus is not None:
        options["cell_modulus"] = cell_modulus
    head, r_head, r_tail, _ = design
    period = 1.0 / FIG2["frequency"]
    scene, _ = build_swimmer(n_elems, model="discrete", head_length=head, head_radius=r_head,
                             tail_radius=r_tail, cell_location=design_cell_location(design),
                             **options)
    speeds = []
    for steps in (steps_per_beat // 2, steps_per_beat):
        sim = scene.compile(dt=period / steps)
        try:
            out = sim.run(window[1] * period, record=sm.Every(period / SAMPLES_PER_BEAT,
                                                              ("flagellum.com",)))
        except sm.SimulationDiverged:
            return math.nan
        t, com = out["time"], out["flagellum.com"][0]
        i0, i1 = (int(np.argmin(np.abs(t - b * period))) for b in window)
        speeds.append(np.linalg.norm(com[i1] - com[i0]) / (t[i1] - t[i0]))
    return float(2.0 * speeds[1] - speeds[0])


def original_design():
    """The Fig. 2 swimmer as search variables (cell at the head-tail junction)."""
    return np.array([FIG2["head_length"], FIG2["head_radius"], FIG2["tail_radius"], 0.0])


def paper_optimum():
    """The caption's optimum as search variables (cell 190 um from the front = the junction)."""
    head = PAPER_OPTIMUM["head_length"]
    tail_room = FIG2["length"] - head - FIG2["cell_length"]
    return np.array([head, PAPER_OPTIMUM["head_radius"], PAPER_OPTIMUM["tail_radius"],
                     (PAPER_OPTIMUM["cell_location"] - head) / tail_room])


class SwimmerDesignProblem:
    """Batched fitness: params (popsize, 4) -> swimming speed (popsize,) [m/s] (NaN where a
    world diverged). See the module docstring; n_elems and window default to the model's."""

    def __init__(self, popsize=8, *, model="discrete", n_elems=None, window=None,
                 rotary_inertia=100.0, steps_per_beat=400, workers=None, cell="force_line",
                 cell_modulus=None):
        self.popsize = _checks.integer("popsize", popsize, 1)
        self.model = _checks.choice("model", model, set(MODELS))
        self.cell = _checks.choice("cell", cell, set(CELL_MODELS))
        self.cell_modulus = None if cell_modulus is None else float(
            _checks.nonnegative("cell_modulus", cell_modulus, shape=()))
        cosserat = self.model == "cosserat"
        if cosserat and self.cell != "force_line":
            raise ValueError(f"cell = {cell!r} is not allowed with model = 'cosserat': the "
                             "batched Cosserat campaign has the force-line cell only")
        defaults = COSSERAT_DEFAULTS if cosserat else CAMPAIGN_DEFAULTS
        self.n_elems = _checks.integer("n_elems", defaults["n_elems"] if n_elems is None
                                       else n_elems, 10)
        w = _checks.finite("window", defaults["window"] if window is None else window,
                           shape=(2,))
        if not 0 <= w[0] < w[1]:
            raise ValueError(f"window = {w.tolist()} is not allowed: (first, last) beats with "
                             "0 <= first < last")
        self.window = (float(w[0]), float(w[1]))
        self.rotary_inertia = float(_checks.positive("rotary_inertia", rotary_inertia))
        self.steps_per_beat = _checks.integer("steps_per_beat", steps_per_beat, 2)
        if self.steps_per_beat % 2:
            raise ValueError(f"steps_per_beat = {steps_per_beat} is not allowed: must be even "
                             "(the speed is extrapolated from it and its half)")
        self.workers = min(self.popsize, _checks.integer(
            "workers", (os.cpu_count() or 1) if workers is None else workers, 1))
        element = FIG2["length"] / self.n_elems
        self.names = NAMES
        self.lower = np.array([0.0, RANGES["head_radius"][0], RANGES["tail_radius"][0], 0.0])
        self.upper = np.array([FIG2["length"] - FIG2["cell_length"] - element,
                               RANGES["head_radius"][1], RANGES["tail_radius"][1], 1.0])
        self.period = 1.0 / FIG2["frequency"]
        self._sim = self._pool = None
        if cosserat:
            stiff, _ = build_swimmer(self.n_elems, model="cosserat", head_radius=self.upper[1],
                                     tail_radius=self.lower[2], rotary_inertia=self.rotary_inertia)
            self.dt = stable_dt(stiff, self.period)
            self.scene, self.info = build_swimmer(self.n_elems, self.popsize, model="cosserat",
                                                  rotary_inertia=self.rotary_inertia, dt=self.dt)
        else:
            self.dt = self.period / self.steps_per_beat

    def meta(self):
        base = {"problem": "swimmer_design", "model": self.model, "n_elems": self.n_elems,
                "dt": self.dt, "window_beats": list(self.window)}
        if self.model == "cosserat":
            return {**base, "rotary_inertia": self.rotary_inertia}
        return {**base, "steps_per_beat": self.steps_per_beat, "cell": self.cell,
                "cell_modulus": self.cell_modulus,
                "extrapolation": "Richardson from steps_per_beat and steps_per_beat / 2"}

    def close(self):
        """Stop the worker processes (discrete model)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _discrete_speeds(self, params):
        args = (self.window, self.n_elems, self.steps_per_beat, self.cell, self.cell_modulus)
        if self.workers == 1 or len(params) == 1:
            return np.array([discrete_design_speed(p, *args) for p in params])
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn: a fresh interpreter per worker (no fork of numba's threads)
            self._pool = ProcessPoolExecutor(self.workers,
                                             mp_context=multiprocessing.get_context("spawn"))
        futures = [self._pool.submit(discrete_design_speed, p, *args) for p in params]
        return np.array([f.result() for f in futures])

    def world_parameters(self, params):
        """Search variables (B, 4) -> (radius (B, n_elems) [m], cell start (B,) [m])."""
        params = np.atleast_2d(np.asarray(params, dtype=float))
        head, r_head, r_tail, position = params.T
        start = head + position * (FIG2["length"] - head - FIG2["cell_length"])
        return radius_profile(self.n_elems, head, r_head, r_tail), start

    def speeds(self, params, beats=None, record=False):
        """Run the designs (B <= popsize, padded with the first) for window[1] (or `beats`)
        beats; returns speeds (B,) [m/s] and, with record, the recorded Results."""
        params = np.atleast_2d(np.asarray(params, dtype=float))
        if self.model == "discrete":
            if beats is not None or record:
                raise ValueError("beats and record are for the cosserat model's batched run")
            return self._discrete_speeds(params), None
        k = len(params)
        padded = np.concatenate([params, np.repeat(params[:1], self.popsize - k, axis=0)])
        if self._sim is None:
            self._sim = self.scene.compile(worlds=self.popsize, dt=self.dt)
            self._initial = self._sim.get_state("flagellum")
        sim = self._sim
        radius, start = self.world_parameters(padded)
        sim.params["flagellum.radius"] = radius
        sim.params["cell.start"] = start
        sim.set_state("flagellum", **self._initial)
        sim.time = 0.0
        beats = self.window[1] if beats is None else beats
        fields = ("flagellum.com",) + (("flagellum.positions",) if record else ())
        try:
            out = sim.run(beats * self.period, record=sm.Every(self.period / 20, fields))
        except sm.SimulationDiverged:
            return np.full(k, math.nan), None
        t, com = out["time"], out["flagellum.com"]
        i0, i1 = (int(np.argmin(np.abs(t - b * self.period))) for b in self.window)
        speed = np.linalg.norm(com[:, i1] - com[:, i0], axis=1) / (t[i1] - t[i0])
        return speed[:k], out

    def __call__(self, params, progress=None):
        return self.speeds(_checks.finite("params", params, shape=(self.popsize, len(NAMES))))[0]


def optimize_swimmer(output_dir, *, popsize=8, seed=1, max_generations=48, min_generations=10,
                     patience=10, tolerance=1e-7, model="discrete", window=None, n_elems=None,
                     rotary_inertia=100.0, steps_per_beat=400, workers=None, resume=False,
                     progress=False, say=None, cell="force_line", cell_modulus=None):
    """Run (or resume) the design campaign; writes campaign.jsonl, best.json, fitness.png into
    output_dir and returns the summary (best design, its speed and the original's and the
    paper optimum's, speed-ups, wall time per generation)."""
    from softmech.optimize.design import design_campaign, write_design_summary

    started = time.perf_counter()
    say = say or (lambda text: None)
    os.makedirs(output_dir, exist_ok=True)
    problem = SwimmerDesignProblem(popsize, model=model, n_elems=n_elems, window=window,
                                   rotary_inertia=rotary_inertia, steps_per_beat=steps_per_beat,
                                   workers=workers, cell=cell, cell_modulus=cell_modulus)
    campaign = design_campaign(problem, output_dir, names=NAMES, lower=problem.lower,
                               upper=problem.upper, initial=original_design(), resume=resume,
                               popsize=popsize, seed=seed, max_generations=max_generations,
                               min_generations=min_generations, patience=patience,
                               tolerance=tolerance, progress=progress)
    say(f"CMA-ES swimmer design campaign: population {popsize}, seed {seed}, at most "
        f"{max_generations} generations ({problem.model} model, {problem.n_elems} elements, "
        f"dt = {problem.dt:.3g} s, {problem.window[1]:g} beats, cell {problem.cell}; "
        f"fitness = speed over beats "
        f"{problem.window[0]:g}-{problem.window[1]:g})")
    try:
        result = campaign.run()
        reference = np.stack([result.best_vector, original_design(), paper_optimum()])
        speeds, _ = problem.speeds(reference)
    finally:
        problem.close()
    summary = write_design_summary(output_dir, campaign, result, {
        "speed_best": float(speeds[0]), "speed_original": float(speeds[1]),
        "speed_paper_optimum": float(speeds[2]),
        "speedup": float(speeds[0] / speeds[1]),
        "paper_optimum_speedup": float(speeds[2] / speeds[1]),
        "paper_reported_speedup": PAPER_OPTIMUM["speedup"], "settings": problem.meta(),
    }, ylabel="fitness: swimming speed [m/s]",
        reference=PAPER_OPTIMUM["speedup"] * float(speeds[1]),
        reference_label=f"the paper's {PAPER_OPTIMUM['speedup']:g}x the original's")
    summary["wall_s"] = time.perf_counter() - started
    return summary
