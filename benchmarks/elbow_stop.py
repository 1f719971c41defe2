"""The elbow's flexion into its 150 deg stop (issue 28): how far each forearm bone goes past it,
and why (docs/musculoskeletal.md, "The flexion stop").

    python benchmarks/elbow_stop.py [--fibers 18] [--zeta 1.43e5] [--dt 2.5e-6] [--duration 0.4]
                                    [--shoulder clamp] [--radioulnar 2000]
                                    [--scheme verlet|implicit_euler] [--fast]

Prints the largest flexion [deg] of the radius's and the ulna's chords, the hinge's own angle
there (between the humerus's last and the radius's first element, where the stop acts), the
forearm's peak angular velocity before it [rad/s], the biceps' growth at 90 deg and the wall
and CPU time per 0.1 s simulated (excluding compiling and the first step). --zeta sets every
fibre's strain-rate damping (default: Hill-fitted, 1.43e5 Pa s, which needs --dt <= 2.5e-6
explicit; the former settings: --zeta 1e3 --dt 5e-6); --radioulnar overrides
softmech.scenarios.elbow.RADIOULNAR_STIFFNESS (the former: 50). The full scene takes ~2.4 s
of CPU per 0.1 s simulated at the former settings and ~4.4 s at the default (2026-11-29).
--scheme implicit_euler steps it by implicit Euler (default ImplicitOptions; --fast: the
corotated options of docs/implicit_cosserat.md; 50 us: ~2.5 s of CPU per 0.1 s).
"""
import argparse
import time

import numpy as np

import softmech as sm
from softmech.scenarios import elbow

FAST = sm.ImplicitOptions(corotate=True, predictor=2, refresh_rate=0.5, tol=1e-7)
"""The implicit solver's fast options (docs/implicit_cosserat.md, the swimmer's)."""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fibers", type=int, default=18)
    parser.add_argument("--zeta", type=float, default=elbow.DEFAULTS["muscle_damping"])
    parser.add_argument("--dt", type=float, default=elbow.DEFAULTS["dt"])
    parser.add_argument("--duration", type=float, default=0.4)
    parser.add_argument("--shoulder", default="clamp")
    parser.add_argument("--radioulnar", type=float, default=elbow.RADIOULNAR_STIFFNESS)
    parser.add_argument("--scheme", default="verlet", choices=("verlet", "implicit_euler"))
    parser.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    elbow.RADIOULNAR_STIFFNESS = args.radioulnar
    scene, info = elbow.build_elbow(fibers=args.fibers, dt=args.dt, shoulder=args.shoulder)
    newton = FAST if args.fast else None
    sim = scene.compile(dt=info.dt, scheme=args.scheme, newton=newton)
    for f in info.fibers:
        sim.params[f"{f}_muscle.damping"] = np.array([args.zeta])
    compile_start = time.perf_counter()
    sim.step(1)                                  # compiles; the recorded run starts at dt
    compiled = time.perf_counter() - compile_start
    fields = ("humerus.positions", "radius.positions", "ulna.positions") + tuple(
        f"{f}.positions" for f in info.fibers)
    start, cpu = time.perf_counter(), time.process_time()
    out = sim.run(duration=args.duration, record=sm.Every(0.001, fields))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    h, r, u = (out[f"{b}.positions"][0] for b in ("humerus", "radius", "ulna"))
    chord = elbow.flexion_angle(h, r)
    e_h, e_r = h[:, -1] - h[:, -2], r[:, 1] - r[:, 0]
    cos = np.sum(e_h * e_r, -1) / np.linalg.norm(e_h, axis=-1) / np.linalg.norm(e_r, axis=-1)
    joint = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    k = int(np.argmax(chord))
    speed = np.gradient(np.radians(chord), 0.001)[:k + 1].max()
    section = elbow.belly_section([out[f"{f}.positions"][0] for f in info.fibers],
                                  info.fiber_rest_length, info.fiber_area)
    print(f"fibers {args.fibers}, zeta {args.zeta:g} Pa s, dt {args.dt:g} s, {args.scheme}"
          f"{' fast' if args.fast else ''}, shoulder {args.shoulder}, ulna-radius "
          f"{args.radioulnar:g} N m/rad: {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({wall / args.duration * 0.1:.2f} s wall, {cpu / args.duration * 0.1:.2f} s CPU per "
          f"0.1 s simulated; first step "
          f"{compiled:.1f} s)")
    print(f"  largest flexion: radius chord {chord.max():.2f} deg at t = {1e-3 * k:.3f} s, "
          f"ulna chord {elbow.flexion_angle(h, u).max():.2f} deg, hinge angle there "
          f"{joint[k]:.2f} deg (largest {joint.max():.2f})")
    print(f"  peak flexion speed before it {speed:.1f} rad/s; growth at 90 deg "
          f"{100 * elbow.growth_at(chord, section):.2f} %")
    if args.scheme == "implicit_euler":
        print(f"  {sim.implicit_integrator().stats}")


if __name__ == "__main__":
    main()
