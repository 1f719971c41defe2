"""`softmech run [SCENE | FILE.toml]`: run a built-in scene or a scenario file, write its plots and
recorded time series.

Writes into the output folder (default ./output/<scene>): results.h5 (the recorded time series,
written incrementally with checkpoints, with the scene, the softmech version and the run settings
embedded; docs/results_files.md), and PNG plots and, for most scenes, a video made from exactly
those arrays. It compiles the kernels first (announced, timed, left out of the wall time), prints
the summary as soon as the simulation ends, then writes the plots and the video, each announced;
a report's warnings (a static result that has not settled) go to stderr, even with --quiet,
and leave the exit code 0. `--resume` continues an interrupted run from the checkpoint in
results.h5, bit for bit. Exit code 0 on success, 1 if the simulation diverged (the last good state is then
written to last_good_state.npz in the output folder), 2 on bad input.
"""
import argparse
import json
import os
import shlex
import sys
import time

import softmech as sm
from softmech import _checks, run_cost
from softmech.commands.trust import add_trust_argument, load_trusted
# N_SAMPLES and video_frames are re-exported: `softmech run`'s constants and helpers, used by
# scripts and tests through this module
from softmech.commands.reports import N_SAMPLES, plot_energy, report_for, video_frames  # noqa: F401
from softmech.resultsfile import ResultsWriter, record_to_file
from softmech.resultsfile.snapshot import atomic_update
from softmech.scenarios import DEFAULT_SCENE, SCENES, check_scene
from softmech.simulation import ROD_FIELDS
from softmech.text import plural

CHECKPOINT_EVERY = 1.0
"""Default interval [s of simulated time] between checkpoints in results.h5."""


def add_arguments(parser):
    """Options of `softmech run` on an argparse parser."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = ("Run a built-in scene or a scenario file and write plots and results.h5 "
                          "to an output folder.")
    width = max(len(name) for name in SCENES)
    parser.epilog = "scenes:\n" + "\n".join(f"  {name:<{width}}  {entry.description}"
                                            for name, entry in SCENES.items())
    parser.add_argument("scene", nargs="?", default=DEFAULT_SCENE, metavar="SCENE",
                        help=f"built-in scene (default: {DEFAULT_SCENE}; see below) or scenario "
                             "file FILE.toml (see `softmech new`)")
    parser.add_argument("--output", metavar="DIR", default=None,
                        help="output folder (default: ./output/<scene name>, or "
                             "./output/<file stem> for FILE.toml)")
    parser.add_argument("--force", action="store_true",
                        help="overwrite the results of an earlier run in the output folder "
                             "(without it, a folder holding results.h5 is refused)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object with the results on stdout at the end "
                             "(the human-readable summary then goes to stderr)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    parser.add_argument("--duration", type=float, metavar="T", default=None,
                        help="simulated time [s] (default: the scene's)")
    parser.add_argument("--n-elems", type=int, metavar="N", dest="n_elems", default=None,
                        help="elements per rod of a built-in scene (default: the scene's; in a "
                             "scenario file, edit n_elems)")
    parser.add_argument("--muscles", choices=("couples", "rods", "paper_rods", "rings", "strip"),
                        default=None,
                        help="muscular_snake: its muscle pairs as bending couples (default), "
                             "as muscle rods glued to the body at +-r/2, or as rods glued the "
                             "paper's code's way (their anchors' moments as couples); walker: "
                             "two muscle rings joined by a strip (default) or the strip alone")
    parser.add_argument("--engine", choices=("discrete", "unified"), default=None,
                        help="the engine of a scene's discrete rods and shells (default: the "
                             "file's, else Scene.compile's: docs/implicit.md)")
    parser.add_argument("--checkpoint-every", type=float, metavar="SECONDS",
                        dest="checkpoint_every", default=CHECKPOINT_EVERY,
                        help="simulated time [s] between checkpoints in results.h5 (default: "
                             f"{CHECKPOINT_EVERY:g}; rounded to whole samples)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the interrupted run in the output folder's results.h5 "
                             "from its last checkpoint (same scene and options), bit for bit")
    parser.add_argument("--allow-large", action="store_true", dest="allow_large",
                        help="run even if the estimated compute, recording memory or results "
                             f"file size is above the budgets ({run_cost.budgets_text()}), "
                             "which are otherwise refused before the first step")
    add_trust_argument(parser)


def scenario_of(args):
    """The Scenario that `softmech run` runs: a scenario file (an argument ending in .toml), or a
    built-in scene built with --n-elems; --duration and --engine override either's settings."""
    scenario = _scenario_of(args)
    engine = getattr(args, "engine", None)
    if engine is not None:
        scenario.run.engine = _checks.choice("--engine", engine, {"discrete", "unified"})
    return scenario


