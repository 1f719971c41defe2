"""Shared pieces of the results-file fuzz (tests/reliability/test_fuzz_results_files.py,
benchmarks/fuzz_results_files.py) and of test_results_layout.py: real results files written by
`softmech run` (a snake: rods and derived values; the rod pendulum: rods, rigid bodies and
joints; the parachute: discrete rods and a shell, implicit), hypothesis strategies that damage
copies of them, and the one property every case must satisfy:

    every reader -- load_results, describe (softmech info, also its text and JSON output), the
    pictures' read_results with what view and render take from it (the bodies at a sample,
    the video's frame times, the floor), and resume (ResultsWriter.reopen, its settings and
    restore_checkpoint into the compiled scene) -- either reads the file, and then what it read
    is consistent (checked here independently of the checker: every series (worlds, len(time),
    ...) of real floats, /time 1-D finite non-decreasing, positions of each rod (n_nodes, 3), a
    restored checkpoint within the samples), or raises a ValueError of one line naming the file.

Anything else -- a TypeError, IndexError, KeyError, h5py's own errors, an inconsistent read --
is a failure. The damage: a dataset's shape (a row more or less on any axis, an axis more or
less), dtype (complex, float32, integers, booleans, bytes, text), length along the samples;
a dataset or group deleted; an attribute deleted or set to text, undecodable bytes, complex,
NaN, inf, 0, -1, 2**62, an array, a boolean; values set to NaN, inf or negative; JSON and text
broken; a series made non-resizable; a soft or external link; the file cut at a random byte or
1 to 16 random bytes flipped; and complete set to False (an interrupted run, resumable)."""
import json
import os
import shutil
import traceback
import warnings
from collections import Counter

import h5py
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "rod_pendulum.toml")
BASE_RUNS = {
    "snake": ["run", "snake", "--n-elems", "4", "--duration", "0.2", "--quiet"],
    "pendulum": ["run", EXAMPLE, "--duration", "0.01", "--quiet"],
    "parachute": ["run", "parachute", "--duration", "0.02", "--quiet"],
}
"""`softmech run` command lines of the base files (each a few seconds)."""
DEFAULT_EXAMPLES = int(os.environ.get("SOFTMECH_FUZZ_RESULTS_EXAMPLES", "200"))
RANDOM = os.environ.get("SOFTMECH_FUZZ_RANDOM") == "1"


# -------------------------------------------------------------------------------- files
def make_base(folder, argv):
    """Run `softmech` with argv in folder/base; the path of its results.h5."""
    from softmech.cli import main

    out = os.path.join(str(folder), "base")
    assert main([*argv, "--output", out]) == 0
    return os.path.join(out, "results.h5")


def replace_dataset(f, name, data, *, dtype=None, series=False):
    """Replace dataset `name` of the open file `f` by `data` (keeping its attributes); with
    `series` resizable along axis 1 and chunked, as the writer makes time series."""
    attrs = dict(f[name].attrs) if name in f else {}
    if name in f:
        del f[name]
    data = np.asarray(data) if dtype is None else data
    kw = {}
    if series and np.ndim(data) >= 2:
        kw = {"maxshape": (data.shape[0], None) + data.shape[2:], "chunks": True}
    f.create_dataset(name, data=data, dtype=dtype, **kw)
    f[name].attrs.update(attrs)


def objects(path):
    """(datasets, groups) of a file: their paths."""
    datasets, groups = [], ["/"]
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: (datasets if isinstance(o, h5py.Dataset) else groups).append(n))
    return datasets, groups


class Base:
    """A base file, the objects in it and (for resume) its compiled scene."""

    def __init__(self, name, path):
        import argparse

        from softmech.commands import run

        parser = argparse.ArgumentParser()
        run.add_arguments(parser)
        self.name, self.path = name, path
        self.datasets, self.groups = objects(path)
        self.sim = run.scenario_of(parser.parse_args(BASE_RUNS[name][1:])).compile()


