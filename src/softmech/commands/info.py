"""`softmech info FILE`: what a results file (HDF5, docs/results_files.md) holds -- its
attributes, scene, softmech version, run settings, whether the run completed, the time range and
sample count, and every dataset's shape, dtype and units (the datasets of a kind with more than
MAX_LISTED bodies summarised per field; --all lists each). Exit code 2 if FILE is missing or not a
softmech results file. `softmech info --system`: versions, cache locations, CPU features and
threads, for bug reports (softmech.system)."""
import json

from softmech.resultsfile.reader import describe
from softmech.text import plural

MAX_LISTED = 8
"""Bodies of one kind (rods, rigid bodies, joints, checkpointed states) whose datasets the text
summary lists one by one; with more (the wing's ~2,800 barbs), one line per field summarises
them (`--all` lists every dataset)."""
GROUPED_KINDS = {"rods": ("rod", "rods"), "bodies": ("body", "bodies"),
                 "joints": ("joint", "joints"), "checkpoint": ("body", "bodies")}
"""Top-level groups /<kind>/<name>/<field> of a results file (docs/results_files.md), with the
words for one and for several of their members."""


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
    parser.add_argument("--all", action="store_true", dest="every_dataset",
                        help=f"list every dataset (default: where a kind has more than "
                             f"{MAX_LISTED} bodies, their datasets are summarised per field)")


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
    for line in format_description(d, scene=getattr(args, "scene", False),
                                   every_dataset=getattr(args, "every_dataset", False)):
        print(line)
    return 0


def format_description(d, *, scene=False, every_dataset=False):
    """The lines of the text summary of `describe`'s dict (every_dataset: one line per dataset,
    never grouped)."""
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
    rows = dataset_rows(d["datasets"], every_dataset)
    grouped = len(rows) < len(d["datasets"])
    lines.append(f"  datasets      {len(d['datasets']):,}" + (
        f" (the datasets of kinds with more than {MAX_LISTED} bodies summarised per field; "
        "--all lists every one)" if grouped else ""))
    width = max((len(r[0]) for r in rows), default=0)
    for path, shape, dtype, units in rows:
        units = f"[{units}]" if units else ""
        lines.append(f"    {path:<{width}}  {shape:<22} {dtype:<8} {units}")
    toml = d["scene_toml"]
    lines.append(f"  scene file    {len(toml)} characters" + ("" if toml else " (not stored)"))
    if scene and toml:
        lines += ["    " + line for line in toml.splitlines()]
    return lines


def dataset_rows(datasets, every_dataset=False):
    """Rows (path, shape, dtype, units) of the datasets {path: {shape, dtype, units}}, sorted by
    path; unless every_dataset, the datasets /<kind>/<name>/<field> of a kind with more than
    MAX_LISTED names are one row per field: path /<kind>/<N things>/<field>, shape with the
    range of each axis (e.g. (1, 3, 4..6, 3)), dtypes and units joined by '/' where they
    differ."""
    members = {}
    for path in datasets:
        parts = path.split("/", 3)                  # '', kind, name, field
        if len(parts) == 4 and parts[1] in GROUPED_KINDS:
            members.setdefault(parts[1], set()).add(parts[2])
    crowded = set() if every_dataset else {k for k, v in members.items() if len(v) > MAX_LISTED}
    rows, groups = [], {}
    for path, ds in sorted(datasets.items()):
        parts = path.split("/", 3)
        if len(parts) == 4 and parts[1] in crowded:
            groups.setdefault((parts[1], parts[3]), []).append(ds)
        else:
            rows.append((path, str(tuple(ds["shape"])), ds["dtype"], ds["units"]))
    for (kind, field), found in groups.items():
        name = plural(len(found), *GROUPED_KINDS[kind])
        rows.append((f"/{kind}/<{name}>/{field}", _shape_range([d["shape"] for d in found]),
                     _joined(d["dtype"] for d in found), _joined(d["units"] for d in found)))
    return sorted(rows)


def _shape_range(shapes):
    """'(1, 3, 4..6, 3)': each axis's smallest..largest length, or 'ndim 2..4' when the
    datasets do not have the same number of axes."""
    if len({len(s) for s in shapes}) > 1:
        return f"ndim {min(map(len, shapes))}..{max(map(len, shapes))}"
    axes = [(min(a), max(a)) for a in zip(*shapes)]
    text = ", ".join(f"{lo}" if lo == hi else f"{lo}..{hi}" for lo, hi in axes)
    return f"({text}{',' if len(axes) == 1 else ''})"


def _joined(values):
    return "/".join(sorted(set(values)))
