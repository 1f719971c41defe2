"""Discrete shells (issue 13): time per Newton iteration against the number of triangles (not
collected by pytest).

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/shells.py
    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/shells.py --sizes 30000 --no-fresh
    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/shells.py \
        --solver nd-ilu --sizes 1000,10000,30000 --no-fresh

(OPENBLAS_NUM_THREADS=1: on this shared 2-core machine OpenBLAS's threads made each
np.linalg.norm of a 15,000-vector take ~18 ms and SuperLU twice as slow.) Times are the
process's CPU time (time.process_time; one thread everywhere, so it is the work done) because
wall times on the shared cores varied by 2-4x from run to run; the per-iteration wall time is
printed beside it.

A square plate (1 m, equilateral mesh of ~1,000, ~10,000 or ~30,000 triangles, h = 1 mm,
E = 1 GPa, clamped edges, pressure 10 Pa) with the hinge and the mid-edge bending model. For
each: the force + Jacobian evaluation of all bindings (stretching, bending, pressure; one Newton
iteration evaluates it once plus once per line-search trial), one linear solve of the Newton
system by a fresh sparse LU (scipy's SuperLU, COLAMD: the mesh's band is too wide for the
banded solver; best of 3) and by GMRES preconditioned with the preconditioner made for the
previous step's matrix (--solver: "auto", the one softmech chooses for the plate -- the
nested-dissection-ordered incomplete LU below multigrid.AMG_MIN_NODES nodes, the multigrid
above; or one of SOLVERS: "nd-ilu" (softmech.implicit.sparse_solve.ReusedILU), "nd-lu" (its
complete LU), "colamd-ilu" (SuperLU's own ordering), "amg" and "amg-energy"
(softmech.implicit.multigrid.ReusedAMG with Jacobi or energy-minimizing prolongators); best of
3), and the time per Newton iteration of --steps implicit steps of 1 ms (default STEPS; the
first factorization or multigrid setup included, the nested-dissection ordering not: it is
computed once per pattern, its time is printed), with the reused preconditioner ("reused")
and with a fresh LU at every iteration ("fresh LU", skipped with --no-fresh), and the number
of preconditioners built (factorizations; multigrid setups + refreshes of its coarse
operators; complete LUs), GMRES iterations per solve and the kept preconditioner's storage
over A's nonzeros (factors; multigrid operator complexity) in the reused run (Newton's
residual target 1e-9 of the pressure's total force, atol = 1e-8 N: the default relative
target falls below round-off at 10,000 triangles). Evaluation: best of 3 x 20.
"""
import argparse
import os
import time

import numpy as np
import scipy.sparse

import softmech as sm
from softmech.bodies import meshes
from softmech.implicit import multigrid, ordering, sparse_solve
from softmech.implicit.newton import NewtonOptions

# divisions along x giving ~1,000, 2,000, 3,000, 4,000, 5,000, 10,000, 30,000 triangles
SIDES = {1000: 21, 2000: 29, 3000: 36, 4000: 41, 5000: 46, 10000: 66, 30000: 114}
STEPS = 10
SOLVERS = {   # the reused preconditioners measured: a world's solver made for the stepper st
    "nd-ilu": lambda st: sparse_solve.ReusedILU(ordering=st.pattern.ordering),
    "nd-lu": lambda st: sparse_solve.ReusedILU(complete=True, ordering=st.pattern.ordering),
    "colamd-ilu": lambda st: sparse_solve.ReusedILU(ordered=False),
    "amg": lambda st: multigrid.ReusedAMG(st._rigid_modes, st.free, smooth="jacobi"),
    "amg-energy": lambda st: multigrid.ReusedAMG(st._rigid_modes, st.free, smooth="energy"),
}


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
        t0 = time.process_time()
        for _ in range(repeat):
            fn()
        times.append((time.process_time() - t0) / repeat)
    return min(times)


def configure(sim, solver):
    """Give world 0 the solver SOLVERS[solver] ("fresh": a fresh LU at every solve; "auto":
    the one softmech chooses)."""
    st = sim.stepper
    st.pattern.sparse_solvers.pop(0, None)
    if solver == "fresh":
        st.pattern.sparse_solvers[0] = sparse_solve.ReusedILU(reuse=False)
    elif solver != "auto":
        st.pattern.sparse_solvers[0] = SOLVERS[solver](st)
    return st.pattern.sparse_solver


def builds(solver):
    """Preconditioners built so far: factorizations (ILU) or setups + refreshes (AMG), and
    complete LU factorizations."""
    made = getattr(solver, "factorizations", None)
    if made is None:
        made = solver.setups + solver.refreshes
    return made + solver.direct_solves


def per_iteration(sim, solver):
    """CPU and wall time per Newton iteration [s] over STEPS steps after one warm step,
    iterations per step, preconditioners built (builds()), GMRES iterations per accepted GMRES
    solve, with world 0's solver SOLVERS[solver] ("fresh": a fresh LU at every solve). The run
    starts without a kept preconditioner, so its first factorization (or multigrid setup) is
    counted in the window (amortized over STEPS steps: longer runs amortize it further)."""
    st = sim.stepper
    configure(sim, solver)
    sim.step(1)                       # warm
    st.stats.reset()
    solver = st.pattern.sparse_solver
    solver.forget()
    before = (builds(solver), solver.krylov_iterations, solver.krylov_solves)
    t0, w0 = time.process_time(), time.perf_counter()
    sim.step(STEPS)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    it = st.stats.iterations
    krylov = (solver.krylov_iterations - before[1]) / max(solver.krylov_solves - before[2], 1)
    return cpu / it, it / STEPS, builds(solver) - before[0], krylov, wall / it


