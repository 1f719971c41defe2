"""A continuous-torque swimmer in Stokes flow (the snake's muscle torque wave, slender-body drag
in place of friction) against Lighthill's small-amplitude resistive-force result.

With no external force but the drag, the x-force on the whole filament vanishes; to second order
in the slope y_s of a filament lying along x (tangent t = (1, y_s)), the drag per unit length
along x is -c_t x_t + (c_n - c_t) y_t y_s, so the swimming speed is (Lighthill, Mathematical
Biofluiddynamics, SIAM 1975, ch. 3; Gray & Hancock, J. Exp. Biol. 32:802, 1955)

    U = (c_n / c_t - 1) (1 / L) integral <y_t y_s> ds          (<> the average over a period)

which for a travelling wave y = b sin(k s - omega t) is Taylor's and Gray & Hancock's
U = (c_n / c_t - 1) c (b k)^2 / 2, c = omega / k. Here the wave is the one the muscle torques
and the filament's elasticity produce (its amplitude grows towards the tail), so the integral is
taken over the simulated midline and compared with the simulated mean speed of the centre over
periods 3-5 (measured 2.93e-5 m/s against 3.01e-5 m/s, -2.8 %, max |y_s| = 0.10). Tolerance 5 %:
the O(slope^2) terms the formula drops (~1 %), the
inertia (rho A / c_n = 1e-3 of the period) and the sampling of the period average (40 samples).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.terms.drag import slender_body_coefficients

L, R, MU, PERIOD = 0.1, 1e-3, 1.0, 1.0


def test_torque_wave_swimmer_matches_lighthill_small_amplitude_speed():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=L, n_elems=50, radius=R, density=1000.0,
                                 youngs_modulus=1e6)
    scene.add(sm.SlenderBodyDrag(rod, MU))
    scene.add(sm.MuscleTorqueWave(rod, (0, 4e-6, 4e-6, 4e-6, 0), wavelength=L, period=PERIOD,
                                  ramp_time=PERIOD))
    sim = scene.compile(dt=2e-5, strict=True)
    out = sim.run(5 * PERIOD, record=sm.Every(PERIOD / 40, ("rod.com", "rod.positions",
                                                            "rod.velocities")))
    t = out["time"]
    window = (t >= 3 * PERIOD - 1e-9) & (t < 5 * PERIOD - 1e-9)
    i0, i1 = np.flatnonzero(window)[[0, -1]] + [0, 1]
    com = out["rod.com"][0]
    speed = (com[i1, 0] - com[i0, 0]) / (t[i1] - t[i0])
    x = out["rod.positions"][0][window]
    v = out["rod.velocities"][0][window]
    slope = np.gradient(x[..., 1], axis=1) / np.gradient(x[..., 0], axis=1)     # y_s
    dl = np.gradient(x[0, :, 0])                                               # node shares
    c_t, c_n = slender_body_coefficients(MU, L / R)
    predicted = (c_n / c_t - 1) * np.mean(np.sum(v[..., 1] * slope * dl, axis=1)) / L
    assert np.abs(slope).max() < 0.3                       # small amplitude
    assert abs(speed) > 1e-4 * L / PERIOD                  # it swims
    assert speed == pytest.approx(predicted, rel=5e-2), (speed, predicted, np.abs(slope).max())
