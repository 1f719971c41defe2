"""The implicit integrator on the built-in discrete scenes: CPU time per step and Newton
iterations per step with the compiled Newton loop and with the Python loop, in one run; and the
cold compile time of both loops.

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/implicit_scenes.py [--cold]
    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_scenes.py --engines

--engines: instead, each scene's whole duration on the discrete and on the unified engine
(Scene.compile(engine=...)): wall times and the largest node distance between the two final
states.

Steady state: each scene as built (SCENES[name].build(): its dt, duration and Newton options),
10 steps to compile and load, then its whole duration timed in CPU time of this process
(time.process_time); `manta` and `parachute` have a sparse Newton matrix, so they run the
Python loop either way. --cold: the first step of each rod scene in a fresh process with empty
numba and softmech caches (NUMBA_CACHE_DIR, SOFTMECH_CACHE_DIR), with either loop, and with
warm kernel caches but the scene's generated loop not yet compiled (what a new kind of scene
costs), and the first step of k clamped rods (k = 1, 3, 6, 12) with warm kernel caches: the
compile of the generated loop alone, which grows with the number of rods (each rod's argument
tuples are unboxed and indexed in it). Prints Markdown tables for docs/benchmarks_log.md, with the
load average.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROD_SCENES = ("falling_rod", "pneunet")
SCENES_TIMED = ROD_SCENES + ("manta", "parachute")

FIRST_STEP = """
import time
t0 = time.perf_counter()
from softmech.implicit.newton import NewtonOptions
from softmech.scenarios import SCENES
scene, info = SCENES[{name!r}].build()
sim = scene.compile(dt=info.dt, newton=NewtonOptions(compiled={compiled}))
t1 = time.perf_counter()
sim.step(1)
print(t1 - t0, time.perf_counter() - t1)
"""

RODS_FIRST_STEP = """
import time
import softmech as sm
scene = sm.Scene()
for i in range({k}):
    rod = scene.add_der_rod(name=f"r{{i}}", start=(0, 0.05 * i, 0), direction=(1, 0, 0),
                            length=0.1, n_elems=10, radius=5e-3, density=1100.0,
                            youngs_modulus=2e6)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name=f"c{{i}}"))
scene.add(sm.Gravity())
sim = scene.compile(dt=5e-3)
t1 = time.perf_counter()
sim.step(1)
print(0.0, time.perf_counter() - t1)
"""


def steady(name, compiled):
    """(CPU ms per step, Newton iterations per step, loop used) of a scene's whole run."""
    from softmech.implicit.newton import NewtonOptions
    from softmech.scenarios import SCENES
    scene, info = SCENES[name].build()
    sim = scene.compile(dt=info.dt, newton=NewtonOptions(compiled=compiled))
    sim.run(10 * info.dt)
    sim.newton_stats.reset()
    t0 = time.process_time()
    sim.run(info.duration)
    cpu = time.process_time() - t0
    st = sim.newton_stats
    dofs = f"{len(sim.stepper.free)}, {sim.stepper.pattern.kind}"
    return cpu / st.steps * 1e3, st.iterations / st.steps, sim.stepper.loop is not None, dofs


def first_step(name, compiled, numba_cache, softmech_cache, source=FIRST_STEP, **fmt):
    """(seconds to build and compile the scene, seconds of its first step) in a fresh
    process with the given cache folders."""
    env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, SOFTMECH_CACHE_DIR=softmech_cache)
    code = source.format(name=name, compiled=compiled, **fmt)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    build, step = map(float, out.stdout.split())
    return build, step


def on_both_engines():
    """Each scene's whole duration on the discrete and the unified engine (warm: two steps
    first), wall time, and the largest node distance between the engines' final states."""
    import numpy as np
    from softmech.scenarios import SCENES
    print("| scene | simulated [s] | discrete engine [s] | unified engine [s] | largest node "
          "distance at the end [m] |")
    print("|---|---:|---:|---:|---:|")
    for name in SCENES_TIMED:
        wall, final = {}, {}
        for engine in ("discrete", "unified"):
            scene, info = SCENES[name].build()
            sim = scene.compile(dt=info.dt, engine=engine)
            sim.run(2 * info.dt)
            t0 = time.perf_counter()
            sim.run(info.duration)
            wall[engine] = time.perf_counter() - t0
            final[engine] = {b.name: np.asarray(sim.get_state(b.name)["positions"])
                             for b in scene.implicit_bodies}
        gap = max(np.abs(final["unified"][b] - final["discrete"][b]).max()
                  for b in final["discrete"])
        print(f"| `{name}` | {info.duration:g} | {wall['discrete']:.3f} | "
              f"{wall['unified']:.3f} | {gap:.2g} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="also the cold compile times")
    parser.add_argument("--engines", action="store_true",
                        help="only each scene on the discrete and the unified engine")
    args = parser.parse_args()
    print(f"load average at the start {os.getloadavg()[0]:.2f}\n")
    if args.engines:
        return on_both_engines()
    print("| scene | free DOFs, storage | Newton loop | CPU ms per step | Newton it./step |")
    print("|---|---|---|---|---|")
    for name in SCENES_TIMED:
        for compiled in (True, False):
            ms, its, used, dofs = steady(name, compiled)
            if compiled and not used:
                label = "Python (no compiled loop: sparse)"
            else:
                label = "compiled" if used else "Python"
            print(f"| `{name}` | {dofs} | {label} | {ms:.3f} | {its:.2f} |")
            if compiled and not used:
                break
    if args.cold:
        print("\n| scene | first step, empty caches, compiled loop [s] | the same, Python loop "
              "[s] | first step, kernels cached, its loop not [s] |")
        print("|---|---|---|---|")
        for name in ROD_SCENES:
            with tempfile.TemporaryDirectory() as nc, tempfile.TemporaryDirectory() as sc:
                _, fast = first_step(name, True, nc, sc)
            with tempfile.TemporaryDirectory() as nc, tempfile.TemporaryDirectory() as sc:
                _, slow = first_step(name, False, nc, sc)
                # the kernels are now cached in nc; the scene's generated loop is not
                _, loop = first_step(name, True, nc, sc)
            print(f"| `{name}` | {fast:.1f} | {slow:.1f} | {loop:.1f} |")
        print("\n| clamped rods (10 edges each) | first step, kernels cached, its loop not [s] |")
        print("|---|---|")
        with tempfile.TemporaryDirectory() as nc:
            first_step("", True, nc, tempfile.mkdtemp(), RODS_FIRST_STEP, k=1)   # the kernels
            for k in (1, 3, 6, 12):
                with tempfile.TemporaryDirectory() as sc:
                    _, loop = first_step("", True, nc, sc, RODS_FIRST_STEP, k=k)
                print(f"| {k} | {loop:.1f} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
