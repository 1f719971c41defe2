"""`softmech optimize snake | FILE.toml`: CMA-ES campaigns. `snake` (or a snake file whose
[optimize] table is the gait campaign, problem = "snake_gait") is the gait optimization of the
Table 2 snake (ME498 handout section 2.2.6) with the handout's Fig. 4 panels; any other
[optimize] table names its parameters and objectives (softmech.optimize.settings).

Writes into the output folder (default ./output/optimize_<name>): campaign.jsonl (one line per
finished generation, appended durably), evaluations.jsonl (the finished chunks), best.json and
the figures. `--resume` continues a killed campaign from its log and reproduces the result of an
uninterrupted one. `--ray ADDRESS` evaluates each generation's chunks on a Ray cluster with the
same results. Exit code 0 on success, 2 on bad input.
"""
import argparse
import json
import os
import sys

from softmech import _checks
from softmech.commands.trust import add_trust_argument, load_trusted
from softmech.text import plural

PROBLEMS = ("snake", "swimmer", "walker", "muscular_snake")
PROBLEM_FLAGS = {"cell": "swimmer", "bath_damping": "walker", "fitness": "walker",
                 "tangential_stiffness": "walker", "internal_damping": "walker",
                 "no_overlap": "muscular_snake",
                 "start": "muscular_snake", "sigma0": "muscular_snake"}
"""Options (argparse dest) of one built-in problem only -> that problem; refused for the others."""


