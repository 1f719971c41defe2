"""Batched implicit stepping (issue 27): wall time of B = 1, 2, 4, 8, 16 worlds of one implicit
scene over a fixed simulated duration, warm (compilation excluded), and where it goes (not
collected by pytest).

    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch.py --scene plate --duration 0.02
    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch.py --threads 1   # one thread
    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch.py --lockstep both

--lockstep (falling_rod): NewtonOptions.lockstep for every B: "auto" (the default, None),
"on", "off", or "both": for each B, lockstep off and on measured alternately in the same
process (A/B, min and median of --repeats each). /B=1 is against the best B = 1 time of the
modes run (the first B given).

Scenes: `falling_rod` (softmech.scenarios: two discrete rods dropped on frictional ground,
dt = 1 ms; banded Newton matrix, the compiled Newton loop) and `plate`, the 1,000-triangle
clamped plate under pressure of benchmarks/shells.py (hinge bending, dt = 1 ms; a sparse
Newton matrix: the Python Newton loop, a stepper per worker thread, and the reused incomplete
LU with the compiled GMRES), and `manta`, the built-in manta (a 156-triangle hinge shell
flapping by sm.ParameterWave, dt = 10 ms, 1 s). Each run records the
centre of mass every 10 ms (sm.Every), as a user's run does.

For each B: the wall time of sim.run(duration) from the same initial state (min and median of
--repeats runs, after one warm-up run that compiles), its ratio to B = 1's minimum, and the
split of the best run's time: "stepping" (ImplicitSimulation._advance_steps: the compiled
loop or the Python Newton loop), of which "solve" (JacobianPattern.solve: the sparse solves
of the Python loop, summed over the worker threads that step the worlds side by side
(softmech.implicit.worlds), so it may exceed the wall time; the compiled loop's banded solves
are inside it and not separable),
"rest" (sampling, recording, Python around the blocks), and cpu/wall: the process's CPU time
over the wall time (about 2 when both cores step worlds, 1 when one does); it/step and
ev/step: Newton iterations and force evaluations per world and step; cpu/ev: CPU time [us]
per world and evaluation (all threads, the whole run). --threads sets
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

SCENES = ("falling_rod", "plate", "manta")


LOCKSTEP = {"auto": None, "on": True, "off": False}

DURATIONS = {"falling_rod": 0.6, "plate": 0.02, "manta": 1.0}
"""Default simulated duration [s] per scene."""


def build(scene_name, worlds, lockstep=None):
    """The ImplicitSimulation of a scene with B = worlds (falling_rod: NewtonOptions.lockstep
    = lockstep)."""
    if scene_name == "falling_rod":
        from softmech.implicit.newton import NewtonOptions
        from softmech.scenarios.discrete import build_falling_rod
        scene, info = build_falling_rod(worlds=worlds)
        return scene.compile(worlds=worlds, dt=info.dt, newton=NewtonOptions(lockstep=lockstep))
    if scene_name == "manta":
        scene, info = manta_scene(worlds)
        return scene.compile(worlds=worlds, dt=info.dt)
    from softmech.implicit.newton import NewtonOptions
    return plate_scene().compile(worlds=worlds, dt=1e-3, newton=NewtonOptions(atol=1e-8))


def manta_scene(worlds):
    """The built-in manta (softmech.scenarios.shells: a 156-triangle hinge shell flapping by
    sm.ParameterWave on its natural hinge angles, buoyancy, drag; dt = 10 ms): (scene, info)."""
    from softmech.scenarios.shells import build_manta
    return build_manta(worlds=worlds)


def plate_scene():
    """The 1 x 1 m plate of ~1,000 triangles (benchmarks/shells.py SIDES), h = 1 mm, E = 1 GPa,
    hinge bending, its edges clamped, under 10 Pa (sm.ShellPressure): a Scene."""
    from softmech.bodies import meshes
    mesh = meshes.rectangle(1.0, 1.0, 21)
    v = mesh.vertices
    edge = np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= 1) | (v[:, 1] <= 0) | (v[:, 1] >= 1))
    scene = sm.Scene()
    scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e9,
                    density=1000.0, bending="hinge")
    scene.add(sm.FixNodes("plate", edge))
    scene.add(sm.ShellPressure("plate", 10.0))
    return scene


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


def measure(scene_name, worlds, duration, repeats, lockstep=(None,)):
    """Per value of `lockstep` (NewtonOptions.lockstep; the runs of the values alternate):
    (wall times [s] of `repeats` runs, (stepping, solve, CPU time of all threads) [s] of the
    best one, (Newton iterations, evaluations) per world and step and the evaluations of
    all worlds in one run)."""
    sims = [build(scene_name, worlds, mode) for mode in lockstep]
    starts = [sim.snapshot() for sim in sims]
    record = sm.Every(0.01, ("com",))
    for sim in sims:
        sim.run(min(duration, 0.02), record=record)       # compiles (and warms caches)
    walls, splits = [[] for _ in sims], [[] for _ in sims]
    for _ in range(repeats):
        for k, sim in enumerate(sims):
            sim.restore(starts[k])
            sim.stepper.stats.reset()
            stepping = Timer(sim, "_advance_steps")
            solve = Timer(type(sim.stepper.pattern), "solve")    # every thread's pattern
            t0, c0 = time.perf_counter(), time.process_time()
            sim.run(duration, record=record)
            walls[k].append(time.perf_counter() - t0)
            splits[k].append((stepping.seconds, solve.seconds, time.process_time() - c0))
            stepping.close()
            solve.close()
    out = []
    for k, sim in enumerate(sims):
        stats = sim.stepper.stats
        out.append((walls[k], splits[k][int(np.argmin(walls[k]))],
                    (stats.iterations / max(stats.steps, 1),
                     stats.evaluations / max(stats.steps, 1), stats.evaluations)))
    return out


def batch_arguments(doc, worlds):
    """The command line shared by the batch benchmarks (--scene, --worlds with default `worlds`,
    --duration, --repeats), described by the first paragraph of `doc`."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--scene", default="falling_rod", choices=SCENES)
    parser.add_argument("--worlds", default=worlds)
    parser.add_argument("--duration", type=float, default=None,
                        help="simulated seconds (default: 0.6 falling_rod, 0.02 plate)")
    parser.add_argument("--repeats", type=int, default=3)
    return parser


