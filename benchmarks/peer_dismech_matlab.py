"""softmech's implicit discrete elastic rod (DER) against MAT-DiSMech (the MATLAB code of
DisMech, StructuresComp/dismech-matlab) run in GNU Octave, on the same cantilever, in one run.

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 \
        python benchmarks/peer_dismech_matlab.py --peer DIR --driver FILE.m [--quick]

(or DISMECH_MATLAB_DIR=DIR and DISMECH_MATLAB_DRIVER=FILE.m instead of the options). MATLAB is
not available here; the peer's .m files run in GNU Octave (`octave --no-gui`), which has no JIT
compiler, so the ratios are against Octave, not against MATLAB (usually faster). Neither the
peer's code nor the driver is part of softmech: put the peer's files in DIR (a local copy of
the repository; docs/benchmarks_log.md says which files, from which commit, and the local changes
made for Octave) and give a driver, a function file
`cantilever_bench(E, dt, T, tol, ftol, dtol, outfile)` that sets up the cantilever below with the
peer's own objects (MultiRod, stretchSpring, bendTwistSpring, its frame and reference-twist
functions), steps it round(T / dt) times with the peer's `timeStepper` (implicit Euler, Newton,
dense Jacobian), times that loop with Octave's `tic`/`toc` and `cputime` (Octave start and
setup excluded), writes "t z_tip" rows to outfile after the loop and prints one JSON line
(keys steps, iterations, wall, cpu, tip). Its `timeStepper` must return the number of passes
of its Newton loop as a fifth output (the only change to it besides silencing its per-iteration
print).

The problem: softmech.validation.der's cantilever (L = 1 m, r = 10 mm, rho = 1000 kg/m^3,
nu = 0.5 so G = E/3, n = 50 free edges: 52 nodes at x = (i - 0.5) l, l = L/(n + 0.5)), nodes 0
and 1 and the twist of edge 0 fixed (the peer's robotDescriptionRodCantilever rule, nodes with
x <= 0.01 m and the edges between them, picks the same DOFs), gravity 9.81 m/s^2 along -z,
released straight from rest, no damping, implicit Euler, the same dt in both codes, 3D.

Settings compared:
- softmech: its default NewtonOptions (rtol 1e-9 on |R| / |R0|, xtol 1e-12 m, residual line
  search with a watchdog, compiled Newton loop, banded Cholesky/LU) and line_search=False.
  Warm: kernels compiled and loaded before timing.
- MAT-DiSMech "default": the tolerances of its rod-cantilever example (tol = 1e-4 on |f| [N],
  ftol = 1e-4 on |f| / |f0|, dtol = 1e-2 m/s on max |dq| / dt; no line search, its
  `newtonDamper`, which keeps full steps for the first 9 passes; at most 25 passes, then it
  raises an error). |f| is the residual at the iterate *before* the update of that pass, and
  f0 the residual at its initial guess q0 (the last step's positions).
- MAT-DiSMech "tight": tol = 0, ftol = 1e-9, dtol = 1e-12 m / dt: softmech's rtol and xtol
  (softmech's residual test is relative to the residual at its predictor q_n + h v_n).

Octave is slow (~0.15 s per Newton pass here), so each peer case simulates fewer steps than
softmech's other peer benchmarks (--steps, default 100 steps), and softmech is timed on the
very same steps; times are reported per step and per simulated second (per step x steps per
second). Columns: passes per step (softmech: its linear solves; the peer: passes of its Newton
loop, each assembling forces and the dense Jacobian and solving once); CPU ms per step (the
peer: Octave's cputime around the stepping loop; softmech: time.process_time around
Simulation.run of the same steps, positions recorded every step); CPU s per simulated second;
"softmech / this": softmech's CPU time (its default for the peer's rows) over the row's (< 1:
softmech faster); "max tip z diff. / sag": the largest difference over the run between the
row's tip z(t) and softmech default's at the same instants, over the static sag (softmech's
static solve, validated in tests/validation/test_der_rod.py). Times are the best of --repeats
runs for softmech and of --peer-repeats runs for the peer (default 1: Octave runs are long).
A second table checks the equilibria: 40 steps of dt = 0.5 s from rest, the last tip z against
the static sag. A peer run that fails (its Newton loop raises after 25 passes) or runs past
--timeout is reported as failed, with the reason.
"""
import argparse
import json
import os
import platform
import shutil
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
# (name, tol [N], ftol, dtol [m/s] as a function of dt) of the peer runs
PEER_SETTINGS = (
    ("MAT-DiSMech default (tol 1e-4 N, ftol 1e-4, dtol 1e-2 m/s)", 1e-4, 1e-4, lambda dt: 1e-2),
    ("MAT-DiSMech tight (ftol 1e-9, dtol 1e-12 m / dt)", 0.0, 1e-9, lambda dt: 1e-12 / dt),
)
HOW = ("see this file's docstring and docs/benchmarks_log.md (section 'softmech against "
       "MAT-DiSMech (MATLAB code, run in GNU Octave)') for which files are needed and what the driver does.")


