"""HDF5 results files (softmech.resultsfile): the documented layout, incremental writes readable
with plain h5py, resume bit for bit (in-process and after a real SIGKILL), user recorders, the
ground-contact force field, and bad input."""
import json
import os
import signal
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import softmech as sm
from softmech.resultsfile import ResultsWriter, describe, layout, load_results, record_to_file
from softmech.scenarios.snake import build_snake

DT = 1e-4
FIELDS = ("snake.positions", "snake.directors", "snake.com", "snake.total_energy",
          "snake.contact_force")
RUN = dict(duration=0.1, every=0.005, fields=FIELDS, checkpoint_every=0.02)


def snake(worlds=2):
    scene, info = build_snake(6, worlds=worlds, dt=DT)
    return scene.compile(worlds=worlds, dt=DT)


def head_height(sim):
    return sim.get_state("snake")["positions"][:, -1, 2]


def datasets(path):
    """Every dataset of a file: path -> array (strings as bytes)."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()])
                     if isinstance(obj, h5py.Dataset) else None)
    return out


def assert_same_datasets(a, b):
    da, db = datasets(a), datasets(b)
    assert sorted(da) == sorted(db)
    for name in da:
        if isinstance(da[name], np.ndarray):
            assert da[name].dtype == db[name].dtype, name
            np.testing.assert_array_equal(da[name], db[name], err_msg=name)
        else:
            assert da[name] == db[name], name


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run (2 worlds, a recorder), and its in-memory sim.run counterpart."""
    path = tmp_path_factory.mktemp("ref") / "ref.h5"
    out = record_to_file(snake(), path, recorders=[sm.Recorder("head_z", head_height, "m")],
                         scene_text="[scene]\nname = 'snake'\n", scene_name="snake",
                         settings={"command_line": "test"}, **RUN)
    plain = snake().run(RUN["duration"], record=sm.Every(RUN["every"], FIELDS))
    return path, out, plain


def test_layout_attributes_and_units(reference):
    path, out, _ = reference
    with h5py.File(path, "r") as f:        # plain h5py, no softmech
        a = f.attrs
        assert a["format"] == "softmech-results" and a["format_version"] == 2
        assert a["softmech_version"] == sm.__version__ and a["scene"] == "snake"
        assert bool(a["complete"]) and a["worlds"] == 2 and a["dt"] == DT
        assert a["duration"] == RUN["duration"] and a["scheme"] == snake().scheme
        assert f["scene_toml"][()].decode() == "[scene]\nname = 'snake'\n"
        settings = json.loads(f["settings_json"][()])
        assert settings["fields"] == list(FIELDS) and settings["recorders"] == ["head_z"]
        assert settings["record_interval"] == pytest.approx(RUN["every"])
        assert settings["command_line"] == "test"
        n = f["time"].shape[0]
        assert n == 21 and f["time"].maxshape == (None,)
        rod = f["rods/snake"]
        assert (rod.attrs["n_nodes"], rod.attrs["n_elems"], bool(rod.attrs["closed"])) == (7, 6, False)
        assert rod["radius"].shape == (2, 6) and rod["rest_lengths"].shape == (6,)
        expect = {"positions": (2, n, 7, 3), "directors": (2, n, 6, 3, 3), "com": (2, n, 3),
                  "total_energy": (2, n), "contact_force": (2, n, 7, 3)}
        for field, shape in expect.items():
            ds = rod[field]
            assert ds.shape == shape and ds.maxshape[1] is None and ds.compression == "gzip"
            assert ds.chunks is not None and ds.attrs["units"] == layout.UNITS[field]
        assert f["recorders/head_z"].shape == (2, n) and f["recorders/head_z"].attrs["units"] == "m"
        ckpt = f["checkpoint"]
        assert ckpt.attrs["n_samples"] == n and ckpt["snake/directors"].shape == (2, 6, 3, 3)


