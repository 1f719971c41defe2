"""Scenario files: TOML with a schema_version, one table per builder call (see schema.py).

    scenario = load_scenario("my_snake.toml")       # validated; errors name file, table, field
    sim = scenario.compile()                        # with its [run] settings
    save_scenario(builtin_scenario("snake"), "my_snake.toml")
"""
from softmech.scenefile.builtin import builtin_scenario, scenario_text
from softmech.scenefile.reader import load_scenario, loads_scenario
from softmech.scenefile.schema import SCHEMA_VERSION, RunSettings, Scenario
from softmech.scenefile.values import ScenarioError
from softmech.scenefile.writer import dumps, save_scenario

__all__ = ["SCHEMA_VERSION", "Scenario", "RunSettings", "ScenarioError", "load_scenario",
           "loads_scenario", "save_scenario", "dumps", "builtin_scenario", "scenario_text"]
