"""softmech's implicit discrete elastic rod (DER) against dismech-newton on the same cantilever.

    OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/peer_dismech.py [--quick] [--cold]

The peer is dismech-newton (PyPI, GPL-3.0, by Ryan Chaiyakul; DisMech's discrete rods and
mid-edge shells re-implemented on NVIDIA Warp/Newton): its DiSMechSolver is implicit Euler solved
either by strain-space ADMM (its default) or by Gauss-Newton (exact=True), with float32 DOFs.
It is not a dependency of softmech (GPL, and it pins newton~=1.6). Install it in a separate
environment beside softmech:

    python3 -m venv /tmp/peer-venv && . /tmp/peer-venv/bin/activate
    pip install dismech-newton==0.1.0.post4 && pip install -e .     # in softmech's checkout

dismech-newton 0.1.0.post4 does not import on Python 3.11: three method annotations
`Slots | None` (a warp Struct) are evaluated when the class is defined and raise TypeError
(Python evaluates annotations eagerly before 3.14). `_import_peer` gives warp's Struct an
`__or__` for those annotations only (they are plain Python methods' annotations, never read by
warp), which changes nothing that runs.

The problem: softmech.validation.der's cantilever (L = 1 m, r = 10 mm, rho = 1000 kg/m^3,
nu = 0.5, n = 50 free edges + the clamped edge 0 centred on x = 0: 52 nodes), nodes 0 and 1 and
the twist of edge 0 fixed (DisMech's clamp), gravity 9.81 m/s^2 along -z, released straight from
rest, no damping, implicit Euler, the same dt and duration in both codes. The peer's rod is the
same polyline (newton.Rod.create_straight from x = -l/2, 51 segments) with the same EA, EI, GJ
(G = E/3), lumped masses and twist inertias; it is built without collision proxies (the
cantilever has no contact; `--example-model` builds it as the peer's solver.add_rod does, with
capsule proxies and collision on, to show what that costs).

Settings compared:
- softmech: its default NewtonOptions (rtol 1e-9, line search), float64, banded LU; in the
  equilibrium runs also full Newton steps (line_search=False, the validation tests' setting),
  and its static solve with both.
- peer "default": DiSMechSolver(model): ADMM, 10 iterations per step, beta 1, 4 line-search
  candidates, self-contact search on.
- peer "exact": DiSMechSolver(model, exact=True, iterations=k): Gauss-Newton, the matrix
  refactorised every iteration (SciPy SuperLU on the CPU), k fixed (no convergence test).

Columns: wall and CPU time per simulated second (equilibrium runs: of the whole run) and per
step, warm (kernels compiled and loaded beforehand, the build excluded), iterations per step
(softmech: Newton's mean; the peer: its fixed count), "RMS tip z diff.": the RMS difference of
the tip's z(t) from softmech's at the same dt, over the static sag (both discretize the same
equations with the same integrator, so this is how far the peer's solve is from softmech's
converged one), and the accuracy against the exact static sag (softmech's static Newton solve,
validated in tests/validation/test_der_rod.py):
- dynamics (released from rest, 2 s): "late mean", the mean tip z over whole first-mode periods
  in the second half of the run (what a quasi-static user gets; at E = 1e8 Pa the large swing is
  nonlinear and its mean is not the static sag, in both codes);
- equilibrium by large implicit steps (dt = 0.5 and 1 s, 40 steps; the peer has no static
  solve): the last tip z.
The static sags against Euler-Bernoulli qL^4/(8EI) and the exact elastica are printed first.
`--cold` adds the cold start of each code (fresh processes with empty kernel caches: import,
build, one step).
"""
import argparse
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import typing

import numpy as np

import softmech as sm
from softmech.implicit.newton import NewtonOptions
from softmech.validation.der import A, I, L, N, Q, R, RHO, cantilever, elastica_tip, static_tip

from cantilever_run import softmech_run

