"""Files: atomic writes (write to a temporary file in the same folder, then os.replace), so that
readers see the old file or the new one, never half of one."""
import contextlib
import os
import tempfile

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
