"""sm.LinearDamping and sm.NodeForce on the discrete-rod kind of the unified engine
(softmech.terms.der_loads, softmech.kernels.der_loads) against closed forms and the discrete
engine (engine="discrete", whose own bindings they call).

Damping (ref. 004 eq. 27): F_i = -eta dL_i v_i with the lumped mass m_i = rho A dL_i of a
uniform rod (softmech.bodies.der_rod: half of each adjacent edge's mass), so every node of a
translating rod obeys dv/dt = -k v with the same k = eta / (rho A), and the rod's elastic
forces stay zero (a rigid translation): the velocities stay uniform.
"""
import math

import numpy as np
import pytest

import softmech as sm
from softmech.validation.der import I as SECTION_I
from softmech.validation.der import L as CANTILEVER_L
from softmech.validation.der import cantilever

L, R, RHO, E, N = 0.2, 2e-3, 1200.0, 1e6, 10
K = 50.0                                    # eta / (rho A) [1/s]
ETA = K * RHO * math.pi * R**2              # [kg/(m s)]
V0 = np.array([0.1, 0.05, -0.02])           # [m/s]


def free_rod(scheme, dt, worlds=1):
    scene = sm.Scene()
    rod = scene.add_der_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), length=L,
                            n_elems=N, radius=R, density=RHO, youngs_modulus=E,
                            normal=(0, 0, 1))
    scene.add(sm.LinearDamping(rod, ETA))
    sim = scene.compile(dt=dt, worlds=worlds, engine="unified", scheme=scheme)
    sim.set_state("r", velocities=np.broadcast_to(V0, (N + 1, 3)))
    return sim, rod


def test_damped_translation_under_implicit_euler_is_the_exact_recurrence():
    """Backward Euler of dv/dt = -k v: v_n = v0 / (1 + h k)^n, x_n = x_{n-1} + h v_n, on every
    node (module docstring); h k = 0.5 in world 0 and, with its own coefficient
    (`damping.coefficient` per world), h k = 1 in world 1. To 1e-13 of v0 (measured 2e-14; an
    absolute round-off floor, so not relative to the decayed velocity, 1e-3 v0 in world 1 at
    the end): the residual is linear in v, so Newton with the finite-difference Jacobian (error
    ~1e-8 relative) reaches round-off in its second iteration."""
    h, factors = 0.01, np.array([1.0, 2.0])
    sim, rod = free_rod("implicit_euler", h, worlds=2)
    sim.params["damping.coefficient"] = ETA * factors
    x = np.broadcast_to(rod.positions, (2,) + rod.positions.shape)
    for n in range(1, 11):
        sim.step(1)
        s = sim.get_state("r")
        v = V0 / (1.0 + h * K * factors[:, None, None]) ** n       # (2, 1, 3)
        x = x + h * v
        error = np.abs(s["velocities"] - v).max()
        assert error < 1e-13 * np.abs(V0).max(), (n, error)
        assert np.abs(s["positions"] - x).max() < 1e-12 * L, n
        assert np.abs(s["twist_rates"]).max() < 1e-12


def test_damped_translation_under_verlet_decays_at_rate_k_to_first_order():
    """Position Verlet kicks with the force at the step's start velocity, so v_n = v0 (1 - h
    k)^n exactly -- to 1e-11 relative: the axial stretching forces of the edge lengths'
    round-off (EA x 1e-16 on nodes of 0.15 g) add up over the 200 steps (measured 4e-12;
    implicit Euler's single solves above stay at 1e-12) -- and the decay rate -ln(v_n / v0) / t =
    -ln(1 - h k) / h = k (1 + h k / 2 + O(h^2)): k within h k (h k = 5e-3: a first-order
    error, measured h k / 2)."""
    h, steps = 1e-4, 200
    sim, _ = free_rod("verlet", h)
    sim.step(steps)
    v = sim.get_state("r")["velocities"][0]
    expected = V0 * (1.0 - h * K) ** steps
    assert np.abs(v - expected).max() < 1e-11 * np.abs(V0).max()
    rate = -math.log(np.linalg.norm(v[0]) / np.linalg.norm(V0)) / (steps * h)
    assert abs(rate / K - 1) < h * K, rate


# -- a clamped, damped cantilever: world 0 sags under gravity, world 1 carries a tip force --------
E_CANTILEVER, EDGES = 1e10, 16
P = 1.0                 # tip force [N]: delta / L = 4e-3, Euler-Bernoulli's small-deflection regime
H, EARLY, REST = 0.02, 5, 80
PARAMS = {"gravity.acceleration": np.array([[0.0, 0.0, -9.81], [0.0, 0.0, 0.0]]),
          "node_force.force": np.array([[0.0, 0.0, 0.0], [0.0, 0.0, -P]])}


