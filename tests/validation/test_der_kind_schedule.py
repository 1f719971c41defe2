"""Actuation of a discrete rod of the unified engine by its natural curvature or natural twist
given as a table (softmech.bodies.schedules; ref. 004 sec. 6.1: DisMech reads the natural
curvature from a table at every step), written by softmech.kernels.der_kind.der_rest_schedule
at the time of every force evaluation: against the discrete engine, which interpolates the
same table itself, and against the exact shape of a free-ended discrete rod at rest."""
import math

import numpy as np
import pytest

import softmech as sm

L, N, R, RHO, E = 0.2, 10, 2e-3, 1200.0, 1e9
KAPPA, RAMP = 5.0, 1.0       # [1/m] final natural curvature (1 rad over the rod), [s] ramp
H = 0.005
"""[s] the step: the first bending mode, omega_1 = 1.8751^2 sqrt(EI / (rho A L^4)) = 80 rad/s,
loses |1 / (1 + i omega_1 h)| = 0.93 per backward-Euler step, so 600 steps after the ramp
leave ~1e-19 of any motion. The ramp is slow (1 s, 200 steps) so that every step converges
at h in both engines with their default Newton settings: a fast one on this stiff rod is a
strongly nonlinear step, which the unified engine's 12 iterations may not finish and halve
(a 0.2 s ramp at h = 0.02 s: 4 halvings in its first 5 steps, measured 2026-11-30), and a
halved step is a different integration (test_der_kind_fast_motion.py, docs/discrete_rods.md)."""


def ramp(final):
    """A table from 0 at t = 0 to `final` at t = RAMP (softmech.bodies.schedules)."""
    return {"times": [0.0, RAMP], "values": [np.zeros_like(final), final]}


def actuated(engine, **rest):
    """The clamped rod with its natural curvature (default) or twist given by `rest`."""
    rest = rest or {"natural_curvature": ramp(np.tile([KAPPA, 0.0], (N - 1, 1)))}
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                            normal=(0.0, 0.0, 1.0), length=L, n_elems=N, radius=R, density=RHO,
                            youngs_modulus=E, **rest)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
    if engine == "unified":
        return scene.compile(dt=H, engine="unified", scheme="implicit_euler")
    return scene.compile(dt=H, engine="discrete")


@pytest.fixture(scope="module")
def runs():
    out = {}
    for engine in ("unified", "discrete"):
        sim = actuated(engine)
        sim.step(100)                                  # t = 0.5 s: half way up the ramp
        mid = sim.get_state("rod")["positions"][0].copy()
        if engine == "unified":
            assert sim.implicit_integrator().stats["halvings"] == 0
        sim.step(700)                                  # t = 4 s: at rest
        state = sim.get_state("rod")
        out[engine] = (mid, state["positions"][0], state["velocities"][0])
    return out


def test_the_ramp_follows_the_discrete_engine(runs):
    """Half way up the ramp (t = 0.5 s, the rod moving) the unified engine's nodes equal the
    discrete engine's within 1e-7 m (measured 5.3e-9 m): the same implicit Euler equations
    with the natural curvature taken at the end of each step in both; what differs is the
    Newton stopping rules (~1e-8 of an edge length, 2e-10 m, per step, over 100 steps). Had
    the table been read at the start of the step, the states would differ by one step of the
    ramp, ~4e-4 m."""
    mid_u, mid_d = runs["unified"][0], runs["discrete"][0]
    assert np.abs(mid_d - mid_d[0]).max() > 1e-3                  # it is bending
    assert np.abs(mid_u - mid_d).max() < 1e-7


