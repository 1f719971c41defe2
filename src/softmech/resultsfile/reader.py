"""Reading results files: `load_results` (the time series as sm.Results) and `describe` (every
attribute and dataset, for `softmech info`)."""
import contextlib
import copy
import hashlib
import os

import h5py
import numpy as np

from softmech.resultsfile import layout
from softmech.resultsfile.validate_layout import DRAWN_FIELDS, check_layout, check_values
from softmech.simulation import Results


@contextlib.contextmanager
def damaged_file_errors(path):
    """Errors of HDF5 reading inside the block (a truncated or corrupt file: OSError, or
    RuntimeError for a damaged object header; a dataset missing from a foreign file: KeyError;
    an object name whose bytes are damaged: h5py's UnicodeDecodeError, a ValueError that names
    nothing) become a ValueError naming the file, so that the commands report it in one line
    instead of a traceback."""
    try:
        yield
    except (OSError, KeyError, RuntimeError, UnicodeDecodeError) as err:
        snapshot = os.fspath(path) + ".checkpoint"      # resultsfile.snapshot
        hint = (f"; its last checkpoint is kept in {snapshot!r}, from which --resume continues"
                if os.path.exists(snapshot) else "")
        raise ValueError(f"results file {os.fspath(path)!r} cannot be read: it is damaged "
                         f"(truncated or corrupt) or not a complete softmech results file "
                         f"({type(err).__name__}: {err}){hint}") from None


def check_format(path, *, values=False):
    """`path` if it is a softmech results file of a supported version whose layout is sound
    (validate_layout.check_layout: every dataset's shape and dtype, every series' length against
    /time, every attribute's type; with `values`, the recorded positions and directors finite),
    else ValueError naming the file and the entry."""
    return _checked(path, values)[0]


_CHECKED = {}
"""(size, BLAKE2 digest of the bytes, values) -> what check_layout read, for the files this
process has found sound: `softmech run` writes a results file and then reads it for the report,
the plots and the video, and a wing's ~94,000 objects take 21-22 s to check each time (45 s
under cProfile; `softmech run wing --duration 0.001` takes ~100-120 s in all), against ~0.05 s
to hash its 39 MB. The key is the content, not the modification time (whose clock ticks in
milliseconds: a byte flipped in place within one tick would otherwise be read unchecked), nor
the path: soundness is a property of the bytes, so a copy of a checked file (the atomic copy
to which `softmech run` adds the report's derived values) is not checked again."""
_CHECKED_MAX = 8


def _content_key(path, values):
    """The _CHECKED key of the file at `path` (read in 1 MiB chunks)."""
    digest = hashlib.blake2b(digest_size=20)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return os.path.getsize(path), digest.hexdigest(), values


def _checked(path, values=False):
    """(path, what check_layout read: time, settings, scene_toml) of a sound results file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"no such file: {path}")
    key = _content_key(path, values)
    if key in _CHECKED:
        return path, copy.deepcopy(_CHECKED[key])     # the caller's to keep
    if not h5py.is_hdf5(path):
        raise ValueError(f"results file {path!r} is not allowed: not an HDF5 file")
    with damaged_file_errors(path), h5py.File(path, "r") as f:
        checked = check_layout(path, f, values=values)
    if len(_CHECKED) >= _CHECKED_MAX:
        _CHECKED.pop(next(iter(_CHECKED)))
    _CHECKED[key] = copy.deepcopy(checked)
    return path, checked


def load_results(path, *, derived=True, fields=None):
    """The time series of a results file as sm.Results: 'time' (n,) [s], '<body>.<field>'
    (B, n, ...) of rods, rigid bodies and shells (meshes, rod networks) and user recorders '<name>' (B, n, ...); with
    `derived`, also the /derived quantities under their names. fields: body fields to read
    (e.g. ('positions',); None: all). Works on an unfinished (crashed) file: it holds the
    samples appended before the crash."""
    path, checked = _checked(path)
    with damaged_file_errors(path), h5py.File(path, "r") as f:
        out = Results(time=checked["time"])
        n = out["time"].shape[0]
        names = {group: tuple(f.get(group, {})) for group in ("rods", "bodies", "shells")}
        for group, owners in names.items():
            for owner in owners:
                for name, ds in f[f"{group}/{owner}"].items():
                    if layout.is_series(ds) and (fields is None or name in fields):
                        out[f"{owner}.{name}"] = ds[:, :n]
                        if name in DRAWN_FIELDS:
                            check_values(path, ds.name, out[f"{owner}.{name}"])
        for name, ds in f.get("recorders", {}).items():
            out[name] = ds[:, :n]
        if derived:
            for name, ds in f.get("derived", {}).items():
                value = ds[()]
                out[name] = value.decode() if isinstance(value, bytes) else value
    out.rods, out.rigid_bodies, out.shells = names["rods"], names["bodies"], names["shells"]
    return out


def describe(path):
    """Everything about a results file as a JSON-ready dict: attrs (root attributes), settings
    (dict), scene_toml (str), n_samples, time_range [s] (or None), and datasets: path ->
    {shape, dtype, units}."""
    path, checked = _checked(path)
    settings, scene, time = checked["settings"], checked["scene_toml"], checked["time"]
    with damaged_file_errors(path), h5py.File(path, "r") as f:
        attrs = {k: _plain(v) for k, v in f.attrs.items()}
        datasets = {}

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and name not in ("scene_toml", "settings_json"):
                units = obj.attrs.get("units", "")
                if not units and name.startswith("derived/"):    # files written before units
                    units = layout.DERIVED_UNITS.get(name.split("/", 1)[1], "")
                datasets["/" + name] = {"shape": list(obj.shape), "dtype": str(obj.dtype),
                                        "units": _plain(units)}
        f.visititems(visit)
        checkpoint = f.get(layout.CHECKPOINT)
        ckpt = ({k: _plain(v) for k, v in checkpoint.attrs.items()} if checkpoint is not None
                else None)
    return {"path": os.path.abspath(path), "attrs": attrs, "settings": settings,
            "scene_toml": scene, "n_samples": int(time.shape[0]),
            "time_range": [float(time[0]), float(time[-1])] if time.size else None,
            "checkpoint": ckpt, "datasets": datasets}


def _plain(value):
    """An HDF5 attribute value as a JSON-ready Python value."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value
