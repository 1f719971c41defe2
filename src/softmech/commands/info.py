"""`softmech info FILE`: what a results file (HDF5, docs/results_files.md) holds -- its
attributes, scene, softmech version, run settings, whether the run completed, the time range and
sample count, and every dataset's shape, dtype and units. Exit code 2 if FILE is missing or not a
softmech results file. `softmech info --system`: versions, cache locations, CPU features and
threads, for bug reports (softmech.system)."""
import json

from softmech.resultsfile.reader import describe


def add_arguments(parser):
    """Options of `softmech info` on an argparse parser."""
    parser.description = ("Describe a softmech results file (results.h5): attributes, settings, "
                          "time range and every dataset; or, with --system, this installation.")
    parser.add_argument("file", metavar="FILE", nargs="?", help="a results file written by softmech")
    parser.add_argument("--system", action="store_true",
                        help="print versions, cache locations, CPU features and threads (for bug reports)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object instead of the text summary")
    parser.add_argument("--scene", action="store_true",
                        help="also print the embedded scenario file (TOML)")


def execute(args):
    """Print the description of args.file (or of the system); returns 0. Bad file or no FILE
    without --system: ValueError (exit code 2)."""
    if getattr(args, "system", False):
        from softmech.system import format_report, system_report
        report = system_report()
        print(json.dumps(report) if getattr(args, "json", False) else
              "\n".join(["softmech system"] + format_report(report)))
        return 0
    if args.file is None:
        raise ValueError("FILE is required (a results file), or --system")
    d = describe(args.file)
    if getattr(args, "json", False):
        print(json.dumps(d))
        return 0
    for line in format_description(d, scene=getattr(args, "scene", False)):
        print(line)
    return 0


def format_description(d, *, scene=False):
    """The lines of the text summary of `describe`'s dict."""
    a = d["attrs"]
    status = "complete" if a.get("complete") else "INCOMPLETE (interrupted or still running)"
    lines = [f"{d['path']}",
             f"  format        {a.get('format')} version {a.get('format_version')}",
             f"  scene         {a.get('scene') or '(unnamed)'}",
             f"  softmech      {a.get('softmech_version')}",
             f"  created       {a.get('created')}",
             f"  status        {status}"]
    if d["time_range"] is None:
        lines.append("  samples       0")
    else:
        t0, t1 = d["time_range"]
        lines.append(f"  samples       {d['n_samples']}, t = {t0:g} s to {t1:g} s "
                     f"(run: {a.get('duration', float('nan')):g} s, dt = {a.get('dt', 0):g} s, "
                     f"{a.get('scheme')}, {a.get('worlds')} world(s))")
    if d["checkpoint"]:
        c = d["checkpoint"]
        lines.append(f"  checkpoint    t = {c.get('time', float('nan')):g} s "
                     f"(after {c.get('n_samples')} samples; --resume continues from there)")
    lines.append("  settings")
    lines += [f"    {k:<20} {json.dumps(v)}" for k, v in sorted(d["settings"].items())]
    lines.append("  attributes")
    lines += [f"    {k:<20} {v}" for k, v in sorted(a.items())]
    lines.append("  datasets")
    width = max((len(p) for p in d["datasets"]), default=0)
    for path, ds in sorted(d["datasets"].items()):
        shape = str(tuple(ds["shape"]))
        units = f"[{ds['units']}]" if ds["units"] else ""
        lines.append(f"    {path:<{width}}  {shape:<22} {ds['dtype']:<8} {units}")
    toml = d["scene_toml"]
    lines.append(f"  scene file    {len(toml)} characters" + ("" if toml else " (not stored)"))
    if scene and toml:
        lines += ["    " + line for line in toml.splitlines()]
    return lines
