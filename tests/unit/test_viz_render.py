"""`softmech render` on a small HDF5 results file written here with plain h5py (layout
format_version 1) from a real short snake run; the HDF5 reader and the generic plots."""
import argparse
import json
import os

import h5py
import numpy as np
import pytest

from softmech.commands import render
from softmech.viz import plots, povray
from softmech.viz.source import (bodies_at, frame_samples, from_results, ground_height,
                                 nearest_sample, read_results)
from viz_fixture import simulate_snake, write_h5


@pytest.fixture(scope="module")
def run():
    return simulate_snake(worlds=2, n_elems=8, duration=0.2, every=0.02)


@pytest.fixture(scope="module")
def h5(run, tmp_path_factory):
    return write_h5(str(tmp_path_factory.mktemp("h5") / "results.h5"), *run)


def parse(argv):
    parser = argparse.ArgumentParser(prog="softmech render")
    render.add_arguments(parser)
    return parser.parse_args(argv)


def call(argv, capsys):
    code = render.execute(parse(argv))
    return code, capsys.readouterr()


def test_reader_matches_the_run(run, h5):
    out, radius, sim = run
    data = read_results(h5)
    assert data.rods == ("snake",) and data.worlds == 2 and data.name == "snake"
    assert np.array_equal(data.time, out["time"])
    assert np.array_equal(data.results["snake.positions"], out["snake.positions"])
    assert np.array_equal(data.radius["snake"], np.broadcast_to(radius["snake"], (2, 8)))
    assert data.results.units["com"] == "m"
    only = read_results(h5, fields=("positions",))
    assert set(only.results) == {"time", "snake.positions"}
    memory = from_results(out, radius)
    b_file, b_mem = bodies_at(data, 3, 1)[0], bodies_at(memory, 3, 1)[0]
    assert np.array_equal(b_file.positions, out["snake.positions"][1, 3])
    assert np.array_equal(b_file.positions, b_mem.positions)
    assert np.allclose(b_file.radius, 0.025)


def test_sample_selection(run):
    t = run[0]["time"]
    assert nearest_sample(t, t[4] + 0.4 * (t[5] - t[4])) == 4
    with pytest.raises(ValueError, match="within the recorded range"):
        nearest_sample(t, t[-1] + 1.0)
    idx = frame_samples(t, fps=10, speed=1.0)          # one frame per 0.1 s of the 0.2 s run
    assert np.allclose(t[idx], [0.0, 0.1, 0.2])
    data = from_results(*run[:2])
    assert ground_height(data) == 0.0                  # the snake lies on z = 0
    assert ground_height(data, up="x") is None


def test_still_is_the_default_and_json_lists_files(h5, tmp_path, capsys):
    code, out = call([h5, "--output", str(tmp_path), "--json", "--quiet", "--width", "320",
                      "--height", "192"], capsys)
    assert code == 0
    files = json.loads(out.out)["files"]
    assert len(files) == 1 and files[0].endswith("_tubes_t0.200s.png") and os.path.isfile(files[0])


def test_the_summary_counts_one_file_in_the_singular(h5, tmp_path, capsys):
    code, out = call([h5, "--output", str(tmp_path), "--width", "160", "--height", "96"], capsys)
    assert code == 0
    written = [line for line in out.out.splitlines() if line.startswith("  ")]
    assert len(written) == 1 and f"wrote 1 file to {tmp_path}" in out.out, out.out


def test_video_and_plots(h5, tmp_path, capsys):
    code, out = call([h5, "--output", str(tmp_path), "--video", "--fps", "20", "--plots",
                      "--plot", "snake.com", "--plot", "positions", "--world", "1",
                      "--width", "160", "--height", "96", "--json"], capsys)
    assert code == 0
    names = [os.path.basename(f) for f in json.loads(out.out)["files"]]
    assert names[0] in ("snake_tubes.mp4", "snake_tubes.gif")
    assert names[1:] == ["energy.png", "com.png", "velocities.png", "snake_com.png",
                         "positions.png"]
    assert "video" in out.err                          # the progress bar


@pytest.mark.parametrize("argv, match", [
    (["--time", "5"], "time = 5 is not allowed"), (["--world", "2"], "world = 2"),
    (["--plot", "strain"], "field = 'strain'"), (["--fps", "0"], "--fps"),
    (["--width", "4"], "width = 4"), (["--floor", "low"], "--floor = 'low'"),
    (["--quality", "20"], "quality = 20")])
def test_bad_input_names_the_option(h5, tmp_path, argv, match):
    with pytest.raises(ValueError, match=match):
        render.execute(parse([h5, "--output", str(tmp_path), "--quiet"] + argv))
    assert not any(f.endswith((".png", ".mp4")) for f in os.listdir(tmp_path))


def test_not_a_results_file(tmp_path):
    bad = tmp_path / "x.h5"
    with h5py.File(bad, "w") as f:
        f.attrs["format"] = "other"
    with pytest.raises(ValueError, match="format = 'other'.*not a softmech results file"):
        read_results(str(bad))
    with pytest.raises(ValueError, match="no such file"):
        read_results(str(tmp_path / "missing.h5"))


def test_povray_style_without_povray(h5, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(povray.shutil, "which", lambda name: None)
    code, out = call([h5, "--style", "povray", "--output", str(tmp_path)], capsys)
    assert code == 2 and "apt-get install povray" in out.err and not os.listdir(tmp_path)


@pytest.mark.skipif(not povray.povray_available(), reason="POV-Ray not installed")
def test_povray_still(h5, tmp_path, capsys):
    code, _ = call([h5, "--style", "povray", "--time", "0.1", "--width", "80", "--height", "48",
                    "--quality", "4", "--antialias", "0", "--output", str(tmp_path)], capsys)
    assert code == 0 and os.listdir(tmp_path) == ["snake_povray_t0.100s.png"]


def test_plot_shapes_and_errors(run, tmp_path):
    out = run[0]
    for field in ("total_energy", "com", "positions", "snake.directors"):
        if field == "snake.directors":
            with pytest.raises(ValueError, match="samples of shape"):
                plots.plot_field(out, field, str(tmp_path / "d.png"))
            continue
        assert os.path.isfile(plots.plot_field(out, field, str(tmp_path / f"{field}.png")))
    with pytest.raises(ValueError, match="world = 5"):
        plots.plot_com(out, str(tmp_path / "c.png"), world=5)
    partial = {k: v for k, v in out.items() if not k.endswith("rotational_energy")}
    with pytest.raises(ValueError, match="rotational_energy"):
        plots.plot_energies(partial, str(tmp_path / "e.png"))
    with pytest.raises(ValueError, match="none of the standard plots"):
        plots.standard_plots({"time": out["time"]}, str(tmp_path))


def test_version_1_file_with_a_rigid_body_is_refused_clearly(run, tmp_path):
    path = write_h5(str(tmp_path / "v1.h5"), *run)
    with h5py.File(path, "r+") as f:          # version 1 put a rigid body's series under /rods
        f.create_dataset("rods/ball/positions", data=np.zeros((2, len(f["time"]), 1, 3)),
                         maxshape=(2, None, 1, 3))
    with pytest.raises(ValueError, match="/rods/ball has no radius"):
        read_results(path)
