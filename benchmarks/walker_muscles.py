"""The walker's cost per step by muscle topology (issue 14), not collected by pytest.

    python benchmarks/walker_muscles.py              # strip, strip with cross feet, rings
    python benchmarks/walker_muscles.py --steps N    # steps per timing (default 5000)

The `softmech run walker` scene (three walkers side by side, 0.5, 1 and 2 Hz, dt = 1e-5 s,
one world) with muscle="strip" (the strip jointed to the pillars), the same with the rings'
4 mm cross feet (foot_width), and muscle="rings" (two muscle rings per walker in contact with
the skeleton, cross feet). Microseconds per step: best of 3 after a warm-up that compiles or
loads the step (benchmarks/biceps.py's per_step).
"""
import argparse

from biceps import per_step

from softmech.scenarios.walker import FOOT_WIDTH, build_walker

VARIANTS = {"strip": dict(muscle="strip"),
            "strip + cross feet": dict(muscle="strip", foot_width=FOOT_WIDTH),
            "rings (+ cross feet)": dict(muscle="rings")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    args = parser.parse_args()
    print(f"{'walker muscle':<22} {'rods':>5} {'elements':>8} {'terms':>6} {'us/step':>8} "
          f"{'s per simulated s':>18}")
    for name, kwargs in VARIANTS.items():
        us, elems, terms, rods, *_ = per_step(lambda: build_walker(**kwargs), args.steps)
        print(f"{name:<22} {rods:>5} {elems:>8} {terms:>6} {us:>8.1f} {us * 1e-6 / 1e-5:>18.1f}")


if __name__ == "__main__":
    main()
