"""Campaigns and sweeps on a real local Ray cluster (ray.cluster_utils.Cluster: a head node on
loopback with no CPUs for tasks, and two worker nodes of one CPU each), started inside the test
run and shut down by the fixture's finalizer.

Checked: a campaign run on Ray equals the same campaign run locally, bit for bit (log entry for
entry, best candidate, journal values), also when a worker process is killed while it evaluates
a chunk (Ray runs the chunk again; one chunk's objective marks the victim and waits to be
killed, see Victim); a campaign resumed on Ray after its driver stopped continues the local
log without evaluating a logged generation again; a campaign whose workers are killed during
4 evaluations drawn at random (seeded) equals the local one; a driver process killed with
SIGKILL in the middle of a generation resumes without simulating any journalled chunk again; a sweep on Ray
writes the local sweep's table. Marked slow: the cluster brings its own processes (about 25 s
on 2 cores with warm kernel caches), so it runs in its own CI step, not beside the 2-worker
default run.
"""
import json
import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

# Everything on loopback: without this Ray resolves 127.0.0.1 to the machine's address when
# the driver connects (ray._private.services.resolve_ip_for_localhost; read when ray is
# imported) and never finds the head. The nodes started by the fixture inherit it.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray")

from softmech.optimize.executors import RayExecutor                    # noqa: E402
from softmech.optimize.runs import optimize_study                      # noqa: E402
from softmech.optimize.sweep import parse_param, plan_sweep, run_sweep  # noqa: E402
from softmech.scenefile import builtin_scenario                        # noqa: E402

pytestmark = pytest.mark.slow

DT = 8.15564825995739e-05


