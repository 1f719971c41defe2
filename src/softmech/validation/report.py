"""The validation report: a Markdown page with every case's measured value, its reference, error,
tolerance, result and source (`softmech validate --report PATH`; the docs site's validation page).

`CASE_INFO` names, for every case of softmech.validation.cases.CASES, the quantity its record
measures (with its unit) and the source of the reference value. The page is generated from the
records of a run, so every number in it was measured by the softmech version named at its top.
"""
import inspect
import textwrap
from typing import NamedTuple

from softmech._version import __version__
from softmech.io import atomic_write_text


class CaseInfo(NamedTuple):
    """What a case measures (with its unit) and where its reference comes from (Markdown text;
    a "|" is escaped when it goes into the report's table)."""
    quantity: str
    source: str


_HANDOUT = "ME498 handout"
_WALL = "ME498 handout §2.2.4, wall check {} (Table 2 rod): exact force balance"
_COULOMB = "Amontons–Coulomb friction law"

CASE_INFO = {
    "axial_stretch_gazzola2018": CaseInfo("elongation ΔL [m]", f"{_HANDOUT}, case 1 (axial stretch)"),
    "axial_stretch_hyperelastic": CaseInfo("elongation ΔL [m]", f"{_HANDOUT}, case 1 (axial stretch)"),
    "timoshenko_cantilever": CaseInfo("tip deflection y(L) [m]",
                                      f"{_HANDOUT} §2.2.3, Table 1: Timoshenko beam theory"),
    "timoshenko_euler_bernoulli": CaseInfo("tip deflection y(L) [m]",
                                           "geometrically exact planar Cosserat cantilever "
                                           "(scipy `solve_bvp`), E = 3/2 G regime of the handout"),
    "timoshenko_euler_bernoulli_small_load": CaseInfo("tip deflection y(L) [m]",
                                                      f"{_HANDOUT}: Timoshenko formula, F = 0.15 N"),
    "timoshenko_convergence": CaseInfo("tip deflection y(L), n = 100 [m]; orders for n = 12…100",
                                       "geometrically exact planar continuum (scipy `solve_bvp`)"),
    "precurved_rest": CaseInfo("largest node displacement / L [-]",
                               f"{_HANDOUT}, case 2 (pre-stressed beam): exact equilibrium"),
    "precurved_return": CaseInfo("end-to-end distance [m]",
                                 f"{_HANDOUT}, case 2 (pre-stressed beam): chord 2R sin(θ/2)"),
    "cantilever_first_mode": CaseInfo("first bending frequency f₁ [Hz]",
                                      "Euler–Bernoulli clamped-free beam, β₁L = 1.87510"),
    "energy_conservation_hyperelastic": CaseInfo("max |ΔE/E₀| over 10⁵ steps [-]",
                                                 "energy conservation (hyperelastic law)"),
    "energy_conservation_planar_hyperelastic": CaseInfo("max |ΔE/E₀| over 10⁵ steps [-]",
                                                        "energy conservation (hyperelastic law)"),
    "energy_conservation_gazzola2018": CaseInfo("max |ΔE/E₀| over 10⁵ steps [-]",
                                                "first-order energy bound of Gazzola et al. 2018's law"),
    "linear_momentum_conservation": CaseInfo("max |P − P₀| / |P₀| [-]",
                                             "linear momentum conservation (free rod)"),
    "angular_momentum_conservation": CaseInfo("max |L − L₀| / |L₀|, dt = 0.5 × limit [-]",
                                              "angular momentum conservation, O(dt²) for Verlet"),
    "dt_convergence_verlet": CaseInfo("observed order of convergence in dt [-]",
                                      "Verlet 1967; ME498 handout eqs. 5–10 (second order)"),
    "dt_convergence_verlet_3d": CaseInfo("observed order of convergence in dt [-]",
                                         "Verlet 1967; ME498 handout eqs. 5–10 (second order)"),
    "dt_convergence_pefrl": CaseInfo("observed order of convergence in dt [-]",
                                     "Omelyan, Mryglod & Folk 2002 (fourth order)"),
    "dt_convergence_pefrl_axial": CaseInfo("observed order of convergence in dt [-]",
                                           "Omelyan, Mryglod & Folk 2002 (fourth order)"),
    "ring_breathing_mode": CaseInfo("breathing angular frequency ω [rad/s]",
                                    "Love, *Treatise on Elasticity* §293: ω = √(E/ρ) / R"),
    "ring_flexural_mode": CaseInfo("n = 2 flexural angular frequency ω₂ [rad/s]",
                                   "Hoppe 1871: ω₂² = 7.2 E I / (ρ A R⁴)"),
    "wall_rest_under_gravity": CaseInfo("total normal wall force [N]", _WALL.format(1)),
    "wall_interpenetration": CaseInfo("total normal wall force [N]", _WALL.format(2)),
    "wall_tangential_velocity": CaseInfo("total normal wall force [N]", _WALL.format(3)),
    "wall_normal_velocity": CaseInfo("total normal wall force [N]", _WALL.format(4)),
    "friction_slope_stick": CaseInfo("largest centre-of-mass displacement [m]",
                                     f"{_COULOMB}: static friction holds"),
    "friction_slope_slide": CaseInfo("centre-of-mass acceleration along the slope [m/s²]",
                                     f"{_COULOMB}: a = g (sin α − μₖ cos α)"),
    "friction_axial_push": CaseInfo("centre-of-mass acceleration [m/s²] (worse sliding world)",
                                    f"{_COULOMB}, anisotropic: a = (F − μₖ M g) / M"),
    "friction_standing_wave": CaseInfo("|mean centre-of-mass velocity| [m/s]",
                                       "mirror symmetry: no net drift"),
    # the papers' reproductions (softmech.validation.papers, `softmech validate --papers`)
    "me498_snake_forward_speed": CaseInfo("mean speed along the direction of travel, periods 3–6 "
                                          "[m/s]", f"{_HANDOUT} §2.2.6: the course's 0.585 m/s"),
    "me498_snake_lateral_speed": CaseInfo("mean speed across the direction of travel, periods "
                                          "3–6 [m/s]", "ME498 course data file "
                                          "(optimized_snake.dat): ≈ −0.004 m/s"),
    "zhang2019_four_muscle_pairs": CaseInfo("speed of four muscle pairs over the continuous "
                                            "snake's, periods 3–6 [-]", "Zhang et al. 2019, "
                                            "Fig. 3b and text: ≈ equal (both ≈ 0.58 m/s)"),
    "dismech_fig8_rod": CaseInfo("rod tip over Euler–Bernoulli − 1 at E = 2 GPa [-]",
                                 "MAT-DiSMech §7.2, Fig. 8 (the figure's script): +4.5 %"),
    "dismech_fig8_hinge": CaseInfo("hinge shell tip over Euler–Bernoulli − 1 at E = 5 GPa [-]",
                                   "MAT-DiSMech §7.2, Fig. 8 (the figure's script): +16 %"),
}
"""Case name -> CaseInfo(quantity with its unit, source of the reference) for every case of CASES
and of softmech.validation.papers.PAPER_CASES."""


