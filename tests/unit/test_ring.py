"""Closed rods (rings): rest state, topology errors, and their two classical vibration modes.

Analytic references:
* breathing (uniform radial, n = 0) mode of a ring of radius R: omega^2 = E / (rho R^2)
  (Love, A Treatise on the Mathematical Theory of Elasticity, 4th ed., sec. 293). It is also exact
  for the discrete polygon: a radial displacement u stretches each element by 2 u sin(pi/n),
  the hoop tension E A u / R pulls the node back with 2 T sin(pi/n), and the node mass is
  rho A 2 R sin(pi/n), so the ratio is E / (rho R^2) for any n.
* in-plane inextensional flexural mode n (Hoppe 1871; Blevins, Formulas for Natural Frequency and
  Mode Shape, Table 9-1): omega_n^2 = E I / (rho A R^4) * n^2 (n^2 - 1)^2 / (n^2 + 1).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.validation.rings import (RING, ring_breathing_frequency, ring_flexural_frequency,
                                       ring_scene)

R = RING["ring_radius"]


def test_stress_free_ring_stays_at_rest():
    scene = ring_scene(40)
    sim = scene.compile(dt=1e-4)
    x0 = sim.get_state()["positions"].copy()
    sim.run(0.2)
    # round-off only: positions ~1 m, so 1e-14 m is a few ulps
    np.testing.assert_allclose(sim.get_state()["positions"], x0, rtol=0, atol=1e-14)


def test_ring_has_n_nodes_and_wraps():
    scene = ring_scene(12)
    ring = scene.rods[0]
    assert ring.n_nodes == 12 and ring.n_elems == 12 and ring.n_vor == 12
    np.testing.assert_allclose(ring.rest_lengths, 2 * R * np.sin(np.pi / 12), rtol=1e-12)
    # a stress-free ring: rest curvature 1/R about d1 (the ring axis) at every Voronoi domain
    np.testing.assert_allclose(np.linalg.norm(ring.rest_curvature, axis=1),
                               2 * np.pi / 12 / (2 * R * np.sin(np.pi / 12)), rtol=1e-12)


@pytest.mark.parametrize("term", [lambda: sm.Clamp("ring"), lambda: sm.EndLoad("ring", force=(1, 0, 0))])
def test_closed_rod_has_no_ends(term):
    scene = ring_scene(8)
    with pytest.raises(ValueError, match="closed rod has no ends"):
        scene.add(term())


def test_closed_needs_centerline():
    with pytest.raises(ValueError, match="closed"):
        sm.Scene().add_cosserat_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), length=1.0,
                                    n_elems=4, normal=(0, 0, 1), radius=0.1, density=1.0,
                                    youngs_modulus=1.0, closed=True)


def test_breathing_mode_frequency():
    """omega^2 = E / (rho R^2); tolerance 1e-3 (see validation.rings.ring_breathing_mode)."""
    omega, ref = ring_breathing_frequency()
    assert abs(omega / ref - 1) < 1e-3


@pytest.mark.parametrize("law", ["gazzola2018", "hyperelastic"])
def test_flexural_mode_n2_frequency(law):
    """Hoppe's omega_2^2 = 7.2 E I / (rho A R^4); 60 elements are 0.18 % low (measured);
    tolerance 1 %."""
    omega, ref = ring_flexural_frequency(60, law)
    assert abs(omega / ref - 1) < 1e-2


def _ring_energy_error(law, dt):
    scene = ring_scene(24, law)
    sim = scene.compile(dt=dt)
    rng = np.random.default_rng(0)
    sim.set_state(velocities=1e-3 * rng.standard_normal((24, 3)),
                  angular_velocities=1e-2 * rng.standard_normal((24, 3)))
    out = sim.run(2.0, record=sm.Every(seconds=0.05, fields=("total_energy",)))
    energy = out["total_energy"][0]
    assert np.all(np.isfinite(energy))
    return np.abs(energy / energy[0] - 1).max()


def test_perturbed_ring_conserves_energy():
    """Undamped hyperelastic ring (exactly variational, so its energy is the conserved quantity)
    with a random velocity field exciting all modes: position Verlet keeps the energy error bounded
    and O(dt^2). Measured 1.1e-4 at dt = 1e-4 (1/3 of the stability limit) and 2.5e-5 at 5e-5.
    Tolerances: 1e-4 at dt = 5e-5, and halving dt must cut the error by more than 3 (2nd order)."""
    coarse = _ring_energy_error("hyperelastic", 1e-4)
    fine = _ring_energy_error("hyperelastic", 5e-5)
    assert fine < 1e-4
    assert coarse / fine > 3.0
