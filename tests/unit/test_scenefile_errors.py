"""Broken scenario files fail before any work with errors a newcomer understands: each file in
tests/data/broken_scenarios says in its first line (# expect: a | b | ...) what the message must
contain, besides the file's name."""
import glob
import os

import pytest

from softmech.scenefile import ScenarioError, load_scenario

BROKEN = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "data",
                                       "broken_scenarios", "*.toml")))


def expected_fragments(path):
    with open(path) as f:
        first = f.readline()
    assert first.startswith("# expect:"), f"{path}: first line must be '# expect: ...'"
    return [part.strip() for part in first[len("# expect:"):].split("|")]


def test_there_is_a_set_of_broken_files():
    assert len(BROKEN) >= 20


@pytest.mark.parametrize("path", BROKEN, ids=os.path.basename)
def test_broken_file_reports_file_table_field_and_allowed_values(path):
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    message = str(err.value)
    assert message.startswith(path + ":"), message
    for fragment in expected_fragments(path):
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_missing_file_is_reported(tmp_path):
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nothing.toml")