def make_bases(folder, names=tuple(BASE_RUNS)):
    return {name: Base(name, make_base(os.path.join(str(folder), name), BASE_RUNS[name]))
            for name in names}


# ----------------------------------------------------------------------------- damage
DELETE = "<delete>"
ATTR_VALUES = [DELETE, "abc", b"\x80\xff", 1 + 2j, np.nan, np.inf, 0, -1, 2**62,
               np.array([1.0, 2.0]), True, "", np.array([True, False]), 2.5]
DTYPES = ["complex128", "float32", "int64", "bool", "S8", "str", "uint8"]
TEXTS = ["", "{", "[1, 2]", "null", '{"a": NaN}', "\x00", "[" * 5000]


@st.composite
def damage(draw, base):
    """A list of (kind, target, value) edits of base file `base`: 1 to 3 of them, or one cut /
    byte flips of the whole file."""
    bytes_level = draw(st.integers(0, 9))
    if bytes_level == 0:
        return [("cut", None, draw(st.floats(0.0, 1.0)))]
    if bytes_level == 1:
        return [("flip", None, draw(st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(1, 255)),
                                             min_size=1, max_size=16)))]
    edits = [("complete", None, draw(st.booleans()))]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["shape", "dtype", "length", "delete", "attr", "attr",
                                     "value", "text", "fixed", "link"]))
        target = draw(st.sampled_from(base.groups if kind in ("attr", "delete") and
                                      draw(st.booleans()) else base.datasets))
        if kind == "shape":
            value = (draw(st.sampled_from(["row+", "row-", "axis+", "axis-", "transpose"])),
                     draw(st.integers(0, 4)))
        elif kind == "dtype":
            value = draw(st.sampled_from(DTYPES))
        elif kind == "length":
            value = draw(st.integers(-30, 30))
        elif kind == "attr":
            value = (draw(st.sampled_from(["complete", "dt", "duration", "worlds", "format",
                                           "format_version", "scheme", "units", "n_nodes",
                                           "n_elems", "closed", "shape", "fixed", "kind",
                                           "a_body", "b_node", "n_samples", "steps", "time",
                                           "time_origin", "delete-any"])),
                     draw(st.sampled_from(ATTR_VALUES)))
        elif kind == "value":
            value = (draw(st.sampled_from([np.nan, np.inf, -1.0, 0.0, 1e300])),
                     draw(st.floats(0.0, 1.0)))
        elif kind == "text":
            target = draw(st.sampled_from(["settings_json", "scene_toml"]))
            value = draw(st.sampled_from(TEXTS + [b"\x80abc", 3.5]))
        else:
            value = draw(st.sampled_from(["soft", "external"])) if kind == "link" else None
        edits.append((kind, target, value))
    return edits


def damage_bytes(source, target, kind, value):
    """Write the file `source` to `target` cut at the fraction `value` of its length (kind
    "cut") or with bytes flipped (kind "flip": value lists (fraction, xor mask) pairs)."""
    data = bytearray(open(source, "rb").read())
    if kind == "cut":
        data = data[:int(value * len(data))]
    else:
        for where, mask in value:
            data[min(int(where * len(data)), len(data) - 1)] ^= mask
    with open(target, "wb") as out:
        out.write(bytes(data))


def reshaped(data, how, axis):
    """`data` with a row more ("row+") or less ("row-") along `axis` (modulo its dimensions),
    an axis more ("axis+") or less ("axis-", the first entry), or else transposed."""
    axis = axis % max(np.ndim(data), 1)
    if how == "row+" and np.ndim(data):
        return np.concatenate([data, np.take(data, [-1], axis=axis)], axis=axis) \
            if data.shape[axis] else np.ones(data.shape[:axis] + (1,) + data.shape[axis + 1:])
    if how == "row-" and np.ndim(data) and data.shape[axis]:
        return np.delete(data, -1, axis=axis)
    if how == "axis+":
        return np.expand_dims(data, axis % (np.ndim(data) + 1))
    if how == "axis-" and np.ndim(data):
        return np.take(data, 0, axis=axis)
    return np.asarray(data).T


