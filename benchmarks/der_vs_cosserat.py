"""Implicit discrete elastic rod (DER) against the explicit Cosserat rod on a stiff cantilever.

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/der_vs_cosserat.py [--quick]

Problem (issue 13, "Performance"): the validated cantilever (softmech.validation.der)
(L = 1 m, r = 10 mm, rho = 1000 kg/m^3, nu = 0.5, n = 50 edges) released straight under
gravity and simulated for 1 s, at E = 1e9 and 1e11 Pa.

- Cosserat: explicit position Verlet at 0.9 x its stable step (softmech.stability), no damping.
- DER: implicit Euler (softmech.implicit) at dt = 1e-4, 1e-3, 1e-2, 0.05 and 0.1 s, full Newton
  steps, with the compiled Newton loop (softmech.implicit.compiled) and, in the same run, with the
  Python loop (NewtonOptions(compiled=False): the same results, bit for bit).
Both timed warm (kernels compiled and cached beforehand), in CPU time of this process
(time.process_time), recording the tip every DER step. Accuracy: the DER tip's z(t)
against the Cosserat tip's (the explicit run, at a step 1e3-1e4 x smaller, is the reference),
as the RMS difference over the second over the RMS tip motion; it includes implicit Euler's
numerical damping, which is the price of the large step. Quasi-static accuracy: the mean tip z
over the whole first-mode periods in the last half second against the static sag (DER static solve): what a user who wants the
slow motion of a stiff rod (its vibrations damped anyway) gets.

Then the cost per Newton iteration of the DER against n (50 ... 1600 edges): the force and
Jacobian evaluation of all bindings, and one banded linear solve (LAPACK's banded Cholesky, or
LU where the matrix is not symmetric positive definite), each the best of repeated calls at a
bent state; and a whole Newton iteration in the compiled and in the Python loop (CPU time of
0.05 s simulated at dt = 1e-3 s over the iterations). Prints Markdown tables for
docs/benchmarks_log.md, with the load average.
"""
import argparse
import math
import os
import platform
import time

import numpy as np

import softmech as sm
from softmech.implicit.newton import NewtonOptions
from softmech.validation.common import compile_stable, straight_rod
from softmech.validation.der import RHO, A, I, L, R, cantilever, static_tip

FULL_STEPS = NewtonOptions(line_search=False)
DER_STEPS = (1e-4, 1e-3, 1e-2, 5e-2, 1e-1)
"""The DER's steps [s]: 1e-4 ... 1e-2 follow the vibration more or less closely; 0.05 and 0.1 s
are quasi-static (implicit Euler damps the first mode within a few steps)."""
PYTHON_LOOP = NewtonOptions(line_search=False, compiled=False)


def cosserat_run(E, duration):
    scene = sm.Scene()
    rod = straight_rod(scene, n_elems=50, length=L, radius=R, density=RHO, youngs_modulus=E,
                       shear_modulus=E / 3.0)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    sim = compile_stable(scene, 0.9)
    sim.step(1)                                    # kernels loaded
    sim = compile_stable(scene, 0.9)
    every = max(1, round(1e-3 / sim.dt))
    t0 = time.process_time()
    out = sim.run(duration, record=sm.Every(every * sim.dt, ("positions",)))
    wall = time.process_time() - t0
    return wall, sim.dt, out["time"], out["positions"][0, :, -1, 2]


def der_run(E, dt, duration, options=FULL_STEPS):
    scene, _ = cantilever(E)
    sim = scene.compile(dt=dt, newton=options)
    sim.step(1)                                    # kernels loaded
    scene, _ = cantilever(E)
    sim = scene.compile(dt=dt, newton=options)
    t0 = time.process_time()
    out = sim.run(duration, record=sm.Every(dt, ("rod.positions",)))
    wall = time.process_time() - t0
    st = sim.newton_stats
    return wall, st.iterations / st.steps, out["time"], out["rod.positions"][0, :, -1, 2]


