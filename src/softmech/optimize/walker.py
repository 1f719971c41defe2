"""The bio-hybrid walker design problem of Zhang et al., Nat. Commun. 10:4825 (2019), Fig.
2g-h: CMA-ES over the skeleton's Young's modulus [250-350 kPa], the shorter pillar's length
[2.4-3.4 mm] and the muscle strip's height [0.5-3 mm] (the caption's manufacturability ranges)
at fixed overall length and a stimulation of 2 Hz, maximizing the walking speed (paper: the
optimum walks ~2.5x faster than the original design).

Search variables: youngs_modulus [Pa], short_pillar [m], strip_height [m]; the strip height
is clipped to [r + l/2, short pillar - r - l/2] (r the radius, l the element length: no tiny
element) with the muscle strip, and to the range where the rings clear the feet and the bridge
with muscle="rings" (the default: softmech.scenarios.walker.ring_height_range). Every design
runs at one dt: 0.9 x the stability limit of the box's stiffest corners (or 1e-5 s), so that a
design's fitness does not depend on the others in its generation. Fitness [m/s]: the mean
speed along +x (the original design's walking direction) over the whole periods between
`settle` [s] and `duration` [s] (softmech.scenarios.walker.mean_speeds): 2 s and 4 s by
default -- the original's gaits are periodic from 2 s at 0.5, 1 and 2 Hz (steps within 1-4 %
of each other). (Before the ground's surface tolerance was fixed, issue 28, the feet hovered
and the 4 Hz gait, "2 Hz" before ActiveMuscle.walker's one contraction per stimulus, was
periodic only from ~3.5 s: a window from 1 s to 3 s read it 26 % fast;
docs/musculoskeletal.md.) The paper optimizes at 2 Hz and reports the design at 0.5,
1 and 2 Hz: the summary gives the best and the original designs' speeds at REPORT_FREQUENCIES,
each over `settle` + REPORT_SPAN [s] (two periods at 0.5 Hz). Issue 28 asks for 2x at each of
the three, which a campaign at 2 Hz does not aim at: with fitness="least_speedup" the fitness
is the least of a design's three speed-ups over the original's (one run per frequency, each
over settle .. duration; the original's measured once).

Geometry changes the skeleton's rest shape, which per-world parameters cannot, so a
generation is, with the strip, ONE simulation of popsize walkers side by side in one world (they
do not interact; softmech.scenarios.walker.build_walker(designs=...)); with rings, one
simulation per design (WalkerDesignProblem.speeds). The scene is rebuilt per
generation but its step -- the same term kinds -- is compiled once and cached.
"""
import math
import os
import time

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.scenarios.walker import (DEFAULTS, MM, MUSCLES, build_walker, mean_speeds,
                                       ring_height_range, walker_parameters)

NAMES = ("youngs_modulus", "short_pillar", "strip_height")
LOWER = np.array([250e3, 2.4 * MM, 0.5 * MM])
UPPER = np.array([350e3, 3.4 * MM, 3.0 * MM])
FREQUENCY = 2.0
"""[Hz] of the campaign's fitness ("fixing ... the muscle contraction frequency at 2 Hz")."""
REPORT_FREQUENCIES = (0.5, 1.0, 2.0)
"""[Hz] at which the paper reports the optimum against the original (Fig. 2i)."""
REPORT_SPAN = 4.0
"""[s] measured at each report frequency after the settling time: two periods at 0.5 Hz."""
PAPER_SPEEDUP = 2.5
"""'locomotes at double (~250%) the speed' of the original design (Zhang et al. 2019)."""
REQUIRED_SPEEDUP = 2.0
"""The least speed-up at each report frequency that issue 28 asks of the campaign's best."""

