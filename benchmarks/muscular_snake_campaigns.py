"""The muscular snake's layout campaigns for n = 1..6 pairs (Zhang et al. 2019, Fig. 3b), run to
the paper's generation budget, then each best layout checked over a longer run.

For each n: `optimize_muscular_snake` (CMA-ES over start, span, force and phase of each pair;
fitness = forward speed over the periods of --window, default 2-4; a layout that lifts the centre
of mass above 2 r at any time of the simulated window[1] periods is
ranked last) with up to --generations generations, stopped earlier only when the best fitness has
not improved by 1e-4 m/s over --patience generations. Then the best layout runs for --check
periods and its forward speed over periods 3..check and its highest centre of mass over the
whole run are printed, beside the continuous-torque snake's 0.579 m/s (docs/snake.md).

    python benchmarks/muscular_snake_campaigns.py --output /tmp/msnake [--pairs 1 2 3 4 5 6]
        [--window 3 6] [--patience 40] [--no-overlap] [--start uniform --sigma0 0.25]
        [--muscles paper_rods] [--taper 0.75] [--dt 2.5e-5]

--start projected (the default) starts CMA-ES from the continuous gait's projection onto the
pairs with a step of --sigma0 (0.05) of each range; --start uniform --sigma0 0.25 is the
campaigns of 2026-11-26 (equal disjoint spans at 1500 N, a quarter of each range).

Campaigns resume from their logs (rerun the same command after an interruption). Prints one
markdown table; each campaign's files are in OUTPUT/pairs_N.
"""
import argparse
import json
import os
import time


import softmech as sm
from softmech.optimize.muscular_snake import optimize_muscular_snake
from softmech.scenarios.muscular_snake import build_muscular_snake
from softmech.scenarios.snake import mean_velocities


def check_layout(groups, periods, muscles="couples", taper=1.0, dt=2.5e-5):
    """Forward speed over periods 3..periods [m/s] and the highest centre-of-mass height over
    the whole run [m] of one layout (rows start, length, force, phase)."""
    scene, info = build_muscular_snake(groups=groups, duration=periods * 1.0, muscles=muscles,
                                       taper=taper, dt=dt)
    sim = scene.compile(worlds=1, dt=info.dt)
    out = sim.run(periods * info.period, record=sm.Every(info.period / 20, ("snake.com",)))
    forward, _ = mean_velocities(out["time"], out["snake.com"], info.period, 3, periods)
    return float(forward[0]), float(out["snake.com"][0, :, 2].max())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--output", required=True)
    p.add_argument("--pairs", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    p.add_argument("--generations", type=int, default=40)
    p.add_argument("--patience", type=int, default=15)
    p.add_argument("--popsize", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--window", type=float, nargs=2, default=[2.0, 4.0],
                   help="fitness window in periods (the campaign simulates up to its end)")
    p.add_argument("--no-overlap", action="store_true",
                   help="the paper's non-overlapping study (spans made disjoint)")
    p.add_argument("--check", type=int, default=6, help="periods of the check run (>= 4)")
    p.add_argument("--start", choices=("projected", "uniform"), default="projected")
    p.add_argument("--sigma0", type=float, default=0.05)
    p.add_argument("--taper", type=float, default=1.0,
                   help="the body's tail-to-head radius ratio (couples only; "
                        "softmech.scenarios.snake.tapered_radii)")
    p.add_argument("--dt", type=float, default=2.5e-5,
                   help="time step [s] (default Table 2's; a taper below 0.55 needs 1.25e-5)")
    p.add_argument("--muscles", choices=("couples", "rods", "paper_rods"), default="couples",
                   help="the pairs as couples (one batched run per generation) or glued muscle "
                        "rods (one run per candidate)")
    a = p.parse_args()
    rows = []
    for n in a.pairs:
        folder = os.path.join(a.output, f"pairs_{n}")
        resume = os.path.exists(os.path.join(folder, "campaign.jsonl"))
        started = time.perf_counter()
        s = optimize_muscular_snake(folder, pairs=n, popsize=a.popsize, seed=a.seed,
                                    max_generations=a.generations, min_generations=a.generations // 2,
                                    patience=a.patience, window=a.window,
                                    overlap=not a.no_overlap, start=a.start,
                                    sigma0=a.sigma0, muscles=a.muscles, taper=a.taper,
                                    dt=a.dt, resume=resume)
        forward, height = check_layout(s["best_layout"], a.check, a.muscles, a.taper, a.dt)
        row = dict(pairs=n, generations=s["generations"], stop=s["stop_reason"],
                   fitness=s["speed_best"], start_speed=s["speed_initial_layout"],
                   check_speed=forward, max_com_height=height, layout=s["best_layout"],
                   wall_s=time.perf_counter() - started)
        rows.append(row)
        with open(os.path.join(folder, "check.json"), "w") as f:
            json.dump(row, f, indent=1)
        print(json.dumps(row), flush=True)
    print(f"\n| pairs n | generations | start ({a.start}) | fitness (periods {a.window[0]:g}-"
          f"{a.window[1]:g}) | forward speed, periods 3-{a.check} | highest centre of mass | "
          "spans [vertebrae] |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        spans = ", ".join(f"{g[0]:.0f}-{g[0] + g[1]:.0f}" for g in r["layout"])
        print(f"| {r['pairs']} | {r['generations']} | {r['start_speed']:.3f} m/s | "
              f"{r['fitness']:.3f} m/s | "
              f"{r['check_speed']:.3f} m/s | {1e3 * r['max_com_height']:.1f} mm | {spans} |")


if __name__ == "__main__":
    main()
