"""Does the authors' walker fold its frame when its feet are points (issue 28)? Runs softmech's
rebuild of the authors' walker (build_walker(model="paper")) with the legs standing on their
rims (softmech's default) or on a point at each tip's centre (how the authors' code applies its
ground force: at the tip's centre node, with no moment; docs/musculoskeletal.md, section 8),
and prints how far the frame folds and whether it walks.

    python benchmarks/walker_paper_feet.py --feet points --friction 0 --static-friction 0 \
        --frequencies 2 --duration 1
    python benchmarks/walker_paper_feet.py --feet points --tangential-stiffness 0 \
        --slip-velocity 2e-5 --frequencies 1 2 --duration 4

An experiment, not a scene option: the point feet replace the built legs' ground-contact
features (a cylinder's two rims) by one point before compiling, which a scenario file would not
keep.
"""
import argparse
import time

import numpy as np

import softmech as sm
from softmech.bodies.rigid_body import point_features
from softmech.scenarios.walker import mean_speeds
from softmech.scenarios.walker_paper import build_paper_walker

SETTLE = 2.0   # [s] as the walker's campaign (softmech.optimize.walker.SETTLE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--feet", choices=("rims", "points"), default="rims")
    ap.add_argument("--frequencies", type=float, nargs="+", default=[2.0])
    ap.add_argument("--duration", type=float, default=4.0, help="[s]")
    ap.add_argument("--dt", type=float, default=1e-5)
    for name in ("friction", "static_friction", "tangential_stiffness", "slip_velocity"):
        ap.add_argument("--" + name.replace("_", "-"), type=float,
                        help=f"build_walker(model='paper', {name}=...)")
    args = ap.parse_args()
    over = {k: getattr(args, k) for k in ("friction", "static_friction", "tangential_stiffness",
                                          "slip_velocity") if getattr(args, k) is not None}
    freqs = tuple(args.frequencies)
    scene, beams = build_paper_walker(freqs, **over)
    legs = [b for b in scene.rigid_bodies if "_leg" in b.name]
    if args.feet == "points":
        for leg in legs:
            leg.contact = point_features(np.array([[0.0, 0.0, -0.5 * leg.size["length"]]]), 0.0)
    sim = scene.compile(dt=args.dt)
    strips = [f"strip0_{k}" for k in range(len(freqs))]
    record = tuple([f"{b}.positions" for b in beams] + [f"{b}.com" for b in beams]
                   + [f"{leg.name}.positions" for leg in legs]
                   + [f"{s}.positions" for s in strips])
    t0 = time.time()
    out = sim.run(duration=args.duration, record=sm.Every(0.01, record))
    print(f"feet {args.feet}, {over or 'the authors values'}, {freqs} Hz, dt {args.dt:g} s: "
          f"{time.time() - t0:.0f} s wall")
    t = out["time"]
    last = t > t[-1] - 1.0 / min(freqs)             # the last period of the slowest walker
    x = np.array([out[f"{b}.com"][0][:, 0] for b in beams])
    v = mean_speeds(t, x, freqs, settle=SETTLE) if args.duration > SETTLE else [np.nan] * len(freqs)
    for k, (f, beam) in enumerate(zip(freqs, beams)):
        z = out[f"{beam}.positions"][0][last, 8, 2]
        strip = out[f"{strips[k]}.positions"][0][last]
        length = np.linalg.norm(np.diff(strip, axis=1), axis=2).sum(axis=1)
        swings = [np.ptp(out[f"{leg.name}.positions"][0][last, 0, 0]) for leg in legs
                  if leg.name.endswith(f"_{k}")]
        speed = f"{1e6 * v[k]:+.1f} um/s" if np.isfinite(v[k]) else "(no period after 2 s)"
        print(f"  {f:g} Hz: {speed}; over the last period: beams' middle "
              f"{1e3 * z.min():.3f}-{1e3 * z.max():.3f} mm, legs swing "
              f"{np.round(1e6 * np.array(swings), 1).tolist()} um along x, strip "
              f"{1e3 * length.min():.3f}-{1e3 * length.max():.3f} mm")
        if args.duration > SETTLE:
            marks = np.arange(SETTLE, args.duration + 1e-9, 1.0 / f)
            print(f"    steps per period [um] "
                  f"{np.round(1e6 * np.diff(np.interp(marks, t, x[k])), 1).tolist()}")


if __name__ == "__main__":
    main()