def case_info(name):
    """CaseInfo of a case; ValueError naming the case if it has none (every case must have one)."""
    if name not in CASE_INFO:
        raise ValueError(f"case = {name!r} has no entry in softmech.validation.report.CASE_INFO: "
                         "add its quantity and source there")
    return CASE_INFO[name]


def _cell(text):
    """Text for a Markdown table cell: a "|" would end the cell, so it is escaped."""
    return text.replace("|", "\\|")


def _duration(seconds):
    """'42 s' or '3.5 minutes'."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} minutes"


def markdown_report(records, *, docstrings, seconds=None, command="softmech validate --report PATH"):
    """The report page (Markdown text) for validation records (see softmech.validation.cases).

    records: list of record dicts; docstrings: case name -> its docstring (the formula, the
    source and the reason for the tolerance), shown under each case; seconds: the wall-clock
    time of the whole run [s] (None: not reported); command: the command that made the page."""
    infos = {r["case"]: case_info(r["case"]) for r in records}
    passed = sum(r["passed"] for r in records)
    lines = [
        "# Validation report",
        "",
        f"Generated by `{command}` with softmech {__version__}: **{passed} of {len(records)} "
        "cases passed**" + (f" in {_duration(seconds)} of wall-clock time" if seconds else "")
        + ". Do not edit by hand; regenerate it. The [validation guide](validation_guide.md) "
        "explains how the cases are built and how to run them.",
        "",
        "The error is relative to the reference unless the reference is 0, the quantity is a "
        "convergence order or the case's text says absolute (then absolute). "
        "A case passes when its error is within the tolerance "
        "and its extra conditions hold (listed under each case below).",
        "",
        "| case | quantity | measured | reference | error | tolerance | result | source |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        info = CaseInfo(*(_cell(text) for text in infos[r["case"]]))
        lines.append(
            f"| [`{r['case']}`](#{r['case']}) | {info.quantity} | "
            f"{r['measured']:.6g} | {r['reference']:.6g} | {r['error']:.2e} | "
            f"{r['tolerance']:.2g} | {'pass' if r['passed'] else '**FAIL**'} | {info.source} |")
    lines += ["", "## Cases", ""]
    for r in records:
        doc = inspect.cleandoc(docstrings.get(r["case"]) or "(no docstring)")
        lines += [f"### {r['case']}", "", "```text", doc, "```", "", "Measured in this run:", "",
                  "```text", textwrap.fill(r.get("detail", ""), 100), "```", ""]
    return "\n".join(lines)


def write_report(path, records, *, docstrings, seconds=None,
                 command="softmech validate --report PATH"):
    """Write markdown_report(...) to `path` atomically; returns path."""
    return atomic_write_text(path, markdown_report(records, docstrings=docstrings, seconds=seconds,
                                                   command=command))
