"""The feathered wing's joint angles against its barb count (issue 28): is the wingbeat
converged in the discretization of its vanes?

    python benchmarks/wing_barb_convergence.py [--barbs 152,304,608,2800] [--supra-on 0.28]
                                               [--rachis-modulus 1.2e8] [--samples 100]

Each barb stands for the real barbs on its strip of vane (softmech.scenarios.wing,
barb_properties), so the wing's stiffness, mass, drag and added spin inertia per unit vane area
do not depend on the count, and neither should its motion. For each count this builds the
default wing (`build_wing(barbs=N)`, its own dt), runs the initiation and one wingbeat, and
prints the ranges `softmech run wing` reports: the initiation's top, the dorsoventral range
over the wingbeat, the anteroposterior excursion, the elbow's range, and the deviation from the
bird's ranges (bird_deviation), with the wall time. --supra-on and --rachis-modulus change the
module constants SUPRA_ON and the rachis's Young's modulus for this process only (the
sensitivity runs of docs/musculoskeletal.md). The 2,800-barb wing takes ~2.5 min on one core.
"""
import argparse
import time

import numpy as np

from softmech.scenarios import wing as W


def wingbeat_ranges(barbs, samples):
    """{quantity: value} of a default wing of `barbs` barbs over its initiation and wingbeat:
    angles [deg] sampled `samples` times over the run (joint_angles)."""
    start = time.perf_counter()
    scene, info = W.build_wing(barbs=barbs)
    sim = scene.compile(dt=info.dt)
    angles = []
    for _ in range(samples):
        sim.run(info.duration / samples)
        angles.append(W.joint_angles(sim.get_state("humerus")["directors"][0, 0],
                                     sim.get_state("forearm")["directors"][0, 0]))
    angles = np.array(angles)
    time_ = info.duration * (np.arange(samples) + 1) / samples
    dv, ap, elbow = angles[time_ >= info.initiation].T
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
    parser.add_argument("--samples", type=int, default=100, help="samples over the run")
    args = parser.parse_args()
    W.SUPRA_ON = args.supra_on
    W.RACHIS = dict(W.RACHIS, youngs_modulus=args.rachis_modulus,
                    shear_modulus=args.rachis_modulus / 3.0)
    print(f"SUPRA_ON {W.SUPRA_ON}, rachis E {args.rachis_modulus:.3g} Pa")
    for barbs in (int(b) for b in args.barbs.split(",")):
        row = wingbeat_ranges(barbs, args.samples)
        print("  ".join(f"{k} " + (" to ".join(f"{x:.1f}" for x in v) if isinstance(v, tuple)
                                   else f"{v:.3g}" if isinstance(v, float) else str(v))
                        for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
