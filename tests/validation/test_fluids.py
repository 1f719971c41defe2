"""Buoyancy, quadratic drag and added mass (softmech.terms.fluids; Renda et al., IJRR 2018,
eqs. 10-13, 19-21) against closed forms.

Sinking under gravity g with weight-minus-buoyancy W' = (m - m_f) g, drag k v^2 and inertia
m + m_a (per unit length for a rod), starting at rest: (m + m_a) dv/dt = W' - k v^2, so

    v(t) = v_T tanh(t / tau),   v_T = sqrt(W' / k),   tau = v_T (m + m_a) / W'.

Rod (Renda eq. 11, D = (C_n r, C_n r, pi/2 C_t r)): horizontal, k = rho_f C_n r and m_a = B
rho_f A (added mass across the axis); vertical, k = rho_f pi/2 C_t r and m_a = 0 (Renda's F_b
has no axial added mass). Rigid sphere (eq. 20, 21): k = rho_f C_r / 2, m_a = C_a rho_f V.
Tolerances: the terminal speed is the fixed point of the discrete scheme too (1e-9 relative
after 12 tau); at t = tau the explicit step's error, first order in dt for velocity-dependent
forces, is ~dt / tau (measured 2.4e-4 relative at dt = tau / 1000; tolerance 1e-3). Without the added
mass tau shrinks by a factor 1.5 (rod) / 1.25 (sphere): far outside the tolerance.
"""
import numpy as np
import pytest

import softmech as sm

from softmech.validation.fluids import ADDED as B
from softmech.validation.fluids import RHO_F, G, sinking_rod, sinking_rod_speeds, tanh_law


@pytest.mark.parametrize("direction", ["across", "along"])
def test_sinking_rod_follows_the_closed_form(direction):
    """softmech.validation.fluids.sinking_rod_speeds (the case sinking_rod_with_added_mass is
    the "across" one): v(tau) = v_T tanh(1) to 1e-3, v_T to 1e-9 at 12 tau."""
    early, late, v_t, _ = sinking_rod_speeds(direction)
    np.testing.assert_allclose(early, v_t * np.tanh(1.0), rtol=1e-3)
    np.testing.assert_allclose(late, v_t, rtol=1e-9)


def test_neutrally_buoyant_bodies_stay_put():
    """rho = rho_f: gravity and buoyancy cancel exactly (the same node shares of the same
    volumes), so nothing moves (tolerance: round-off of the elastic forces of a straight rod in
    its rest state, 1e-15 m); a denser copy sinks (the test can fail)."""
    for rho, moves in ((RHO_F, False), (1.01 * RHO_F, True)):
        scene = sinking_rod((1, 0, 1), rho=rho)
        ball = scene.add_sphere(name="ball", position=(1, 0, 0), radius=0.05, density=rho)
        scene.add(sm.QuadraticDrag(ball, coefficient=0.47 * np.pi * 0.05**2, fluid_density=RHO_F,
                                   name="rigid_quadratic_drag"))
        scene.add(sm.AddedMass(ball, 0.5, fluid_density=RHO_F, name="rigid_added_mass"))
        sim = scene.compile(dt=1e-4, strict=True)
        x0 = sim.get_state("rod")["positions"]
        sim.run(0.2)
        for name, start in (("rod", x0), ("ball", [[[1.0, 0, 0]]])):
            dx = np.abs(sim.get_state(name)["positions"] - start).max()
            assert (dx > 1e-6) if moves else (dx < 1e-15), (name, dx)


def test_sinking_sphere_follows_the_closed_form():
    rho, R, C_r, C_a = 3000.0, 0.02, 0.47 * np.pi * 0.02**2, 0.5
    V = 4 / 3 * np.pi * R**3
    v_t, tau = tanh_law((rho - RHO_F) * V * G, 0.5 * RHO_F * C_r, (rho + C_a * RHO_F) * V)
    scene = sm.Scene()
    ball = scene.add_sphere(name="ball", position=(0, 0, 0), radius=R, density=rho)
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.Buoyancy(RHO_F))
    scene.add(sm.QuadraticDrag(ball, coefficient=C_r, fluid_density=RHO_F,
                               name="rigid_quadratic_drag"))
    scene.add(sm.AddedMass(ball, C_a, fluid_density=RHO_F, name="rigid_added_mass"))
    dt = tau / 1000
    sim = scene.compile(dt=dt, strict=True)
    sim.run(1000 * dt)
    np.testing.assert_allclose(sim.get_state("ball")["velocities"][0, 0],
                               [0, 0, -v_t * np.tanh(1.0)], rtol=1e-3, atol=1e-12)
    sim.run(11000 * dt)
    np.testing.assert_allclose(sim.get_state("ball")["velocities"][0, 0, 2], -v_t, rtol=1e-9)


