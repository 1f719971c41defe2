"""`softmech list`: the built-in scenes, with a line of description each.

Exit code 0.
"""
import json

from softmech.scenarios import DEFAULT_SCENE, SCENES


def add_arguments(parser):
    """Options of `softmech list` on an argparse parser."""
    parser.description = ("List the built-in scenes (run one with `softmech run SCENE`, or write "
                          "it as an editable file with `softmech new SCENE`).")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON object {scene: description} on stdout")


def execute(args):
    if args.json:
        print(json.dumps({name: entry.description for name, entry in SCENES.items()}))
        return 0
    width = max(len(name) for name in SCENES)
    for name, entry in SCENES.items():
        mark = " (default)" if name == DEFAULT_SCENE else ""
        print(f"{name:<{width}}  {entry.description}{mark}")
    return 0
