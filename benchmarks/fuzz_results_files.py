"""Reliability benchmark: damaged results files read by every reader (not collected by pytest).

    python benchmarks/fuzz_results_files.py --cases 10000                 # results files (.h5)
    python benchmarks/fuzz_results_files.py --cases 10000 --kind state    # state files (.npz)

Results files: copies of real `softmech run` files (a snake; the rod pendulum with rigid
bodies and joints; the parachute's discrete rods and shell) damaged at random and read by
load_results, describe (softmech info), the pictures' read_results (view, render) and resume
(tests/reliability/fuzz_results.py). State files: copies of real `sim.save_state` files
damaged at random and loaded by Simulation.load_state (tests/reliability/fuzz_states.py).
Each case must be read consistently or refused by a one-line ValueError naming the file.

The cases run in a child process that logs each case before and after it runs: a crash of
the process itself (the HDF5 C library can crash on a damaged file, which no Python code can
catch) is counted, its case printed, and a new child continues with the next case (the cases
are derandomized, so a new child draws the same sequence). Prints the counts (cases, accepted,
refused, tracebacks, misreads, crashes), the wall time and the failures; exit code 1 if any
case failed. SOFTMECH_FUZZ_RANDOM=1 draws new cases. The default test run draws a few hundred
(tests/reliability/test_fuzz_results_files.py, test_fuzz_state_files.py).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "reliability"))


def _results(folder):
    """(strategy, run(drawn, outcomes)) of the results-file fuzz."""
    from hypothesis import strategies as st

    from fuzz_results import damage, make_bases, one_case

    bases = make_bases(os.path.join(folder, "bases"))
    names = sorted(bases)
    strategy = st.sampled_from(names).flatmap(lambda name: damage(bases[name]).map(
        lambda edits: (name, edits)))

    def run(drawn, outcomes):
        name, edits = drawn
        one_case(bases[name], edits, folder, outcomes, bases[names[0]].path, strict=False)

    return strategy, run


def _states(folder):
    from fuzz_states import damage, make_bases, one_case

    bases = make_bases(folder)
    return damage(bases), lambda drawn, outcomes: one_case(bases, drawn, folder, outcomes,
                                                            strict=False)


def child(args):
    """Run cases args.start .. args.cases - 1, logging each to args.log (one JSON line before
    it runs, one with its outcome after)."""
    from hypothesis import given

    from fuzz_results import fuzz_settings, new_outcomes

    folder = tempfile.mkdtemp(prefix="softmech-fuzz-")
    strategy, run = (_results if args.kind == "results" else _states)(folder)
    index = [0]
    with open(args.log, "a") as log:
        @fuzz_settings(args.cases)
        @given(strategy)
        def case(drawn):
            i = index[0]
            index[0] += 1
            if i < args.start:
                return
            log.write(json.dumps({"i": i, "case": repr(drawn)[:2000]}) + "\n")
            log.flush()
            outcomes = new_outcomes()
            run(drawn, outcomes)
            log.write(json.dumps({"i": i, "outcome": dict(outcomes),
                                  "failures": outcomes.failures}) + "\n")
            log.flush()

        case()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="cases to draw (10000)")
    parser.add_argument("--kind", choices=("results", "state"), default="results")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--log", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    started = time.perf_counter()
    totals, failures, crashes, start = Counter(), [], [], 0
    with tempfile.TemporaryDirectory() as folder:
        log = os.path.join(folder, "cases.jsonl")
        while True:
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                                   "--kind", args.kind, "--cases", str(args.cases),
                                   "--start", str(start), "--log", log],
                                  stderr=subprocess.DEVNULL)
            lines = [json.loads(line) for line in open(log)]
            done = {d["i"] for d in lines if "outcome" in d}
            pending = {d["i"]: d["case"] for d in lines if "case" in d and d["i"] not in done}
            if proc.returncode == 0 or not pending:
                if proc.returncode != 0:
                    sys.exit(f"the fuzz's child process failed (exit {proc.returncode}) "
                             "outside a case")
                break
            crashed = max(pending)          # the case running when the process died
            crashes.append(f"case {crashed} (exit {proc.returncode}): {pending[crashed]}")
            start = crashed + 1
        for d in lines:
            if "outcome" in d:
                totals.update(d["outcome"])
                failures += d["failures"]
    totals["crashes"] = len(crashes)
    totals["cases"] += len(crashes)
    wall = time.perf_counter() - started
    keys = ("cases", "accepted", "refused", "tracebacks", "misreads", "crashes")
    print(f"fuzz {args.kind} files: {({k: totals[k] for k in keys})}, wall {wall:.0f} s")
    print("by reader:", {k: v for k, v in sorted(totals.items()) if " " in k})
    kinds = Counter(failure.strip().splitlines()[-1][:120] for failure in failures)
    for kind, count in kinds.most_common():
        print(f"FAILED {count} x: {kind}")
    for failure in failures[:5]:
        print("FAILED, for example:", failure)
    for crash in crashes:
        print("CRASHED:", crash)
    return 1 if totals["tracebacks"] or totals["misreads"] or crashes else 0


if __name__ == "__main__":
    sys.exit(main())
