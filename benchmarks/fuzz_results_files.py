"""Reliability benchmark: damaged results files read by every reader (not collected by pytest).

    python benchmarks/fuzz_results_files.py --cases 10000            # results files (.h5)
    python benchmarks/fuzz_results_files.py --cases 10000 --kind state   # state files (.npz)

Results files: copies of real `softmech run` files (a snake; the rod pendulum with rigid
bodies and joints; the parachute's discrete rods and shell) damaged at random and read by
load_results, describe (softmech info), the pictures' read_results (view, render) and resume
(tests/reliability/fuzz_results.py). State files: copies of real `sim.save_state` files
damaged at random and loaded by Simulation.load_state (tests/reliability/fuzz_states.py).
Each case must be read consistently or refused by a one-line ValueError naming the file. Prints
the counts (cases, accepted, refused, tracebacks, misreads), the wall time and the first
failures; exit code 1 if any case failed. The default test run draws a few hundred of the same
cases (tests/reliability/test_fuzz_results_files.py, test_fuzz_state_files.py). Derandomized
(the same cases every run) unless SOFTMECH_FUZZ_RANDOM=1.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "reliability"))


def fuzz_results(n, folder):
    from hypothesis import given
    from hypothesis import strategies as st

    from fuzz_results import damage, fuzz_settings, make_bases, new_outcomes, one_case

    bases = make_bases(os.path.join(folder, "bases"))
    outcomes = new_outcomes()
    names = sorted(bases)

    @fuzz_settings(n)
    @given(st.sampled_from(names).flatmap(lambda name: damage(bases[name]).map(
        lambda edits: (name, edits))))
    def case(drawn):
        name, edits = drawn
        one_case(bases[name], edits, folder, outcomes, bases[names[0]].path, strict=False)

    case()
    return outcomes


def fuzz_states(n, folder):
    from hypothesis import given

    from fuzz_states import damage, fuzz_settings, make_bases, new_outcomes, one_case

    bases = make_bases(folder)
    outcomes = new_outcomes()

    @fuzz_settings(n)
    @given(damage(bases))
    def case(drawn):
        one_case(bases, drawn, folder, outcomes, strict=False)

    case()
    return outcomes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="cases to draw (10000)")
    parser.add_argument("--kind", choices=("results", "state"), default="results")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        outcomes = (fuzz_results if args.kind == "results" else fuzz_states)(args.cases, folder)
    wall = time.perf_counter() - started
    counts = {k: outcomes[k] for k in ("cases", "accepted", "refused", "tracebacks", "misreads")}
    print(f"fuzz {args.kind} files: {counts}, wall {wall:.0f} s")
    print("by reader:", {k: v for k, v in sorted(outcomes.items()) if " " in k})
    for failure in outcomes.failures[:10]:
        print("FAILED:", failure)
    return 1 if outcomes["tracebacks"] or outcomes["misreads"] else 0


if __name__ == "__main__":
    sys.exit(main())
