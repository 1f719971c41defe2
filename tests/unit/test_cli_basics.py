"""The command line as a new user meets it (issue 17): --version, where `softmech run FILE.toml`
writes and that it never overwrites, one wording for unknown scenes, warnings as one line,
quoted numbers refused, one name per recorded field, `softmech info` units and errors."""
import os
import re
import subprocess
import sys

import h5py
import numpy as np
import pytest

import softmech as sm
from softmech.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"softmech {sm.__version__}\n"


@pytest.fixture
def beam_file(tmp_path, monkeypatch):
    """A scenario file my_beam.toml (the cantilever) in the working folder tmp_path."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", "cantilever", "my_beam.toml", "--quiet"]) == 0
    return tmp_path / "my_beam.toml"


def test_run_file_writes_to_its_stem_and_never_overwrites(beam_file, capsys):
    argv = ["run", "my_beam.toml", "--duration", "0.01", "--quiet"]
    assert main(argv) == 0
    assert os.path.exists("output/my_beam/results.h5") and not os.path.exists("output/cantilever")
    written = os.path.getmtime("output/my_beam/results.h5")
    assert main(argv) == 2                                   # the earlier results are kept
    err = capsys.readouterr().err
    assert "already holds the results of an earlier run" in err and "--force" in err
    assert os.path.getmtime("output/my_beam/results.h5") == written
    assert main(argv + ["--force"]) == 0
    with h5py.File("output/my_beam/results.h5") as f:
        assert "--force" in f["settings_json"][()].decode()


@pytest.mark.parametrize("argv, near, files", [
    (["run", "snak"], "snake", True),
    (["new", "cantilver"], "cantilever", False),
    (["optimize", "snkae"], "snake", True),
    (["run", "xyz"], None, True),
])
def test_unknown_scene_same_wording_with_did_you_mean(argv, near, files, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    hint = f" did you mean {near!r}?" if near else ""
    assert re.fullmatch(rf"softmech {argv[0]}: error: scene = {argv[1]!r} is not allowed:"
                        rf"{re.escape(hint)} must be one of \[.*\]"
                        + (" or a scenario file FILE.toml" if files else "")
                        + re.escape(" (`softmech list` describes the built-in scenes)"), err), err


def test_time_step_warning_is_one_line(beam_file):
    text = beam_file.read_text()
    beam_file.write_text(re.sub(r"(?m)^dt = .*$", "dt = 0.05", text))
    done = subprocess.run([sys.executable, "-m", "softmech.cli", "run", "my_beam.toml",
                           "--duration", "0.1", "--quiet"], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    lines = [line for line in done.stderr.splitlines() if "stability limit" in line]
    assert len(lines) == 1, done.stderr
    assert re.fullmatch(r"softmech run: warning: dt = 0\.05 s is above the estimated stability "
                        r"limit .* s of the explicit integrator; use dt <= .* s", lines[0])
    assert "RuntimeWarning" not in done.stderr and "warnings.warn" not in done.stderr


def test_quoted_number_in_a_scenario_file_is_refused(beam_file, capsys):
    text = beam_file.read_text()
    beam_file.write_text(re.sub(r"(?m)^youngs_modulus = .*$", 'youngs_modulus = "1e7"', text))
    assert main(["run", "my_beam.toml", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "youngs_modulus = '1e7' is not allowed: must be a number" in err
    assert "[[rods]] #1" in err


def test_one_name_per_recorded_field():
    scene = sm.Scene()
    a = scene.add_cosserat_rod(name="a", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                               length=1.0, n_elems=4, radius=0.05, density=1e3,
                               youngs_modulus=1e6)
    scene.add_cosserat_rod(name="b", start=(0, 1, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=1.0, n_elems=4, radius=0.05, density=1e3, youngs_modulus=1e6)
    out = scene.compile(dt=1e-4).run(1e-3, record=sm.Every(seconds=5e-4, fields=(
        "com", "a.positions")))
    assert out["positions"] is out["a.positions"] and out.get("positions") is out["a.positions"]
    with pytest.raises(KeyError, match=r"'com' is ambiguous: 2 bodies recorded it; use one of "
                                       r"\['a.com', 'b.com'\]"):
        out["com"]
    assert out.get("com") is None and a.name == "a"
    with pytest.raises(KeyError, match="'velocities' was not recorded"):
        out["velocities"]


def test_info_units_of_derived_and_missing_file(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["info", "nofile.h5"]) == 2
    assert capsys.readouterr().err.strip() == "softmech info: error: no such file: nofile.h5"
    assert main(["run", "cantilever", "--duration", "0.01", "--n-elems", "8", "--quiet"]) == 0
    assert main(["info", "output/cantilever/results.h5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    derived = {line.split()[0]: line.split()[-1] for line in lines if "/derived/" in line}
    assert derived["/derived/tip_deflection"] == "[m]"
    assert derived["/derived/arc_length"] == "[m]"
    assert all(units.startswith("[") for units in derived.values()), derived
    with h5py.File("output/cantilever/results.h5") as f:
        assert f["derived/tip_deflection"].attrs["units"] == "m"
        assert np.ndim(f["derived/tip_deflection"]) == 1


def test_readme_example_runs_with_the_one_field_name(capsys):
    """The README's Python block runs as written and reads out['rod.positions'], the name that
    the tutorial, Results and results files use."""
    readme = open(os.path.join(os.path.dirname(__file__), "..", "..", "README.md")).read()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    assert "out['rod.positions']" in code
    namespace = {}
    exec(code.replace("progress=True", "progress=False"), namespace)
    assert "tip deflection -0.0612 m" in capsys.readouterr().out
    out = namespace["out"]
    assert out["positions"] is out["rod.positions"]             # the documented bare alias
