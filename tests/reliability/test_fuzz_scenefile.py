"""Fuzzed scenario files: valid scenarios holding every body kind and every term type
(tests/reliability/fuzz_cases.py), with 1 to 3 fields broken at random -- NaN/inf, zero,
negative and huge values, values off by up to 12 orders of magnitude, text and booleans for
numbers, arrays of the wrong shape, fields deleted, misspelt or unknown, references to bodies
that do not exist, dt far above the stable step. Every case loads, compiles and runs a few
steps with a finite state, or is refused with a ScenarioError naming the field, or stops with
SimulationDiverged keeping a finite state (fuzz_cases.run_case)."""
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fuzz_cases import (BASE_KERNEL_SETS, BASES, DEFAULT_EXAMPLES, SLOW_EXAMPLES, broken_scenario, fuzz_settings,
                        large_but_legal, new_outcomes, report, run_case)
from softmech.scenefile.reader import scenario_from_dict

BASE_NAMES = sorted(BASES)


def fuzz_files(n, slow):
    outcomes = new_outcomes()

    @fuzz_settings(n, slow=slow)
    @given(st.sampled_from(BASE_NAMES).flatmap(broken_scenario))
    def case(broken):
        doc, fields = broken
        assume(not large_but_legal(doc))
        run_case(lambda: scenario_from_dict(doc, source="fuzzed.toml"), fields, outcomes,
                 BASE_KERNEL_SETS)

    case()
    return outcomes


def test_fuzzed_scenario_files_run_or_fail_clearly(capsys):
    outcomes = fuzz_files(DEFAULT_EXAMPLES, slow=False)
    report("scenario files", outcomes, capsys)
    assert sum(outcomes.values()) >= DEFAULT_EXAMPLES // 2


@pytest.mark.slow
def test_fuzzed_scenario_files_run_or_fail_clearly_many(capsys):
    outcomes = fuzz_files(SLOW_EXAMPLES, slow=True)
    report("scenario files (slow)", outcomes, capsys)
    assert sum(outcomes.values()) >= SLOW_EXAMPLES // 2
