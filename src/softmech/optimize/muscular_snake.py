"""The muscular snake's layout problem of Zhang et al., Nat. Commun. 10:4825 (2019), Fig. 3b-d
and Supplementary Note 4: for n = 1..6 antagonistic muscle pairs, CMA-ES over each pair's start,
span, peak force and phase (softmech.scenarios.muscular_snake), maximizing the mean forward
speed; compared with the continuous-torque snake (0.585 m/s; the paper: four pairs come close
to it).

Search variables, per pair: start [vertebrae] in [5, 95], length in [0, 90], force [N] in
[0, 3500], phase in [0, 1]; a sample is made a layout by `feasible_groups` (length clipped to
95 - start). Fitness [m/s]: mean forward centre-of-mass speed over periods window[0]..window[1]
(default 2-4). A layout whose snake leaves the ground -- its centre of mass above LIFT_OFF x r
at any sample -- is infeasible (NaN, ranked last): the eq. 2 bounds allow 43.75 N m per pair
(3500 N at r / 2), and overlapping pairs add, enough to throw the 2 kg snake into the air
(measured: unconstrained campaigns "won" with jumps to 1.2 m). One generation is ONE batched
simulation: the layout is the per-world parameter `muscle.groups` (B, n, 4).

muscles="rods": the pairs are glued muscle rods (softmech.scenarios.muscular_snake.
add_muscle_rods); a layout's spans decide which body nodes carry muscles, i.e. the scene's
bodies, so every sample is its own scene and simulation (one world each, in turn): a generation
costs popsize runs instead of one batched run. muscles="paper_rods": the same rods glued as in
the paper's code (their end anchors' moments as couples on the body).

overlap=False: the paper's non-overlapping study (Supplementary Note 4: "non-overlapping
architectures were systematically discarded by CMA-ES as sub-optimal (up to 60% speed
degradation)"): every sample is made a layout of disjoint spans by `non_overlapping_groups`.

taper (couples only): the body's tail-to-head radius ratio (softmech.scenarios.snake.
tapered_radii; the paper's "tapered" skeleton, whose profile it does not give); dt [s] the time
step (Table 2's 2.5e-5 s; a taper below 0.55 needs less: the thin tail's rotational damping).
"""
import math
import os
import time

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.scenarios.muscular_snake import (LAYOUTS, MAX_FORCE, MUSCLE_KINDS,
                                               build_muscular_snake, check_taper,
                                               feasible_groups,
                                               initial_layout, non_overlapping_groups,
                                               pair_nodes, projected_layout)
from softmech.scenarios.snake import REFERENCE_SPEED, TABLE2, mean_velocities

CAMPAIGN_DEFAULTS = dict(problem="muscular_snake", pairs=4, popsize=12, seed=1,
                         max_generations=40, window=[3.0, 6.0], n_elems=50, muscles="couples",
                         overlap=True, start="projected", sigma0=0.05)
"""Settings of `softmech optimize muscular_snake` (window in periods): the paper's budget of
~40 generations; the search starts from the continuous gait's projection onto the pairs with a
step of 0.05 of each range (from equal disjoint spans with a quarter of each range the
campaigns did not converge in 40 generations: docs/musculoskeletal.md); the window of the
continuous snake's reference speed, periods 3-6, all
simulated, so that the lift-off rule covers the whole run (with window 2-4, three of six
campaigns' best layouts left the ground after period 4: docs/musculoskeletal.md)."""

LIFT_OFF = 2.0
"""A snake whose centre of mass rises above LIFT_OFF x its radius has left the ground."""


