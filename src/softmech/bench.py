"""`softmech bench`: time softmech side by side with PyElastica 1.0 on the same problems.

For every case in (cantilever, free_rod, snake), rod resolution n (default: 50, 100, 500 elements
for the rods, 50 for the snake) and batch size B in (1, 16) worlds, the same problem is built in
softmech (B worlds of one compiled scene) and in PyElastica (B rods in one simulator, see
benchmarks/peer_pyelastica.py), both are warmed up (JIT compilation or cache load, untimed), and
then a run of n_steps steps is timed. The reported cost is wall-clock microseconds per rod-step,

    us_per_rod_step = wall [s] / (n_steps * B) * 1e6,

the best (smallest) of `--repeats` timings, the usual estimate on a shared machine (noise only ever
adds time). ratio = PyElastica / softmech, so ratio > 1 means softmech is faster.

Problems (they must match benchmarks/peer_pyelastica.py exactly; `run_benchmarks` checks the time
step against the peer's `case_dt` and refuses to compare if they differ):
  cantilever  ME498 handout Table 1 (Timoshenko beam): L = 3 m, r = 0.25 m, rho = 5000 kg/m^3,
              E = 1e6 Pa, G = 1e4 Pa, first end clamped (node 0 and frame 0), tip force
              (0, -15, 0) N ramped over 1e-3 s, linear damping gamma = 0.1,
              dt = 3e-4 * min(1, 100 / n) s.
  free_rod    L = 1 m, r = 0.025 m, rho = 1000 kg/m^3, E = 1e7 Pa, G = E / 1.5, gravity
              (0, 0, -9.81) m/s^2, no damping, no boundary conditions, dt = 2.5e-5 * min(1, 50 / n) s.
  snake       the slithering snake of softmech.scenarios.snake.build_snake (ME498 handout Table 2,
              published optimal gait): the terms of build_snake (gravity, LinearDamping(5,
              rotational_coefficient=5), GroundContact with Table 2's anisotropic friction,
              MuscleTorqueWave with OPTIMAL_GAIT), built by `build_scene` with the shear
              coefficient below; dt = 2.5e-5 * min(1, 50 / n) s (Table 2 at n = 50). The peer is
              PyElastica's own snake: RodPlaneContactWithAnisotropicFriction (its "unit-weighted"
              kinetic decomposition; softmech's default is the reference "sign" one: about
              the same work per element, a different speed, see docs/benchmarks_log.md), MuscleTorques (the same spline and wave) and AnalyticalLinearDamper with
              constants equal to gamma = 5 per unit length (benchmarks/peer_pyelastica.py,
              snake_damping_kwargs).
All use position Verlet. Shear stiffness: PyElastica 1.0 hard-codes the shear coefficient
alpha_c = 27/28 in S = diag(alpha_c G A, alpha_c G A, E A) (elastica/rod/factory_function.py);
softmech's default is the handout's 4/3, so the benchmark passes shear_coefficient=27/28 to build
the same discrete rod (tests/unit/test_bench_cli.py checks positions, frames, radius, density and
stiffness against the peer's rods). Known difference of the cantilever (same per-step work,
different dissipation rate): softmech's LinearDamping(0.1, rotational_coefficient=0.1) is the handout's force -gamma v dl per
node and couple -gamma_r w l per element (a decay rate gamma / (rho A) ~ 1e-4 1/s), while the peer
uses PyElastica's AnalyticalLinearDamper(damping_constant=0.1), v *= exp(-0.1 dt) per step (a
decay rate 0.1 1/s). Both cost one multiply per node and element per step.

The peer is optional: PyElastica comes with `pip install -e .[bench]`, and its harness is loaded
from the repository checkout (benchmarks/peer_pyelastica.py); without either, the peer columns
are null and the reason is printed.

`--warm-start` also measures, in a fresh Python process with kernels already cached on disk, the
wall time of starting Python, importing softmech, building and compiling the first problem and
taking its first step.
"""
import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from softmech.progress import progress_bar