def apply(path, edits, elsewhere):
    """Apply `edits` (damage) to the file at `path`; `elsewhere` is another results file (the
    target of an external link). Edits that do not apply (a target already deleted) are
    skipped."""
    if edits[0][0] in ("cut", "flip"):
        damage_bytes(path, path, edits[0][0], edits[0][2])
        return
    with h5py.File(path, "r+") as f:
        for kind, target, value in edits:
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")     # complex to real, NaN to int
                    _edit(f, kind, target, value, elsewhere)
            except (KeyError, ValueError, TypeError, IndexError, OSError):
                pass            # a target deleted by an earlier edit, or h5py refused the edit


def _edit(f, kind, target, value, elsewhere):
    if kind == "complete":
        f.attrs["complete"] = value
        return
    if kind == "attr":
        key, v = value
        obj = f[target]
        if key == "delete-any":
            if len(obj.attrs):
                del obj.attrs[sorted(obj.attrs)[0]]
        elif v is DELETE:
            del obj.attrs[key]
        else:
            obj.attrs[key] = v
        return
    if kind == "delete":
        if target != "/":
            del f[target]
        return
    if kind == "text":
        replace_dataset(f, target, value, dtype=h5py.string_dtype() if isinstance(value, str)
                        else None)
        return
    if kind == "link":
        del f[target]
        f[target] = (h5py.SoftLink("/time") if value == "soft"
                     else h5py.ExternalLink(elsewhere, target))
        return
    ds = f[target]
    data = ds[()]
    series = ds.maxshape is not None and len(ds.maxshape) >= 2 and ds.maxshape[1] is None
    if kind == "shape":
        data = reshaped(data, *value)
    elif kind == "dtype":
        if value == "str":
            replace_dataset(f, target, np.asarray(data).astype(str).astype(object),
                            dtype=h5py.string_dtype())
            return
        data = np.asarray(data).astype(value)
    elif kind == "length":
        if not series and target != "time":
            return
        axis = 0 if target == "time" else 1
        n = max(0, data.shape[axis] + value)
        ds.resize(n, axis=axis)
        return
    elif kind == "value":
        v, where = value
        flat = np.array(data, dtype=float if np.asarray(data).dtype.kind in "fiub" else None)
        if flat.dtype.kind != "f" or not flat.size:
            return
        flat.reshape(-1)[min(int(where * flat.size), flat.size - 1)] = v
        data = flat.astype(np.asarray(data).dtype) if np.isfinite(v) else flat
    elif kind == "fixed":
        replace_dataset(f, target, data)
        return
    replace_dataset(f, target, data, series=series and kind != "fixed")


# --------------------------------------------------------------------------- property
class Outcomes(Counter):
    """Counts of the cases by how they ended; `failures`: descriptions of the failed ones."""

    def __init__(self):
        super().__init__()
        self.failures = []


def new_outcomes():
    return Outcomes()


