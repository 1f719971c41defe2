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
``snake``       the slithering snake of the ME498 handout (Table 2) with the
                published optimal gait (see ``SNAKE``): the free_rod's rod
                with G = 2E/3, lying on the ground plane z = 0 (start at
                z = r, along +x, normal d1 = +z, head = last node), gravity,
                RodPlaneContactWithAnisotropicFriction (k_w = 1,
                gamma_w = 1e-6, v_eps = 1e-8, kinetic [mu, 1.5 mu, 2 mu],
                static 2 x kinetic), MuscleTorques (beta-spline
                (0, 17.4, 48.5, 5.4, 14.7, 0) N m, lambda = 0.97 m, T = 1 s,
                ramped over one period, about d1), linear damping gamma = 5
                (``snake_damping_kwargs``), dt = 2.5e-5 * min(1, 50/n_elems).

For ``n_rods > 1`` all rods live in ONE simulator so that PyElastica batches
them into a single memory block; each rod gets its own BC/forcing/damper.
Stepping is the idiomatic 1.0 loop ``time = stepper.step(sim, time, dt)``
(``PositionVerlet``); the static ``do_step`` is deprecated in 1.0.
"""

import time

import numpy as np
import elastica as ea

CASES = ("cantilever", "free_rod", "snake")

# The snake (ME498 handout Table 2, optimal gait of Gazzola et al. R. Soc. Open
# Sci. 2018). softmech's tests compare these numbers with softmech's own
# (softmech.scenarios.snake.TABLE2 / OPTIMAL_GAIT); they are repeated here so
# that this harness needs nothing but numpy and elastica.
_MU = 1.019368  # forward kinetic mu = L / (T^2 g Froude), Froude = 0.1
SNAKE = dict(
    length=1.0,
    radius=0.025,
    density=1000.0,
    youngs_modulus=1e7,
    shear_modulus=2e7 / 3.0,
    gravity=9.81,
    wall_stiffness=1.0,
    wall_damping=1e-6,
    slip_velocity=1e-8,
    kinetic=(_MU, 1.5 * _MU, 2.0 * _MU),  # forward, backward, lateral
    static=(2.0 * _MU, 3.0 * _MU, 4.0 * _MU),
    coefficients=(0.0, 17.4, 48.5, 5.4, 14.7, 0.0),  # beta_0..5 [N m]
    wavelength=0.97,
    period=1.0,
    damping=5.0,  # gamma [kg/(m s)], on node and element velocities
)

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
    ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping, ea.Contact
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
    if case in ("free_rod", "snake"):
        return 2.5e-5 * min(1.0, 50.0 / n_elems)
    raise ValueError(f"unknown case {case!r}; expected one of {CASES}")


def snake_damping_kwargs(rod) -> dict:
    """AnalyticalLinearDamper arguments (physical protocol) equal to a linear
    damping gamma = SNAKE["damping"] per unit length on the node velocities
    (force -gamma v dl, dl = the node's half of its neighbouring rest
    lengths) and on the element angular velocities (couple -gamma w l_hat):
    PyElastica scales v by exp(-c_t dt / m) and w by
    exp(-c_r dt / J_hat)^(l / l_hat), so c_t = gamma dl (n+1,) and
    c_r = gamma l_hat (n,). The only difference from an explicit force is
    the exponential (exact) integration of the decay (rate gamma / (rho A)
    = 2.5 1/s, i.e. 6e-5 per step) and the couple's factor l / l_hat."""
    gamma = SNAKE["damping"]
    rest = np.asarray(rod.rest_lengths, dtype=float)
    dl = np.zeros(rest.size + 1)
    dl[:-1] += 0.5 * rest
    dl[1:] += 0.5 * rest
    return dict(
        translational_damping_constant=gamma * dl,
        rotational_damping_constant=gamma * rest,
    )


def _add_snake(sim, n_elems: int, dt: float, plane):
    """One Table 2 snake with the optimal gait, in contact with ``plane``."""
    c = SNAKE
    normal = np.array([0.0, 0.0, 1.0])
    rod = ea.CosseratRod.straight_rod(
        n_elems,
        np.array([0.0, 0.0, c["radius"]]),
        np.array([1.0, 0.0, 0.0]),
        normal,
        c["length"],
        c["radius"],
        c["density"],
        youngs_modulus=c["youngs_modulus"],
        shear_modulus=c["shear_modulus"],
    )
    sim.append(rod)
    sim.add_forcing_to(rod).using(
        ea.GravityForces, acc_gravity=np.array([0.0, 0.0, -c["gravity"]])
    )
    sim.add_forcing_to(rod).using(
        ea.MuscleTorques,
        base_length=c["length"],
        b_coeff=np.array(c["coefficients"]),
        period=c["period"],
        wave_number=2.0 * np.pi / c["wavelength"],
        phase_shift=0.0,
        rest_lengths=rod.rest_lengths,
        ramp_up_time=c["period"],
        direction=normal,
        with_spline=True,
    )
    sim.detect_contact_between(rod, plane).using(
        ea.RodPlaneContactWithAnisotropicFriction,
        k=c["wall_stiffness"],
        nu=c["wall_damping"],
        slip_velocity_tol=c["slip_velocity"],
        static_mu_array=np.array(c["static"]),
        kinetic_mu_array=np.array(c["kinetic"]),
    )
    sim.dampen(rod).using(
        ea.AnalyticalLinearDamper, time_step=dt, **snake_damping_kwargs(rod)
    )
    return rod