def test_file_holds_exactly_the_samples_of_sim_run(reference):
    path, out, plain = reference
    back = load_results(path)
    assert back.rods == ("snake",)
    np.testing.assert_array_equal(back["time"], plain["time"])
    for key in FIELDS:
        np.testing.assert_array_equal(back[key], plain[key])
        np.testing.assert_array_equal(out[key], plain[key])
    np.testing.assert_array_equal(back["head_z"], plain["snake.positions"][:, :, -1, 2])


def test_resume_in_process_is_bit_for_bit(reference, tmp_path):
    path = tmp_path / "r.h5"
    calls = []

    def interrupted_head_z(sim):      # Ctrl-C while taking sample 10 (0.05 s)
        calls.append(sim.time)
        if len(calls) == 11:
            raise KeyboardInterrupt
        return head_height(sim)

    kwargs = dict(RUN, scene_text="[scene]\nname = 'snake'\n", scene_name="snake")
    with pytest.raises(KeyboardInterrupt):
        record_to_file(snake(), path, recorders=[sm.Recorder("head_z", interrupted_head_z, "m")],
                       settings={"command_line": "test"}, flush_seconds=0.0, **kwargs)
    with h5py.File(path, "r") as f:      # samples 0-9 kept, checkpoint at sample 8 (0.04 s)
        assert len(f["time"]) == 10 and f["checkpoint"].attrs["n_samples"] == 9
    # the command line may differ (the stored one stays the first run's)
    record_to_file(snake(), path, recorders=[sm.Recorder("head_z", head_height, "m")],
                   settings={"command_line": "resumed"}, resume=True, **kwargs)
    assert_same_datasets(path, reference[0])


def test_plain_h5py_example_of_the_docs(reference):
    # the example of docs/results_files.md
    with h5py.File(reference[0], "r") as f:
        time = f["time"][:]                          # (n,) [s]
        x = f["rods/snake/positions"][0]             # world 0: (n, n_nodes, 3) [m]
    assert x.shape == (len(time), 7, 3) and time[-1] == pytest.approx(0.1)


def test_describe_lists_every_dataset(reference):
    d = describe(reference[0])
    assert d["attrs"]["complete"] is True and d["n_samples"] == 21
    assert d["time_range"] == [0.0, pytest.approx(0.1)]
    assert d["datasets"]["/rods/snake/positions"] == {"shape": [2, 21, 7, 3], "dtype": "float64",
                                                      "units": "m"}
    assert d["settings"]["checkpoint_samples"] == 4
    json.dumps(d)                                    # JSON-ready


KILLED_RUN = textwrap.dedent("""
    import sys, time
    import softmech as sm
    from softmech.scenarios.snake import build_snake
    path, stop_at = sys.argv[1], int(sys.argv[2])
    scene, _ = build_snake(6, worlds=2, dt={dt})
    sim = scene.compile(worlds=2, dt={dt})
    count = [0]
    def head_z(sim):
        count[0] += 1
        if count[0] == stop_at:            # sample stop_at - 1 is being taken: wait to be killed
            print("READY", flush=True)
            time.sleep(600)
        return sim.get_state("snake")["positions"][:, -1, 2]
    sm.record_to_file(sim, path, recorders=[sm.Recorder("head_z", head_z, "m")],
                      scene_text="[scene]\\nname = 'snake'\\n", scene_name="snake",
                      settings={{"command_line": "test"}}, flush_seconds=0.0, **{run!r})
""").format(dt=DT, run=RUN)