CASES = ("cantilever", "free_rod", "snake")
DEFAULT_SIZES = (50, 100, 500)
CASE_SIZES = {"cantilever": DEFAULT_SIZES, "free_rod": DEFAULT_SIZES, "snake": (50,)}
"""Resolutions timed per case when no --sizes is given (the snake: Table 2's n = 50 only)."""
DEFAULT_WORLDS = (1, 16)
ROW_KEYS = ("case", "n", "B", "us_per_rod_step", "peer_us_per_rod_step", "ratio")
PEER_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "peer_pyelastica.py"

# Wall seconds aimed at per timed run (full / --quick), and repeats per configuration.
TARGET_SECONDS = 1.0
QUICK_TARGET_SECONDS = 0.2
REPEATS = 3
QUICK_REPEATS = 1
WARMUP_STEPS = 3        # softmech: the first call loads (or compiles) the kernels
PEER_WARMUP_STEPS = 200  # PyElastica: the harness' default (numba JIT of its kernels, caches)
CALIBRATION_SECONDS = 0.05
PEER_SHEAR_COEFFICIENT = 27.0 / 28.0  # PyElastica 1.0's alpha_c (see module docstring)


# ------------------------------------------------------------------------------------ problems
def case_dt(case, n_elems):
    """Time step [s] of `case` at resolution `n_elems` (identical to the peer harness)."""
    if case == "cantilever":
        return 3e-4 * min(1.0, 100.0 / n_elems)
    if case in ("free_rod", "snake"):
        return 2.5e-5 * min(1.0, 50.0 / n_elems)
    raise ValueError(f"case = {case!r} is not allowed: must be one of {list(CASES)}")


def build_scene(case, n_elems):
    """The softmech scene of `case` with one rod of `n_elems` elements (see module docstring)."""
    import softmech as sm

    scene = sm.Scene()
    if case == "cantilever":
        rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0),
                                     normal=(0, 1, 0), length=3.0, n_elems=n_elems, radius=0.25,
                                     density=5000.0, youngs_modulus=1e6, shear_modulus=1e4,
                                     shear_coefficient=PEER_SHEAR_COEFFICIENT)
        scene.add(sm.Clamp(rod, "first", frame="element"))  # PyElastica's OneEndFixedBC: same problem
        scene.add(sm.EndLoad(rod, force=(0, -15, 0), end="last", ramp_time=1e-3, name="tip"))
        scene.add(sm.LinearDamping(rod, coefficient=0.1, rotational_coefficient=0.1))
    elif case == "snake":
        _add_snake(scene, n_elems)
    elif case == "free_rod":
        scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                               length=1.0, n_elems=n_elems, radius=0.025, density=1000.0,
                               youngs_modulus=1e7, shear_modulus=1e7 / 1.5,
                               shear_coefficient=PEER_SHEAR_COEFFICIENT)
        scene.add(sm.Gravity((0, 0, -9.81)))
    else:
        raise ValueError(f"case = {case!r} is not allowed: must be one of {list(CASES)}")
    return scene


def _add_snake(scene, n_elems, friction=None):
    """The terms of softmech.scenarios.snake.build_snake (Table 2, optimal gait, default friction
    unless `friction` is given) with PyElastica's shear coefficient 27/28 (build_snake keeps the
    handout's 4/3): one rod "snake" on the ground z = 0, along +x, d1 = +z, head = last node."""
    import softmech as sm
    from softmech.scenarios.snake import OPTIMAL_GAIT, TABLE2

    t = TABLE2
    if friction is None:
        friction = sm.AnisotropicFriction(*t["kinetic"], *t["static"],
                                          slip_velocity=t["slip_velocity"])
    rod = scene.add_cosserat_rod(
        name="snake", start=(0.0, 0.0, t["radius"]), direction=(1.0, 0.0, 0.0),
        normal=(0.0, 0.0, 1.0), length=t["length"], n_elems=n_elems, radius=t["radius"],
        density=t["density"], youngs_modulus=t["youngs_modulus"], shear_modulus=t["shear_modulus"],
        shear_coefficient=PEER_SHEAR_COEFFICIENT)
    scene.add(sm.Gravity((0.0, 0.0, -t["gravity"])))
    scene.add(sm.LinearDamping(rod, t["damping"], rotational_coefficient=t["damping"]))
    scene.add(sm.GroundContact(rod, stiffness=t["wall_stiffness"], damping=t["wall_damping"],
                               friction=friction))
    scene.add(sm.MuscleTorqueWave(rod, OPTIMAL_GAIT["coefficients"],
                                  wavelength=OPTIMAL_GAIT["wavelength"], period=t["period"],
                                  ramp_time=t["period"]))
    return rod