def per_iteration(n, repeats):
    """Best times [s] of one force + Jacobian evaluation and of one linear solve, n edges."""
    scene, _ = cantilever(1e9, n=n)
    sim = scene.compile(dt=1e-3, newton=FULL_STEPS)
    sim.run(0.01)                                  # a bent, moving state
    st = sim.stepper
    q, v = sim.q[0].copy(), sim.v[0].copy()
    diag = st.mass[st.free] / 1e-6
    t_force, t_solve = math.inf, math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        F, J = st.forces(0, q, v, 0.0, 1e-3)
        t1 = time.perf_counter()
        st.pattern.solve(J, diag, F[st.free])
        t2 = time.perf_counter()
        t_force, t_solve = min(t_force, t1 - t0), min(t_solve, t2 - t1)
    return t_force, t_solve, st.pattern.kind, st.pattern.bandwidth, len(st.free)


def loop_iteration(n, options):
    """CPU time [s] per Newton iteration and per step of 0.05 s simulated at dt = 1e-3 s
    (warm), and the iterations per step."""
    scene, _ = cantilever(1e9, n=n)
    sim = scene.compile(dt=1e-3, newton=options)
    sim.run(0.01)
    sim.newton_stats.reset()
    t0 = time.process_time()
    sim.run(0.05)
    cpu = time.process_time() - t0
    st = sim.newton_stats
    return cpu / st.iterations, cpu / st.steps, st.iterations / st.steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.1 s simulated, fewer repeats")
    args = parser.parse_args()
    duration = 0.1 if args.quick else 1.0
    print(f"machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}, numpy {np.__version__}; load average at the start "
          f"{os.getloadavg()[0]:.2f}\n")
    print("| E [Pa] | integrator | dt [s] | steps | Newton it./step | CPU [s] | speed-up "
          "| tip RMS diff. / RMS motion | late mean tip vs static sag |")
    print("|---|---|---|---|---|---|---|---|---|")
    for E in (1e9, 1e11):
        wall_c, dt_c, tc, zc = cosserat_run(E, duration)
        sag = static_tip(E)[0][2]
        f1 = 1.8751**2 / (2 * math.pi) * math.sqrt(E * I / (RHO * A * L**4))
        window = max(1, math.floor(0.5 * duration * f1)) / f1   # whole periods at the end

        def late(t, z, window=window, sag=sag):
            return f"{abs(z[t >= t[-1] - window].mean() - sag) / abs(sag):.1%}"
        print(f"| {E:.0e} | Cosserat, explicit | {dt_c:.3g} | {round(duration / dt_c)} | - "
              f"| {wall_c:.3f} | 1 | (reference) | {late(tc, zc)} |")
        motion = np.sqrt(np.mean((zc - zc.mean()) ** 2))
        for dt in DER_STEPS:
            for label, options in (("compiled loop", FULL_STEPS), ("Python loop", PYTHON_LOOP)):
                wall_d, its, td, zd = der_run(E, dt, duration, options)
                zc_at = np.interp(td, tc, zc)
                err = np.sqrt(np.mean((zd - zc_at) ** 2)) / motion
                print(f"| {E:.0e} | DER, implicit, {label} | {dt:g} | {round(duration / dt)} "
                      f"| {its:.2f} | {wall_d:.3f} | {wall_c / wall_d:.2g} | {err:.1%} "
                      f"| {late(td, zd)} |")
        print(f"|  | (first mode: f1 = {f1:.3g} Hz) | | | | | | | |")
    print("\n| n edges | DOFs free | storage (half band) | forces + Jacobian [ms] "
          "| linear solve [ms] | solve per DOF [us] | Newton iteration, compiled loop [ms] "
          "| Newton iteration, Python loop [ms] | it./step |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (50, 100, 200, 400, 800, 1600):
        tf, ts, kind, bw, nf = per_iteration(n, 5 if args.quick else 50)
        fast, _, its = loop_iteration(n, FULL_STEPS)
        slow, _, _ = loop_iteration(n, PYTHON_LOOP)
        print(f"| {n} | {nf} | {kind} ({bw}) | {tf * 1e3:.3f} | {ts * 1e3:.3f} "
              f"| {ts / nf * 1e6:.2f} | {fast * 1e3:.3f} | {slow * 1e3:.3f} | {its:.2f} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