SETTLE = 2.0
"""[s] before a design's speed is measured: the original's gaits are periodic from 2 s."""
FITNESSES = ("speed", "least_speedup")
"""What the campaign maximizes: the speed along +x at FREQUENCY (the paper's campaign), or the
least, over REPORT_FREQUENCIES, of the design's speed over the original's at that frequency
(issue 28 asks for 2x at each: one run per frequency and design)."""
CAMPAIGN_DEFAULTS = dict(problem="walker_design", popsize=8, seed=1, max_generations=25,
                         duration=4.0, muscle="rings", bath_damping=None, fitness="speed",
                         tangential_stiffness=None, internal_damping=None)
"""Settings of `softmech optimize walker` (duration [s] of each evaluation: SETTLE + 2 s)."""


def original_design():
    """The scene's default walker as search variables."""
    return np.array([DEFAULTS["youngs_modulus"], DEFAULTS["short_pillar"], DEFAULTS["strip_height"]])


class WalkerDesignProblem:
    """Batched fitness: params (popsize, 3) -> walking speed along +x at FREQUENCY (popsize,)
    [m/s], or with fitness="least_speedup" the least speed-up over the original at
    REPORT_FREQUENCIES [-] (NaN if a run diverged). See the module docstring."""

    def __init__(self, popsize=8, *, duration=4.0, settle=SETTLE, muscle="rings",
                 bath_damping=None, fitness="speed", tangential_stiffness=None,
                 internal_damping=None):
        self.popsize = _checks.integer("popsize", popsize, 1)
        self.duration = float(_checks.positive("duration", duration))
        self.settle = float(_checks.nonnegative("settle", settle))
        self.fitness = _checks.choice("fitness", fitness, set(FITNESSES))
        lowest = FREQUENCY if self.fitness == "speed" else min(REPORT_FREQUENCIES)
        if self.duration < self.settle + 1.0 / lowest:
            raise ValueError(f"duration = {duration!r} is not allowed: must be >= settle + one "
                             f"period at {lowest:g} Hz = {self.settle + 1.0 / lowest:g} s "
                             f"(the speed is measured over whole periods after the settling time)")
        self._original = None     # the original's speeds at REPORT_FREQUENCIES (least_speedup)
        self.muscle = _checks.choice("muscle", muscle, set(MUSCLES))
        # build_walker's options for every design: the bath's damping on every rod and the
        # damping of the walker's deformation [kg/(m s)], the ground friction's tangential
        # stiffness [N/m] (None: its defaults)
        given = {"bath_damping": bath_damping, "tangential_stiffness": tangential_stiffness,
                 "internal_damping": internal_damping}
        self.options = {k: float(_checks.nonnegative(k, v)) for k, v in given.items()
                        if v is not None}
        self.names, self.lower, self.upper = NAMES, LOWER, UPPER
        # one dt for every design (a design's fitness must not depend on its companions):
        # 0.9 x the stability limit of the box's stiffest corners (strip at a pillar's top)
        corners = np.array([[UPPER[0], p, UPPER[2]] for p in (LOWER[1], UPPER[1])])
        scene, info = build_walker(frequencies=(FREQUENCY,), designs=self.designs(corners),
                                   muscle=self.muscle, **self.options)
        limit = float(scene.time_step_limit().min())
        self.dt = min(info.dt, 0.9 * limit)

    def meta(self):
        # (the default fitness unrecorded: the logs of before resume)
        fitness = {} if self.fitness == "speed" else {"fitness": self.fitness}
        # held in its plane and on friction that sticks since 2026-12-07 (build_walker's planar
        # and tangential_stiffness): a log without them (the free walker on the regularized
        # friction) is refused on resume, its designs scored in another model
        ground = walker_parameters(self.options, self.muscle)["tangential_stiffness"]
        return {"problem": "walker_design", "frequency": FREQUENCY, "duration": self.duration,
                "settle": self.settle, "dt": self.dt, "muscle": self.muscle, **self.options,
                **fitness, "planar": DEFAULTS["planar"], "tangential_stiffness": ground}

    def designs(self, params):
        """Search variables (B, 3) -> build_walker designs (list of dicts, SI units)."""
        out = []
        for e, pillar, height in np.atleast_2d(params):
            # the strip stays on the pillar, half an element from its top and from the foot's
            # centreline (no tiny element: the time step stays that of the default design)
            half = 0.5 * DEFAULTS["element"]
            top, bottom = pillar - DEFAULTS["radius"] - half, DEFAULTS["radius"] + half
            if self.muscle == "rings":
                bottom, top = ring_height_range(dict(DEFAULTS, short_pillar=pillar))
            out.append({"youngs_modulus": float(e), "short_pillar": float(pillar),
                        "strip_height": float(np.clip(height, bottom, top))})
        return out

    def speeds(self, params, frequency=FREQUENCY, duration=None):
        """Speeds (B,) [m/s] of the designs params (B, 3) stimulated at `frequency` [Hz] over
        `duration` [s] (default: the campaign's): with the strip all in one simulation;
        with rings one simulation each -- the rings' contact runs on one grid per world whose
        cell size is set by the largest element of any walker, so a companion would change the
        order in which contact forces add up, and the rings walker amplifies such round-off
        differences (measured: 9% of the speed of a 1.6 s run, 0.6 s of it measured; 0.2-1.6%
        over 5 s, docs/musculoskeletal.md)."""
        params = np.atleast_2d(np.asarray(params, dtype=float))
        duration = self.duration if duration is None else float(duration)
        if self.muscle == "rings":
            return np.concatenate([self._speeds(row[None], frequency, duration) for row in params])
        return self._speeds(params, frequency, duration)

    def _speeds(self, params, frequency, duration):
        """Speeds (B,) [m/s] of the designs params (B, 3), all in one simulation."""
        scene, info = build_walker(frequencies=(frequency,), designs=self.designs(params),
                                   duration=duration, muscle=self.muscle, **self.options)
        sim = scene.compile(dt=self.dt)
        try:
            out = sim.run(duration, record=sm.Every(0.01, tuple(f"{s}.com" for s in info.skeletons)))
        except sm.SimulationDiverged:
            return np.full(len(params), math.nan)
        x = np.stack([out[f"{s}.com"][0][:, 0] for s in info.skeletons])
        return mean_speeds(out["time"], x, info.frequencies, settle=self.settle)

    def report(self, best):
        """The design `best` (3,) against the original at REPORT_FREQUENCIES, each over settle +
        REPORT_SPAN [s]: {"speeds_best", "speeds_original", "speedups"}, each a dict frequency
        [Hz] (as text) -> speed [m/s] or speed-up."""
        out = {"speeds_best": {}, "speeds_original": {}, "speedups": {}}
        for f in REPORT_FREQUENCIES:
            b, o = self.speeds(np.stack([best, original_design()]), f, self.settle + REPORT_SPAN)
            key = f"{f:g}"
            out["speeds_best"][key], out["speeds_original"][key] = float(b), float(o)
            out["speedups"][key] = float(b / o)
        return out

    def least_speedups(self, params):
        """The least, over REPORT_FREQUENCIES, of each design's speed over the original's at
        that frequency (B,) (NaN where a run diverged), each over the campaign's duration; the
        original's speeds are measured once, at the first call."""
        if self._original is None:
            original = np.array([self.speeds(original_design()[None], f)[0]
                                 for f in REPORT_FREQUENCIES])
            if not (original > 0.0).all():       # (NaN too: a speed-up needs a forward walker)
                raise ValueError(f"fitness = 'least_speedup' is not allowed here: the original "
                                 f"design walks {original * 1e6} um/s at "
                                 f"{REPORT_FREQUENCIES} Hz, and a speed-up over it needs it "
                                 "to walk forward at each")
            self._original = original
        ratios = np.stack([self.speeds(params, f) / o
                           for f, o in zip(REPORT_FREQUENCIES, self._original)])
        return ratios.min(axis=0)        # (NaN if any frequency's run diverged)

    def __call__(self, params, progress=None):
        params = _checks.finite("params", params, shape=(self.popsize, len(NAMES)))
        return self.speeds(params) if self.fitness == "speed" else self.least_speedups(params)


