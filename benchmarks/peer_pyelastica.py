"""Peer benchmark: time PyElastica 1.0 on the same problems our engine runs.

Self-contained (numpy, time, elastica only). Reports wall-clock microseconds
per rod-step, i.e. (wall time of ``n_steps`` steps) / (n_steps * n_rods) * 1e6.

Cases
-----
``cantilever``  Timoshenko beam (ME498 handout, Table 1): L=3 m, r=0.25 m,
                rho=5000, E=1e6, G=1e4, clamped at node 0 / element 0,
                tip force (0, -15, 0) N, analytical linear damping 0.1,
                dt = 3e-4 * min(1, 100/n_elems).
``free_rod``    L=1 m, r=0.025 m, rho=1000, E=1e7, G=E/1.5, gravity
                (0, 0, -9.81), no damping, no BCs,
                dt = 2.5e-5 * min(1, 50/n_elems).

For ``n_rods > 1`` all rods live in ONE simulator so that PyElastica batches
them into a single memory block; each rod gets its own BC/forcing/damper.
Stepping is the idiomatic 1.0 loop ``time = stepper.step(sim, time, dt)``
(``PositionVerlet``); the static ``do_step`` is deprecated in 1.0.
"""

import time

import numpy as np
import elastica as ea

CASES = ("cantilever", "free_rod")

# Damping used for the cantilever. PyElastica 1.0's AnalyticalLinearDamper
# accepts three protocols: ``damping_constant`` (original/"deprecated"
# protocol, still supported without warning, v *= exp(-c dt),
# w *= exp(-c dt m_e J^-1)^dilatation), ``uniform_damping_constant``, and
# ``translational_damping_constant`` + ``rotational_damping_constant``.
# We use ``damping_constant=0.1``: it reproduces the handout semantics
# exactly, and its per-step kernel is identical in cost to the
# translational/rotational ("physical") protocol (same two array products,
# incl. np.power by dilatation).
CANTILEVER_DAMPING_KWARGS = {"damping_constant": 0.1}
# Ramp time of the tip force. EndpointForces asserts ramp_up_time > 0.
CANTILEVER_RAMP_UP_TIME = 1e-3


class _Simulator(
    ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping
):
    """One system collection holding every rod (batched into a memory block)."""


def pyelastica_version() -> str:
    """Return the installed PyElastica version string (e.g. ``'1.0.0'``)."""
    from elastica.version import VERSION

    return str(VERSION)


def case_dt(case: str, n_elems: int) -> float:
    """Time step used for ``case`` at resolution ``n_elems``."""
    if case == "cantilever":
        return 3e-4 * min(1.0, 100.0 / n_elems)
    if case == "free_rod":
        return 2.5e-5 * min(1.0, 50.0 / n_elems)
    raise ValueError(f"unknown case {case!r}; expected one of {CASES}")


def build_simulator(case: str, n_elems: int, n_rods: int):
    """Build and finalize a simulator with ``n_rods`` identical rods.

    Returns ``(simulator, rods, dt)``.
    """
    dt = case_dt(case, n_elems)
    sim = _Simulator()
    rods = []
    for _ in range(n_rods):
        if case == "cantilever":
            rod = ea.CosseratRod.straight_rod(
                n_elems,
                np.zeros(3),
                np.array([1.0, 0.0, 0.0]),
                np.array([0.0, 1.0, 0.0]),
                3.0,
                0.25,
                5000.0,
                youngs_modulus=1e6,
                shear_modulus=1e4,
            )
            sim.append(rod)
            sim.constrain(rod).using(
                ea.OneEndFixedBC,
                constrained_position_idx=(0,),
                constrained_director_idx=(0,),
            )
            sim.add_forcing_to(rod).using(
                ea.EndpointForces,
                np.zeros(3),
                np.array([0.0, -15.0, 0.0]),
                ramp_up_time=CANTILEVER_RAMP_UP_TIME,
            )
            sim.dampen(rod).using(
                ea.AnalyticalLinearDamper,
                time_step=dt,
                **CANTILEVER_DAMPING_KWARGS,
            )
        else:  # free_rod
            rod = ea.CosseratRod.straight_rod(
                n_elems,
                np.zeros(3),
                np.array([1.0, 0.0, 0.0]),
                np.array([0.0, 0.0, 1.0]),
                1.0,
                0.025,
                1000.0,
                youngs_modulus=1e7,
                shear_modulus=1e7 / 1.5,
            )
            sim.append(rod)
            sim.add_forcing_to(rod).using(
                ea.GravityForces, acc_gravity=np.array([0.0, 0.0, -9.81])
            )
        rods.append(rod)
    sim.finalize()
    return sim, rods, dt


def time_pyelastica(
    case: str, n_elems: int, n_rods: int, n_steps: int, warmup_steps: int = 200
) -> float:
    """Return wall µs per rod-step: (wall time of n_steps steps) / (n_steps * n_rods) * 1e6.

    ``warmup_steps`` steps are run first (numba JIT compilation, caches) and
    are not timed. Raises ``RuntimeError`` if any rod's final positions are
    not finite (a diverged run gives meaningless timings).
    """
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}; expected one of {CASES}")
    if n_elems < 1 or n_rods < 1 or n_steps < 1 or warmup_steps < 0:
        raise ValueError("n_elems, n_rods, n_steps must be >= 1; warmup >= 0")

    sim, rods, dt = build_simulator(case, n_elems, n_rods)
    stepper = ea.PositionVerlet()
    t = np.float64(0.0)
    dt = np.float64(dt)
    for _ in range(warmup_steps):
        t = stepper.step(sim, t, dt)

    t0 = time.perf_counter()
    for _ in range(n_steps):
        t = stepper.step(sim, t, dt)
    wall = time.perf_counter() - t0

    for i, rod in enumerate(rods):
        if not np.all(np.isfinite(rod.position_collection)):
            raise RuntimeError(
                f"PyElastica {case} run diverged (rod {i}, n_elems={n_elems}, "
                f"dt={float(dt):.3g}, t={float(t):.3g}); timing is meaningless"
            )
    return wall / (n_steps * n_rods) * 1e6


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=CASES, default="free_rod")
    parser.add_argument("--n", type=int, default=50, help="elements per rod")
    parser.add_argument("--rods", type=int, default=1, help="number of rods")
    parser.add_argument("--steps", type=int, default=2000, help="timed steps")
    parser.add_argument("--warmup", type=int, default=200, help="untimed steps")
    args = parser.parse_args()
    us = time_pyelastica(args.case, args.n, args.rods, args.steps, args.warmup)
    print(
        f"PyElastica {pyelastica_version()} case={args.case} n={args.n} "
        f"rods={args.rods} steps={args.steps}: {us:.2f} us/rod-step"
    )
