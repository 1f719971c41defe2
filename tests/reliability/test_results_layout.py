"""Crafted and damaged results files (issue 32, "one reader of results files"): every case the
issue lists, each refused by the one layout checker (softmech.resultsfile.validate_layout)
through the Python API (load_results, describe, viz.source.read_results, ResultsWriter.reopen)
and through `softmech info`, `view`, `render` and `run --resume`: exit 2 and one line naming the
file, the dataset or attribute, what it holds and what was expected. Before the checker these
ended in tracebacks (TypeError), were read back silently (a short or complex series, dt =
"abc" resumed), or gave messages naming nothing ("Expecting value: line 1 column 1")."""
import os
import shutil

import h5py
import numpy as np
import pytest

from fuzz_results import make_base, replace_dataset
from softmech.cli import main
from softmech.resultsfile import ResultsWriter, describe, load_results
from softmech.viz.source import read_results


def _time_2d(f):
    replace_dataset(f, "time", np.zeros((len(f["time"]), 3)))


def _time_bytes(f):
    replace_dataset(f, "time", np.array([b"0.1"] * len(f["time"])))


def _time_inf(f):
    f["time"][-1] = np.inf


def _time_decreasing(f):
    f["time"][1] = -1.0


def _settings_number(f):
    replace_dataset(f, "settings_json", np.float64(3.5))


def _settings_not_json(f):
    replace_dataset(f, "settings_json", "", dtype=h5py.string_dtype())


def _settings_list(f):
    replace_dataset(f, "settings_json", "[1, 2]", dtype=h5py.string_dtype())


def _scene_not_utf8(f):
    replace_dataset(f, "scene_toml", np.bytes_(b"\x80abc"))


def _name_not_utf8(f):
    # an object name whose bytes are not UTF-8 (a damaged name: found by the results fuzz, a
    # flipped byte in the parachute's file; h5py raised a UnicodeDecodeError naming nothing)
    f.create_dataset(b"derived/a\xf4\x80b", data=[1.0])


def _com_short(f):
    com = f["rods/snake/com"]
    replace_dataset(f, "rods/snake/com", com[:, :5], series=True)


def _com_complex(f):
    com = f["rods/snake/com"]
    replace_dataset(f, "rods/snake/com", com[()] + 0j, series=True)


def _positions_nodes(f):
    x = f["rods/snake/positions"]
    replace_dataset(f, "rods/snake/positions", x[:, :, :-1], series=True)


def _dt_text(f):
    f.attrs["dt"] = "abc"


def _duration_text(f):
    f.attrs["duration"] = "abc"


def _complete_array(f):
    f.attrs["complete"] = np.array([True, False])


def _checkpoint_time_text(f):
    f["checkpoint"].attrs["time"] = "late"


def _worlds_zero(f):
    f.attrs["worlds"] = 0


def _radius_huge(f):
    f["rods/snake/radius"][0, 0] = 1e300


def _positions_nan(f):
    f["rods/snake/positions"][0, 3, 2, 1] = np.nan


def _radius_missing(f):
    del f["rods/snake/radius"]


def _format_array(f):
    f.attrs["format"] = np.array([True, False])


