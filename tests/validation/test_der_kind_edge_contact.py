"""sm.EdgeContact among discrete rods in the unified engine (softmech.terms.der_edge_contact,
softmech.kernels.der_edge_contact: the discrete engine's IMC pair penalty and regularized kinetic
Coulomb friction, MAT-DiSMech ref. 004 eqs. 21-23) against the discrete engine and Amontons-Coulomb.

The scene is the discrete engine's validation scene (softmech.validation.discrete_rods.
rod_across_two_rods: a rod lying across two fixed rods, k = 1000 N/m, distance 2 r), with
friction mu_s = mu_k = 0.3 (and mu_s = 0.5, mu_k = 0.3 for static friction) and a slip
velocity of 1e-3 m/s, well above the finite-difference Newton's velocity step (1e-7 l / h
= 4e-6 m/s at h = 1 ms). Protocol: settled 0.3 s under gravity's normal part g cos(alpha),
then the tangential part switched on; 0.3 s recorded."""
import numpy as np
import pytest

import softmech as sm
from softmech.validation.discrete_rods import rod_across_two_rods

MU, G = 0.3, 9.81
TANS = np.array([0.5, 0.2])     # sliding (tan alpha > mu) and holding (tan alpha < mu)


def incline(engine, tans=TANS, mu_s=MU, mu_k=MU):
    """(times, slider's centre of mass position and velocity down the slope (worlds, n)) in
    `engine`, one world per tan(alpha) (module docstring)."""
    tans = np.asarray(tans, dtype=float)
    sim = rod_across_two_rods(mu_s, mu_k, slip_velocity=1e-3).compile(dt=1e-3, engine=engine,
                                                                     worlds=len(tans))
    alpha = np.arctan(tans)
    zero = np.zeros_like(alpha)
    sim.params["gravity.acceleration"] = np.stack([zero, zero, -G * np.cos(alpha)], axis=1)
    sim.run(0.3)
    sim.params["gravity.acceleration"] = np.stack([G * np.sin(alpha), zero, -G * np.cos(alpha)],
                                                  axis=1)
    sim.time = 0.0
    out = sim.run(0.3, record=sm.Every(5e-3, ("slider.com", "slider.com_velocity")))
    return out["time"], out["slider.com"][:, :, 0], out["slider.com_velocity"][:, :, 0]


@pytest.fixture(scope="module")
def runs():
    return {engine: incline(engine) for engine in ("unified", "discrete")}


def test_rod_slides_across_two_rods_at_the_kinetic_acceleration_and_holds_below(runs):
    """At tan(alpha) = 0.5 the slider slides with a = g (sin(alpha) - mu_k cos(alpha))
    (Amontons-Coulomb) within 1e-3 relative (measured 3.6e-4 in both engines: the contact still
    rings a little, +-0.04 mm about its 0.82 mm overlap, which modulates the normal force); at
    0.2 it holds: it creeps where mu gamma(w) = tan(alpha), w = 2 artanh(0.2 / 0.3) / K_f =
    1.1e-4 m/s, 3e-5 m in 0.3 s (bound 1e-4 m; sliding would move it 0.3 m)."""
    t, x, v = runs["unified"]
    window = t >= 0.1
    slope = float(np.polyfit(t[window], v[0, window], 1)[0])
    alpha = np.arctan(TANS[0])
    expected = G * (np.sin(alpha) - MU * np.cos(alpha))
    assert abs(slope / expected - 1.0) < 1e-3, (slope, expected)
    assert np.ptp(x[1]) < 1e-4, np.ptp(x[1])


def test_edge_contact_equals_the_discrete_engines(runs):
    """The same forces (the discrete engine's pair kernel) and the same implicit Euler: the
    slider's travel equals the discrete engine's within 1e-6 of it (measured 1.3e-7: the two
    Newtons' stopping rules), the holding slider's 32 um creep within 1e-8 m (measured
    1.2e-9 m)."""
    (t, x, _), (t_d, x_d, _) = runs["unified"], runs["discrete"]
    np.testing.assert_allclose(t, t_d)
    travel = np.abs(x_d[0] - x_d[0, 0]).max()
    assert travel > 0.05
    assert np.abs((x[0] - x[0, 0]) - (x_d[0] - x_d[0, 0])).max() < 1e-6 * travel
    assert np.abs((x[1] - x[1, 0]) - (x_d[1] - x_d[1, 0])).max() < 1e-8


