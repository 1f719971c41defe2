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


def load_scenario(path, *, allow_outside_files=False):
    """Read a scenario file (.toml) and return its Scenario (scene built, settings checked).
    Side files and meshes it names must lie in its folder unless allow_outside_files (a file
    from someone else must not read the user's other files: docs/scenario_files.md)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ScenarioError(f"{path}: no such scenario file")
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
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(f"{source}: not valid TOML: {err}") from None
    return _Reader(source, base_dir, allow_outside_files).scenario(doc)


def scenario_from_dict(doc, *, source="<dict>", base_dir=".", allow_outside_files=False):
    """Scenario of a parsed scenario dict (as tomllib returns it), checked like a file."""
    return _Reader(source, base_dir, allow_outside_files).scenario(doc)


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
