"""Discrete elastic rods as a body kind of the unified engine (softmech.simulation.Simulation,
Scene.compile(engine="unified")) against the discrete engine (softmech.implicit) and beam
theory: the same self-weight cantilever as tests/validation/test_der_rod.py
(softmech.validation.der: L = 1 m, r = 10 mm, n = 50, clamped at mid-edge 0)."""
import math

import numpy as np

from softmech.validation.der import cantilever, static_tip
from softmech.validation.discrete_rods import euler_bernoulli_sag

E = 1e10
"""delta / L = 5e-3: Euler-Bernoulli's small-deflection regime (geometric nonlinearity ~1e-5)."""


def test_cantilever_stepped_to_rest_matches_the_discrete_engine_and_euler_bernoulli():
    """The cantilever stepped from rest by implicit Euler in the unified engine (its colored
    finite-difference Jacobian, softmech.integrators.implicit) until it stops: backward Euler's
    numerical damping of a mode of frequency omega is |1 / (1 + i omega h)| per step; the first
    mode, omega_1 = 1.8751^2 sqrt(EI / (rho A L^4)) = 55.6 rad/s, loses a factor 0.34 per step
    of h = 0.05 s, so after 60 steps the motion is ~1e-28 of the initial sag.

    (a) Tip equal to the discrete engine's static solution (ImplicitSimulation.solve_static,
    the same discrete model: softmech.kernels.der_stretch, der_bend_twist) within 1e-7
    relative: both solve F(x) = 0 to Newton tolerances of ~1e-8 of an edge length (2e-10 m,
    4e-8 of the 5 mm sag).
    (b) delta = q L^4 / (8 E I) (Gere & Timoshenko, Mechanics of Materials, Table G-1 case 1)
    within 5e-4 relative, the discrete engine's tolerance in
    softmech.validation.discrete_rods.der_cantilever_euler_bernoulli (measured there -0.020 %,
    the second-order discretization error at n = 50)."""
    scene, _ = cantilever(E)
    sim = scene.compile(dt=0.05, engine="unified", scheme="implicit_euler")
    sim.step(60)
    state = sim.get_state("rod")
    tip = state["positions"][0, -1]
    assert np.abs(state["velocities"]).max() < 1e-12
    reference, _ = static_tip(E)
    assert abs(tip[2] / reference[2] - 1) < 1e-7, (tip, reference)
    assert abs(-tip[2] / euler_bernoulli_sag(E) - 1) < 5e-4
    assert math.isclose(tip[0], reference[0], rel_tol=1e-9)
