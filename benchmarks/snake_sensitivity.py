"""Sensitivity of the Table 2 snake's speed to its modelling choices (docs/snake.md).

    python benchmarks/snake_sensitivity.py            # ~1 minute on 2 cores (kernels cached)
    python benchmarks/snake_sensitivity.py --json     # the rows as JSON

The published optimal gait (ME498 handout: beta = 0, 17.4, 48.5, 5.4, 14.7, 0 N m, lambda_m =
0.97 m) is run for 6 periods with the default scene (softmech.scenarios.snake.build_snake) and
with one change at a time; each row reports the mean forward (+x) and lateral (y) centre-of-mass
speeds over periods 3-6 (mean_velocities), the heading of the direction of travel and the
lateral speed across it (travel_velocities, the course's protocol). Changes that only touch
per-world parameters (friction
coefficients, muscle ramp) run side by side as the worlds of one batched simulation; changes of
flags, discretisation or time step are separate simulations; a change that may diverge runs alone
so that it cannot stop the others. Nothing here is tuned: the table shows what each choice does.
"""
import sys
import time
import warnings

import numpy as np

import softmech as sm
from softmech.scenarios.snake import MU_FORWARD, OPTIMAL_GAIT, REFERENCE_SPEED, TABLE2, build_snake
from softmech.scenarios.snake import mean_velocities, travel_velocities
from table_cli import table_main

DURATION = 6.0
KINETIC = np.array(TABLE2["kinetic"])
STATIC = np.array(TABLE2["static"])


SPEEDS = ("mean_forward_speed", "mean_lateral_speed", "travel_lateral_speed", "travel_heading")


def kinetic_with_lateral(factor):
    """Table 2 kinetic coefficients with lateral = factor x forward."""
    return np.array([KINETIC[0], KINETIC[1], factor * MU_FORWARD])


# name, what changes, per-world parameter overrides (batched with the default)
BATCHED = [
    ("default", "Table 2 (lateral kinetic = 2 x forward), see the parameter table", {}),
    ("lateral x0.5", "lateral kinetic mu = 0.5 x forward",
     {"ground.kinetic": kinetic_with_lateral(0.5)}),
    ("lateral x1", "lateral kinetic mu = forward", {"ground.kinetic": kinetic_with_lateral(1.0)}),
    ("lateral x1.5", "lateral kinetic mu = 1.5 x forward",
     {"ground.kinetic": kinetic_with_lateral(1.5)}),
    ("lateral x3", "lateral kinetic mu = 3 x forward",
     {"ground.kinetic": kinetic_with_lateral(3.0)}),
    ("isotropic kinetic", "all kinetic mu = forward (1.019)",
     {"ground.kinetic": np.full(3, MU_FORWARD)}),
    ("no static friction", "all static mu = 0", {"ground.static": np.zeros(3)}),
    ("no ramp", "full muscle amplitude from t = 0", {"muscle.ramp_time": 0.0}),
]


def _friction(**changes):
    kw = dict(forward=KINETIC[0], backward=KINETIC[1], lateral=KINETIC[2],
              static_forward=STATIC[0], static_backward=STATIC[1], static_lateral=STATIC[2],
              slip_velocity=TABLE2["slip_velocity"])
    kw.update(changes)
    return sm.AnisotropicFriction(**kw)


RADIUS = TABLE2["radius"]
# name, what changes, build_snake keyword arguments (each its own simulation)
SEPARATE = [
    ("unit decomposition", 'friction decomposition "unit" (PyElastica >= 0.3)',
     {"friction": _friction(decomposition="unit")}),
    ("no rolling", "contact velocity without the section's spin (no rolling)",
     {"friction": _friction(rolling=False)}),
    ("per-node friction", "kinetic friction from each node's own velocity (per_node=True)",
     {"friction": _friction(per_node=True)}),
    ("rotational damping gamma I/A", f"rotational damping = gamma r^2/4 = "
     f"{TABLE2['damping'] * RADIUS**2 / 4:.3g} kg m/s (LinearDamping's default)",
     {"rotational_damping": TABLE2["damping"] * RADIUS**2 / 4}),
    ("n = 25", "25 elements", {"n_elems": 25}),
    ("n = 100", "100 elements", {"n_elems": 100}),
    ("n = 100, no ramp", "100 elements, full muscle amplitude from t = 0",
     {"n_elems": 100, "ramp": False}),
    ("dt / 2", "dt = 1.25e-5 s", {"dt": TABLE2["dt"] / 2}),
]


