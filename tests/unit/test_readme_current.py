"""The README and the command-line pages say what the command line does (issue 31, item 11):
the number and names of the built-in scenes (softmech.scenarios.SCENES, what `softmech list`
prints), the commands (softmech.cli.COMMANDS) and, in the command tables, only options that the
commands have. Fails when a scene or a command is added, renamed or removed without the docs."""
import argparse
import importlib
import os
import re

import pytest

from softmech.cli import COMMANDS
from softmech.scenarios import SCENES

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
TABLES = ("README.md", "docs/cli.md")
"""Pages with a table of every command, one row each, starting | `softmech COMMAND ...`."""


def read(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def command_rows(text):
    """{command: the row's first cell} of the rows of a table of commands; a command's second
    row is an error (ValueError)."""
    rows = {}
    for cell in re.findall(r"^\| `softmech (\w[^`]*)` \|", text, flags=re.M):
        name = cell.split()[0]
        if name in rows:
            raise ValueError(f"two rows for softmech {name}")
        rows[name] = cell
    return rows


def options_of(command):
    """Every option string of `softmech command` (its argparse parser)."""
    parser = argparse.ArgumentParser(prog=f"softmech {command}")
    importlib.import_module(COMMANDS[command][0]).add_arguments(parser)
    return {s for action in parser._actions for s in action.option_strings}


def test_the_readme_counts_and_names_every_scene_as_softmech_list_does():
    found = re.findall(r"`softmech list` names all (\d+): ([^)]*)\)", read("README.md"))
    assert len(found) == 1, "the README should say once: `softmech list` names all N: ..."
    count, names = found[0]
    assert int(count) == len(SCENES)
    assert re.findall(r"`(\w+)`", names) == list(SCENES)       # in `softmech list`'s order


def test_every_count_of_the_scenes_in_the_docs_is_current():
    for name in ("README.md", "docs/index.md", "docs/cli.md", "docs/user_guide.md",
                 "docs/tutorial.md"):
        for count in re.findall(r"names all (\d+)|(\d+) built-in scenes", read(name)):
            assert int("".join(count)) == len(SCENES), (name, count)


def test_the_command_line_page_names_every_scene_in_the_run_row():
    run_row = next(line for line in read("docs/cli.md").splitlines()
                   if line.startswith("| `softmech run "))
    missing = [name for name in SCENES if f"`{name}`" not in run_row]
    assert not missing, f"docs/cli.md's run row does not name {missing}"


@pytest.mark.parametrize("page", TABLES)
def test_the_command_tables_list_exactly_the_commands(page):
    assert sorted(command_rows(read(page))) == sorted(COMMANDS)


@pytest.mark.parametrize("page", TABLES)
def test_the_command_tables_show_only_options_that_exist(page):
    for command, cell in command_rows(read(page)).items():
        unknown = set(re.findall(r"--[a-z][a-z0-9-]*", cell)) - options_of(command)
        assert not unknown, f"{page}: softmech {command} has no option {sorted(unknown)}"


def test_the_docs_index_names_every_command():
    row = next(line for line in read("docs/index.md").splitlines()
               if line.startswith("| [Command line]"))
    missing = [name for name in COMMANDS if f"`{name}`" not in row
               and f"`softmech {name}`" not in row]
    assert not missing, f"docs/index.md's command line row does not name {missing}"
