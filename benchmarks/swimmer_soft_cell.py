"""The bio-hybrid swimmer with Zhang et al.'s soft contractile cell (docs/swimmer.md).

    python benchmarks/swimmer_soft_cell.py              # ~3 minutes on 2 cores (kernels cached)
    python benchmarks/swimmer_soft_cell.py --json

Zhang et al. (Nat. Commun. 10:4825, 2019) model the swimmer's cardiomyocytes as "a small, soft
contractile filament" (r = 10 um, 100 um, F = sigma_m A = 12 uN at 3.6 Hz) on a flagellum of the
caption's bending stiffness; the cell's Young's modulus E_c is in neither paper's text. This
script

1. derives E_c from the one measured number the model must meet: the original swimmer's speed,
   5-10 um/s (Williams et al., Nat. Commun. 5:3081, 2014; Zhang et al.'s Fig. 2b reproduces
   it), by root-finding on the original's steady speed (softmech.scenarios.swimmer.PAPER_MODEL
   with E_c varied) for 5, 7.5 and 10 um/s;
2. at each such E_c, runs the original and the caption's optimum and reports their speeds over
   the campaign's window (beats 1-2, the fitness of `softmech optimize swimmer`), at steady
   state (beats 5-8) and the largest distance per beat, with the speed-ups (the paper: 2.44);
3. shows the same for the circular sections (E pi r^4 / 4) instead of the caption's E I.

Each run: the discrete model (100 edges, implicit Euler, 400 steps per beat; 800 changes the
speeds by < 1e-3), 8 beats, the centre of mass at the start of every beat.
"""
import time

from scipy.optimize import brentq

import softmech as sm
from softmech.optimize.swimmer import design_cell_location, original_design, paper_optimum
from softmech.scenarios.swimmer import (FIG2, PAPER_MODEL, PAPER_OPTIMUM, beat_distances,
                                        build_swimmer)
from table_cli import table_main

BEATS = 8
STEPS_PER_BEAT = 400
TARGETS = (5e-6, 7.5e-6, 10e-6)
"""Original swimmer speeds [m/s] to calibrate E_c to: Williams et al.'s 5-10 um/s and its middle."""


def per_beat(design, **options):
    """Distances [m] the centre of mass covers in each of BEATS beats, (BEATS,)."""
    head, r_head, r_tail, _ = design
    period = 1.0 / FIG2["frequency"]
    scene, _ = build_swimmer(model="discrete", head_length=head, head_radius=r_head,
                             tail_radius=r_tail, cell_location=design_cell_location(design),
                             **options)
    sim = scene.compile(dt=period / STEPS_PER_BEAT)
    out = sim.run(BEATS * period, record=sm.Every(period / 20, ("flagellum.com",)))
    return beat_distances(out["time"], out["flagellum.com"][0], period)


def speeds(distances):
    """(window 1-2, steady 5-8, largest per beat) speeds [m/s] from per-beat distances."""
    f = FIG2["frequency"]
    return (float(distances[1] * f), float(distances[4:].mean() * f), float(distances.max() * f))


def calibrate(target, options):
    """E_c [Pa] at which the original swims at `target` [m/s] at steady state."""
    def miss(log_modulus):
        d = per_beat(original_design(), **{**options, "cell_modulus": 10.0**log_modulus})
        return speeds(d)[1] - target
    return 10.0 ** brentq(miss, 4.5, 6.5, xtol=1e-3)


def rows():
    """One row per (bending, target speed): E_c and the two designs' speeds."""
    table = []
    for bending in ("caption", "circular"):
        options = {**PAPER_MODEL, "bending": bending}
        for target in TARGETS:
            started = time.perf_counter()
            modulus = calibrate(target, options)
            options["cell_modulus"] = modulus
            original = speeds(per_beat(original_design(), **options))
            optimum = speeds(per_beat(paper_optimum(), **options))
            table.append(dict(bending=bending, target=target, cell_modulus=modulus,
                              original=original, optimum=optimum,
                              speedup=[o / r for o, r in zip(optimum, original)],
                              wall_s=time.perf_counter() - started))
    return table


def markdown(table):
    lines = ["| E I | original's speed (target) | E_c [kPa] | original: beats 1-2 / steady / "
             "largest [um/s] | paper's optimum: beats 1-2 / steady / largest [um/s] | "
             "speed-up: beats 1-2 / steady / largest |", "|---|---:|---:|---|---|---|"]
    for r in table:
        um = lambda v: " / ".join(f"{x * 1e6:.2f}" for x in v)        # noqa: E731
        lines.append(f"| {r['bending']} | {r['target'] * 1e6:g} um/s | "
                     f"{r['cell_modulus'] / 1e3:.0f} | {um(r['original'])} | {um(r['optimum'])} | "
                     + " / ".join(f"{x:.2f}" for x in r["speedup"]) + " |")
    return "\n".join(lines)


def main(argv=None):
    def heading(seconds):
        return (f"Soft contractile cell, {BEATS} beats, {STEPS_PER_BEAT} steps per beat; "
                f"paper's speed-up {PAPER_OPTIMUM['speedup']}; {seconds:.0f} s wall")
    return table_main(argv, __doc__, rows, markdown, heading)


if __name__ == "__main__":
    raise SystemExit(main())