def _scenario_of(args):
    """scenario_of before --engine."""
    from softmech.scenefile import builtin_scenario

    name = getattr(args, "scene", None) or DEFAULT_SCENE
    duration = getattr(args, "duration", None)
    if duration is not None:
        duration = float(_checks.positive("--duration", duration))
    n_elems = getattr(args, "n_elems", None)
    if name.endswith(".toml"):
        if n_elems is not None:
            raise ValueError("--n-elems is not allowed with a scenario file: edit n_elems in the "
                             "file's [[rods]] table")
        if getattr(args, "muscles", None) is not None:
            raise ValueError("--muscles is not allowed with a scenario file: it builds the "
                             "built-in muscular_snake or walker (write its file with `softmech "
                             "new`)")
        scenario = load_trusted(name, args)
        if duration is not None:
            scenario.run.duration = duration
        return scenario
    check_scene(name)
    kwargs = {"duration": duration} if duration is not None else {}
    if n_elems is not None:
        kwargs["n_elems"] = _checks.integer("--n-elems", n_elems, 2)
    muscles = getattr(args, "muscles", None)
    if muscles is not None:
        from softmech.scenarios import muscle_option

        kwargs.update(muscle_option(name, muscles))
    return builtin_scenario(name, **kwargs)


def default_output(args, name):
    """./output/<file stem> for a scenario file (the file, not the scene it was made from,
    names the folder), ./output/<scene> for a built-in scene."""
    scene = getattr(args, "scene", None) or name
    stem = os.path.splitext(os.path.basename(scene))[0] if scene.endswith(".toml") else name
    return os.path.join("output", stem)


def command_line(args, name):
    """The command line that reproduces `args` (stored in the run settings)."""
    words = ["softmech", "run", getattr(args, "scene", None) or name]
    for option in ("output", "duration", "n_elems", "muscles", "engine", "checkpoint_every"):
        value = getattr(args, option, None)
        if value is not None:
            words += [f"--{option.replace('_', '-')}", str(value)]
    words += [f"--{flag.replace('_', '-')}" for flag in ("resume", "force", "quiet", "json",
                                                          "allow_large", "allow_outside_files")
              if getattr(args, flag, False)]
    return shlex.join(words)


def recording(scenario, report, info):
    """(fields, interval [s], user recorders) that `softmech run` records: the template's
    report's, with the scenario file's [record] fields added and its interval."""
    fields = report.record_fields(scenario.scene, info)
    every = report.sample_interval(info)
    if scenario.record is not None:            # the file's [record] adds fields, sets the interval
        scene = scenario.scene                 # a bare field: every rod and rigid body
        for f in scenario.record.fields:       # (a rod-only field: every rod)
            bodies = scene.rods + ([] if f in ROD_FIELDS
                                   else scene.rigid_bodies + scene.implicit_bodies)
            named = (f,) if "." in f else tuple(f"{b.name}.{f}" for b in bodies)
            fields += tuple(n for n in named if n not in fields)
        every = scenario.record.seconds
    recorders = (tuple(report.recorders(scenario.scene, info)) if hasattr(report, "recorders")
                 else ())
    return fields, every, recorders