def crossing_period(time, y):
    """Mean period [s] from the upward zero crossings of y(t) (linear interpolation)."""
    i = np.nonzero((y[:-1] < 0) & (y[1:] >= 0))[0]
    t = time[i] - y[i] * (time[i + 1] - time[i]) / (y[i + 1] - y[i])
    return np.diff(t).mean()


def test_sphere_on_a_spring_in_water():
    """A sphere held by a spring k (a SphericalJoint to a fixed body): T = 2 pi sqrt((m + m_a) /
    k), m_a = C_a rho_f V (potential flow: C_a = 1/2). Tolerance 1e-3 relative: the period error
    of position Verlet, (omega dt)^2 / 24 ~ 2e-6 here, and the sampling of the zero crossings."""
    rho, R, k = 1500.0, 0.02, 50.0
    V = 4 / 3 * np.pi * R**3
    periods = {}
    for C_a in (0.0, 0.5):
        scene = sm.Scene()
        ball = scene.add_sphere(name="ball", position=(0, 0, 0), radius=R, density=rho,
                                velocity=(0, 0.01, 0))
        scene.add_sphere(name="post", position=(0, 0, 0), radius=R, density=rho, fixed=True)
        scene.add(sm.SphericalJoint((ball, "attach"), ("post", (0, 0, 0)), stiffness=k))
        scene.add(sm.AddedMass(ball, C_a, fluid_density=RHO_F, name="rigid_added_mass"))
        T = 2 * np.pi * np.sqrt((rho + C_a * RHO_F) * V / k)
        sim = scene.compile(dt=T / 2000, strict=True)
        out = sim.run(3.2 * T, record=sm.Every(T / 2000, ("ball.positions",)))
        periods[C_a] = crossing_period(out["time"], out["ball.positions"][0, :, 0, 1])
        np.testing.assert_allclose(periods[C_a], T, rtol=1e-3)
    assert periods[0.5] / periods[0.0] == pytest.approx(np.sqrt(1 + 0.5 * RHO_F / rho), rel=1e-3)


def mode_one(s, L):
    """First bending mode of a clamped-free beam, beta L = 1.8751 (Rayleigh, Theory of Sound)."""
    b, sigma = 1.8751 / L, 0.7341
    return np.cosh(b * s) - np.cos(b * s) - sigma * (np.sinh(b * s) - np.sin(b * s))


def test_cantilever_in_water_vibrates_slower_by_the_added_mass():
    """A clamped rod (its own spring) vibrating in its first mode across its axis: the added
    mass B rho_f A per unit length adds to rho A, so T_water / T_air = sqrt(1 + B rho_f / rho)
    (the classical result for submerged beams, e.g. Blevins, Formulas for Natural Frequency and
    Mode Shape, 1979, ch. 14). The same discretization in both runs: its error cancels in the
    ratio except through the rotary inertia rho I of the sections, which the added mass does not
    scale (Renda's model; relative (beta r)^2 / 4 ~ 5e-5 here). Tolerance 2e-3: the zero-crossing
    interpolation and the higher modes of the initial velocity."""
    L, r, rho, n = 0.2, 0.005, 1000.0, 20
    periods = {}
    for coefficient in (0.0, B):
        scene = sm.Scene()
        rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                     length=L, n_elems=n, radius=r, density=rho,
                                     youngs_modulus=1e6)
        scene.add(sm.Clamp(rod, "first"))
        scene.add(sm.AddedMass(rod, coefficient, fluid_density=RHO_F))
        sim = scene.compile(dt=5e-5, strict=True)
        s = np.linspace(0, L, n + 1)
        sim.set_state("rod", velocities=np.outer(1e-3 * mode_one(s, L) / mode_one(L, L), [0, 1, 0]))
        out = sim.run(3.0, record=sm.Every(2e-4, ("rod.positions",)))
        periods[coefficient] = crossing_period(out["time"], out["rod.positions"][0, :, -1, 1])
    ratio = periods[B] / periods[0.0]
    assert ratio == pytest.approx(np.sqrt(1 + B * RHO_F / rho), rel=2e-3), (ratio, periods)


