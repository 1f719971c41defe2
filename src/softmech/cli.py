"""Command line: `softmech <command> ...`. Each command lives in its own module and is imported
only when used, so `softmech --help` stays fast.

Exit codes: 0 success, 1 a check failed (validation case failed, simulation diverged),
2 bad usage or input.
"""
import argparse
import contextlib
import importlib
import os
import sys
import warnings

from softmech._version import __version__

COMMANDS = {
    "run": ("softmech.commands.run", "run a built-in scene and write plots to an output folder"),
    "validate": ("softmech.validation.command", "run the validation cases against analytic results"),
    "bench": ("softmech.bench", "time softmech side by side with PyElastica"),
    "optimize": ("softmech.commands.optimize", "CMA-ES campaign over a scenario's [optimize] "
                                               "table (or the snake's gait), resumable, Ray"),
    "sweep": ("softmech.commands.sweep", "grid or random parameter sweep of a scenario file"),
    "new": ("softmech.commands.new", "write a built-in scene as an editable scenario file (TOML)"),
    "list": ("softmech.commands.list", "list the built-in scenes"),
    "info": ("softmech.commands.info", "describe a results file (results.h5)"),
    "view": ("softmech.commands.view", "interactive 3D view of a results file in the web "
                                       "browser (one offline HTML page)"),
    "render": ("softmech.commands.render", "3D stills, videos (tubes or POV-Ray) and plots from "
                                           "an HDF5 results file"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="softmech", description="softmech: fast, validated simulation of soft robots and "
        "musculoskeletal systems built from Cosserat rods.",
        epilog="exit codes: 0 success; 1 a check failed (a validation case failed, a simulation "
               "diverged); 2 bad usage or input (the message names the field, the value and what "
               "is allowed). `softmech COMMAND --help` describes each command.")
    parser.add_argument("--version", action="version", version=f"softmech {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        p.set_defaults(_module=module)
        importlib.import_module(module).add_arguments(p)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        with one_line_warnings(args.command):
            return importlib.import_module(args._module).execute(args)
    except ValueError as err:
        print(f"softmech {args.command}: error: {err}", file=sys.stderr)
        return 2


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


@contextlib.contextmanager
def one_line_warnings(command):
    """Warnings raised by softmech's own code (a time step above the stability limit, ...)
    print as one line, `softmech COMMAND: warning: MESSAGE`, on stderr, instead of Python's
    file, line number and source line; other packages' warnings keep Python's format."""
    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if os.path.abspath(filename).startswith(_PACKAGE + os.sep):
            print(f"softmech {command}: warning: {message}", file=sys.stderr, flush=True)
        else:
            default(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = default


if __name__ == "__main__":
    sys.exit(main())
