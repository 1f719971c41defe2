"""numba kernels (float64, module level, named tuples of arrays in, outputs last).

numba cannot mark array arguments `noalias`, so LLVM vectorizes a loop only after versioning it
with runtime checks that its output arrays do not overlap its inputs. The fused passes of the rod
kernels read ~15 arrays and write ~5, far more than LLVM's default budget of 8 checks per loop,
which left them scalar. Raising the budget lets LLVM emit the checks (a few compares per loop
entry) and vectorize across elements (B = 1) or worlds (B > 1). The options are process-wide LLVM
settings; they only allow more loop versioning and change no results.
"""
import llvmlite.binding as _llvm

_llvm.set_option("softmech", "-runtime-memory-check-threshold=4096")
_llvm.set_option("softmech", "-memory-check-merge-threshold=4096")
_llvm.set_option("softmech", "-vectorize-memory-check-threshold=4096")

import numba as _nb

KERNEL_OPTIONS = dict(cache=True, error_model="numpy", _nrt=False)
"""Options of every kernel: cached on disk; IEEE division (no zero-division branch, which would
block vectorization; a division by zero gives inf/NaN, caught by the divergence guard); and no
numba runtime: kernels never allocate, and without NRT the ~100 array views a step creates cost
no atomic reference-count calls (measured: ~570 NRT_incref/decref calls in the step function)."""


def kernel(fn=None, **extra):
    """@kernel / @kernel(inline="always", parallel=True): numba.njit with KERNEL_OPTIONS."""
    if fn is None:
        return lambda f: _nb.njit(**KERNEL_OPTIONS, **extra)(f)
    return _nb.njit(**KERNEL_OPTIONS)(fn)
