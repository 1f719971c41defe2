"""Where softmech keeps what it compiles, and how it knows a cache is stale.

The generated step modules (softmech.integrators.driver) live in cache_dir()/steps: the
SOFTMECH_CACHE_DIR environment variable if set, else the user cache directory
($XDG_CACHE_HOME/softmech or ~/.cache/softmech), else (not writable) a temporary folder. numba caches each compiled kernel beside its
source file (in __pycache__) when that folder is writable, and in its user-wide cache
(NUMBA_CACHE_DIR, or numba's folder in the user cache directory) when it is not, e.g. for a
non-editable install into a read-only site-packages.

numba checks a cached function against its own source file only, not against the functions it
calls: after an upgrade that changes a helper (say softmech.kernels.so3) the kernels that call
it would load stale machine code. kernel_fingerprint() hashes every kernel source together with
the numba and llvmlite versions; check_kernel_cache() (run when softmech is imported) compares
it with the stamp kept in each of numba's cache folders for the kernels and, where they differ,
removes the cached kernels there so they compile afresh.
"""
import hashlib
import os
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

import llvmlite
import numba

PACKAGE = Path(__file__).resolve().parent
KERNEL_SOURCES = ("kernels", "integrators")
"""Folders of the package whose modules hold compiled kernels."""


def cache_dir():
    """Folder of softmech's own cache (the generated step modules): SOFTMECH_CACHE_DIR, else
    the user cache directory; if that cannot be created or written, a folder in the system's
    temporary directory (with a warning naming both)."""
    env = os.environ.get("SOFTMECH_CACHE_DIR")
    if env:
        folder = Path(env).expanduser()
    else:
        folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "softmech"
    return _writable(folder)


@lru_cache(maxsize=None)
def _writable(folder):
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK):
            return folder
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / f"softmech-cache-{os.getuid()}"
    fallback.mkdir(parents=True, exist_ok=True)
    warnings.warn(f"softmech cache folder {folder} is not writable: using {fallback} "
                  "(set SOFTMECH_CACHE_DIR to choose another)", RuntimeWarning, stacklevel=3)
    return fallback


def _kernel_files():
    return sorted(p for folder in KERNEL_SOURCES for p in (PACKAGE / folder).glob("*.py"))


@lru_cache(maxsize=1)
def kernel_fingerprint():
    """Hash of the kernel sources, numba's and llvmlite's versions (hex, 16 characters)."""
    h = hashlib.sha256(f"numba {numba.__version__} llvmlite {llvmlite.__version__}".encode())
    for path in _kernel_files():
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def numba_cache_folders():
    """Folders where numba keeps softmech's cached kernels: __pycache__ beside the kernel modules
    when writable, else numba's user-wide cache folders for them (numba's own locator order)."""
    from numba.core import caching
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # numba >= 0.61 / older
    probe = (lambda: None)  # locators read only the line number of the function they are given
    folders = set()
    for path in _kernel_files():
        for locator_class in impl._locator_classes:
            locator = locator_class.from_function(probe, str(path))
            if locator is not None:
                folders.add(Path(locator.get_cache_path()))
                break
    return sorted(folders)


STAMP = "softmech-kernels.stamp"
"""File, in each of numba's cache folders for softmech's kernels, holding the fingerprint of the
kernels it caches."""


def check_kernel_cache():
    """Remove softmech's cached kernels from every numba cache folder whose stamp differs from
    kernel_fingerprint() (see module docstring); returns the number of files removed."""
    current = kernel_fingerprint()
    removed = 0
    for folder in numba_cache_folders():
        stamp = folder / STAMP
        try:
            if stamp.read_text() == current:
                continue
        except OSError:
            pass
        for pattern in ("*.nbi", "*.nbc"):
            for f in folder.glob(pattern):
                try:
                    f.unlink()
                    removed += 1
                except OSError:
                    pass
        try:
            tmp = folder / f"{STAMP}.tmp{os.getpid()}"
            tmp.write_text(current)
            tmp.replace(stamp)
        except OSError:
            pass
    return removed
