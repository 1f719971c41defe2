"""An assembly from a scenario file to pictures: `softmech run examples/rod_pendulum.toml` writes
results.h5 with the rigid bodies and joints, com.png with every body, and a still and a video
that show the sphere and the cylinder; `softmech render` draws the same bodies from the file
as a run in memory gives."""
import argparse
import json
import os

import h5py
import numpy as np
import pytest

import softmech as sm
from softmech.commands import render, run
from softmech.scenefile import load_scenario
from softmech.viz import povray
from softmech.viz.geometry import PALETTE
from softmech.viz.solids import SolidBody
from softmech.viz.source import bodies_at, from_simulation, read_results

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "rod_pendulum.toml")


def parse(module, argv):
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return parser.parse_args(argv)


@pytest.fixture(scope="module")
def pendulum(tmp_path_factory):
    out = tmp_path_factory.mktemp("pendulum")
    args = parse(run, [EXAMPLE, "--duration", "0.2", "--output", str(out), "--quiet", "--json"])
    assert run.execute(args) == 0
    return out


def image(path):
    import imageio.v2 as imageio
    return np.asarray(imageio.imread(path))[..., :3].astype(int)


def hue(img, rgb):
    """Pixels of the colour `rgb` under any shading: chromaticity (the channels over their sum)
    within 0.04 of rgb's, and not grey."""
    chroma = img / np.maximum(img.sum(axis=-1, keepdims=True), 1)
    target = np.asarray(rgb) / np.sum(rgb)
    return (np.abs(chroma - target).max(axis=-1) < 0.04) & (np.ptp(img, axis=-1) > 30)


def test_run_writes_bodies_joints_plots_and_pictures(pendulum):
    names = sorted(os.listdir(pendulum))
    assert names == sorted(["results.h5", "energy.png", "com.png", "rod_pendulum_tubes.mp4",
                            "rod_pendulum_tubes_t0.200s.png"])
    with h5py.File(pendulum / "results.h5", "r") as f:
        assert sorted(f["bodies"]) == ["anchor", "bob"] and sorted(f["joints"]) == ["pivot", "weld"]
        assert f["bodies/bob"].attrs["shape"] == "cylinder"
        assert f["bodies/bob/directors"].shape[2:] == (1, 3, 3)
        assert f["joints/weld"].attrs["kind"] == "fixed"
    from softmech.viz.plots import rods_with
    assert set(rods_with(read_results(str(pendulum / "results.h5")).results, "com")) == \
        {"rod", "anchor", "bob"}                                  # com.png shows every body
    still = image(pendulum / "rod_pendulum_tubes_t0.200s.png")
    # the anchor (second colour) and the bob (third) are in the picture, the bob below it
    anchor, bob = hue(still, PALETTE[1]), hue(still, PALETTE[2])
    assert anchor.sum() > 500 and bob.sum() > 200
    assert np.nonzero(bob)[0].mean() > np.nonzero(anchor)[0].mean() + 100


def test_short_video_plays_in_slow_motion(pendulum):
    import imageio.v2 as imageio

    with imageio.get_reader(str(pendulum / "rod_pendulum_tubes.mp4"), format="FFMPEG") as r:
        frames = [frame for frame in r]
    assert len(frames) == 101              # 0.2 s over the shortest video, 4 s at 25 frames/s
    moved = np.abs(frames[0].astype(int) - frames[-1].astype(int)).sum(axis=2) > 60
    assert moved.sum() > 100                                     # the pendulum swings


def test_file_draws_the_bodies_of_the_run_in_memory(pendulum):
    data = read_results(str(pendulum / "results.h5"))
    scenario = load_scenario(EXAMPLE)
    sim = scenario.compile()
    out = sim.run(0.2, record=sm.Every(0.001, ("positions", "directors")))
    memory = from_simulation(sim, out)
    assert list(memory.solids) == list(data.solids) and memory.joints.keys() == data.joints.keys()
    for name in memory.joints:
        for side in ("a", "b"):
            a, b = memory.joints[name][side], data.joints[name][side]
            assert (a["body"], a["node"]) == (b["body"], b["node"])
            np.testing.assert_array_equal(a["point"], b["point"])
    file_bodies, memory_bodies = bodies_at(data, -1), bodies_at(memory, -1)
    assert [b.name for b in file_bodies] == [b.name for b in memory_bodies]
    for a, b in zip(file_bodies, memory_bodies):
        np.testing.assert_array_equal(a.mesh()[0], b.mesh()[0], err_msg=a.name)
    assert sum(isinstance(b, SolidBody) for b in file_bodies) == 4     # 2 bodies, 2 joints


