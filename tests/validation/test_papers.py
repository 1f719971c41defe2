"""`softmech validate --papers`: the reference papers' numbers that softmech reproduces
(softmech.validation.papers; docs/reproductions.md). Each case compares softmech with the paper's
number within the tolerance its docstring justifies; the same numbers are also asserted where
they are studied in depth (tests/unit/test_snake_run.py,
tests/validation/test_dismech_cantilever.py)."""
import argparse
import json

import pytest

from softmech.validation import command
from softmech.validation.papers import PAPER_CASES


def parse(argv):
    parser = argparse.ArgumentParser(prog="softmech validate")
    command.add_arguments(parser)
    return parser.parse_args(argv)


@pytest.mark.parametrize("name", sorted(PAPER_CASES))
def test_each_papers_number_is_reproduced(name):
    record = PAPER_CASES[name]()
    assert record["case"] == name
    assert record["passed"], record["detail"]
    # the reference is the paper's number, not softmech's: it must not equal the measurement
    # to the last bit (a case comparing softmech with itself would)
    assert record["measured"] != record["reference"]
    assert "tolerance" in PAPER_CASES[name].__doc__.lower()


def test_validate_papers_runs_the_papers_cases(capsys):
    assert command.execute(parse(["--papers", "--list"])) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("papers: ")
    listed = [line.replace("*", " ").split()[0] for line in lines if line.startswith("  ")]
    assert listed == list(PAPER_CASES)
    assert command.execute(parse(["--papers", "--case", "dismech_fig8_rod", "--json",
                                  "--quiet"])) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["case"] for r in records] == ["dismech_fig8_rod"] and records[0]["passed"]


def test_validate_papers_names_an_unknown_case():
    with pytest.raises(ValueError,
                       match="'timoshenko_cantilever' is not allowed.*dismech_fig8_rod"):
        command.execute(parse(["--papers", "--case", "timoshenko_cantilever"]))


def test_validate_papers_draws_the_figure_of_each_case_that_ran(tmp_path, capsys):
    # the rod's case draws Fig. 8 (softmech's rod and hinge shell beside the published tips)
    # and no other figure; the file is a whole PNG
    folder = tmp_path / "figures"
    assert command.execute(parse(["--papers", "--case", "dismech_fig8_rod", "--figures",
                                  str(folder), "--quiet"])) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["dismech_fig8.png"]
    assert (folder / "dismech_fig8.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
