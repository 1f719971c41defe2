"""Fuzzed results files: copies of real files of `softmech run` (a snake; the rod pendulum with
rigid bodies and joints; the parachute's discrete rods and shell) damaged at random -- shapes,
dtypes, lengths, deleted datasets and attributes, attributes of the wrong type or value, broken
JSON and text, links, the file cut at a random byte or bytes flipped -- and read by every reader
(tests/reliability/fuzz_results.py: read_all). Each is read consistently or refused by a
one-line ValueError naming the file; nothing else. The default run draws DEFAULT_EXAMPLES
cases; the slow one runs `python benchmarks/fuzz_results_files.py --cases 3000` (and
`--kind state`), whose counts are in docs/reliability.md."""
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz_results import DEFAULT_EXAMPLES, damage, fuzz_settings, make_bases, new_outcomes, one_case
from slow_scale import scaled


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    return make_bases(tmp_path_factory.mktemp("bases"))


def fuzz(bases, n, folder):
    outcomes = new_outcomes()
    names = sorted(bases)
    other = bases[names[0]].path            # the target of external links

    @fuzz_settings(n)
    @given(st.sampled_from(names).flatmap(lambda name: damage(bases[name]).map(
        lambda edits: (name, edits))))
    def case(drawn):
        name, edits = drawn
        one_case(bases[name], edits, str(folder), outcomes, other)

    case()
    return outcomes


def report(name, outcomes, capsys):
    with capsys.disabled():
        print(f"\n[fuzz] {name}: {dict(outcomes)}")


def test_damaged_results_files_are_read_consistently_or_refused(bases, tmp_path, capsys):
    outcomes = fuzz(bases, DEFAULT_EXAMPLES, tmp_path)
    report("results files", outcomes, capsys)
    assert outcomes["cases"] >= DEFAULT_EXAMPLES // 2
    assert outcomes["accepted"] > 0 and outcomes["refused"] > 0      # both sides exercised


SLOW_CASES = {"results": scaled(3000, 100), "state": scaled(10000, 100)}
"""Cases of the slow test: the state files' full 10,000 (2 minutes); the first 3,000 of the
results files' 10,000 (about 4 of the full run's 13-20 minutes), whose full run is the
benchmark's, counted in docs/reliability.md; in CI a quarter of each (slow_scale: its run of
2026-11-29 spent 11 minutes on the 3,000)."""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["results", "state"])
def test_damaged_files_many(kind, capsys):
    """The long run, as the benchmark makes it (SLOW_CASES), in a child process so that a
    crash of the HDF5 library is counted, not fatal; passes with no traceback, misread or
    crash."""
    script = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks",
                          "fuzz_results_files.py")
    proc = subprocess.run([sys.executable, script, "--cases", str(SLOW_CASES[kind]), "--kind", kind],
                          capture_output=True, text=True)
    with capsys.disabled():
        print(f"\n[fuzz] {kind} files (slow): {proc.stdout}")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
