"""`softmech sweep FILE.toml --param PATH=v1,v2,... --param PATH=lo:hi:n [--random N]`: a grid or
random parameter sweep of a scenario, one row per run with every objective of its [optimize]
table, as CSV plus Parquet (or HDF5), and a plot of the objective against each parameter
(softmech.optimize.sweep). Chunks of runs are batched simulations, locally or on Ray (--ray);
a killed sweep continues with --resume. Every option and the packages it needs are checked
before any run is simulated. Exit code 0 on success, 2 on bad input.
"""
import argparse
import json
import os
import sys

from softmech.commands.optimize import (add_executor_arguments, check_executor_arguments,
                                       make_executor)
from softmech.commands.trust import add_trust_argument, load_trusted
from softmech.text import plural


def add_arguments(parser):
    """Options of `softmech sweep` on an argparse parser."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = ("Grid or random parameter sweep of a scenario file; every objective of "
                          "its [optimize] table is measured in every run.")
    parser.epilog = ("examples:\n  softmech sweep snake.toml --param muscle.wavelength=0.5:1.5:5\n"
                     "  softmech sweep snake.toml --param rods.snake.youngs_modulus=1e6:1e8:3:log "
                     "--param muscle.wavelength=0.7,1.0\n  softmech sweep snake.toml --param "
                     "muscle.wavelength=0.5:1.5:2 --random 40 --seed 3")
    parser.add_argument("file", metavar="FILE.toml", help="scenario file with an [optimize] table "
                        "(its objectives are measured; `softmech new snake` writes one)")
    parser.add_argument("--param", action="append", default=[], metavar="PATH=VALUES",
                        help="a parameter path and its values: v1,v2,... or lo:hi:n (lo:hi:n:log "
                             "for geometric spacing); repeat for several parameters")
    parser.add_argument("--random", type=int, metavar="N", default=None,
                        help="N random runs (uniform in each range, or among the listed values) "
                             "instead of the grid")
    parser.add_argument("--seed", type=int, metavar="S", default=0,
                        help="seed of --random (default 0)")
    parser.add_argument("--format", dest="table_format", choices=("parquet", "hdf5"),
                        default="parquet", help="table file beside sweep.csv: sweep.parquet "
                                                "(default) or sweep.h5")
    add_executor_arguments(parser, "the runs")
    parser.add_argument("--output", metavar="DIR", default=None,
                        help="output folder (default: ./output/sweep_<scene name>)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the sweep journalled in the output folder")
    add_trust_argument(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object with the summary on stdout at the end")


def execute(args):
    """Run the sweep; returns the exit code. Every option, the packages they need (pyarrow for
    --format parquet, ray for --ray) and the output folder's journal are checked before any run
    is simulated (bad input raises ValueError: exit code 2)."""
    from softmech.optimize.sweep import (DEFAULT_CHUNK, parse_param, plan_sweep,
                                         require_table_format, run_sweep)

    quiet, as_json = bool(args.quiet), bool(args.json)
    specs = [parse_param(p) for p in args.param]
    if not specs:
        raise ValueError("--param is missing: give at least one PATH=VALUES to sweep")
    require_table_format(args.table_format)
    check_executor_arguments(args)
    scenario = load_trusted(args.file, args)
    if scenario.optimize is None:
        raise ValueError(f"{args.file}: no [optimize] table: the sweep measures its objectives")
    output_dir = os.path.abspath(args.output or os.path.join("output", f"sweep_{scenario.name}"))
    plan = plan_sweep(scenario, specs, output_dir, random=args.random, seed=args.seed,
                      chunk=args.chunk or DEFAULT_CHUNK, table_format=args.table_format,
                      resume=args.resume)

    def say(text):
        if not quiet:
            print(text, file=sys.stderr if as_json else sys.stdout, flush=True)

    executor = make_executor(args)
    try:
        summary = run_sweep(plan, executor=executor, progress=not quiet, say=say)
    finally:
        if executor is not None:
            executor.close()
    say("  " + runs_line(summary) + f"; wrote to {output_dir}: "
        + ", ".join(os.path.basename(f) for f in summary["files"]))
    if as_json:
        print(json.dumps({"file": args.file, "output_dir": output_dir, **summary}))
    return 0


def runs_line(summary):
    """What this invocation did: the runs it simulated, apart from those it found finished in
    the journal (a resumed sweep), and the wall time [s]."""
    simulated, reused = summary["simulated"], summary["reused"]
    wall = f"{summary['wall_s']:.1f} s"
    if not reused:
        return f"{plural(simulated, 'run')} simulated in {wall}"
    return (f"{plural(summary['runs'], 'run')}: {simulated:,} simulated now, {reused:,} found "
            f"finished in evaluations.jsonl (not simulated again); {wall}")