# ------------------------------------------------------------------------------------- timings
def _wall(fn, *args):
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def time_softmech(case, n_elems, worlds, *, target_seconds=TARGET_SECONDS, repeats=REPEATS):
    """Best of `repeats` timings of softmech on `case`: wall microseconds per rod-step.

    Each timed run is one `sim.step(n_steps)` call with n_steps chosen so that it takes about
    `target_seconds`. Raises softmech.SimulationDiverged if a run diverges.
    """
    sim = build_scene(case, n_elems).compile(worlds=worlds, dt=case_dt(case, n_elems), strict=True)
    sim.step(WARMUP_STEPS)
    n_steps = _calibrate(sim.step, target_seconds)
    best = min(_wall(sim.step, n_steps) for _ in range(repeats))
    return best / (n_steps * worlds) * 1e6


def _calibrate(step, target_seconds):
    """Number of steps for which `step(n)` takes about target_seconds (from a short probe)."""
    k = 16
    while True:
        elapsed = _wall(step, k)
        if elapsed >= min(CALIBRATION_SECONDS, target_seconds / 4) or k >= 1 << 24:
            return max(1, int(round(k * target_seconds / elapsed)))
        k *= 4


def time_peer(peer, case, n_elems, worlds, *, target_seconds=TARGET_SECONDS, repeats=REPEATS):
    """Best of `repeats` timings of PyElastica (B rods in one simulator): µs per rod-step."""
    probe_steps = 100
    probe = peer.time_pyelastica(case, n_elems, worlds, probe_steps, warmup_steps=PEER_WARMUP_STEPS)
    n_steps = max(1, int(round(target_seconds / (probe * 1e-6 * worlds))))
    return min(peer.time_pyelastica(case, n_elems, worlds, n_steps, warmup_steps=PEER_WARMUP_STEPS)
               for _ in range(repeats))


