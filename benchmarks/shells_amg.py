"""Discrete shells (issue 13): does algebraic multigrid give the hinge plate's Newton matrix an
iteration count independent of n? (Not collected by pytest; needs `pip install pyamg`, which is
not a softmech dependency.)

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/shells_amg.py

For the plate of benchmarks/shells.py (hinge bending) at ~1,000, 10,000 and 30,000 triangles,
after two implicit steps of 1 ms: smoothed-aggregation AMG (pyamg, the three translations as
near-null space, scalar or 3x3-block storage, V-cycle) as the preconditioner of GMRES to a
relative residual 1e-10; prints setup and solve CPU time and GMRES iterations. A near-linear
solver needs the iteration count to stay flat as n grows.
"""
import time

import numpy as np
import pyamg
import scipy.sparse.linalg as spla

from shells import SIDES, plate


def main():
    for target in sorted(SIDES):
        sim, n_tris = plate("hinge", SIDES[target])
        sim.step(2)
        st = sim.stepper
        q = sim.q[0].copy()
        st._begin(0, q, 2e-3)
        _, J = st.forces(0, q, np.zeros_like(q), 1e-3, 1e-3)
        A = st.pattern.sparse_matrix(J, st.mass[st.free] / 1e-6).tocsr()
        n = A.shape[0]
        b = np.random.default_rng(0).standard_normal(n)
        near_null = np.kron(np.ones((n // 3, 1)), np.eye(3))     # 3 DOFs per free node (hinge)
        for label, matrix in (("scalar", A), ("3x3 blocks", A.tobsr(blocksize=(3, 3)))):
            t0 = time.process_time()
            ml = pyamg.smoothed_aggregation_solver(matrix, B=near_null, strength="symmetric",
                                                   max_coarse=500)
            setup = time.process_time() - t0
            residuals = []
            t0 = time.process_time()
            x, _ = spla.gmres(A, b, M=ml.aspreconditioner(cycle="V"), rtol=1e-10, restart=100,
                              maxiter=10, callback=residuals.append, callback_type="pr_norm")
            solve = time.process_time() - t0
            error = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
            print(f"{n_tris:6d} triangles {n:6d} DOFs {label:10s} setup {setup * 1e3:7.1f} ms "
                  f"solve {solve * 1e3:7.1f} ms GMRES {len(residuals):3d} it. residual {error:.1e}",
                  flush=True)


if __name__ == "__main__":
    main()
