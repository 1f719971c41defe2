"""softmech view: the tube vertices' nodes, the colouring fields, the frames, the figure and the
command (the page in a real browser: test_viewer_browser.py)."""
import json
import re
import os

import numpy as np
import pytest

from softmech.cli import main
from softmech.viz.fields import colour_fields, rod_field
from softmech.viz.geometry import node_radius, to_nodes, tube_mesh, tube_vertex_nodes
from softmech.viz.source import from_results, read_results
from softmech.viz.viewer import frame_plan, series_keys, view_figure
from viz_fixture import simulate_snake, write_h5


@pytest.fixture(scope="module")
def h5(tmp_path_factory):
    out, radius, sim = simulate_snake(worlds=2, n_elems=12, duration=0.3, every=0.01)
    return write_h5(str(tmp_path_factory.mktemp("view") / "results.h5"), out, radius, sim)


@pytest.mark.parametrize("closed, caps", [(False, True), (False, False), (True, True)])
def test_each_tube_vertex_lies_on_its_nodes_cross_section_or_cap(closed, caps):
    n = 9
    s = np.linspace(0, 2 * np.pi, n, endpoint=not closed)
    x = np.stack([np.cos(s), np.sin(s), 0.1 * s], -1)
    r = np.linspace(0.05, 0.1, n if closed else n - 1)          # per element
    vertices, _ = tube_mesh(x, r, sides=10, closed=closed, caps=caps)
    nodes = tube_vertex_nodes(n, sides=10, closed=closed, caps=caps)
    assert nodes.shape == (len(vertices),) and nodes.min() == 0 and nodes.max() == n - 1
    distance = np.linalg.norm(vertices - x[nodes], axis=1)
    assert np.allclose(distance, node_radius(r, n, closed)[nodes])