class MuscularSnakeProblem:
    """Batched fitness: params (popsize, 4 n) -> forward speed (popsize,) [m/s] (NaN where a
    world diverged). See the module docstring."""

    def __init__(self, pairs=4, popsize=12, *, n_elems=50, window=(2.0, 4.0), muscles="couples",
                 overlap=True, start="uniform", taper=1.0, dt=TABLE2["dt"]):
        self.pairs = _checks.integer("pairs", pairs, 1)
        if self.pairs > 6:
            raise ValueError(f"pairs = {pairs} is not allowed: must be in [1, 6] (the paper's n)")
        self.popsize = _checks.integer("popsize", popsize, 1)
        w = _checks.finite("window", window, shape=(2,))
        if not 0 <= w[0] < w[1]:
            raise ValueError(f"window = {w.tolist()} is not allowed: (first, last) periods with "
                             "0 <= first < last")
        self.window = (float(w[0]), float(w[1]))
        self.names = tuple(f"{field}_{i}" for i in range(self.pairs)
                           for field in ("start", "length", "force", "phase"))
        self.lower = np.tile([5.0, 0.0, 0.0, 0.0], self.pairs)
        self.upper = np.tile([95.0, 90.0, MAX_FORCE, 1.0], self.pairs)
        self.muscles = _checks.choice("muscles", muscles, set(MUSCLE_KINDS))
        if not isinstance(overlap, bool):
            raise ValueError(f"overlap = {overlap!r} is not allowed: must be True or False")
        self.overlap = overlap
        self.n_elems = _checks.integer("n_elems", n_elems, 10)
        self.start = _checks.choice("start", start, set(LAYOUTS))
        self.scene, self.info = build_muscular_snake(self.n_elems, self.popsize, pairs=self.pairs,
                                                     layout="uniform", dt=dt,
                                                     taper=check_taper(taper, self.muscles))
        self.taper = float(taper)
        self._sim = None

    def meta(self):
        meta = {"problem": "muscular_snake", "pairs": self.pairs, "n_elems": self.info.n_elems,
                "dt": self.info.dt, "window_periods": list(self.window)}
        if self.muscles != "couples":   # only then: the couples' campaigns resume unchanged
            meta["muscles"] = self.muscles
        if not self.overlap:            # likewise: only the non-overlapping study names it
            meta["overlap"] = False
        if self.start != "uniform":     # likewise: campaigns logged before the projected start
            meta["start"] = self.start
        if self.taper != 1.0:           # likewise: a tapered body (build_snake's taper)
            meta["taper"] = self.taper
        return meta

    def groups(self, params):
        """Search variables (B, 4 n) -> feasible layouts (B, n, 4)."""
        rows = np.atleast_2d(params).reshape(-1, self.pairs, 4)
        return feasible_groups(rows) if self.overlap else non_overlapping_groups(rows)

    def speeds(self, params):
        """Forward speeds (B,) [m/s] of the layouts params (B <= popsize, 4 n)."""
        params = np.atleast_2d(np.asarray(params, dtype=float))
        if self.muscles != "couples":
            return np.array([self._rod_speed(g) for g in self.groups(params)])
        k = len(params)
        padded = np.concatenate([params, np.repeat(params[:1], self.popsize - k, axis=0)])
        if self._sim is None:
            self._sim = self.scene.compile(worlds=self.popsize, dt=self.info.dt)
            self._initial = self._sim.get_state("snake")
        sim = self._sim
        sim.params["muscle.groups"] = self.groups(padded)
        sim.set_state("snake", **self._initial)
        sim.time = 0.0
        return self._run(sim, k)

    def _rod_speed(self, groups):
        """Forward speed [m/s] of one layout (n, 4) with glued muscle rods: its own scene; 0
        when no pair spans a body node (no muscle: the snake lies still)."""
        if all(pair_nodes(self.scene.rods[0], g[0], g[1]) is None for g in groups):
            return 0.0
        scene, _ = build_muscular_snake(self.n_elems, 1, groups=groups, muscles=self.muscles,
                                        taper=self.taper, dt=self.info.dt)
        return float(self._run(scene.compile(dt=self.info.dt), 1)[0])

    def _run(self, sim, k):
        """Forward speeds of the first k worlds of `sim` (fresh state) over the window."""
        period = self.info.period
        try:
            out = sim.run(self.window[1] * period, record=sm.Every(period / 20, ("snake.com",)))
        except sm.SimulationDiverged:
            return np.full(k, math.nan)
        forward, _ = mean_velocities(out["time"], out["snake.com"], period, *self.window)
        lifted = out["snake.com"][:, :, 2].max(axis=1) > LIFT_OFF * self.info.radius
        return np.where(lifted, math.nan, forward)[:k]

    def __call__(self, params, progress=None):
        return self.speeds(_checks.finite("params", params, shape=(self.popsize, 4 * self.pairs)))


