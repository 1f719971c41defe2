"""Why the sticking walker's 4 Hz speed is not converged in dt (issue 28; "2 Hz" before
ActiveMuscle.walker's one contraction per stimulus, 2026-12-03): each world of one batched
run is the walker at --frequency with its own variant, and each world's step per period is
printed, so that variants are compared in one run (docs/musculoskeletal.md, "Friction that
sticks").

Variants (one world each, crossed): the whole walker shifted along x by --shift [m] (the
ground is the same everywhere along x: a shift changes nothing but round-off, so a period
that changes branch under it is chosen by round-off, not by dt); k_t times --kt-factor; c_t
(critical on a skeleton element) times --ct-factor.

    python benchmarks/walker_stick_branches.py --frequency 4 --dt 1e-5 --shift 0 1e-9 2e-9 3e-9
    python benchmarks/walker_stick_branches.py --frequency 4 --dt 5e-6 --kt-factor 0.5 1 2 \
        --ct-factor 0 1
"""
import argparse
import itertools
import time

import numpy as np

import softmech as sm
from softmech.scenarios.walker import build_walker, mean_speeds

SETTLE = 2.0   # [s] as tests/validation/test_walker_protocol.py


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dt", type=float, default=1e-5)
    ap.add_argument("--tangential-stiffness", type=float, default=10.0, help="k_t [N/m]")
    ap.add_argument("--frequency", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=6.0)
    ap.add_argument("--sample", type=float, default=0.01, help="record interval [s]")
    ap.add_argument("--shift", type=float, nargs="+", default=[0.0])
    ap.add_argument("--kt-factor", type=float, nargs="+", default=[1.0])
    ap.add_argument("--ct-factor", type=float, nargs="+", default=[1.0])
    ap.add_argument("--short", type=float, default=15e-6,
                    help="[m] a period's step below this counts as short")
    ap.add_argument("--feet", action="store_true",
                    help="also each foot's slide per contraction (one period) [um]")
    args = ap.parse_args()
    variants = list(itertools.product(args.shift, args.kt_factor, args.ct_factor))
    scene, info = build_walker(frequencies=(args.frequency,), dt=args.dt,
                               tangential_stiffness=args.tangential_stiffness)
    sim = scene.compile(worlds=len(variants), dt=args.dt)
    for name in [k for k in sim.params if k.endswith(".tangential_stiffness")]:
        base = name[:-len("tangential_stiffness")]
        kt, ct = sim.params[name].copy(), sim.params[base + "tangential_damping"].copy()
        sim.params[name] = kt * np.array([v[1] for v in variants])
        sim.params[base + "tangential_damping"] = ct * np.array([v[2] for v in variants])
    shifts = np.array([v[0] for v in variants])
    for rod in scene.rods:
        x = sim.get_state(rod.name)["positions"]
        x[:, :, 0] += shifts[:, None]
        sim.set_state(rod.name, positions=x)
    start = time.perf_counter()
    skeleton = info.skeletons[0]
    fields = (f"{skeleton}.com",) + ((f"{skeleton}.positions",) if args.feet else ())
    out = sim.run(args.duration, record=sm.Every(args.sample, fields))
    x = out[f"{skeleton}.com"][:, :, 0] - shifts[:, None]
    v = mean_speeds(out["time"], x, [args.frequency] * len(variants), settle=SETTLE)
    print(f"2 Hz walker alone with sticking friction: dt {args.dt:g} s, k_t "
          f"{args.tangential_stiffness:g} N/m, {len(variants)} worlds, "
          f"{time.perf_counter() - start:.0f} s of wall-clock time")
    marks = np.arange(SETTLE, args.duration + 1e-9, 1.0 / args.frequency)
    for (shift, fk, fc), speed, row in zip(variants, v, x):
        steps = np.diff(np.interp(marks, out["time"], row))
        print(f"  shift {shift:g} m, k_t x{fk:g}, c_t x{fc:g}: {1e6 * speed:.2f} um/s, "
              f"{int((steps < args.short).sum())} short of {len(steps)}; steps [um] "
              f"{np.round(1e6 * steps, 2).tolist()}")
    if args.feet:
        feet_slides(out[f"{skeleton}.positions"][..., 0] - shifts[:, None, None], out["time"],
                    args.frequency, args.duration)


def feet_slides(x, time, f, duration):
    """Print each world's back (long pillar) and front (short pillar) foot slides per
    contraction: the mean x of the foot's first and last three nodes, x (B, n_samples,
    n_nodes) [m], between the zeros of |sin(pi f t)| (ActiveMuscle.walker: one contraction per
    stimulus, period 1 / f)."""
    marks = np.arange(SETTLE, duration + 1e-9, 1.0 / f)
    for b in range(x.shape[0]):
        for name, nodes in (("back", slice(0, 3)), ("front", slice(-3, None))):
            foot = x[b][:, nodes].mean(axis=1)
            print(f"  world {b} {name} foot per contraction [um] "
                  f"{np.round(1e6 * np.diff(np.interp(marks, time, foot)), 1).tolist()}")


if __name__ == "__main__":
    main()
