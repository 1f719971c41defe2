"""How much of its feet's approach the walker turns into a step (issue 28; not collected by
pytest). A walker whose two feet stick in turn -- one holding while the other slides, during
the contraction and again during the relaxation -- walks an inchworm's gait: its step per
period is the whole approach of its feet, the most that contraction can give. For each design
(the grid of walker_design_frequencies.py, or --designs) at one stimulation frequency, over
the whole periods after the campaign's settling time (softmech.optimize.walker.SETTLE):

* approach: the feet's toe-to-toe distance, longest minus shortest within a period [m];
* step: the centre of mass's advance per period [m], and step / approach;
* the feet's slides: how far each foot moves along x while the feet approach (contraction)
  and while they part (relaxation), from the period's longest span to its shortest and back
  [m]; a foot that holds moves ~0 (softmech.scenarios.walker_gait.inchworm_gait).

    python benchmarks/walker_inchworm.py --frequency 0.5
    python benchmarks/walker_inchworm.py --frequency 2 --designs 350e3,2.4e-3,1.3e-3

--designs E,P,H ...: skeleton modulus [Pa], short pillar and rings' height [m] (the original
is always added); --tangential-stiffness k_t [N/m]: build_walker's (0: the regularized law);
--bath-damping c, --internal-damping c [kg/(m s)]: build_walker's (the campaign's options of
those names).
"""
import argparse

import numpy as np

import softmech as sm
from softmech.optimize.walker import SETTLE, WalkerDesignProblem, original_design
from softmech.scenarios.walker import MM, build_walker
from softmech.scenarios.walker_gait import inchworm_gait
from walker_design_frequencies import grid

PERIODS = 2
"""Whole periods measured after the settling time."""


def inchworm(problem, design, frequency, options):
    """softmech.scenarios.walker_gait.inchworm_gait of one design (3,) at `frequency` [Hz] with
    build_walker keyword `options` (the bath, the ground), over PERIODS periods after SETTLE."""
    scene, info = build_walker(frequencies=(frequency,), designs=problem.designs(design[None]),
                               **options)
    sim = scene.compile(dt=problem.dt)
    rod = info.skeletons[0]
    period = 1.0 / frequency
    out = sim.run(SETTLE + PERIODS * period,
                  record=sm.Every(min(0.01, period / 50), (f"{rod}.positions", f"{rod}.com")))
    x = out[f"{rod}.positions"][0][:, :, 0]
    return inchworm_gait(out["time"], x[:, 0], x[:, -1], out[f"{rod}.com"][0][:, 0], frequency,
                         SETTLE, PERIODS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frequency", type=float, default=0.5)
    parser.add_argument("--designs", nargs="*", default=None)
    parser.add_argument("--tangential-stiffness", type=float, default=None)
    parser.add_argument("--bath-damping", type=float, default=None)
    parser.add_argument("--internal-damping", type=float, default=None)
    args = parser.parse_args()
    problem = WalkerDesignProblem(1, bath_damping=args.bath_damping,
                                  internal_damping=args.internal_damping)
    options = dict(problem.options)
    if args.tangential_stiffness is not None:
        options["tangential_stiffness"] = args.tangential_stiffness
    designs = grid(3) if args.designs is None else [original_design()] + [
        np.array([float(v) for v in d.split(",")]) for d in args.designs]
    print(f"{args.frequency:g} Hz, {PERIODS} periods after {SETTLE:g} s, dt = {problem.dt:.3g} s"
          + "".join(f", {k} {v:g}" for k, v in options.items()))
    print("| E [kPa] | short pillar [mm] | rings at [mm] | approach [um] | step [um] | step / "
          "approach | contraction: long foot, short foot [um] | relaxation [um] |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for design in designs:
        r = inchworm(problem, design, args.frequency, options)
        e, pillar, height = problem.designs(design[None])[0].values()
        print(f"| {e / 1e3:.0f} | {pillar / MM:.2f} | {height / MM:.2f} | "
              f"{r['approach'] * 1e6:.1f} | {r['step'] * 1e6:+.1f} | "
              f"{r['step'] / r['approach']:+.3f} | "
              f"{r['contraction_back'] * 1e6:+.1f}, {r['contraction_front'] * 1e6:+.1f} | "
              f"{r['relaxation_back'] * 1e6:+.1f}, {r['relaxation_front'] * 1e6:+.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
