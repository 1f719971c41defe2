"""The original walker's speeds at 0.5, 1 and 2 Hz for one time step, friction law and scheme
(issue 28: is the walker converged in dt?). Prints the mean speeds over the whole periods from
2 s, each period's step, the wall-clock time and (implicit) the Newton counters and the Newton
matrix's size and colors (docs/musculoskeletal.md, "Friction that sticks", "The authors'
friction, stepped implicitly" and sections 5-6).

    python benchmarks/walker_dt_convergence.py --dt 1e-5                           # regularized
    python benchmarks/walker_dt_convergence.py --dt 5e-6 --tangential-stiffness 10  # sticking
    python benchmarks/walker_dt_convergence.py --scheme implicit_euler --ground paper --dt 1e-4
    python benchmarks/walker_dt_convergence.py --scheme implicit_euler --penalty-stiffness 10 \
        --slip-velocity 1e-5 --dt 1e-4 --frequencies 2 --duration 4 --bath-damping 4e-3
    python benchmarks/walker_dt_convergence.py --model paper --duration 4   # the authors' walker
"""
import argparse
import time

import numpy as np

import softmech as sm
from softmech.scenarios.walker import GROUNDS, build_walker, mean_speeds

SETTLE = 2.0   # [s] as tests/validation/test_walker_protocol.py


