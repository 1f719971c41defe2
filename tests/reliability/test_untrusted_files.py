"""Untrusted files (issue 16, item 2; docs/reliability.md "Untrusted files"): a scenario file or
a side file from someone else cannot run code, cannot read outside its folder unless the user
allows it, cannot exhaust memory by declaring huge arrays; a damaged or foreign results file
gives a one-line error (exit code 2), not a traceback, in info, render, view and run --resume.
One test per attack."""
import io
import os
import pathlib
import pickle
import re
import struct
import tracemalloc
import zipfile

import h5py
import numpy as np
import pytest

import softmech as sm
from softmech.cli import main
from softmech.scenefile import ScenarioError, load_scenario, loads_scenario
from softmech.scenefile import values as side_values
from softmech.scenefile.values import load_side_array

SRC = pathlib.Path(sm.__file__).parent
EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "rod_pendulum.toml"
SMALL_PEAK = 16 * 2**20
"""Most bytes (16 MiB) that refusing a file may allocate (tracemalloc sees NumPy's buffers):
the attacks below declare gigabytes."""


# ---------------------------------------------------------------------------- no code execution
def test_the_source_loads_no_pickle_and_evaluates_no_text():
    """Every np.load passes allow_pickle=False; no pickle / marshal / eval / exec / yaml.load
    anywhere in softmech (a scan of the source: it fails as soon as one appears)."""
    offenders = []
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        for number, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\bnp\.load\(", code) and "allow_pickle=False" not in code:
                offenders.append(f"{path}:{number}: np.load without allow_pickle=False")
            if re.search(r"\b(pickle|marshal|cloudpickle|dill)\.loads?\(|\byaml\.(unsafe_)?load\("
                         r"|(?<![\w.])(eval|exec)\(|\bshelve\.", code):
                offenders.append(f"{path}:{number}: {code.strip()}")
    assert offenders == []


class _Payload:
    """Unpickling this runs os.system: the marker file proves whether it ran."""
    marker = None

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _pickled_array(marker):
    _Payload.marker = marker
    arr = np.empty(1, dtype=object)
    arr[0] = _Payload()
    return arr


def test_a_pickled_npy_side_file_is_refused_and_not_run(tmp_path):
    marker = tmp_path / "ran"
    np.save(tmp_path / "evil.npy", _pickled_array(marker), allow_pickle=True)
    with pytest.raises(ScenarioError, match="holds Python objects"):
        load_side_array({"file": "evil.npy"}, str(tmp_path), "radius")
    assert not marker.exists()


def test_a_pickled_npz_member_is_refused_and_not_run(tmp_path):
    marker = tmp_path / "ran"
    np.savez(tmp_path / "evil.npz", radius=_pickled_array(marker))
    with pytest.raises(ScenarioError, match="holds Python objects"):
        load_side_array({"file": "evil.npz", "key": "radius"}, str(tmp_path), "radius")
    assert not marker.exists()


def test_a_raw_pickle_renamed_npy_is_refused_and_not_run(tmp_path):
    marker = tmp_path / "ran"
    _Payload.marker = marker
    (tmp_path / "evil.npy").write_bytes(pickle.dumps(_Payload()))
    with pytest.raises(ScenarioError, match="cannot read side file"):
        load_side_array({"file": "evil.npy"}, str(tmp_path), "radius")
    assert not marker.exists()


# --------------------------------------------------------------------------- paths outside
def _scenario_with_radius(reference):
    return EXAMPLE.read_text().replace("radius = 0.005  # [m]\ndensity = 1000.0",
                                       f"radius = {reference}\ndensity = 1000.0", 1)


@pytest.fixture
def outside(tmp_path):
    """A folder `scene/` holding a scenario, and an array file beside (outside) it."""
    folder = tmp_path / "scene"
    folder.mkdir()
    np.save(tmp_path / "secret.npy", np.full(20, 0.005))
    return folder


@pytest.mark.parametrize("name", ["../secret.npy", "{abs}", "sub/../../secret.npy", "link.npy"])
def test_a_side_file_outside_the_folder_is_refused(outside, name):
    (outside / "link.npy").symlink_to(outside.parent / "secret.npy")
    (outside / "sub").mkdir()
    name = name.format(abs=outside.parent / "secret.npy")
    (outside / "s.toml").write_text(_scenario_with_radius(f'{{ file = "{name}" }}'))
    with pytest.raises(ScenarioError, match="outside the scenario file's folder.*"
                                            "--allow-outside-files"):
        load_scenario(outside / "s.toml")
    # the user's explicit opt-in reads it
    scenario = load_scenario(outside / "s.toml", allow_outside_files=True)
    assert scenario.scene.rods[0].radius.tolist() == [0.005] * 20


def test_a_side_file_inside_the_folder_is_read(outside):
    (outside / "sub").mkdir()
    np.save(outside / "sub" / "r.npy", np.full(20, 0.004))
    (outside / "s.toml").write_text(_scenario_with_radius('{ file = "sub/./r.npy" }'))
    assert load_scenario(outside / "s.toml").scene.rods[0].radius.tolist() == [0.004] * 20


def test_a_shell_mesh_outside_the_folder_is_refused(outside):
    (outside.parent / "m.txt").write_text("*Nodes\n0 0 0\n1 0 0\n0 1 0\n*Triangles\n1 2 3\n")
    text = ("schema_version = 1\n[run]\ndt = 1e-3\nduration = 0.01\n[[bodies]]\nkind = 'shell'\n"
            "name = 'sheet'\nmesh = '../m.txt'\nthickness = 1e-3\nyoungs_modulus = 1e6\n"
            "density = 1000.0\n")
    with pytest.raises(ScenarioError, match=r"field 'mesh'.*outside the scenario file's folder"):
        loads_scenario(text, base_dir=str(outside))
    scenario = loads_scenario(text, base_dir=str(outside), allow_outside_files=True)
    assert scenario.scene.implicit_bodies[0].vertices.shape == (3, 3)


def test_the_command_line_opt_in(outside, tmp_path, capsys):
    (outside / "s.toml").write_text(_scenario_with_radius('{ file = "../secret.npy" }')
                                    .replace("duration = 2.0", "duration = 0.0001"))
    out = tmp_path / "out"
    assert main(["run", str(outside / "s.toml"), "--output", str(out), "--quiet"]) == 2
    assert "--allow-outside-files" in capsys.readouterr().err
    assert not out.exists()                            # refused before any work
    assert main(["run", str(outside / "s.toml"), "--output", str(out), "--quiet",
                 "--allow-outside-files"]) == 0


# ---------------------------------------------------------------------- memory exhaustion
def _refused_cheaply(call, match):
    """call() raises a ValueError matching `match` while allocating < SMALL_PEAK bytes."""
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=match):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < SMALL_PEAK


