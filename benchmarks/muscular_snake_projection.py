"""The continuous gait projected onto n muscle pairs (Zhang et al. 2019, Fig. 3 and
Supplementary Note 4): for n = 1..6, overlapping and non-overlapping, the layout of
softmech.scenarios.muscular_snake.projected_layout (least squares of the bending moment over
space and time; no optimizer on the speed), its relative residual and the forward speed of the
snake it drives over periods 3-6 at two resolutions, beside the continuous-torque snake's.

    python benchmarks/muscular_snake_projection.py [--pairs 1 2 3 4 5 6] [--n-elems 50 100]
    python benchmarks/muscular_snake_projection.py --pairs 4 --rods 1 1.3 1.5 1.7 2
    python benchmarks/muscular_snake_projection.py --pairs 4 --axial 10
    python benchmarks/muscular_snake_projection.py --pairs 4 --rods 1 1.2 1.5 --lever 1.12
    python benchmarks/muscular_snake_projection.py --pairs 4 --n-elems 50 --authors 1 2
    python benchmarks/muscular_snake_projection.py --pairs 4 --n-elems 50 --paper-rods

--rods F...: also the four-pair layout as glued muscle rods (muscles="rods"), its forces
scaled by each factor (clipped to 3500 N), and the couples snake at the reciprocal
scalings (what the rods' weaker bending corresponds to). --lever L: the rods at L body radii
from the midline (default 0.5, the paper's r/2), their forces scaled by 0.5 / L so that each
factor gives the same moments as at r/2 (the compression falls as 1 / L). --axial F: the four-pair layout, rods
and couples, on a body F times stiffer in compression (section area x F, density / F: the same
mass per length, bending and torsional stiffness; shear stiffness x F, rotary inertia / F), at
dt = 8e-6 s (the stiffer shear modes), 6 s each: whether the rods' shortfall is their
compression of the body. --authors F...: the four pairs of the authors' public PyElastica example
(`examples/MuscularSnake/muscular_snake.py` of GazzolaLab/PyElastica: spans in elements of 100
from the tail node, torque amplitudes A [N m] that it divides by its arm r + 3 mm, delays
start / 101.76 s; `authors_layout`), their amplitudes scaled by each factor, as couples (F =
A / (r / 2)) and as muscle rods beside the body at its arm (1.12 r, F = A / 28 mm). (Its list
was read halved: a pair's net moment is the full A, see the paper's own pairs,
softmech.scenarios.muscular_snake.PAPER_CODE_PAIRS, which softmech.validation.papers.
muscle_pair_speeds runs.) --paper-rods: the paper's own four pairs and the four-pair
projection as muscle rods glued the way the paper's code glues them (muscles="paper_rods": the
anchors' moments as couples on the body). Prints markdown tables.
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


def rod_run(groups, lever_fraction=0.5, duration=6.0, muscles="rods"):
    """One muscle-rod snake (`muscles`: "rods" or "paper_rods") with `groups` at
    `lever_fraction` body radii: its forward speed (+x) and speed along its direction of travel
    over periods 3-6 [m/s], heading [deg] and body length at the end [m]."""
    import softmech as sm
    from softmech.scenarios.muscular_snake import build_muscular_snake
    from softmech.scenarios.snake import mean_velocities, travel_velocities
    scene, info = build_muscular_snake(groups=groups, muscles=muscles, duration=duration,
                                       lever_fraction=lever_fraction)
    out = scene.compile(dt=info.dt).run(duration, record=sm.Every(
        0.05, ("snake.com", "snake.positions")))
    forward = mean_velocities(out["time"], out["snake.com"], 1.0, 3, 6)[0][0]
    along, _, heading = travel_velocities(out["time"], out["snake.com"], 1.0, 3, 6)
    length = np.linalg.norm(np.diff(out["snake.positions"][0, -1], axis=0), axis=1).sum()
    return forward, along[0], heading[0], length


AUTHORS_EXAMPLE = dict(first_element=(4, 33, 23, 61), elements=(39, 39, 33, 33),
                       torque=(6.85, 4.755, 10.475, 11.48), delay_elements=(61, 23, 33, 4))
"""The four pairs of the authors' public example, as read: first body element of each pair's
muscles (from node 0, the tail: its wave's delays grow towards node 0), their length in
elements of 100, torque amplitude A [N m] (its list halved and reversed), and the element
index over 101.76 that gives each pair's delay [s] (its reversed start list)."""


def authors_layout(scale=1.0, lever=0.0125):
    """AUTHORS_EXAMPLE as MusclePairs rows (start, length [vertebrae from the head], force [N],
    phase): vertebra = 100 - element, spans clipped to [5, 95], force = scale A / lever [m]
    (the couples' r / 2 by default), phase = delay / period (1 s)."""
    rows = []
    e = AUTHORS_EXAMPLE
    for first, n, torque, late in zip(e["first_element"], e["elements"], e["torque"],
                                      e["delay_elements"]):
        start = max(100.0 - (first + n), 5.0)
        end = min(100.0 - first, 95.0)
        rows.append((start, end - start, scale * torque / lever, (late / 101.76) % 1.0))
    return np.array(rows)


def authors_table(factors, continuous):
    """The authors' example's pairs (authors_layout) at each torque scaling, as couples and as
    muscle rods at its arm; prints a markdown table."""
    print("\n| torques x | couples (+x) | muscle rods at 1.12 r: forward (+x) | along its travel "
          "(heading) | body length at 6 s |")
    print("|---:|---:|---:|---:|---:|")
    couples = speeds(np.stack([authors_layout(f) for f in factors]), 50)
    for f, c in zip(factors, couples):
        forward, along, heading, length = rod_run(authors_layout(f, 0.028), 0.028 / 0.025)
        print(f"| {f:g} | {c:.3f} m/s ({c / continuous:.0%}) | {forward:.3f} m/s "
              f"({forward / continuous:.0%}) | {along:.3f} m/s ({heading:+.0f} deg) | "
              f"{length:.3f} m |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    p.add_argument("--n-elems", type=int, nargs="+", default=[50, 100])
    p.add_argument("--rods", type=float, nargs="*", default=[],
                   help="force scalings of the four-pair layout as muscle rods")
    p.add_argument("--lever", type=float, default=0.5,
                   help="the rods' distance from the midline [body radii] (with --rods)")
    p.add_argument("--axial", type=float, default=None,
                   help="the four-pair layout on a body this many times stiffer in compression")
    p.add_argument("--authors", type=float, nargs="*", default=[],
                   help="torque scalings of the authors' public example's four pairs")
    p.add_argument("--paper-rods", action="store_true", dest="paper_rods",
                   help="the paper's pairs and the projection as rods glued the paper's way")
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
    if a.rods and a.lever != 0.5:
        lever_table(a.rods, a.lever, continuous)
    elif a.rods:
        layout = projected_layout(4)[0]
        print("\n| force scaling | muscle rods | couples at the same scaling |")
        print("|---:|---:|---:|")
        scaled = np.stack([np.column_stack([layout[:, :2], np.minimum(layout[:, 2] * f, MAX_FORCE),
                                            layout[:, 3]]) for f in a.rods])
        rods = speeds(scaled, 50, "rods")
        couples = speeds(scaled, 50)
        for f, r, c in zip(a.rods, rods, couples):
            print(f"| {f:g} | {r:.3f} m/s | {c:.3f} m/s |", flush=True)
    if a.axial:
        axial_table(a.axial)
    if a.authors:
        authors_table(a.authors, continuous)
    if a.paper_rods:
        paper_rods_table(continuous)


def paper_rods_table(continuous):
    """The paper's own four pairs and the four-pair projection as muscle rods glued one way
    (muscles="paper_rods"), 6 s each."""
    from softmech.scenarios.muscular_snake import paper_code_layout
    print("\n| layout | forward (+x) | along its travel (heading) | body length at 6 s |")
    print("|---|---:|---:|---:|")
    for name, layout in (("paper's own pairs", paper_code_layout()),
                         ("projection", projected_layout(4)[0])):
        forward, along, heading, length = rod_run(layout, muscles="paper_rods")
        print(f"| {name} | {forward:.4f} m/s ({forward / continuous:.1%}) | {along:.4f} m/s "
              f"({along / continuous:.1%}, {heading:+.1f} deg) | {length:.4f} m |", flush=True)


def lever_table(factors, lever, continuous):
    """The four-pair projected layout as muscle rods at `lever` body radii, each force scaled by
    factor * 0.5 / lever (the moments of `factor` at r/2); prints a markdown table."""
    layout = projected_layout(4)[0]
    print(f"\n| moments x (rods at {lever:g} r, forces x {0.5 / lever:.3f}) | forward (+x) | "
          "along its travel (heading) | body length at 6 s |")
    print("|---:|---:|---:|---:|")
    for f in factors:
        groups = np.column_stack([layout[:, :2],
                                  np.minimum(layout[:, 2] * f * 0.5 / lever, MAX_FORCE),
                                  layout[:, 3]])
        forward, along, heading, length = rod_run(groups, lever)
        print(f"| {f:g} | {forward:.3f} m/s ({forward / continuous:.0%}) | {along:.3f} m/s "
              f"({along / continuous:.0%}, {heading:+.0f} deg) | {length:.3f} m |", flush=True)


def axial_table(factor, dt=8e-6):
    """The four-pair projected layout, rods and couples, on a body `factor` times stiffer in
    compression (main's docstring); prints the speeds over periods 3-6, along +x and along the
    direction of travel, and the body's length at the end."""
    import softmech as sm
    from softmech.scene import Scene
    from softmech.scenarios.muscular_snake import build_muscular_snake
    from softmech.scenarios.snake import mean_velocities, travel_velocities

    add_rod = Scene.add_cosserat_rod

    def stiff_body(self, **kw):          # this experiment only: the snake's section replaced
        if kw.get("name") == "snake":
            r = kw["radius"]
            kw["section"] = sm.sections.general(
                area=factor * np.pi * r ** 2, second_moment1=np.pi * r ** 4 / 4,
                second_moment2=np.pi * r ** 4 / 4, torsion_constant=np.pi * r ** 4 / 2, radius=r)
            kw["density"] = kw["density"] / factor
        return add_rod(self, **kw)

    layout = projected_layout(4)[0]
    print("\n| body | muscles | forward (+x) | along its travel (heading) | body length at 6 s |")
    print("|---|---|---:|---:|---:|")
    Scene.add_cosserat_rod = stiff_body
    try:
        for kind in ("rods", "couples"):
            scene, info = build_muscular_snake(groups=layout, muscles=kind, duration=6.0, dt=dt)
            out = scene.compile(dt=info.dt).run(6.0, record=sm.Every(
                0.05, ("snake.com", "snake.positions")))
            forward = mean_velocities(out["time"], out["snake.com"], 1.0, 3, 6)[0][0]
            along, _, heading = travel_velocities(out["time"], out["snake.com"], 1.0, 3, 6)
            length = np.linalg.norm(np.diff(out["snake.positions"][0, -1], axis=0), axis=1).sum()
            print(f"| EA x {factor:g} | {kind} | {forward:.3f} m/s | {along[0]:.3f} m/s "
                  f"({heading[0]:+.0f} deg) | {length:.3f} m |", flush=True)
    finally:
        Scene.add_cosserat_rod = add_rod


if __name__ == "__main__":
    main()
