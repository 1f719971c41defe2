"""The elbow scene (softmech.scenarios.elbow), reduced to 7 muscle rods per head (the full
2 x 18 runs in `softmech run elbow`, docs/musculoskeletal.md).

Cross-section growth at 90 degrees against the assembly's geometry: tendons and joints are stiff
(strain < 1 % under the biceps' force), so the belly absorbs the shortening of the origin ->
insertion distance, d(start) - d(90 deg), and an incompressible belly of rest length L_b grows
its section by L_b / (L_b - (d(start) - d(90))) - 1 (volume A L conserved; geometric_growth).
The model's number (mean of A^ / eta over the fibers' middle thirds) is within 5 percentage
points of it: the tendons and joints stretch a little under the pull (so the belly shortens a
little more than d: measured +0.6 point on the reduced scene at the paper code's geometry, +2
points on the former one), and the strain is nearly uniform along the fibers.
"""
import numpy as np
import pytest

import softmech as sm
from softmech.scenarios.elbow import (FLEXION_RANGE, FORMER_SETTINGS, belly_section, build_elbow,
                                      flexion_angle, geometric_growth, growth_at,
                                      isometric_report)

STOP_TOLERANCE = 4.0
"""[deg] past the 150 deg stop allowed to the bones' chords in the reduced run at the former
settings (FORMER_SETTINGS: zeta = 1e3 Pa s, no force-velocity effect, the forearm flexed
ballistically into the stop at w0 ~ 13 rad/s): the radius's elastic whip when its elbow end is
stopped, about w0 / omega_1 with omega_1 ~ 230 rad/s its first bending mode (radius
E I ~ 32 N m^2, 0.25 m, 1.8 kg/m): 3.2 deg, plus the stop's soft penetration under the impact
(the full scene's hinge passed it by 1.8 deg at 26.8 rad/s, docs/musculoskeletal.md: ~0.9 deg
at 13 rad/s). Measured 153.2 deg for both bones (152.2 deg from the former 20 deg start). With
the former 50 N m/rad ulna-radius joint the ulna went 5.3 deg past (155.3 deg): only the radius
carries the stop."""
HILL_RUN = 0.75
"""[s] of the reduced run at the default (Hill's) damping: the flexion peaks at ~0.72 s (from the
straight arm, where the biceps' moment arm is 4 mm, the first 10 deg take ~0.2 s)."""
PAPER_GROWTH, GROWTH_TOLERANCE = 0.28, 0.03
"""Zhang et al. 2019 (000_*.txt, "Elbow"): "We measure 28% increase in biceps cross-sectional
area when the elbow forms a 90 deg angle" (their model; experiments 30-34 %). The tolerance is
issue 28's "within the paper's model value +- 3 points": the paper gives no scatter, and 3
points is about the spread of the experiments it cites."""


def _reduced_run(shoulder, duration=HILL_RUN, **settings):
    """The reduced elbow (7 rods per head) over `duration` [s]: flexion angles [deg] of the
    radius's and the ulna's chords, (n,), the biceps' section (n,) and the humerus's positions
    and first director, recorded every 1 ms. settings: build_elbow's muscle_damping and dt."""
    scene, info = build_elbow(fibers=7, shoulder=shoulder, **settings)
    sim = scene.compile(dt=info.dt)
    fields = ("humerus.positions", "humerus.directors", "radius.positions",
              "ulna.positions") + tuple(f"{f}.positions" for f in info.fibers)
    out = sim.run(duration=duration, record=sm.Every(0.001, fields))
    h = out["humerus.positions"][0]
    section = belly_section([out[f"{f}.positions"][0] for f in info.fibers],
                            info.fiber_rest_length, info.fiber_area)
    return {"radius": flexion_angle(h, out["radius.positions"][0]),
            "ulna": flexion_angle(h, out["ulna.positions"][0]), "section": section,
            "humerus": h, "d1": out["humerus.directors"][0][:, 0, 0]}


@pytest.fixture(scope="module")
def clamped():
    return _reduced_run("clamp")


def test_reduced_elbow_flexes_past_90_degrees_and_the_biceps_bulges_as_its_geometry_says(clamped):
    angle = clamped["radius"]
    assert angle.max() > 90.0
    growth = growth_at(angle, clamped["section"])
    want = geometric_growth()
    assert abs(growth - want) < 0.05, (growth, want)


def test_the_150_degree_stop_holds_both_forearm_bones_flexed_ballistically():
    """At the former settings (zeta = 1e3 Pa s: no force-velocity effect) the forearm, flexed
    ballistically at MVC, meets the stop at ~13 rad/s: the radius's and the ulna's chords
    stay within STOP_TOLERANCE of it."""
    ballistic = _reduced_run("clamp", duration=0.55, **FORMER_SETTINGS)
    for bone in ("radius", "ulna"):
        largest = ballistic[bone].max()
        assert largest < FLEXION_RANGE[1] + STOP_TOLERANCE, (bone, largest)