def test_rod_and_fluid_momentum_is_conserved():
    """A free, bent, spinning rod with added mass and no external force: the momentum of rod and
    entrained fluid, P = sum_i (m_i v_i + m_a,i (I - t_i t_i^T) v_i), is constant (Renda eq. 13:
    the added mass is d/dt of the fluid's momentum, including the turning of t). Tolerance:
    2e-5 of the initial |P| after 2000 steps: the drift is first order in dt (a velocity-
    dependent force in the kick), measured 6.1e-6, 3.1e-6, 1.5e-6 at dt = 2e-5, 1e-5, 5e-6;
    leaving out the -(dM_a/dt) v force changes P by 5.5e-2 |P| here."""
    scene = sm.Scene()
    s = np.linspace(0, 0.5, 21)
    centerline = np.stack([s, 0.05 * np.sin(2 * np.pi * s / 0.5), 0 * s], axis=1)
    rod = scene.add_cosserat_rod(centerline=centerline, normal=(0, 0, 1), radius=0.01,
                                 density=1200.0, youngs_modulus=1e5)
    scene.add(sm.AddedMass(rod, 1.0, fluid_density=RHO_F))
    sim = scene.compile(dt=2e-5, strict=True)
    rng = np.random.default_rng(5)
    x = sim.get_state()["positions"][0]
    sim.set_state(velocities=np.cross([0, 0, 3.0], x - x.mean(axis=0)) + [0.2, 0.1, 0]
                  + rng.normal(scale=0.02, size=x.shape))
    engine = sim._engine()
    m = engine.ctx.discrete["rod"]["node_mass"][0]
    m_a = engine.ctx.added_mass["rod"][0]

    def momentum():
        st = sim.get_state()
        x, v = st["positions"][0], st["velocities"][0]
        chord = x[np.minimum(np.arange(len(x)) + 1, len(x) - 1)] - x[np.maximum(np.arange(len(x)) - 1, 0)]
        t = chord / np.linalg.norm(chord, axis=1)[:, None]
        normal_v = v - np.sum(v * t, axis=1)[:, None] * t
        return (m[:, None] * v + m_a[:, None] * normal_v).sum(axis=0)

    p0 = momentum()
    sim.step(2000)
    np.testing.assert_allclose(momentum(), p0, atol=2e-5 * np.linalg.norm(p0))


def test_fluid_terms_reject_bad_parameters():
    for make, field in ((lambda: sm.Buoyancy(-1.0), "buoyancy.fluid_density"),
                        (lambda: sm.QuadraticDrag("rod", -1.0), "quadratic_drag.normal"),
                        (lambda: sm.QuadraticDrag("rod", 1.0, float("nan")), "quadratic_drag.tangential"),
                        (lambda: sm.AddedMass("rod", 1.0, fluid_density=0.0), "added_mass.fluid_density"),
                        (lambda: sm.QuadraticDrag("ball", coefficient=-0.1,
                                                  name="rigid_quadratic_drag"), "rigid_quadratic_drag.coefficient"),
                        (lambda: sm.AddedMass("ball", -0.5, name="rigid_added_mass"), "rigid_added_mass.coefficient")):
        with pytest.raises(ValueError, match=field.replace(".", r"\.")):
            make()
    scene = sm.Scene()
    scene.add_cosserat_ring(name="ring", ring_radius=0.2, n_elems=12, radius=0.01, density=1000.0,
                            youngs_modulus=1e6)
    scene.add(sm.AddedMass("ring"))
    with pytest.raises(ValueError, match="added_mass.body = 'ring' is not allowed: added mass needs an open rod"):
        scene.compile(dt=1e-5)
    scene = sm.Scene()
    scene.add_rigid_body(name="rock", position=(0, 0, 0), mass=1.0, inertia=np.eye(3))
    scene.add(sm.Buoyancy())
    with pytest.raises(ValueError, match="buoyancy: rigid body 'rock' is a general body with no volume"):
        scene.compile(dt=1e-5)
    scene = sinking_rod((1, 0, 0))
    sim = scene.compile(worlds=2, dt=1e-5)
    sim.params["buoyancy.fluid_density"] = np.array([1000.0, -1.0])
    with pytest.raises(ValueError, match=r"params\['buoyancy.fluid_density'\] has entries <= 0"):
        sim.step(1)