def test_at_rest_the_rod_takes_its_natural_polygon(runs):
    """With no load the bending moment vanishes, so every spring takes its natural discrete
    curvature: kappa l = 2 tan(phi / 2) (ref. 004 eq. 12, the curvature binormal's norm, with
    the Voronoi length l = the edge length of a uniform rod), a turning angle
    phi = 2 atan(KAPPA l / 2) at every inner node; with equal edges l (no stretching load) the
    nodes are the vertices of a regular polygon of circumradius rho = l / (2 sin(phi / 2)), so
    node k lies 2 rho sin(k phi / 2) from node 0 (exact for the discrete model). Tolerance
    1e-9 relative: the Newton tolerance (1e-8 of an edge length per step) after 700 steps of
    backward Euler's damping (~1e-19 of the motion left)."""
    x, v = runs["unified"][1], runs["unified"][2]
    assert np.abs(v).max() < 1e-8
    l = L / N
    phi = 2.0 * math.atan(KAPPA * l / 2.0)
    rho = l / (2.0 * math.sin(phi / 2.0))
    k = np.arange(N + 1)
    chord = 2.0 * rho * np.sin(k * phi / 2.0)
    measured = np.linalg.norm(x - x[0], axis=1)
    np.testing.assert_allclose(measured[1:], chord[1:], rtol=1e-9)
    np.testing.assert_allclose(x, runs["discrete"][1], atol=1e-9)


# -- the natural twist as a table: the same kernel (der_rest_schedule) writes it ------------------
TAU = 5.0        # [rad/m] final natural twist (1 rad over the rod)


@pytest.fixture(scope="module")
def twist_runs():
    out = {}
    for engine in ("unified", "discrete"):
        sim = actuated(engine, natural_twist=ramp(np.full(N - 1, TAU)))
        sim.step(100)                                  # t = 0.5 s: half way up the ramp
        mid = sim.get_state("rod")
        mid_twist = mid["twist" if engine == "unified" else "angles"][0].copy()
        sim.step(300)                                  # t = 2 s: at rest
        state = sim.get_state("rod")
        out[engine] = (mid_twist, state["twist" if engine == "unified" else "angles"][0],
                       state["positions"][0])
    return out


def test_a_natural_twist_table_twists_the_rod_as_the_discrete_engine(twist_runs):
    """Half way up the ramp the edges' twist angles equal the discrete engine's within 1e-7 rad
    (the Newton tolerances, as for the curvature above); at rest every twisting spring takes
    its natural twist, tau l (ref. 004 eq. 16: the twist energy G J (m - tau l)^2 / (2 l) with
    m = theta_f - theta_e on a straight rod, whose reference twist stays 0), so with edge 0
    held at 0 edge j is turned by j tau l (exact for the discrete model; 1e-9 rad), and the
    axis stays straight (no bending without curvature in an isotropic section: 1e-12 m).
    Measured 2026-11-30: 5.6e-17 rad against the discrete engine at 0.45 rad of twist (the
    twist of a straight rod is linear: Newton converges at once), 1.1e-16 rad at rest, the
    axis exactly straight."""
    (mid_u, rest_u, x_u), (mid_d, _, _) = twist_runs["unified"], twist_runs["discrete"]
    assert np.abs(mid_d).max() > 0.1                                  # it is twisting
    assert np.abs(mid_u - mid_d).max() < 1e-7
    expected = np.arange(N) * TAU * (L / N)
    assert np.abs(rest_u - expected).max() < 1e-9
    assert np.abs(x_u[:, 1:]).max() < 1e-12


# -- the rest shape as a Python function of time: sampled at the step's evaluation times -------
OMEGA = 4.0
"""[rad/s] a sinusoidal natural curvature (its interpolation between samples would not be
exact, so sampling at other times shows), slow enough that every implicit step at H converges
unhalved (at 20 rad/s the unified engine halves 4 steps in 60, as a fast ramp does above)."""


def wave(t):
    """Natural curvature (N - 1, 2) [1/m] at time t [s]: KAPPA sin(OMEGA t) on kappa1."""
    return np.tile([KAPPA * math.sin(OMEGA * t), 0.0], (N - 1, 1))