def execute(args):
    """Run `args.scene`; returns the exit code (0 success, 1 diverged). Bad input: ValueError."""
    from softmech.scenefile import dumps

    quiet, as_json = bool(getattr(args, "quiet", False)), bool(getattr(args, "json", False))
    resume = bool(getattr(args, "resume", False))
    scenario = scenario_of(args)               # checked before any work starts
    name, info = scenario.name, scenario.info()
    checkpoint_every = getattr(args, "checkpoint_every", None)
    checkpoint_every = float(_checks.positive(
        "--checkpoint-every", CHECKPOINT_EVERY if checkpoint_every is None else checkpoint_every))
    output_dir = os.path.abspath(getattr(args, "output", None) or default_output(args, name))
    results_path = os.path.join(output_dir, "results.h5")
    if resume and not os.path.exists(results_path):
        raise ValueError(f"--resume: nothing to resume, {results_path} does not exist")
    if os.path.exists(results_path) and not resume and not getattr(args, "force", False):
        raise ValueError(f"output folder {output_dir} already holds the results of an earlier "
                         "run (results.h5): pass --force to overwrite them, --resume to continue "
                         "that run, or --output DIR for another folder")

    # The summary goes to stdout, or to stderr when stdout carries the JSON object.
    def say(text, end="\n"):
        if not quiet:
            print(text, file=sys.stderr if as_json else sys.stdout, end=end, flush=True)

    sim = scenario.compile()
    report = report_for(scenario)
    fields, every, recorders = recording(scenario, report, info)
    allow_large = bool(getattr(args, "allow_large", False)) or scenario.run.allow_large
    run_cost.check(run_cost.estimate(sim, info.duration, every, fields, recorders),
                   allow_large, to_file=True, allow="pass --allow-large (or set allow_large = "
                   "true in the scenario file's [run] table)")      # before compiling kernels
    n_steps = int(round(info.duration / info.dt))
    say(f"softmech run {name}: {info.n_elems} elements, dt = {info.dt:g} s, "
        f"{info.duration:g} s simulated ({n_steps} steps)"
        + (f", resuming {results_path}" if resume else ""))
    os.makedirs(output_dir, exist_ok=True)
    checkpoint = os.path.join(output_dir, "last_good_state.npz")
    if os.path.exists(checkpoint):      # from an earlier diverged run: stale once we run again
        os.remove(checkpoint)

    # Compile (or load from the disk cache) every kernel the steps call before the progress
    # bar starts: a first run's minutes of compilation are announced instead of looking like a
    # stalled bar (or a forecast of hours), and stay out of the wall time per simulated second.
    # The implicit scenes compile inside their first step: warm_up takes one and restores the
    # state bit for bit; it also computes the recorded fields once (the energies' kernels).
    with _phase(say, "compiling the kernels (up to ~2 min the first time; later runs load "
                     "them from the disk cache)") as done:
        done.note = sim.warm_up(record=sm.Every(seconds=every, fields=fields))
    started = time.perf_counter()
    try:
        out = record_to_file(
            sim, results_path, duration=info.duration, every=every, fields=fields,
            recorders=recorders, scene_text=dumps(scenario), scene_name=name,
            checkpoint_every=checkpoint_every,
            settings={"command_line": command_line(args, name), "scene": name,
                      "n_elems": info.n_elems},
            progress=not quiet, resume=resume, allow_large=allow_large)
    except sm.SimulationDiverged as err:
        sim.save_state(checkpoint)      # the state was restored to the last good one
        print(f"softmech run {name}: {err}", file=sys.stderr)
        print(f"softmech run {name}: last good state (t = {err.time:g} s) written to {checkpoint}",
              file=sys.stderr)
        if as_json:
            print(json.dumps({"scene": name, "output_dir": output_dir,
                              "files": [checkpoint, results_path], "diverged": True,
                              "error": str(err)}))
        return 1
    wall = time.perf_counter() - started

    data = sm.Results(out)
    data.rods = out.rods
    metrics = report.derive(data, info)
    # the report's derived values, written to a copy that replaces the file in one step
    with atomic_update(results_path) as tmp, ResultsWriter.open(tmp) as writer:
        writer.write_derived({k: v for k, v in data.items() if k not in out},
                             units=getattr(report, "derived_units", None))
    # The result first: a run stopped while its figures or video are drawn has printed it.
    say(f"  wall time {wall:.2f} s (" + ("resumed: the steps after the checkpoint)" if resume
                                        else f"{n_steps / max(wall, 1e-9):,.0f} steps/s, "
                                             f"{wall / info.duration:.3g} s per simulated second;"
                                             " compiling not included)"))
    for line in report.summary(metrics):
        say("  " + line)
    for line in getattr(report, "warnings", lambda m: [])(metrics):   # shown even with --quiet
        print(f"softmech run {name}: warning: {line}", file=sys.stderr, flush=True)

    files = [results_path]
    with _phase(say, "writing plots") as done:
        files += report.plot(data, info, output_dir)
        files.append(plot_energy(data, info, os.path.join(output_dir, "energy.png")))
        done.note = plural(len(files) - 1, "file")
    video = getattr(report, "video", lambda *a: None)(data, info, output_dir)
    if video is not None:
        with _phase(say, f"writing video ({video.n_frames} frames)"):
            files.append(video.write())
    say(f"  wrote {plural(len(files), 'file')} to {output_dir}:")
    for f in files:
        say(f"    {os.path.basename(f)}")
    if as_json:
        print(json.dumps({"scene": name, "output_dir": output_dir, "files": files,
                          "resumed": resume, "wall_time_s": wall,
                          "wall_time_per_simulated_second": wall / info.duration, **metrics}))
    return 0


class _phase:
    """`with _phase(say, "writing plots") as done: ...` prints "  writing plots ... done in
    2.1 s" (the start at once, the rest when the block ends; with done.note = "4 files" set
    inside the block: "done in 2.1 s (4 files)"). Nothing more when the block raises."""

    def __init__(self, say, what):
        self.say, self.what, self.note = say, what, None

    def __enter__(self):
        self.say(f"  {self.what} ...", end="")
        self.started = time.perf_counter()
        return self

    def __exit__(self, kind, error, traceback):
        if kind is None:
            self.say(f" done in {time.perf_counter() - self.started:.1f} s"
                     + (f" ({self.note})" if self.note else ""))
        else:
            self.say("")            # end the line before the error's own message
        return False