def load():
    return os.getloadavg()[0]


def peer_run(octave, peer, driver, E, dt, steps, tol, ftol, dtol, timeout):
    """One Octave run of the driver: ((wall [s], cpu [s], passes per step, times, tip z), its
    JSON line), or (None, [why]) when it fails or runs past timeout [s]."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tip.txt")
        code = (f"addpath(genpath('{peer}')); addpath('{os.path.dirname(driver)}'); "
                f"cantilever_bench({E!r}, {dt!r}, {steps * dt!r}, {tol!r}, {ftol!r}, {dtol!r}, "
                f"'{path}');")
        try:
            res = subprocess.run([octave, "--no-gui", "--no-window-system", "-q", "--eval", code],
                                 env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, [f"no result in {timeout:g} s (killed)"]
        lines = [s for s in res.stdout.splitlines() if s.startswith("{")]
        if res.returncode != 0 or not lines:
            why = [s for s in (res.stdout + res.stderr).splitlines()
                   if s.startswith("error:") and "preparing to exit" not in s]
            return None, why[:1] or [f"exit status {res.returncode}"]
        info = json.loads(lines[-1])
        t, z = np.loadtxt(path, unpack=True, ndmin=2)
    return (info["wall"], info["cpu"], info["iterations"] / info["steps"], t, z), info


def best(runs):
    """The run with the least CPU time of repeated runs (tuples with cpu at index 1)."""
    return min(runs, key=lambda r: r[1])


def row(E, dt, name, its, cpu, steps, ratio, diff):
    print(f"| {E:.0e} | {dt:g} | {steps} | {name} | {its:.2f} | {cpu / steps * 1e3:.4g} "
          f"| {cpu / (steps * dt):.4g} | {ratio:.3g} | {diff:.1e} | {load():.2f} |")


def compare(args, E, dt, steps, sag):
    """Print softmech's and the peer's rows of one case."""
    ref = None
    for name, options in (("softmech default (line search)", DEFAULT),
                          ("softmech, full Newton steps", FULL_STEPS)):
        wall, cpu, its, t, z = best([softmech_run(E, dt, steps * dt, options)
                                     for _ in range(args.repeats)])
        if ref is None:
            ref = (cpu, t, z)
        row(E, dt, name, its, cpu, steps, ref[0] / cpu, np.max(np.abs(z - ref[2])) / abs(sag))
    for name, tol, ftol, dtol in PEER_SETTINGS:
        runs = []
        for _ in range(args.peer_repeats):
            runs.append(peer_run(args.octave, args.peer, args.driver, E, dt, steps, tol, ftol,
                                 dtol(dt), args.timeout))
            if runs[-1][0] is None:
                break
        if runs[-1][0] is None:
            print(f"| {E:.0e} | {dt:g} | {steps} | {name} | failed: {' '.join(runs[-1][1])} "
                  f"| | | | | {load():.2f} |")
            continue
        wall, cpu, its, t, z = best([r for r, _ in runs])
        diff = np.max(np.abs(z - np.interp(t, ref[1], ref[2]))) / abs(sag)
        row(E, dt, name, its, cpu, steps, ref[0] / cpu, diff)


def equilibria(args, sags):
    print(f"\nEquilibrium by large implicit steps: {EQ_STEPS} steps of dt = {EQ_DT:g} s from "
          "rest, the last tip z against the static sag (softmech's static solve)\n")
    print("| E [Pa] | static sag [m] | code, setting | passes/step | last tip z [m] | vs static "
          "| CPU s |")
    print("|---|---|---|---|---|---|---|")
    for E in EQ_CASES:
        _, cpu, its, _, z = softmech_run(E, EQ_DT, EQ_STEPS * EQ_DT, DEFAULT)
        print(f"| {E:.0e} | {sags[E]:.5g} | softmech default | {its:.2f} | {z[-1]:.6g} "
              f"| {abs(z[-1] - sags[E]) / abs(sags[E]):.1e} | {cpu:.3g} |")
        for name, tol, ftol, dtol in PEER_SETTINGS:
            r, info = peer_run(args.octave, args.peer, args.driver, E, EQ_DT, EQ_STEPS, tol,
                               ftol, dtol(EQ_DT), args.timeout)
            if r is None:
                print(f"| {E:.0e} | {sags[E]:.5g} | {name} | failed: {' '.join(info)} | | | |")
                continue
            z = r[4][-1]
            print(f"| {E:.0e} | {sags[E]:.5g} | {name} | {r[2]:.2f} | {z:.6g} "
                  f"| {abs(z - sags[E]) / abs(sags[E]):.1e} | {r[1]:.3g} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", default=os.environ.get("DISMECH_MATLAB_DIR"),
                        help="local folder with MAT-DiSMech's .m files (default: "
                             "$DISMECH_MATLAB_DIR)")
    parser.add_argument("--driver", default=os.environ.get("DISMECH_MATLAB_DRIVER"),
                        help="the driver cantilever_bench.m (default: $DISMECH_MATLAB_DRIVER)")
    parser.add_argument("--octave", default=shutil.which("octave"), help="the octave executable")
    parser.add_argument("--quick", action="store_true", help="10 steps per case, no equilibria")
    parser.add_argument("--steps", type=int, default=100, help="steps per case (default 100)")
    parser.add_argument("--repeats", type=int, default=3, help="softmech: best of R (default 3)")
    parser.add_argument("--peer-repeats", type=int, default=1, help="peer: best of R (default 1)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="kill an Octave run after this many seconds (default 600)")
    parser.add_argument("--no-equilibria", action="store_true", help="skip the second table")
    args = parser.parse_args()
    if not args.octave:
        sys.exit("GNU Octave not found (no `octave` on PATH; pass --octave PATH): install it, "
                 "e.g. `apt-get install octave`, to run MAT-DiSMech's .m files.")
    if not args.peer or not os.path.isfile(os.path.join(args.peer, "timeStepper.m")):
        sys.exit(f"no MAT-DiSMech folder (timeStepper.m) at --peer {args.peer!r} (or "
                 f"$DISMECH_MATLAB_DIR): {HOW}")
    if not args.driver or not os.path.isfile(args.driver):
        sys.exit(f"no driver .m file at --driver {args.driver!r} (or $DISMECH_MATLAB_DRIVER): "
                 f"{HOW}")
    if args.steps < 1 or args.repeats < 1 or args.peer_repeats < 1:
        parser.error("--steps, --repeats and --peer-repeats must be >= 1")
    args.peer, args.driver = os.path.abspath(args.peer), os.path.abspath(args.driver)
    steps = 10 if args.quick else args.steps
    ver = subprocess.run([args.octave, "--version"], capture_output=True,
                         text=True).stdout.splitlines()[0]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}, softmech {sm.__version__}; "
          f"peer: {args.peer} in {ver}; threads: OPENBLAS "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, NUMBA "
          f"{os.environ.get('NUMBA_NUM_THREADS', 'unset')} (OPENBLAS 1 set for Octave); "
          f"load {load():.2f}")
    sags = {E: static_tip(E)[0][2] for E in sorted({e for e, _ in CASES} | set(EQ_CASES))}
    print(f"\nDynamics: {steps} steps per case; softmech best of {args.repeats}, the peer best "
          f"of {args.peer_repeats}; times warm\n")
    print("| E [Pa] | dt [s] | steps | code, setting | passes/step | ms per step (CPU) "
          "| CPU s per sim. s | softmech / this | max tip z diff. / sag | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for E, dt in CASES:
        compare(args, E, dt, steps, sags[E])
    if not (args.quick or args.no_equilibria):
        equilibria(args, sags)
    print(f"\nload average at the end: {load():.2f}")


if __name__ == "__main__":
    main()
