"""`softmech validate`: run the validation cases of every model and print a table or JSON.

    softmech validate                      every case of every group, table
    softmech validate --only GROUP ...     the cases of these groups (rods, contact, joints,
                                           fluids, muscles, discrete_rods, shells, underwater,
                                           papers; softmech.validation.registry)
    softmech validate --fast               the fast subset (a few seconds per case once compiled)
    softmech validate --case NAME ...      selected cases (repeatable) of the selected groups
    softmech validate --json               JSON list of {group, case, measured, reference, error,
                                           tolerance, passed}
    softmech validate --list               the case names, grouped, and exit
    softmech validate --papers             alias of --only papers: the reference papers' numbers
                                           that softmech reproduces (softmech.validation.papers)
    softmech validate --report PATH        also write the Markdown report page (the docs site's
                                           docs/validation.md) and one figure per group, after
                                           the run
    softmech validate --papers --figures DIR
                                           also draw the papers' figures (softmech's curves
                                           with the paper's numbers; validation.paper_figures)
                                           into DIR, after the run

Exit code 0 when every selected case passed, 1 otherwise (2 for bad usage, via softmech.cli).
"""
import json
import os
import sys
import time

from softmech.progress import progress_bar
from softmech.validation.cases import RECORD_KEYS
from softmech.validation.registry import GROUPS, is_fast, select
from softmech.validation.report import case_info, write_report


def add_arguments(parser):
    """Options of the `validate` command on an argparse (sub)parser."""
    parser.add_argument("--only", nargs="+", metavar="GROUP", default=None,
                        help=f"run only these groups: {', '.join(GROUPS)}")
    parser.add_argument("--fast", action="store_true",
                        help="run only the fast subset of the selected groups (seconds per case "
                             "once compiled)")
    parser.add_argument("--case", action="append", metavar="NAME", dest="cases",
                        help="run only this case (repeatable); see --list")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of {group, case, measured, reference, error, "
                             "tolerance, passed} instead of a table")
    parser.add_argument("--list", action="store_true",
                        help="list the case names by group (fast ones marked) and exit")
    parser.add_argument("--papers", action="store_true",
                        help="alias of --only papers: the reference papers' reproduced numbers "
                             "(ME498 snake, Zhang et al. 2019, MAT-DiSMech Fig. 8; "
                             "docs/reproductions.md)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar and no per-case lines on stderr")
    parser.add_argument("--report", metavar="PATH", default=None,
                        help="write a Markdown report (every case by group: quantity, measured, "
                             "reference, error, tolerance, result, source; a figure per group "
                             "next to it) to PATH (.md) after the run")
    parser.add_argument("--figures", metavar="DIR", default=None,
                        help="draw the figures of the papers' cases that ran (softmech's "
                             "curves beside the papers' numbers, docs/reproductions.md) into "
                             "DIR after the run (DIR is created; its parent must exist)")


def _groups(args):
    """The groups asked for (None: all): --only, plus papers for --papers."""
    groups = list(args.only or ())
    if getattr(args, "papers", False) and "papers" not in groups:
        groups.append("papers")
    return groups or None


def _selected(names, chosen):
    """The (group, name, function) of `chosen` named by --case (all of them if none)."""
    if not names:
        return chosen
    known = {name: (group, name, function) for group, name, function in chosen}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"--case {unknown[0]!r} is not allowed: must be one of "
                         f"{', '.join(known)}")
    return [known[n] for n in dict.fromkeys(names)]


def _report_path(path):
    """Validated --report path (None: no report): a .md file whose folder exists."""
    if path is None:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if not path.endswith(".md") or os.path.isdir(path):
        raise ValueError(f"--report = {path!r} is not allowed: must be a Markdown file path "
                         "ending in .md")
    if not os.path.isdir(folder):
        raise ValueError(f"--report = {path!r} is not allowed: its folder {folder!r} does not exist")
    return path


