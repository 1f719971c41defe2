"""The elbow's isokinetic experiment (Zhang et al. 2019 Fig. 1d) and the muscle damping zeta
fitted to Hill's force-velocity law (softmech.scenarios.elbow_isokinetic).

    python benchmarks/elbow_isokinetic.py [--speeds 0.5,1,2,3] [--fibers 7] [--zeta-ref 1e4]

For each dynamometer speed [rad/s]: the biceps' torque at 90 deg with zeta = 0 and zeta_ref (one
run, two worlds), the fibres' stretch rate, Hill's torque at that rate (isometric torque from
the slowest speed at zeta = 0, where the model has no velocity dependence), and the least-squares
zeta over the speeds; then the torques at the fitted zeta (linear in zeta) beside Hill's. ~10 s
to ~40 s per speed on one core (dt = 5 us).
"""
import argparse
import time

import numpy as np

from softmech.scenarios.elbow import DEFAULTS, FORMER_SETTINGS
from softmech.scenarios.elbow_isokinetic import HILL_VMAX, fit_damping, isokinetic_run

FORMER = FORMER_SETTINGS["muscle_damping"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speeds", default="0.5,1,2,3")
    parser.add_argument("--fibers", type=int, default=7)
    parser.add_argument("--zeta-ref", type=float, default=1e4)
    args = parser.parse_args()
    speeds = [float(s) for s in args.speeds.split(",")]
    rows = []
    for w in speeds:
        start = time.perf_counter()
        r = isokinetic_run(w, zeta=(0.0, args.zeta_ref), fibers=args.fibers)
        rows.append((w, r, time.perf_counter() - start))
    t0 = np.array([r["torque"][0] for _, r, _ in rows])
    g = np.array([(r["torque"][1] - r["torque"][0]) / args.zeta_ref for _, r, _ in rows])
    rate = np.array([r["rate"][0] for _, r, _ in rows])
    isometric = t0[int(np.argmin(speeds))]
    zeta, hill = fit_damping(speeds, t0, g, rate, isometric)
    print(f"fitted zeta = {zeta:.3g} Pa s (default {DEFAULTS['muscle_damping']:g}); Hill: "
          f"kappa = 0.25, v_max = {HILL_VMAX:g} lengths/s; isometric {isometric:.3f} N m")
    print("| speed [rad/s] | fibre rate [1/s] | moment arm [mm] | T, zeta = 0 [N m] | "
          f"T, zeta = {FORMER:g} (former default) [N m] | T, fitted zeta [N m] | Hill [N m] | "
          "wall [s] |")
    print("|---|---|---|---|---|---|---|---|")
    for (w, r, wall), a, b, h in zip(rows, t0, g, hill):
        print(f"| {w:g} | {r['rate'][0]:.3f} | {1e3 * r['moment_arm'][0]:.1f} | {a:.3f} | "
              f"{a + FORMER * b:.3f} | {a + zeta * b:.3f} | {h:.3f} | "
              f"{wall:.0f} |", flush=True)


if __name__ == "__main__":
    main()
