"""Discrete shells (issue 13): the multigrid preconditioner's choices, one linear solve at a time
(not collected by pytest).

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/shells_amg.py
    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/shells_amg.py --sizes 30000

For the plate of benchmarks/shells.py (hinge and mid-edge bending) at ~1,000, 10,000 and 30,000
triangles, after two implicit steps of 1 ms: the Newton matrix and a random right-hand side,
solved by scipy's GMRES (accepted_gmres below, softmech's solve before issue 27: accepted at a true
residual <= 1e-10 |b|) preconditioned with a V-cycle of softmech.implicit.multigrid.Hierarchy
built with
- the near-null space: the three translations only, or the six rigid modes (translations and
  rotations; the mid-edge angles turning with the rotation, softmech.implicit.near_null);
- the prolongators' smoothing: "jacobi" or "energy" (multigrid.SMOOTHERS);
and then the matrix 8 steps later solved with that hierarchy after a Galerkin refresh of its
coarse operators (what ReusedAMG does between setups). Prints the CPU times of the setup, of
the refresh and of one V-cycle (the compiled one, softmech.kernels.multigrid_cycle.vcycle, with
its product A x), the GMRES iterations (fresh, refreshed) and the levels' sizes; the same
solve by softmech's compiled FGMRES (ReusedAMG's, one V-cycle per iteration), its iterations
and CPU time, against scipy's GMRES around the compiled V-cycle (accepted_gmres: the
preconditioner applied once more at the start and at each restart's end). A near-linear solver
needs the iteration count to stay flat as n grows.
"""
import argparse
import os
import time

import numpy as np
import scipy.sparse.linalg

from shells import SIDES, plate
from softmech.implicit import multigrid, sparse_solve


def accepted_gmres(A, rhs, precondition, max_iterations=None):
    """Solve A x = rhs by scipy's GMRES preconditioned on the right with `precondition` (y ->
    M^-1 y, (n,) -> (n,)), accepting x only at a true residual |A x - rhs| <= KRYLOV_RTOL |rhs|
    within max_iterations (default KRYLOV_MAX_ITERATIONS) GMRES iterations. Returns (x (n,),
    the iterations) or (None, the iterations spent) when not accepted. softmech's solves
    before they were compiled (softmech.kernels.factored_krylov); kept here as this
    benchmark's baseline."""
    if max_iterations is None:
        max_iterations = sparse_solve.KRYLOV_MAX_ITERATIONS
    norm_b = float(np.linalg.norm(rhs))
    if norm_b == 0.0:
        return np.zeros_like(rhs), 0
    # GMRES preconditioned on the right: it solves (A M^-1) y = r, x = M^-1 y, so its
    # stopping test is on the true residual r - A x (left preconditioning tests
    # M^-1 (r - A x), which can be small while the true residual is not: it had to be
    # asked for two more digits and restarted, ~5 more applications of the factors per
    # solve). Still, x is accepted only on the true residual computed here (GMRES's own
    # is a recurrence). Each GMRES round solves for a correction of x from the true
    # residual r = b - A x (iterative refinement), starting from the preconditioner's own
    # solution x = M^-1 b: restarting GMRES on y itself (x0 = y) could not go below the
    # round-off of M^-1 y, relative to |y| ~ |b|, which for a multigrid V-cycle on the
    # mid-edge plate of 30,000 triangles sat at 1.2e-10 |b|, above KRYLOV_RTOL, while the
    # correction's round-off is relative to |r|.
    AM = scipy.sparse.linalg.LinearOperator(A.shape, matvec=lambda y: A @ precondition(y),
                                            dtype=float)
    count = [0]

    def tally(_residual):
        count[0] += 1

    x = precondition(rhs)
    while np.all(np.isfinite(x)):
        residual = rhs - A @ x
        if float(np.linalg.norm(residual)) <= sparse_solve.KRYLOV_RTOL * norm_b:
            return x, count[0]
        before = count[0]
        if before >= max_iterations:
            break
        y, _info = scipy.sparse.linalg.gmres(
            AM, residual, rtol=0.0, atol=sparse_solve.GMRES_RTOL * norm_b,
            restart=max_iterations - before, maxiter=1, callback=tally,
            callback_type="pr_norm")
        if count[0] == before:      # GMRES stopped at once: no progress possible
            break
        x = x + precondition(y)
    return None, count[0]


