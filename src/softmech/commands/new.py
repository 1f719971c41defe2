"""`softmech new SCENE [FILE]`: write a built-in scene as an editable scenario file (TOML).

Exit code 0 on success, 2 on bad input (unknown scene, file exists without --force).
"""
import json
import os
import sys

from softmech.scenarios import SCENES, check_scene


def add_arguments(parser):
    """Options of `softmech new` on an argparse parser."""
    parser.description = ("Write a built-in scene as an editable scenario file; run it with "
                          "`softmech run FILE`.")
    parser.add_argument("scene", metavar="SCENE",
                        help=f"built-in scene ({', '.join(sorted(SCENES))}; see `softmech list`)")
    parser.add_argument("file", nargs="?", default=None,
                        help="scenario file to write (default: SCENE.toml)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")
    parser.add_argument("--json", action="store_true",
                        help="print {\"files\": [...]} on stdout instead of the summary")
    parser.add_argument("--quiet", action="store_true", help="no summary")


def execute(args):
    """Write the scenario file(s); returns the exit code. Bad input: ValueError."""
    from softmech.scenefile import builtin_scenario, save_scenario

    check_scene(args.scene, files=False)
    path = args.file or f"{args.scene}.toml"
    if not path.endswith(".toml"):
        raise ValueError(f"file = {path!r} is not allowed: a scenario file name ends in .toml")
    if os.path.exists(path) and not args.force:
        raise ValueError(f"file = {path!r} exists: choose another name or pass --force to "
                         "overwrite it")
    files = save_scenario(builtin_scenario(args.scene), path)
    if args.json:
        print(json.dumps({"scene": args.scene, "files": [os.path.abspath(f) for f in files]}))
    elif not args.quiet:
        print(f"wrote {', '.join(files)}: edit it, then run it with `softmech run {path}`",
              file=sys.stdout)
    return 0
