"""How the walker's speed is measured (softmech.scenarios.walker, softmech.optimize.walker;
Zhang et al., Nat. Commun. 10:4825 (2019), Fig. 2i; issue 28).

* The ground contact holds the feet on the ground: an element is in contact, its normal load
  balanced, while its surface is within `surface_tolerance` of the ground (Gazzola et al. 2018,
  eq. 4.8), and inside that band nothing pulls it back down. With GroundContact's default
  1e-4 m (20 % of the feet's radius) the feet drifted up through the band and hovered 40-50 um
  above the ground, their friction switching on and off: the original's 2 Hz gait took ~3.5 s
  to become periodic (on the regularized friction, free in 3D; at what is now 4 Hz: until
  2026-12-03 ActiveMuscle.walker contracted twice per stimulation period, so its "f Hz" was
  today's 2f Hz). With the walker's 1e-5 m every gait is periodic from 2 s. Held in its plane
  on friction that sticks (both the defaults since 2026-12-07), every period's step is the
  same to 1e-10: 1952.8 um at 0.5 Hz, 587.6 um at 1 Hz, 68.4 um at 2 Hz (side by side, dt =
  1e-5 s; the regularized law free in 3D: 296.0, 293.3; 237.3-242.2; 58.6-61.4 um). Bound:
  every step within 10 % of the median step, the bound of the regularized law (its steps
  deviated by up to 3 %; the old band's by -54 % and +86 %).
* The original walks forward (+x, towards the short pillar) at each of the paper's stimulation
  frequencies, 0.5, 1 and 2 Hz, as in Fig. 2i: measured +976.4, +587.6, +136.8 um/s (the
  regularized law free in 3D: +147.3, +239.7, +119.5; with the muscle strip jointed to the
  pillars -- muscle="strip", not the paper's topology -- the direction changed with the
  frequency). Why it walks: each contraction pulls the feet together (2.0 mm at 0.5 Hz) and
  each relaxation lets them apart; on friction that sticks the long pillar's foot slides
  while the short one's holds during the contraction, and the other way round during the
  relaxation (an inchworm: at 0.5 Hz the step is the whole contraction), as the two pillars
  (4 and 2.9 mm high) load their feet unequally. At 2 Hz the feet come as close (2.1 mm), but
  both slide in both halves of the period (contraction: the long pillar's foot 0.87 mm forward,
  the short one's 1.23 mm back; the relaxation nearly the reverse), and the step is their
  small difference: hence the speed's fall with f. Bound: half the slowest measured speed.
* The regularized law (tangential_stiffness=0) is not converged in the time step (1, 2, 4 Hz,
  free in 3D: 241.5, 119.5, 169.4 um/s at dt = 1e-5 s; 220.9, 88.0, 136.3 at 5e-6 s) because
  the static friction's slip velocity (1e-6 m/s) is not resolved at these steps (module
  docstring of softmech.scenarios.walker). Friction that sticks, the default, is (held in its
  plane; tested below at 2 Hz).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.scenarios.walker import build_walker, mean_speeds

SETTLE, DURATION = 2.0, 6.0      # [s] settling time (softmech.optimize.walker.SETTLE), run


@pytest.mark.slow            # ~45 s on an idle core: three rings walkers for 6 s
def test_original_gaits_are_periodic_and_walk_forward_at_the_papers_frequencies():
    scene, info = build_walker(frequencies=(0.5, 1.0, 2.0))
    sim = scene.compile(dt=info.dt)
    out = sim.run(DURATION, record=sm.Every(0.01, tuple(f"{s}.com" for s in info.skeletons)))
    x = np.stack([out[f"{s}.com"][0][:, 0] for s in info.skeletons])
    for row, f in zip(x, info.frequencies):
        steps = np.diff(np.interp(np.arange(SETTLE, DURATION + 1e-9, 1.0 / f), out["time"], row))
        median = np.median(steps)
        assert np.abs(steps - median).max() < 0.1 * abs(median), (f, steps)
    v = mean_speeds(out["time"], x, info.frequencies, settle=SETTLE)
    assert (v > 60e-6).all(), v         # measured 976.4, 587.6, 136.8 um/s


def test_campaign_window_is_checked():
    """The campaign measures over whole periods after `settle`: a run too short for one is
    refused before anything is built."""
    from softmech.optimize.walker import WalkerDesignProblem

    with pytest.raises(ValueError, match="duration"):
        WalkerDesignProblem(2, duration=2.2, settle=2.0)
    with pytest.raises(ValueError, match="settle"):
        WalkerDesignProblem(2, duration=2.2, settle=-1.0)


def test_the_walker_stands_on_friction_that_sticks_by_default():
    """build_walker puts sm.StickingFriction (mu_s = 1.2 mu, mu_k = mu, k_t = 10 N/m, c_t
    critical on a skeleton element) on every ground contact, skeletons and cross feet, by default
    since 2026-12-07 (held in its plane it is converged in dt at 0.5, 1 and 2 Hz, tested below;
    the regularized law is not: docs/musculoskeletal.md); tangential_stiffness=0 and the
    authors' ground (ground="paper") give the regularized law, the penalty surface contact its
    mollified friction without being told; a negative k_t is refused by name."""
    def frictions(**kwargs):
        scene, _ = build_walker(frequencies=(1.0,), **kwargs)
        return [t.given_friction for t in scene.terms if isinstance(t, sm.GroundContact)]

    default = frictions()
    assert len(default) == 3 and all(isinstance(f, sm.StickingFriction) for f in default)
    f = default[0]
    m_e = 1100.0 * np.pi * 0.5e-3 ** 2 * 0.5e-3
    assert (f.static, f.kinetic, f.tangential_stiffness) == (0.6, 0.5, 10.0)
    assert f.tangential_damping == pytest.approx(2 * np.sqrt(10.0 * m_e))
    for kwargs in ({"tangential_stiffness": 0.0}, {"ground": "paper"},
                   {"penalty_stiffness": 10.0, "slip_velocity": 1e-5}):
        assert not any(isinstance(f, sm.StickingFriction) for f in frictions(**kwargs)), kwargs
    with pytest.raises(ValueError, match="tangential_stiffness"):
        build_walker(frequencies=(1.0,), tangential_stiffness=-1.0)
    with pytest.raises(ValueError, match="tangential_stiffness"):
        build_walker(frequencies=(1.0,), tangential_stiffness=10.0, penalty_stiffness=10.0)


def sticking_walker_step(dt, **options):
    """The original rings walker, held in its plane, on friction that sticks (k_t = 10 N/m; both
    the defaults) at 2 Hz: its centre of mass's mean step per period [m] over 2-4 s at dt [s]
    (build_walker `options`)."""
    scene, info = build_walker(frequencies=(2.0,), **options)
    sim = scene.compile(dt=dt)
    com = f"{info.skeletons[0]}.com"
    out = sim.run(4.0, record=sm.Every(0.5, (com,)))
    x = out[com][0][:, 0]
    return (x[-1] - x[4]) / 4


@pytest.mark.slow            # ~1.5 min on an idle core: 4 s of the walker at two step sizes
def test_held_in_its_plane_the_sticking_walker_is_converged_in_dt_at_2_hz():
    """Free in 3D, the walker on friction that sticks was not converged at 2 Hz: each
    contraction's step was ~9.5 or ~1.2 um, decided by when a foot held by one sticking element
    broke loose, and the short ones took over as dt fell (41.7, 39.2, 32.2, 14.1, 5.4 um/s at
    dt = 1e-5 ... 6.25e-7 s). Its lean out of its plane (2.7 degrees at every contraction,
    docs/musculoskeletal.md, "Held in its plane") was part of that: held in its plane it steps
    the same at every period, 68.4 and 70.3 um at dt = 1e-5 and 5e-6 s (+136.8 and +140.7 um/s
    over 2-6 s; 141.5 and 144.8 at dt/4 and dt/8). Bound: 5 % between dt and dt/2 (measured
    2.8 %; the regularized default moves 18 % there)."""
    coarse, fine = sticking_walker_step(1e-5), sticking_walker_step(5e-6)
    assert fine > 20e-6                          # it walks forward: tens of um per period
    assert abs(coarse - fine) < 0.05 * fine, (coarse, fine)


@pytest.mark.slow            # ~1.5 min on an idle core: 4 s of the walker at two step sizes
def test_in_waters_drag_with_its_parts_damped_together_the_walker_is_converged_at_2_hz():
    """The bath's 0.05 kg/(m s) on every rod resists the walker's motion as a whole 12x more
    than the medium's Stokes drag (4.11e-3), at which the walker was not converged in dt (13 %
    at 0.5 and 1 Hz). The cause: its parts (skeleton, strip, rings, cross feet) ring against
    each other once the bath no longer damps them; each rod damped against its own rigid
    motion (sm.RelativeDamping per rod) changed nothing (0.5 Hz: 163.1 against 163.8 um/s),
    the walker's rods damped together against their common rigid motion (build_walker(
    internal_damping=...)) do. With the Stokes drag and 0.046 kg/(m s) of internal damping
    (the default's 0.05 in all) the original steps 639.3 and 635.3 um per period at 2 Hz with
    dt = 1e-5 and 5e-6 s (1280 and 1271 um/s over 2-6 s: 9.4x the default bath's; 1 Hz: 521
    and 514 um/s). Bounds: 3 % between dt and dt/2 (measured 0.6 %), and the step above 5x the
    default bath's 68.4 um (docs/musculoskeletal.md, "The bath split")."""
    water = dict(bath_damping=4.11e-3, internal_damping=0.046)
    coarse, fine = sticking_walker_step(1e-5, **water), sticking_walker_step(5e-6, **water)
    assert fine > 5 * 68.4e-6, fine
    assert abs(coarse - fine) < 0.03 * fine, (coarse, fine)


def test_the_inchworm_gait_of_an_ideal_inchworm():
    """inchworm_gait on a drawn inchworm: the front toe holds while the back one slides 1 mm
    forward (the contraction, first half of each period), then the back one holds while the
    front one slides 1 mm (the relaxation): approach 1 mm, step 1 mm per period, each toe's
    slide exact (piecewise-linear records interpolate exactly)."""
    from softmech.scenarios.walker_gait import inchworm_gait

    f, n = 2.0, 200                      # [Hz], samples per period
    t = np.arange(0, 3 * n + 1) / (n * f)
    phase = (t * f) % 1.0
    cycles = np.floor(t * f + 1e-12)
    back = 1e-3 * (cycles + np.minimum(phase, 0.5) * 2)
    front = 14e-3 + 1e-3 * (cycles + np.maximum(phase - 0.5, 0.0) * 2)
    com = 0.5 * (back + front)
    g = inchworm_gait(t, back, front, com, f, settle=0.5, periods=2)
    assert g["approach"] == pytest.approx(1e-3, rel=1e-9)
    assert g["step"] == pytest.approx(1e-3, rel=1e-9)
    assert (g["contraction_back"], g["relaxation_front"]) == pytest.approx((1e-3, 1e-3))
    assert abs(g["contraction_front"]) < 1e-15 and abs(g["relaxation_back"]) < 1e-15


@pytest.mark.slow            # ~30 s on an idle core: the original for 6 s at 0.5 Hz
def test_at_half_a_hertz_the_original_walks_as_an_inchworm():
    """On friction that sticks (the default) the original at 0.5 Hz turns its feet's approach
    into its step: during the contraction the long pillar's toe slides forward the whole
    approach while the short one's holds, during the relaxation the other way round. Measured
    (dt = 1e-5 s, two periods from 2 s): approach 2045.4 um, step 1952.8 um (0.955 of it);
    the toes 2013.5 and -31.9 um in the contraction, -60.7 and 1984.7 um in the relaxation.
    So no design can walk faster at 0.5 Hz than its own approach allows, which over the
    campaign's box is at most 1.24x the original's (docs/musculoskeletal.md, "On friction that
    sticks"; benchmarks/walker_inchworm.py). Bounds: step and sliding toes >= 0.9 of the
    approach, holding toes within 0.05 of it (measured 0.955, >= 0.970 and <= 0.030)."""
    from softmech.scenarios.walker_gait import inchworm_gait

    scene, info = build_walker(frequencies=(0.5,))
    sim = scene.compile(dt=info.dt)
    rod = info.skeletons[0]
    out = sim.run(DURATION, record=sm.Every(0.01, (f"{rod}.positions", f"{rod}.com")))
    x = out[f"{rod}.positions"][0][:, :, 0]
    g = inchworm_gait(out["time"], x[:, 0], x[:, -1], out[f"{rod}.com"][0][:, 0], 0.5,
                      settle=SETTLE, periods=2)
    a = g["approach"]
    assert a > 1e-3, g                                   # the feet approach ~2 mm
    assert g["step"] > 0.9 * a, g
    assert min(g["contraction_back"], g["relaxation_front"]) > 0.9 * a, g
    assert max(abs(g["contraction_front"]), abs(g["relaxation_back"])) < 0.05 * a, g


# the best design of the paper's campaign (the speed at 2 Hz) on friction that sticks, held in
# its plane: `softmech optimize walker --popsize 6 --generations 25`, seed 1, 2026-12-07
# (best.json: youngs_modulus [Pa], short_pillar [m], strip_height [m], the last clipped to the
# rings' lowest height, 1.3 mm)
STICKING_CAMPAIGN_BEST = (254906.4236460936, 0.002689431484435807, 0.0006213757186254481)


@pytest.mark.slow            # ~40 s on an idle core: two walkers for 4 s at 2 Hz
def test_the_2_hz_campaigns_best_walks_twice_the_original_at_2_hz():
    """Zhang et al. 2019, Fig. 2i: the design optimized at 2 Hz walks ~2.5x the original;
    issue 28 asks for >= 2x. On friction that sticks, held in its plane (the defaults), the
    campaign's best (a softer skeleton, 255 against 300 kPa, and more asymmetric legs, a
    2.69 against 2.9 mm short pillar: the paper's trend) walked 298.2 against 137.9 um/s over
    2-4 s (2.16x; 0.97x and 0.88x at 0.5 and 1 Hz, docs/musculoskeletal.md, "On friction that
    sticks"). Bound: issue 28's 2x at 2 Hz, the paper's 2.5x less its 14 % shortfall here."""
    from softmech.optimize.walker import WalkerDesignProblem, original_design

    problem = WalkerDesignProblem(2)
    best, original = problem.speeds(np.stack([STICKING_CAMPAIGN_BEST, original_design()]), 2.0)
    assert original > 60e-6, original                 # measured 137.9 um/s
    assert best / original >= 2.0, (best, original)
