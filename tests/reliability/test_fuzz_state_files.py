"""Fuzzed state files: real files of `sim.save_state` (explicit engine: a rod and a box;
implicit: a discrete rod) damaged at random (tests/reliability/fuzz_states.py) and loaded by
`load_state`: loaded with a finite state of the scene's shapes, or refused by a one-line
ValueError naming the file with the simulation unchanged; nothing else. The default run draws
DEFAULT_EXAMPLES cases; `python benchmarks/fuzz_results_files.py --kind state --cases 10000`
the long run (docs/reliability.md)."""
from hypothesis import given

from fuzz_results import DEFAULT_EXAMPLES
from fuzz_states import damage, fuzz_settings, make_bases, new_outcomes, one_case


def test_damaged_state_files_are_loaded_consistently_or_refused(tmp_path, capsys):
    bases = make_bases(str(tmp_path))
    outcomes = new_outcomes()

    @fuzz_settings(DEFAULT_EXAMPLES)
    @given(damage(bases))
    def case(drawn):
        one_case(bases, drawn, str(tmp_path), outcomes)

    case()
    with capsys.disabled():
        print(f"\n[fuzz] state files: {dict(outcomes)}")
    assert outcomes["cases"] >= DEFAULT_EXAMPLES // 2
    assert outcomes["accepted"] > 0 and outcomes["refused"] > 0