def simulate(overrides_per_world=(), **build):
    """Run the snake for DURATION with one world per overrides dict; returns (speeds, note, wall
    seconds), speeds a dict of (B,) arrays: mean_forward_speed and mean_lateral_speed (lab x, y),
    travel_lateral_speed and travel_heading [deg] (across and of the direction of travel,
    travel_velocities). A diverged run returns NaNs and the divergence time."""
    worlds = max(1, len(overrides_per_world))
    scene, info = build_snake(worlds=worlds, duration=DURATION, **build)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sim = scene.compile(worlds=worlds, dt=info.dt)
    limit = float(sim.time_step_limit().min())
    note = f"dt = {info.dt:g} s (stability estimate {limit:.2g} s)" if (
        "dt" in build or "n_elems" in build or caught) else ""
    for key in {k for o in overrides_per_world for k in o}:
        default = np.asarray(sim.params[key][0])
        sim.params[key] = np.stack([np.broadcast_to(o.get(key, default), default.shape)
                                    for o in overrides_per_world]).astype(float)
    started = time.perf_counter()
    try:
        out = sim.run(info.duration, record=sm.Every(seconds=0.01, fields=("com",)))
    except sm.SimulationDiverged as err:
        return ({key: np.full(worlds, np.nan) for key in SPEEDS},
                f"diverged at t = {err.time:.3g} s", time.perf_counter() - started)
    forward, lateral = mean_velocities(out["time"], out["com"], info.period, 3, 6)
    _, across, heading = travel_velocities(out["time"], out["com"], info.period, 3, 6)
    speeds = dict(zip(SPEEDS, (forward, lateral, across, heading)))
    return speeds, note, time.perf_counter() - started


def rows():
    """All rows: dicts with case, change, the SPEEDS and note."""
    result = []
    speeds, note, wall = simulate([o for _, _, o in BATCHED])
    print(f"batched: {len(BATCHED)} worlds in {wall:.1f} s", file=sys.stderr)
    for world, (name, change, _) in enumerate(BATCHED):
        result.append(dict(case=name, change=change, note=note,
                           **{key: float(v[world]) for key, v in speeds.items()}))
    for name, change, build in SEPARATE:
        speeds, note, wall = simulate(**build)
        print(f"{name}: {wall:.1f} s", file=sys.stderr)
        result.append(dict(case=name, change=change, note=note,
                           **{key: float(v[0]) for key, v in speeds.items()}))
    return result


def markdown(table):
    default = table[0]["mean_forward_speed"]
    lines = ["| case | change (one at a time) | forward [m/s] | vs default | vs 0.585 | "
             "lateral [m/s] | heading [deg] | lateral across travel [m/s] | note |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in table:
        f, lat = r["mean_forward_speed"], r["mean_lateral_speed"]
        if np.isfinite(f):
            cells = (f"{f:.4f}", f"{f / default - 1:+.1%}", f"{f / REFERENCE_SPEED - 1:+.1%}",
                     f"{lat:+.4f}", f"{r['travel_heading']:+.1f}",
                     f"{r['travel_lateral_speed']:+.4f}")
        else:
            cells = ("-",) * 6
        lines.append(f"| {r['case']} | {r['change']} | " + " | ".join(cells) + f" | {r['note']} |")
    return "\n".join(lines)


def main(argv=None):
    def heading(seconds):
        return (f"Published optimal gait {OPTIMAL_GAIT}, {DURATION:g} s, mean speeds over "
                f"periods 3-6; {seconds:.0f} s wall")
    return table_main(argv, __doc__, rows, markdown, heading)


if __name__ == "__main__":
    sys.exit(main())