def test_to_nodes_averages_elements_and_keeps_nodes():
    assert np.allclose(to_nodes("f", [[1.0, 3.0, 5.0]], 4), [[1, 2, 4, 5]])
    assert np.allclose(to_nodes("f", [1.0, 3.0, 5.0], 3, closed=True), [3, 2, 4])
    assert np.allclose(to_nodes("f", [1.0, 2.0, 3.0, 4.0], 4), [1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"f has shape \(7,\)"):
        to_nodes("f", np.ones(7), 4)


def test_curvature_of_a_circle_and_stretch_of_a_stretched_rod():
    n, R = 60, 0.4
    s = 2 * np.pi * np.arange(n) / n
    ring = R * np.stack([np.cos(s), np.sin(s), 0 * s], -1)
    line = np.stack([np.linspace(0, 1.1, 11), np.zeros(11), np.zeros(11)], -1)   # 10 % longer
    results = {"time": np.zeros(1), "ring.positions": ring[None, None],
               "line.positions": line[None, None]}
    data = from_results(results, {"ring": np.full((1, n), 0.01), "line": np.full((1, 10), 0.01)},
                        closed={"ring": True})
    data.rest_lengths["line"] = np.full(10, 0.1)
    kappa, units = rod_field(data, "ring", "curvature")
    exact = 2 * np.tan(np.pi / n) / (2 * R * np.sin(np.pi / n))     # -> 1 / R as n grows
    assert units == "1/m" and np.allclose(kappa, exact) and abs(exact * R - 1) < 2e-3
    assert np.allclose(rod_field(data, "line", "stretch")[0], 0.1)
    assert colour_fields(data) == ["stretch", "curvature"]
    with pytest.raises(ValueError, match="rest lengths"):
        rod_field(data, "ring", "stretch")


def test_frame_plan_decimates_and_says_so():
    time = np.arange(601) * 0.01
    samples, note = frame_plan(time, fps=25)
    assert len(samples) == 151 and samples[-1] == 600 and np.all(np.diff(samples) == 4)
    assert note == "showing 151 of 601 samples (25 frames per simulated second)"
    samples, note = frame_plan(time, fps=25, max_frames=50)
    assert len(samples) <= 50 and samples[-1] == 600 and "at most 50" in note
    assert frame_plan(time[:5], fps=1000)[1] == ""


def test_figure_frames_traces_and_field(h5):
    data = read_results(h5)
    fig, notes = view_figure(data, field="curvature", world=1, fps=100)
    assert notes == []                                           # 31 samples, all shown
    assert len(fig.frames) == len(data.time)
    meshes = [t for t in fig.data if t.type == "mesh3d"]
    assert [t.name for t in meshes] == ["ground", "snake"]        # the snake rests on the ground
    snake = meshes[1]
    assert snake.showscale and snake.colorbar.title.text == "curvature [1/m]"
    x = data.results["snake.positions"][1, -1]
    last = fig.frames[-1].data[0]
    assert np.allclose(np.mean(last.x), np.mean(tube_mesh(x, data.radius["snake"][1],
                                                          sides=12)[0][:, 0]), atol=1e-6)
    assert [t.name for t in fig.data if t.type == "scatter"][:3] == [
        "snake.com x", "snake.com y", "snake.com z"]              # the default series
    assert list(fig.layout.sliders[0].steps[-1].args[0]) == [str(len(fig.frames) - 1)]


def test_compare_draws_the_other_run_see_through(h5):
    data = read_results(h5)
    fig, _ = view_figure(data, series="total_energy", compare=read_results(h5),
                         compare_label="b")
    names = {t.name: t for t in fig.data}
    assert names["snake (b)"].opacity < 1 and names["snake"].opacity == 1
    assert names["snake.total_energy (b)"].line.dash == "dash"


@pytest.mark.parametrize("kwargs, match", [
    (dict(field="nope"), r"field = 'nope' is not allowed: must be one of \['stretch', "
                         r"'curvature'\]"),
    (dict(series="positions"), "series = 'positions' is not allowed"),
    (dict(world=2), "world = 2 is not allowed"),
    (dict(fps=0), "fps = 0 is not allowed"),
])
def test_bad_input_names_the_argument(h5, kwargs, match):
    with pytest.raises(ValueError, match=match):
        view_figure(read_results(h5), **kwargs)


def test_command_writes_one_offline_page(h5, tmp_path, capsys):
    page = tmp_path / "view.html"
    assert main(["view", h5, "--html", str(page), "--json", "--field", "curvature"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["file"] == str(page) and report["frames"] == 9 and not report["opened"]
    html = page.read_text()
    assert not re.search(r"<script[^>]*src=", html)             # plotly.js is embedded
    assert len(html) > 3e6 and "softmechShowFrame" in html


def test_command_opens_the_browser_without_html(h5, tmp_path, capsys, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert main(["view", h5]) == 0
    assert len(opened) == 1 and opened[0].startswith("file://") and opened[0].endswith(".html")
    assert os.path.exists(opened[0][len("file://"):])
    assert "opened in the web browser" in capsys.readouterr().out


@pytest.mark.parametrize("argv, match", [
    (["nofile.h5"], "no such file: nofile.h5"),
    (["{h5}", "--html", "x.png"], "--html = 'x.png' is not allowed"),
    (["{h5}", "--max-frames", "1"], "--max-frames = 1 is not allowed"),
])
def test_command_errors(h5, argv, match, capsys):
    assert main(["view"] + [a.format(h5=h5) for a in argv]) == 2
    assert match in capsys.readouterr().err


def test_command_on_the_cantilever(tmp_path, capsys):
    """The cantilever (clamped in the air: no ground), coloured by stretch."""
    out = tmp_path / "beam"
    assert main(["run", "cantilever", "--duration", "0.5", "--n-elems", "10", "--output",
                 str(out), "--quiet"]) == 0
    page = tmp_path / "beam.html"
    assert main(["view", str(out / "results.h5"), "--html", str(page), "--field", "stretch",
                 "--series", "total_energy", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    data = read_results(out / "results.h5")
    assert report["frames"] == 14 and report["notes"] == [                 # 0, 0.04, ..., 0.5 s
        f"showing 14 of {len(data.time)} samples (25 frames per simulated second)"]
    fig, _ = view_figure(data, field="stretch", series="total_energy")
    assert [t.name for t in fig.data if t.type == "mesh3d"] == ["beam"]   # no ground
    assert fig.data[0].colorbar.title.text == "stretch [1]"
