"""softmech's implicit discrete elastic rod (DER) against DisMech's C++ (dismech-rods) on the
same cantilever, in one run.

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 MKL_NUM_THREADS=1 OMP_NUM_THREADS=1 \
        python benchmarks/peer_dismech_cpp.py --exe PATH/cantilever_bench [--quick] [--repeats R]

(or DISMECH_CPP_BENCH=PATH instead of --exe). The peer is StructuresComp/dismech-rods (C++,
Eigen, Intel MKL PARDISO), which is not on any package index and is not part of softmech: build
it outside this repository (docs/benchmarks_log.md says how it was built for the published table)
with a small driver, `cantilever_bench E dt T [ftol dtol line_search outfile]`, that sets up the
cantilever below with its SoftRobots / ForceContainer / GravityForce / World(BACKWARD_EULER),
steps it round(T / dt) times as its headless environment does (no renderer, no logger, no
per-step output), times that loop with its own wall and process-CPU clocks, and prints one JSON
line (keys steps, iterations, wall, cpu, tip, ...) after writing the tip's z(t) to outfile.

The problem: softmech.validation.der's cantilever (L = 1 m, r = 10 mm, rho = 1000 kg/m^3,
nu = 0.5 so G = E/3, n = 50 free edges: 52 nodes at x = (i - 0.5) l, l = L/(n + 0.5)), nodes 0
and 1 and the twist of edge 0 fixed (dismech-rods' lockEdge(0, 0) fixes the same DOFs), gravity
9.81 m/s^2 along -z, released straight from rest, no damping, implicit Euler, the same dt and
duration in both codes; 3D in both (the C++'s 2D mode is off).

Settings compared:
- softmech: its default NewtonOptions (rtol 1e-9 on |R| / |R0|, xtol 1e-12 m, residual line
  search with a watchdog, compiled Newton loop, banded Cholesky/LU), and line_search=False
  (full Newton steps). Warm: kernels compiled and loaded before timing.
- C++ "default": its SimParams defaults: ftol 1e-4 (|F| <= ftol |F0|, F0 the force at its
  initial guess), dtol 1e-2 m/s (max |dx| / dt < dtol over position DOFs), Goldstein line
  search; and the same tolerances with line search off (NO_LS).
- C++ "tight": ftol 1e-9 and dtol = 1e-12 m / dt, softmech's rtol and xtol, with Goldstein
  and without line search.

Columns: iterations per step (softmech: linear solves; the C++: its `iter` counter, the passes
of its Newton loop that assemble forces and Jacobian: the last pass finds convergence without a
solve when the force test stops it, so its solves are that count or one less); wall and CPU
time per simulated second and CPU ms per step (the C++: its own clocks around the stepping loop,
process start and setup excluded; softmech: Simulation.run of the whole duration with the
positions recorded every step, in memory); "softmech / this": the CPU time of softmech with the
same line-search policy (default <-> Goldstein, full steps <-> NO_LS) over this row's (< 1:
softmech faster); "RMS tip z diff.": the RMS over the run of this row's tip z(t) minus
softmech default's at the same instants, over the static sag (softmech's static solve,
validated in tests/validation/test_der_rod.py). Times are the best of --repeats runs.
A C++ run that fails or runs past --timeout (its Goldstein line search can loop forever) is
reported as failed, with the reason. A second table checks the equilibria: 40 steps of
dt = 0.5 s from rest, the last tip z against the static sag.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

import numpy as np

import softmech as sm
from softmech.implicit.newton import NewtonOptions
from softmech.validation.der import static_tip

from cantilever_run import softmech_run

CASES = ((1e8, 1e-3), (1e8, 1e-2), (1e9, 1e-3), (1e9, 1e-2), (1e11, 1e-3), (1e11, 1e-2))
EQ_CASES = (1e8, 1e9, 1e11)
EQ_DT, EQ_STEPS = 0.5, 40
DEFAULT = NewtonOptions()
FULL_STEPS = NewtonOptions(line_search=False)
NO_LS, GOLDSTEIN = 0, 1
# (name, ftol, dtol [m/s] as a function of dt, line search) of the C++ runs
CPP_SETTINGS = (
    ("C++ default (ftol 1e-4, dtol 1e-2 m/s, Goldstein)", 1e-4, lambda dt: 1e-2, GOLDSTEIN),
    ("C++ default tolerances, no line search", 1e-4, lambda dt: 1e-2, NO_LS),
    ("C++ tight (ftol 1e-9, dtol 1e-12 m / dt), Goldstein", 1e-9, lambda dt: 1e-12 / dt, GOLDSTEIN),
    ("C++ tight, no line search", 1e-9, lambda dt: 1e-12 / dt, NO_LS),
)
NO_EXE = ("no dismech-rods executable given: pass --exe PATH (or set DISMECH_CPP_BENCH=PATH) to "
          "a `cantilever_bench` built from StructuresComp/dismech-rods outside this repository; "
          "see this file's docstring and docs/benchmarks_log.md (section 'softmech against "
          "DisMech's C++ (dismech-rods)') for what it does and how it was built.")


def load():
    return os.getloadavg()[0]


def cpp_run(exe, E, dt, duration, ftol, dtol, line_search, timeout):
    """One run of the C++ driver: ((wall [s], cpu [s], iterations per step, times, tip z), its
    JSON line), or (None, [why]) when it fails or runs past timeout [s] (it is then killed:
    its Goldstein line search can loop forever, see docs/benchmarks_log.md)."""
    env = dict(os.environ, MKL_NUM_THREADS="1", OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tip.txt")
        try:
            res = subprocess.run([exe, repr(E), repr(dt), repr(duration), repr(ftol),
                                  repr(dtol), str(line_search), path], env=env,
                                 capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, [f"no result in {timeout:g} s (killed)"]
        if res.returncode != 0:
            return None, (res.stdout + res.stderr).strip().splitlines()[-1:]
        info = json.loads(res.stdout.strip().splitlines()[-1])
        t, z = np.loadtxt(path, unpack=True, ndmin=2)
    return (info["wall"], info["cpu"], info["iterations"] / info["steps"], t, z), info


def best(runs):
    """The run with the least CPU time of repeated runs (tuples with cpu at index 1)."""
    return min(runs, key=lambda r: r[1])


def table_header():
    print("| E [Pa] | dt [s] | code, setting | it./step | wall per sim. s [s] "
          "| CPU per sim. s [s] | ms per step (CPU) | softmech / this | RMS tip z diff. / sag "
          "| load |")
    print("|---|---|---|---|---|---|---|---|---|---|")


def compare(exe, E, dt, duration, sag, repeats, timeout):
    """Print softmech's and the C++'s rows of one case."""
    ref = {}
    for name, options in (("softmech default (line search)", DEFAULT),
                          ("softmech, full Newton steps", FULL_STEPS)):
        wall, cpu, its, t, z = best([softmech_run(E, dt, duration, options)
                                     for _ in range(repeats)])
        ref[options.line_search] = (cpu, t, z)
        diff = np.sqrt(np.mean((z - ref[True][2]) ** 2)) / abs(sag)
        print(f"| {E:.0e} | {dt:g} | {name} | {its:.2f} | {wall / duration:.4f} "
              f"| {cpu / duration:.4f} | {cpu / len(t) * 1e3:.4f} | 1 | {diff:.1e} "
              f"| {load():.2f} |")
    for name, ftol, dtol, ls in CPP_SETTINGS:
        runs = []
        for _ in range(repeats):
            runs.append(cpp_run(exe, E, dt, duration, ftol, dtol(dt), ls, timeout))
            if runs[-1][0] is None:
                break
        if runs[-1][0] is None:
            print(f"| {E:.0e} | {dt:g} | {name} | failed: {' '.join(runs[-1][1])} "
                  f"| | | | | | {load():.2f} |")
            continue
        wall, cpu, its, t, z = best([r for r, _ in runs])
        ref_cpu = ref[ls == GOLDSTEIN][0]
        diff = np.sqrt(np.mean((z - np.interp(t, ref[True][1], ref[True][2])) ** 2)) / abs(sag)
        print(f"| {E:.0e} | {dt:g} | {name} | {its:.2f} | {wall / duration:.4f} "
              f"| {cpu / duration:.4f} | {cpu / len(t) * 1e3:.4f} | {ref_cpu / cpu:.3g} "
              f"| {diff:.1e} | {load():.2f} |")


def equilibria(exe, sags, timeout):
    print(f"\nEquilibrium by large implicit steps: {EQ_STEPS} steps of dt = {EQ_DT:g} s from "
          "rest, the last tip z against the static sag (softmech's static solve)\n")
    print("| E [Pa] | static sag [m] | code, setting | it./step | last tip z [m] | vs static |")
    print("|---|---|---|---|---|---|")
    for E in EQ_CASES:
        for name, options in (("softmech default", DEFAULT), ("softmech, full steps", FULL_STEPS)):
            _, _, its, _, z = softmech_run(E, EQ_DT, EQ_DT * EQ_STEPS, options)
            print(f"| {E:.0e} | {sags[E]:.5g} | {name} | {its:.2f} | {z[-1]:.6g} "
                  f"| {abs(z[-1] - sags[E]) / abs(sags[E]):.1e} |")
        for name, ftol, dtol, ls in CPP_SETTINGS:
            r, info = cpp_run(exe, E, EQ_DT, EQ_DT * EQ_STEPS, ftol, dtol(EQ_DT), ls, timeout)
            if r is None:
                print(f"| {E:.0e} | {sags[E]:.5g} | {name} | failed: {' '.join(info)} | | |")
                continue
            z = r[4][-1]
            print(f"| {E:.0e} | {sags[E]:.5g} | {name} | {r[2]:.2f} | {z:.6g} "
                  f"| {abs(z - sags[E]) / abs(sags[E]):.1e} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exe", default=os.environ.get("DISMECH_CPP_BENCH"),
                        help="the C++ driver (default: $DISMECH_CPP_BENCH)")
    parser.add_argument("--quick", action="store_true", help="0.2 s simulated, 1 repeat")
    parser.add_argument("--duration", type=float, default=2.0, help="simulated s (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="best of R runs (default 3)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="kill a C++ run after this many seconds (default 60)")
    args = parser.parse_args()
    if not args.exe:
        sys.exit(NO_EXE)
    if not (os.path.isfile(args.exe) and os.access(args.exe, os.X_OK)):
        sys.exit(f"--exe {args.exe!r} is not an executable file. " + NO_EXE)
    if not args.duration > 0 or args.repeats < 1:
        parser.error(f"--duration = {args.duration} must be > 0 and --repeats = {args.repeats} "
                     ">= 1")
    duration, repeats = (0.2, 1) if args.quick else (args.duration, args.repeats)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}, softmech {sm.__version__}; "
          f"peer: {args.exe}; threads: OPENBLAS {os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"
          f", NUMBA {os.environ.get('NUMBA_NUM_THREADS', 'unset')}, MKL 1 (set for the C++); "
          f"load {load():.2f}")
    sags = {E: static_tip(E)[0][2] for E in sorted({e for e, _ in CASES} | set(EQ_CASES))}
    print(f"\nDynamics: {duration:g} s simulated per run, best of {repeats}; times warm\n")
    table_header()
    for E, dt in CASES:
        compare(args.exe, E, dt, duration, sags[E], repeats, args.timeout)
    equilibria(args.exe, sags, args.timeout)
    print(f"\nload average at the end: {load():.2f}")


if __name__ == "__main__":
    main()
