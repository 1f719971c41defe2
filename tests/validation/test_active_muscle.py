"""Active muscle rods (softmech.terms.active_muscle) against their force-length curves.

Isometric test of Zhang et al., Nat. Commun. 10:4825 (2019), Fig. 1c: a muscle rod, one end
pinned, performs a maximal contraction (a = 1) against a constant end force F_set and settles at
the stretch eta* where every element's tension equals F_set:

    F_set = A^ eta^-p sigma_max (f_a(eta) + f_p(eta)) + E A^ (eta - 1) / eta

(the muscle's tension, softmech.kernels.active_muscle, plus the rod's own stretch force of the
"gazzola2018" law n = S sigma / e, Gazzola et al. 2018 eq. 2.9 with A = A^ / e). eta* is found
here from the curves alone (brentq) and compared with the rod's length L / L^ after the run.
"""
import numpy as np
import pytest

import softmech as sm
from softmech.packing import from_blocks
from softmech.terms.active_muscle import PASSIVE_FIT, THELEN_PASSIVE, ActiveMuscle

from softmech.validation.muscles import (AREA, CONTRACTED, E_ROD, F_MAX, L0, N_ELEMS, RADIUS,
                                         SIGMA_MAX, active_muscle_isometric_lengths, equilibrium,
                                         isometric_stretches, muscle_scene)


@pytest.mark.parametrize("incompressible", [True, False])
def test_isometric_equilibrium_lengths_follow_the_force_length_curves(incompressible):
    """At six points on both stable branches of the curve, to 1e-6 relative
    (softmech.validation.muscles.isometric_stretches; the case active_muscle_isometric_lengths
    is the incompressible one). Between the branches d T / d eta < 0: the descending limb is
    unstable, elements there do not settle uniformly (the sarcomere instability), so no point
    is placed there."""
    muscle, eta, eta_elem, want = isometric_stretches(incompressible)
    np.testing.assert_allclose(eta, want, rtol=1e-6)
    np.testing.assert_allclose(eta_elem, np.broadcast_to(want[:, None], eta_elem.shape), rtol=1e-6)
    if incompressible:
        record = active_muscle_isometric_lengths()
        assert record["passed"], record["detail"]
    # the area law matters: the two forms settle at different lengths for the same loads
    other = ActiveMuscle("m", SIGMA_MAX, incompressible=not incompressible)
    assert abs(equilibrium(other, 0.4 * F_MAX, CONTRACTED) / equilibrium(muscle, 0.4 * F_MAX, CONTRACTED) - 1) > 0.04


def test_cross_section_grows_as_the_muscle_shortens_and_volume_is_conserved():
    """A muscle contracting under a small load (activation ramped 0 -> 1 over 0.1 s): the
    section the force acts on, A = A^ / eta per element (Poisson 0.5), grows by the factor the
    length shrinks, so the volume sum_i A_i l_i stays A^ L^ throughout (tolerance 1e-9: it is
    exact per element up to round-off; the check is that the area the kernel's force uses is
    the one of the current stretch, which the tension at equilibrium confirms: F_set =
    sigma_max f_a(eta*) A^ / eta* + E A^ (eta* - 1) / eta*, to 1e-6: settled to round-off)."""
    muscle = ActiveMuscle("m", SIGMA_MAX, activation=lambda t: min(t / 0.1, 1.0),
                          times=np.linspace(0.0, 0.2, 21), name="muscle")
    sim = muscle_scene(muscle, np.array([0.2 * F_MAX]), np.array([1.0]))
    out = sim.run(duration=0.5, record=sm.Every(0.01, ("m.positions",)))
    x = out["m.positions"][0]                                    # (n_samples, n_nodes, 3)
    length = np.linalg.norm(np.diff(x, axis=1), axis=2)          # (n_samples, n_elems)
    eta = length / (L0 / N_ELEMS)
    area = muscle.section_area(eta, AREA)
    volume = np.sum(area * length, axis=1)
    assert eta.min() < 0.75                                      # it did contract
    np.testing.assert_allclose(volume, AREA * L0, rtol=1e-9)
    np.testing.assert_allclose(area[-1] / AREA, 1.0 / eta[-1])
    want = equilibrium(muscle, 0.2 * F_MAX, CONTRACTED)
    assert abs(eta[-1].mean() / want - 1) < 1e-6


