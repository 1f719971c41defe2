"""`softmech validate`: run the validation cases and print a table or JSON.

    softmech validate                      all cases, table

    softmech validate --case NAME ...      selected cases (repeatable)
    softmech validate --json               JSON list of {case, measured, reference, error,
                                           tolerance, passed}
    softmech validate --list               names of the cases
    softmech validate --papers             the reference papers' numbers that softmech reproduces
                                           (softmech.validation.papers; with --case, --list,
                                           --json and --report as for the engine's cases)
    softmech validate --report PATH        also write the Markdown report page (the docs site's
                                           docs/validation.md), atomically, after the run

Exit code 0 when every selected case passed, 1 otherwise (2 for bad usage, via softmech.cli).
"""
import json
import os
import sys
import time

from softmech.progress import progress_bar
from softmech.validation.cases import CASES, RECORD_KEYS
from softmech.validation.report import case_info, write_report


def add_arguments(parser):
    """Options of the `validate` command on an argparse (sub)parser."""
    parser.add_argument("--case", action="append", metavar="NAME", dest="cases",
                        help="run only this case (repeatable); see --list")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of {case, measured, reference, error, tolerance, "
                             "passed} instead of a table")
    parser.add_argument("--list", action="store_true", help="list the case names and exit")
    parser.add_argument("--papers", action="store_true",
                        help="run the reference papers' reproduced numbers (ME498 snake, "
                             "MAT-DiSMech Fig. 8; docs/reproductions.md) instead of the engine's "
                             "validation cases")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar and no per-case lines on stderr")
    parser.add_argument("--report", metavar="PATH", default=None,
                        help="write a Markdown report (every case: quantity, measured, reference, "
                             "error, tolerance, result, source) to PATH (.md) after the run")


def _registry(papers):
    """The cases to choose from: the papers' reproductions (imported only when asked for: they
    build scenes) or the engine's validation cases."""
    if papers:
        from softmech.validation.papers import PAPER_CASES
        return PAPER_CASES
    return CASES


def _selected(names, cases):
    if not names:
        return list(cases)
    unknown = [n for n in names if n not in cases]
    if unknown:
        raise ValueError(f"--case {unknown[0]!r} is not allowed: must be one of {', '.join(cases)}")
    return list(dict.fromkeys(names))


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


def format_table(records):
    """Plain-text table of records (case, measured, reference, error, tolerance, PASS/FAIL)."""
    header = ("case", "measured", "reference", "error", "tolerance", "result")
    rows = [(r["case"], f"{r['measured']:.6g}", f"{r['reference']:.6g}", f"{r['error']:.3g}",
             f"{r['tolerance']:.3g}", "PASS" if r["passed"] else "FAIL") for r in records]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip()
             for row in (header,) + tuple(rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def execute(args):
    """Run the selected cases; returns the exit code (0 all passed, 1 otherwise)."""
    papers = bool(getattr(args, "papers", False))
    cases = _registry(papers)
    if args.list:
        for name in cases:
            doc = (cases[name].__doc__ or "").strip().splitlines()
            print(f"{name:40s} {doc[0] if doc else ''}")
        return 0
    names = _selected(args.cases, cases)
    report = _report_path(getattr(args, "report", None))
    if report:
        for name in names:
            case_info(name)  # every case must say what it measures before the run starts
    records = []
    run_start = time.perf_counter()
    quiet = bool(getattr(args, "quiet", False))
    bar = progress_bar(len(names), not quiet, unit="case", desc="softmech validate")
    try:
        for name in names:
            start = time.perf_counter()
            if bar is not None:
                bar.set_postfix_str(name)
            record = cases[name]()
            if bar is not None:
                bar.write(f"{name}: {'PASS' if record['passed'] else 'FAIL'} "
                          f"({time.perf_counter() - start:.1f} s) {record['detail']}",
                          file=sys.stderr)
                bar.update(1)
            records.append(record)
    finally:
        if bar is not None:
            bar.close()
    if report:
        command = ("softmech validate" + (" --papers" if papers else "")
                   + "".join(f" --case {n}" for n in (args.cases or ())) + f" --report {report}")
        write_report(report, records, docstrings={n: cases[n].__doc__ for n in names},
                     seconds=time.perf_counter() - run_start, command=command)
        if not (args.json or quiet):
            print(f"wrote {report}", file=sys.stderr)
    if args.json:
        print(json.dumps([{k: record[k] for k in RECORD_KEYS} for record in records], indent=2))
    else:
        print(format_table(records))
        failed = [r["case"] for r in records if not r["passed"]]
        print(f"\n{len(records) - len(failed)} of {len(records)} cases passed"
              + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 0 if all(r["passed"] for r in records) else 1
