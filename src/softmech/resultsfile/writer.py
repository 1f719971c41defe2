"""ResultsWriter: creates a results file (layout.py) and appends samples to it incrementally.

Every `append` writes the samples into resizable, chunked, gzip-compressed datasets and flushes
the file, so a process killed afterwards (even by SIGKILL) leaves a readable file holding every
appended sample; only samples not yet appended are lost. Checkpoints (the exact state and clock
at a sample) let `record_to_file(..., resume=True)` continue such a run bit for bit.
"""
import datetime
import json
import os

import h5py
import numpy as np

from softmech._version import __version__
from softmech.resultsfile import layout
from softmech.recording import rods_of
from softmech.resultsfile.description import write_description


HISTORY = "_history"
"""Checkpoint group of an implicit simulation's history (softmech.implicit: reference frames)."""


class ResultsWriter:
    """An open results file. Use `create` (new file) or `reopen` (continue an unfinished one)."""

    def __init__(self, h5file):
        self.file = h5file
        self.recorder_units = {}
        """Units [str] of user recorders by name (set before their first append)."""
        self.rigid_bodies = frozenset(h5file.get("bodies", {}))
        self.shells = frozenset(h5file.get("shells", {}))
        """Names of the rigid bodies: their time series go to /bodies/<name>."""

    # -------------------------------------------------------------------------- opening
    @classmethod
    def create(cls, path, sim, *, duration, settings, scene_text="", scene_name=""):
        """A new file at `path` (an existing file is replaced) for simulation `sim`: the root
        attributes (complete = False), /scene_toml, /settings_json (the dict `settings`), and
        the description of its rods, rigid bodies and joints (description.py)."""
        path = os.fspath(path)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        f = h5py.File(path, "w")
        try:
            f.attrs.update({
                "format": layout.FORMAT, "format_version": layout.FORMAT_VERSION,
                "softmech_version": __version__, "scene": scene_name or "",
                "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                    timespec="seconds"),
                "complete": False, "dt": float(sim.dt), "duration": float(duration),
                "scheme": sim.scheme, "worlds": int(sim.worlds)})
            f.create_dataset("scene_toml", data=scene_text or "", dtype=h5py.string_dtype())
            f.create_dataset("settings_json", data=json.dumps(settings, sort_keys=True),
                             dtype=h5py.string_dtype())
            f.create_dataset("time", shape=(0,), maxshape=(None,), dtype="f8", chunks=(4096,))
            f["time"].attrs["units"] = layout.UNITS["time"]
            write_description(f, sim)
            f.flush()
        except BaseException:
            f.close()
            raise
        return cls(f)

    @classmethod
    def open(cls, path, *, values=False):
        """Open an existing results file for writing; ValueError if `path` is missing or not a
        sound results file (reader.check_format; `values`: also its recorded positions and
        directors, which a resumed run keeps)."""
        from softmech.resultsfile.reader import check_format, damaged_file_errors

        with damaged_file_errors(path):
            return cls(h5py.File(check_format(path, values=values), "r+"))

    @classmethod
    def reopen(cls, path):
        """Open an unfinished results file to continue it; ValueError if `path` is missing, not
        a results file, already complete, or has no checkpoint."""
        from softmech.resultsfile.reader import damaged_file_errors

        writer = cls.open(path, values=True)
        f = writer.file
        try:
            with damaged_file_errors(path):
                complete = bool(f.attrs["complete"])
            if complete:
                raise ValueError(f"{path} is not allowed for resume: that run is complete, "
                                 "there is nothing to resume")
            writer.checkpoint_group()
        except BaseException:
            f.close()
            raise
        return writer

    def settings(self):
        """The stored run settings (dict)."""
        return json.loads(self.file["settings_json"][()])

    # ---------------------------------------------------------------------------- samples
    @property
    def n_samples(self):
        return self.file["time"].shape[0]

    def append(self, samples):
        """Append `samples` (list of dicts: 'time' float [s] and Results keys -> (B, ...)
        arrays) to the time series, creating the datasets at the first call; then flush."""
        if not samples:
            return
        n0, k = self.n_samples, len(samples)
        # /time last: it is the commit marker (readers take n = len(/time)), so a kill part-way
        # through leaves no time without its samples
        for key in sorted(samples[0], key=lambda name: name == "time"):
            stacked = np.array([s["time"] for s in samples], dtype=float) if key == "time" else \
                np.stack([np.asarray(s[key], dtype=float) for s in samples], axis=1)
            ds = self._series(key, stacked)
            axis = 0 if key == "time" else 1
            if ds.shape[axis] < n0:
                raise RuntimeError(f"results file: {ds.name} holds {ds.shape[axis]} samples, "
                                   f"/time {n0} (corrupt file?)")
            ds.resize(n0 + k, axis=axis)
            if axis == 0:
                ds[n0:] = stacked
            else:
                ds[:, n0:] = stacked
        self.file.flush()

    def _series(self, key, stacked):
        """The dataset of Results key `key`, created from the first values (B, k, ...)."""
        path = layout.series_path(key, self.rigid_bodies, self.shells)
        if path in self.file:
            ds = self.file[path]
            if key != "time" and ds.shape[:1] + ds.shape[2:] != stacked.shape[:1] + stacked.shape[2:]:
                raise ValueError(f"{key} has shape {stacked.shape[:1] + stacked.shape[2:]} per "
                                 f"sample, expected {ds.shape[:1] + ds.shape[2:]} (as before)")
            return ds
        sample_shape = stacked.shape[2:]
        ds = self.file.create_dataset(
            path, shape=(stacked.shape[0], 0) + sample_shape,
            maxshape=(stacked.shape[0], None) + sample_shape, dtype="f8",
            chunks=layout.chunk_shape(sample_shape, stacked.shape[0]), compression="gzip",
            compression_opts=4, shuffle=True, fletcher32=True)   # a torn chunk is detected
        field = key.split(".", 1)[1] if "." in key else None
        ds.attrs["units"] = layout.UNITS.get(field, "") if field else self.recorder_units.get(key, "")
        return ds

    def truncate(self, n_samples):
        """Drop every sample after the first `n_samples` (resume: back to the checkpoint)."""
        for ds in self._all_series():
            ds.resize(n_samples, axis=0 if ds.name == "/time" else 1)
        self.file.flush()

    def _all_series(self):
        out = [self.file["time"]]
        for group in ("rods", "bodies", "shells", "recorders"):
            for sub in self.file.get(group, {}).values():
                items = sub.values() if isinstance(sub, h5py.Group) else [sub]
                out += [d for d in items if layout.is_series(d)]
        return out

    # ------------------------------------------------------------------------ checkpoints
    def write_checkpoint(self, sim, n_samples):
        """The exact state of every rod and rigid body and the clock of `sim`, taken at sample
        n_samples - 1; a rigid body's directors and angular velocities in its principal frame
        (Simulation.get_state(principal=True): exact; group attribute frame = "principal").
        Written under a temporary name and renamed, so a kill meanwhile keeps the previous one."""
        f = self.file
        if layout.CHECKPOINT_TMP in f:
            del f[layout.CHECKPOINT_TMP]
        g = f.create_group(layout.CHECKPOINT_TMP)
        rigid = {b.name for b in sim.rigid_bodies}
        for body in rods_of(sim) + sim.rigid_bodies + list(getattr(sim, "shells", ())):
            for key, value in sim.get_state(body.name, principal=True).items():
                g.create_dataset(f"{body.name}/{key}", data=value)
                g[f"{body.name}/{key}"].attrs["units"] = layout.UNITS[key]
            if body.name in rigid:
                g[body.name].attrs["frame"] = "principal"
        for key, value in getattr(sim, "history", dict)().items():
            # what an implicit simulation keeps between steps (a discrete rod's reference
            # frames): without it a resumed run would not continue bit for bit
            g.create_dataset(f"{HISTORY}/{key}", data=value)
        origin, steps = sim.clock
        g.attrs.update({"time_origin": origin, "steps": steps, "n_samples": int(n_samples),
                        "time": float(sim.time)})
        f.flush()
        if layout.CHECKPOINT in f:
            del f[layout.CHECKPOINT]
        f.move(layout.CHECKPOINT_TMP, layout.CHECKPOINT)
        f.flush()

    def checkpoint_group(self):
        """The valid checkpoint group (the renamed one, or a fully written temporary one if the
        process died between deleting the old and renaming the new)."""
        for name in (layout.CHECKPOINT, layout.CHECKPOINT_TMP):
            g = self.file.get(name)
            if g is not None and "n_samples" in g.attrs:
                return g
        raise ValueError(f"{self.file.filename} has no checkpoint: nothing to resume")

    def restore_checkpoint(self, sim):
        """Set `sim`'s state and clock from the checkpoint and drop later samples; returns the
        checkpoint's n_samples."""
        g = self.checkpoint_group()
        rigid = {b.name for b in sim.rigid_bodies}
        where = f"results file {self.file.filename!r} is not allowed for resume: {g.name}"
        # the file's layout is checked (validate_layout); what only the scene can tell -- its
        # bodies, their sizes, the integrator's memory -- is checked by set_state and
        # set_history, whose messages are given the file and the group
        for body in rods_of(sim) + sim.rigid_bodies + list(getattr(sim, "shells", ())):
            if body.name not in g:
                raise ValueError(f"{where} has no body {body.name!r} (bodies: {list(g)}): not a "
                                 "checkpoint of this scene")
            try:
                sim.set_state(body.name, principal=body.name in rigid,
                              **{k: ds[()] for k, ds in g[body.name].items()})
            except ValueError as err:
                raise ValueError(f"{where}/{body.name}: {err}") from None
        if HISTORY in g:
            try:
                sim.set_history({k: ds[()] for k, ds in g[HISTORY].items()})
            except ValueError as err:
                raise ValueError(f"{where}/{HISTORY}: {err}") from None
        sim.clock = (float(g.attrs["time_origin"]), int(g.attrs["steps"]))
        n = int(g.attrs["n_samples"])     # within /time's samples: validate_layout checked it
        self.truncate(n)
        return n

    # -------------------------------------------------------------------------- finishing
    def write_derived(self, values, units=None):
        """Quantities derived after the run (name -> array) under /derived, replacing old ones,
        each with its `units` attribute: units[name], else layout.DERIVED_UNITS[name] (a name
        in neither gets none)."""
        units = {**layout.DERIVED_UNITS, **(units or {})}
        for name, value in values.items():
            layout.valid_name("derived quantity name", name)
            path = f"derived/{name}"
            if path in self.file:
                del self.file[path]
            value = np.asarray(value)
            if value.dtype.kind == "U":         # h5py stores text as variable-length UTF-8
                value = value.astype(object)
                self.file.create_dataset(path, data=value, dtype=h5py.string_dtype())
            else:
                self.file.create_dataset(path, data=value)
            if name in units:
                self.file[path].attrs["units"] = units[name]
        self.file.flush()

    def finish(self):
        """Mark the run complete (attr complete = True) and flush."""
        self.file.attrs["complete"] = True
        self.file.flush()

    def close(self):
        self.file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
