"""Files: atomic writes (write to a temporary file in the same folder, then os.replace)."""
import os
import tempfile

import numpy as np


def _atomic_write(path, suffix, write):
    """Call write(binary file object) on a temporary file next to `path`, then move it onto
    `path`: readers see the old file or the new, never half of one. Returns path."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        # mkstemp creates the file 0600; give it the mode a plain open() would (0666 & ~umask)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def atomic_save_npz(path, **arrays):
    """Write arrays to `path` (.npz) atomically: readers see the old file or the new, never half."""
    _atomic_write(path, ".tmp.npz", lambda f: np.savez_compressed(f, **arrays))


def atomic_write_text(path, text):
    """Write the string `text` to `path` (UTF-8) atomically; returns path."""
    return _atomic_write(path, ".tmp", lambda f: f.write(text.encode("utf-8")))