def test_a_function_of_time_actuates_as_in_the_discrete_engine():
    """The unified engine samples the function before each chunk of steps at the times of its
    force passes (softmech.function_schedules): under implicit Euler, the end of every step,
    where the discrete engine calls it. After 60 steps (0.3 s, the curvature at
    KAPPA sin(1.2), the rod moving) the nodes equal the discrete engine's within 1e-7 m, the
    Newton stopping rules' drift as for the table above (measured 2026-11-30: 1.8e-10 m, the
    tip 0.18 m from its start); sampled at the start of each step instead (the function
    delayed by H), the nodes differ by 5.4e-4 m."""
    nodes = {}
    for engine in ("unified", "discrete"):
        sim = actuated(engine, natural_curvature=wave)
        sim.step(60)
        nodes[engine] = sim.get_state("rod")["positions"][0]
        if engine == "unified":
            assert sim.implicit_integrator().stats["halvings"] == 0
    assert np.abs(nodes["discrete"] - nodes["discrete"][0]).max() > 1e-3     # it is bending
    assert np.abs(nodes["unified"] - nodes["discrete"]).max() < 1e-7


@pytest.mark.parametrize("scheme", ["verlet", "pefrl", "symplectic_euler"])
def test_under_the_explicit_schemes_the_function_is_read_at_each_force_pass(scheme):
    """The explicit schemes evaluate forces in the middle of the step (position Verlet, at
    i dt + dt / 2), at PEFRL's four drift points or at the step's start (symplectic Euler,
    after its drift of 0): the function's samples there are exact,
    so a run with the function equals, bit for bit, a run with a table holding the function's
    values at those times (computed here with the stepper's arithmetic,
    softmech.integrators.explicit.step_block), which interpolates to the sample itself."""
    from softmech.integrators.explicit import SCHEME_TABLES, SCHEMES

    dt, n = 2e-6, 100
    drifts = SCHEME_TABLES[SCHEMES[scheme]][0]
    times = []
    for i in range(n):
        t = 0.0 + i * dt + drifts[0] * dt
        times.append(t)
        for d in drifts[1:-1]:
            t += d * dt
            times.append(t)
    times = np.unique(times)
    table = {"times": times, "values": np.array([wave(t) for t in times])}
    final = {}
    for key, rest in (("function", wave), ("table", table)):
        scene = sm.Scene()
        rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                                normal=(0.0, 0.0, 1.0), length=L, n_elems=N, radius=R,
                                density=RHO, youngs_modulus=E, natural_curvature=rest)
        scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
        sim = scene.compile(dt=dt, engine="unified", scheme=scheme)
        sim.step(n)
        final[key] = sim.get_state("rod")
    assert np.abs(final["function"]["velocities"]).max() > 0.0
    for field in ("positions", "velocities", "twist"):
        np.testing.assert_array_equal(final["function"][field], final["table"][field])


def test_a_function_with_one_row_per_world_actuates_each_world():
    """A function returning (B, N - 1, 2) gives each world its own row (softmech.bodies.
    schedules): world 0 of two moves as a single world with that row does, to round-off
    (1e-12 m), and world 1, whose row is zero, stays straight (its nodes on the x axis to
    1e-12 m: nothing bends it)."""
    def per_world(t):
        return np.stack([wave(t), np.zeros((N - 1, 2))])

    runs = {}
    for worlds, rest in ((2, per_world), (1, wave)):
        scene = sm.Scene()
        rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                                normal=(0.0, 0.0, 1.0), length=L, n_elems=N, radius=R,
                                density=RHO, youngs_modulus=E, natural_curvature=rest)
        scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
        sim = scene.compile(dt=H, worlds=worlds, engine="unified", scheme="implicit_euler")
        sim.step(40)
        runs[worlds] = sim.get_state("rod")["positions"]
    assert np.abs(runs[2][0] - runs[1][0]).max() < 1e-12
    assert np.abs(runs[1][0][:, 1:]).max() > 1e-3
    assert np.abs(runs[2][1][:, 1:]).max() < 1e-12
