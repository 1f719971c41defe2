"""The original walker's speeds at 0.5, 1 and 2 Hz for one time step and friction law (issue 28:
is the walker converged in dt?). Prints the mean speeds over the whole periods from 2 s and each
period's step (docs/musculoskeletal.md, "Friction that sticks").

    python benchmarks/walker_dt_convergence.py --dt 1e-5                           # regularized
    python benchmarks/walker_dt_convergence.py --dt 5e-6 --tangential-stiffness 10  # sticking
"""
import argparse
import time

import numpy as np

import softmech as sm
from softmech.scenarios.walker import build_walker, mean_speeds

SETTLE = 2.0   # [s] as tests/validation/test_walker_protocol.py


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dt", type=float, default=1e-5)
    ap.add_argument("--tangential-stiffness", type=float, default=0.0,
                    help="k_t [N/m] of sm.StickingFriction on the ground; 0: the regularized law")
    ap.add_argument("--duration", type=float, default=6.0)
    ap.add_argument("--frequencies", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    args = ap.parse_args()
    scene, info = build_walker(frequencies=tuple(args.frequencies), dt=args.dt,
                               tangential_stiffness=args.tangential_stiffness)
    sim = scene.compile(dt=args.dt)
    start = time.perf_counter()
    out = sim.run(args.duration, record=sm.Every(0.01, tuple(f"{s}.com" for s in info.skeletons)))
    x = np.stack([out[f"{s}.com"][0][:, 0] for s in info.skeletons])
    v = mean_speeds(out["time"], x, info.frequencies, settle=SETTLE)
    print(f"dt {args.dt:g} s, k_t {args.tangential_stiffness:g} N/m, "
          f"{time.perf_counter() - start:.0f} s of wall-clock time")
    for f, speed, row in zip(info.frequencies, v, x):
        marks = np.arange(SETTLE, args.duration + 1e-9, 1.0 / f)
        steps = np.diff(np.interp(marks, out["time"], row))
        print(f"  {f:g} Hz: {1e6 * speed:.1f} um/s; steps per period [um] "
              f"{np.round(1e6 * steps, 1).tolist()}")


if __name__ == "__main__":
    main()