def main():
    global STEPS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solver", choices=["auto"] + sorted(SOLVERS), default="auto",
                        help="the reused preconditioner (default: the one softmech chooses)")
    parser.add_argument("--sizes", default="1000,10000",
                        help=f"target triangle counts, comma-separated, from {sorted(SIDES)}")
    parser.add_argument("--models", default="hinge,midedge")
    parser.add_argument("--no-fresh", action="store_true",
                        help="skip the per-iteration run with a fresh LU at every solve")
    parser.add_argument("--steps", type=int, default=STEPS,
                        help="implicit steps timed per run (the first setup is amortized over "
                             "them)")
    args = parser.parse_args()
    STEPS = args.steps
    print(f"solver {args.solver}; load average (uptime) {os.getloadavg()}")
    print(f"{'model':>8} {'triangles':>9} {'DOFs':>7} {'forces+J ms':>12} {'fresh LU ms':>12} "
          f"{'reused ms':>10} {'ms/it fresh':>12} {'ms/it reused':>13} {'it/step':>8} "
          f"{'builds':>15} {'GMRES it/solve':>15} {'complexity':>15} "
          f"{'ordering ms':>12}")
    for bending in args.models.split(","):
        for target in (int(size) for size in args.sizes.split(",")):
            sim, n_tris = plate(bending, SIDES[target])
            st = sim.stepper
            q, v = sim.q[0].copy(), np.zeros_like(sim.q[0])
            st._begin(0, q, 0.0)
            t_force = best(lambda: st.forces(0, q, v, 1e-3, 1e-3), 20)
            _, J = st.forces(0, q, v, 1e-3, 1e-3)
            diag = st.mass[st.free] / 1e-6
            rhs = np.ones(len(st.free))
            configure(sim, "fresh")
            t_fresh = best(lambda: st.pattern.solve(J, diag, rhs, q=q), 1)
            solver = configure(sim, args.solver)
            t0 = time.process_time()
            st.pattern.solve(J, diag, rhs, q=q)   # ordering and factors (hierarchy): flat plate
            t_first = time.process_time() - t0
            fill = complexity(solver, st.pattern._size)
            ordering = nd_time(solver) if getattr(solver, "ordered", False) else 0.0
            sim.step(1)
            q1 = sim.q[0].copy()
            st._begin(0, q1, 1e-3)
            _, J1 = st.forces(0, q1, v, 2e-3, 1e-3)
            J1 = J1.copy()
            t_reused = best(lambda: st.pattern.solve(J1, diag, rhs, q=q1), 1)
            print(f"  ({bending}, {n_tris} triangles: evaluation and solves timed; first solve "
                  f"with ordering and factorization (multigrid setup) {1e3 * t_first:.0f} ms; "
                  f"{type(solver).__name__})", flush=True)
            if args.no_fresh:
                fresh = (float("nan"),) * 5
            else:
                fresh = per_iteration(plate(bending, SIDES[target])[0], "fresh")
            reused = per_iteration(sim, args.solver)
            print(f"{bending:>8} {n_tris:>9} {sim.layout.n_dof:>7} {1e3 * t_force:>12.2f} "
                  f"{1e3 * t_fresh:>12.1f} {1e3 * t_reused:>10.1f} {1e3 * fresh[0]:>12.1f} "
                  f"{1e3 * reused[0]:>13.1f} {reused[1]:>8.1f} {reused[2]:>15d} {reused[3]:>15.1f} "
                  f"{fill:>15.1f} {1e3 * ordering:>12.0f} "
                  f"({st.pattern.kind}; fresh LU {fresh[1]:.1f} it/step; wall ms/it fresh "
                  f"{1e3 * fresh[4]:.0f}, reused {1e3 * reused[4]:.0f}; "
                  f"load {os.getloadavg()[0]:.2f})",
                  flush=True)


def complexity(solver, nnz):
    """The kept preconditioner's storage over A's nonzeros nnz: the (incomplete) factors'
    nonzeros, or the multigrid levels' operators' (operator complexity)."""
    hierarchy = getattr(solver, "_hierarchy", None)
    if hierarchy is not None:
        return sum(op.nnz for op in hierarchy.ops) / nnz
    lu = solver._lu
    return (lu.L.nnz + lu.U.nnz) / nnz


def nd_time(solver):
    """CPU time [s] of one nested-dissection ordering of the solver's pattern (done once per
    pattern in a run)."""
    A = scipy.sparse.csc_matrix((np.ones(solver.ordering._indices.size), solver.ordering._indices,
                                 solver.ordering._indptr))
    t0 = time.process_time()
    ordering.nested_dissection(A)
    return time.process_time() - t0


if __name__ == "__main__":
    main()
