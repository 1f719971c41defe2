"""A net of discrete rods: the sparse Newton solvers on a network that is not a shell (not
collected by pytest).

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/rod_net.py --sides 60,100

A square net (1 m, k x k nodes joined by rods along both grid directions, radius 1 mm,
E = 1 GPa) hanging under gravity from its four corners, implicit steps of 1 ms (Newton atol
1e-8 N). For each size, the CPU time per Newton iteration over 10 steps after a warm one (the
first factorization or multigrid setup in the window) with world 0's solver set to the
nested-dissection incomplete LU (softmech.implicit.sparse_solve.ReusedILU) and to the
multigrid with the rigid modes (softmech.implicit.multigrid.ReusedAMG, energy prolongators),
with the GMRES iterations per solve. softmech chooses the multigrid by the number of shell
nodes only (multigrid.AMG_MIN_NODES); this measures why.
"""
import argparse
import os
import time

import numpy as np

import softmech as sm
from softmech.implicit import multigrid, sparse_solve
from softmech.implicit.newton import NewtonOptions

STEPS = 10


def net(k):
    """The compiled hanging net of k x k nodes."""
    x, y = np.meshgrid(np.linspace(0, 1, k), np.linspace(0, 1, k), indexing="ij")
    idx = np.arange(k * k).reshape(k, k)
    edges = np.concatenate([np.stack([idx[:-1].ravel(), idx[1:].ravel()], 1),
                            np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], 1)])
    scene = sm.Scene()
    scene.add_der_rod(name="net", centerline=np.stack([x.ravel(), y.ravel(), 0 * x.ravel()], 1),
                      edges=edges, radius=1e-3, density=1000.0, youngs_modulus=1e9,
                      normal=(0.0, 0.0, 1.0))
    scene.add(sm.FixNodes("net", [idx[0, 0], idx[0, -1], idx[-1, 0], idx[-1, -1]]))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene.compile(dt=1e-3, newton=NewtonOptions(atol=1e-8))


def per_iteration(sim, solver):
    """CPU time per Newton iteration [s] and GMRES iterations per solve with world 0's solver
    "ilu" or "amg"."""
    st = sim.stepper
    pattern = st.pattern
    pattern.sparse_solvers[0] = (
        sparse_solve.ReusedILU(ordering=pattern.ordering) if solver == "ilu"
        else multigrid.ReusedAMG(st._rigid_modes, st.free, smooth="energy"))
    sim.step(1)
    st.stats.reset()
    s = pattern.sparse_solver
    s.forget()
    before = (s.krylov_iterations, s.krylov_solves)
    t0 = time.process_time()
    sim.step(STEPS)
    cpu = time.process_time() - t0
    return (cpu / st.stats.iterations,
            (s.krylov_iterations - before[0]) / max(s.krylov_solves - before[1], 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", default="60,100", help="nodes per side, comma-separated")
    args = parser.parse_args()
    for k in (int(side) for side in args.sides.split(",")):
        for solver in ("ilu", "amg"):
            sim = net(k)
            cpu, gmres = per_iteration(sim, solver)
            print(f"net {k}x{k} nodes, {sim.layout.n_dof} DOFs, {solver}: "
                  f"{1e3 * cpu:.1f} ms per Newton iteration, {gmres:.1f} GMRES iterations per "
                  f"solve (softmech's choice: {sim.stepper.pattern.solver}; "
                  f"load {os.getloadavg()[0]:.2f})", flush=True)


if __name__ == "__main__":
    main()
