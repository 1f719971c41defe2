"""Cost per step of a discrete elastic rod as a body kind of the unified engine (issue 27,
Scene.compile(engine="unified"), implicit Euler with its colored finite-difference Jacobian)
against the discrete engine (softmech.implicit: analytic Jacobian, compiled banded Newton loop),
on falling_rod-sized rods (0.2 m, r = 2 mm, 30 edges; softmech.scenarios.discrete), clamped,
under gravity, at the same dt; and, for reference, the unified engine's position Verlet.

    python benchmarks/der_kind_cost.py                  # dt = 1 ms, 1 s simulated
    python benchmarks/der_kind_cost.py --dt 1e-2 --steps 200
    python benchmarks/der_kind_cost.py --body shell --steps 20
    python benchmarks/der_kind_cost.py --body shell --bending midedge --steps 20

--body shell: a hinge shell as nodes of the kind instead (benchmarks/implicit_batch.py's plate:
1 x 1 m, ~1,000 triangles, h = 1 mm, E = 1 GPa, its edges clamped, 10 Pa of pressure); with
--bending midedge the same plate with mid-edge bending (its angles edges of the kind).

Prints wall milliseconds per step (after a warm-up that compiles), the unified engine's Newton
statistics and the two engines' tip positions (the same discrete model: they agree to the
Newton tolerances). Asserts nothing about time (docs/DESIGN.md: benchmarks report)."""
import argparse
import time
import warnings

import numpy as np

import softmech as sm
from softmech.scenarios.discrete import FALLING_ROD


def scene(modulus):
    p = FALLING_ROD
    sc = sm.Scene()
    rod = sc.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                         length=p["length"], n_elems=p["n_elems"], radius=p["radius"],
                         density=p["density"], youngs_modulus=modulus,
                         poisson_ratio=p["poisson_ratio"])
    sc.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    sc.add(sm.Gravity())
    return sc


def shell_scene(bending="hinge"):
    from softmech.bodies import meshes
    mesh = meshes.rectangle(1.0, 1.0, 21)
    v = mesh.vertices
    edge = np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= 1) | (v[:, 1] <= 0) | (v[:, 1] >= 1))
    sc = sm.Scene()
    sc.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e9, density=1000.0,
                 bending=bending)
    sc.add(sm.FixNodes("plate", edge))
    sc.add(sm.ShellPressure("plate", 10.0))
    return sc


def shell_main(args):
    unified = shell_scene(args.bending).compile(dt=args.dt, engine="unified",
                                                scheme="implicit_euler")
    discrete = shell_scene(args.bending).compile(dt=args.dt)
    t_u = timed(unified, args.steps)
    stats = unified.implicit_integrator().stats
    t_d = timed(discrete, args.steps)
    z_u = unified.get_state("plate")["positions"][0, :, 2].max()
    z_d = discrete.get_state("plate")["positions"][0, :, 2].max()
    print(f"{args.bending} plate ({len(unified.der_shells[0].triangles)} triangles), dt = {args.dt:g} s, "
          f"{args.steps} steps:")
    print(f"  unified implicit_euler {1e3 * t_u:8.3f} ms/step  ({stats['iterations'] / stats['steps']:.2f} "
          f"Newton iterations, {stats['jacobians'] / stats['steps']:.3f} Jacobians, "
          f"{stats['evaluations'] / stats['steps']:.1f} force evaluations per step)")
    print(f"  discrete engine        {1e3 * t_d:8.3f} ms/step  (ratio {t_u / t_d:.2f})")
    print(f"  highest node: {z_u:.10f} vs {z_d:.10f} m")
    with warnings.catch_warnings():     # (dt = 1 s: only to read the limit)
        warnings.simplefilter("ignore", RuntimeWarning)
        probe = shell_scene(args.bending).compile(dt=1.0, engine="unified", scheme="verlet")
    dt = float(probe.time_step_limit().min())
    explicit = shell_scene(args.bending).compile(dt=dt, engine="unified", scheme="verlet")
    t_v = timed(explicit, 2000)
    print(f"unified verlet at its limit dt = {dt:.3g} s: {1e6 * t_v:.1f} us/step")


def timed(sim, steps):
    sim.step(2)                         # compiles (or loads from the caches) and warms up
    t0 = time.perf_counter()
    sim.step(steps)
    return (time.perf_counter() - t0) / steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--body", choices=("rod", "shell"), default="rod")
    parser.add_argument("--bending", choices=("hinge", "midedge"), default="hinge",
                        help="the shell's bending model (--body shell)")
    args = parser.parse_args(argv)
    if args.body == "shell":
        return shell_main(args)
    for modulus in (FALLING_ROD["soft_modulus"], FALLING_ROD["stiff_modulus"]):
        unified = scene(modulus).compile(dt=args.dt, engine="unified", scheme="implicit_euler")
        discrete = scene(modulus).compile(dt=args.dt)
        t_u = timed(unified, args.steps)
        stats = unified.implicit_integrator().stats
        t_d = timed(discrete, args.steps)
        tip_u = unified.get_state("rod")["positions"][0, -1]
        tip_d = discrete.get_state("rod")["positions"][0, -1]
        print(f"E = {modulus:g} Pa, dt = {args.dt:g} s, {args.steps} steps:")
        print(f"  unified implicit_euler {1e3 * t_u:8.3f} ms/step  ({stats['iterations'] / stats['steps']:.2f} "
              f"Newton iterations, {stats['jacobians'] / stats['steps']:.3f} Jacobians, "
              f"{stats['evaluations'] / stats['steps']:.1f} force evaluations per step)")
        print(f"  discrete engine        {1e3 * t_d:8.3f} ms/step  (ratio {t_u / t_d:.2f})")
        print(f"  tips: {np.array2string(tip_u, precision=8)} vs {np.array2string(tip_d, precision=8)}")
    explicit = scene(FALLING_ROD["soft_modulus"]).compile(dt=1e-5, engine="unified",
                                                          scheme="verlet")
    t_v = timed(explicit, 20000)
    print(f"unified verlet, E = {FALLING_ROD['soft_modulus']:g} Pa, dt = 1e-05 s: "
          f"{1e6 * t_v:.2f} us/step")


if __name__ == "__main__":
    main()