G_ACC = 9.81
CASES = ((1e9, 1e-3), (1e9, 1e-2), (1e11, 1e-3), (1e11, 1e-2), (1e8, 1e-3), (1e8, 1e-2))
EXACT_ITERATIONS = (3, 10)
EQ_CASES = ((1e8, 0.5), (1e8, 1.0), (1e9, 0.5), (1e11, 0.5))
EQ_STEPS = 40
DEFAULT = NewtonOptions()                      # softmech's default: rtol 1e-9, line search
FULL_STEPS = NewtonOptions(line_search=False)  # the validation tests' setting (DisMech's default)
INSTALL = ("dismech-newton is not installed: in a separate venv run\n"
           "  pip install dismech-newton==0.1.0.post4 && pip install -e <softmech checkout>\n"
           "(see this file's docstring)")


def _import_peer():
    """(warp, newton, dismech_newton), or exit with how to install them."""
    try:
        import warp as wp
        import newton
    except ImportError:
        sys.exit(INSTALL)
    wp.config.log_level = 30                 # warnings only: no per-module load lines
    struct = wp._src.codegen.Struct
    if "__or__" not in vars(struct):          # `Slots | None` annotations (module docstring)
        struct.__or__ = lambda self, other: typing.Any
    try:
        import dismech_newton
    except ImportError:
        sys.exit(INSTALL)
    return wp, newton, dismech_newton


def first_mode(E):
    """Euler-Bernoulli first bending frequency [Hz] of the clamped span."""
    return 1.8751**2 / (2 * math.pi) * math.sqrt(E * I / (RHO * A * L**4))


def late_mean_error(t, z, E, sag):
    """|mean tip z over whole first-mode periods in the run's second half - sag| / |sag|."""
    f1 = first_mode(E)
    window = max(1, math.floor(0.5 * t[-1] * f1)) / f1
    return abs(z[t >= t[-1] - window].mean() - sag) / abs(sag)


# -- softmech ---------------------------------------------------------------------------------

def softmech_static(E, options):
    """Warm static solve from the straight rod: (cpu [s], Newton iterations, tip z)."""
    scene, _ = cantilever(E)
    scene.compile(dt=1e-3, newton=options).solve_static()      # kernels compiled and loaded
    scene, _ = cantilever(E)
    sim = scene.compile(dt=1e-3, newton=options)
    c0 = time.process_time()
    sim.solve_static()
    cpu = time.process_time() - c0
    return cpu, sim.newton_stats.iterations, sim.get_state("rod")["positions"][0, -1, 2]


# -- dismech-newton ---------------------------------------------------------------------------

def peer_model(E, example_model=False, stretch_scale=1.0):
    """The same cantilever as a newton Model on warp's CPU device; stretch_scale multiplies the
    stretching stiffness EA (a diagnostic: 1 is the same rod as softmech's)."""
    wp, newton, dn = _import_peer()
    l = L / (N + 0.5)
    builder = newton.ModelBuilder(gravity=(0.0, 0.0, -G_ACC))
    builder.default_shape_cfg.density = RHO
    rod = newton.Rod.create_straight((-0.5 * l, 0.0, 0.0), (1.0, 0.0, 0.0), L + 0.5 * l,
                                     segment_count=N + 1, radius=R, youngs_modulus=E,
                                     shear_modulus=E / 3.0)
    # per edge, as the peer's stretch_stiffness: EA / l [N/m] (None: from the Rod's EA)
    stretch = None if stretch_scale == 1.0 else stretch_scale * E * A / l
    if example_model:
        first = dn.DiSMechSolver.add_rod(builder, rod, stretch_stiffness=stretch)[0]  # collide=True
        dn.fix_segment(builder, first)
    else:
        first = dn.add_rod(builder, rod, proxies=False, stretch_stiffness=stretch)[0]
        dn.fix_segment(builder, edge=first)
    return builder.finalize(device="cpu")


def peer_run(E, dt, duration, options, example_model=False, stretch_scale=1.0):
    """Warm run: (wall [s], cpu [s], iterations per step, times, tip z)."""
    wp, _, dn = _import_peer()
    model = peer_model(E, example_model, stretch_scale)
    solver = dn.DiSMechSolver(model, **options)
    s0, s1 = model.state(), model.state()
    solver.step(s0, s1, None, None, dt)                            # kernels compiled and loaded
    s0, s1 = model.state(), model.state()
    dn.flatten_state(s0)
    dn.flatten_state(s1)
    solver.reset(s0)                # as a fresh solver: ADMM's z = eps(q), u = 0; contacts cleared
    steps = round(duration / dt)
    z = np.empty(steps)
    w0, c0 = time.perf_counter(), time.process_time()
    for k in range(steps):
        solver.step(s0, s1, None, None, dt)
        s0, s1 = s1, s0
        z[k] = s0.particle_q.numpy()[-1, 2]
    wp.synchronize()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return wall, cpu, float(solver.iterations), dt * np.arange(1, steps + 1), z