def _figures_path(path):
    """Validated --figures folder (None: no figures): a folder, or a new one whose parent
    exists."""
    if path is None:
        return None
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"--figures = {path!r} is not allowed: must be a folder, not a file")
    if not os.path.isdir(parent):
        raise ValueError(f"--figures = {path!r} is not allowed: its parent folder {parent!r} "
                         "does not exist")
    return path


def format_table(records):
    """Plain-text table of records (group, case, measured, reference, error, tolerance,
    PASS/FAIL)."""
    header = ("group", "case", "measured", "reference", "error", "tolerance", "result")
    rows = [(r.get("group", ""), r["case"], f"{r['measured']:.6g}", f"{r['reference']:.6g}",
             f"{r['error']:.3g}", f"{r['tolerance']:.3g}", "PASS" if r["passed"] else "FAIL")
            for r in records]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip()
             for row in (header,) + tuple(rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _print_list(chosen):
    group = None
    for g, name, function in chosen:
        if g != group:
            group = g
            print(f"{g}: {GROUPS[g].title}")
        doc = (function.__doc__ or "").strip().splitlines()
        mark = "*" if is_fast(g, name, function) else " "
        print(f"  {mark} {name:44s} {doc[0] if doc else ''}")
    print("(* in the fast subset, --fast)")


def _command_line(args, report):
    """The command that reproduces this run (shown on the report page)."""
    parts = ["softmech validate"]
    if args.only:
        parts.append("--only " + " ".join(args.only))
    if getattr(args, "papers", False):
        parts.append("--papers")
    if getattr(args, "fast", False):
        parts.append("--fast")
    parts += [f"--case {n}" for n in (args.cases or ())]
    return " ".join(parts + [f"--report {report}"])


def execute(args):
    """Run the selected cases; returns the exit code (0 all passed, 1 otherwise)."""
    report = _report_path(getattr(args, "report", None))
    figures = _figures_path(getattr(args, "figures", None))
    chosen = select(_groups(args), fast=bool(getattr(args, "fast", False)))
    if args.list:
        _print_list(chosen)
        return 0
    chosen = _selected(args.cases, chosen)
    if report:
        for _, name, function in chosen:
            case_info(name, function)  # every case must say what it measures before the run
    records = []
    run_start = time.perf_counter()
    quiet = bool(getattr(args, "quiet", False))
    bar = progress_bar(len(chosen), not quiet, unit="case", desc="softmech validate")
    try:
        for group, name, function in chosen:
            start = time.perf_counter()
            if bar is not None:
                bar.set_postfix_str(name)
            record = dict(function(), group=group, seconds=time.perf_counter() - start)
            if bar is not None:
                bar.write(f"{group}/{name}: {'PASS' if record['passed'] else 'FAIL'} "
                          f"({record['seconds']:.1f} s) {record['detail']}", file=sys.stderr)
                bar.update(1)
            records.append(record)
    finally:
        if bar is not None:
            bar.close()
    if report:
        functions = {name: function for _, name, function in chosen}
        written = write_report(report, records, functions=functions,
                               seconds=time.perf_counter() - run_start,
                               command=_command_line(args, report))
        if not (args.json or quiet):
            print(f"wrote {', '.join(written)}", file=sys.stderr)
    if figures:
        from softmech.validation.paper_figures import write_figures
        drawn = write_figures(figures, [r["case"] for r in records if r["group"] == "papers"])
        if not (args.json or quiet):
            print(f"wrote {', '.join(drawn) or 'no figure (no paper case ran)'}",
                  file=sys.stderr)
    if args.json:
        print(json.dumps([dict({"group": r["group"]}, **{k: r[k] for k in RECORD_KEYS})
                          for r in records], indent=2))
    else:
        print(format_table(records))
        failed = [r["case"] for r in records if not r["passed"]]
        print(f"\n{len(records) - len(failed)} of {len(records)} cases passed"
              + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 0 if all(r["passed"] for r in records) else 1
