"""Cold compile time of the multigrid's kernels (softmech.kernels.multigrid_cycle and
softmech.kernels.multigrid_setup; developer tool, not collected by pytest).

    python benchmarks/multigrid_compile.py

Runs with empty, temporary numba and softmech caches (set before numba is imported), builds a
small clamped hinge plate (benchmarks/shells.py's, 1,000 triangles) and its multigrid
hierarchy, and times the first call of each kernel, which compiles it (and, for fgmres, the
V-cycle and the sweeps it calls), then a second call (warm). Prints wall seconds; numbers are
recorded in docs/benchmarks_log.md with the machine.
"""
import os
import sys
import tempfile
import time


def main():
    folder = tempfile.mkdtemp(prefix="softmech-compile-")
    os.environ.update(NUMBA_CACHE_DIR=folder, SOFTMECH_CACHE_DIR=folder)
    t_start = time.perf_counter()
    import numpy as np

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from shells import SIDES, plate
    from softmech.implicit import multigrid, multigrid_hierarchy, sparse_solve
    from softmech.kernels import multigrid_cycle, multigrid_setup
    t_import = time.perf_counter() - t_start

    sim, _ = plate("hinge", SIDES[1000])
    st = sim.stepper
    q = sim.q[0].copy()
    st._begin(0, q, 0.0)
    _, J = st.forces(0, q, np.zeros_like(q), 1e-3, 1e-3)
    A = st.pattern.sparse_matrix(J, st.mass[st.free] / 1e-6).tocsr()
    A.sort_indices()
    modes = st._rigid_modes
    B = modes.modes(q, st.free)
    rows = [("import softmech (and the scene's terms)", t_import)]

    def timed(name, fn):
        t0 = time.perf_counter()
        fn()
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        fn()
        rows.append((name, cold, time.perf_counter() - t0))

    X = np.array(B)
    timed("multigrid_setup.smooth_candidates",
          lambda: multigrid_setup.smooth_candidates(A.indptr, A.indices, A.data, X, 1))
    hierarchy = []
    timed("Hierarchy (multigrid_setup.btb_inverse, pyamg)",
          lambda: hierarchy.append(multigrid_hierarchy.Hierarchy(A, B, modes.owners(st.free),
                                                                 "energy")))
    solver = multigrid.ReusedAMG(modes, st.free, smooth="energy")
    solver._hierarchy = hierarchy[-1]
    b = np.random.default_rng(0).normal(size=A.shape[0])
    timed("multigrid_cycle.fgmres (with vcycle, sweeps)", lambda: solver._fgmres(A, b))
    total = time.perf_counter() - t_start
    print(f"cold compile of the multigrid kernels, empty caches in {folder}; load average "
          f"{os.getloadavg()}")
    print(f"  {rows[0][0]:48s} {rows[0][1]:6.2f} s")
    for name, cold, warm in rows[1:]:
        print(f"  {name:48s} {cold:6.2f} s   (second call {1e3 * warm:.1f} ms)")
    print(f"  {'total (process, from the start)':48s} {total:6.2f} s")
    x, it = solver._fgmres(A, b)
    assert x is not None and np.linalg.norm(A @ x - b) <= (sparse_solve.KRYLOV_RTOL
                                                           * np.linalg.norm(b))


if __name__ == "__main__":
    main()