def add_arguments(parser):
    """Options of `softmech optimize` on an argparse parser."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = ("CMA-ES gait optimization: each generation is one batched simulation "
                          "of the whole population; the campaign log makes it resumable.")
    parser.epilog = ("problems:\n  snake    beta_1..beta_4 (|beta| <= 50 N m) and the muscle "
                     "wavelength (0.3-2.0 m)\n           of the Table 2 snake; fitness = mean "
                     "forward speed over periods 2-3\n  swimmer  head length, head and tail "
                     "radii, cell location of the bio-hybrid\n           swimmer (Zhang et al. "
                     "2019, Fig. 2c); fitness = speed over beats 1-3\n  walker   skeleton Young's modulus, "
                     "short pillar, strip height of the bio-hybrid\n           walker (Zhang et al. "
                     "2019, Fig. 2h) at 2 Hz; fitness = speed along +x\n           (--fitness "
                     "least_speedup: the least speed-up over 0.5, 1, 2 Hz)\n"
                     "  muscular_snake  start, span, "
                     "force, phase of each of --pairs N muscle\n           pairs (Zhang et al. "
                     "2019, Fig. 3); fitness = forward speed over periods 3-6")
    parser.add_argument("problem", metavar="PROBLEM",
                        help="what to optimize: snake (the Table 2 snake), or a scenario file "
                             "(FILE.toml, template 'snake', e.g. from `softmech new snake`) whose "
                             "[optimize] table sets the campaign; options given here override it")
    parser.add_argument("--generations", type=int, metavar="N", default=None,
                        help="maximum number of generations (default 60; the campaign stops "
                             "earlier once the best fitness has not improved by more than "
                             "1e-3 m/s over 10 generations, after at least 20)")
    parser.add_argument("--popsize", type=int, metavar="N", default=None,
                        help="population size = worlds per batched run (default 16; >= 4)")
    parser.add_argument("--seed", type=int, metavar="S", default=None,
                        help="random seed of CMA-ES (default 1)")
    parser.add_argument("--output", metavar="DIR", default=None,
                        help="output folder (default: ./output/optimize_snake)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the campaign logged in the output folder")
    add_trust_argument(parser)
    add_executor_arguments(parser, "each generation")
    parser.add_argument("--quiet", action="store_true", help="no progress bars and no summary")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object with the results on stdout at the end "
                             "(the human-readable summary then goes to stderr)")
    advanced = parser.add_argument_group("model resolution (defaults: Table 2)")
    advanced.add_argument("--n-elems", type=int, metavar="N", dest="n_elems", default=None,
                          help="elements of the snake (default 50)")
    advanced.add_argument("--dt", type=float, metavar="DT", default=None,
                          help="time step [s] (default 2.5e-5)")
    advanced.add_argument("--window", type=float, nargs=2, metavar=("A", "B"), default=None,
                          help="fitness averaging window in muscle periods (default 2 3); "
                               "B periods are simulated per evaluation")
    advanced.add_argument("--pairs", type=int, metavar="N", default=None,
                          help="muscle pairs of the muscular_snake problem (1-6, default 4)")
    advanced.add_argument("--muscles",
                          choices=("couples", "rods", "paper_rods", "rings", "strip"),
                          default=None,
                          help="muscular_snake: the pairs as bending couples (default, one "
                               "batched run per generation) or glued muscle rods (rods, "
                               "paper_rods: one run per candidate); walker: rings and strip "
                               "(default, strip height clipped to where the rings fit) or the "
                               "strip alone (0.5-3 mm)")
    advanced.add_argument("--no-overlap", action="store_true", dest="no_overlap", default=None,
                          help="muscular_snake: the paper's non-overlapping study; every layout's "
                               "spans are made disjoint (default: spans may overlap)")
    advanced.add_argument("--start", choices=("projected", "uniform"), default=None,
                          help="muscular_snake: the starting layout, the continuous gait "
                               "projected onto the pairs (default) or equal disjoint spans at "
                               "1500 N (the campaigns before 2026-11-29)")
    advanced.add_argument("--sigma0", type=float, metavar="S", default=None,
                          help="muscular_snake: CMA-ES's initial step as a fraction of each "
                               "variable's range (default 0.05 around the projected start)")
    advanced.add_argument("--cell", choices=("force_line", "paper"), default=None,
                          help="swimmer: the cell as a force line with a muscle's force-length "
                               "curve on circular sections (default) or as Zhang et al.'s soft "
                               "contractile filament on the caption's bending stiffness "
                               "(softmech.scenarios.swimmer.PAPER_MODEL)")
    advanced.add_argument("--bath-damping", type=float, metavar="C", dest="bath_damping",
                          default=None,
                          help="walker: the bath's linear damping on every rod [kg/(m s)] "
                               "(default 0.05; the paper's medium's Stokes drag is 4.1e-3, "
                               "docs/musculoskeletal.md)")
    advanced.add_argument("--internal-damping", type=float, metavar="C", dest="internal_damping",
                          default=None,
                          help="walker: the damping of each walker's deformation alone "
                               "(sm.RelativeDamping on its rods together) [kg/(m s)] (default "
                               "0: none; docs/musculoskeletal.md)")
    advanced.add_argument("--tangential-stiffness", type=float, metavar="K",
                          dest="tangential_stiffness", default=None,
                          help="walker: the ground friction's tangential stiffness [N/m] "
                               "(default 10: friction that sticks; 0: the regularized law of "
                               "campaigns before 2026-12-07, docs/musculoskeletal.md)")
    advanced.add_argument("--fitness", choices=("speed", "least_speedup"), default=None,
                          help="walker: maximize the speed at 2 Hz (default, the paper's "
                               "campaign) or the least speed-up over the original at 0.5, 1 "
                               "and 2 Hz (three runs per design)")
    advanced.add_argument("--figure-periods", type=float, metavar="P", dest="figure_periods",
                          default=None, help="periods simulated for the figures (default 6)")


def add_executor_arguments(parser, what):
    """--ray and --chunk (shared by `softmech optimize` and `softmech sweep`)."""
    parser.add_argument("--ray", metavar="ADDRESS", default=None,
                        help=f"evaluate {what} as chunks on Ray: auto (the cluster of `ray start` "
                             "on this machine), local (a Ray instance for this command) or "
                             "HOST:PORT; results equal a local run's bit for bit")
    parser.add_argument("--chunk", type=int, metavar="N", default=None,
                        help="candidates per batched simulation (one Ray task each); the split "
                             "does not change the results")


def check_executor_arguments(args):
    """--chunk and --ray checked before any work: an integer >= 1, and the ray package
    installed (imported, not started)."""
    if getattr(args, "chunk", None) is not None:
        _checks.integer("--chunk", args.chunk, 1)
    if getattr(args, "ray", None) is not None:
        from softmech.optimize.executors import require_ray

        require_ray()


def make_executor(args):
    """The executor of --ray (None: local), after check_executor_arguments."""
    from softmech.optimize.executors import make_executor as make

    check_executor_arguments(args)
    ray = getattr(args, "ray", None)
    return None if ray is None else make(ray)


DEFAULTS = dict(popsize=16, seed=1, max_generations=60, n_elems=50, dt=2.5e-5,
                window=(2.0, 3.0), figure_periods=6.0)


def execute(args):
    """Run the campaign; returns the exit code. Bad input raises ValueError (exit code 2)."""
    from softmech.optimize.campaign import read_log
    from softmech.optimize.snake import optimize_snake

    quiet, as_json = bool(getattr(args, "quiet", False)), bool(getattr(args, "json", False))
    muscles = getattr(args, "muscles", None)
    if muscles is not None:
        from softmech.scenarios import muscle_option

        muscle_option(args.problem, muscles)        # refused here for any other problem
    for flag, owner in PROBLEM_FLAGS.items():
        if getattr(args, flag, None) is not None and args.problem != owner:
            raise ValueError(f"--{flag.replace('_', '-')} is not allowed with {args.problem!r}: "
                             f"it is an option of the {owner} problem only")
    if args.problem.endswith(".toml") or args.problem == "snake":   # the others refuse --ray
        check_executor_arguments(args)  # before the scenario is read or anything simulated
    options = dict(DEFAULTS)
    scenario = None
    if args.problem.endswith(".toml"):
        from softmech.optimize.settings import is_generic

        scenario = load_trusted(args.problem, args)
        if scenario.optimize is None:
            raise ValueError(f"{args.problem}: nothing to optimize: the file needs an [optimize] "
                             "table (docs/optimization.md; `softmech new snake` writes one)")
        if is_generic(scenario.optimize):
            return execute_study(args, scenario, quiet, as_json)
        for flag in ("n_elems", "dt"):
            if getattr(args, flag, None) is not None:
                raise ValueError(f"--{flag.replace('_', '-')} is not allowed with a scenario "
                                 "file: set it in the file")
        c = scenario.optimize
        options.update(popsize=c["popsize"], seed=c["seed"], max_generations=c["max_generations"],
                       window=tuple(c["window"]), figure_periods=c["figure_periods"],
                       beta_bound=c["beta_bound"], wavelength_range=tuple(c["wavelength_range"]))
        default_dir = os.path.join("output", f"optimize_{scenario.name}")
    else:
        from softmech.scenarios import check_scene

        check_scene(args.problem, PROBLEMS)
        if args.problem == "swimmer":
            return execute_swimmer(args, quiet, as_json)
        if args.problem == "walker":
            return execute_walker(args, quiet, as_json)
        if args.problem == "muscular_snake":
            return execute_muscular_snake(args, quiet, as_json)
        default_dir = os.path.join("output", "optimize_snake")
    output_dir = os.path.abspath(getattr(args, "output", None) or default_dir)
    log_path = os.path.join(output_dir, "campaign.jsonl")
    if getattr(args, "resume", False) and os.path.exists(log_path):
        # settings not given on the command line come from the log being resumed
        header, _ = read_log(log_path)
        meta = header.get("meta", {})
        options.update(popsize=header["popsize"], seed=header["seed"],
                       n_elems=meta.get("n_elems", options["n_elems"]),
                       dt=meta.get("dt", options["dt"]),
                       window=tuple(meta.get("window_periods", options["window"])))
    given = {"popsize": args.popsize, "seed": args.seed, "max_generations": args.generations,
             "n_elems": getattr(args, "n_elems", None), "dt": getattr(args, "dt", None),
             "window": None if getattr(args, "window", None) is None else tuple(args.window),
             "figure_periods": getattr(args, "figure_periods", None)}
    options.update({k: v for k, v in given.items() if v is not None})
    _checks.integer("--popsize", options["popsize"], 4)
    _checks.integer("--seed", options["seed"], 0)
    _checks.integer("--generations", options["max_generations"], 1)
    _checks.integer("--n-elems", options["n_elems"], 4)
    _checks.positive("--dt", options["dt"])
    _checks.positive("--figure-periods", options["figure_periods"])

    def say(text):
        if not quiet:
            print(text, file=sys.stderr if as_json else sys.stdout, flush=True)

    executor = make_executor(args)
    try:
        summary = optimize_snake(output_dir, resume=bool(getattr(args, "resume", False)),
                                 progress=not quiet, say=say, scenario=scenario,
                                 executor=executor, chunk=getattr(args, "chunk", None), **options)
    finally:
        if executor is not None:
            executor.close()
    say(f"  best gait over periods {summary['check_periods'][0]:g}-"
        f"{summary['check_periods'][1]:g}: forward {summary['best_mean_forward_speed']:.4f} m/s, "
        f"lateral {summary['best_mean_lateral_speed']:.4f} m/s (published optimum: "
        f"{summary['published_mean_forward_speed']:.4f} m/s)")
    say(f"  wall time {summary['wall_s']:.1f} s; wrote {plural(len(summary['files']), 'file')} "
        f"to {output_dir}:")
    for f in summary["files"]:
        say(f"    {os.path.basename(f)}")
    if as_json:
        keys = ("best_fitness", "best_params", "generations", "evaluations", "wall_s",
                "best_generation", "stop_reason", "resumed_generations", "evaluation_wall_s",
                "best_mean_forward_speed", "best_mean_lateral_speed",
                "published_mean_forward_speed", "files")
        print(json.dumps({"problem": args.problem, "output_dir": output_dir,
                          **{k: summary[k] for k in keys}}))
    return 0


def execute_study(args, scenario, quiet, as_json):
    """`softmech optimize FILE.toml` for a generic [optimize] table (softmech.optimize.runs)."""
    from softmech.optimize.runs import optimize_study

    for flag in ("n_elems", "dt", "window", "figure_periods"):
        if getattr(args, flag, None) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} is not allowed with this file: it "
                             "belongs to the snake gait problem; set the model in the file")
    given = {"popsize": args.popsize, "seed": args.seed, "max_generations": args.generations,
             "chunk": getattr(args, "chunk", None)}
    settings = {k: v for k, v in given.items() if v is not None}
    output_dir = os.path.abspath(getattr(args, "output", None)
                                 or os.path.join("output", f"optimize_{scenario.name}"))
    log_path = os.path.join(output_dir, "campaign.jsonl")
    if getattr(args, "resume", False) and os.path.exists(log_path):
        from softmech.optimize.campaign import read_log

        header, _ = read_log(log_path)      # settings not given here come from the log
        settings = {"popsize": header["popsize"], "seed": header["seed"], **settings}
    check_study_run(scenario, settings, output_dir, bool(getattr(args, "resume", False)))

    def say(text):
        if not quiet:
            print(text, file=sys.stderr if as_json else sys.stdout, flush=True)

    executor = make_executor(args)
    try:
        summary = optimize_study(scenario, output_dir, settings=settings, executor=executor,
                                 resume=bool(getattr(args, "resume", False)),
                                 progress=not quiet, say=say)
    finally:
        if executor is not None:
            executor.close()
    say(f"  wall time {summary['wall_s']:.1f} s; wrote {plural(len(summary['files']), 'file')} "
        f"to {output_dir}")
    if as_json:
        print(json.dumps({"problem": args.problem, "output_dir": output_dir, **summary}))
    return 0


def check_study_run(scenario, settings, output_dir, resume):
    """The campaign settings (the file's, overridden by the command line's) and the output
    folder's campaign log, checked before Ray is started or anything simulated."""
    from softmech.optimize.design import campaign_resume
    from softmech.optimize.settings import CAMPAIGN_FIELDS, check_campaign_fields

    check_campaign_fields({**CAMPAIGN_FIELDS, **scenario.optimize, **settings})
    campaign_resume(resume, output_dir)


