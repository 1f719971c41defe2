"""Every built-in scene runs through `softmech run` for a short time (issue 31: "a test that
runs every built-in scene for a short duration and checks it writes its files and prints its
figure"): exit code 0, its summary printed before the figures (with "not measured", never
"nan", for what a run this short cannot measure), its headline figure in the JSON result, and
the files it lists written: the results file, at least one plot and a video. The same run's
results file is then viewed (`softmech view` draws every recorded rod) and described
(`softmech info` gives every dataset under /rods, /shells and /derived its units): one run per
scene for both (the ~2,800-rod wing's run takes minutes)."""
import json
import os

import pytest

from softmech.cli import main
from softmech.scenarios import SCENES
from softmech.viz.source import read_results
from softmech.viz.viewer import view_figure

HEADLINE = {
    "cantilever": "relative_error", "snake": "mean_forward_speed",
    "plectoneme": "smallest_self_gap", "swimmer": "mean_speed", "torque_swimmer": "speed",
    "falling_rod": "soft_max_bend", "pneunet": "actuator3_curl", "manta": "forward_speed",
    "parachute": "fall_speed", "elbow": "largest_flexion_deg", "walker": "speeds",
    "muscular_snake": "mean_forward_speed", "poseidron": "mean_surge_velocity",
    "quadropus": "mean_surge_velocity", "monopus": "mean_surge_velocity",
    "wing": "dorsoventral_range_deg"}
"""Each scene's headline figure (a key of its JSON result)."""

STILL = {"cantilever"}
"""Scenes with a static result: no video."""

DURATION = {"wing": 0.001}
"""Simulated time [s] of the short runs: 0.02 s, the ~2,800-rod wing's ~400 steps of 2.4 us less
(its run records ~94,000 HDF5 objects: minutes of Python per run, whatever the steps)."""


def test_every_built_in_scene_has_a_headline():
    assert set(HEADLINE) == set(SCENES)


@pytest.mark.parametrize("scene", sorted(SCENES))
def test_the_scene_runs_writes_its_files_and_is_viewed_with_units(scene, tmp_path, capsys):
    out = tmp_path / scene
    assert main(["run", scene, "--duration", str(DURATION.get(scene, 0.02)), "--output",
                 str(out), "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert HEADLINE[scene] in result, sorted(result)
    files = result["files"]
    assert all(os.path.isfile(f) for f in files), files
    names = [os.path.basename(f) for f in files]
    assert "results.h5" in names
    assert any(n.endswith(".png") for n in names)
    if scene not in STILL:
        assert any(n.endswith((".mp4", ".gif")) for n in names), names
    log = [line for line in captured.err.splitlines() if "%|" not in line]
    wall = next(i for i, line in enumerate(log) if line.strip().startswith("wall time"))
    plots = next(i for i, line in enumerate(log) if line.strip().startswith("writing plots"))
    assert plots > wall + 1, log           # the summary's lines come between the two
    assert "nan" not in " ".join(log[wall + 1:plots]).lower(), log[wall + 1:plots]
    viewed_and_described_with_units(out, tmp_path / f"{scene}.html", capsys)


def viewed_and_described_with_units(out, page, capsys):
    """`softmech view` of the run in folder `out` draws every recorded rod and mesh (the wing
    records every 16th barb pair of its ~2,800 barbs), and `softmech info` gives every dataset
    under /rods, /shells and /derived its units."""
    data = read_results(out / "results.h5")
    # rods are coloured by their curvature; a scene of shells alone has no rod field to show
    field = ["--field", "curvature"] if data.rods else []
    assert main(["view", str(out / "results.h5"), "--html", str(page), *field, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["frames"] >= 2
    fig, _ = view_figure(data)
    recorded = {r for r in data.rods if f"{r}.positions" in data.results}
    assert recorded | set(data.meshes) <= {t.hovertext for t in fig.data if t.type == "mesh3d"}
    assert main(["info", str(out / "results.h5"), "--json"]) == 0
    datasets = json.loads(capsys.readouterr().out)["datasets"]
    missing = [path for path, d in datasets.items()
               if path.startswith(("/rods/", "/shells/", "/derived/")) and not d["units"]]
    assert not missing, f"datasets without units: {missing}"