def test_with_hill_damping_the_biceps_slows_and_the_flexion_stays_within_the_stop(clamped):
    """Default (Hill's) damping: the biceps pulls less as it shortens, so the forearm flexes at
    under 10 rad/s (former settings: 13; measured 7.5) and the flexion peaks short of the
    150 deg stop (measured 133.6 deg at 0.72 s; the full scene: 144.8 deg). Allowed: the stop
    plus its soft penetration under the biceps' MVC torque, T / k_s ~ 20 N m / 2000 N m/rad =
    0.6 deg, rounded up to 1 deg. The growth at 90 deg is the paper's model value,
    PAPER_GROWTH +- GROWTH_TOLERANCE (measured 28.36 %; the full scene 27.67 %; the geometry of
    the paper's own code, elbow.PAPER_CODE_GEOMETRY)."""
    for bone in ("radius", "ulna"):
        assert clamped[bone].max() <= FLEXION_RANGE[1] + 1.0, (bone, clamped[bone].max())
    t = 1e-3 * np.arange(1, len(clamped["radius"]) + 1)
    speed = np.gradient(np.radians(clamped["radius"]), t)
    assert speed.max() < 10.0, speed.max()
    growth = growth_at(clamped["radius"], clamped["section"])
    assert abs(growth - PAPER_GROWTH) <= GROWTH_TOLERANCE, growth


def test_spherical_shoulder_on_the_arm_pad_flexes_like_the_clamp(clamped):
    """shoulder="spherical": the humerus on a ball joint at the shoulder, its elbow end on the
    dynamometer's pad. Both held points stay put (the pins), and flexion, stop and growth are
    the clamp's: the same geometry, so the growth at 90 deg agrees to 1 point and the stop
    holds as tightly. The humerus's spin about its own axis is free (nothing but the ball joint
    and the pad): from the straight start the forearm lies on that axis, so the spin has almost
    no inertia (~4e-5 kg m^2) and the ulna's splay (0.06 rad off the radius: a product of
    inertia ~6e-4 kg m^2 under the flexion's ~30 rad/s^2) turns it by ~12 deg in the first
    0.3 s, after which the flexed forearm's inertia holds it (measured 12.4 deg, then back to 5;
    2.4 deg from the former 20 deg start). SPIN_BOUND: 20 deg, a spin that kept growing (the
    hinge's plane turning away) would pass it; the flexion angle is measured in the spinning
    plane, so the spin does not enter it."""
    SPIN_BOUND = 20.0
    free = _reduced_run("spherical")
    h = free["humerus"]
    assert np.abs(h[:, 0] - h[0, 0]).max() < 1e-9 and np.abs(h[:, -1] - h[0, -1]).max() < 1e-9
    spin = np.degrees(np.abs(np.arctan2(free["d1"][:, 1], free["d1"][:, 0])))
    assert spin.max() < SPIN_BOUND and spin[-1] < 0.5 * spin.max(), (spin.max(), spin[-1])
    assert free["radius"].max() < FLEXION_RANGE[1] + STOP_TOLERANCE
    growth = growth_at(free["radius"], free["section"])
    assert abs(growth - growth_at(clamped["radius"], clamped["section"])) < 0.01


def test_geometric_growth_is_the_incompressible_belly_and_checks_its_geometry():
    """L_b / (L_b - shortening) - 1 by hand for the default geometry (the paper code's belly of
    0.238 m at rest with the arm straight), exact to round-off, and near the paper's 28 % (its
    model's growth is this geometry: 27.76 %); a belly that would shorten to nothing, or
    geometry out of range, is refused with the field named."""
    from softmech.scenarios.elbow import BELLY, insertion_distance

    d0, d90 = insertion_distance(0.0), insertion_distance(90.0)
    assert geometric_growth() == pytest.approx(BELLY / (BELLY - (d0 - d90)) - 1.0, rel=1e-12)
    assert abs(geometric_growth() - PAPER_GROWTH) < 0.01
    assert geometric_growth(start=20.0) < geometric_growth()
    assert geometric_growth(belly=0.26) < geometric_growth() < geometric_growth(insertion=0.06)
    for kw, field in ((dict(belly=0.5), "belly"), (dict(belly=0.04), "belly"),
                      (dict(insertion=0.3), "insertion"), (dict(stretch=-1.0), "stretch"),
                      (dict(start=float("nan")), "start")):
        with pytest.raises(ValueError, match=field):
            geometric_growth(**kw)


def test_shoulder_must_be_a_known_joint():
    with pytest.raises(ValueError, match="shoulder = 'free' is not allowed"):
        build_elbow(fibers=1, shoulder="free")


