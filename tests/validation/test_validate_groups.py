"""`softmech validate` over every model's validation cases (softmech.validation.registry):
groups, --only, --fast, --list, the --papers alias, and the documentation every registered case
must carry (its tolerance, its quantity with a unit and its source)."""
import argparse
import json
import re

import pytest

from softmech.cli import main
from softmech.validation import command
from softmech.validation.papers import PAPER_CASES
from softmech.validation.registry import GROUPS, group_cases, select
from softmech.validation.report import case_info

EVERY = select()


def parse(argv):
    parser = argparse.ArgumentParser(prog="softmech validate")
    command.add_arguments(parser)
    return parser.parse_args(argv)


def listed(out):
    """{group: [case names]} from the output of --list."""
    groups, group = {}, None
    for line in out.splitlines():
        head = re.match(r"^(\w+): ", line)
        if head:
            group = head.group(1)
            groups[group] = []
        elif line.startswith("  "):
            words = line.split()
            groups[group].append(words[1] if words[0] == "*" else words[0])
    return groups


def test_every_model_has_a_group_with_cases():
    assert list(GROUPS) == ["rods", "contact", "joints", "fluids", "muscles", "discrete_rods",
                            "shells", "underwater", "papers"]
    for group in GROUPS:
        assert len(group_cases(group)) >= 2, group
    names = [name for _, name, _ in EVERY]
    assert len(names) == len(set(names)), "a case name is registered twice"


@pytest.mark.parametrize("group, name, function", EVERY, ids=[n for _, n, _ in EVERY])
def test_every_case_states_its_tolerance_quantity_and_source(group, name, function):
    doc = function.__doc__ or ""
    assert "tolerance" in doc.lower(), f"{group}/{name}: the docstring states no tolerance"
    info = case_info(name, function)
    assert "[" in info.quantity, f"{group}/{name}: quantity without a unit"
    assert info.source.strip()


def test_list_groups_the_cases_and_marks_the_fast_ones(capsys):
    assert command.execute(parse(["--list"])) == 0
    out = capsys.readouterr().out
    groups = listed(out)
    assert list(groups) == list(GROUPS)
    for group in GROUPS:
        assert groups[group] == list(group_cases(group)), group
    fast = {name for _, name, _ in select(fast=True)}
    marked = {line.split()[1] for line in out.splitlines() if line.startswith("  * ")}
    assert marked == fast


def test_only_selects_the_groups_given(capsys):
    assert command.execute(parse(["--only", "joints", "shells", "--list"])) == 0
    groups = listed(capsys.readouterr().out)
    assert list(groups) == ["joints", "shells"]
    assert command.execute(parse(["--only", "joints", "--case", "joint_stop_statics", "--json",
                                  "--quiet"])) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["group"], r["case"], r["passed"]) for r in records] == [
        ("joints", "joint_stop_statics", True)]


def test_a_case_of_another_group_is_refused_naming_the_allowed_ones():
    with pytest.raises(ValueError, match="'joint_stop_statics' is not allowed.*settling_rod"):
        command.execute(parse(["--only", "fluids", "--case", "joint_stop_statics"]))


def test_an_unknown_group_is_refused_naming_the_allowed_ones(capsys):
    with pytest.raises(ValueError, match="--only 'fluid' is not allowed: must be one of "
                                         + ", ".join(GROUPS)):
        command.execute(parse(["--only", "fluid"]))
    assert main(["validate", "--only", "fluid"]) == 2
    err = capsys.readouterr().err
    assert "'fluid' is not allowed" in err and "discrete_rods" in err and "Traceback" not in err


def test_papers_is_an_alias_of_only_papers(capsys):
    assert command.execute(parse(["--papers", "--list"])) == 0
    alias = capsys.readouterr().out
    assert command.execute(parse(["--only", "papers", "--list"])) == 0
    assert capsys.readouterr().out == alias
    assert listed(alias) == {"papers": list(PAPER_CASES)}


def test_fast_is_a_subset_with_cases_in_every_group_but_the_papers_reproductions(capsys):
    fast = select(fast=True)
    assert 0 < len(fast) < len(EVERY)
    assert set(fast) <= set(EVERY)
    for group in GROUPS:
        assert any(g == group for g, _, _ in fast), f"no fast case in {group}"
    assert command.execute(parse(["--only", "joints", "--fast", "--json", "--quiet"])) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["case"] for r in records] == [n for g, n, _ in fast if g == "joints"]
    assert all(r["passed"] for r in records)