# name: (the damage, what the message must say it holds, and what was expected)
CASES = {
    "time_2d": (_time_2d, "/time holds shape (21, 3) float64", "expected shape (n,)"),
    "time_bytes": (_time_bytes, "/time holds dtype |S3", "expected real numbers"),
    "time_inf": (_time_inf, "/time holds inf at sample 20", "expected finite sample times"),
    "time_decreasing": (_time_decreasing, "/time decreases from 0.0 to -1.0 at sample 1",
                        "expected non-decreasing sample times"),
    "settings_number": (_settings_number, "/settings_json holds shape () float64",
                        "expected a scalar string dataset"),
    "settings_not_json": (_settings_not_json, "/settings_json = '' (str) is not JSON",
                          "expected a JSON object"),
    "settings_list": (_settings_list, "/settings_json holds a JSON list", "expected a JSON object"),
    "scene_not_utf8": (_scene_not_utf8, "/scene_toml = b'\\x80abc'", "expected UTF-8 text"),
    "name_not_utf8": (_name_not_utf8, "/derived holds an object named b'a\\xf4\\x80b'",
                      "expected object names in UTF-8 text"),
    "com_short": (_com_short, "/rods/snake/com holds 5 samples against 21 in /time",
                  "expected 21 samples"),
    "com_complex": (_com_complex, "/rods/snake/com holds dtype complex128",
                    "expected real numbers"),
    "positions_nodes": (_positions_nodes, "/rods/snake/positions holds shape (1, 21, 4, 3)",
                        "expected a time series (1, n >= 21, 5, 3) of floats"),
    "dt_text": (_dt_text, "root attribute dt = 'abc' (str)", "expected a finite number > 0 [s]"),
    "duration_text": (_duration_text, "root attribute duration = 'abc' (str)",
                      "expected a finite number >= 0 [s]"),
    "complete_array": (_complete_array, "root attribute complete = [True, False] (bool)",
                       "expected True or False"),
    "checkpoint_time_text": (_checkpoint_time_text,
                             "attribute 'time' of /checkpoint = 'late' (str)",
                             "expected a finite number [s]"),
    "worlds_zero": (_worlds_zero, "root attribute worlds = 0 (int64)",
                    "expected an integer >= 1"),
    # found by the fuzz: a joint point at 1e300 m made a NaN frame in the pictures
    "radius_huge": (_radius_huge, "/rods/snake/radius holds [[1e+300",
                    "expected finite numbers > 0 of magnitude at most 1e+100"),
    "positions_nan": (_positions_nan, "/rods/snake/positions holds nan at index (0, 3, 2, 1)",
                      "expected finite numbers of magnitude at most 1e+100"),
    # found by the fuzz: info read it, view and render said "/rods/snake has no radius"
    "radius_missing": (_radius_missing, "/rods/snake/radius is missing",
                       "expected shape (n, 4)"),
    # found by the fuzz: "The truth value of an array ... is ambiguous"
    "format_array": (_format_array, "attribute format = array([ True, False])",
                     "expected 'softmech-results' (not a softmech results file)"),
}

VALUES = {"positions_nan"}
"""Damage to recorded values, which describe and `softmech info` do not read (they show the
layout): refused by the readers that read them."""