def _campaign_options(args, problem, refused, defaults, keys, **given):
    """Options of a built-in problem's campaign: defaults[keys] updated by the command line's
    popsize, seed, generations and the `given` values that are not None, after refusing the
    flags in `refused` that the problem has no use for."""
    for flag in refused:
        if getattr(args, flag, None) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} is not allowed with the {problem} problem")
    options = {k: defaults[k] for k in keys}
    given = {"popsize": args.popsize, "seed": args.seed, "max_generations": args.generations,
             **given}
    options.update({k: v for k, v in given.items() if v is not None and k in options})
    _checks.integer("--popsize", options["popsize"], 4)
    _checks.integer("--generations", options["max_generations"], 1)
    return options


def _window(args):
    return None if getattr(args, "window", None) is None else tuple(args.window)


def _sayer(quiet, as_json):
    """print to stdout, or stderr when stdout carries the JSON object; nothing when quiet."""
    def say(text):
        if not quiet:
            print(text, file=sys.stderr if as_json else sys.stdout, flush=True)
    return say


def _run_problem(args, problem, optimize, options, default_dir, quiet, as_json, lines):
    """Run a built-in problem's campaign and print its summary: lines(summary) -> the
    problem's own summary lines. Returns the exit code 0."""
    output_dir = os.path.abspath(getattr(args, "output", None) or os.path.join("output", default_dir))
    say = _sayer(quiet, as_json)
    summary = optimize(output_dir, resume=bool(getattr(args, "resume", False)),
                       progress=not quiet, say=say, **options)
    for line in lines(summary):
        say("  " + line)
    say(f"  wall time {summary['wall_s']:.1f} s; wrote {plural(len(summary['files']), 'file')} "
        f"to {output_dir}")
    if as_json:
        print(json.dumps({"problem": problem, "output_dir": output_dir, **summary}))
    return 0