def test_kill_9_keeps_the_flushed_samples_and_resumes_bit_for_bit(reference, tmp_path):
    path = tmp_path / "killed.h5"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(path), "15"],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        ready = proc.stdout.readline().strip()
        if ready == "READY":
            os.kill(proc.pid, signal.SIGKILL)       # kill -9 while it takes sample 14
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
        proc.stdout.close()
    assert ready == "READY" and proc.returncode == -signal.SIGKILL
    ref = load_results(reference[0])
    with h5py.File(path, "r") as f:              # opens in plain h5py after the kill
        assert not bool(f.attrs["complete"])
        n = f["time"].shape[0]
        assert n == 14                           # flush_seconds = 0: every sample before the kill
        np.testing.assert_array_equal(f["time"][:], ref["time"][:n])
        np.testing.assert_array_equal(f["rods/snake/positions"][:], ref["snake.positions"][:, :n])
        assert f["checkpoint"].attrs["n_samples"] == 13       # sample 12 = 0.06 s
    rec = [sm.Recorder("head_z", head_height, "m")]
    out = record_to_file(snake(), path, resume=True, recorders=rec, scene_name="snake",
                         scene_text="[scene]\nname = 'snake'\n", settings={"command_line": "test"},
                         **RUN)
    assert_same_datasets(path, reference[0])
    np.testing.assert_array_equal(out["snake.com"], ref["snake.com"])


def test_resume_refuses_other_settings_complete_files_and_missing_files(reference, tmp_path):
    with pytest.raises(ValueError, match="complete, there is nothing to resume"):
        record_to_file(snake(), reference[0], resume=True, **RUN)
    with pytest.raises(ValueError, match="no such file"):
        record_to_file(snake(), tmp_path / "none.h5", resume=True, **RUN)
    path = tmp_path / "x.h5"
    record_to_file(snake(), path, **dict(RUN, duration=0.01))
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = False
    with pytest.raises(ValueError, match="setting 'duration' was 0.01 .*now 0.1"):
        record_to_file(snake(), path, resume=True, **RUN)
    # another scene (its scenario text differs) is not continued either
    with pytest.raises(ValueError, match="setting 'scene_sha256'"):
        record_to_file(snake(), path, resume=True, scene_text="[scene]\nname = 'other'\n",
                       **dict(RUN, duration=0.01))


def test_bad_files_and_arguments(tmp_path):
    text = tmp_path / "a.h5"
    text.write_text("not hdf5")
    with pytest.raises(ValueError, match="not an HDF5 file"):
        load_results(text)
    other = tmp_path / "b.h5"
    with h5py.File(other, "w") as f:
        f["x"] = 1.0
    with pytest.raises(ValueError, match="not a softmech results file"):
        describe(other)
    sim = snake(1)
    with pytest.raises(ValueError, match="every"):
        record_to_file(sim, tmp_path / "c.h5", duration=0.01, every=0.0)
    with pytest.raises(ValueError, match="checkpoint_every"):
        record_to_file(sim, tmp_path / "c.h5", duration=0.01, every=0.01, checkpoint_every=-1)
    with pytest.raises(ValueError, match="settings key 'dt'"):
        record_to_file(sim, tmp_path / "c.h5", duration=0.01, every=0.01, settings={"dt": 1})
    with pytest.raises(ValueError, match="must be a Simulation"):
        record_to_file("sim", tmp_path / "c.h5", duration=0.01, every=0.01)
    with pytest.raises(ValueError, match=r"fields = 'com' is not allowed: must be a tuple"):
        record_to_file(sim, tmp_path / "c.h5", duration=0.01, every=0.01, fields="com")
    with pytest.raises(ValueError, match="Every.fields"):
        record_to_file(sim, tmp_path / "c.h5", duration=0.01, every=0.01, fields=("nope",))
    assert not (tmp_path / "c.h5").exists()      # bad input: nothing written