def print_pattern(integrator):
    """The Newton matrix's size: DOFs, couplings, those from the contacts' proximity
    (Call.proximity), and the colors of its finite-difference Jacobian (residual evaluations
    per Jacobian)."""
    rows, cols = integrator._couplings
    n = integrator.n_dof
    near_rows, near_cols = integrator._proximity_couplings()
    every = np.unique(rows * n + cols)
    near = np.intersect1d(every, np.unique(near_rows * n + near_cols))
    others = np.setdiff1d(every, near)
    per_row = np.bincount(others // n, minlength=n).max() if others.size else 0
    print(f"  {n} DOFs, {every.size} couplings ({near.size} from the contacts' proximity; at "
          f"most {per_row} per row without them), {integrator.pattern.n_colors} colors",
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dt", type=float, default=1e-5)
    ap.add_argument("--model", choices=("softmech", "paper"), default="softmech",
                    help="build_walker(model=...): softmech's walker or the authors' own "
                         "(softmech.scenarios.walker_paper)")
    ap.add_argument("--tangential-stiffness", type=float, default=None,
                    help="k_t [N/m] of sm.StickingFriction on the ground; 0: the regularized "
                         "law (default: the model's, 0 for softmech's walker, 1e3 for the paper's)")
    ap.add_argument("--static-friction", type=float, default=None,
                    help="override the ground's static friction coefficient [-]")
    ap.add_argument("--muscle-force", type=float, default=None,
                    help="--model paper: each muscle rod's tension amplitude [N] (theirs 6e-4)")
    ap.add_argument("--penalty-stiffness", type=float, default=0.0,
                    help="k [N/m] of the surface penalty contact with the mollified friction "
                         "(build_walker(penalty_stiffness=...)); 0: the element-centre contact")
    ap.add_argument("--duration", type=float, default=6.0)
    ap.add_argument("--frequencies", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    ap.add_argument("--scheme", choices=("verlet", "implicit_euler"), default="verlet")
    ap.add_argument("--ground", choices=sorted(GROUNDS), default="softmech",
                    help="the ground's friction law and contact band (build_walker(ground=...))")
    ap.add_argument("--tol", type=float, default=None, help="ImplicitOptions.tol")
    ap.add_argument("--corotate", action="store_true", help="ImplicitOptions(corotate=True)")
    ap.add_argument("--predictor", type=int, default=None, help="ImplicitOptions.predictor")
    ap.add_argument("--predictor-guard", choices=("on", "off"), default=None,
                    help="ImplicitOptions.predictor_guard")
    ap.add_argument("--slip-velocity", type=float, default=None,
                    help="override the ground's slip velocity v_s [m/s]")
    ap.add_argument("--friction", type=float, default=None,
                    help="override the ground's kinetic friction coefficient [-]")
    ap.add_argument("--bath-damping", type=float, default=None,
                    help="override the bath's linear damping on every rod [kg/(m s)]")
    ap.add_argument("--internal-damping", type=float, default=None,
                    help="sm.RelativeDamping on every rod: the damping of its deformation alone "
                         "[kg/(m s)] (build_walker(internal_damping=...))")
    ap.add_argument("--surface-tolerance", type=float, default=None,
                    help="override the ground's contact band [m]")
    ap.add_argument("--trace", type=float, default=None, metavar="SECONDS",
                    help="run in chunks of this length, printing after each the Newton counters, "
                         "the first skeleton's centre of mass and its lowest node's height")
    ap.add_argument("--alone", action="store_true",
                    help="each frequency in its own run (default: side by side in one world)")
    args = ap.parse_args()
    newton = None
    if args.scheme == "implicit_euler":
        given = {"tol": args.tol, "predictor": args.predictor,
                 "predictor_guard": None if args.predictor_guard is None
                 else args.predictor_guard == "on"}
        newton = sm.ImplicitOptions(corotate=args.corotate,
                                    **{k: v for k, v in given.items() if v is not None})
    given = {"slip_velocity": args.slip_velocity, "surface_tolerance": args.surface_tolerance,
             "friction": args.friction, "static_friction": args.static_friction,
             "bath_damping": args.bath_damping,
             "internal_damping": args.internal_damping,
             "penalty_stiffness": args.penalty_stiffness or None,
             "tangential_stiffness": args.tangential_stiffness, "muscle_force": args.muscle_force}
    extra = {k: v for k, v in given.items() if v is not None}
    if args.model == "paper":
        extra["model"] = "paper"
    else:
        extra["ground"] = args.ground
    groups = [(f,) for f in args.frequencies] if args.alone else [tuple(args.frequencies)]
    print(f"dt {args.dt:g} s, {args.scheme}, {extra}, {newton}", flush=True)
    for freqs in groups:
        scene, info = build_walker(frequencies=freqs, dt=args.dt, **extra)
        sim = scene.compile(dt=args.dt, scheme=args.scheme, newton=newton)
        record = sm.Every(0.01, tuple(f"{s}.com" for s in info.skeletons))
        if args.scheme == "implicit_euler":     # compile and probe outside the timing
            print_pattern(sim.implicit_integrator())
        start, cpu = time.perf_counter(), time.process_time()
        if args.trace:
            trace(sim, info, args, start)
            continue
        out = sim.run(args.duration, record=record)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        x = np.stack([out[f"{s}.com"][0][:, 0] for s in info.skeletons])
        v = mean_speeds(out["time"], x, info.frequencies, settle=SETTLE)
        stats = sim.implicit_integrator().stats if args.scheme == "implicit_euler" else {}
        print(f"  {freqs} Hz: {wall:.0f} s wall ({wall / args.duration:.1f} s per simulated s), "
              f"{cpu:.0f} s CPU; {stats}", flush=True)
        for f, speed, row in zip(info.frequencies, v, x):
            marks = np.arange(SETTLE, args.duration + 1e-9, 1.0 / f)
            steps = np.diff(np.interp(marks, out["time"], row))
            print(f"  {f:g} Hz: {1e6 * speed:.1f} um/s; steps per period [um] "
                  f"{np.round(1e6 * steps, 1).tolist()}", flush=True)


def trace(sim, info, args, start):
    """Run args.duration in chunks of args.trace [s], printing the implicit counters, the first
    skeleton's centre of mass [mm] and its lowest node's height [mm] (the feet: 0.5 mm)."""
    s = info.skeletons[0]
    for _ in range(int(round(args.duration / args.trace))):
        out = sim.run(args.trace, record=sm.Every(args.trace, (f"{s}.com", f"{s}.positions")))
        stats = sim.implicit_integrator().stats if args.scheme == "implicit_euler" else {}
        com, pos = out[f"{s}.com"][0][-1], out[f"{s}.positions"][0][-1]
        print(f"  t {out['time'][-1]:.4f} s, {time.perf_counter() - start:.1f} s wall, {stats}; "
              f"com x {1e3 * com[0]:.4f} z {1e3 * com[2]:.4f} mm, lowest node "
              f"{1e3 * pos[:, 2].min():.4f} mm", flush=True)


if __name__ == "__main__":
    main()