def _best(summary):
    return "best design: " + ", ".join(f"{k} = {v:.4g}" for k, v in summary["best_params"].items())


def execute_swimmer(args, quiet, as_json):
    """`softmech optimize swimmer` (softmech.optimize.swimmer)."""
    from softmech.optimize.swimmer import CAMPAIGN_DEFAULTS, optimize_swimmer

    options = _campaign_options(args, "swimmer", ("dt", "figure_periods", "ray", "chunk"),
                                CAMPAIGN_DEFAULTS, ("popsize", "seed", "max_generations", "window",
                                                    "n_elems", "rotary_inertia", "cell"),
                                n_elems=getattr(args, "n_elems", None), window=_window(args),
                                cell=getattr(args, "cell", None))
    return _run_problem(args, "swimmer", optimize_swimmer, options, "optimize_swimmer", quiet,
                        as_json, lambda s: [
                            _best(s),
                            f"speed {s['speed_best'] * 1e6:.2f} um/s, original "
                            f"{s['speed_original'] * 1e6:.2f} um/s: speed-up {s['speedup']:.2f} "
                            f"(the paper's optimum here: {s['paper_optimum_speedup']:.2f}; "
                            f"reported {s['paper_reported_speedup']})"])


def execute_walker(args, quiet, as_json):
    """`softmech optimize walker` (softmech.optimize.walker)."""
    from softmech.optimize.walker import CAMPAIGN_DEFAULTS, optimize_walker

    options = _campaign_options(args, "walker", ("dt", "figure_periods", "ray", "chunk", "n_elems",
                                                 "window", "pairs"),
                                CAMPAIGN_DEFAULTS, ("popsize", "seed", "max_generations", "duration",
                                                   "muscle", "bath_damping", "fitness",
                                                   "tangential_stiffness", "internal_damping"),
                                muscle=getattr(args, "muscles", None),
                                bath_damping=getattr(args, "bath_damping", None),
                                fitness=getattr(args, "fitness", None),
                                tangential_stiffness=getattr(args, "tangential_stiffness", None),
                                internal_damping=getattr(args, "internal_damping", None))
    return _run_problem(args, "walker", optimize_walker, options, "optimize_walker", quiet,
                        as_json, lambda s: [
                            _best(s),
                            f"speed {s['speed_best'] * 1e6:.1f} um/s, original "
                            f"{s['speed_original'] * 1e6:.1f} um/s: speed-up {s['speedup']:.2f} "
                            f"(paper: ~{s['paper_reported_speedup']})",
                            "speed-up at " + ", ".join(f"{f} Hz {v:.2f}" for f, v in
                                                       s["speedups"].items())])