def test_recorder_validation(tmp_path):
    with pytest.raises(ValueError, match="Recorder.name"):
        sm.Recorder("2x", head_height)
    with pytest.raises(ValueError, match="built-in field"):
        sm.Recorder("com", head_height)
    with pytest.raises(ValueError, match="callable"):
        sm.Recorder("h", 3.0)
    with pytest.raises(ValueError, match="used twice"):
        record_to_file(snake(1), tmp_path / "a.h5", duration=0.01, every=0.01,
                       recorders=[sm.Recorder("h", head_height)] * 2)
    with pytest.raises(ValueError, match=r"Recorder 'h' returned shape \(\): must be \(B, ...\)"):
        record_to_file(snake(1), tmp_path / "a.h5", duration=0.01, every=0.01,
                       recorders=[sm.Recorder("h", lambda sim: 1.0)])


def test_interrupted_run_keeps_its_samples(tmp_path):
    # an exception in the loop (here from a recorder at sample 5) still appends what was taken
    path = tmp_path / "a.h5"
    calls = []

    def fails_late(sim):
        calls.append(sim.time)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return head_height(sim)

    with pytest.raises(KeyboardInterrupt):
        record_to_file(snake(1), path, duration=0.05, every=0.005, flush_seconds=100.0,
                       recorders=[sm.Recorder("h", fails_late)])
    back = load_results(path)
    assert len(back["time"]) == 5 and back["h"].shape == (1, 5)
    assert describe(path)["attrs"]["complete"] is False


def test_checkpoint_kept_when_killed_between_delete_and_rename(reference, tmp_path):
    path = tmp_path / "a.h5"
    with h5py.File(reference[0], "r") as src, h5py.File(path, "w") as dst:
        for k in src:
            src.copy(k, dst)
        dst.attrs.update(src.attrs)
        dst.move("checkpoint", "checkpoint_tmp")
        dst.attrs["complete"] = False
    with ResultsWriter.reopen(path) as w:
        assert w.checkpoint_group().attrs["n_samples"] == 21


