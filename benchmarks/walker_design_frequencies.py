"""The walker design box at the paper's three stimulation frequencies (issue 28; not collected by
pytest): every design of a grid over the campaign's box (softmech.optimize.walker: skeleton
modulus 250-350 kPa, short pillar 2.4-3.4 mm, the rings' height at the ends of the range
where they fit, ring_height_range) walked at 0.5, 1 and 2 Hz exactly as the campaign's report
walks its best (WalkerDesignProblem.speeds over settle + REPORT_SPAN, 6 s), against the
original design. It asks whether any design of the box reaches issue 28's 2x (the paper's
2.5x) at all three frequencies, which a campaign at one frequency cannot tell.

    python benchmarks/walker_design_frequencies.py --workers 2 --output walker_grid.jsonl
    python benchmarks/walker_design_frequencies.py --output walker_grid.jsonl --table

Each design's speeds are appended to the output file as one JSON line as soon as they are
measured; a second run skips the designs already there (the grid resumes after a crash).
--table prints the speed-ups as a markdown table. --bath-damping C runs every walker at
build_walker's bath damping C [kg/(m s)] instead of its default; --tangential-stiffness K on
its ground friction's tangential stiffness K [N/m] (0: the regularized law of the grids before
2026-12-07; default 10, friction that sticks); --internal-damping C with the damping C
[kg/(m s)] of each walker's deformation alone (build_walker's internal_damping); --dt-scale s
at s times the campaign's time step; --designs E,P,H ... only the designs given (modulus [Pa],
short pillar and rings' height [m]), the original added.
"""
import argparse
import itertools
import json
import multiprocessing
import os

import numpy as np

from softmech.optimize.walker import (LOWER, REPORT_FREQUENCIES, REPORT_SPAN, UPPER,
                                      WalkerDesignProblem, original_design)
from softmech.scenarios.walker import DEFAULTS, MM, ring_height_range


def grid(levels):
    """Designs (k, 3): youngs_modulus [Pa], short_pillar [m], strip_height [m], `levels` values
    of the modulus and the pillar across their ranges and the rings at the two ends of the
    height range that fits each pillar; the original design first."""
    designs = [original_design()]
    for e, pillar in itertools.product(np.linspace(LOWER[0], UPPER[0], levels),
                                       np.linspace(LOWER[1], UPPER[1], levels)):
        for height in ring_height_range(dict(DEFAULTS, short_pillar=pillar)):
            designs.append(np.array([e, pillar, height]))
    return designs


def measure(job):
    """{design, speeds {frequency: m/s}} of one design (job: (design list, bath damping,
    tangential stiffness, time step scale, internal damping))."""
    design, bath, ground, scale, internal = job
    problem = WalkerDesignProblem(1, bath_damping=bath, tangential_stiffness=ground,
                                  internal_damping=internal)
    problem.dt *= scale
    speeds = {f"{f:g}": float(problem.speeds(np.array([design]), f,
                                             problem.settle + REPORT_SPAN)[0])
              for f in REPORT_FREQUENCIES}
    return {"design": [float(x) for x in design], "bath_damping": bath,
            "internal_damping": internal,
            "tangential_stiffness": problem.meta()["tangential_stiffness"], "dt": problem.dt,
            "speeds": speeds}


def done_designs(path):
    """The rows already in the output file."""
    if not os.path.exists(path):
        return []
    rows = []
    with open(path) as f:
        for line in f:
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:     # a line cut short by a crash: measured again
                pass
    return rows


def table(rows):
    """Markdown table of the rows' speed-ups against the original (the first design)."""
    original = next(r for r in rows if np.allclose(r["design"], original_design()))
    keys = [f"{f:g}" for f in REPORT_FREQUENCIES]
    lines = ["| E [kPa] | short pillar [mm] | rings at [mm] | "
             + " | ".join(f"{k} Hz [um/s] (x)" for k in keys) + " | least x |",
             "|---:|---:|---:|" + "---:|" * (len(keys) + 1)]
    for r in rows:
        e, pillar, height = r["design"]
        ups = [r["speeds"][k] / original["speeds"][k] for k in keys]
        cells = [f"{1e6 * r['speeds'][k]:+.1f} ({u:.2f})" for k, u in zip(keys, ups)]
        lines.append(f"| {e / 1e3:.0f} | {pillar / MM:.2f} | {height / MM:.2f} | "
                     + " | ".join(cells) + f" | {min(ups):.2f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bath-damping", type=float, default=None)
    parser.add_argument("--tangential-stiffness", type=float, default=None)
    parser.add_argument("--internal-damping", type=float, default=None)
    parser.add_argument("--dt-scale", type=float, default=1.0)
    parser.add_argument("--designs", nargs="*", default=None)
    parser.add_argument("--output", default="walker_grid.jsonl")
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    rows = done_designs(args.output)
    if not args.table:
        seen = [r["design"] for r in rows]
        designs = grid(args.levels) if args.designs is None else [original_design()] + [
            np.array([float(v) for v in d.split(",")]) for d in args.designs]
        jobs = [(list(d), args.bath_damping, args.tangential_stiffness, args.dt_scale,
                 args.internal_damping)
                for d in designs
                if not any(np.allclose(d, s) for s in seen)]
        with multiprocessing.Pool(args.workers) as pool:
            for row in pool.imap_unordered(measure, jobs):
                with open(args.output, "a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), flush=True)
        rows = done_designs(args.output)
    print(table(rows))


if __name__ == "__main__":
    main()
