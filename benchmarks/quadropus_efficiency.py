"""The Quadropus's quasi-propulsive efficiency (Renda et al. 2018 eqs. 26-27, 31 % in the
paper) and the loads on its root body (Fig. 14), measured by softmech.scenarios.
underwater_power on the built-in scene, with the jet's actuation amplitude scaled.

    python benchmarks/quadropus_efficiency.py [--duration 6] [--scales 1,0.5,2] [--moment 5e-3]

For each scale of the radial actuation amplitude (QUADROPUS["jet_peak"], 15 N / r* read as a
pressure; the paper's F_za is a hoop force): P_out and P_in sampled every 5 ms, eta_QP over
the whole pulsations after t = 3 s (after the arms' sculling stroke of 1-2 s), mean P_out, P_in
and surge speed there, and the peak forward and backward loads of arms and mantle on the root.
"""
import argparse
import time

import numpy as np

import softmech.scenarios.quadropus as quadropus
from softmech.scenarios.underwater_power import (power_budget, quasi_propulsive_efficiency,
                                                 root_loads)


def measure(duration, scale, moment, sample=5e-3, steady=3.0):
    peak = quadropus.QUADROPUS["jet_peak"]
    quadropus.QUADROPUS["jet_peak"] = peak * scale
    try:
        scene, info = quadropus.build_quadropus(duration=duration, moment=moment)
    finally:
        quadropus.QUADROPUS["jet_peak"] = peak
    sim = scene.compile(dt=info.dt, scheme=info.scheme)
    every = max(1, int(round(sample / info.dt)))
    rows = []
    start = time.perf_counter()
    for _ in range(int(round(duration / info.dt / every))):
        sim.step(every)
        p_out, p_in = power_budget(sim, "root", info.axis)
        loads = root_loads(sim, "root", info.axis)
        V = sim.get_state("root")["velocities"][0, 0] @ np.asarray(info.axis)
        rows.append((sim.time, p_out[0], p_in[0], loads["arms"][0], loads["mantle"][0], V))
    wall = time.perf_counter() - start
    t, p_out, p_in, arms, mantle, V = np.array(rows).T
    f = info.frequency
    window = (np.ceil(steady * f) / f, np.floor(t[-1] * f + 1e-9) / f)
    inside = (t >= window[0]) & (t <= window[1])
    eta = quasi_propulsive_efficiency(t, p_out, p_in, window)
    return dict(scale=scale, eta=eta, p_out=p_out[inside].mean(), p_in=p_in[inside].mean(),
                V=V[inside].mean(), arms=(arms.min(), arms.max()),
                mantle=(mantle.min(), mantle.max()), window=window, wall=wall)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=6.0)
    parser.add_argument("--scales", default="1")
    parser.add_argument("--moment", type=float, default=quadropus.QUADROPUS["moment"])
    args = parser.parse_args()
    print("| actuation scale | eta_QP | mean P_out [mW] | mean P_in [mW] | mean surge [cm/s] | "
          "arms on root [N] | mantle on root [N] | wall [s] |")
    print("|---|---|---|---|---|---|---|---|")
    for scale in (float(s) for s in args.scales.split(",")):
        m = measure(args.duration, scale, args.moment)
        print(f"| {m['scale']:g} | {100 * m['eta']:.1f} % | {1e3 * m['p_out']:.2f} | "
              f"{1e3 * m['p_in']:.2f} | {100 * m['V']:.2f} | {m['arms'][0]:.3f} to "
              f"{m['arms'][1]:.3f} | {m['mantle'][0]:.3f} to {m['mantle'][1]:.3f} | "
              f"{m['wall']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