def load_peer(path=PEER_PATH):
    """(peer module, None) or (None, reason it is not available)."""
    path = Path(path)
    if not path.is_file():
        return None, (f"peer harness {path} not found (run from a repository checkout of "
                      f"softmech)")
    spec = importlib.util.spec_from_file_location("softmech_bench_peer_pyelastica", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as err:
        return None, f"PyElastica is not installed ({err}); install it with pip install -e .[bench]"
    return module, None


def run_benchmarks(cases, sizes, worlds, *, peer=None, target_seconds=TARGET_SECONDS,
                   repeats=REPEATS, log=None, progress=False):
    """Time every (case, n, B); returns a list of dicts with keys ROW_KEYS (peer fields None
    without a peer). sizes None: CASE_SIZES of each case. `log(message)` is called before each
    configuration; progress: a bar over the configurations."""
    rows = []
    total = sum(len(CASE_SIZES[c] if sizes is None else sizes) for c in cases) * len(worlds)
    bar = progress_bar(total, progress, unit="config", desc="softmech bench")
    try:
        _time_all(cases, sizes, worlds, peer, target_seconds, repeats, log, bar, rows)
    finally:
        if bar is not None:
            bar.close()
    return rows


def _time_all(cases, sizes, worlds, peer, target_seconds, repeats, log, bar, rows):
    for case in cases:
        for n in (CASE_SIZES[case] if sizes is None else sizes):
            if peer is not None and peer.case_dt(case, n) != case_dt(case, n):
                raise RuntimeError(f"the peer harness uses dt = {peer.case_dt(case, n)!r} for "
                                   f"{case} n={n}, softmech.bench uses {case_dt(case, n)!r}: the "
                                   f"problems differ, update softmech/bench.py to match")
            for b in worlds:
                if bar is not None:
                    bar.set_postfix_str(f"{case} n={n} B={b}")
                elif log:
                    log(f"{case} n={n} B={b}")
                ours = time_softmech(case, n, b, target_seconds=target_seconds, repeats=repeats)
                theirs = (None if peer is None else
                          time_peer(peer, case, n, b, target_seconds=target_seconds, repeats=repeats))
                rows.append({"case": case, "n": n, "B": b, "us_per_rod_step": round(ours, 4),
                             "peer_us_per_rod_step": None if theirs is None else round(theirs, 4),
                             "ratio": None if theirs is None else round(theirs / ours, 3)})
                if bar is not None:
                    bar.update(1)


# ---------------------------------------------------------------------------------- warm start
_WARM_START_CODE = """
import sys, time
t0 = time.perf_counter()
import softmech.bench as bench
case, n = sys.argv[1], int(sys.argv[2])
sim = bench.build_scene(case, n).compile(worlds=1, dt=bench.case_dt(case, n))
sim.step(1)
print(time.perf_counter() - t0)
"""


def warm_start(case, n_elems, *, repeats=REPEATS):
    """(process wall [s], in-Python part [s]) of a fresh `python` that imports softmech, builds
    and compiles `case` and takes one step, with kernels cached on disk: best of `repeats` runs
    after one untimed run that fills the cache if needed."""
    cmd = [sys.executable, "-c", _WARM_START_CODE, case, str(n_elems)]
    _run_checked(cmd)
    best = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        done = _run_checked(cmd)
        wall = time.perf_counter() - t0
        inner = float(done.stdout.strip().splitlines()[-1])
        if best is None or wall < best[0]:
            best = (wall, inner)
    return best


def _run_checked(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"warm-start process failed (exit {done.returncode}):\n{done.stderr}")
    return done


# ---------------------------------------------------------------------------------- reporting
def machine_info(peer=None, peer_missing="not available"):
    """Versions and CPU of this machine, as a dict of strings (`peer_missing` stands for the
    PyElastica version when no peer module is given)."""
    import numba
    import numpy

    import softmech

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": model, "cores": str(os.cpu_count()), "numba_threads": str(numba.get_num_threads()),
            "python": platform.python_version(), "numpy": numpy.__version__,
            "numba": numba.__version__, "softmech": softmech.__version__,
            "pyelastica": peer.pyelastica_version() if peer is not None else peer_missing}


def format_table(rows):
    """Markdown table of the rows (readable in a terminal too)."""
    def num(x, fmt):
        return "n/a" if x is None else format(x, fmt)

    lines = ["| case | n | B | softmech µs/rod-step | PyElastica µs/rod-step | ratio |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['case']} | {r['n']} | {r['B']} | {num(r['us_per_rod_step'], '.2f')} | "
                     f"{num(r['peer_us_per_rod_step'], '.2f')} | {num(r['ratio'], '.1f')} |")
    return "\n".join(lines)


# -------------------------------------------------------------------------------- command line
def _int_list(field, text, minimum):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"--{field} = {text!r} is not allowed: must be comma-separated integers "
                         f">= {minimum}") from None
    if not values or any(v < minimum for v in values):
        raise ValueError(f"--{field} = {text!r} is not allowed: must be comma-separated integers "
                         f">= {minimum}")
    return values


def _case_list(text):
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in values if v not in CASES]
    if not values or bad:
        raise ValueError(f"--cases = {text!r} is not allowed: must be a comma-separated subset of "
                         f"{','.join(CASES)}")
    return values


