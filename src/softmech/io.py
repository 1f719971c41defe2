"""Files: atomic writes (write to a temporary file in the same folder, then os.replace), so that
readers see the old file or the new one, never half of one."""
import contextlib
import math
import os
import tempfile
import zipfile
import zlib

import numpy as np


@contextlib.contextmanager
def atomic_output(path):
    """Context manager for writers that take a file name (matplotlib, imageio, POV-Ray): yields
    a temporary name in the same folder with the same extension; when the block ends without an
    exception the file is moved to `path` in one step (os.replace), otherwise it is removed.
    The file gets the mode a plain open() would give (0666 & ~umask)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    base, ext = os.path.splitext(os.path.basename(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{base}.", suffix=f".tmp{ext}")
    os.close(fd)
    try:
        yield tmp
        umask = os.umask(0)        # mkstemp creates the file 0600
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def atomic_write(path, write, binary=True):
    """Create `path` atomically: write(f) fills an open temporary file (bytes, or UTF-8 text with
    binary=False), which is synced to disk and then replaces `path`. Returns path."""
    with atomic_output(path) as tmp:
        with open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
    return os.fspath(path)


def atomic_save_npz(path, **arrays):
    """Write arrays to `path` (.npz, compressed) atomically."""
    return atomic_write(path, lambda f: np.savez_compressed(f, **arrays))


def atomic_write_text(path, text):
    """Write `text` (UTF-8) to `path` atomically."""
    return atomic_write(path, lambda f: f.write(text), binary=False)


MAX_ARRAY_BYTES = 2**30
"""Largest array a .npy / .npz member read by softmech may declare (1 GiB): a tiny file whose
header claims a giant shape (or a zip bomb) is refused before anything is allocated."""


def npy_header_problem(stream, size, max_bytes=MAX_ARRAY_BYTES):
    """Read the .npy header at the start of `stream` (`size` bytes in all) and say what is wrong
    with it, before NumPy allocates the array: None if nothing, else the end of a sentence whose
    subject is the file (": .npy format version ...", " holds Python objects ...",
    " declares an array of shape ... but holds ...", " holds an array of shape ... at most ...").
    Returns (problem, shape, dtype). A stream that is not .npy at all (no magic string, a
    damaged header) raises NumPy's ValueError: the caller says which file it was."""
    from numpy.lib import format as npy_format

    version = npy_format.read_magic(stream)
    readers = {(1, 0): npy_format.read_array_header_1_0, (2, 0): npy_format.read_array_header_2_0}
    if version not in readers:
        return (f": .npy format version {version} is not allowed (1.0 or 2.0, as numpy.save "
                "writes)"), None, None
    shape, _, dtype = readers[version](stream)
    if dtype.hasobject:
        return (f" holds Python objects (dtype {dtype}): not allowed, it must hold numbers "
                "(pickles are never loaded)"), shape, dtype
    declared = dtype.itemsize * math.prod(int(n) for n in shape)
    held = size - stream.tell()
    if declared > held:
        return (f" declares an array of shape {tuple(shape)} ({declared:,} bytes) but holds "
                f"{held:,} bytes of data: not allowed (a damaged or forged file)"), shape, dtype
    if declared > max_bytes:
        return (f" holds an array of shape {tuple(shape)} ({declared:,} bytes): not allowed, "
                f"an array may have at most {max_bytes:,} bytes"), shape, dtype
    return None, shape, dtype


ZIP_ERRORS = (OSError, EOFError, ValueError, RuntimeError, NotImplementedError,
              zipfile.BadZipFile, zlib.error)
"""What zipfile and NumPy raise on a damaged .npz (found by the state-file fuzz,
tests/reliability/fuzz_states.py): a flipped byte can make a member claim another compression
method or zip version (NotImplementedError), encryption (RuntimeError), or a deflate stream
that does not decode (zlib.error); a cut file, EOFError."""


def read_state_npz(path, expected, optional=None, counts=()):
    """The members of a state file (.npz, as save_state writes it), each checked before it is
    read; ValueError naming the file and the member otherwise.

    expected: {name: shape} of the members that must be there, shape a tuple whose None
    entries are free (None: any shape); optional: the same for members read when present;
    counts: names that must be whole numbers >= 0 (a step counter). Every member read must be
    a real number array (bool, integer or float; no complex, text, bytes or objects) with a
    header that fits the file (npy_header_problem), and finite."""
    optional = optional or {}

    path = os.fspath(path)
    try:
        archive = zipfile.ZipFile(path)
    except ZIP_ERRORS as err:
        raise ValueError(f"{path}: not a state file written by save_state ({err})") from None
    out = {}
    with archive:
        members = {m[:-4]: m for m in archive.namelist() if m.endswith(".npy")}
        missing = sorted(set(expected) - set(members))
        if missing:
            raise ValueError(f"{path}: not a state of this scene: missing {missing}")
        shapes = {**{n: s for n, s in optional.items() if n in members}, **expected}
        for name, want in shapes.items():
            info = archive.getinfo(members[name])
            try:
                with archive.open(info) as stream:
                    problem, shape, dtype = npy_header_problem(stream, info.file_size)
            except ZIP_ERRORS as err:
                raise ValueError(f"{path}: member {name!r} is not a .npy array ({err})") from None
            if problem:
                raise ValueError(f"{path}: member {name!r}{problem}")
            if dtype.kind not in "biuf":
                raise ValueError(f"{path}: member {name!r} has dtype {dtype}: not allowed, a "
                                 "state holds real numbers")
            if want is not None and (len(shape) != len(want) or any(
                    w is not None and w != s for w, s in zip(want, shape))):
                shown = tuple("any" if w is None else w for w in want)
                raise ValueError(f"{path}: member {name!r} has shape {tuple(shape)}, this "
                                 f"scene's is {shown}")
            try:
                with archive.open(info) as stream:
                    value = np.lib.format.read_array(stream, allow_pickle=False)
            except ZIP_ERRORS as err:
                raise ValueError(f"{path}: member {name!r} cannot be read: it is damaged "
                                 f"({err})") from None
            if value.dtype.kind == "f" and not np.all(np.isfinite(value)):
                raise ValueError(f"{path}: member {name!r} holds NaN or inf: not a state a "
                                 "run can continue from")
            if name in counts and (value.dtype.kind not in "iu" or np.any(value < 0)):
                raise ValueError(f"{path}: member {name!r} = {value.tolist()!r} is not allowed: "
                                 "must be a whole number >= 0")
            out[name] = value
    return out