def optimize_walker(output_dir, *, popsize=8, seed=1, max_generations=25, min_generations=5,
                    patience=8, tolerance=1e-9, duration=4.0, muscle="rings", bath_damping=None,
                    fitness="speed", tangential_stiffness=None, internal_damping=None,
                    resume=False, progress=False, say=None):
    """Run (or resume) the design campaign; writes campaign.jsonl, best.json, fitness.png and
    speedups.png (both designs at REPORT_FREQUENCIES against the paper's speed-up) into
    output_dir and returns the summary (best design, its speed at 2 Hz, the original's,
    speed-up; both designs at REPORT_FREQUENCIES: WalkerDesignProblem.report). bath_damping
    [kg/(m s)], internal_damping [kg/(m s)] (sm.RelativeDamping on each walker's rods) and
    tangential_stiffness [N/m] (the ground friction's; 0: the regularized law):
    build_walker's, for every design and the original (None: its defaults);
    fitness: FITNESSES' (the speed at 2 Hz, or the least speed-up over 0.5, 1 and 2 Hz)."""
    from softmech.optimize.design import design_campaign, write_design_summary

    started = time.perf_counter()
    say = say or (lambda text: None)
    os.makedirs(output_dir, exist_ok=True)
    problem = WalkerDesignProblem(popsize, duration=duration, muscle=muscle,
                                  bath_damping=bath_damping, fitness=fitness,
                                  tangential_stiffness=tangential_stiffness,
                                  internal_damping=internal_damping)
    campaign = design_campaign(problem, output_dir, names=NAMES, lower=LOWER, upper=UPPER,
                               initial=original_design(), resume=resume, popsize=popsize,
                               seed=seed, max_generations=max_generations,
                               min_generations=min(min_generations, max_generations),
                               patience=patience, tolerance=tolerance, progress=progress)
    runs = f"one run of {popsize} walkers" if muscle == "strip" else f"{popsize} runs"
    measured = (f"{FREQUENCY:g} Hz, muscle {muscle}; fitness = speed along +x"
                if fitness == "speed" else
                f"{', '.join(f'{f:g}' for f in REPORT_FREQUENCIES)} Hz each, muscle {muscle}; "
                f"fitness = the least speed-up over the original's")
    say(f"CMA-ES walker design campaign: population {popsize}, seed {seed}, at most "
        f"{max_generations} generations of {runs} each ({duration:g} s at {measured} after "
        f"{problem.settle:g} s)")
    result = campaign.run()
    speeds = problem.speeds(np.stack([result.best_vector, original_design()]))
    summary = write_design_summary(output_dir, campaign, result, {
        "speed_best": float(speeds[0]), "speed_original": float(speeds[1]),
        "speedup": float(speeds[0] / speeds[1]), **problem.report(result.best_vector),
        "paper_reported_speedup": PAPER_SPEEDUP, "settings": problem.meta()},
        ylabel="fitness: walking speed [m/s]" if fitness == "speed" else
        "fitness: least speed-up over 0.5, 1, 2 Hz",
        reference=PAPER_SPEEDUP * (float(speeds[1]) if fitness == "speed" else 1.0),
        reference_label=f"the paper's {PAPER_SPEEDUP:g}x the original's")
    summary["files"].append(_speedups_figure(os.path.join(output_dir, "speedups.png"), summary))
    summary["wall_s"] = time.perf_counter() - started
    return summary


def _speedups_figure(path, summary):
    """Draw a campaign summary's report (speeds_best, speeds_original at REPORT_FREQUENCIES)
    against the paper's speed-up; returns path."""
    from softmech.viz.reproductions import walker_speedups_figure

    keys = [f"{f:g}" for f in REPORT_FREQUENCIES]
    return walker_speedups_figure(path, REPORT_FREQUENCIES,
                                  [summary["speeds_best"][k] for k in keys],
                                  [summary["speeds_original"][k] for k in keys],
                                  PAPER_SPEEDUP, REQUIRED_SPEEDUP)
