"""The muscular snake on a tapered body (Zhang et al. 2019, Fig. 3b; issue 28): how the
four-pair result depends on the taper that the paper names ("a tapered, elastic skeleton") but
does not give. Not collected by pytest.

    python benchmarks/muscular_snake_taper.py [--tapers 1 0.75 0.5] [--pairs 4] [--dt 1.25e-5]
    python benchmarks/muscular_snake_taper.py --tapers 0.5 --optimize-gait DIR

For each tail-to-head radius ratio (softmech.scenarios.snake.tapered_radii: linear, the mass of
the uniform Table 2 body), the forward speed (+x) over periods 3-6 of: the continuous-torque
snake (the published gait) and the --pairs pairs in the continuous gait's projection on that
body (projected_layout: a pair's moment is its force times half the local radius) with
overlapping and with disjoint spans, as fractions of the continuous snake on the same body.
The gait is the uniform body's optimum (the published one), or with --optimize-gait the one a
CMA-ES campaign finds for each tapered body (the fair reference: the published gait slows on a
tapered body). (The
paper's own pairs are torques of its uniform body's code; on a tapered body they have no
forces of their own, so they are left out.) Prints a markdown table.
"""
import argparse
import os

import numpy as np

import softmech as sm
from softmech.optimize.muscular_snake import MuscularSnakeProblem
from softmech.optimize.snake import BETA_BOUND, NAMES, WAVELENGTH_RANGE
from softmech.scenarios.muscular_snake import projected_layout
from softmech.scenarios.snake import OPTIMAL_GAIT, build_snake, mean_velocities


def continuous_speed(taper, dt, gait=OPTIMAL_GAIT):
    """Forward speed [m/s] over periods 3-6 of the continuous-torque snake of `taper` at time
    step dt [s] with `gait` (coefficients [N m], wavelength [m]), and its centre of mass's
    highest point [m]."""
    scene, info = build_snake(taper=taper, dt=dt, coefficients=gait["coefficients"],
                              wavelength=gait["wavelength"])
    out = scene.compile(worlds=1, dt=info.dt).run(
        info.duration, record=sm.Every(info.period / 20, ("snake.com",)))
    forward, _ = mean_velocities(out["time"], out["snake.com"], info.period, 3, 6)
    return float(forward[0]), float(out["snake.com"][0, :, 2].max())


GAIT_WINDOW = (3.0, 6.0)
"""Fitness window of the gait campaigns [periods]: the comparison's (the snake problem's default,
periods 2-3, let a campaign at taper 0.5 pick a gait going 0.63 m/s there and 0.32 m/s over 3-6)."""


def optimized_gait(taper, dt, folder, beta_bound=BETA_BOUND, wavelength_range=WAVELENGTH_RANGE):
    """The continuous gait (coefficients, wavelength) that a CMA-ES campaign finds for the
    snake of `taper` at time step dt [s] within |beta| <= beta_bound [N m] and the wavelength
    range [m] (logged in `folder`, resumed when its log is there)."""
    from softmech.optimize.snake import coefficients_of, optimize_snake
    from softmech.scenefile import builtin_scenario

    resume = os.path.exists(os.path.join(folder, "campaign.jsonl"))
    summary = optimize_snake(folder, scenario=builtin_scenario("snake", taper=taper, dt=dt),
                             window=GAIT_WINDOW, beta_bound=beta_bound,
                             wavelength_range=wavelength_range, resume=resume)
    best = np.array([summary["best_params"][name] for name in NAMES])
    coefficients, wavelength = coefficients_of(best)
    print(f"<!-- taper {taper:g}: gait {best.round(2).tolist()} after {summary['generations']} "
          f"generations, {summary['best_mean_forward_speed']:.4f} m/s over periods "
          f"{summary['check_periods']} -->", flush=True)
    return dict(coefficients=coefficients[0], wavelength=float(wavelength[0]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tapers", type=float, nargs="+", default=[1.0, 0.75, 0.5])
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--optimize-gait", metavar="DIR", default=None,
                        help="first optimize the continuous gait on each tapered body "
                             "(softmech.optimize.snake.optimize_snake: population 16, fitness "
                             "over periods 3-6; campaign files in DIR/taper_K, resumed if "
                             "there), then project and compare that gait")
    parser.add_argument("--beta-bound", type=float, default=BETA_BOUND,
                        help="the gait campaigns' |beta| bound [N m] (default: the snake "
                             "problem's, about four overlapping pairs' reach, 3500 N x r / 2 "
                             "each)")
    parser.add_argument("--max-wavelength", type=float, default=WAVELENGTH_RANGE[1],
                        help="the gait campaigns' largest wavelength [m] (default: the snake "
                             "problem's)")
    parser.add_argument("--dt", type=float, default=1.25e-5,
                        help="time step [s] of every run (default 1.25e-5: half Table 2's, "
                             "below the tail's rotational-damping limit down to taper 0.42)")
    args = parser.parse_args(argv)
    names = ["projection", "projection, disjoint spans"]
    print("| taper (tail / head radius) | continuous snake [m/s] | "
          + " | ".join(f"{name} [m/s] (fraction)" for name in names) + " |")
    print("|---:|---:|" + "---:|" * len(names))
    for taper in args.tapers:
        gait = OPTIMAL_GAIT if args.optimize_gait is None else optimized_gait(
            taper, args.dt, os.path.join(args.optimize_gait, f"taper_{taper:g}"),
            args.beta_bound, (WAVELENGTH_RANGE[0], args.max_wavelength))
        layouts = [projected_layout(args.pairs, overlap=overlap, taper=taper, gait=gait)[0]
                   for overlap in (True, False)]
        reference, _ = continuous_speed(taper, args.dt, gait)
        problem = MuscularSnakeProblem(args.pairs, len(layouts), window=(3.0, 6.0), taper=taper,
                                       dt=args.dt)
        speeds = problem.speeds(np.stack([np.ravel(g) for g in layouts]))
        cells = " | ".join(f"{v:.4f} ({v / reference:.1%})" for v in speeds)
        print(f"| {taper:g} | {reference:.4f} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