def test_rigid_motions_give_no_force():
    """The muscle's force on a stretched, moving rod is the same force turned with the rod
    under a rigid rotation plus a rigid velocity field v = u + w x x (stretch and stretch rate
    unchanged): F(R x, u + w x R x) = R F(x, 0), to round-off (1e-12 relative)."""
    muscle = ActiveMuscle("m", SIGMA_MAX, damping=50.0, name="muscle")
    sim = muscle_scene(muscle, np.array([0.0]), np.array([1.0]))
    engine = sim._engine()
    rng = np.random.default_rng(4)
    x0 = sim.get_state("m")["positions"] * 1.1 + rng.normal(scale=1e-3, size=(1, N_ELEMS + 1, 3))

    mass = from_blocks(engine.bodies.node_mass, sim.lanes)[0][:, None]

    def muscle_force(x, v):
        """m (a_with - a_without) [N] per node, (n_nodes, 3): the muscle's force alone."""
        sim.set_state("m", positions=x, velocities=v)
        sim._evaluate(engine)
        with_it = from_blocks(engine.workspace.node_force, sim.lanes, (3,))[0].copy()
        sim._evaluate(engine, leave_out=("active_muscles",))
        return mass * (with_it - from_blocks(engine.workspace.node_force, sim.lanes, (3,))[0])

    base = muscle_force(x0, np.zeros_like(x0))
    assert np.abs(base).max() > 1e-3 * F_MAX                      # the muscle acts
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    R *= np.linalg.det(R)
    xr = x0[0] @ R.T
    v = rng.normal(size=3) + np.cross(rng.normal(size=3), xr)
    np.testing.assert_allclose(muscle_force(xr[None], v[None]), base @ R.T, atol=1e-12 * F_MAX)
    assert np.abs(np.sum(base, axis=0)).max() < 1e-12 * F_MAX     # no net force


def test_strain_rate_damping_never_adds_energy():
    """With no active or passive stress the muscle's force is the strain-rate damping alone,
    T = A zeta d(eta)/dt along each edge: on random states its power sum_nodes F . v =
    -sum_elems T dl/dt = -sum_elems A zeta l^ (d(eta)/dt)^2 is < 0, and equals that sum (to 1e-9
    relative)."""
    muscle = ActiveMuscle("m", 0.0, damping=50.0, passive_coefficients=(), name="muscle")
    sim = muscle_scene(muscle, np.array([0.0]), np.array([1.0]))
    engine = sim._engine()
    mass = from_blocks(engine.bodies.node_mass, sim.lanes)[0][:, None]
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = sim.get_state("m")["positions"] + rng.normal(scale=2e-3, size=(1, N_ELEMS + 1, 3))
        v = rng.normal(scale=0.1, size=x.shape)
        sim.set_state("m", positions=x, velocities=v)
        sim._evaluate(engine)
        with_it = from_blocks(engine.workspace.node_force, sim.lanes, (3,))[0].copy()
        sim._evaluate(engine, leave_out=("active_muscles",))
        force = mass * (with_it - from_blocks(engine.workspace.node_force, sim.lanes, (3,))[0])
        power = np.sum(force * v[0])
        dx, dv = np.diff(x[0], axis=0), np.diff(v[0], axis=0)
        l_rest = L0 / N_ELEMS
        rate = np.sum(dx * dv, axis=1) / np.linalg.norm(dx, axis=1) / l_rest
        eta = np.linalg.norm(dx, axis=1) / l_rest
        want = -np.sum(AREA / eta * 50.0 * l_rest * rate ** 2)   # A = A^ / eta, dl/dt = l^ rate
        assert power < 0
        assert abs(power / want - 1) < 1e-9, (power, want)


def test_default_passive_fit_matches_thelens_curve():
    """PASSIVE_FIT is the least-squares fit of Thelen (2003) eq. 2, (exp(k eps / eps0) - 1) /
    (exp(k) - 1), k = 4, eps0 = 0.6, on eps in [0, 0.6] (its docstring): within 0.0063."""
    k, eps0 = THELEN_PASSIVE
    eps = np.linspace(0.0, 0.6, 601)
    thelen = (np.exp(k * eps / eps0) - 1) / (np.exp(k) - 1)
    fit = np.polynomial.polynomial.polyval(eps, PASSIVE_FIT)
    assert np.abs(fit - thelen).max() < 0.0063
    assert np.all(np.diff(fit) > 0)                              # monotonic: no spurious minimum


def test_per_world_parameters_are_checked():
    """An optimizer's per-world values are checked like the constructor's, naming the field."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="m", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=L0, n_elems=N_ELEMS, radius=RADIUS, density=1060.0,
                                 youngs_modulus=E_ROD)
    scene.add(ActiveMuscle(rod, SIGMA_MAX, activation="wave", frequency=1.0, name="wave"))
    sim = scene.compile(worlds=2, dt=1e-5)
    sim.params["wave.phase"] = np.array([0.5, 1.5])
    with pytest.raises(ValueError, match="wave.phase"):
        sim.step(1)
    sim.params["wave.phase"] = np.array([0.5, 0.5])
    sim.params["wave.max_stress"] = np.array([1e5, -1.0])
    with pytest.raises(ValueError, match="wave.max_stress"):
        sim.step(1)


def test_walker_law_is_eq1():
    """ActiveMuscle.walker: F_m = A gamma sigma_m |sin(pi f t)| (eq. 1's active term on the
    rest section, no force-length dependence; f the stimulation frequency, one contraction per
    stimulus); the elastic term is the rod's own."""
    m = ActiveMuscle.walker("m", stress=2.0e3, active_fraction=0.5, frequency=2.0)
    eta = np.array([0.7, 1.0, 1.3])
    np.testing.assert_allclose(m.tension(eta, activation=0.5, rest_area=AREA), AREA * 1.0e3 * 0.5)


