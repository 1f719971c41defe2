"""Discrete shells (issue 13): time per Newton iteration against the number of triangles (not
collected by pytest).

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/shells.py

(OPENBLAS_NUM_THREADS=1: on this shared 2-core machine OpenBLAS's threads made each
np.linalg.norm of a 15,000-vector take ~18 ms and SuperLU twice as slow.)

A square plate (1 m, equilateral mesh of ~1,000 and ~10,000 triangles, h = 1 mm, E = 1 GPa,
clamped edges, pressure 10 Pa) with the hinge and the mid-edge bending model. For each: the
force + Jacobian evaluation of all bindings (stretching, bending, pressure; one Newton
iteration evaluates it once plus once per line-search trial), one linear solve of the Newton
system (scipy's SuperLU: the mesh's band is too wide for the banded solver), and the measured
wall time per Newton iteration of 3 implicit steps of 1 ms (Newton's residual target 1e-9 of
the pressure's total force, atol = 1e-8 N: the default relative target falls below round-off at
10,000 triangles). Best of 3 (evaluation: of 20).
"""
import time

import numpy as np

import softmech as sm
from softmech.bodies import meshes
from softmech.implicit.newton import NewtonOptions

SIDES = {1000: 21, 10000: 66}     # divisions along x giving ~1,000 and ~10,000 triangles


def plate(bending, n):
    mesh = meshes.rectangle(1.0, 1.0, n)
    v = mesh.vertices
    edge = np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= 1) | (v[:, 1] <= 0) | (v[:, 1] >= 1))
    scene = sm.Scene()
    shell = scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e9,
                            density=1000.0, bending=bending)
    angles = np.flatnonzero(np.all(np.isin(shell.edges, edge), axis=1)) if bending == "midedge" else ()
    scene.add(sm.FixNodes("plate", edge, angles=angles))
    scene.add(sm.ShellPressure("plate", 10.0))
    return scene.compile(dt=1e-3, newton=NewtonOptions(atol=1e-8)), len(mesh.triangles)


def best(fn, repeat):
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - t0) / repeat)
    return min(times)


def main():
    print(f"{'model':>8} {'triangles':>9} {'DOFs':>7} {'forces+J ms':>12} {'solve ms':>9} "
          f"{'ms/iteration':>13} {'iterations/step':>16}")
    for bending in ("hinge", "midedge"):
        for target, n in SIDES.items():
            sim, n_tris = plate(bending, n)
            st = sim.stepper
            q, v = sim.q[0].copy(), np.zeros_like(sim.q[0])
            st._begin(0, q, 0.0)
            t_force = best(lambda: st.forces(0, q, v, 1e-3, 1e-3), 20)
            _, J = st.forces(0, q, v, 1e-3, 1e-3)
            diag = st.mass[st.free] / 1e-6
            rhs = np.ones(len(st.free))
            t_solve = best(lambda: st.pattern.solve(J, diag, rhs), 1)
            print(f"  ({bending}, {n_tris} triangles: evaluation and solve timed)", flush=True)
            sim.step(1)                       # warm
            st.stats.reset()
            t0 = time.perf_counter()
            sim.step(3)
            wall = time.perf_counter() - t0
            it = st.stats.iterations
            print(f"{bending:>8} {n_tris:>9} {sim.layout.n_dof:>7} {1e3 * t_force:>12.2f} "
                  f"{1e3 * t_solve:>9.1f} {1e3 * wall / it:>13.1f} {it / 3:>16.1f} "
                  f"({st.pattern.kind})", flush=True)


if __name__ == "__main__":
    main()
