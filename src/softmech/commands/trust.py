"""--allow-outside-files, shared by the commands that read a scenario file (run, optimize,
sweep): by default a scenario file may only name side files and meshes inside its own folder,
so that a file from someone else cannot read the user's other files (docs/scenario_files.md)."""


def add_trust_argument(parser):
    """Add --allow-outside-files to an argparse parser."""
    parser.add_argument("--allow-outside-files", action="store_true",
                        help="let the scenario file name side files and meshes outside its own "
                             "folder (through '..' or absolute paths); only for files you trust")


def load_trusted(path, args):
    """The Scenario of the file `path`, with outside side files allowed only when the command
    line says --allow-outside-files."""
    from softmech.scenefile import load_scenario

    return load_scenario(path, allow_outside_files=bool(getattr(args, "allow_outside_files",
                                                                False)))