def test_the_flexion_stop_holds_the_bones():
    """The hinge stop acts between the two bones' end elements; with cortical bones (17 GPa,
    BONE) their end elements follow the bones, so a stop holds the bones' chords: with the
    stop moved to 60 deg the flexing forearm, which would otherwise swing past 90 deg, stays
    within 3 deg of it (measured 2.7 deg: it meets the stop at ~9 rad/s, so the radius whips
    by ~w0 / omega_1 = 9 / 230 rad = 2.2 deg, plus the stop's penetration; 1 deg from the
    former 20 deg start, which met it slower; with the former 0.5 GPa bones it reached
    99 deg). At the former settings (FORMER_SETTINGS: the forearm flexed ballistically, the
    hardest case for a stop)."""
    from softmech.scenarios import elbow

    saved = elbow.FLEXION_RANGE
    elbow.FLEXION_RANGE = (0.0, 60.0)
    try:
        scene, info = build_elbow(fibers=7, **FORMER_SETTINGS)
    finally:
        elbow.FLEXION_RANGE = saved
    sim = scene.compile(dt=info.dt)
    out = sim.run(duration=0.4, record=sm.Every(0.0025, ("humerus.positions",
                                                          "radius.positions")))
    angle = flexion_angle(out["humerus.positions"][0], out["radius.positions"][0])
    assert 58.0 < angle.max() < 63.0


def test_isometric_map_points_lie_on_the_force_length_curve():
    """Fig. 1c: every simulated equilibrium (eta, F_set) lies on the curve, to 2 % of F_max."""
    report = isometric_report()
    assert report["largest_gap"] < 0.02
    assert report["eta"].min() < 0.7 and report["eta"].max() > 1.5     # both branches covered


def test_elbow_scenario_file_is_the_builtin_scene():
    """`softmech new elbow` text read back builds the same scene: same fibers, same steps."""
    from softmech.scenefile import builtin_scenario, loads_scenario, scenario_text

    read = loads_scenario(scenario_text("elbow"))
    assert read.template == "elbow" and len(read.info().fibers) == 36
    a, b = builtin_scenario("elbow").compile(), read.compile()
    a.step(100)
    b.step(100)
    for rod in ("long_fiber_3", "radius", "short_tendon_distal"):
        np.testing.assert_array_equal(a.get_state(rod)["positions"], b.get_state(rod)["positions"])


def test_hill_law_and_the_damping_fit_are_exact_on_their_own_formulas():
    """Hill's hyperbola (1 - u) / (1 + u / kappa): 1 at rest, 0 at v_max, 0.375 at u = kappa =
    0.25; fit_damping recovers the zeta of torques built as T_0 + zeta g = Hill (1e-12)."""
    from softmech.scenarios.elbow_isokinetic import HILL_VMAX, fit_damping, hill_ratio

    assert hill_ratio([0.0, 1.0, 0.25]) == pytest.approx([1.0, 0.0, 0.375])
    rates = np.array([-0.1, -0.5, -1.0])
    g = np.array([-1e-6, -5e-6, -1e-5])
    hill = 2.0 * hill_ratio(-rates / HILL_VMAX)
    zeta, want = fit_damping([0.5, 2, 3], hill - 3e4 * g, g, rates, 2.0)
    assert zeta == pytest.approx(3e4, rel=1e-12) and np.allclose(want, hill)


def test_isokinetic_dynamometer_reads_a_flexing_torque_that_damping_lowers():
    """Fig. 1d's experiment on one fibre per head at 3 rad/s: the dynamometer's biceps torque
    at 90 deg is positive (flexing), its moment arm is the insertion's (5 cm below the elbow,
    the tendon nearly perpendicular at 90 deg: 40-55 mm), the fibres shorten (d(eta)/dt < 0),
    and raising the fibres' damping zeta lowers the torque (Hill: a shortening muscle pulls
    less), by no more than zeta |d(eta)/dt| sum(A^) times the moment arm, the fibres' own
    damping force (what reaches the insertion through tendons, plates and joints is measured
    at 58 % of it on one fibre per head, 87 % on seven: docs/musculoskeletal.md)."""
    from softmech.scenarios.elbow import DEFAULTS
    from softmech.scenarios.elbow_isokinetic import isokinetic_run

    zeta = 1e4
    r = isokinetic_run(3.0, zeta=(0.0, zeta), fibers=1)
    assert r["torque"][0] > 0 and np.all((0.040 < r["moment_arm"]) & (r["moment_arm"] < 0.055))
    assert np.all(r["rate"] < 0)
    area = 2 * np.pi * DEFAULTS["fiber_radius"] ** 2
    drop = r["torque"][0] - r["torque"][1]
    bound = zeta * abs(r["rate"].mean()) * area * r["moment_arm"].mean()
    assert 0 < drop < bound, (drop, bound)
