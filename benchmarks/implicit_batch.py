"""Batched implicit stepping (issue 27): wall time of B = 1, 2, 4, 8, 16 worlds of one implicit
scene over a fixed simulated duration, warm (compilation excluded), and where it goes (not
collected by pytest).

    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch.py --scene plate --duration 0.02
    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch.py --threads 1   # one thread

Scenes: `falling_rod` (softmech.scenarios: two discrete rods dropped on frictional ground,
dt = 1 ms; banded Newton matrix, the compiled Newton loop) and `plate`, the 1,000-triangle
clamped plate under pressure of benchmarks/shells.py (hinge bending, dt = 1 ms; a sparse
Newton matrix: the Python Newton loop, a stepper per worker thread, and the reused incomplete
LU with the compiled GMRES). Each run records the
centre of mass every 10 ms (sm.Every), as a user's run does.

For each B: the wall time of sim.run(duration) from the same initial state (min and median of
--repeats runs, after one warm-up run that compiles), its ratio to B = 1's minimum, and the
split of the best run's time: "stepping" (ImplicitSimulation._advance_steps: the compiled
loop or the Python Newton loop), of which "solve" (JacobianPattern.solve: the sparse solves
of the Python loop, summed over the worker threads that step the worlds side by side
(softmech.implicit.worlds), so it may exceed the wall time; the compiled loop's banded solves
are inside it and not separable),
"rest" (sampling, recording, Python around the blocks), and cpu/wall: the process's CPU time
over the wall time (about 2 when both cores step worlds, 1 when one does). --threads sets
numba's thread count, which sets the worker threads of the batched compiled loop
(softmech.threads.block_pool). The machine's load (os.getloadavg) is printed: other
users' processes share its two cores.
"""
import argparse
import os
import statistics
import time

import numpy as np

import softmech as sm

SCENES = ("falling_rod", "plate")


def build(scene_name, worlds):
    """The ImplicitSimulation of a scene with B = worlds."""
    if scene_name == "falling_rod":
        from softmech.scenarios.discrete import build_falling_rod
        scene, info = build_falling_rod(worlds=worlds)
        return scene.compile(worlds=worlds, dt=info.dt)
    from softmech.bodies import meshes
    from softmech.implicit.newton import NewtonOptions
    mesh = meshes.rectangle(1.0, 1.0, 21)      # ~1,000 triangles (benchmarks/shells.py SIDES)
    v = mesh.vertices
    edge = np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= 1) | (v[:, 1] <= 0) | (v[:, 1] >= 1))
    scene = sm.Scene()
    scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e9,
                    density=1000.0, bending="hinge")
    scene.add(sm.FixNodes("plate", edge))
    scene.add(sm.ShellPressure("plate", 10.0))
    return scene.compile(worlds=worlds, dt=1e-3, newton=NewtonOptions(atol=1e-8))


class Timer:
    """Wraps a method of obj (an instance, or a class: every instance's) so that its total
    wall time is counted in `seconds`."""

    def __init__(self, obj, name):
        self.obj, self.name, self.seconds = obj, name, 0.0
        self.inner = getattr(obj, name)

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return self.inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0
        setattr(obj, name, timed)

    def close(self):
        if isinstance(self.obj, type):
            setattr(self.obj, self.name, self.inner)
        else:
            delattr(self.obj, self.name)


def measure(scene_name, worlds, duration, repeats):
    """(wall times [s] of `repeats` runs, (stepping, solve, CPU time of all threads) [s] of the
    best one, Newton iterations per world and step)."""
    sim = build(scene_name, worlds)
    start = sim.snapshot()
    record = sm.Every(0.01, ("com",))
    sim.run(min(duration, 0.02), record=record)       # compiles (and warms caches)
    walls, splits = [], []
    for _ in range(repeats):
        sim.restore(start)
        sim.stepper.stats.reset()
        stepping = Timer(sim, "_advance_steps")
        solve = Timer(type(sim.stepper.pattern), "solve")    # every thread's pattern
        t0, c0 = time.perf_counter(), time.process_time()
        sim.run(duration, record=record)
        walls.append(time.perf_counter() - t0)
        splits.append((stepping.seconds, solve.seconds, time.process_time() - c0))
        stepping.close()
        solve.close()
    stats = sim.stepper.stats
    return walls, splits[int(np.argmin(walls))], stats.iterations / max(stats.steps, 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scene", default="falling_rod", choices=SCENES)
    parser.add_argument("--worlds", default="1,2,4,8,16")
    parser.add_argument("--duration", type=float, default=None,
                        help="simulated seconds (default: 0.6 falling_rod, 0.02 plate)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    if args.threads is not None:
        import numba
        numba.set_num_threads(args.threads)
    duration = args.duration or (0.6 if args.scene == "falling_rod" else 0.02)
    print(f"{args.scene}, {duration:g} s simulated, load {os.getloadavg()[0]:.2f}")
    print(f"{'B':>3} {'min [s]':>8} {'median':>8} {'/B=1':>6} {'stepping':>9} {'solve':>7} "
          f"{'rest':>6} {'cpu/wall':>8} {'it/step':>7}")
    base = None
    for worlds in [int(w) for w in args.worlds.split(",")]:
        walls, (stepping, solve, cpu), iterations = measure(args.scene, worlds, duration,
                                                       args.repeats)
        best = min(walls)
        base = best if base is None else base
        print(f"{worlds:>3} {best:8.3f} {statistics.median(walls):8.3f} {best / base:6.2f} "
              f"{stepping:9.3f} {solve:7.3f} {best - stepping:6.3f} {cpu / best:8.2f} "
              f"{iterations:7.2f}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
