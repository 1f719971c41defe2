"""Files: atomic writes (write to a temporary file in the same folder, then os.replace)."""
import contextlib
import os
import tempfile

import numpy as np


def atomic_save_npz(path, **arrays):
    """Write arrays to `path` (.npz) atomically: readers see the old file or the new, never half."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp.npz")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
        # mkstemp creates the file 0600; give it the mode a plain open() would (0666 & ~umask)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


@contextlib.contextmanager
def atomic_output(path):
    """Context manager for writers that take a file name (matplotlib, imageio, POV-Ray): yields
    a temporary name in the same folder with the same extension; when the block ends without an
    exception the file is moved to `path` in one step (os.replace), otherwise it is removed.
    Readers see the old file or the new, never half of one."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    base, ext = os.path.splitext(os.path.basename(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{base}.", suffix=f".tmp{ext}")
    os.close(fd)
    try:
        yield tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