RUN = ["run", "snake", "--n-elems", "4", "--duration", "0.2", "--quiet"]
"""The run that makes the base file (21 samples of the built-in snake)."""


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A real results file of `softmech run` (complete) in its output folder."""
    return make_base(tmp_path_factory.mktemp("layout"), RUN)


def mutated(base, tmp_path, name, *, complete=True):
    """A copy of the base file in a fresh output folder, broken by CASES[name]."""
    out = tmp_path / "out"
    out.mkdir()
    path = out / "results.h5"
    shutil.copyfile(base, path)
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = complete
        CASES[name][0](f)
    return path


def _expect(err, name, path):
    _, holds, expected = CASES[name]
    message = str(err).rstrip("\n")
    assert "\n" not in message and f"results file {str(path)!r} is not allowed: " in message
    assert holds in message and expected in message, message


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_python_readers_refuse_it_naming_the_entry(base, tmp_path, name):
    path = mutated(base, tmp_path, name, complete=False)
    for read in (load_results, describe, read_results, ResultsWriter.reopen):
        if read is describe and name in VALUES:
            assert describe(path)["n_samples"] == 21
            continue
        with pytest.raises(ValueError) as err:
            read(str(path))
        _expect(err.value, name, path)


@pytest.mark.parametrize("command", ["info", "view", "render"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_reading_commands_exit_2_in_one_line(base, tmp_path, name, command, capsys):
    path = mutated(base, tmp_path, name)
    extra = {"info": [], "render": ["--output", str(tmp_path / "r"), "--video"],
             "view": ["--html", str(tmp_path / "v.html")]}[command]
    if command == "info" and name in VALUES:
        assert main([command, str(path), *extra]) == 0
        return
    assert main([command, str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"softmech {command}: error: results file ") and err.count("\n") == 1
    _expect(err, name, path)


@pytest.mark.parametrize("name", sorted(CASES))
def test_resume_exits_2_in_one_line(base, tmp_path, name, capsys):
    path = mutated(base, tmp_path, name, complete=False)
    assert main([*RUN, "--output", str(path.parent), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("softmech run: error: results file ") and err.count("\n") == 1
    _expect(err, name, path)


def test_the_unbroken_file_is_read_and_resumed(base, tmp_path, capsys):
    """The control: the same copy, unbroken, is read by every reader and resumed (an
    incomplete file with its checkpoint is legitimate input)."""
    out = tmp_path / "out"
    out.mkdir()
    path = out / "results.h5"
    shutil.copyfile(base, path)
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = False
    data = load_results(path)
    assert data["snake.com"].shape == (1, 21, 3) and describe(path)["n_samples"] == 21
    assert read_results(str(path)).results["snake.positions"].shape == (1, 21, 5, 3)
    assert main(["info", str(path)]) == 0
    assert main([*RUN, "--output", str(out), "--resume"]) == 0
    with h5py.File(path, "r") as f:
        assert bool(f.attrs["complete"])
    capsys.readouterr()


def test_an_incomplete_file_may_hold_samples_not_yet_in_time(base, tmp_path):
    """A kill between appending a series and /time (written last, the commit marker) leaves
    series one append longer than /time: read (the first len(/time) samples), not refused; the
    same lengths in a complete file are refused."""
    path = tmp_path / "results.h5"
    shutil.copyfile(base, path)
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = False
        f["time"].resize(15, axis=0)
        f["checkpoint"].attrs["n_samples"] = 11         # a checkpoint before the kill
    assert load_results(path)["snake.com"].shape == (1, 15, 3)
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = True
    with pytest.raises(ValueError, match="/rods/snake/[a-z_]+ holds 21 samples against 15 in "
                                         "/time; expected 15 samples"):
        load_results(path)


def test_a_link_to_another_file_is_refused(base, tmp_path):
    path = tmp_path / "results.h5"
    shutil.copyfile(base, path)
    with h5py.File(path, "r+") as f:
        del f["rods/snake/com"]
        f["rods/snake/com"] = h5py.ExternalLink(str(base), "rods/snake/com")
    with pytest.raises(ValueError, match="/rods/snake/com is a ExternalLink; expected a group or "
                                         "dataset stored in the file itself"):
        load_results(path)


def test_an_implicit_checkpoint_whose_memory_has_another_shape(tmp_path, capsys):
    """Found by the fuzz: an implicit run's checkpoint memory (/checkpoint/_history) of another
    shape failed in NumPy ("could not broadcast input array"), naming nothing."""
    run = ["run", "falling_rod", "--duration", "0.005", "--quiet"]
    path = make_base(tmp_path, run)
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = False
        name = sorted(f["checkpoint/_history"])[0]
        value = f[f"checkpoint/_history/{name}"][()]
        replace_dataset(f, f"checkpoint/_history/{name}", np.concatenate([value, value]))
    assert main([*run, "--output", os.path.dirname(path), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"results file {path!r} is not allowed for resume: " \
        f"/checkpoint/_history: checkpoint history '{name}' has shape (2," in err


def test_a_sound_file_is_checked_once_until_its_bytes_change(base, tmp_path, monkeypatch):
    """resultsfile.reader keeps the files it found sound, by their content: a second read of
    the same bytes does not check the layout again (`softmech run` reads its file three
    times), but a byte changed in place -- the same size, within one tick of the file clock --
    is checked again and refused."""
    import softmech.resultsfile.reader as reader

    path = tmp_path / "results.h5"
    shutil.copyfile(base, path)
    # an empty cache: `base` may have been read by another test of this process, and a
    # byte-equal copy of a checked file is not checked again (the key is the bytes, not the path)
    monkeypatch.setattr(reader, "_CHECKED", {})
    calls = []
    check = reader.check_layout
    monkeypatch.setattr(reader, "check_layout", lambda *a, **k: calls.append(1) or check(*a, **k))
    first = load_results(str(path))
    again = load_results(str(path))
    assert len(calls) == 1
    np.testing.assert_array_equal(first["time"], again["time"])
    again["time"][0] = -1.0                   # the caller's copy: the kept one is unchanged
    assert load_results(str(path))["time"][0] == first["time"][0]
    size = os.path.getsize(path)
    with h5py.File(path, "r+") as f:
        f["time"][1] = -1.0                   # decreasing time: refused by the layout check
    assert os.path.getsize(path) == size
    with pytest.raises(ValueError, match="/time"):
        load_results(str(path))
    assert len(calls) == 2


def test_a_datatype_numpy_cannot_represent_is_refused_naming_it(base, tmp_path):
    """CI's results fuzz (2026-11-29): a flipped byte in a float datatype's exponent bias
    (9962495 instead of 1023) made h5py raise "Insufficient precision in available types" when
    `softmech info` read the dataset's dtype: a ValueError that named nothing. The layout check
    now refuses it, naming the dataset, through the API and the commands (exit 2)."""
    from h5py import h5d, h5s, h5t

    path = tmp_path / "odd.h5"
    shutil.copyfile(base, path)
    with h5py.File(path, "r+") as f:
        odd = h5t.IEEE_F64LE.copy()
        odd.set_ebias(9962495)
        h5d.create(f["derived"].id if "derived" in f else f.create_group("derived").id,
                   b"odd", odd, h5s.create_simple((3,)))
    for read in (load_results, describe, read_results):
        with pytest.raises(ValueError, match=r"/derived/odd has a datatype numpy cannot "
                                             r"represent"):
            read(str(path))
    assert main(["info", str(path)]) == 2
