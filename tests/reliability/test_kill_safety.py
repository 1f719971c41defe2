"""Kill safety (issue 16, item 4; docs/reliability.md "Kill safety"): `softmech run` (writing
results.h5), `softmech optimize` (a CMA-ES campaign) and `softmech sweep` are killed with SIGKILL
by PID at seeded random moments, again and again, each time continued with --resume. After every
kill each file left opens (results.h5 with all series as long as /time, campaign.jsonl and
evaluations.jsonl, best.json); the logs only grow (no finished generation or chunk lost); and the
finished output equals an uninterrupted run's: the results bit for bit, the campaign's
generations (samples and fitness), the sweep table.

The default run kills each command a few times (about 30 s); the slow step kills them 102 times
in all (seed 16). Ray: tests/unit/test_ray.py (slow) kills a Ray worker during a chunk and the
driver during a generation."""
import pathlib
import random
import time

import h5py
import numpy as np
import pytest

from slow_scale import scaled
from kill_harness import (JOURNAL_FORMAT, LOG_FORMAT, OPTIMIZE, Monotone, check_json,
                          check_results, chunk_key, finish, generation_key, kill_and_resume,
                          reset_folder)

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "rod_pendulum.toml"
SWEEP = ["--param", "rods.rod.youngs_modulus=1e6:1e7:8", "--chunk", "2"]
RUN = ["run", "run.toml", "--quiet", "--checkpoint-every", "0.02"]
OPT = ["optimize", "opt.toml", "--quiet"]
SW = ["sweep", "opt.toml", *SWEEP, "--quiet"]
KILLS = scaled(34, 3)
"""Kills of each command in the slow test: 34 at full size, 8 in CI (slow_scale)."""


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    """The rod pendulum example, 0.3 s (15,000 steps) for runs and 0.02 s for each campaign or
    sweep evaluation, with a tiny [optimize] table; the uninterrupted reference outputs, and
    their wall times [s] (kill times are drawn up to 1.2 times these: on any machine, kills
    land anywhere from start-up to the last file written)."""
    folder = tmp_path_factory.mktemp("kill")
    text = EXAMPLE.read_text()
    (folder / "run.toml").write_text(text.replace("duration = 2.0", "duration = 0.3"))
    (folder / "opt.toml").write_text(text.replace("duration = 2.0", "duration = 0.02") + OPTIMIZE)
    wall = {}
    for name, args in (("run", RUN), ("opt", OPT), ("sweep", SW)):
        started = time.perf_counter()
        code, err = finish(args + ["--output", f"ref_{name}"], folder)
        assert code == 0, err
        wall[name] = time.perf_counter() - started
    return folder, wall


def _series(path):
    """Every dataset under /time, /rods and /bodies of a results file."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()])
                     if isinstance(obj, h5py.Dataset) and name.split("/")[0] in
                     ("time", "rods", "bodies") else None)
    return out


def kill_runs(scenario, kills, rng, tag):
    folder, wall = scenario
    out = folder / f"run_{tag}"
    path = out / "results.h5"
    ref = _series(folder / "ref_run" / "results.h5")

    def verify():
        got = _series(path)
        assert sorted(got) == sorted(ref)
        for name in ref:
            np.testing.assert_array_equal(got[name], ref[name], err_msg=name)   # bit for bit

    return kill_and_resume(RUN + ["--output", str(out)], RUN + ["--output", str(out), "--resume"],
                           RUN + ["--output", str(out), "--force"], folder,
                           lambda log: check_results(path, log), verify, reset_folder(out),
                           kills=kills, rng=rng, max_delay=1.2 * wall["run"])


def kill_campaign(scenario, kills, rng, tag):
    folder, wall = scenario
    out = folder / f"opt_{tag}"
    log_lines = Monotone(out / "campaign.jsonl", LOG_FORMAT, generation_key)
    journal = Monotone(out / "evaluations.jsonl", JOURNAL_FORMAT, chunk_key)
    ref = Monotone(folder / "ref_opt" / "campaign.jsonl", LOG_FORMAT, generation_key)()
    assert len(ref) == 6

    def check(log):
        log_lines(), journal()
        check_json(out / "best.json")

    def verify():
        assert log_lines() == ref                  # every generation, as uninterrupted

    def reset():
        reset_folder(out)()
        log_lines.reset(), journal.reset()

    return kill_and_resume(OPT + ["--output", str(out)], OPT + ["--output", str(out), "--resume"],
                           OPT + ["--output", str(out)], folder, check, verify, reset,
                           kills=kills, rng=rng, max_delay=1.2 * wall["opt"])


def kill_sweep(scenario, kills, rng, tag):
    folder, wall = scenario
    out = folder / f"sweep_{tag}"
    journal = Monotone(out / "evaluations.jsonl", JOURNAL_FORMAT, chunk_key)
    ref = (folder / "ref_sweep" / "sweep.csv").read_text()

    def verify():
        assert (out / "sweep.csv").read_text() == ref

    def reset():
        reset_folder(out)()
        journal.reset()

    return kill_and_resume(SW + ["--output", str(out)], SW + ["--output", str(out), "--resume"],
                           SW + ["--output", str(out)], folder, journal, verify, reset,
                           kills=kills, rng=rng, max_delay=1.2 * wall["sweep"])


def test_a_few_kills(scenario):
    """Default run: one kill of each command (seeded), then it resumes and finishes."""
    rng = random.Random(16)
    logs = [f(scenario, 1, rng, "quick") for f in (kill_runs, kill_campaign, kill_sweep)]
    assert sum(log.kills for log in logs) == 3


@pytest.mark.slow
def test_a_hundred_kills(scenario):
    """Slow step: 34 kills of each command, 102 in all, at seeded random moments (8 of each in
    CI: slow_scale)."""
    rng = random.Random(16)
    logs = {f.__name__: f(scenario, KILLS, rng, "slow") for f in (kill_runs, kill_campaign,
                                                              kill_sweep)}
    print({k: vars(v) for k, v in logs.items()})
    assert sum(log.kills for log in logs.values()) == 3 * KILLS