def main(argv=None):
    parser = batch_arguments(__doc__, "1,2,4,8,16")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--lockstep", default="auto", choices=(*LOCKSTEP, "both"))
    args = parser.parse_args(argv)
    modes = ("off", "on") if args.lockstep == "both" else (args.lockstep,)
    if args.threads is not None:
        import numba
        numba.set_num_threads(args.threads)
    duration = args.duration or DURATIONS[args.scene]
    print(f"{args.scene}, {duration:g} s simulated, load {os.getloadavg()[0]:.2f}")
    print(f"{'B':>3} {'lockstep':>8} {'min [s]':>8} {'median':>8} {'/B=1':>6} {'stepping':>9} "
          f"{'solve':>7} {'rest':>6} {'cpu/wall':>8} {'it/step':>7} {'ev/step':>7} {'cpu/ev':>7}")
    base = None     # the best B = 1 time of every mode: the ratio's denominator
    for worlds in [int(w) for w in args.worlds.split(",")]:
        results = measure(args.scene, worlds, duration, args.repeats,
                          [LOCKSTEP[m] for m in modes])
        if base is None:
            base = min(min(walls) for walls, _, _ in results)
        for mode, (walls, (stepping, solve, cpu), (iterations, evaluations, total)) in zip(
                modes, results):
            best = min(walls)
            # CPU time per world and Newton evaluation [us] (every thread's, all of the run)
            per_eval = cpu / total * 1e6
            print(f"{worlds:>3} {mode:>8} {best:8.3f} {statistics.median(walls):8.3f} "
                  f"{best / base:6.2f} {stepping:9.3f} {solve:7.3f} {best - stepping:6.3f} "
                  f"{cpu / best:8.2f} {iterations:7.2f} {evaluations:7.2f} {per_eval:7.1f}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
