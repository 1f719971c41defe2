"""Musculoskeletal benchmarks (issue 14): the elbow's biceps and the feathered wing, not
collected by pytest.

    python benchmarks/biceps.py                 # elbow (with and without contact) and wing
    python benchmarks/biceps.py --steps N       # steps per timing (default 5000)
    python benchmarks/biceps.py --only elbow    # or: --only wing
    python benchmarks/biceps.py --cycle         # also time one flapping cycle of the full wing

Elbow: the `softmech run elbow` scene (bones, tendons, aponeurosis plates, 36 active muscle rods
of 8 elements, 76 joints, rod-rod contact among the 36 muscle rods; dt = 5e-6 s), one world.
Wing: the `softmech run wing` scene (softmech.scenarios.wing) at half, full and double its
barb count (1,400 / 2,800 / 5,600 barbs; rods = barbs + 19 rachises + 4 muscles), one world,
dt = the scene's own (its rachis elements shorten with more barbs). Reports microseconds per
step (best of 3, after a warm-up that compiles or loads the step), the time to build and to
compile the scene, and the wall time of one flapping cycle (initiation + one period) at that
cost per step; --cycle runs the full wing's cycle (sim.run, no recording).
"""
import argparse
import time

from softmech.scenarios.elbow import build_elbow
from softmech.scenarios.wing import FULL_BARBS, build_wing


def per_step(build, n_steps):
    """(us per step, elements, terms, rods, build [s], compile [s], scene info)."""
    started = time.perf_counter()
    scene, info = build()
    built = time.perf_counter()
    sim = scene.compile(dt=info.dt)
    sim.step(10)                                  # compile / load the step
    compiled = time.perf_counter()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        sim.step(n_steps)
        best = min(best, time.perf_counter() - t0)
    return (1e6 * best / n_steps, sum(r.n_elems for r in scene.rods), len(scene.terms),
            len(scene.rods), built - started, compiled - built, info, sim)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--only", choices=("elbow", "wing"), default=None)
    parser.add_argument("--cycle", action="store_true")
    args = parser.parse_args()
    if args.only in (None, "elbow"):
        for contact in (True, False):
            us, n_elems, n_terms, *_ = per_step(lambda c=contact: build_elbow(contact=c), args.steps)
            print(f"elbow, 36 muscle rods, contact={contact}: {us:.0f} us/step "
                  f"({n_elems} elements, {n_terms} terms)", flush=True)
    if args.only in (None, "wing"):
        for factor in (0.5, 1.0, 2.0):
            barbs = int(round(factor * FULL_BARBS))
            us, n_elems, n_terms, rods, t_build, t_compile, info, sim = per_step(
                lambda b=barbs: build_wing(barbs=b), max(200, int(args.steps / factor)))
            steps = round(info.duration / info.dt)
            print(f"wing x{factor:g}: {rods} rods, {n_elems} elements, {n_terms} terms: "
                  f"{us:.0f} us/step ({1e3 * us / n_elems:.0f} ns per element); dt = "
                  f"{info.dt:.3g} s; build {t_build:.1f} s, compile {t_compile:.1f} s; one cycle "
                  f"({info.duration:g} s, {steps} steps): {us * steps / 1e6:.0f} s", flush=True)
            if args.cycle and factor == 1.0:
                t0 = time.perf_counter()
                sim.run(info.duration - sim.time)
                print(f"  full wing, one flapping cycle run: {time.perf_counter() - t0:.0f} s "
                      f"wall", flush=True)


if __name__ == "__main__":
    main()