def _npy_claiming(shape, data=b"\0" * 80):
    b = io.BytesIO()
    np.lib.format.write_array_header_1_0(b, {"descr": "<f8", "fortran_order": False,
                                             "shape": shape})
    return b.getvalue() + data


def test_an_npy_header_declaring_a_giant_shape(tmp_path):
    (tmp_path / "big.npy").write_bytes(_npy_claiming((10**9,)))       # 208 bytes, claims 8 GB
    _refused_cheaply(lambda: load_side_array({"file": "big.npy"}, str(tmp_path), "radius"),
                     r"declares an array of shape \(1000000000,\)")


def test_an_npz_member_declaring_a_giant_shape(tmp_path):
    with zipfile.ZipFile(tmp_path / "big.npz", "w") as z:
        z.writestr("radius.npy", _npy_claiming((10**5, 10**5)))
    _refused_cheaply(lambda: load_side_array({"file": "big.npz", "key": "radius"},
                                             str(tmp_path), "radius"),
                     r"declares an array of shape \(100000, 100000\)")


def test_a_side_array_over_the_size_limit(tmp_path, monkeypatch):
    """A consistent but too large array (a zip bomb's members are consistent) is refused by
    the size limit; the limit is lowered to keep the test small."""
    np.savez_compressed(tmp_path / "z.npz", radius=np.zeros(1000))
    monkeypatch.setattr(side_values, "MAX_SIDE_ARRAY_BYTES", 4000)
    with pytest.raises(ScenarioError, match="at most 4,000 bytes"):
        load_side_array({"file": "z.npz", "key": "radius"}, str(tmp_path), "radius")
    monkeypatch.setattr(side_values, "MAX_SIDE_ARRAY_BYTES", 8000)
    assert load_side_array({"file": "z.npz", "key": "radius"}, str(tmp_path), "r").shape == (1000,)


