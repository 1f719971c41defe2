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


@pytest.mark.parametrize("value, hint", [("' 4e-3 '", 'write 4e-3, not "4e-3"'),
                                         ("[0, '0.7', 0]", 'write 0.7, not "0.7"'),
                                         ("'stiff'", None)])
def test_a_quoted_number_error_shows_the_users_value_unquoted(tmp_path, value, hint):
    """The hint repeats the user's own number (not a fixed example); text that is no number
    gets no hint."""
    path = tmp_path / "quoted.toml"
    field = "radius" if "[" not in value else "start"
    text = open(BROKEN[[os.path.basename(b) for b in BROKEN].index("quoted_number.toml")]).read()
    text = text.replace('youngs_modulus = "2.5e6"', "youngs_modulus = 1e7")
    text = text.replace(f"\n{field} = ", f"\n{field} = {value}\n# was: ")
    path.write_text(text)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    message = str(err.value)
    assert f"{field} = " in message and "not text" in message, message
    if hint is None:
        assert "(write" not in message, message
    else:
        assert f"({hint})" in message, message
