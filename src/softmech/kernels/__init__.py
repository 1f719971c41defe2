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

from softmech.kernels import inline_copy as _inline_copy

_inline_copy.install()   # numba's IR inlining copies a function's scope once, not per block

from softmech.kernels import external_calls as _external_calls

_external_calls.install()   # opt-in: generated modules call the kernels through slots


def _enable_noalias_option():
    """Let @njit accept noalias=True (numba has the compiler flag, used by parfors, but does not
    expose it to @njit). With it every array argument is `noalias`: LLVM may then vectorize the
    fused passes without runtime overlap checks, which otherwise run at every loop entry (hundreds
    of pointer comparisons for a pass over ~50 arrays: ~3 us per step of a 50-element snake).
    The kernels' contract: no two arrays passed to a kernel (fields of the model, state and
    workspace tuples) share memory -- softmech.packing allocates each one separately.
    Returns False (plain options, slower) if this numba version lacks the mechanism."""
    try:
        from numba.core import cpu, options
        if not hasattr(cpu.CPUTargetOptions, "noalias"):
            cpu.CPUTargetOptions.noalias = options.TargetOptions.Mapping("noalias")
        return True
    except (ImportError, AttributeError):  # pragma: no cover - other numba versions
        return False


KERNEL_OPTIONS = dict(cache=True, error_model="numpy", _nrt=False, nogil=True)
if _enable_noalias_option():
    KERNEL_OPTIONS["noalias"] = True
"""Options of every kernel: cached on disk; IEEE division (no zero-division branch, which would
block vectorization; a division by zero gives inf/NaN, caught by the divergence guard); and no
numba runtime: kernels never allocate, and without NRT the ~100 array views a step creates cost
no atomic reference-count calls (measured: ~570 NRT_incref/decref calls in the step function);
and the GIL released while a kernel runs, so that threads stepping other worlds (or other
simulations) run at the same time: the Python Newton loop of sparse scenes calls its kernels
one by one from worker threads (softmech.implicit.simulation)."""


def kernel(fn=None, **extra):
    """@kernel / @kernel(inline="always"): numba.njit with KERNEL_OPTIONS.

    A term kernel kernel(args, bi, W, t) is a plain @kernel -- its own compiled function,
    compiled once (and cached) for every scene that uses it -- when it is big (rod elasticity,
    ground contact, the integrator's kick). A *small* one (a few flat loops: damping, point loads,
    anchors, constraints, muscle waves, the ghost refresh, the drift of the time loop) is
    @kernel(inline="always"): each scene's generated step inlines it. Measured on the benchmark
    rods at B = 1 (docs/benchmarks_log.md): a separate call costs ~30-40 ns per step whatever its
    arguments, ~3 % of a 50-element rod's step each, while inlining a small kernel adds well
    under a second to a step's compile; inlining everything (the old fused step) was ~5 % faster
    still but compiled for 54 s and 1.5 GB per scene. @kernel(unliteral=True): see _plain_types."""
    if fn is None:
        unliteral = extra.pop("unliteral", False)

        def decorate(f):
            dispatcher = _nb.njit(**{**KERNEL_OPTIONS, **extra})(f)
            return _plain_types(dispatcher) if unliteral else dispatcher
        return decorate
    return _nb.njit(**KERNEL_OPTIONS)(fn)


def _plain_types(dispatcher):
    """@kernel(unliteral=True): calls from compiled code compile and link the overload of the
    arguments' plain types. numba otherwise compiles one overload per combination of constant
    arguments at the call sites (Literal[bool](True), Literal[int](0), ...): the implicit step's
    state copies (three combinations of literal flags) and a discrete rod's curvature helper
    (its rows 0 and 1) compiled four and two times, ~5 s of a discrete rod's cold implicit start
    (docs/benchmarks.md, 2026-12-05); the implicit module's evaluate (its mode) would compile
    three times. For kernels whose flags are cheap to test at run time, not for those whose
    constants a benchmark shows to pay."""
    from numba.core import types

    typed = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed(tuple(types.unliteral(a) for a in args),
                     {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def compile_slp_vectorized(dispatcher, args):
    """Compile the kernel `dispatcher` for the types of `args` (a tuple of its arguments) with
    LLVM's SLP vectorizer, once (a no-op when that overload exists; numba's disk cache then keeps
    it). numba turns the SLP vectorizer off for every function (config.SLP_VECTORIZE, read each
    time a module is optimized), which leaves straight-line code over short fixed-length rows
    (the 8 lanes of softmech.kernels.band_lanes) as scalar instructions: the loop vectorizer
    skips loops of 8. Turning it on for one kernel only, under numba's compiler lock so that no
    other compilation sees the switch, changes no result (no fast-math: the same operations in
    the same order, in SIMD registers) and leaves every other kernel as numba compiles it. Call
    it before the kernel's first call or the first compilation of a caller (a caller links the
    overload it finds; it does not recompile it)."""
    from numba.core import config
    from numba.core.compiler_lock import global_compiler_lock
    signature = tuple(_nb.typeof(a) for a in args)
    if signature in dispatcher.overloads:
        return
    with global_compiler_lock:
        before = config.SLP_VECTORIZE
        config.SLP_VECTORIZE = 1
        try:
            dispatcher.compile(signature)
        finally:
            config.SLP_VECTORIZE = before
