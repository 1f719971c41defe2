"""Wall time per simulated beat of the bio-hybrid swimmer with its two rod models, in one run:
the discrete elastic rod (implicit Euler, the default) and the Cosserat rod (explicit, rotary
inertia x 10, dt at 0.225 of its stability limit), and their ratio.

    python benchmarks/swimmer_models.py [--beats 2] [--cosserat-beats 0.1]

The Cosserat rod is timed over a fraction of a beat (its cost per step is constant) and scaled
to one beat; both after a short warm-up run, so compilation is excluded."""
import argparse
import time

from softmech.scenarios.swimmer import build_swimmer


def per_beat(model, beats):
    scene, info = build_swimmer(model=model, cycles=beats)
    sim = scene.compile(dt=info.dt)
    sim.run(2 * info.dt)                                    # warm-up: compile / load kernels
    started = time.perf_counter()
    sim.run(beats * info.period)
    wall = time.perf_counter() - started
    return wall / beats, info


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beats", type=float, default=2.0)
    parser.add_argument("--cosserat-beats", type=float, default=0.1)
    args = parser.parse_args()
    discrete, d = per_beat("discrete", args.beats)
    cosserat, c = per_beat("cosserat", args.cosserat_beats)
    print(f"discrete: {d.n_elems} edges, dt = {d.dt:.3g} s, {discrete:.2f} s per beat")
    print(f"cosserat: {c.n_elems} elements, dt = {c.dt:.3g} s, {cosserat:.2f} s per beat")
    print(f"ratio cosserat / discrete: {cosserat / discrete:.1f}")


if __name__ == "__main__":
    main()
