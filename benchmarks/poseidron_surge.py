"""The PoseiDRONE's mean surge velocity at the three pulse rates of Renda et al. 2018 Fig. 10
(1.26, 1.51, 1.89 pulsations/s), with pitch and lift held as in the paper's experiment (the
default) and with the root free, and the heading change of each run (docs/underwater.md).

    python benchmarks/poseidron_surge.py [--free] [--markdown]

Each run: 8 pulsations, implicit Euler at the scene's default step, the root's velocity sampled
every 10 ms, the mean over the pulsations after the first two (softmech.scenarios.poseidron.
surge), the peak over the same window; heading: the angle between the mantle axis at the start
and at the end [deg]. About 2 s of wall time per run once compiled (the first compiles, ~40 s).
"""
import argparse
import time

import numpy as np

from softmech.scenarios.poseidron import FREQUENCIES, build_poseidron, surge


def run(frequency, hold, sample=0.01):
    """(mean surge [m/s], peak surge [m/s], heading change [deg], wall time [s]) of one run."""
    scene, info = build_poseidron(frequency=frequency, hold=hold)
    sim = scene.compile(dt=info.dt, scheme=info.scheme)
    every = max(1, int(round(sample / info.dt)))
    n = int(round(info.duration / info.dt))
    times, velocities = [0.0], [sim.get_state("root")["velocities"][0, 0].copy()]
    start = time.perf_counter()
    for _ in range(0, n, every):
        sim.step(every)
        times.append(sim.time)
        velocities.append(sim.get_state("root")["velocities"][0, 0].copy())
    wall = time.perf_counter() - start
    times = np.array(times)
    V, mean = surge(times, np.array(velocities), info.axis, frequency)
    axis = np.asarray(info.axis)
    Q = sim.get_state("root")["directors"][0, 0]
    heading = np.degrees(np.arccos(np.clip((Q.T @ axis) @ axis, -1.0, 1.0)))
    return mean, float(V[times >= 2.0 / frequency].max()), float(heading), wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--free", action="store_true", help="the root free in SE(3) (no hold)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args()
    rows = [(f, *run(f, hold=not args.free)) for f in FREQUENCIES]
    if args.markdown:
        print("| frequency [pps] | mean surge [cm/s] | peak [cm/s] | heading change [deg] | wall [s] |")
        print("|---|---|---|---|---|")
        for f, mean, peak, heading, wall in rows:
            print(f"| {f} | {100 * mean:.2f} | {100 * peak:.2f} | {heading:.2g} | {wall:.1f} |")
    else:
        for f, mean, peak, heading, wall in rows:
            print(f"{f} pps: mean {mean:.5f} m/s, peak {peak:.5f} m/s, heading {heading:.3g} deg, "
                  f"{wall:.1f} s")


if __name__ == "__main__":
    main()
