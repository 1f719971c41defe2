"""Where a step's time goes, pass by pass, and which loops LLVM vectorized (developer tool).

    python benchmarks/kernel_passes.py               # per-pass timings of the benchmark snake
    python benchmarks/kernel_passes.py --remarks     # also LLVM's loop-vectorization remarks

Each pass of the position-Verlet step (softmech.integrators.explicit) is compiled alone into a
probe kernel that runs it `--repeats` times on one block of W worlds of the benchmark snake
(softmech.bench, n = 50, after 0.5 s of crawling so that contact and friction are active), one
thread; the report is wall microseconds per snake-step (best of 5), and the sum of the passes
should match the whole step. The state is restored after each pass, so every pass sees the same
configuration.

--remarks compiles the probes with debug information and lets LLVM print to stderr, for every
loop, whether it was vectorized ("vectorized loop (vectorization width: 8 ...)") or not and why
("unsafe dependent memory operations", "cannot identify array bounds"): the two problems behind
most of the snake's speed-up on 2026-11-21 (docs/benchmarks.md) were visible only there. The
remarks name this script as the file, but their line numbers are those of the kernel module that
holds the loop (contact.py, cosserat_forces.py, ...).

The probes are compiled without the disk cache (about 2 minutes on 2 cores); run with
NUMBA_NUM_THREADS=1 for stable figures.
"""
import argparse
import sys
import time


def _enable_remarks():
    import llvmlite.binding as llvm
    llvm.set_option("", "-pass-remarks=loop-vectorize")
    llvm.set_option("", "-pass-remarks-missed=loop-vectorize")
    llvm.set_option("", "-pass-remarks-analysis=loop-vectorize")


def _probes(debug):
    """name -> probe kernel (m, s, ws, W, n): n repetitions of one pass on block 0."""
    import numba as nb

    from softmech.integrators.explicit import drift_twice, kick
    from softmech.kernels import KERNEL_OPTIONS
    from softmech.kernels.contact import ground_contacts
    from softmech.kernels.cosserat_forces import (rod_assemble, rod_element_pass,
                                                  rod_gyroscopic_kick, rod_voronoi_pass)
    from softmech.kernels.external import external_loads
    from softmech.kernels.muscles import muscle_waves

    options = dict(KERNEL_OPTIONS, cache=False, debug=debug)
    jit = nb.njit(**options)

    @jit
    def element(m, s, ws, W, n):
        for _ in range(n):
            rod_element_pass(m, s, ws, 0, W, 0)

    @jit
    def voronoi(m, s, ws, W, n):
        for _ in range(n):
            rod_voronoi_pass(m, s, ws, 0, W, 0)

    @jit
    def assemble(m, s, ws, W, n):
        for _ in range(n):
            rod_assemble(m, s, ws, 0, W, 0)

    @jit
    def external_all(m, s, ws, W, n):
        for _ in range(n):
            external_loads(m, s, ws, 0, W, 0.5)

    @jit
    def contact(m, s, ws, W, n):
        for _ in range(n):
            ground_contacts(m, s, ws, 0, W)

    @jit
    def muscles(m, s, ws, W, n):
        for _ in range(n):
            muscle_waves(m, s, ws, 0, W, 0.5)

    @jit
    def gyroscopic_kick(m, s, ws, W, n):
        for _ in range(n):
            rod_gyroscopic_kick(m, s, ws, 0, W, 0, 0.0)

    @jit
    def drift(m, s, ws, W, n):
        for _ in range(n):
            drift_twice(s, ws, 0, 0.0, 0.0)

    @jit
    def whole_step(m, s, ws, W, n):
        for _ in range(n):
            drift_twice(s, ws, 0, 1.25e-5, 1.25e-5)
            kick(m, s, ws, 0, W, 2.5e-5, 0.5)

    return {"element pass": element, "Voronoi pass": voronoi, "assembly": assemble,
            "external loads (all)": external_all, "  of which contact": contact,
            "  of which muscles": muscles, "gyroscopic kick (h = 0)": gyroscopic_kick,
            "drift (h = 0)": drift, "whole step": whole_step}


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
    m, s, ws, W = sim._model(), sim._state, sim.workspace, sim.lanes.W
    print(f"benchmark snake, n = 50, one block of W = {W} worlds, one thread; "
          f"us per snake-step, best of 5 x {args.repeats}")
    for name, probe in _probes(args.remarks).items():
        saved = [a.copy() for a in s] + [a.copy() for a in ws]
        probe(m, s, ws, W, 1)  # compiles
        best = min(_timed(probe, m, s, ws, W, args.repeats) for _ in range(5))
        for a, b in zip(list(s) + list(ws), saved):
            a[...] = b
        print(f"{name:26s} {best / args.repeats / W * 1e6:7.3f}")
    return 0


def _timed(probe, m, s, ws, W, n):
    t0 = time.perf_counter()
    probe(m, s, ws, W, n)
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