def test_render_command_video_and_plots_of_an_assembly(pendulum, tmp_path, capsys):
    style = ["--style", "povray", "--quality", "4", "--antialias", "0"] \
        if povray.povray_available() else []
    args = parse(render, [str(pendulum / "results.h5"), "--output", str(tmp_path), "--video",
                          "--fps", "10", "--plots", "--plot", "bob.com", "--width", "160",
                          "--height", "96", "--json", "--quiet"] + style)
    assert render.execute(args) == 0
    files = [os.path.basename(f) for f in json.loads(capsys.readouterr().out)["files"]]
    assert set(files) >= {"energy.png", "com.png", "velocities.png", "bob_com.png"} or \
        set(files) >= {"energy.png", "com.png", "bob_com.png"}
    assert any(f.endswith((".mp4", ".gif")) for f in files)


def test_a_bare_record_field_is_recorded_for_rigid_bodies_too(tmp_path, capsys):
    text = open(EXAMPLE).read() + '\n[record]\nevery = 0.01\nfields = ["velocities"]\n'
    path = tmp_path / "pendulum.toml"
    path.write_text(text)
    args = parse(run, [str(path), "--duration", "0.02", "--output", str(tmp_path / "o"),
                       "--quiet", "--json"])
    assert run.execute(args) == 0
    with h5py.File(tmp_path / "o" / "results.h5", "r") as f:
        assert f["bodies/bob/velocities"].shape == (1, 3, 1, 3)
        assert f["rods/rod/velocities"].shape == (1, 3, 21, 3)
        assert f["bodies/anchor/velocities"][()].max() == 0.0        # fixed


def test_a_scene_of_rigid_bodies_only_runs_and_is_drawn(tmp_path, capsys):
    tables = open(EXAMPLE).read().split("\n[[")
    text = "\n[[".join(t for t in tables if not t.startswith(("rods]]", "joints]]", "damping]]")))
    path = tmp_path / "falling.toml"
    path.write_text(text.replace("fixed = true", "fixed = false"))
    args = parse(run, [str(path), "--duration", "0.1", "--output", str(tmp_path / "o"),
                       "--quiet", "--json"])
    assert run.execute(args) == 0
    names = {os.path.basename(f) for f in json.loads(capsys.readouterr().out)["files"]}
    assert {"com.png", "energy.png", "rod_pendulum_tubes.mp4"} <= names
    data = read_results(str(tmp_path / "o" / "results.h5"))
    z = data.results["anchor.com"][0, :, 2]
    assert z[-1] == pytest.approx(0.05 - 0.5 * 9.81 * 0.1**2, rel=1e-3)     # free fall
    assert [b.name for b in bodies_at(data, -1)] == ["anchor", "bob"]


def test_softmech_run_resume_of_an_assembly_is_bit_for_bit(tmp_path, capsys, monkeypatch):
    from softmech.resultsfile import ResultsWriter

    argv = [EXAMPLE, "--duration", "0.2", "--checkpoint-every", "0.05", "--quiet", "--json"]
    write_checkpoint, calls = ResultsWriter.write_checkpoint, []

    def interrupted(self, sim, n_samples):         # Ctrl-C when the third checkpoint is due
        calls.append(n_samples)
        if len(calls) == 3:
            raise KeyboardInterrupt
        write_checkpoint(self, sim, n_samples)

    monkeypatch.setattr(ResultsWriter, "write_checkpoint", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run.execute(parse(run, argv + ["--output", str(tmp_path)]))
    monkeypatch.undo()
    with h5py.File(tmp_path / "results.h5", "r") as f:
        assert not f.attrs["complete"] and "bob" in f["checkpoint"]
    assert run.execute(parse(run, argv + ["--output", str(tmp_path), "--resume"])) == 0
    reference = tmp_path / "reference"
    assert run.execute(parse(run, argv + ["--output", str(reference)])) == 0
    with h5py.File(reference / "results.h5", "r") as a, h5py.File(tmp_path / "results.h5", "r") as b:
        names = []
        a.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None)
        assert "bodies/bob/directors" in names and "checkpoint/bob/directors" in names
        for name in names:
            if name != "settings_json":                 # its command line names another folder
                np.testing.assert_array_equal(a[name][()], b[name][()], err_msg=name)


def test_viewer_draws_every_body_and_joint(pendulum):
    """softmech view of the assembly: the rod, both rigid bodies and both joints are traces, at
    the same places as bodies_at puts them; the rod is coloured by curvature."""
    from softmech.viz.viewer import view_figure

    data = read_results(os.path.join(pendulum, "results.h5"))
    fig, _ = view_figure(data, field="curvature", fps=1000)
    traces = {t.hovertext: t for t in fig.data if t.type == "mesh3d"}   # named on hover
    shown = bodies_at(data, len(data.time) - 1)
    assert set(traces) == {b.name for b in shown}          # rod, anchor, bob, 2 joint markers
    assert traces["rod"].showscale and traces["bob"].intensity is None
    last = fig.frames[-1].data
    names = [t.hovertext for t in fig.data if t.type == "mesh3d"]
    for body in shown:
        centre = np.mean(body.mesh(12)[0], axis=0)
        trace = last[names.index(body.name)]
        assert np.allclose([np.mean(trace.x), np.mean(trace.y), np.mean(trace.z)], centre,
                           atol=1e-5), body.name
