"""sm.PointMass on the discrete-rod kind of the unified engine: a mass added to one node
(ref. 004 sec. 7.1, "modeled simply by increasing the mass at the node"), in the mass the
integrator divides by, the explicit stability estimate and the diagnostics
(softmech.packing.Assembly.der_node_mass); gravity, an acceleration field, then pulls the node
with its whole mass. Against closed forms and the discrete engine, whose layout adds the same
mass."""
import math

import numpy as np
import pytest

import softmech as sm
from softmech.validation.der import I as SECTION_I
from softmech.validation.der import L as CANTILEVER_L
from softmech.validation.der import Q as WEIGHT_PER_LENGTH
from softmech.validation.der import cantilever

L, R, RHO, E, N = 0.2, 2e-3, 1200.0, 1e6, 10
M = 0.05                            # [kg], ~17x the rod's 3.0e-3 kg
F = np.array([0.0, 2e-3, 1e-3])     # [N] on node 0


def free_rod(point_mass=True):
    scene = sm.Scene()
    rod = scene.add_der_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                            n_elems=N, radius=R, density=RHO, youngs_modulus=E,
                            normal=(0, 0, 1))
    scene.add(sm.NodeForce(rod, 0, F))
    if point_mass:
        scene.add(sm.PointMass(rod, N, M))
    return scene


def test_a_force_accelerates_the_rod_and_its_point_mass_together():
    """Position Verlet: each kick changes sum m_i v_i by h F exactly (the elastic forces are
    internal: they sum to zero), so after n steps the centre of mass moves at
    v = n h F / (m_rod + M) (Newton's second law for the whole body). To 1e-12 relative
    (round-off of 11 nodes over 2,000 steps; measured 1.6e-15); without the point mass in
    the integrator's or the diagnostics' mass the velocity would be 17x too large or the
    momentum wrong."""
    scene = free_rod()
    limit = float(scene.compile(dt=1e-6, engine="unified", scheme="verlet").time_step_limit()[0])
    h, n = 0.5 * limit, 2000
    sim = scene.compile(dt=h, engine="unified", scheme="verlet")
    sim.step(n)
    d = sim.diagnostics("r")
    rod_mass = RHO * math.pi * R**2 * L
    expected = n * h * F / (rod_mass + M)
    assert np.abs(d["com_velocity"][0] - expected).max() < 1e-12 * np.abs(expected).max()
    assert np.abs(d["linear_momentum"][0] - n * h * F).max() < 1e-12 * np.abs(n * h * F).max()


def test_the_stability_estimate_counts_the_point_mass():
    """A heavier node is a slower oscillator (omega_i^2 = k_i / m_i, softmech.der_stability):
    the simulation's limit is 0.9 (softmech.stability.SAFETY) of the bound computed with the
    tip's mass m_tip + M (to round-off), and not below the rod's without it."""
    from softmech.der_stability import der_time_step_limit
    from softmech.stability import SAFETY
    light = free_rod(point_mass=False).compile(dt=1e-6, engine="unified", scheme="verlet")
    heavy = free_rod().compile(dt=1e-6, engine="unified", scheme="verlet")
    rod, params = heavy._der("r"), heavy._engine().ctx.der_params["r"]
    mass = rod.node_mass.copy()
    mass[-1] += M
    expected = SAFETY * der_time_step_limit(rod, params, node_mass=mass[None, :])
    assert abs(heavy.time_step_limit()[0] / expected[0] - 1) < 1e-12
    assert heavy.time_step_limit()[0] >= light.time_step_limit()[0]


# -- a cantilever (L = 1 m, r = 10 mm, 16 edges, clamped at mid-edge 0) with a tip mass -----------
E_CANTILEVER, EDGES, TIP_MASS = 1e10, 16, 1.0 / 9.81      # the tip's weight: 1 N
H, REST = 0.02, 120


@pytest.fixture(scope="module")
def rest():
    """The unified engine stepped to rest (backward Euler and eta = 10 kg/(m s) take the first
    mode, omega ~ 48 rad/s with the tip mass, down by >= 1.4x per step: ~1e-17 of the sag
    after 120 steps) and the discrete engine's static solve."""
    out = {}
    for engine in ("unified", "discrete"):
        scene, body = cantilever(E_CANTILEVER, n=EDGES)
        scene.add(sm.PointMass(body, EDGES + 1, TIP_MASS))
        scene.add(sm.LinearDamping(body, 10.0))
        sim = scene.compile(dt=H, engine=engine, scheme="implicit_euler")
        if engine == "unified":
            sim.step(REST)
        else:
            sim.solve_static()
        out[engine] = sim.get_state("rod")
    return out


def test_a_tip_mass_bends_the_cantilever_as_euler_bernoulli(rest):
    """At rest the tip equals the discrete engine's static equilibrium within 1e-7 relative
    (Newton tolerances against a ~5 mm sag) and the deflection is that of a tip load
    W = M g plus the self-weight q: delta = W L^3 / (3 E I) + q L^4 / (8 E I) (Gere &
    Timoshenko, Mechanics of Materials, Table G-1 cases 1 and 4) within 2e-3: the discrete
    rod's error is second order in its edge length l (the tip load's part alone, a midpoint
    rule of the moment, -l^2 / (4 L^2) = -9.2e-4 at 16 edges, test_der_kind_loads.py;
    measured here -1.48e-3 at 16 edges and -4.4e-4 at 32, discrete engine, 2026-11-30), and
    geometric nonlinearity ~ (delta / L)^2 = 8e-5 (a 9.1 mm sag). Measured against the
    discrete engine: 1e-15."""
    a, b = rest["unified"], rest["discrete"]
    assert np.abs(a["velocities"]).max() < 1e-10
    tip, ref = a["positions"][0, -1], b["positions"][0, -1]
    assert abs(tip[2] / ref[2] - 1) < 1e-7, (tip, ref)
    EI = E_CANTILEVER * SECTION_I
    exact = (TIP_MASS * 9.81 * CANTILEVER_L**3 / (3 * EI)
             + WEIGHT_PER_LENGTH * CANTILEVER_L**4 / (8 * EI))
    assert abs(-tip[2] / exact - 1) < 2e-3, (tip, exact)
