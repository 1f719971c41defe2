"""Kill -9 harness for tests/reliability/test_kill_safety.py: start a softmech command in its own
process, SIGKILL it by PID after a seeded random delay, check that every file it left opens,
and continue it with --resume until it finishes; the finished output is then compared with an
uninterrupted run's (no finished work lost, results identical)."""
import dataclasses
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys

import softmech as sm
from softmech.optimize.campaign import LOG_FORMAT, read_jsonl
from softmech.optimize.executors import JOURNAL_FORMAT
from softmech.resultsfile import load_results, snapshot

SRC = str(pathlib.Path(sm.__file__).parents[1])
OPTIMIZE = """
[optimize]
popsize = 4
seed = 3
max_generations = 6
parameters = [
    { path = "rods.rod.youngs_modulus", lower = 1000000.0, upper = 30000000.0, log = true },
    { path = "damping.coefficient", lower = 0.0001, upper = 0.01 },
]
objective = "drop"

[optimize.objectives.drop]
quantity = "com_speed"
axis = "z"
window = [0.01, 0.02]  # [s]
"""
"""A tiny [optimize] table for the rod pendulum example (examples/rod_pendulum.toml): two
parameters, 4 x 6 evaluations of 0.02 s each."""
NOTHING_TO_RESUME = ("nothing to resume", "has no checkpoint", "no campaign log there",
                     "there is no journal", "no journal")
"""Messages of a --resume that finds no state yet (killed before its first checkpoint or log
line): the harness then starts the command afresh, as a user would."""


def cli(args, cwd):
    """Popen of `python -m softmech.cli ARGS` in `cwd`, on one thread, with this softmech."""
    env = dict(os.environ, PYTHONPATH=SRC, OPENBLAS_NUM_THREADS="1", NUMBA_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    return subprocess.Popen([sys.executable, "-m", "softmech.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(args, cwd, timeout=300):
    """Run to the end; (returncode, stderr)."""
    p = cli(args, cwd)
    _, err = p.communicate(timeout=timeout)
    return p.returncode, err


@dataclasses.dataclass
class KillLog:
    kills: int = 0           # SIGKILLs delivered to a live process
    completed: int = 0       # runs to the end, each verified against the reference
    fresh_starts: int = 0    # --resume found nothing yet: started afresh
    checks: int = 0          # file checks after a kill, all passed
    torn: int = 0            # results.h5 torn by the kill, its checkpoint copy read back
    torn_before_first_checkpoint: int = 0   # torn before any checkpoint: nothing to resume


def kill_and_resume(first, resume, fresh, cwd, check, verify, reset, *, kills, rng, max_delay):
    """Start `first` (args); whenever it runs longer than a delay drawn from rng (uniform in
    [0.2, max_delay] s), SIGKILL it by PID, call check() on the files left and continue with
    `resume` args (`fresh` args when --resume reports nothing to resume yet). A process that
    ends before its kill time must succeed: verify() compares its output with the reference,
    reset() clears the output folder, and a new cycle starts with `first`. After `kills`
    kills, the last cycle is resumed to the end and verified. Returns the KillLog."""
    log = KillLog()
    args = first
    while log.kills < kills:
        p = cli(args, cwd)
        try:
            _, err = p.communicate(timeout=rng.uniform(0.2, max_delay))
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
            p.communicate()
            log.kills += 1
            check(log)
            log.checks += 1
            args = resume
            continue
        if p.returncode == 2 and any(m in err for m in NOTHING_TO_RESUME):
            log.fresh_starts += 1
            args = fresh
            continue
        assert p.returncode == 0, f"{' '.join(args)} (exit {p.returncode}):\n{err}"
        check(log)
        verify()
        log.completed += 1
        reset()
        args = first
    code, err = finish(resume, cwd)
    if code == 2 and any(m in err for m in NOTHING_TO_RESUME):
        log.fresh_starts += 1
        code, err = finish(fresh, cwd)
    assert code == 0, err
    check(log)
    verify()
    log.completed += 1
    return log


# --------------------------------------------------------------------------- file checks
def check_results(path, log):
    """A results file left by a killed run reads back completely, with every series as long as
    /time; or, if the kill tore it (HDF5 writes in place), its checkpoint copy
    (resultsfile.snapshot) does -- counted in log.restored -- and --resume starts from it."""
    if not os.path.exists(path):
        return
    if not snapshot.reads_back(path):
        path = snapshot.snapshot_path(path)
        if not os.path.exists(path):
            log.torn_before_first_checkpoint += 1
            return
        log.torn += 1
    assert snapshot.reads_back(path), path
    out = load_results(path, derived=False)
    n = len(out["time"])
    for key, value in out.items():
        if key != "time":
            assert value.shape[1] == n, (key, value.shape, n)


def check_jsonl(path, fmt):
    """A campaign log / evaluation journal opens (a truncated last line is allowed); returns its
    records (empty when the file or its header line is not there yet)."""
    if not os.path.exists(path):
        return []
    try:
        _, records = read_jsonl(path, fmt)
    except ValueError as err:
        if "no header line" in str(err) and os.path.getsize(path) < 4096:
            return []           # killed while writing the header: nothing finished yet
        raise
    return records


def check_json(path):
    """A JSON file (written atomically) is absent or complete."""
    if os.path.exists(path):
        with open(path) as f:
            json.load(f)


class Monotone:
    """Records of an append-only file must only grow: each check's records start with the
    previous check's (no finished evaluation lost)."""

    def __init__(self, path, fmt, key):
        self.path, self.fmt, self.key = path, fmt, key
        self.seen = []

    def reset(self):
        self.seen = []

    def __call__(self, log=None):
        records = [self.key(r) for r in check_jsonl(self.path, self.fmt)]
        assert records[:len(self.seen)] == self.seen, f"{self.path}: finished records lost"
        self.seen = records
        return records


def generation_key(record):
    return (record["generation"], record["x"], record["fitness"])


def chunk_key(record):
    return json.dumps([record["params"], record["values"]], sort_keys=True)


def reset_folder(path):
    """A reset() for kill_and_resume: remove the output folder."""
    return lambda: shutil.rmtree(path, ignore_errors=True)


__all__ = ["reset_folder", "KillLog", "kill_and_resume", "check_results", "check_jsonl",
           "check_json", "Monotone", "generation_key", "chunk_key", "finish", "LOG_FORMAT",
           "JOURNAL_FORMAT", "OPTIMIZE"]