@pytest.mark.parametrize("name, content", [
    ("big.stl", b"\0" * 80 + struct.pack("<I", 10**9) + b"\0" * 50),
    ("big.ply", b"ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\n"
                b"property float x\nproperty float y\nproperty float z\nelement face 1000000000\n"
                b"property list uchar int vertex_indices\nend_header\n" + b"\0" * 24),
])
def test_a_mesh_header_declaring_a_billion_elements(tmp_path, name, content):
    """Binary STL / PLY headers that claim 10^9 triangles / vertices (trimesh compares them with
    the file's length): a clear error, no giant allocation, as a side file and as a shell."""
    from softmech.bodies.meshes import load_mesh

    (tmp_path / name).write_bytes(content)
    _refused_cheaply(lambda: load_mesh(str(tmp_path / name)), "mesh")
    _refused_cheaply(lambda: load_side_array({"file": name}, str(tmp_path), "centerline"),
                     name)


@pytest.mark.parametrize("edit, match", [
    # the allowed range depends on the machine's memory (softmech._checks.affordable_count)
    (("n_elems = 20", "n_elems = 1000000000"),
     r"n_elems = 1000000000 is not allowed: must be an integer in \[[13], \d+\]"),
    (("worlds = 1", "worlds = 1000000000"), r"worlds = 1000000000 is not allowed.*1\.\.1000000"),
])
def test_a_tiny_scenario_declaring_huge_counts(tmp_path, edit, match):
    (tmp_path / "s.toml").write_text(EXAMPLE.read_text().replace(*edit, 1))
    _refused_cheaply(lambda: load_scenario(tmp_path / "s.toml").compile(), match)


def test_a_discrete_rod_with_a_billion_elements():
    scene = sm.Scene()
    _refused_cheaply(lambda: scene.add_der_rod(start=(0, 0, 0), direction=(1, 0, 0), length=1.0,
                                               n_elems=10**9, radius=0.01, density=1000.0,
                                               youngs_modulus=1e6),
                     r"n_elems = 1000000000 is not allowed")