def build_simulator(case: str, n_elems: int, n_rods: int):
    """Build and finalize a simulator with ``n_rods`` identical rods.

    Returns ``(simulator, rods, dt)``.
    """
    dt = case_dt(case, n_elems)
    sim = _Simulator()
    rods = []
    plane = None
    if case == "snake":  # one ground plane z = 0 shared by all snakes
        plane = ea.Plane(
            plane_origin=np.zeros(3), plane_normal=np.array([0.0, 0.0, 1.0])
        )
        sim.append(plane)
    for _ in range(n_rods):
        if case == "snake":
            rod = _add_snake(sim, n_elems, dt, plane)
        elif case == "cantilever":
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


def snake_speed(duration: float = 6.0, n_elems: int = 50, first: int = 3,
                last: int = 6, every: int = 400, log=None) -> dict:
    """Physics cross-check: simulate one snake for ``duration`` seconds and
    return its mean centre-of-mass velocity over periods ``first``..``last``
    (the same estimator as softmech.scenarios.snake.mean_velocities:
    (com(t_last) - com(t_first)) / (t_last - t_first)). The centre of mass is
    sampled every ``every`` steps. Returns a dict with ``forward`` (+x) and
    ``lateral`` (y) speeds [m/s], ``steps`` and ``wall_s``. Slow: 240 000
    steps for 6 s (minutes of wall time); not for tests."""
    if not last * SNAKE["period"] <= duration:
        raise ValueError(f"duration = {duration!r} s is not allowed: must be >= "
                         f"period {last} end ({last * SNAKE['period']} s)")
    sim, rods, dt = build_simulator("snake", n_elems, 1)
    rod = rods[0]
    stepper = ea.PositionVerlet()
    n_steps = int(round(duration / dt))
    t = np.float64(0.0)
    times, coms = [], []

    def sample():
        m = rod.mass
        times.append(float(t))
        coms.append((rod.position_collection * m).sum(axis=1) / m.sum())

    sample()
    t0 = time.perf_counter()
    for i in range(1, n_steps + 1):
        t = stepper.step(sim, t, np.float64(dt))
        if i % every == 0:
            sample()
            if not np.all(np.isfinite(coms[-1])):
                raise RuntimeError(f"PyElastica snake diverged at t = {float(t):.4g} s")
            if log and i % (every * 100) == 0:
                log(f"t = {float(t):.2f} s, {time.perf_counter() - t0:.0f} s wall")
    wall = time.perf_counter() - t0
    times, coms = np.array(times), np.array(coms)
    i0 = int(np.argmin(np.abs(times - first * SNAKE["period"])))
    i1 = int(np.argmin(np.abs(times - last * SNAKE["period"])))
    v = (coms[i1] - coms[i0]) / (times[i1] - times[i0])
    return dict(forward=float(v[0]), lateral=float(v[1]), steps=n_steps, wall_s=wall)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=CASES, default="free_rod")
    parser.add_argument("--n", type=int, default=50, help="elements per rod")
    parser.add_argument("--rods", type=int, default=1, help="number of rods")
    parser.add_argument("--steps", type=int, default=2000, help="timed steps")
    parser.add_argument("--warmup", type=int, default=200, help="untimed steps")
    parser.add_argument(
        "--snake-speed",
        type=float,
        metavar="SECONDS",
        default=None,
        help="instead of timing: simulate one snake for SECONDS (>= 6) and "
        "print its mean forward/lateral speed over periods 3-6",
    )
    args = parser.parse_args()
    if args.snake_speed is not None:
        r = snake_speed(args.snake_speed, args.n, log=print)
        print(
            f"PyElastica {pyelastica_version()} snake n={args.n}: mean forward "
            f"speed {r['forward']:.4f} m/s, lateral {r['lateral']:.4f} m/s over "
            f"periods 3-6 ({r['steps']} steps, {r['wall_s']:.1f} s wall)"
        )
        raise SystemExit(0)
    us = time_pyelastica(args.case, args.n, args.rods, args.steps, args.warmup)
    print(
        f"PyElastica {pyelastica_version()} case={args.case} n={args.n} "
        f"rods={args.rods} steps={args.steps}: {us:.2f} us/rod-step"
    )
