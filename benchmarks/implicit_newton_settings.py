"""Residual evaluations, Newton iterations and Jacobians per step of the unified implicit
integrator (softmech.integrators.implicit) under the Newton settings of
docs/implicit_cosserat.md, on the Cosserat swimmer (Zhang et al. 2019 geometry, 50 elements,
no inertia scaling, 1000 steps per beat, 2 beats) and the PoseiDRONE (1 s at dt = 1 and
0.5 ms), with the speed / surge each run reports: the counts set the cost, the speeds show that
the settings do not change the result.

    python benchmarks/implicit_newton_settings.py

A/B against another checkout: PYTHONPATH=<its src> python benchmarks/implicit_newton_settings.py
(the counts do not depend on the machine's load; the wall times printed do).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import softmech as sm                                           # noqa: E402
from implicit_cosserat import robot_row, timed_run              # noqa: E402
from softmech.scenarios.swimmer import build_swimmer, centre_track  # noqa: E402

SETTINGS = [("plain", {}), ("corotate", dict(corotate=True)),
            ("+ refresh_rate 0.5", dict(corotate=True, refresh_rate=0.5)),
            ("+ tol 1e-7", dict(corotate=True, refresh_rate=0.5, tol=1e-7)),
            ("+ predictor 2", dict(corotate=True, refresh_rate=0.5, tol=1e-7, predictor=2))]


def per_step(stats):
    n = stats["steps"]
    return (f"{stats['evaluations'] / n:.1f} evaluations, {stats['iterations'] / n:.2f} "
            f"iterations, {stats['jacobians'] / n:.3f} Jacobians per step, "
            f"{stats['halvings']} halvings")


def main():
    print(f"softmech from {os.path.dirname(sm.__file__)}")
    for label, options in SETTINGS:
        scene, info = build_swimmer(model="cosserat", n_elems=50, rotary_inertia=1.0, cycles=2,
                                    dt=1.0 / 3.6 / 1000)
        sim = scene.compile(dt=info.dt, scheme="implicit_euler",
                            newton=sm.ImplicitOptions(**options))
        out, wall, _ = timed_run(sim, info.duration, ("flagellum.com",), info.period / 50)
        _, _, speed = centre_track(out["time"], out["flagellum.com"][0], info.period)
        print(f"swimmer, {label}: {per_step(sim.implicit_integrator().stats)}; "
              f"speed {speed:.8e} m/s; {wall:.1f} s", flush=True)
    for dt in (1e-3, 5e-4):
        row = robot_row("poseidron", "implicit_euler", dt, 1.0)
        print(f"PoseiDRONE, dt {dt:g} s: {per_step(row['stats'])}; surge {row['value']:.8e} m/s; "
              f"{row['wall']:.1f} s", flush=True)


if __name__ == "__main__":
    main()
