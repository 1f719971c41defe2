"""The walker's lean out of its plane (issue 28; not collected by pytest): a rings walker one
rod wide, free in 3D (build_walker(planar=False)) or held in its plane (the default), walked
at one frequency; prints, at each contraction's peak, the long cross foot's roll (its +y end's
rise over its width) and the heading of the skeleton's foot-to-foot line, and the speed along x
over the whole periods after the settling time (softmech.optimize.walker: settle 2 s).

    python benchmarks/walker_lean.py --design 3e5 3.4e-3 2.6e-3 --frequency 1 --dt-scale 0.5
    python benchmarks/walker_lean.py --free --lateral-gravity 0.0098

--design E P H: skeleton modulus [Pa], short pillar and rings' height [m] (default: the
original); --lateral-gravity g adds a gravity g [m/s^2] along y (which side the free walker
leans to); --dt-scale s runs at s times the campaign's time step.
"""
import argparse

import numpy as np

import softmech as sm
from softmech.optimize.walker import SETTLE, WalkerDesignProblem, original_design
from softmech.scenarios.walker import build_walker, mean_speeds


def lean(problem, design, frequency, duration, dt, planar, lateral_gravity):
    """(peak times (k,) [s], roll (k,) [deg], heading (k,) [deg], speed [m/s]) of `design`
    (1, 3) (problem: the campaign's WalkerDesignProblem, for its designs' geometry)."""
    scene, info = build_walker(frequencies=(frequency,), designs=problem.designs(design),
                               planar=planar)
    if lateral_gravity:
        scene.add(sm.Gravity((0.0, lateral_gravity, 0.0), name="tilt"))
    sim = scene.compile(dt=dt)
    fields = ("long_cross_foot_0.positions", "skeleton_0.positions", "skeleton_0.com")
    out = sim.run(duration, record=sm.Every(0.01, fields))
    t = out["time"]
    peaks = np.arange(0.5 / frequency, duration, 1.0 / frequency)
    at = np.searchsorted(t, peaks - 1e-9)
    foot = out["long_cross_foot_0.positions"][0][at]
    d = foot[:, -1] - foot[:, 0]
    roll = np.degrees(np.arctan2(d[:, 2], np.hypot(d[:, 0], d[:, 1])))
    skeleton = out["skeleton_0.positions"][0][at]
    line = skeleton[:, -1] - skeleton[:, 0]
    heading = np.degrees(np.arctan2(line[:, 1], line[:, 0]))
    x = out["skeleton_0.com"][0][:, 0][None]
    speed = float(mean_speeds(t, x, (frequency,), settle=SETTLE)[0])
    return peaks, roll, heading, speed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--design", type=float, nargs=3, default=list(original_design()))
    parser.add_argument("--frequency", type=float, default=1.0)
    parser.add_argument("--duration", type=float, default=6.0)
    parser.add_argument("--dt-scale", type=float, default=1.0)
    parser.add_argument("--free", action="store_true", help="free in 3D (planar=False)")
    parser.add_argument("--lateral-gravity", type=float, default=0.0)
    args = parser.parse_args()
    problem = WalkerDesignProblem(1)
    dt = problem.dt * args.dt_scale
    peaks, roll, heading, speed = lean(problem, np.array([args.design]), args.frequency,
                                       args.duration, dt, not args.free, args.lateral_gravity)
    print(f"design {args.design}, {args.frequency:g} Hz, dt {dt:.3g} s, "
          f"{'free' if args.free else 'held in its plane'}")
    print("| peak [s] | cross foot roll [deg] | heading [deg] |\n|---:|---:|---:|")
    for p, r, h in zip(peaks, roll, heading):
        print(f"| {p:.2f} | {r:+.2f} | {h:+.1f} |")
    print(f"speed along x after {SETTLE:g} s: {speed * 1e6:+.1f} um/s")


if __name__ == "__main__":
    main()
