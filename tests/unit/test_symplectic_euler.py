"""Symplectic Euler on the unified engine (softmech.integrators.explicit): kick, then drift,
for every body kind, the explicit comparison scheme that only the discrete engine had."""
import numpy as np
import pytest

import softmech as sm

G = 9.81


def test_every_body_kind_falls_by_the_scheme_s_recurrence():
    """Under gravity alone, v_{n+1} = v_n - g h, x_{n+1} = x_n + h v_{n+1} (Hairer, Lubich and
    Wanner, Geometric Numerical Integration, sec. I.1.2), so after n steps every node and body
    has fallen g h^2 n (n + 1) / 2, not position Verlet's g (n h)^2 / 2: a Cosserat rod, a
    rigid sphere and a discrete rod stepped together. Tolerance 1e-12 m: round-off of ~1e-3 m
    positions (the rods' internal forces vanish but for round-off of a uniform translation)."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=0.1, n_elems=4, radius=5e-3, density=1000.0,
                           youngs_modulus=1e5)
    scene.add_sphere(name="ball", position=(0, 0.2, 0), radius=0.01, density=1000.0)
    scene.add_der_rod(name="whip", start=(0, 0.4, 0), direction=(1, 0, 0), length=0.1,
                      n_elems=4, radius=5e-3, density=1000.0, youngs_modulus=1e5,
                      normal=(0, 0, 1))
    scene.add(sm.Gravity())
    h, n = 1e-4, 20
    sim = scene.compile(dt=h, scheme="symplectic_euler")
    assert type(sim) is sm.Simulation
    start = {b: sim.get_state(b)["positions"][0, ..., 2].copy() for b in ("rod", "ball", "whip")}
    sim.run(n * h)
    for body, z0 in start.items():
        np.testing.assert_allclose(sim.get_state(body)["positions"][0, ..., 2] - z0,
                                   -G * h * h * n * (n + 1) / 2, rtol=0, atol=1e-12,
                                   err_msg=body)


def test_a_clamped_discrete_rod_steps_as_on_the_discrete_engine():
    """The same scheme and the same forces on both engines: a clamped discrete rod bending
    under gravity, 500 steps (it moves at ~0.1 m/s), the discrete engine's symplectic Euler
    (softmech.implicit.newton.ImplicitStepper.explicit_step) against the unified engine's.
    Tolerance: 1e-12 m and 1e-9 m/s, round-off of two implementations of the forces (measured
    1e-19 m and 1.4e-17 m/s); a different scheme (position Verlet) is 1.0e-6 m away."""
    def run(engine, scheme="symplectic_euler"):
        scene = sm.Scene()
        scene.add_der_rod(name="whip", start=(0, 0, 0), direction=(1, 0, 0), length=0.1,
                          n_elems=6, radius=5e-3, density=1000.0, youngs_modulus=1e5,
                          normal=(0, 0, 1))
        scene.add(sm.FixNodes("whip", nodes=[0, 1], angles=[0], name="clamp"))
        scene.add(sm.Gravity())
        sim = scene.compile(dt=2e-5, scheme=scheme, engine=engine)
        sim.run(0.01)
        return sim.get_state("whip")

    discrete, unified = run("discrete"), run("unified")
    assert np.abs(unified["velocities"]).max() > 0.05
    np.testing.assert_allclose(unified["positions"], discrete["positions"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(unified["velocities"], discrete["velocities"], rtol=0, atol=1e-9)
    verlet = run("unified", "verlet")
    assert np.abs(verlet["positions"] - discrete["positions"]).max() > 1e-7


def test_a_scheme_outside_the_engine_s_is_refused_by_name():
    scene = sm.Scene()
    scene.add_sphere(name="ball", position=(0, 0, 0), radius=0.01, density=1000.0)
    with pytest.raises(ValueError, match="scheme = 'euler'"):
        scene.compile(dt=1e-3, scheme="euler")
