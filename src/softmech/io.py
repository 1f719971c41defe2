"""Files: atomic writes (write to a temporary file in the same folder, then os.replace), so that
readers see the old file or the new one, never half of one."""
import os
import tempfile

import numpy as np


def atomic_write(path, write, suffix=".tmp", binary=True):
    """Create `path` atomically: write(f) fills a temporary file beside it, which then replaces
    `path`. The file gets the mode a plain open() would give (0666 & ~umask)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=suffix)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)   # mkstemp creates the file 0600
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def atomic_save_npz(path, **arrays):
    """Write arrays to `path` (.npz, compressed) atomically."""
    return atomic_write(path, lambda f: np.savez_compressed(f, **arrays), suffix=".tmp.npz")


def atomic_write_text(path, text):
    """Write `text` (UTF-8) to `path` atomically."""
    return atomic_write(path, lambda f: f.write(text), binary=False)
