"""A results file torn by a kill in the middle of an HDF5 write (what the kill test found, see
test_kill_safety.py) is recovered by resume from its checkpoint copy (resultsfile.snapshot), bit
for bit; without a copy (killed before the first checkpoint) resume says there is nothing to
resume; `softmech info` names the copy. The tear is made on purpose here: the file is cut in half
or has its bytes flipped after the interrupted run."""
import os

import h5py
import numpy as np
import pytest

import softmech as sm
from softmech.cli import main
from softmech.resultsfile import record_to_file, snapshot
from softmech.scenarios.snake import build_snake

DT = 1e-4
RUN = dict(duration=0.03, every=0.002, fields=("com", "positions"), checkpoint_every=0.01,
           flush_seconds=0.0, scene_name="snake")


def snake():
    scene, _ = build_snake(5, dt=DT)
    return scene.compile(dt=DT)


def series(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][()] for k in ("time", "rods/snake/com", "rods/snake/positions")}


class Interrupt(Exception):
    pass


def interrupted(path, at):
    """Run until the recorder raises at sample `at` (a crash after the checkpoint at 0.02 s)."""
    count = [0]

    def stop(sim):
        count[0] += 1
        if count[0] == at:
            raise Interrupt
        return np.zeros(sim.worlds)

    with pytest.raises(Interrupt):
        record_to_file(snake(), path, recorders=[sm.Recorder("stop", stop)], **RUN)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("ref") / "ref.h5"
    record_to_file(snake(), path, recorders=[sm.Recorder("stop", lambda s: np.zeros(s.worlds))],
                   **RUN)
    assert not os.path.exists(snapshot.snapshot_path(path))       # removed when finished
    return series(path)


@pytest.mark.parametrize("tear", ["half", "flipped"])
def test_a_torn_file_resumes_from_its_checkpoint_copy(reference, tmp_path, tear, capsys):
    path = tmp_path / "results.h5"
    interrupted(path, at=14)                       # after the checkpoint of sample 10
    copy = snapshot.snapshot_path(path)
    assert os.path.exists(copy) and snapshot.reads_back(copy)
    data = bytearray(path.read_bytes())
    if tear == "half":
        data = data[:len(data) // 2]
    else:
        for i in range(len(data) // 2, len(data), 101):
            data[i] ^= 0xFF
    path.write_bytes(bytes(data))
    assert not snapshot.reads_back(path)
    assert main(["info", str(path)]) == 2
    assert "results.h5.checkpoint" in capsys.readouterr().err      # the error names the copy
    record_to_file(snake(), path, recorders=[sm.Recorder("stop", lambda s: np.zeros(s.worlds))],
                   resume=True, **RUN)
    got = series(path)
    for key in reference:
        np.testing.assert_array_equal(got[key], reference[key], err_msg=key)
    assert not os.path.exists(copy)


def test_torn_before_any_checkpoint_copy_is_nothing_to_resume(tmp_path):
    path = tmp_path / "results.h5"
    interrupted(path, at=14)
    os.remove(snapshot.snapshot_path(path))
    path.write_bytes(path.read_bytes()[:3000])
    with pytest.raises(ValueError, match="damaged .* no checkpoint copy: nothing to resume"):
        record_to_file(snake(), path, resume=True, **RUN)
