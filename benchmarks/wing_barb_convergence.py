"""The feathered wing's joint angles against its barb count (issue 28): is the wingbeat
converged in the discretization of its vanes?

    python benchmarks/wing_barb_convergence.py [--barbs 152,304,608,2800] [--supra-on 0.28]
                                               [--rachis-modulus 1.2e8] [--rachis-spin 100]
                                               [--barb-spin 1000] [--dt DT] [--samples 100]
                                               [--activation emg|paper_code] [--cycles 1]

Each barb stands for the real barbs on its strip of vane (softmech.scenarios.wing,
barb_properties), so the wing's stiffness, mass, drag and added spin inertia per unit vane area
do not depend on the count, and neither should its motion. For each count this builds the
default wing (`build_wing(barbs=N)`, its own dt), runs the initiation and one wingbeat, and
prints the ranges `softmech run wing` reports: the initiation's top, the dorsoventral range
over the wingbeat, the anteroposterior excursion, the elbow's range, and the deviation from the
bird's ranges (bird_deviation), with the wall time. --supra-on, --rachis-modulus, --rachis-spin
and --barb-spin change the module constants SUPRA_ON, the rachis's Young's modulus, RACHIS_SPIN
and BARB_SPIN for this process only, --dt the time step (default the scene's; smaller spin
scalings need a smaller one), --activation the muscles' schedule (build_wing: "paper_code"
is the paper's own code's), --cycles the wingbeats run (the ranges are the last one's): the
sensitivity runs of docs/musculoskeletal.md. The 2,800-barb wing takes ~1 min on one idle core
per wingbeat.
"""
import argparse
import time

import numpy as np

from softmech.scenarios import wing as W


def wingbeat_ranges(barbs, samples, dt=None, activation="emg", cycles=1):
    """{quantity: value} of a default wing of `barbs` barbs over its initiation and `cycles`
    wingbeats (the ranges: the last one's): angles [deg] sampled `samples` times over the
    initiation and each wingbeat (joint_angles); dt [s] (None: the scene's); activation:
    build_wing's."""
    start = time.perf_counter()
    frequency = W.DEFAULTS["frequency"]
    initiation = (W.paper_code_initiation(frequency) if activation == "paper_code"
                  else W.DEFAULTS["initiation"])
    time_, angles, info = W.run_wingbeat(barbs, samples * cycles, dt, activation=activation,
                                         duration=initiation + cycles / frequency)
    dv, ap, elbow = angles[time_ > info.duration - 1.0 / frequency + 1e-9].T
    deviation = W.bird_deviation(dv, ap, elbow)
    return {"barbs": info.barbs, "dt [us]": info.dt * 1e6,
            "top [deg]": angles[time_ < info.initiation, 0].max(),
            "dorsoventral [deg]": (dv.min(), dv.max()), "anteroposterior [deg]": np.ptp(ap),
            "elbow [deg]": (elbow.min(), elbow.max()),
            "deviation dv [deg]": deviation["dorsoventral"],
            "deviation ap [deg]": deviation["anteroposterior"],
            "wall [s]": time.perf_counter() - start}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--barbs", default="152,304,608,2800",
                        help="comma-separated barb counts (each >= 152)")
    parser.add_argument("--supra-on", type=float, default=W.SUPRA_ON,
                        help="supracoracoideus onset in the cycle [fraction of the period]")
    parser.add_argument("--rachis-modulus", type=float, default=W.RACHIS["youngs_modulus"],
                        help="the rachis's Young's modulus [Pa] (shear modulus E / 3)")
    parser.add_argument("--rachis-spin", type=float, default=W.RACHIS_SPIN,
                        help="the rachises' rotary-inertia scaling [-]")
    parser.add_argument("--barb-spin", type=float, default=W.BARB_SPIN,
                        help="the barbs' rotary-inertia scaling at radius SPIN_RADIUS [-]")
    parser.add_argument("--dt", type=float, default=None, help="time step [s]")
    parser.add_argument("--samples", type=int, default=100,
                        help="samples over the initiation and each wingbeat")
    parser.add_argument("--activation", choices=("emg", "paper_code"), default="emg",
                        help="the muscles' schedule (build_wing)")
    parser.add_argument("--cycles", type=int, default=1,
                        help="wingbeats after the initiation (more than one: paper_code only; "
                             "the EMG schedule has the windows of one)")
    args = parser.parse_args()
    if args.cycles < 1 or (args.cycles > 1 and args.activation != "paper_code"):
        parser.error(f"--cycles {args.cycles} is not allowed: 1, or more with --activation "
                     "paper_code (its cycle repeats; the EMG windows cover one wingbeat)")
    W.RACHIS_SPIN, W.BARB_SPIN = args.rachis_spin, args.barb_spin
    W.SUPRA_ON = args.supra_on
    W.RACHIS = dict(W.RACHIS, youngs_modulus=args.rachis_modulus,
                    shear_modulus=args.rachis_modulus / 3.0)
    print(f"SUPRA_ON {W.SUPRA_ON}, rachis E {args.rachis_modulus:.3g} Pa, spin scalings "
          f"{W.RACHIS_SPIN:g} (rachis), {W.BARB_SPIN:g} (barbs)")
    for barbs in (int(b) for b in args.barbs.split(",")):
        row = wingbeat_ranges(barbs, args.samples, args.dt, args.activation, args.cycles)
        print("  ".join(f"{k} " + (" to ".join(f"{x:.1f}" for x in v) if isinstance(v, tuple)
                                   else f"{v:.3g}" if isinstance(v, float) else str(v))
                        for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
