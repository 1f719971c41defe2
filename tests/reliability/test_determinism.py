"""Determinism (issue 16, item 5; docs/reliability.md "Determinism"): the same inputs and seed
give bit-identical results -- across processes, across thread counts (NUMBA_NUM_THREADS and
OPENBLAS_NUM_THREADS 1 and 2, which also change how the explicit engine packs worlds into
lanes), across B (world 0 of a batch of 3 equals a single-world run), and across a restart in
another process (N steps, save_state, load_state in a fresh process, N more steps, against 2N
straight) -- for the explicit engine (the snake: Cosserat rods, muscles, anisotropic ground
friction) and the implicit one (discrete rods with ground contact; a discrete shell in water);
and a campaign gives the same designs (samples and fitness) across processes and thread counts.
Each case starts 4-6 processes (about 5 s of CPU); the shell and the campaign run in the slow step.

Also covered elsewhere (bit for bit): B worlds against B single runs for every explicit term
(tests/properties/test_batching.py) and the implicit engine
(tests/unit/test_implicit_integrator.py); resume from results.h5 in process
(tests/unit/test_results_file.py, test_implicit_results.py, test_results_assemblies.py) and after
kill -9 (tests/reliability/test_kill_safety.py); `softmech run FILE` against the built-in scene
(tests/unit/test_run_command.py) and every built-in scene through a file
(tests/unit/test_scenefile.py); a campaign stopped and resumed (tests/unit/test_optimize.py),
and on Ray against locally (tests/unit/test_ray.py, slow)."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import softmech as sm

PROBE = pathlib.Path(__file__).with_name("determinism_probe.py")
SRC = str(pathlib.Path(sm.__file__).parents[1])
STEPS = {"snake": 400, "falling_rod": 60, "manta": 20}


def probe(threads, *args):
    """{world: sha256 of its final state} from determinism_probe.py in a fresh process."""
    env = dict(os.environ, PYTHONPATH=SRC, NUMBA_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, str(PROBE), *map(str, args)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("scene", ["snake", "falling_rod",
                                   pytest.param("manta", marks=pytest.mark.slow)])
def test_bit_identical_across_processes_threads_batches_and_restarts(scene, tmp_path):
    n = STEPS[scene]
    one = probe(1, scene, 3, 2 * n)
    assert len(set(one.values())) == 3                 # the worlds differ from each other
    assert probe(2, scene, 3, 2 * n) == one            # 2 threads (other lane packing)
    assert probe(1, scene, 1, 2 * n)["0"] == one["0"]  # a single world = world 0 of the batch
    probe(2, scene, 3, n, "--save", tmp_path / "half.npz")
    assert probe(1, scene, 3, n, "--load", tmp_path / "half.npz") == one   # restarted


@pytest.mark.slow
def test_a_campaign_gives_the_same_designs_across_processes_and_threads(tmp_path):
    """Two runs of the same campaign (seed 3, 4 x 3 generations) with 1 and 2 threads: the same
    samples, fitness and best design in the log (only the wall times differ)."""
    from kill_harness import LOG_FORMAT, OPTIMIZE, check_jsonl, generation_key

    text = (pathlib.Path(__file__).parents[2] / "examples" / "rod_pendulum.toml").read_text()
    (tmp_path / "opt.toml").write_text(text.replace("duration = 2.0", "duration = 0.02")
                                       + OPTIMIZE.replace("max_generations = 6",
                                                          "max_generations = 3"))
    logs = []
    for threads in (1, 2):
        env = dict(os.environ, PYTHONPATH=SRC, NUMBA_NUM_THREADS=str(threads),
                   OPENBLAS_NUM_THREADS=str(threads))
        out = subprocess.run([sys.executable, "-m", "softmech.cli", "optimize", "opt.toml",
                              "--output", f"t{threads}", "--quiet"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        records = check_jsonl(tmp_path / f"t{threads}" / "campaign.jsonl", LOG_FORMAT)
        logs.append([(generation_key(r), r["best_params"]) for r in records])
    assert len(logs[0]) == 3 and logs[0] == logs[1]


def test_an_evaluation_does_not_depend_on_the_ones_before():
    """A campaign evaluates its chunks on one cached simulation, reset to the initial state each
    time: the objectives of candidates A are the same before and after evaluating others (the
    kill test found rigid bodies were not reset -- a resumed campaign then differed)."""
    from kill_harness import OPTIMIZE

    from softmech.optimize.settings import study_of
    from softmech.scenefile import loads_scenario

    text = (pathlib.Path(__file__).parents[2] / "examples" / "rod_pendulum.toml").read_text()
    study = study_of(loads_scenario(text.replace("duration = 2.0", "duration = 0.02")
                                    + OPTIMIZE))
    a = np.array([[2e6, 1e-3], [5e6, 5e-3]])
    b = np.array([[2.5e7, 9e-3], [1.5e6, 2e-4]])
    first = study.evaluate(a)
    study.evaluate(b)
    again = study.evaluate(a)
    for name in first:
        np.testing.assert_array_equal(again[name], first[name], err_msg=name)