def test_walker_kernel_force_is_eq1():
    """The compiled force of ActiveMuscle.walker on a rod stretched uniformly to eta, at time t,
    with the rod's own elasticity (law "gazzola2018"): the end node is pulled back by
    F_m = A gamma sigma_m |sin(pi f t)| + E A eps / (1 + eps), eps = eta - 1 (eq. 1, sign
    convention of ActiveMuscle.walker), to 1e-10 relative."""
    gamma, sigma, f, t = 0.5, 2.0e3, 2.0, 0.37
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="m", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=L0, n_elems=N_ELEMS, radius=RADIUS, density=1060.0,
                                 youngs_modulus=E_ROD)
    scene.add(ActiveMuscle.walker(rod, sigma, active_fraction=gamma, frequency=f))
    sim = scene.compile(dt=1e-6)
    for eta in (0.8, 1.0, 1.15):
        sim.set_state("m", positions=sim.get_state("m")["positions"] * 0 + np.linspace(
            0, eta * L0, N_ELEMS + 1)[None, :, None] * [1, 0, 0])
        sim.time = t
        engine = sim._engine()
        sim._evaluate(engine)
        mass = from_blocks(engine.bodies.node_mass, sim.lanes)[0]
        force = mass[-1] * from_blocks(engine.workspace.node_force, sim.lanes, (3,))[0, N_ELEMS, 0]
        eps = eta - 1
        want = AREA * gamma * sigma * abs(np.sin(np.pi * f * t)) + E_ROD * AREA * eps / (1 + eps)
        assert abs(-force / want - 1) < 1e-10, (eta, force, want)


def test_wave_ramp_scales_eq2_over_its_first_ramp_time():
    """activation="wave" with ramp_time t_r (the paper's code's muscular snake: "ramp" over the
    first second after each muscle's delay): the tension of a rod at rest length (no elastic
    force) is A sigma_max a(t) with a = min(1, (t - phase / f) / t_r) (0.5 + 0.5 side
    sin(2 pi (f t - phase))) for t >= phase / f, 0 before; to 1e-10 relative (rounding)."""
    f, phase, ramp, side = 2.0, 0.25, 0.6, -1
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="m", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=L0, n_elems=N_ELEMS, radius=RADIUS, density=1060.0,
                                 youngs_modulus=E_ROD)
    scene.add(ActiveMuscle(rod, SIGMA_MAX, activation="wave", frequency=f, phase=phase,
                           side=side, ramp_time=ramp, active_coefficients=(1.0,),
                           passive_coefficients=(), incompressible=False))
    sim = scene.compile(dt=1e-6)
    engine = sim._engine()
    mass = from_blocks(engine.bodies.node_mass, sim.lanes)[0]
    for t in (0.1, 0.2, 0.3, 0.55, 0.8, 1.2):
        sim.time = t
        sim._evaluate(engine)
        force = -mass[-1] * from_blocks(engine.workspace.node_force, sim.lanes, (3,))[0, N_ELEMS, 0]
        start = phase / f
        a = 0.0 if t < start else min(1.0, (t - start) / ramp) * (
            0.5 + 0.5 * side * np.sin(2 * np.pi * (f * t - phase)))
        np.testing.assert_allclose(force, AREA * SIGMA_MAX * a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    (dict(max_stress=-1.0), "max_stress"),
    (dict(activation="wave", frequency=1.0, ramp_time=-1.0), "ramp_time"),
    (dict(activation="abs_sin", frequency=1.0, ramp_time=1.0), "ramp_time"),
    (dict(activation=1.0, ramp_time=1.0), "ramp_time"),
    (dict(damping=-1.0), "damping"),
    (dict(activation=1.5), "activation"),
    (dict(activation=[0.0, 1.0]), "times"),
    (dict(activation=[0.0, 1.0], times=[1.0, 0.5]), "times"),
    (dict(activation="abs_sin"), "frequency"),
    (dict(activation="wave", frequency=1.0, phase=2.0), "phase"),
    (dict(activation="tetanus"), "activation"),
    (dict(side=0), "side"),
    (dict(active_coefficients=[-1.0, 0.5]), "active_coefficients"),
    (dict(active_coefficients=np.ones(9)), "active_coefficients"),
    (dict(active_range=(1.2, 1.5)), "active_range"),
    (dict(incompressible=1), "incompressible"),
    (dict(activation=lambda t: 1 / 0, times=[0.0, 1.0]), "activation"),
])
def test_bad_arguments_name_the_field(kwargs, match):
    args = dict(max_stress=1e5)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ActiveMuscle("m", args.pop("max_stress"), **args)
