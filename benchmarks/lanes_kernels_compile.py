"""Cold compile times of the discrete rods' lanes kernels (the lockstep Newton loop's forms of
the bending-twisting forces and of the accept: softmech.kernels.der_bend_twist_lanes,
softmech.kernels.der_frames_lanes), each compiled alone in empty caches, and with --remarks
LLVM's loop-vectorization remarks for their source files (developer tool; not collected by
pytest):

    python benchmarks/lanes_kernels_compile.py [--remarks 2> remarks.txt]

The kernels are called as the generated loop calls them, on `falling_rod`'s arguments with 8
worlds (one full chunk of lanes); each row is the first call's time (its compile, with the
callees it compiles first: the accept's row includes the frames' kernels, which the forces'
row then reuses).
"""
import argparse
import os
import sys
import tempfile
import time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--remarks", action="store_true",
                        help="also print LLVM's loop-vectorization remarks to stderr "
                             "(kernel_passes.py's switch: debug line numbers)")
    args = parser.parse_args(argv)
    if args.remarks:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from kernel_passes import _enable_remarks     # sets its own empty caches
        _enable_remarks()
    else:
        folder = tempfile.mkdtemp(prefix="softmech-lanes-compile-")
        os.environ.update(NUMBA_CACHE_DIR=folder, SOFTMECH_CACHE_DIR=folder)
    import numpy as np

    from softmech.implicit.compiled import lockstep_work
    from softmech.implicit.newton import NewtonOptions
    from softmech.scenarios.discrete import build_falling_rod

    worlds = 8
    scene, _ = build_falling_rod(worlds=worlds)
    # the per-world loop (lockstep off) compiles no lanes kernel: they stay cold for the rows
    sim = scene.compile(worlds=worlds, dt=1e-3, newton=NewtonOptions(lockstep=False))
    sim.run(0.01)
    S = lockstep_work(sim.stepper.loop.W, worlds)
    S.rows[:] = np.arange(worlds)
    S.evaluating[:] = np.arange(worlds)
    S.measure[:] = 1
    forms = (bd.compiled() for bd in sim.stepper.bindings)
    form = next(f for f in forms if f is not None and f.lanes_accept is not None)
    x = form.lanes_scratch(form.args)
    Q = sim.q.copy()
    rows = []
    t0 = time.perf_counter()
    form.lanes_accept(form.args, x, S, 0, Q, worlds)
    rows.append(("der_bend_twist_accept_lanes (+ the frames' kernels)", time.perf_counter() - t0))
    t0 = time.perf_counter()
    form.lanes(form.args, x, S, 0, 0, Q, 0.01, 1e-3, worlds)
    rows.append(("der_bend_twist_lanes_binding (+ the spring kernels)", time.perf_counter() - t0))
    print("cold compile of the discrete rods' lanes kernels (falling_rod, 8 worlds)")
    for name, seconds in rows:
        print(f"  {name:56s} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