def newton_matrix(sim):
    """The Newton matrix (CSR) and the DOF values of world 0 at its current state."""
    st = sim.stepper
    q = sim.q[0].copy()
    st._begin(0, q, 0.0)
    _, J = st.forces(0, q, np.zeros_like(q), 1e-3, 1e-3)
    return st.pattern.sparse_matrix(J, st.mass[st.free] / 1e-6).tocsr(), q


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000",
                        help=f"target triangle counts, comma-separated, from {sorted(SIDES)}")
    parser.add_argument("--models", default="hinge,midedge")
    parser.add_argument("--smooth", default=",".join(multigrid.SMOOTHERS),
                        help="prolongator smoothers, comma-separated")
    args = parser.parse_args()
    print(f"load average (uptime) {os.getloadavg()}")
    print(f"{'model':>8} {'triangles':>9} {'DOFs':>7} {'modes':>12} {'smooth':>7} "
          f"{'setup ms':>9} {'refresh ms':>11} {'V-cycle ms':>11} {'GMRES it':>9} "
          f"{'refreshed it':>13} {'scipy ms':>9} {'FGMRES it':>10} {'FGMRES ms':>10}  levels")
    for bending in args.models.split(","):
        for target in (int(size) for size in args.sizes.split(",")):
            sim, n_tris = plate(bending, SIDES[target])
            st = sim.stepper
            sim.step(2)
            A, q = newton_matrix(sim)
            sim.step(8)
            A_later, _ = newton_matrix(sim)
            b = np.random.default_rng(0).standard_normal(A.shape[0])
            modes = st._rigid_modes
            B = modes.modes(q, st.free)
            owner = modes.owners(st.free)
            for label, near_null in (("translations", B[:, :3]), ("rigid", B)):
                for smooth in args.smooth.split(","):
                    t0 = time.process_time()
                    hierarchy = multigrid.Hierarchy(A, near_null, owner, smooth)
                    setup = time.process_time() - t0
                    t0 = time.process_time()
                    for _ in range(10):
                        hierarchy.cycle(A, b)
                    cycle = (time.process_time() - t0) / 10
                    t0 = time.process_time()
                    _, iterations = accepted_gmres(
                        A, b, lambda y: hierarchy.cycle(A, y), max_iterations=200)
                    scipy_solve = time.process_time() - t0
                    solver = multigrid.ReusedAMG(modes, st.free, smooth=smooth)
                    solver._hierarchy = hierarchy
                    t0 = time.process_time()
                    x, fgmres_it = solver._fgmres(A, b)
                    fgmres = time.process_time() - t0
                    if x is None:
                        fgmres_it = -fgmres_it
                    t0 = time.process_time()
                    hierarchy.refresh(A_later)
                    refresh = time.process_time() - t0
                    _, later = accepted_gmres(
                        A_later, b, lambda y: hierarchy.cycle(A_later, y), max_iterations=200)
                    print(f"{bending:>8} {n_tris:>9} {A.shape[0]:>7} {label:>12} {smooth:>7} "
                          f"{1e3 * setup:>9.0f} {1e3 * refresh:>11.0f} {1e3 * cycle:>11.2f} "
                          f"{iterations:>9d} {later:>13d} {1e3 * scipy_solve:>9.1f} "
                          f"{fgmres_it:>10d} {1e3 * fgmres:>10.1f}  "
                          f"{[op.shape[0] for op in hierarchy.ops]}", flush=True)


if __name__ == "__main__":
    main()