class Victim:
    """Objective callable(sim) -> lateral centre-of-mass position (B,). Once `arm` exists, the
    first chunk that gets here writes its process id to `pid` and waits (to be killed, or until
    `release` exists); every other call (and the retried chunk) returns at once. Deterministic
    values either way."""

    def __init__(self, folder):
        self.arm, self.pid = os.path.join(folder, "arm"), os.path.join(folder, "pid")
        self.release = os.path.join(folder, "release")

    def __call__(self, sim):
        if os.path.exists(self.arm):
            try:
                fd = os.open(self.pid, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                for _ in range(600):
                    if os.path.exists(self.release):
                        break
                    time.sleep(0.1)
        return sim.diagnostics("snake")["com"][:, 1]


class PidLog:
    """Objective callable(sim) -> lateral centre-of-mass position (B,) that appends the id of
    the worker process evaluating it to `pids` (the killer's targets) and, once `arm` exists,
    then waits 0.5 s (a window for the kill, inside the evaluation)."""

    def __init__(self, folder):
        self.pids, self.arm = os.path.join(folder, "pids"), os.path.join(folder, "arm")

    def __call__(self, sim):
        with open(self.pids, "a") as f:
            f.write(f"{os.getpid()}\n")
        if os.path.exists(self.arm):
            time.sleep(0.5)
        return sim.diagnostics("snake")["com"][:, 1]


@pytest.fixture(scope="module")
def cluster():
    from ray import cloudpickle
    from ray.cluster_utils import Cluster

    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # Victim travels by value
    small = dict(object_store_memory=80 * 1024**2, include_dashboard=False)
    c = Cluster(initialize_head=True, connect=False,
                head_node_args=dict(num_cpus=0, node_ip_address="127.0.0.1", **small))
    try:
        for _ in range(2):
            c.add_node(num_cpus=1, node_ip_address="127.0.0.1",
                       object_store_memory=80 * 1024**2)
        c.wait_for_nodes()
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        c.shutdown()


def scenario(folder, generations=3, lateral=Victim):
    s = builtin_scenario("snake", n_elems=10, dt=DT)
    s.optimize = {
        "popsize": 6, "seed": 2, "max_generations": generations, "chunk": 2,
        "parameters": [{"path": "muscle.coefficients[1:5]", "lower": -50.0, "upper": 50.0},
                       {"path": "rods.snake.youngs_modulus", "lower": 1e6, "upper": 1e8,
                        "log": True}],
        "objectives": {"speed": {"quantity": "com_speed", "window": [0.25, 0.5]},
                       "lateral": lateral(str(folder))},
        "objective": "speed"}
    return s


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def strip_wall(lines):
    return [{k: v for k, v in r.items() if k != "wall_s"} for r in lines]


def chunks(path):
    return sorted((json.dumps(r["params"]), json.dumps(r["values"])) for r in records(path)[1:])


def test_campaign_on_ray_with_a_killed_worker_equals_the_local_one(cluster, tmp_path):
    local = optimize_study(scenario(tmp_path / "local"), tmp_path / "local")
    executor = RayExecutor(cluster.address)
    try:
        folder = tmp_path / "ray"
        folder.mkdir()
        killed = {}

        (folder / "arm").touch()              # the first chunk to finish its run is the victim

        def kill_the_victim():
            deadline = time.monotonic() + 120
            while not (folder / "pid").exists() or not (folder / "pid").read_text():
                if time.monotonic() > deadline:
                    return                        # the assertion below reports it
                time.sleep(0.05)
            killed["pid"] = int((folder / "pid").read_text())
            os.kill(killed["pid"], signal.SIGKILL)

        killer = threading.Thread(target=kill_the_victim, daemon=True)
        killer.start()
        remote = optimize_study(scenario(folder), folder, executor=executor)
        killer.join(timeout=5)
        assert not killer.is_alive()
        assert killed.get("pid") not in (None, os.getpid())
        assert remote["best_params"] == local["best_params"]
        assert remote["best_objectives"] == local["best_objectives"]
        assert strip_wall(records(folder / "campaign.jsonl"))[1:] == \
            strip_wall(records(tmp_path / "local" / "campaign.jsonl"))[1:]
        # every chunk of the three generations is in the journal exactly once, as locally
        assert chunks(folder / "evaluations.jsonl") == chunks(tmp_path / "local" /
                                                              "evaluations.jsonl")
        assert len(chunks(folder / "evaluations.jsonl")) == 3 * 3

        # the driver stopped after 3 generations; resumed on Ray to 4: only generation 4 runs
        (folder / "arm").unlink()
        more = optimize_study(scenario(folder, 4), folder, executor=executor, resume=True)
        again = optimize_study(scenario(tmp_path / "local", 4), tmp_path / "local", resume=True)
        assert more["resumed_generations"] == 3 and more["generations"] == 4
        assert len(chunks(folder / "evaluations.jsonl")) == 4 * 3
        assert more["best_params"] == again["best_params"]
        assert strip_wall(records(folder / "campaign.jsonl"))[1:] == \
            strip_wall(records(tmp_path / "local" / "campaign.jsonl"))[1:]
    finally:
        executor.close()


def test_sweep_on_ray_equals_the_local_sweep(cluster, tmp_path):
    import pyarrow.parquet as pq

    specs = [parse_param("muscle.wavelength=0.5:1.5:3"),
             parse_param("rods.snake.youngs_modulus=1e6:1e8:3:log")]
    run_sweep(plan_sweep(scenario(tmp_path / "a"), specs, tmp_path / "a", chunk=2))
    executor = RayExecutor(cluster.address)
    try:
        summary = run_sweep(plan_sweep(scenario(tmp_path / "b"), specs, tmp_path / "b", chunk=2),
                            executor=executor)
    finally:
        executor.close()
    assert summary["runs"] == 9
    a = pq.read_table(tmp_path / "a" / "sweep.parquet").to_pydict()
    b = pq.read_table(tmp_path / "b" / "sweep.parquet").to_pydict()
    assert a == b and np.all(np.isfinite(a["speed"]))
    assert (tmp_path / "a" / "sweep.csv").read_text() == (tmp_path / "b" / "sweep.csv").read_text()


DRIVER = """
import os, sys
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
sys.path.insert(0, {tests!r})
import ray.cloudpickle
import test_ray
from softmech.optimize.executors import RayExecutor
from softmech.optimize.runs import optimize_study
ray.cloudpickle.register_pickle_by_value(test_ray)
optimize_study(test_ray.scenario({folder!r}), {folder!r}, executor=RayExecutor({address!r}))
"""


def test_killed_driver_resumes_without_re_running_finished_chunks(cluster, tmp_path):
    """The driver (a separate process) is killed with SIGKILL while one chunk of generation 1
    hangs on a worker and the other two are journalled; the resumed campaign simulates only the
    missing chunk of generation 1, then generations 2 and 3, and equals the local campaign."""
    import subprocess

    local = optimize_study(scenario(tmp_path / "local"), tmp_path / "local")
    folder = tmp_path / "ray"
    folder.mkdir()
    (folder / "arm").touch()
    script = tmp_path / "driver.py"
    script.write_text(DRIVER.format(tests=os.path.dirname(__file__), folder=str(folder),
                                    address=cluster.address))
    driver = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        journal = folder / "evaluations.jsonl"
        deadline = time.monotonic() + 120
        while not (journal.exists() and len(journal.read_text().splitlines()) >= 3):
            assert driver.poll() is None and time.monotonic() < deadline, "driver ended early"
            time.sleep(0.05)                     # header + the two chunks that did not hang
    finally:
        driver.kill()
        driver.wait()
    (folder / "release").touch()                 # let the hung chunk's worker go
    assert len(journal.read_text().splitlines()) == 3
    assert not (folder / "campaign.jsonl").exists() or \
        len((folder / "campaign.jsonl").read_text().splitlines()) == 1   # no generation logged
    executor = RayExecutor(cluster.address)
    try:
        resumed = optimize_study(scenario(folder), folder, executor=executor, resume=True)
    finally:
        executor.close()
    # 2 journalled chunks kept, 1 + 3 + 3 simulated: every chunk exactly once
    assert len(records(journal)) == 1 + 9
    assert chunks(journal) == chunks(tmp_path / "local" / "evaluations.jsonl")
    assert resumed["best_params"] == local["best_params"]
    assert strip_wall(records(folder / "campaign.jsonl"))[1:] == \
        strip_wall(records(tmp_path / "local" / "campaign.jsonl"))[1:]


def test_campaign_on_ray_with_workers_killed_at_random_moments(cluster, tmp_path):
    """A killer thread sends SIGKILL to the Ray workers of 4 evaluations drawn at random (seeded)
    among the first 12 chunk evaluations of a 5-generation campaign (15 chunks), each at a random
    moment 0-0.4 s into its objective's 0.5 s wait. Ray runs a killed chunk again (up to
    RAY_RETRIES = 5 times); the campaign equals the local one bit for bit, every chunk in the
    journal once."""
    import random

    local = optimize_study(scenario(tmp_path / "local", 5, PidLog), tmp_path / "local")
    folder = tmp_path / "ray"
    folder.mkdir()
    (folder / "arm").touch()
    rng, done, killed = random.Random(16), threading.Event(), []
    targets = sorted(rng.sample(range(1, 13), 4))       # which evaluations (1-based) to kill

    def killer():
        for target in targets:
            lines = []
            while len(lines) < target:
                if done.wait(0.02):
                    return
                lines = (folder / "pids").read_text().split() if (folder / "pids").exists() \
                    else []
            time.sleep(rng.uniform(0.0, 0.4))
            pid = int(lines[target - 1])
            if pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass                          # already gone: the assertion below says so

    executor = RayExecutor(cluster.address)
    thread = threading.Thread(target=killer, daemon=True)
    try:
        thread.start()
        remote = optimize_study(scenario(folder, 5, PidLog), folder, executor=executor)
    finally:
        done.set()
        thread.join(timeout=5)
        executor.close()
    assert len(killed) == 4, killed
    evaluations = len((folder / "pids").read_text().split())
    print(f"Ray workers killed: 4; chunk evaluations {evaluations} (15 + re-runs)")
    assert evaluations > 15                       # Ray ran killed chunks again
    assert remote["best_params"] == local["best_params"]
    assert strip_wall(records(folder / "campaign.jsonl"))[1:] == \
        strip_wall(records(tmp_path / "local" / "campaign.jsonl"))[1:]
    assert chunks(folder / "evaluations.jsonl") == chunks(tmp_path / "local" /
                                                          "evaluations.jsonl")
