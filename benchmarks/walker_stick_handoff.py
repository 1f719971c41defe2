"""Is the sticking walker's short step a property of the state or of the time step (issue 28;
measured at 4 Hz, which was "2 Hz" before ActiveMuscle.walker's one contraction per stimulus,
2026-12-03)? The walker alone runs to --handoff [s] at --dt-from, then its whole state (every
rod, the friction anchors, the clock) continues at each of --dt-to for --periods periods; each
continuation's steps per contraction (one period: ActiveMuscle.walker contracts once per
stimulus) are printed with each foot's slide.

    python benchmarks/walker_stick_handoff.py --frequency 4 --dt-from 2.5e-6 --handoff 2.5 \
        --dt-to 2.5e-6 1e-5
"""
import argparse
import time

import numpy as np

import softmech as sm
from softmech.scenarios.walker import build_walker


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dt-from", type=float, default=2.5e-6)
    ap.add_argument("--handoff", type=float, default=2.5, help="[s]")
    ap.add_argument("--dt-to", type=float, nargs="+", default=[2.5e-6, 1e-5])
    ap.add_argument("--periods", type=int, default=2)
    ap.add_argument("--tangential-stiffness", type=float, default=10.0, help="k_t [N/m]")
    ap.add_argument("--frequency", type=float, default=2.0)
    args = ap.parse_args()
    f = args.frequency
    scene, info = build_walker(frequencies=(f,), tangential_stiffness=args.tangential_stiffness)
    start = time.perf_counter()
    sim = scene.compile(dt=args.dt_from)
    sim.run(args.handoff)
    states = {r.name: sim.get_state(r.name) for r in scene.rods}
    history, t0 = sim.history(), sim.time
    print(f"2 Hz walker, k_t {args.tangential_stiffness:g} N/m: state at t = {t0:g} s from dt "
          f"{args.dt_from:g} s ({time.perf_counter() - start:.0f} s)")
    skeleton = info.skeletons[0]
    for dt in args.dt_to:
        cont = scene.compile(dt=dt)
        for name, s in states.items():
            cont.set_state(name, **s)
        cont.set_history(history)
        cont.time = t0
        out = cont.run(args.periods / f, record=sm.Every(0.5 / f, (f"{skeleton}.com",
                                                                   f"{skeleton}.positions")))
        com = out[f"{skeleton}.com"][0][:, 0]
        feet = out[f"{skeleton}.positions"][0][..., 0]
        print(f"  continued at dt {dt:g} s: steps per contraction [um] "
              f"{np.round(1e6 * np.diff(com[::2]), 2).tolist()}; back foot "
              f"{np.round(1e6 * np.diff(feet[::2, :3].mean(axis=1)), 2).tolist()}, front foot "
              f"{np.round(1e6 * np.diff(feet[::2, -3:].mean(axis=1)), 2).tolist()}")


if __name__ == "__main__":
    main()
