"""TOML -> Scenario: parse, check every table and field, build the scene, and check the
[optimize] table (a campaign over the scene: softmech.optimize.settings, or the template's
own campaign). Every error is a ScenarioError naming the file, the table, the field, the value
and what is allowed. The tables of the scene are read by softmech.scenefile.document, a layer
below the campaigns, which rebuild scenes from documents with it."""
import os
import tomllib

from softmech.optimize.settings import is_generic, study_settings
from softmech.scenarios import TEMPLATES
from softmech.scenefile.document import DocumentReader
from softmech.scenefile.values import ScenarioError

MAX_SCENARIO_BYTES = 64 * 2**20
"""Largest scenario file read (64 MiB; large arrays belong in side files, which have their own
limit): a bigger one is refused before it is read."""
MAX_NESTING = 32
"""Deepest nesting of tables and arrays a scenario may have (the files softmech writes nest
fewer than 10: an actuation table's (times, springs, 2) values inside a body's table inside
[[bodies]]): deeper ones are refused instead of exhausting Python's stack."""


def load_scenario(path, *, allow_outside_files=False):
    """Read a scenario file (.toml) and return its Scenario (scene built, settings checked).
    Side files and meshes it names must lie in its folder unless allow_outside_files (a file
    from someone else must not read the user's other files: docs/scenario_files.md)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ScenarioError(f"{path}: no such scenario file")
    size = os.path.getsize(path)
    if size > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{path}: {size:,} bytes is not allowed: a scenario file may have at "
                            f"most {MAX_SCENARIO_BYTES:,} bytes (put large arrays in side files)")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ScenarioError(f"{path}: not a text file (UTF-8): {err}") from None
    return loads_scenario(text, source=path, base_dir=os.path.dirname(os.path.abspath(path)),
                          allow_outside_files=allow_outside_files)


def loads_scenario(text, *, source="<string>", base_dir=".", allow_outside_files=False):
    """Parse scenario TOML text; side files are looked up relative to base_dir (and must lie
    inside it unless allow_outside_files)."""
    if len(text) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{source}: {len(text):,} characters is not allowed: a scenario may "
                            f"have at most {MAX_SCENARIO_BYTES:,} (put large arrays in side files)")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(f"{source}: not valid TOML: {err}") from None
    except RecursionError:                 # the parser recursed through thousands of levels
        raise ScenarioError(f"{source}: tables or arrays nested too deeply: not allowed, a "
                            f"scenario may nest at most {MAX_NESTING} levels") from None
    return scenario_from_dict(doc, source=source, base_dir=base_dir,
                              allow_outside_files=allow_outside_files)


def scenario_from_dict(doc, *, source="<dict>", base_dir=".", allow_outside_files=False):
    """Scenario of a parsed scenario dict (as tomllib returns it), checked like a file."""
    _check_nesting(doc, source)
    return _Reader(source, base_dir, allow_outside_files).scenario(doc)


def _check_nesting(doc, source):
    """ScenarioError if tables and arrays nest deeper than MAX_NESTING (checked without
    recursion, before any reader recurses through the document)."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ScenarioError(f"{source}: tables or arrays nested {depth} levels deep: not "
                                f"allowed, a scenario may nest at most {MAX_NESTING} levels")
        children = value.values() if isinstance(value, dict) else value
        stack.extend((v, depth + 1) for v in children if isinstance(v, (dict, list)))


class _Reader(DocumentReader):
    """DocumentReader that also reads the [optimize] table."""

    def campaign(self, doc, template, scenario):
        """The [optimize] table: a generic campaign (parameters and objectives by name,
        softmech.optimize.settings) or the template's own campaign (softmech.scenarios.Template;
        the snake's gait campaign), checked against the scene."""
        if "optimize" not in doc:
            return None
        table = doc["optimize"]
        if not isinstance(table, dict):
            self.fail("[optimize]", "optimize must be a table")
        campaign = TEMPLATES[template].campaign_module() if template in TEMPLATES else None
        try:
            if is_generic(table) or campaign is None:
                return study_settings(table, scenario)
            return campaign.campaign_settings(table)
        except ValueError as err:
            self.fail("[optimize]", str(err))
