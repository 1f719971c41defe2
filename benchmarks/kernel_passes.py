"""Where a step's time goes, term by term, and which loops LLVM vectorized (developer tool).

    python benchmarks/kernel_passes.py               # per-kernel timings of the benchmark snake
    python benchmarks/kernel_passes.py --remarks     # also LLVM's loop-vectorization remarks

Every kernel of the snake's step -- each term of its table (softmech.packing.Engine.calls) and
the integrator's drift and kick (softmech.kernels.rod_motion) -- is run alone `--repeats` times
by a probe on one block of W worlds of the benchmark snake (softmech.bench, n = 50, after 0.5 s
of crawling so that contact and friction are active), one thread; the report is wall
microseconds per snake-step (best of 5), and the kernels should add up to the whole step. The
state is restored after each kernel, so every kernel sees the same configuration.

--remarks compiles every kernel afresh (in a temporary cache) with debug information and lets
LLVM print to stderr, for every loop, whether it was vectorized ("vectorized loop
(vectorization width: 8 ...)") or not and why ("unsafe dependent memory operations", "cannot
identify array bounds"), with the kernel module's file and line: the two problems behind most
of the snake's speed-up on 2026-11-21 (docs/benchmarks_log.md) were visible only there. A new term's
kernel is checked the same way: add it to a scene and look for its file in the remarks.

Run with NUMBA_NUM_THREADS=1 for stable figures.
"""
import argparse
import sys
import time


def _enable_remarks():
    """Debug line numbers and a fresh, temporary cache, so every kernel compiles (and LLVM
    reports its loops) in this process; must run before numba is imported."""
    import os
    import tempfile
    folder = tempfile.mkdtemp(prefix="softmech-remarks-")
    os.environ.update(NUMBA_DEBUGINFO="1", NUMBA_CACHE_DIR=folder, SOFTMECH_CACHE_DIR=folder)
    import llvmlite.binding as llvm
    llvm.set_option("", "-pass-remarks=loop-vectorize")
    llvm.set_option("", "-pass-remarks-missed=loop-vectorize")
    llvm.set_option("", "-pass-remarks-analysis=loop-vectorize")


def _probes(engine, W):
    """name -> (probe(n): n repetitions of one kernel on block 0)."""
    import numba as nb

    from softmech.kernels import KERNEL_OPTIONS
    from softmech.kernels.rod_motion import rod_drift_twice, rod_kick

    jit = nb.njit(**dict(KERNEL_OPTIONS, cache=False))

    @jit
    def term(kernel, a, W, n):
        for _ in range(n):
            kernel(a, 0, W, 0.5)

    @jit
    def kick(a, W, n):
        for _ in range(n):
            rod_kick(a, 0, W, 0.0)

    @jit
    def drift(a, W, n):
        for _ in range(n):
            rod_drift_twice(a, 0, W, 0.0, 0.0)

    probes = {f"{c.stage}: {c.name}": (lambda n, c=c: term(c.kernel, c.args, W, n))
              for c in engine.calls}
    probes["kick (inertia, gyroscopic, h = 0)"] = lambda n: kick(engine.motion.kick, W, n)
    probes["drift (h = 0)"] = lambda n: drift(engine.motion.drift, W, n)
    return probes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--remarks", action="store_true",
                        help="print LLVM's loop-vectorization remarks, per source line")
    parser.add_argument("--repeats", type=int, default=4000,
                        help="pass repetitions per timing (default 4000)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
    if args.remarks:
        _enable_remarks()
    from softmech import bench

    sim = bench.build_scene("snake", 50).compile(worlds=8, dt=bench.case_dt("snake", 50))
    sim.step(20000)  # 0.5 s: the snake crawls, in contact and slipping
    engine, W = sim._engine(), sim.lanes.W
    arrays = [a for args in engine.arg_tuples() for a in args]
    print(f"benchmark snake, n = 50, one block of W = {W} worlds, one thread; "
          f"us per snake-step, best of 5 x {args.repeats}")
    total = 0.0
    for name, probe in _probes(engine, W).items():
        saved = [a.copy() for a in arrays]
        probe(1)  # compiles
        best = min(_timed(probe, args.repeats) for _ in range(5))
        for a, b in zip(arrays, saved):
            a[...] = b
        total += best
        print(f"{name:40s} {best / args.repeats / W * 1e6:7.3f}")
    steps = max(1, args.repeats // 10)
    t0 = time.perf_counter()
    sim.step(steps)
    whole = (time.perf_counter() - t0) / steps / sim.worlds * 1e6
    print(f"{'sum of the kernels':40s} {total / args.repeats / W * 1e6:7.3f}")
    print(f"{'whole step (sim.step, both threads)':40s} {whole:7.3f}")
    return 0


def _timed(probe, n):
    t0 = time.perf_counter()
    probe(n)
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