# --------------------------------------------------------------------------- contact force
def resting_rod(worlds=1, friction=True):
    """A straight rod lying on the ground (centreline at height r) under gravity."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0.02), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=0.5, n_elems=8, radius=0.02,
                                 density=1000.0, youngs_modulus=1e6, shear_modulus=1e6 / 3)
    scene.add(sm.Gravity((0, 0, -9.81)))
    scene.add(sm.LinearDamping(rod, 0.5))
    kw = dict(friction=sm.IsotropicFriction(0.5)) if friction else {}
    scene.add(sm.GroundContact(rod, stiffness=1e3, damping=1.0, **kw))
    return scene.compile(worlds=worlds, dt=1e-4)


def test_contact_force_carries_the_weight_of_a_resting_rod():
    sim = resting_rod()
    weight = 1000.0 * np.pi * 0.02**2 * 0.5 * 9.81          # m g [N]
    out = sim.run(0.2, record=sm.Every(0.1, ("contact_force", "positions")))
    f = out["rod.contact_force"]                             # (1, 3, 9, 3) [N]
    assert f.shape == (1, 3, 9, 3)
    # the wall response balances gravity exactly at rest (force balance, Gazzola eq. 4.8);
    # after 0.2 s the rod still rests: the total is m g to 1e-6 (round-off and tiny motion)
    np.testing.assert_allclose(f[0, :, :, 2].sum(axis=1), weight, rtol=1e-6)
    np.testing.assert_allclose(f[0, :, :, :2], 0.0, atol=1e-9 * weight)
    # each element carries its own weight, half on each node: m g (1/2, 1, ..., 1, 1/2) / 8
    share = np.r_[0.5, np.ones(7), 0.5] / 8
    np.testing.assert_allclose(f[0, 0, :, 2], weight * share, rtol=1e-9)


def test_contact_force_includes_the_wall_stiffness():
    # pressed depth d into the ground: the wall adds k d per element (Gazzola eq. 4.8) to m g
    sim, depth = resting_rod(), 1e-4
    x = sim.get_state("rod")["positions"]
    x[..., 2] -= depth
    sim.set_state("rod", positions=x)
    weight = 1000.0 * np.pi * 0.02**2 * 0.5 * 9.81
    total = sim.contact_forces("rod")[0].sum(axis=0)
    assert total[2] == pytest.approx(weight + 8 * 1e3 * depth, rel=1e-9)


def test_contact_force_friction_opposes_sliding():
    sim = resting_rod()
    sim.set_state("rod", velocities=np.tile([0.3, 0.0, 0.0], (9, 1)))   # sliding along +x
    f = sim.contact_forces("rod")[0]
    # kinetic friction mu N against the motion (isotropic mu = 0.5, fully slipping)
    assert f[:, 0].sum() == pytest.approx(-0.5 * f[:, 2].sum(), rel=1e-6)


def test_recording_contact_force_does_not_change_the_run():
    a, b = resting_rod(2), resting_rod(2)
    for s in (a, b):
        s.set_state("rod", velocities=np.tile([0.3, 0.1, 0.0], (9, 1)))
    ra = a.run(0.05, record=sm.Every(0.01, ("positions", "contact_force")))
    rb = b.run(0.05, record=sm.Every(0.01, ("positions",)))
    np.testing.assert_array_equal(ra["rod.positions"], rb["rod.positions"])


def test_clock_property():
    sim = snake(1)
    sim.run(0.003)
    origin, steps = sim.clock
    assert (origin, steps) == (0.0, 30)
    other = snake(1)
    other.clock = (origin, steps)
    assert other.time == sim.time
    with pytest.raises(ValueError, match="clock steps"):
        other.clock = (0.0, -1)


def test_two_rods_and_zero_duration(tmp_path):
    # a field without a rod prefix is recorded for every rod; duration 0 gives the first sample
    scene = sm.Scene()
    for name, y in (("left", 0.0), ("right", 1.0)):
        scene.add_cosserat_rod(name=name, start=(0, y, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                               length=0.5, n_elems=3 + int(y), radius=0.02, density=1000.0,
                               youngs_modulus=1e6)
    path = tmp_path / "two.h5"
    out = record_to_file(scene.compile(dt=1e-4), path, duration=0.0, every=0.01,
                         fields=("com", "right.positions"))
    assert out.rods == ("left", "right") and out["time"].tolist() == [0.0]
    with h5py.File(path, "r") as f:
        assert sorted(f["rods"]) == ["left", "right"] and bool(f.attrs["complete"])
        assert f["rods/left/com"].shape == f["rods/right/com"].shape == (1, 1, 3)
        assert "positions" not in f["rods/left"] and f["rods/right/positions"].shape == (1, 1, 5, 3)
        np.testing.assert_allclose(f["rods/right/com"][0, 0], [0.25, 1.0, 0.0], atol=1e-12)
        assert f["rods/right/rest_lengths"].shape == (4,)


def test_a_copy_of_a_checked_file_is_not_checked_again_but_a_changed_one_is(reference, tmp_path,
                                                                             monkeypatch):
    """Soundness is a property of a file's bytes: `softmech run` adds its report's values to an
    atomic copy of the file it just read, and a wing's layout check takes ~21 s, so a byte-equal
    copy reuses the check (reader._CHECKED), while a copy with one attribute changed is checked
    (and refused here: its dt is not a number)."""
    from softmech.resultsfile import reader

    calls = []
    real = reader.check_layout
    monkeypatch.setattr(reader, "check_layout", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    path = reference[0]
    load_results(path)
    copy, changed = tmp_path / "copy.h5", tmp_path / "changed.h5"
    copy.write_bytes(path.read_bytes())
    changed.write_bytes(path.read_bytes())
    checks = len(calls)
    np.testing.assert_array_equal(load_results(copy)["time"], load_results(path)["time"])
    assert len(calls) == checks                             # the copy: no second check
    with h5py.File(changed, "r+") as f:
        f.attrs["dt"] = "abc"
    with pytest.raises(ValueError, match=r"dt"):
        load_results(changed)
    assert calls[-1] == str(changed)