def execute_muscular_snake(args, quiet, as_json):
    """`softmech optimize muscular_snake --pairs N` (softmech.optimize.muscular_snake)."""
    from softmech.optimize.muscular_snake import CAMPAIGN_DEFAULTS, optimize_muscular_snake

    options = _campaign_options(args, "muscular_snake", ("dt", "figure_periods", "ray", "chunk"),
                                CAMPAIGN_DEFAULTS, ("pairs", "popsize", "seed", "max_generations",
                                                    "window", "n_elems", "muscles", "overlap",
                                                    "start", "sigma0"),
                                pairs=getattr(args, "pairs", None),
                                start=getattr(args, "start", None),
                                sigma0=getattr(args, "sigma0", None),
                                muscles=getattr(args, "muscles", None),
                                overlap=False if getattr(args, "no_overlap", None) else None,
                                n_elems=getattr(args, "n_elems", None), window=_window(args))
    return _run_problem(args, "muscular_snake", optimize_muscular_snake, options,
                        f"optimize_muscular_snake_{options['pairs']}", quiet, as_json, lambda s: [
                            f"{s['pairs']} pairs: forward speed {s['speed_best']:.3f} m/s "
                            f"({100 * s['fraction_of_continuous']:.0f} % of the continuous-torque "
                            f"snake's {s['continuous_torque_speed']} m/s); starting layout "
                            f"({s['start']}) {s['speed_initial_layout']:.3f} m/s"])