# -- cold starts (fresh processes, empty caches) ----------------------------------------------

def _cold_child(which):
    t0 = time.perf_counter()
    if which == "softmech":
        scene, _ = cantilever(1e9)
        scene.compile(dt=1e-3).step(1)
    else:
        wp, _, dn = _import_peer()
        model = peer_model(1e9)
        solver = dn.DiSMechSolver(model, exact=True)
        solver.step(model.state(), model.state(), None, None, 1e-3)
        wp.synchronize()
    print(time.perf_counter() - t0)


def cold_start(which, fresh):
    """Wall time [s] of a new process (interpreter start included) that imports, builds the
    cantilever and takes one step; fresh: with empty numba / warp kernel caches."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        if fresh:
            env["NUMBA_CACHE_DIR"] = env["SOFTMECH_CACHE_DIR"] = os.path.join(tmp, "nb")
            env["WARP_CACHE_PATH"] = os.path.join(tmp, "warp")
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, __file__, "--cold-child", which], env=env,
                             check=True, capture_output=True, text=True)
        total = time.perf_counter() - t0
    return total, float(out.stdout.strip().splitlines()[-1])


def compare(E, dt, duration, sag, peers, args, late, variants=()):
    """Print softmech's row and the peer's rows of one case (E, dt); late: the late-mean column
    (else the last tip z against the static sag); variants: further softmech (name, options)."""
    def accuracy(t, z):
        if not np.all(np.isfinite(z)):
            return "non-finite"
        err = late_mean_error(t, z, E, sag) if late else abs(z[-1] - sag) / abs(sag)
        return f"{err:.2e}"

    def times(wall, cpu):
        if late:                                   # per simulated second [s]
            return f"{wall / duration:.3f} | {cpu / duration:.3f}"
        return f"{wall * 1e3:.1f} | {cpu * 1e3:.1f}"  # whole run [ms]

    wall, cpu, its, t_ref, z_ref = softmech_run(E, dt, duration)
    print(f"| {E:.0e} | {dt:g} | softmech | {its:.2f} | {times(wall, cpu)} "
          f"| {cpu / len(t_ref) * 1e3:.3f} | 1 | (reference) "
          f"| {accuracy(t_ref, z_ref)} | {load():.2f} |")
    for name, options in variants:
        vw, vc, vits, tv, zv = softmech_run(E, dt, duration, options)
        diff = np.sqrt(np.mean((zv - z_ref) ** 2)) / abs(sag)
        print(f"| | | softmech, {name} | {vits:.2f} | {times(vw, vc)} "
              f"| {vc / len(tv) * 1e3:.3f} | {cpu / vc:.3g} | {diff:.2e} | {accuracy(tv, zv)} "
              f"| {load():.2f} |")
    for name, options in peers:
        pw, pc, pits, tp, zp = peer_run(E, dt, duration, options, args.example_model,
                                        args.peer_stretch_scale)
        diff = np.sqrt(np.mean((zp - np.interp(tp, t_ref, z_ref)) ** 2)) / abs(sag)
        print(f"| | | dismech-newton {name} | {pits:.0f} | {times(pw, pc)} "
              f"| {pc / len(tp) * 1e3:.3f} | {cpu / pc:.3g} "
              f"| {diff:.2e} | {accuracy(tp, zp)} | {load():.2f} |")


def load():
    return os.getloadavg()[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.2 s simulated (a smoke run)")
    parser.add_argument("--cold", action="store_true", help="also time cold starts")
    parser.add_argument("--example-model", action="store_true",
                        help="peer rod with capsule proxies and collision on (its add_rod)")
    parser.add_argument("--peer-stretch-scale", type=float, default=1.0, metavar="S",
                        help="diagnostic: the peer's stretching stiffness EA times S (default 1)")
    parser.add_argument("--cold-child", choices=("softmech", "peer"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.peer_stretch_scale > 0:
        parser.error(f"--peer-stretch-scale = {args.peer_stretch_scale} is not allowed: "
                     "must be > 0")
    if args.cold_child:
        _cold_child(args.cold_child)
        return
    wp, newton, dn = _import_peer()
    from importlib.metadata import version
    duration = 0.2 if args.quick else 2.0
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}, softmech {sm.__version__}, "
          f"dismech-newton {version('dismech-newton')}, newton {newton.__version__}, "
          f"warp {wp.__version__} (device cpu); threads: OPENBLAS "
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, NUMBA "
          f"{os.environ.get('NUMBA_NUM_THREADS', 'unset')}; load {load():.2f}")
    if args.peer_stretch_scale != 1.0:
        print(f"DIAGNOSTIC: the peer's stretching stiffness is EA x {args.peer_stretch_scale:g}")
    if args.example_model:
        print("the peer's rod is built by DiSMechSolver.add_rod (capsule proxies, collision on)")
    print()

    print("| E [Pa] | Euler-Bernoulli qL^4/(8EI) [m] | exact elastica [m] "
          "| softmech static solve [m] | static vs EB | static vs elastica |")
    print("|---|---|---|---|---|---|")
    sags = {}
    for E in sorted({e for e, _ in CASES}):
        eb = Q * L**4 / (8 * E * I)
        el = -elastica_tip(E)[1]
        sags[E] = static_tip(E)[0][2]
        print(f"| {E:.0e} | {eb:.4g} | {el:.4g} | {-sags[E]:.4g} | {(-sags[E] - eb) / eb:+.2%} "
              f"| {(-sags[E] - el) / el:+.2%} |")

    peers = [("default: ADMM, 10 it.", {})]
    peers += [(f"exact: Gauss-Newton, {k} it.", {"exact": True, "iterations": k})
              for k in EXACT_ITERATIONS]
    print(f"\nDynamics: {duration:g} s simulated per run, times warm; softmech / peer = softmech's "
          "CPU time over the peer's (< 1: softmech faster)\n")
    print("| E [Pa] | dt [s] | code, setting | it./step | wall per sim. s [s] | CPU per sim. s [s] "
          "| ms per step (CPU) | softmech / peer | RMS tip z diff. vs softmech / sag "
          "| late mean vs static | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for E, dt in CASES:
        compare(E, dt, duration, sags[E], peers, args, late=True)

    print(f"\nEquilibrium by large implicit steps (the peer has no static solve): {EQ_STEPS} "
          "steps from rest, the last tip z against the static sag; softmech / this = softmech's "
          "default CPU time over this row's\n")
    print("| E [Pa] | dt [s] | code, setting | it./step | wall, whole run [ms] "
          "| CPU, whole run [ms] | ms per step (CPU) | softmech / this "
          "| RMS tip z diff. vs softmech / sag | last tip vs static | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for E, dt in EQ_CASES:
        compare(E, dt, EQ_STEPS * dt, sags[E], peers, args, late=False,
                variants=(("full Newton steps", FULL_STEPS),))

    print("\nsoftmech's static solve from the straight rod (Simulation.solve_static)\n")
    print("| E [Pa] | Newton options | Newton it. | CPU [ms] | tip vs static sag | load |")
    print("|---|---|---|---|---|---|")
    for E in sorted(sags):
        for name, options in (("default (line search)", DEFAULT), ("full steps", FULL_STEPS)):
            cpu, its, z = softmech_static(E, options)
            err = abs(z - sags[E]) / abs(sags[E])
            print(f"| {E:.0e} | {name} | {its} | {cpu * 1e3:.2f} | {err:.1e} | {load():.2f} |")
    if args.cold:
        print("\n| code | cold start, empty kernel caches [s] (in-process part) "
              "| warm-cache start [s] (in-process part) |")
        print("|---|---|---|")
        for which in ("softmech", "peer"):
            cold = cold_start(which, fresh=True)
            warm = cold_start(which, fresh=False)
            print(f"| {which} | {cold[0]:.1f} ({cold[1]:.1f}) | {warm[0]:.1f} ({warm[1]:.1f}) |")
    print(f"\nload average at the end: {load():.2f}")


if __name__ == "__main__":
    main()