def starting_layout(start, pairs, *, overlap=True, n_elems=50, taper=1.0):
    """The campaign's starting layout (n, 4): "projected" (the continuous gait projected onto
    the pairs, softmech.scenarios.muscular_snake.projected_layout, non-overlapping with
    overlap=False) or "uniform" (initial_layout: n equal disjoint spans at 1500 N)."""
    start = _checks.choice("start", start, set(LAYOUTS))
    if start == "uniform":
        return np.array(initial_layout(pairs))
    return projected_layout(pairs, overlap=overlap, n_elems=n_elems, taper=taper)[0]


def optimize_muscular_snake(output_dir, *, pairs=4, popsize=12, seed=1, max_generations=40,
                            min_generations=10, patience=8, tolerance=1e-4, window=(3.0, 6.0),
                            n_elems=50, muscles="couples", overlap=True, start="projected",
                            sigma0=0.05, taper=1.0, dt=TABLE2["dt"], resume=False,
                            progress=False, say=None):
    """Run (or resume) the layout campaign for `pairs` pairs from the `start` layout
    (`starting_layout`) with CMA-ES's initial step sigma0 (a fraction of each variable's range);
    writes campaign.jsonl, best.json, fitness.png into output_dir and returns the summary (best
    layout, its speed, the starting layout's, the continuous-torque reference). Defaults:
    CAMPAIGN_DEFAULTS'; taper, dt [s]: the body's and the time step (MuscularSnakeProblem; the
    summary's continuous-torque speed is then still the uniform body's, REFERENCE_SPEED)."""
    from softmech.optimize.design import design_campaign, write_design_summary

    started = time.perf_counter()
    say = say or (lambda text: None)
    problem = MuscularSnakeProblem(pairs, popsize, n_elems=n_elems, window=window, muscles=muscles,
                                   overlap=overlap, start=start, taper=taper, dt=dt)
    sigma0 = float(_checks.positive("sigma0", sigma0, shape=()))
    if sigma0 > 1.0:
        raise ValueError(f"sigma0 = {sigma0:g} is not allowed: must be in (0, 1] (a fraction of "
                         "each search variable's range)")
    os.makedirs(output_dir, exist_ok=True)
    initial = np.ravel(starting_layout(start, problem.pairs, overlap=overlap, n_elems=n_elems,
                                       taper=taper))
    campaign = design_campaign(problem, output_dir, names=problem.names, lower=problem.lower,
                               upper=problem.upper, initial=initial, sigma0=sigma0,
                               resume=resume, popsize=popsize, seed=seed,
                               max_generations=max_generations,
                               min_generations=min(min_generations, max_generations),
                               patience=patience, tolerance=tolerance, progress=progress)
    runs = "one batched run" if muscles == "couples" else f"{popsize} runs"
    say(f"CMA-ES muscular snake campaign: {pairs} pairs ({muscles}), population {popsize}, seed "
        f"{seed}, at most {max_generations} generations of {runs} each (fitness = forward speed "
        f"over periods {problem.window[0]:g}-{problem.window[1]:g})")
    result = campaign.run()
    speeds = problem.speeds(np.stack([result.best_vector, initial]))
    best = problem.groups(result.best_vector)[0]
    summary = write_design_summary(output_dir, campaign, result, {
        "pairs": pairs, "best_layout": best.tolist(), "speed_best": float(speeds[0]),
        "start": start, "starting_layout": problem.groups(initial)[0].tolist(),
        "speed_initial_layout": float(speeds[1]),
        "continuous_torque_speed": REFERENCE_SPEED,
        "fraction_of_continuous": float(speeds[0] / REFERENCE_SPEED),
        "settings": problem.meta()}, ylabel="fitness: forward speed [m/s]")
    summary["wall_s"] = time.perf_counter() - started
    return summary


__all__ = ["MuscularSnakeProblem", "optimize_muscular_snake", "CAMPAIGN_DEFAULTS", "TABLE2"]