MU_S, MU_K = 0.5, 0.3
HOLD, SLIDE = 0.9 * MU_S, 1.02 * MU_S
"""tan(alpha) of the holding and the sliding world. Holding at 0.9 mu_s, not the discrete
engine's 0.98 mu_s (whose validation starts from the static solve): after this module's settling
the contact still rings (+-5 % of the normal force), and at 0.98 mu_s the slider breaks loose
in both engines."""


@pytest.fixture(scope="module")
def static_runs():
    """mu_s = 0.5, mu_k = 0.3 at tan(alpha) = HOLD and SLIDE, in both engines."""
    return {engine: incline(engine, (HOLD, SLIDE), MU_S, MU_K)
            for engine in ("unified", "discrete")}


def test_static_friction_between_rods_holds_below_the_angle_and_slides_above(static_runs):
    """At tan(alpha) = 0.9 mu_s the slider holds and creeps where the regularized static law
    balances the slope, mu_s tanh(K_f w / 2) = tan(alpha): w = 2 artanh(0.9) / K_f =
    1.96e-4 m/s (K_f = 15 / v_s); its mean speed over the 0.3 s within 5 % of that (measured
    +1.7 %, the settling included; with kinetic friction only it would slide 6 cm). At
    1.02 mu_s it slides with a = g (sin(alpha) - mu_k cos(alpha)) within 1e-3 (measured 3.0e-4:
    the ringing contact). The static excess is lagged on the last accepted step's slip,
    computed from implicit Euler's base state (softmech.kernels.der_edge_contact)."""
    t, x, v = static_runs["unified"]
    creep = 2 * np.arctanh(HOLD / MU_S) / (15.0 / 1e-3)
    assert abs(np.ptp(x[0]) / (creep * t[-1]) - 1.0) < 0.05, (np.ptp(x[0]), creep * t[-1])
    window = t >= 0.1
    slope = float(np.polyfit(t[window], v[1, window], 1)[0])
    alpha = np.arctan(SLIDE)
    expected = G * (np.sin(alpha) - MU_K * np.cos(alpha))
    assert abs(slope / expected - 1.0) < 1e-3, (slope, expected)


def test_static_friction_between_rods_equals_the_discrete_engines(static_runs):
    """The kind's lagged slip (from the base state) against the discrete engine's (kept at its
    converged iterate): the holding slider's 60 um creep within 5e-7 m (measured 3.7e-7 since
    the watchdog line search of 2026-12-01, 5.5e-8 before: an offset that forms in the first
    steps of settling, where the static excess is lagged on each step's slip, so the two
    Newtons' different iterates and stopping points carry over to the path), the
    sliding one's acceleration within 1e-4 relative (measured 3e-6) and its travel within
    5e-3 of its 8 cm (measured 2.6e-3 since the line search, 9.4e-4 before: a speed offset
    from the onset of sliding, where the static excess falls steeply with the slip and the
    two Newtons' iterates and stopping rules shift it)."""
    (t, x, v), (_, x_d, v_d) = static_runs["unified"], static_runs["discrete"]
    assert np.abs((x[0] - x[0, 0]) - (x_d[0] - x_d[0, 0])).max() < 5e-7
    travel = np.abs(x_d[1] - x_d[1, 0]).max()
    assert travel > 0.05
    assert np.abs((x[1] - x[1, 0]) - (x_d[1] - x_d[1, 0])).max() < 5e-3 * travel
    window = t >= 0.1
    slope, slope_d = (float(np.polyfit(t[window], vel[1, window], 1)[0]) for vel in (v, v_d))
    assert abs(slope / slope_d - 1.0) < 1e-4, (slope, slope_d)
