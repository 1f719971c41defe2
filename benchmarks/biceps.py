"""Elbow / biceps benchmark (softmech.scenarios.elbow), not collected by pytest.

    python benchmarks/biceps.py            # the full elbow: 2 x 18 muscle rods, with and without contact
    python benchmarks/biceps.py --steps N  # steps per timing (default 5000)

The `softmech run elbow` scene (bones, tendons, aponeurosis plates, 36 active muscle rods of 8
elements, 76 joints, rod-rod contact among the 36 muscle rods; dt = 1e-5 s), one world. Reports
microseconds per step (best of 3, after a warm-up that compiles or loads the step), with and
without the contact term, and the share of the active-muscle kernel (the force pass without
it, called from Python, is not timed here: the step is one compiled function).
"""
import argparse
import time

from softmech.scenarios.elbow import build_elbow


def per_step(contact, n_steps):
    scene, info = build_elbow(contact=contact)
    sim = scene.compile(dt=info.dt)
    sim.step(10)                                  # compile / load the step
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        sim.step(n_steps)
        best = min(best, time.perf_counter() - started)
    return 1e6 * best / n_steps, sum(r.n_elems for r in scene.rods), len(scene.terms)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5000)
    args = parser.parse_args()
    for contact in (True, False):
        us, n_elems, n_terms = per_step(contact, args.steps)
        print(f"elbow, 36 muscle rods, contact={contact}: {us:.0f} us/step "
              f"({n_elems} elements, {n_terms} terms)")


if __name__ == "__main__":
    main()
