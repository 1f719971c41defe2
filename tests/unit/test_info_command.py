"""`softmech info FILE`: the text and JSON descriptions of a results file, and exit code 2 with a
clear message for a missing or foreign file."""
import json

import h5py
import pytest

import softmech as sm
from softmech.cli import main
from softmech.scenarios.snake import build_snake


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    scene, _ = build_snake(4, dt=1e-4)
    path = tmp_path_factory.mktemp("info") / "run.h5"
    sm.record_to_file(scene.compile(dt=1e-4), path, duration=0.02, every=0.005,
                      fields=("com", "positions"), scene_text="[meta]\nname = 'snake'\n",
                      scene_name="snake", settings={"command_line": "pytest"},
                      recorders=[sm.Recorder("head_x", lambda s: s.get_state()["positions"][:, -1, 0],
                                             units="m")])
    return path


def test_text_summary(results, capsys):
    assert main(["info", str(results), "--scene"]) == 0
    out = capsys.readouterr().out
    assert "softmech-results version 2" in out and f"softmech      {sm.__version__}" in out
    assert "status        complete" in out
    assert "samples       5, t = 0 s to 0.02 s" in out
    assert '"pytest"' in out                                   # the settings
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines()
             if line.strip().startswith("/")}
    assert lines["/rods/snake/positions"] == ["(1,", "5,", "5,", "3)", "float64", "[m]"]
    assert lines["/recorders/head_x"] == ["(1,", "5)", "float64", "[m]"]
    assert lines["/time"] == ["(5,)", "float64", "[s]"]
    assert "    name = 'snake'" in out                          # --scene prints the TOML


def test_json_matches_the_file(results, capsys):
    assert main(["info", str(results), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    with h5py.File(results, "r") as f:
        assert d["n_samples"] == len(f["time"])
        assert d["time_range"] == [f["time"][0], f["time"][-1]]
        assert d["attrs"]["dt"] == f.attrs["dt"] and d["attrs"]["complete"] is True
        assert d["datasets"]["/rods/snake/com"]["shape"] == list(f["rods/snake/com"].shape)
    assert d["settings"]["fields"] == ["com", "positions"]
    assert d["scene_toml"] == "[meta]\nname = 'snake'\n"
    assert d["checkpoint"]["n_samples"] == 5


def test_incomplete_file_is_flagged(results, tmp_path, capsys):
    path = tmp_path / "copy.h5"
    path.write_bytes(results.read_bytes())
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = False
    assert main(["info", str(path)]) == 0
    assert "INCOMPLETE" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["missing", "text", "foreign"])
def test_bad_files_exit_2(kind, tmp_path, capsys):
    path = tmp_path / "x.h5"
    if kind == "text":
        path.write_text("hello")
    elif kind == "foreign":
        with h5py.File(path, "w") as f:
            f["data"] = [1.0, 2.0]
    assert main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    expected = {"missing": "no such file", "text": "not an HDF5 file",
                "foreign": "not a softmech results file"}[kind]
    assert err.startswith("softmech info: error: ") and expected in err


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    """A results file of more rods than `softmech info` lists one by one (as the wing's barbs),
    of 3 to 5 elements, and one sphere."""
    from softmech.commands.info import MAX_LISTED

    scene = sm.Scene()
    for i in range(MAX_LISTED + 3):
        scene.add_cosserat_rod(name=f"barb{i}", start=(0, 0.1 * i, 0), direction=(1, 0, 0),
                               normal=(0, 0, 1), length=0.5, n_elems=3 + i % 3, radius=0.01,
                               density=1000.0, youngs_modulus=1e6, shear_modulus=1e6 / 3)
    scene.add_sphere(name="ball", position=(0, 0, 1), radius=0.1, density=1000.0)
    path = tmp_path_factory.mktemp("crowded") / "run.h5"
    sm.record_to_file(scene.compile(dt=1e-4), path, duration=0.002, every=0.001,
                      fields=("com", "positions"))
    return path, MAX_LISTED + 3


def dataset_paths(out):
    """The first column of the dataset lines of `softmech info`'s text (paths may hold spaces)."""
    return [line[4:].split("  ")[0] for line in out.splitlines() if line.startswith("    /")]


def test_many_bodies_are_summarised_per_field_and_all_lists_every_dataset(crowded, capsys):
    path, n_rods = crowded
    assert main(["info", str(path), "--json"]) == 0
    datasets = json.loads(capsys.readouterr().out)["datasets"]        # JSON: always complete
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    listed = dataset_paths(out)
    assert f"datasets      {len(datasets)} (" in out and "--all" in out
    fields = {p.split("/")[3] for p in datasets if p.startswith("/rods/")}
    assert {p for p in listed if p.startswith("/rods/")} == {f"/rods/<{n_rods} rods>/{f}"
                                                            for f in fields}
    line = next(line for line in out.splitlines() if "rods>/positions" in line)
    nodes = [datasets[f"/rods/barb{i}/positions"]["shape"][2] for i in range(n_rods)]
    assert f"{min(nodes)}..{max(nodes)}" in line and line.endswith("[m]")
    assert "/bodies/ball/com" in listed                   # one sphere: listed as before
    assert main(["info", str(path), "--all"]) == 0
    assert sorted(dataset_paths(capsys.readouterr().out)) == sorted(datasets)
