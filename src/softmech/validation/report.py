"""The validation report: a Markdown page with every case's measured value, its reference, error,
tolerance, result and source, grouped by model, with one figure per group (`softmech validate
--report PATH`; the docs site's validation page).

`CASE_INFO` names, for every case of the `rods` and `papers` groups, the quantity its record
measures (with its unit) and the source of the reference value; the other groups' cases carry
theirs on the function (softmech.validation.common.validation_case). The page is generated from
the records of a run, so every number in it was measured by the softmech version named at its
top. The figures (error over tolerance of every case of a group) are written to the folder
PAGE_figures next to the page (docs/validation_figures/ for docs/validation.md).
"""
import inspect
import os
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
    "zhang2019_wing_joint_angles": CaseInfo("largest deviation of the shoulder's joint angles "
                                            "from a starling's over a wingbeat [deg]",
                                            "Zhang et al. 2019, Fig. 4e and text: ≈ 10°"),
    "dismech_fig8_rod": CaseInfo("rod tip over Euler–Bernoulli − 1 at E = 2 GPa [-]",
                                 "MAT-DiSMech §7.2, Fig. 8 (the figure's script): +4.5 %"),
    "dismech_fig8_hinge": CaseInfo("hinge shell tip over Euler–Bernoulli − 1 at E = 5 GPa [-]",
                                   "MAT-DiSMech §7.2, Fig. 8 (the figure's script): +16 %"),
}
"""Case name -> CaseInfo(quantity with its unit, source of the reference) for every case of CASES
and of softmech.validation.papers.PAPER_CASES."""


def case_info(name, function=None):
    """CaseInfo of a case: from its function's validation_case marks, else CASE_INFO; ValueError
    naming the case if it has neither (every case must say what it measures)."""
    if function is not None and hasattr(function, "quantity"):
        return CaseInfo(function.quantity, function.source)
    if name not in CASE_INFO:
        raise ValueError(f"case = {name!r} has no entry in softmech.validation.report.CASE_INFO "
                         "and is not marked with softmech.validation.common.validation_case: "
                         "add its quantity and source")
    return CASE_INFO[name]


def _cell(text):
    """Text for a Markdown table cell: a "|" would end the cell, so it is escaped."""
    return text.replace("|", "\\|")


def _duration(seconds):
    """'42 s' or '3.5 minutes'."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} minutes"


def figure_folder(path):
    """The folder of the report's figures: PAGE_figures next to the page (PAGE.md)."""
    return os.path.splitext(path)[0] + "_figures"


def group_figure(records, group, path):
    """Write a PNG of one group's cases: error over tolerance (log scale; <= 1 passes) as
    horizontal bars, green for a pass and red for a failure. Returns path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["case"] for r in records]
    ratios = [max(r["error"] / r["tolerance"], 1e-12) if r["tolerance"] > 0 else float("inf")
              for r in records]
    colors = ["tab:green" if r["passed"] else "tab:red" for r in records]
    fig, ax = plt.subplots(figsize=(8.0, 0.9 + 0.32 * len(records)), layout="constrained")
    y = list(range(len(records)))[::-1]
    ax.barh(y, ratios, color=colors, left=1e-12)
    ax.set_xscale("log")
    ax.set_xlim(min(1e-12, min(ratios) / 3), max(10.0, max(ratios) * 3))
    ax.axvline(1.0, color="black", lw=1.0, ls="--")
    ax.set_yticks(y, names, fontsize=8)
    ax.set_xlabel("error / tolerance [-] (a case passes at ≤ 1, dashed)")
    passed = sum(r["passed"] for r in records)
    ax.set_title(f"Validation group {group}: {passed} of {len(records)} passed", fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _groups(records):
    """{group: [records]} in the order of first appearance (records without one: "rods")."""
    grouped = {}
    for r in records:
        grouped.setdefault(r.get("group", "rods"), []).append(r)
    return grouped


def markdown_report(records, *, docstrings, infos=None, seconds=None, figures=None,
                    command="softmech validate --report PATH"):
    """The report page (Markdown text) for validation records (see softmech.validation.cases).

    records: list of record dicts, each with its "group" (and optionally "seconds", the case's
    wall-clock time [s]); docstrings: case name -> its docstring (the formula, the source and
    the reason for the tolerance), shown under each case; infos: case name -> CaseInfo (None:
    case_info(name)); seconds: the wall-clock time of the whole run [s] (None: not reported);
    figures: group -> figure path relative to the page (None: none); command: the command that
    made the page."""
    from softmech.validation.registry import GROUPS

    infos = dict(infos or {})
    for r in records:
        if r["case"] not in infos:
            infos[r["case"]] = case_info(r["case"])
    grouped = _groups(records)
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
        "| group | cases | passed | time |",
        "|---|---|---|---|",
    ]
    for group, rs in grouped.items():
        time_text = (_duration(sum(r["seconds"] for r in rs))
                     if all("seconds" in r for r in rs) else "")
        lines.append(f"| [{group}](#{group}) | {len(rs)} | {sum(r['passed'] for r in rs)} | "
                     f"{time_text} |")
    for group, rs in grouped.items():
        title = GROUPS[group].title if group in GROUPS else group
        lines += ["", f"## {group}", "", title[0].upper() + title[1:] + ".", ""]
        if figures and group in figures:
            lines += [f"![{group}: error over tolerance of each case]({figures[group]})", ""]
        lines += ["| case | quantity | measured | reference | error | tolerance | result | source |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in rs:
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


def write_report(path, records, *, functions, seconds=None,
                 command="softmech validate --report PATH"):
    """Write the report page to `path` atomically and one figure per group to
    figure_folder(path); functions: case name -> its function (docstring and CaseInfo).
    Returns the paths written (the page first)."""
    folder = figure_folder(path)
    os.makedirs(folder, exist_ok=True)
    figures, written = {}, []
    for group, rs in _groups(records).items():
        written.append(group_figure(rs, group, os.path.join(folder, f"{group}.png")))
        figures[group] = f"{os.path.basename(folder)}/{group}.png"
    text = markdown_report(records, docstrings={n: f.__doc__ for n, f in functions.items()},
                           infos={n: case_info(n, f) for n, f in functions.items()},
                           seconds=seconds, figures=figures, command=command)
    atomic_write_text(path, text)
    return [str(path)] + written
