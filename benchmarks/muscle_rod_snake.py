"""The muscular snake with glued muscle rods against the couples model (softmech.scenarios.
muscular_snake, muscles="rods" | "couples"): forward and lateral speed over periods 3-6, the
highest centre of mass and the wall time per step, for the default starting layout
(`initial_layout(4)`: 4 non-overlapping pairs at 1500 N), the overlapping demonstration layout
(softmech.scenarios.snake.demo_muscle_pairs: 4 pairs of 35 vertebrae at 1500 N) and any layout
files given (JSON: a list of rows (start, length, force, phase), e.g. a campaign's
best.json "best_layout").

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/muscle_rod_snake.py [--layout FILE ...]

Prints one markdown table. The wall time counts sim.run only (kernels compiled and cached
before: each model runs a 0.01 s warm-up first).
"""
import argparse
import json
import time

import numpy as np

import softmech as sm
from softmech.scenarios.muscular_snake import build_muscular_snake, initial_layout
from softmech.scenarios.snake import demo_muscle_pairs, mean_velocities


def measure(groups, muscles, periods=6.0):
    """(forward, lateral speed over periods 3..periods [m/s], highest com [m], us per step)."""
    scene, info = build_muscular_snake(groups=groups, muscles=muscles, duration=periods)
    scene.compile(dt=info.dt).run(0.01)                      # compile / load the kernels
    sim = scene.compile(dt=info.dt)
    started = time.perf_counter()
    out = sim.run(periods * info.period, record=sm.Every(info.period / 20, ("snake.com",)))
    wall = time.perf_counter() - started
    forward, lateral = mean_velocities(out["time"], out["snake.com"], info.period, 3, periods)
    steps = round(periods * info.period / info.dt)
    return float(forward[0]), float(lateral[0]), float(out["snake.com"][0, :, 2].max()), \
        1e6 * wall / steps


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layout", nargs="*", default=[], help="JSON layout files")
    p.add_argument("--periods", type=float, default=6.0)
    args = p.parse_args()
    layouts = {"initial_layout(4), 1500 N": initial_layout(4),
               "demo_muscle_pairs(), 1500 N": demo_muscle_pairs()}
    for path in args.layout:
        with open(path) as f:
            data = json.load(f)
        layouts[path] = data["best_layout"] if isinstance(data, dict) else data
    print("| layout | couples: forward, lateral [m/s], max com z [mm], us/step | rods: same | "
          "forward speed ratio rods / couples |")
    print("|---|---|---|---:|")
    for name, groups in layouts.items():
        groups = np.asarray(groups, dtype=float)
        c = measure(groups, "couples", args.periods)
        r = measure(groups, "rods", args.periods)
        cell = lambda m: f"{m[0]:+.3f}, {m[1]:+.3f}, {1e3 * m[2]:.1f}, {m[3]:.1f}"
        print(f"| {name} | {cell(c)} | {cell(r)} | {r[0] / c[0]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