def add_arguments(parser):
    """Options of `softmech bench`."""
    parser.description = "Time softmech and PyElastica on the same rod problems (µs per rod-step)."
    parser.add_argument("--cases", default=",".join(CASES),
                        help=f"comma-separated cases (default {','.join(CASES)})")
    parser.add_argument("--sizes", default=None,
                        help="comma-separated elements per rod (default 50,100,500 for the rods, "
                             "50 for the snake)")
    parser.add_argument("--worlds", default=",".join(map(str, DEFAULT_WORLDS)),
                        help="comma-separated batch sizes B (default 1,16)")
    parser.add_argument("--quick", action="store_true",
                        help=f"~{QUICK_TARGET_SECONDS} s per timing and {QUICK_REPEATS} repeat "
                             f"(default ~{TARGET_SECONDS} s, best of {REPEATS})")
    parser.add_argument("--seconds", type=float, default=None,
                        help="wall seconds aimed at per timed run (overrides --quick)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="timed runs per configuration, best kept (overrides --quick)")
    parser.add_argument("--no-peer", action="store_true", help="do not time PyElastica")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list of rows with keys " + ", ".join(ROW_KEYS))
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar and no per-configuration messages")
    parser.add_argument("--warm-start", action="store_true",
                        help="also measure the warm start (fresh process, cached kernels) and "
                             "print it (to stderr with --json)")


def execute(args):
    """Run the benchmark; returns the exit code (0 ok, 1 a run diverged)."""
    cases = _case_list(args.cases)
    sizes = None if args.sizes is None else _int_list("sizes", args.sizes, 2)
    worlds = _int_list("worlds", args.worlds, 1)
    target = args.seconds if args.seconds is not None else (
        QUICK_TARGET_SECONDS if args.quick else TARGET_SECONDS)
    repeats = args.repeats if args.repeats is not None else (QUICK_REPEATS if args.quick else REPEATS)
    if not target > 0 or target > 600:
        raise ValueError(f"--seconds = {target!r} is not allowed: must be in (0, 600]")
    if repeats < 1:
        raise ValueError(f"--repeats = {repeats!r} is not allowed: must be an integer >= 1")

    def log(message):
        if not getattr(args, "quiet", False):
            print(f"softmech bench: {message}", file=sys.stderr, flush=True)

    peer = None
    if not args.no_peer:
        peer, reason = load_peer()
        if peer is None:
            log(f"peer not available: {reason}")
    try:
        rows = run_benchmarks(cases, sizes, worlds, peer=peer, target_seconds=target,
                              repeats=repeats, log=log,
                              progress=not getattr(args, "quiet", False))
    except RuntimeError as err:  # SimulationDiverged or a diverged / mismatched peer run
        log(f"error: {err}")
        return 1

    report = sys.stderr if args.json else sys.stdout
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        info = machine_info(peer, "not timed (--no-peer)" if args.no_peer else "not available")
        print(f"CPU: {info['cpu']} ({info['cores']} cores, {info['numba_threads']} numba threads); "
              f"Python {info['python']}, numpy {info['numpy']}, numba {info['numba']}, "
              f"softmech {info['softmech']}, PyElastica {info['pyelastica']}")
        print(f"timing: best of {repeats} runs of ~{target:g} s each; µs per rod-step = "
              f"wall / (steps * B) * 1e6; ratio = PyElastica / softmech")
        print(format_table(rows))
    if args.warm_start:
        try:
            n_warm = (CASE_SIZES[cases[0]] if sizes is None else sizes)[0]
            wall, inner = warm_start(cases[0], n_warm, repeats=repeats)
        except RuntimeError as err:
            log(f"error: {err}")
            return 1
        print(f"warm start ({cases[0]} n={n_warm} B=1, kernels cached): {wall:.2f} s process wall "
              f"(Python start + import softmech + build + compile + first step), {inner:.2f} s "
              f"after interpreter start", file=report)
    return 0


def main(argv=None):
    """`python -m softmech.bench [options]` (same as `softmech bench`); returns the exit code
    (2 for bad options, as the softmech command line)."""
    parser = argparse.ArgumentParser(prog="softmech bench")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return execute(args)
    except ValueError as err:
        print(f"softmech bench: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