# --------------------------------------------------------------- damaged results files
@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """A good results file of a tiny snake and damaged / foreign variants of it."""
    from softmech.scenarios.snake import build_snake

    folder = tmp_path_factory.mktemp("damaged")
    scene, _ = build_snake(4, dt=1e-4)
    good = folder / "good.h5"
    sm.record_to_file(scene.compile(dt=1e-4), good, duration=0.01, every=0.005,
                      fields=("com", "positions", "directors"), scene_name="snake")
    data = good.read_bytes()
    flipped = bytearray(data)
    for i in range(2000, len(flipped), 997):
        flipped[i] ^= 0xFF
    files = {"text": b"hello, not HDF5\n", "empty": b"", "truncated": data[:len(data) // 2],
             "header_only": data[:1000], "bit_flipped": bytes(flipped)}
    for name, content in files.items():
        (folder / f"{name}.h5").write_bytes(content)
    with h5py.File(folder / "foreign.h5", "w") as f:
        f["x"] = np.arange(3)
    with h5py.File(folder / "foreign_format.h5", "w") as f:     # claims to be softmech's
        f.attrs.update({"format": "softmech-results", "format_version": 2})
        f["x"] = np.arange(3)
    with h5py.File(folder / "giant.h5", "w") as f:      # 6 kB declaring 80 GB of samples
        f.attrs.update({"format": "softmech-results", "format_version": 2})
        f.create_dataset("time", shape=(10**10,), dtype="f8", chunks=(4096,))
    return folder


DAMAGED = ["text", "empty", "truncated", "header_only", "bit_flipped", "foreign",
           "foreign_format", "giant"]


def test_a_results_file_declaring_giant_datasets_is_refused_before_reading(damaged):
    from softmech.resultsfile import describe, load_results

    for read in (describe, load_results):
        _refused_cheaply(lambda: read(damaged / "giant.h5"),
                         r"dataset /time declares shape \(10000000000,\)")


@pytest.mark.parametrize("command", ["info", "render", "view"])
@pytest.mark.parametrize("name", DAMAGED)
def test_a_damaged_results_file_gives_a_clear_error(damaged, name, command, capsys, tmp_path):
    extra = {"info": [], "render": ["--output", str(tmp_path / "o")],
             "view": ["--html", str(tmp_path / "v.html")]}[command]
    assert main([command, str(damaged / f"{name}.h5"), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"softmech {command}: error: ") and "Traceback" not in err
    assert f"{name}.h5" in err


@pytest.mark.parametrize("name", ["text", "truncated", "bit_flipped", "foreign_format", "giant"])
def test_resuming_from_a_damaged_results_file(damaged, name, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.h5").write_bytes((damaged / f"{name}.h5").read_bytes())
    assert main(["run", "snake", "--n-elems", "4", "--duration", "0.001", "--output", str(out),
                 "--quiet", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("softmech run: error: ") and "results.h5" in err
    if name == "giant":     # refused by name, not read first by the check for a torn file
        assert "dataset /time declares shape (10000000000,)" in err


@pytest.mark.parametrize("command", ["optimize", "sweep"])
@pytest.mark.parametrize("content", [b"\x00\xff" * 150, b'{"kind":"header"}\n{{{\n{"a":1}\n',
                                     "hdf5"])
def test_resuming_a_campaign_or_sweep_from_a_damaged_log(damaged, tmp_path, command, content,
                                                         capsys):
    """The resumable state of optimize and sweep is a JSON-lines log (campaign.jsonl,
    evaluations.jsonl): random bytes, a damaged line, or an HDF5 file in its place are refused
    in one line (exit 2) before anything runs."""
    from kill_harness import OPTIMIZE

    (tmp_path / "o.toml").write_text(EXAMPLE.read_text().replace("duration = 2.0",
                                                                 "duration = 0.02") + OPTIMIZE)
    out = tmp_path / "out"
    out.mkdir()
    content = (damaged / "foreign.h5").read_bytes() if content == "hdf5" else content
    for name in ("campaign.jsonl", "evaluations.jsonl"):
        (out / name).write_bytes(content)
    extra = ["--param", "rods.rod.youngs_modulus=1e6:1e7:2"] if command == "sweep" else []
    assert main([command, str(tmp_path / "o.toml"), *extra, "--output", str(out), "--resume",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"softmech {command}: error: ") and ".jsonl" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("nested", ["a = " + "{b = " * 5000 + "1" + "}" * 5000,
                                    "a = " + "[" * 100000 + "1" + "]" * 100000,
                                    "a = " + "[" * 40 + "1" + "]" * 40])
def test_a_deeply_nested_scenario_is_refused_not_a_recursion_error(nested):
    """Issue 32: 5,000 nested tables or 100,000 nested arrays ended in RecursionError (from
    load_scenario too); now a ScenarioError names the limit (MAX_NESTING = 32), whether the
    parser or the reader would have recursed."""
    from softmech.scenefile import loads_scenario
    with pytest.raises(ScenarioError, match=r"nested .*at most 32 levels"):
        loads_scenario("[scene]\nname = 'x'\n" + nested + "\n")


def test_an_oversized_scenario_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A scenario file above MAX_SCENARIO_BYTES (64 MiB; lowered here) is refused from its size."""
    import softmech.scenefile.reader as reader
    monkeypatch.setattr(reader, "MAX_SCENARIO_BYTES", 1000)
    path = tmp_path / "big.toml"
    path.write_text("# padding\n" * 200)
    with pytest.raises(ScenarioError, match=r"2,000 bytes is not allowed: a scenario file may have "
                                            r"at most 1,000 bytes"):
        reader.load_scenario(path)


@pytest.mark.parametrize("call, field", [
    (lambda s: s.add_cylinder(name="c", position=(0, 0, 0), radius=True, length=1.0,
                              density=1e3), r"body 'c'.radius = True"),
    (lambda s: s.add_cosserat_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0),
                                  normal=(0, 0, 1), length=1.0, n_elems=4, radius=0.01,
                                  density=[True, 1e3, 1e3, 1e3], youngs_modulus=1e6),
     r"rod 'r'.density = \[True, 1000.0, 1000.0, 1000.0\]"),
    (lambda s: s.add_der_rod(name="d", start=(0, 0, 0), direction=(1, 0, 0), length=1.0,
                             n_elems=4, radius=0.01, density=1e3, youngs_modulus=np.bool_(1)),
     r"der_rod 'd'.youngs_modulus = (np\.)?True_?"),
])
def test_a_boolean_is_not_a_number(call, field):
    """Issue 32: add_cylinder(radius=True) built a cylinder of radius 1 m (mass 3141.59 kg);
    True / False (Python's or numpy's, alone or in a list) are refused wherever a number is
    expected (softmech._checks.finite)."""
    with pytest.raises(ValueError, match=field + r" is not allowed: must be a number or array "
                                                 r"of numbers, not True / False"):
        call(sm.Scene())
