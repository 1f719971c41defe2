"""The explicit stability estimate of discrete rods in the unified engine
(softmech.der_stability) and the check that uses it (Simulation.check_time_step): against the
exact limit 2 / omega_max of the linearized discrete rod, the damped limit 2 m / c, and the
warning / strict error of an explicit scheme above it. No step is taken (nothing compiled)."""
import math
import warnings

import numpy as np
import pytest

import softmech as sm
from softmech.der_stability import der_time_step_limit
from softmech.stability import SAFETY
from softmech.validation.der import stability_limit

L, R, RHO, E, N = 0.2, 2e-3, 1200.0, 1e6, 10


def rod_scene(*, radius=R, n=N, damping=None):
    scene = sm.Scene()
    rod = scene.add_der_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                            n_elems=n, radius=radius, density=RHO, youngs_modulus=E,
                            normal=(0, 0, 1))
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    if damping is not None:
        scene.add(sm.LinearDamping(rod, damping))
    return scene, rod


def params(rod):
    return {"youngs_modulus": np.array([rod.youngs_modulus]),
            "shear_modulus": np.array([rod.shear_modulus])}


@pytest.mark.parametrize("radius, n", [(2e-3, 10), (2e-2, 20)])
def test_bound_is_below_the_exact_limit_and_within_one_percent(radius, n):
    """Exact limit: 2 / omega_max of the clamped rod linearized at rest (K v = omega^2 M v,
    softmech.validation.der.stability_limit on the discrete engine's analytic Jacobian). The
    Gershgorin bound is an upper bound on omega_max, so the bound is below the exact limit,
    and for a straight rod nearly equal to it: measured 0.9965 of it for the slender rod
    (stretching limits, l / r = 10), 0.9938 for the stubby one (l / r = 0.5: bending limits);
    the check then takes SAFETY = 0.9 of it."""
    scene, rod = rod_scene(radius=radius, n=n)
    estimate = float(der_time_step_limit(rod, params(rod))[0])
    exact = stability_limit(scene.compile(dt=1e-4, engine="discrete"))
    assert 0.99 < estimate / exact < 1.0, (estimate, exact)


def test_uniform_rod_limits_are_the_closed_forms():
    """Slender rod: dt = l sqrt(rho / E) (stretching, softmech.der_stability); a heavily damped
    one: dt -> 2 m_i / (eta dL_i) = 2 rho A / eta on every node (the limit of
    dv/dt = -(c / m) v), to O(omega m / c) = 4e-4 here."""
    _, rod = rod_scene()
    l = L / N
    dt = float(der_time_step_limit(rod, params(rod))[0])
    assert math.isclose(dt, l * math.sqrt(RHO / E), rel_tol=1e-12)
    eta = 1e4
    c = eta * rod.node_lengths()[None]
    damped = float(der_time_step_limit(rod, params(rod), c)[0])
    expected = 2 * RHO * math.pi * R**2 / eta
    assert abs(damped / expected - 1) < 1e-3, (damped, expected)


def test_explicit_scheme_above_the_estimate_warns_and_strict_raises():
    """Verlet at 2x the estimate (SAFETY times the damped rod's bound, smaller than the
    undamped one): a RuntimeWarning naming dt and the limit; strict=True a ValueError;
    implicit Euler at the same dt: neither."""
    scene, rod = rod_scene(damping=5.0)
    c = 5.0 * rod.node_lengths()[None]
    limit = SAFETY * float(der_time_step_limit(rod, params(rod), c)[0])
    assert limit < SAFETY * float(der_time_step_limit(rod, params(rod))[0])
    dt = 2 * limit
    with pytest.warns(RuntimeWarning, match=f"dt = {dt:g} s is above the estimated stability "
                                            f"limit {limit:.3g} s"):
        sim = scene.compile(dt=dt, engine="unified", scheme="verlet")
    assert math.isclose(float(sim.time_step_limit()[0]), limit, rel_tol=1e-12)
    with pytest.raises(ValueError, match=f"use dt <= {limit:.3g} s"):
        scene.compile(dt=dt, engine="unified", scheme="verlet", strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scene.compile(dt=dt, engine="unified", scheme="implicit_euler")
        scene.compile(dt=0.5 * limit, engine="unified", scheme="verlet", strict=True)


def test_rotational_damping_of_a_discrete_rod_is_still_refused():
    scene, rod = rod_scene()
    with pytest.raises(ValueError, match="rotational_coefficient = 1.0 is not allowed on "
                                         "discrete rod 'r'"):
        scene.add(sm.LinearDamping(rod, 1.0, rotational_coefficient=1.0))