def cantilever_scene():
    """softmech.validation.der's cantilever (L = 1 m, r = 10 mm, clamped at mid-edge 0) with 16
    edges, damping eta = 10 kg/(m s) (first mode: zeta = eta / (2 rho A omega_1) ~ 0.3) and a
    tip force, both per world (PARAMS)."""
    scene, body = cantilever(E_CANTILEVER, n=EDGES)
    scene.add(sm.NodeForce(body, EDGES + 1, (0.0, 0.0, -P)))
    scene.add(sm.LinearDamping(body, 10.0))
    return scene


@pytest.fixture(scope="module")
def runs():
    """Both engines stepped EARLY steps of H from rest (the motion under way), then the unified
    one to REST steps (backward Euler and the damping take each mode down by >= 2x per step:
    ~1e-24 of the sag) and the discrete one's static solve (solve_static)."""
    scene = cantilever_scene()
    out = {}
    for engine in ("unified", "discrete"):
        sim = scene.compile(dt=H, worlds=2, engine=engine, scheme="implicit_euler")
        for key, value in PARAMS.items():
            sim.params[key] = value
        sim.step(EARLY)
        out[engine, "early"] = sim.get_state("rod")
        if engine == "unified":
            sim.step(REST - EARLY)
        else:
            sim.solve_static()
        out[engine, "rest"] = sim.get_state("rod")
    return out


def test_damped_sagging_cantilever_agrees_with_the_discrete_engine_while_it_moves(runs):
    """After 5 steps (0.1 s, about one period of the first mode: still moving), positions and
    velocities of both worlds equal the discrete engine's within Newton's tolerances: both stop
    at corrections ~1e-8 of an edge length (6e-10 m) per step, i.e. up to ~3e-9 m after 5
    steps against a motion of ~5 mm: 1e-6 of the largest displacement (measured 1e-8 and
    5e-8); the velocities (x_n - x_{n-1}) / h see that error divided by h = 0.02 s (up to
    1.5e-7 m/s against ~4e-3 m/s): 4e-5 of the largest (measured 6e-7 and 4e-6)."""
    a, b = runs["unified", "early"], runs["discrete", "early"]
    rest = cantilever_scene().compile(dt=H, engine="discrete")
    x0 = rest.get_state("rod")["positions"][0]
    for w in (0, 1):
        scale = np.abs(b["positions"][w] - x0).max()
        assert scale > 1e-4
        assert np.abs(a["positions"][w] - b["positions"][w]).max() < 1e-6 * scale, w
        assert np.abs(a["velocities"][w] - b["velocities"][w]).max() < \
            4e-5 * np.abs(b["velocities"][w]).max(), w


def test_tip_force_cantilever_at_rest_matches_the_static_solve_and_euler_bernoulli(runs):
    """World 1 (tip force P, no gravity) and world 0 (self-weight) stepped to rest: the tips
    equal the discrete engine's static equilibrium within 1e-7 relative (Newton tolerances of
    ~1e-8 of an edge length against a 4 mm sag, as in test_der_kind_cantilever.py; measured
    2e-15: both solve F(x) = 0 to convergence), and world 1's deflection is delta = P L^3 /
    (3 E I) (Gere & Timoshenko, Mechanics of Materials, Table G-1 case 4) within 2e-3: the
    discrete rod's turning angles sample the moment P (L - s) / EI at its Voronoi midpoints, a
    midpoint rule of the quadratic integrand of delta with relative error -l^2 / (4 L^2) =
    -9.2e-4 at 16 edges (l = L / 16.5; measured -9.4e-4); geometric nonlinearity ~ (delta /
    L)^2 = 2e-5."""
    a, b = runs["unified", "rest"], runs["discrete", "rest"]
    assert np.abs(a["velocities"]).max() < 1e-10
    for w in (0, 1):
        tip, ref = a["positions"][w, -1], b["positions"][w, -1]
        assert abs(tip[2] / ref[2] - 1) < 1e-7, (w, tip, ref)
    delta = -a["positions"][1, -1, 2]
    exact = P * CANTILEVER_L**3 / (3 * E_CANTILEVER * SECTION_I)
    assert abs(delta / exact - 1) < 2e-3, (delta, exact)
