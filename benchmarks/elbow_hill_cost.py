"""What Hill's muscle damping costs the elbow (issue 28; docs/musculoskeletal.md, "The cost of
Hill's damping"): the full scene's CPU time per 0.1 s simulated at the former settings
(zeta = 1e3 Pa s, dt = 5 us; softmech.scenarios.elbow.FORMER_SETTINGS) and at the default
(Hill's zeta, dt = 2.5 us), alternated in one process, `--repeats` times each.

    nice python benchmarks/elbow_hill_cost.py [--repeats 3] [--fibers 18]

CPU time of the process (time.process_time), the first step (compiling) excluded: on a loaded
machine the wall time is not comparable between runs. Prints each time, min and median, and
the ratio of the default's to the former settings'.
"""
import argparse
import time

import numpy as np

from softmech.scenarios import elbow


def cost(fibers, **settings):
    """CPU seconds of 0.1 s simulated of build_elbow(fibers=fibers, **settings)."""
    scene, info = elbow.build_elbow(fibers=fibers, **settings)
    sim = scene.compile(dt=info.dt)
    sim.step(1)
    start = time.process_time()
    sim.run(duration=0.1)
    return time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fibers", type=int, default=18)
    args = parser.parse_args()
    former, hill = [], []
    for _ in range(args.repeats):
        former.append(cost(args.fibers, **elbow.FORMER_SETTINGS))
        hill.append(cost(args.fibers))
    for name, t in (("former (zeta 1e3, 5 us)", former), ("default (Hill, 2.5 us)", hill)):
        print(f"{name}: {np.round(t, 2).tolist()} s CPU per 0.1 s; min {min(t):.2f}, "
              f"median {np.median(t):.2f}")
    print(f"ratio: min {min(hill) / min(former):.2f}, median "
          f"{np.median(hill) / np.median(former):.2f}")


if __name__ == "__main__":
    main()
