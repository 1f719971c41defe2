"""A large clamped plate on the discrete and the unified engine (issue 27; not collected by
pytest): the first steps (the Newton pattern's set-up: the unified engine's probe, or its
declared couplings, and the first factorization), the next steps, and the peak memory, one
fresh process per engine and size, warm numba caches (run it twice: the first run compiles).

    OPENBLAS_NUM_THREADS=1 python benchmarks/shell_engines.py --sides 21,70
    OPENBLAS_NUM_THREADS=1 python benchmarks/shell_engines.py --sides 30,40,50,70 --steps 200

The plate: 1 x 1 m, `sides` x `sides` squares of two triangles (meshes.rectangle), h = 1 mm,
E = 1 GPa, hinge bending (--bending midedge: the mid-edge model), its edges clamped, under
10 Pa (benchmarks/implicit_batch.py's plate at sides = 21: 1,032 triangles; 70: 11,421),
dt = 1 ms: 2 steps, then --steps steps (10). Also prints Newton's iterations and Jacobians
per step over the timed steps (the discrete engine: one Jacobian per iteration) and the
largest deflection, so the engines' answers can be compared. The pressure sets the plate into
an oscillation whose first ~40 steps take Newton more iterations than the later ones, so the
run's length decides which engine is faster (docs/benchmarks.md).
"""
import argparse
import os
import subprocess
import sys

CHILD = """
import resource, sys, time
import numpy as np
import softmech as sm
from softmech.bodies import meshes
engine, sides, steps, bending = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
mesh = meshes.rectangle(1.0, 1.0, sides)
v = mesh.vertices
edge = np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= 1) | (v[:, 1] <= 0) | (v[:, 1] >= 1))
scene = sm.Scene()
scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e9, density=1000.0,
                bending=bending)
scene.add(sm.FixNodes("plate", edge))
scene.add(sm.ShellPressure("plate", 10.0))
sim = scene.compile(dt=1e-3, engine=engine)
sys.path.insert(0, sys.argv[4])
from newton_counts import discrete_counts, unified_counts   # (iterations, ..., Jacobians, steps)
counts = unified_counts if engine == "unified" else discrete_counts
t0 = time.perf_counter()
sim.run(0.002)
t1 = time.perf_counter()
before = counts(sim)
sim.run(steps * 1e-3)
t2 = time.perf_counter()
done = counts(sim) - before
z = np.abs(np.asarray(sim.get_state("plate")["positions"])[..., 2]).max()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{engine:9s} {len(mesh.triangles):9d} {len(mesh.vertices):6d} {t1 - t0:12.2f} "
      f"{t2 - t1:11.3f} {done[0] / done[3]:6.2f} {done[2] / done[3]:6.3f} {z:14.6e} {peak:8.0f}")
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sides", default="21,70", help="squares per side, comma-separated")
    parser.add_argument("--engines", default="discrete,unified")
    parser.add_argument("--steps", type=int, default=10, help="timed steps after the first 2")
    parser.add_argument("--bending", default="hinge", choices=("hinge", "midedge"),
                        help="the shell's bending model (sm.Scene.add_shell's bending)")
    args = parser.parse_args(argv)
    print(f"engine    triangles  nodes  2 steps [s]  {args.steps:3d} steps [s]  it/step  jac/step "
          "max |z| [m]  peak [MB]")
    for sides in args.sides.split(","):
        for engine in args.engines.split(","):
            out = subprocess.run([sys.executable, "-c", CHILD, engine, sides, str(args.steps),
                                  os.path.dirname(os.path.abspath(__file__)), args.bending],
                                 capture_output=True, text=True)
            print(out.stdout.strip() or out.stderr.strip()[-2000:], flush=True)


if __name__ == "__main__":
    main()
