"""Newton's counters of an implicit scene on both engines, over the whole run and in a window of
it (not collected by pytest): Newton iterations (corrections: linear solves), residual
evaluations at Newton's points (iterates and line-search trials) and Jacobians, per step.

    python benchmarks/newton_counts.py
    python benchmarks/newton_counts.py --window 0.12,0.18 \
        --options refresh_rate=0.01,max_age=1,predictor=0

The engines count the same things (softmech.integrators.implicit.COUNTS against
softmech.implicit.newton.NewtonStats): the discrete engine computes a Jacobian with every
residual, so its Jacobians are its iterations. The built-in `falling_rod` (two discrete rods
dropped on frictional ground) lands at t = 0.12-0.18 s, the default window. --options: the
unified engine's sm.ImplicitOptions, as name=value pairs.
"""
import argparse

import numpy as np

import softmech as sm
from softmech.scenefile import builtin_scenario


def unified_counts(sim):
    """(iterations, residual evaluations, Jacobians, steps) so far on the unified engine."""
    stats = sim.implicit_integrator().stats
    return np.array([stats["iterations"], stats["residuals"], stats["jacobians"],
                     stats["steps"]])


def discrete_counts(sim):
    """(iterations, residual evaluations, Jacobians, steps) so far on the discrete engine."""
    stats = sim.newton_stats
    return np.array([stats.iterations, stats.evaluations, stats.iterations, stats.steps])


def option_value(text):
    """An ImplicitOptions value from its text: an int, a float or a boolean."""
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        return float(text)


def measure(name, engine, window, options):
    """{"run": per step over the scene's duration, "window": per step in the window} of the
    counters (iterations, residual evaluations, Jacobians) (3,)."""
    scenario = builtin_scenario(name)
    info = scenario.info()
    kwargs = {"engine": engine}
    if options:
        kwargs["newton"] = sm.ImplicitOptions(**options)
    sim = scenario.compile(**kwargs)
    counts = unified_counts if engine == "unified" else discrete_counts
    start, end = window
    sim.run(start)
    before = counts(sim)
    sim.run(end - start)
    inside = counts(sim) - before
    sim.run(info.duration - end)
    total = counts(sim)
    return {"run": total[:3] / total[3], "window": inside[:3] / inside[3]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scene", default="falling_rod")
    parser.add_argument("--window", default="0.12,0.18", help="start,end [s]")
    parser.add_argument("--options", default="",
                        help="the unified engine's ImplicitOptions: name=value,...")
    args = parser.parse_args(argv)
    window = tuple(float(t) for t in args.window.split(","))
    duration = builtin_scenario(args.scene).info().duration
    if len(window) != 2 or not 0.0 <= window[0] < window[1] <= duration:
        parser.error(f"--window {args.window!r} is not allowed: start,end [s] with "
                     f"0 <= start < end <= the scene's duration {duration:g} s")
    options = {k: option_value(v) for k, v in
               (pair.split("=") for pair in args.options.split(",") if pair)}
    print(f"{args.scene}; unified options {options or 'default'}; window {window[0]:g}-"
          f"{window[1]:g} s; per step: iterations, residual evaluations, Jacobians")
    for engine in ("discrete", "unified"):
        per = measure(args.scene, engine, window, options if engine == "unified" else {})
        print(f"{engine:9} run    {per['run'][0]:6.2f} {per['run'][1]:6.2f} {per['run'][2]:6.2f}")
        print(f"{'':9} window {per['window'][0]:6.2f} {per['window'][1]:6.2f} "
              f"{per['window'][2]:6.2f}", flush=True)


if __name__ == "__main__":
    main()
