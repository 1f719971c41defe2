"""Crash safety of results files. HDF5 updates a file in place: a process killed (SIGKILL, power
loss) while it appends samples can leave a torn chunk or index, and the file no longer reads
(tests/reliability/test_kill_safety.py found this). So at every checkpoint record_to_file also
keeps an atomic copy of the flushed file, `<results>.checkpoint` (write to a temporary file, then
rename); a resume whose results file does not read back completely starts from that copy, and a
finished run removes it. Updates of a finished file (derived quantities) go through a copy that
replaces the file in one step (`atomic_update`)."""
import contextlib
import os
import shutil

import h5py

from softmech.io import atomic_output

SUFFIX = ".checkpoint"


def snapshot_path(path):
    """The snapshot of results file `path`."""
    return os.fspath(path) + SUFFIX


def _copy(source, target):
    """Copy `source` to `target` atomically (synced temporary file, then rename)."""
    with atomic_output(target) as tmp:
        shutil.copyfile(source, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())


def take(path):
    """Keep an atomic copy of the (flushed) results file `path` beside it."""
    _copy(path, snapshot_path(path))


def discard(path):
    """Remove the snapshot of `path` (the run finished)."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(snapshot_path(path))


def reads_back(path):
    """True if `path` opens and every dataset reads completely (no torn chunk or index). A
    dataset declaring far more than it stores is not read (a forged file, not a torn one: the
    reader's layout check refuses it by name, without allocating what it declares)."""
    from softmech.resultsfile.validate_layout import declares_too_much

    try:
        with h5py.File(path, "r") as f:
            def read(name, obj):
                if isinstance(obj, h5py.Dataset) and not declares_too_much(obj):
                    obj[()]
            f.visititems(read)
            return True
    except Exception:      # noqa: BLE001 - any failure to read back means: damaged
        return False


def restore_if_damaged(path):
    """Before resuming `path`: if it does not read back completely and a snapshot exists,
    replace it by a copy of the snapshot (which is kept until the next checkpoint replaces it).
    Returns True if it restored; ValueError if it is damaged and there is no snapshot (killed
    before its first checkpoint: nothing to resume)."""
    path = os.fspath(path)
    snap = snapshot_path(path)
    if not os.path.exists(path) or reads_back(path):
        return False
    if not os.path.exists(snap):
        raise ValueError(f"results file {path!r} is damaged (the run was killed while writing "
                         "it) and has no checkpoint copy: nothing to resume; start the run "
                         "again (softmech run ... --force)")
    _copy(snap, path)
    return True


@contextlib.contextmanager
def atomic_update(path):
    """Yields the name of a copy of results file `path` to modify; when the block ends without
    an exception the copy replaces `path` in one step (a kill meanwhile leaves the old file)."""
    with atomic_output(path) as tmp:
        shutil.copyfile(path, tmp)
        yield tmp
