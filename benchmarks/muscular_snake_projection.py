"""The continuous gait projected onto n muscle pairs (Zhang et al. 2019, Fig. 3 and
Supplementary Note 4): for n = 1..6, overlapping and non-overlapping, the layout of
softmech.scenarios.muscular_snake.projected_layout (least squares of the bending moment over
space and time; no optimizer on the speed), its relative residual and the forward speed of the
snake it drives over periods 3-6 at two resolutions, beside the continuous-torque snake's.

    python benchmarks/muscular_snake_projection.py [--pairs 1 2 3 4 5 6] [--n-elems 50 100]
    python benchmarks/muscular_snake_projection.py --pairs 4 --rods 1 1.3 1.5 1.7 2

--rods F...: also the four-pair layout as glued muscle rods (muscles="rods"), its forces
scaled by each factor (clipped to 3500 N), and the couples snake at the reciprocal
scalings (what the rods' weaker bending corresponds to). Prints markdown tables.
"""
import argparse

import numpy as np

from softmech.optimize.muscular_snake import MuscularSnakeProblem
from softmech.scenarios.muscular_snake import MAX_FORCE, projected_layout
from softmech.validation.papers import muscle_pair_speeds


def speeds(layouts, n_elems, muscles="couples"):
    """Forward speeds [m/s] over periods 3-6 of layouts (k, n, 4), one batched run (couples) or
    one run each (rods)."""
    problem = MuscularSnakeProblem(layouts.shape[1], len(layouts), n_elems=n_elems,
                                   window=(3.0, 6.0), muscles=muscles)
    return problem.speeds(layouts.reshape(len(layouts), -1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    p.add_argument("--n-elems", type=int, nargs="+", default=[50, 100])
    p.add_argument("--rods", type=float, nargs="*", default=[],
                   help="force scalings of the four-pair layout as muscle rods")
    a = p.parse_args()
    continuous = muscle_pair_speeds()[0]["continuous"]
    print(f"continuous-torque snake: {continuous:.4f} m/s (periods 3-6, 50 elements)\n")
    print("| pairs n | spans | residual | " + " | ".join(f"speed ({n} el.)" for n in a.n_elems)
          + " | layout (start-end [vertebrae], force [N], phase) |")
    print("|---:|---|---:|" + "---:|" * len(a.n_elems) + "---|")
    for n in a.pairs:
        for overlap in (True, False):
            layout, residual = projected_layout(n, overlap=overlap)
            v = [float(speeds(layout[None], ne)[0]) for ne in a.n_elems]
            text = "; ".join(f"{s:.0f}-{s + l:.0f}, {f:.0f}, {ph:.2f}" for s, l, f, ph in layout)
            print(f"| {n} | {'overlapping' if overlap else 'disjoint'} | {residual:.3f} | "
                  + " | ".join(f"{x:.3f} m/s ({x / continuous:.0%})" for x in v)
                  + f" | {text} |", flush=True)
    if a.rods:
        layout = projected_layout(4)[0]
        print("\n| force scaling | muscle rods | couples at the same scaling |")
        print("|---:|---:|---:|")
        scaled = np.stack([np.column_stack([layout[:, :2], np.minimum(layout[:, 2] * f, MAX_FORCE),
                                            layout[:, 3]]) for f in a.rods])
        rods = speeds(scaled, 50, "rods")
        couples = speeds(scaled, 50)
        for f, r, c in zip(a.rods, rods, couples):
            print(f"| {f:g} | {r:.3f} m/s | {c:.3f} m/s |", flush=True)


if __name__ == "__main__":
    main()
