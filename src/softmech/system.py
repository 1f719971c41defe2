"""What `softmech info --system` prints for bug reports: versions, cache locations, CPU features
and threads."""
import os
import platform
import sys

import llvmlite
import llvmlite.binding as llvm
import numba
import numpy as np

from softmech._version import __version__
from softmech.cache import STAMP, cache_dir, kernel_fingerprint, numba_cache_folders


def system_report():
    """dict: versions, caches (softmech's, numba's for the kernels, with their stamps), CPU and
    threads."""
    features = llvm.get_host_cpu_features()
    simd = [f for f in ("sse4.2", "avx", "avx2", "fma", "avx512f", "avx512vl", "neon", "sve")
            if features.get(f, False)]
    kernel_caches = []
    for folder in numba_cache_folders():
        stamp = folder / STAMP
        kernel_caches.append({"folder": str(folder),
                              "writable": os.access(folder, os.W_OK),
                              "stamp_matches": stamp.exists() and stamp.read_text() == kernel_fingerprint()})
    return {
        "softmech": __version__, "python": sys.version.split()[0], "platform": platform.platform(),
        "numpy": np.__version__, "numba": numba.__version__, "llvmlite": llvmlite.__version__,
        "softmech_cache": str(cache_dir()),
        "softmech_cache_source": "SOFTMECH_CACHE_DIR" if os.environ.get("SOFTMECH_CACHE_DIR") else "user cache",
        "kernel_fingerprint": kernel_fingerprint(),
        "numba_kernel_caches": kernel_caches,
        "numba_cache_dir_env": os.environ.get("NUMBA_CACHE_DIR"),
        "cpu": llvm.get_host_cpu_name(), "cpu_simd": simd, "cpu_count": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": numba.config.THREADING_LAYER,
    }


def format_report(report):
    """The lines of the text form of system_report()."""
    lines = []
    for key, value in report.items():
        if key == "numba_kernel_caches":
            for c in value:
                state = "current" if c["stamp_matches"] else "empty or stale (compiles on first use)"
                lines.append(f"  {'kernel cache':<24}{c['folder']} ({'writable' if c['writable'] else 'read-only'}, {state})")
            continue
        shown = ", ".join(value) if isinstance(value, list) else value
        lines.append(f"  {key:<24}{shown}")
    return lines
