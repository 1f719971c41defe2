"""RotaryInertiaScaling: J -> k J raises the explicit step of thin rods, limited by an element's
rotation against shear (omega^2 = 2 S_aa l^ / J_b, softmech.stability), by sqrt(k), and changes
the bending dynamics only through the rotary inertia: for a Rayleigh beam (Timoshenko, Vibration
Problems in Engineering, 1955; Rayleigh, Theory of Sound) a bending wave of wavenumber q has
omega^2 = E I q^4 / (rho A + k rho I q^2), so the period grows by ~ (k - 1) (r q)^2 / 8 relative.
For a cantilever's first mode q ~ beta = 1.8751 / L. Statics do not depend on J at all.
Tolerance of the period change: 50 % of the prediction (the mode is not a single wavenumber; a
change of the wrong sign or 3x too large fails); of the unscaled period against Euler-Bernoulli,
5e-3 (discretization and shear of 40 elements).
"""
import numpy as np
import pytest

import softmech as sm

L, R, E, RHO, N = 0.1, 0.5e-3, 1e6, 1000.0, 40


def cantilever(k):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=L, n_elems=N, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.Clamp(rod, "first"))
    if k != 1.0:
        scene.add(sm.RotaryInertiaScaling(rod, k))
    return scene


def test_time_step_limit_grows_by_sqrt_k_while_rotation_limits():
    limits = [cantilever(k).compile(dt=1e-9).time_step_limit()[0] for k in (1.0, 4.0, 100.0)]
    assert limits[1] / limits[0] == pytest.approx(2.0, rel=1e-12)    # rotation still limits
    stretch = 0.9 * 2.0 / np.sqrt(4.0 * E / (RHO * (L / N) ** 2))     # then stretch limits
    assert limits[2] == pytest.approx(stretch, rel=1e-12)


def test_cantilever_period_changes_by_the_rayleigh_correction():
    beta = 1.8751 / L
    periods = {}
    for k in (1.0, 100.0):
        sim = cantilever(k).compile(dt=0.5 * cantilever(k).compile(dt=1e-9).time_step_limit()[0],
                                    strict=True)
        s = np.linspace(0, L, N + 1)
        b = beta * s                                   # the first mode's shape (Rayleigh)
        shape = np.cosh(b) - np.cos(b) - 0.7341 * (np.sinh(b) - np.sin(b))
        sim.set_state(velocities=np.outer(1e-4 * shape / shape[-1], [0, 1, 0]))
        out = sim.run(9.5, record=sm.Every(5e-4, ("rod.positions",)))
        y, t = out["rod.positions"][0, :, -1, 1], out["time"]
        i = np.nonzero((y[:-1] < 0) & (y[1:] >= 0))[0]
        crossings = t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i])
        periods[k] = np.diff(crossings).mean()
    euler_bernoulli = 2 * np.pi / (beta**2 * np.sqrt(E * R**2 / (4 * RHO)))
    assert periods[1.0] == pytest.approx(euler_bernoulli, rel=5e-3)   # discretization, shear
    predicted = 99.0 * (R * beta) ** 2 / 8
    assert periods[100.0] / periods[1.0] - 1 == pytest.approx(predicted, rel=0.5), periods


def test_rotary_inertia_scaling_rejects_factors_below_one():
    with pytest.raises(ValueError, match="rotary_inertia_scaling.factor = 0.5 is not allowed"):
        sm.RotaryInertiaScaling("rod", 0.5)