def read_all(path, base):
    """Every reader on the damaged file at `path`; {reader: "accepted" | "refused"} or an
    AssertionError naming the reader, what it raised or what it read inconsistently."""
    import softmech.resultsfile as rf
    from softmech.commands.info import format_description
    from softmech.viz.source import (bodies_at, frame_samples, ground_height, nearest_sample,
                                     read_results)
    from softmech.viz.underwater import revolve_shells

    def info():
        d = rf.describe(path)
        json.dumps(d)
        format_description(d, scene=True)
        assert d["n_samples"] == len(_consistent(rf.load_results(path), path)["time"])

    def load():
        _consistent(rf.load_results(path), path)

    def pictures():
        data = revolve_shells(read_results(path))
        _consistent(data.results, path)
        time = data.time
        if len(time):
            if any(f"{b}.positions" in data.results for b in data.rods + tuple(data.solids)
                   + tuple(data.meshes)):
                bodies_at(data, len(time) - 1, 0)
                ground_height(data, 0)
            frame_samples(time, 25.0)
            nearest_sample(time, float(time[-1]))

    def resume():
        with rf.ResultsWriter.reopen(path) as writer:
            assert isinstance(writer.settings(), dict)
            n_time = writer.n_samples
            n = writer.restore_checkpoint(base.sim)
            assert 1 <= n <= n_time, (n, n_time)

    out = {}
    for name, reader in (("info", info), ("load", load), ("pictures", pictures),
                         ("resume", resume)):
        try:
            reader()
            out[name] = "accepted"
        except ValueError as err:
            message = str(err)
            if name == "resume" and "that run is complete" in message:
                out[name] = "complete"      # not resumable: correct, and no damage seen
                continue
            if "\n" in message or path not in message:
                raise AssertionError(f"{name}: unclear ValueError: {message}") from None
            out[name] = "refused"
        except AssertionError as err:
            raise AssertionError(f"{name}: misread: {err!r}") from None
        except Exception:        # noqa: BLE001 - any other exception is the failure sought
            raise AssertionError(f"{name}: traceback:\n{traceback.format_exc()}") from None
    return out


def _consistent(results, path):
    """AssertionError unless what a reader returned fits together (independent of the
    checker): /time 1-D finite non-decreasing floats, every series (worlds, n, ...) of real
    floats, each rod's positions (n_nodes, 3) as its description says."""
    with h5py.File(path, "r") as f:
        worlds = int(f.attrs["worlds"])
        nodes = {name: int(g.attrs["n_nodes"]) for name, g in f.get("rods", {}).items()
                 if "n_nodes" in g.attrs}
    t = np.asarray(results["time"])
    assert t.ndim == 1 and t.dtype.kind == "f" and np.all(np.isfinite(t)), "time"
    assert np.all(np.diff(t) >= 0), "time decreases"
    for key, value in results.items():
        if "." not in key:          # time, user recorders and derived values
            continue
        assert isinstance(value, np.ndarray) and value.dtype.kind == "f", (key, value.dtype)
        assert value.shape[:2] == (worlds, len(t)), (key, value.shape, worlds, len(t))
        owner, field = key.split(".", 1)
        if field == "positions" and owner in nodes:
            assert value.shape[2:] == (nodes[owner], 3), (key, value.shape)
    return results


def one_case(base, edits, folder, outcomes, elsewhere, *, strict=True):
    """Copy base, damage it, read it with every reader; counts into `outcomes`. A failure of
    the property raises AssertionError (strict) or is counted as a traceback or a misread, its
    first lines kept in outcomes.failures (the benchmark's report)."""
    path = os.path.join(folder, "case.h5")
    shutil.copyfile(base.path, path)
    apply(path, edits, elsewhere)
    outcomes["cases"] += 1
    try:
        result = read_all(path, base)
        # one checker: a reader refuses what a reader that reads less refused; it may refuse
        # more -- load the values of positions and directors, which info does not read; the
        # pictures what they need to draw (a rigid body's directors); resume a checkpoint
        accepted = {reader: verdict == "accepted" for reader, verdict in result.items()}
        assert (accepted["load"] <= accepted["info"] and accepted["pictures"] <= accepted["load"]
                and accepted["resume"] <= accepted["info"]), \
            f"misread: the readers disagree: {result}"
    except AssertionError as err:
        if strict:
            raise
        kind = "misreads" if "misread" in str(err) else "tracebacks"
        outcomes[kind] += 1
        outcomes.failures.append(f"{base.name} {edits}: {str(err)[-800:]}")
        return
    outcomes["refused" if "refused" in result.values() else "accepted"] += 1
    for reader, verdict in result.items():
        outcomes[f"{reader} {verdict}"] += 1


def fuzz_settings(n):
    """n examples, no deadline, derandomized (the same cases every run) unless
    SOFTMECH_FUZZ_RANDOM=1."""
    return settings(max_examples=n, deadline=None, derandomize=not RANDOM, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=True)
