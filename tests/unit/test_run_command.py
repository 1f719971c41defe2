"""`softmech run`: the command writes its files and its JSON summary; bad input and divergence
give the documented errors. Also the cantilever's analytic curves (ME498 handout section 2.2.3)."""
import argparse
import functools
import json
import os

import h5py
import numpy as np
import pytest

from softmech.commands import run
from softmech.resultsfile import ResultsWriter, load_results
from softmech.scenarios import SCENES, SceneEntry, build_cantilever
from softmech.scenarios.cantilever import euler_bernoulli_deflection, timoshenko_deflection


def parse(argv):
    parser = argparse.ArgumentParser(prog="softmech run")
    run.add_arguments(parser)
    return parser.parse_args(argv)


def test_defaults_of_the_parser():
    args = parse([])
    assert args.scene == "snake"
    assert args.output is None and args.duration is None and args.n_elems is None
    assert not args.json and not args.quiet and not args.resume
    assert args.checkpoint_every == run.CHECKPOINT_EVERY


def test_cantilever_writes_files_and_json(tmp_path, capsys):
    args = parse(["cantilever", "--output", str(tmp_path / "out"), "--json", "--quiet",
                  "--duration", "0.05", "--n-elems", "10"])
    assert run.execute(args) == 0
    stdout = capsys.readouterr().out
    summary = json.loads(stdout)           # with --json, stdout is exactly one JSON object
    assert {"scene", "output_dir", "files", "tip_deflection", "analytic_tip_deflection",
            "relative_error"} <= set(summary)
    assert summary["scene"] == "cantilever"
    assert os.path.samefile(summary["output_dir"], tmp_path / "out")
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "centerline.png", "tip_deflection.png", "energy.png"} <= names
    for f in summary["files"]:
        assert os.path.getsize(f) > 0
    for f in names - {"results.h5"}:
        with open(tmp_path / "out" / f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    # the file holds the recorded series; the reported tip is the last recorded one
    with h5py.File(tmp_path / "out" / "results.h5", "r") as f:
        assert f.attrs["scene"] == "cantilever" and bool(f.attrs["complete"])
        settings = json.loads(f["settings_json"][()])
        assert settings["scene"] == "cantilever" and settings["n_elems"] == 10
        assert "--duration 0.05" in settings["command_line"]
        x = f["rods/beam/positions"][()]
        n = len(f["time"])
        assert x.shape == (1, n, 11, 3)
        assert f["rods/beam/total_energy"].shape == (1, n)
        assert summary["tip_deflection"] == float(x[0, -1, -1, 1])
        # the report's derived curves are kept with the run
        assert f["derived/tip_deflection"].shape == (n,)
    assert summary["tip_deflection"] < 0          # the 15 N load points down (-y)
    assert summary["analytic_tip_deflection"] < 0
    assert np.isfinite(summary["relative_error"])


def test_plectoneme_writes_its_report(tmp_path, capsys):
    """A short plectoneme run (30 elements, 0.5 s: the rod has not buckled yet) writes its
    report: closest approach (of a nearly straight rod: above 2r, the strands are not yet in
    contact), writhe (~0 for the nearly straight rod), their plots, a still and a video."""
    args = parse(["plectoneme", "--output", str(tmp_path / "out"), "--json", "--quiet",
                  "--duration", "0.5", "--n-elems", "30"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["passed_through"] is False
    assert 1.0 < summary["smallest_self_gap"] < 4.0
    assert abs(summary["final_writhe"]) < 0.05
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "self_gap.png", "writhe.png", "com.png", "plectoneme_tubes.mp4"} <= names
    with h5py.File(tmp_path / "out" / "results.h5", "r") as f:
        assert f["derived/self_gap"].shape == f["time"].shape


def test_bad_duration_and_n_elems_raise_value_error(tmp_path):
    with pytest.raises(ValueError, match="--duration"):
        run.execute(parse(["--output", str(tmp_path), "--duration", "-1"]))
    with pytest.raises(ValueError, match="--n-elems"):
        run.execute(parse(["--output", str(tmp_path), "--n-elems", "1"]))


def test_divergence_exits_1_and_keeps_last_good_state(tmp_path, monkeypatch, capsys):
    # dt far above the stability limit (~1.3e-2 s for 10 elements): the run must blow up.
    unstable = functools.partial(build_cantilever, dt=0.5)
    monkeypatch.setitem(SCENES, "cantilever", SceneEntry(unstable, "unstable cantilever"))
    args = parse(["cantilever", "--output", str(tmp_path), "--json", "--quiet", "--duration", "200",
                  "--n-elems", "10"])
    with pytest.warns(RuntimeWarning, match="stability limit"):
        assert run.execute(args) == 1
    captured = capsys.readouterr()
    assert "diverged" in captured.err
    summary = json.loads(captured.out)
    assert summary["diverged"] is True
    with np.load(tmp_path / "last_good_state.npz") as state:
        assert np.all(np.isfinite(state["beam.positions"]))


def test_timoshenko_curve_closed_forms():
    # Tip value of the handout's curve (section 2.2.3) at s = L: -F L / (alpha_c A G) - F L^3 / (3 E I);
    # G -> infinity gives Euler-Bernoulli. Table 1 values; tolerance: float round-off only.
    F, L, E, G, r, alpha = 15.0, 3.0, 1e6, 1e4, 0.25, 4.0 / 3.0
    A, I = np.pi * r**2, np.pi * r**4 / 4
    tip = -F * L / (alpha * A * G) - F * L**3 / (3 * E * I)
    assert timoshenko_deflection(L, F, L, E, G, A, I, alpha) == pytest.approx(tip, rel=1e-12)
    s = np.linspace(0, L, 7)
    np.testing.assert_allclose(timoshenko_deflection(s, F, L, E, 1e30, A, I, alpha),
                               euler_bernoulli_deflection(s, F, L, E, I), rtol=1e-12, atol=1e-30)
    _, info = build_cantilever(n_elems=10)
    assert info.deflection(L) == pytest.approx(tip, rel=1e-12)


def test_scene_without_a_report_gets_results_and_energy_plot(tmp_path, monkeypatch, capsys):
    # A newly registered scene needs only a builder: results.h5 and energy.png are generic.
    monkeypatch.setitem(SCENES, "plain", SceneEntry(build_cantilever, "cantilever, no report"))
    args = argparse.Namespace(scene="plain", output=str(tmp_path), json=True, quiet=True,
                              duration=0.01, n_elems=4)
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {os.path.basename(f) for f in summary["files"]} == {"results.h5", "energy.png"}
    data = load_results(tmp_path / "results.h5")
    assert data["beam.com"].shape == (1, len(data["time"]), 3)
    assert data["beam.positions"].shape == (1, len(data["time"]), 5, 3)   # softmech view draws it


def test_resume_continues_an_interrupted_run_bit_for_bit(tmp_path, capsys, monkeypatch):
    argv = ["cantilever", "--quiet", "--json", "--duration", "0.06", "--n-elems", "6",
            "--checkpoint-every", "0.015"]
    assert run.execute(parse(argv + ["--output", str(tmp_path / "a")])) == 0
    # interrupt b (Ctrl-C) when its third checkpoint is due: the samples up to there are in
    # the file, the last checkpoint is the second
    write_checkpoint, calls = ResultsWriter.write_checkpoint, []

    def interrupted(self, sim, n_samples):
        calls.append(n_samples)
        if len(calls) == 3:
            raise KeyboardInterrupt
        write_checkpoint(self, sim, n_samples)

    monkeypatch.setattr(ResultsWriter, "write_checkpoint", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run.execute(parse(argv + ["--output", str(tmp_path / "b")]))
    monkeypatch.undo()
    with h5py.File(tmp_path / "b" / "results.h5", "r") as f:
        assert not bool(f.attrs["complete"])
        assert f["checkpoint"].attrs["n_samples"] == calls[1] < calls[2] == len(f["time"])
    capsys.readouterr()
    assert run.execute(parse(argv + ["--output", str(tmp_path / "b"), "--resume"])) == 0
    assert json.loads(capsys.readouterr().out)["resumed"] is True
    with h5py.File(tmp_path / "a" / "results.h5", "r") as a, \
            h5py.File(tmp_path / "b" / "results.h5", "r") as b:
        assert bool(b.attrs["complete"])
        names = []
        a.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None)
        assert "rods/beam/positions" in names and "derived/tip_deflection" in names
        for name in names:
            if name != "settings_json":             # its command line names another folder
                np.testing.assert_array_equal(a[name][()], b[name][()], err_msg=name)


def test_resume_errors(tmp_path, capsys):
    argv = ["cantilever", "--quiet", "--json", "--n-elems", "6", "--output", str(tmp_path)]
    with pytest.raises(ValueError, match="nothing to resume"):
        run.execute(parse(argv + ["--duration", "0.02", "--resume"]))
    assert run.execute(parse(argv + ["--duration", "0.02"])) == 0
    with pytest.raises(ValueError, match="complete, there is nothing to resume"):
        run.execute(parse(argv + ["--duration", "0.02", "--resume"]))
    with h5py.File(tmp_path / "results.h5", "r+") as f:
        f.attrs["complete"] = False
    with pytest.raises(ValueError, match="setting 'duration' was 0.02"):
        run.execute(parse(argv + ["--duration", "0.03", "--resume"]))
    with pytest.raises(ValueError, match="--checkpoint-every"):
        run.execute(parse(argv + ["--checkpoint-every", "0"]))


def test_scenario_file_runs_like_the_builtin_scene_and_is_embedded(tmp_path, capsys):
    """`softmech new` + `softmech run FILE` gives the built-in scene's results bit for bit, and
    results.h5 embeds a scenario text that loads back to the same scene."""
    from softmech.commands import new
    from softmech.scenefile import loads_scenario

    path = tmp_path / "beam.toml"
    new_parser = argparse.ArgumentParser()
    new.add_arguments(new_parser)
    assert new.execute(new_parser.parse_args(["cantilever", str(path), "--quiet"])) == 0
    text = path.read_text().replace("n_elems = 100", "n_elems = 8").replace(
        "duration = 20.0", "duration = 0.05")
    path.write_text(text)
    assert run.execute(parse([str(path), "--output", str(tmp_path / "file"), "--quiet",
                              "--json"])) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert run.execute(parse(["cantilever", "--n-elems", "8", "--duration", "0.05", "--output",
                              str(tmp_path / "builtin"), "--quiet", "--json"])) == 0
    from_builtin = json.loads(capsys.readouterr().out)
    assert from_file["tip_deflection"] == from_builtin["tip_deflection"]
    a, b = load_results(tmp_path / "file" / "results.h5"), load_results(tmp_path / "builtin" / "results.h5")
    np.testing.assert_array_equal(a["beam.positions"], b["beam.positions"])
    with h5py.File(tmp_path / "file" / "results.h5", "r") as f:
        embedded = f["scene_toml"][()].decode()
    again = loads_scenario(embedded)
    assert again.scene.rods[0].n_elems == 8 and again.run.duration == 0.05


def test_broken_scenario_file_exits_2_with_the_file_in_the_message(tmp_path, capsys):
    from softmech import cli

    path = tmp_path / "broken.toml"
    path.write_text("schema_version = 1\n[run]\ndt = -1\nduration = 1\n")
    assert cli.main(["run", str(path), "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "dt = -1" in err and "must be > 0" in err
    assert not (tmp_path / "o").exists()                  # nothing was started
    with pytest.raises(ValueError, match="--n-elems is not allowed with a scenario file"):
        run.execute(parse([str(path), "--n-elems", "4"]))


def test_record_table_of_a_scenario_file_sets_fields_and_interval(tmp_path, capsys):
    """[record] adds its fields (bare names for every rod, no duplicates of the report's own)
    and sets the sampling interval."""
    from softmech.scenefile import builtin_scenario, save_scenario

    scenario = builtin_scenario("cantilever", n_elems=6, duration=0.02)
    path = tmp_path / "beam.toml"
    save_scenario(scenario, path)
    path.write_text(path.read_text().replace(
        "[materials.beam]", '[record]\nevery = 0.005\nfields = ["com", "directors"]\n\n'
        "[materials.beam]"))
    assert run.execute(parse([str(path), "--output", str(tmp_path / "o"), "--quiet"])) == 0
    data = load_results(tmp_path / "o" / "results.h5")
    n = len(data["time"])
    assert n == 5                                           # 0.02 s every 0.005 s
    assert data["beam.com"].shape == (1, n, 3)
    assert data["beam.directors"].shape == (1, n, 6, 3, 3)
    assert data["beam.positions"].shape == (1, n, 7, 3)     # the template's own field stays


def test_falling_rod_writes_its_report(tmp_path, capsys):
    """`softmech run falling_rod` (implicit discrete rods): the soft rod bends more than the
    stiff one on impact, both land at the same time; plots, a still and a video."""
    args = parse(["falling_rod", "--output", str(tmp_path / "out"), "--json", "--quiet"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["soft_max_bend"] > 3 * summary["stiff_max_bend"] > 0
    assert summary["soft_landing_time"] == summary["stiff_landing_time"]
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "bend.png", "com.png", "energy.png", "falling_rod_tubes.mp4"} <= names


def test_elbow_writes_its_report(tmp_path, capsys):
    """A short run of the full elbow (36 muscle rods, 0.02 s: the activation is still ramping,
    the elbow has not reached 90 degrees) writes its report: growth at 90 deg is NaN (never
    reached), the isometric map lies on its curve, flexion and isometric plots, still, video."""
    args = parse(["elbow", "--output", str(tmp_path / "out"), "--json", "--quiet",
                  "--duration", "0.02"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["fibers"] == 36
    assert np.isnan(summary["section_growth_at_90deg"])
    assert summary["largest_flexion_deg"] < 90.0
    assert summary["isometric_largest_gap"] < 0.02
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "flexion.png", "isometric.png", "elbow_tubes.mp4"} <= names


def test_walker_writes_its_report(tmp_path, capsys):
    """A short walker run (0.05 s: still settling, no whole period after the settling time)
    writes its report: NaN speeds, one per frequency, the speed plot, still and video."""
    args = parse(["walker", "--output", str(tmp_path / "out"), "--json", "--quiet",
                  "--duration", "0.05"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["frequencies"] == [0.5, 1.0, 2.0]
    assert all(np.isnan(v) for v in summary["speeds"])
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "speed.png", "walker_tubes.mp4"} <= names
