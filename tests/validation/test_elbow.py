"""The elbow scene (softmech.scenarios.elbow), reduced to 7 muscle rods per head (the full
2 x 18 runs in `softmech run elbow`, docs/musculoskeletal.md).

Cross-section growth at 90 degrees against the assembly's geometry: tendons and joints are stiff
(strain < 1 % under the biceps' force), so the belly absorbs the shortening of the origin ->
insertion distance, d(start) - d(90 deg), and an incompressible belly of rest length L_b grows
its section by L_b / (L_b - (d(start) - d(90))) - 1 (volume A L conserved). The model's number
(mean of A^ / eta over the fibers' middle thirds) is within 5 percentage points of it: the
tendons and joints do stretch under the pull (full scene: 1.4 mm and 0.6 mm, so the belly
shortens 2 mm more than d, +2 points), and the strain is nearly uniform along the fibers.
"""
import numpy as np

import softmech as sm
from softmech.scenarios.elbow import (BELLY, ELBOW, FOREARM_LENGTH, HEAD_Y, INSERTION, ORIGIN_X,
                                      SHOULDER, belly_section, build_elbow, flexion_angle,
                                      growth_at, isometric_report)


def test_reduced_elbow_flexes_past_90_degrees_and_the_biceps_bulges_as_its_geometry_says():
    scene, info = build_elbow(fibers=7)
    sim = scene.compile(dt=info.dt)
    fields = ("humerus.positions", "radius.positions") + tuple(f"{f}.positions" for f in info.fibers)
    out = sim.run(duration=0.3, record=sm.Every(0.002, fields))
    angle = flexion_angle(out["humerus.positions"][0], out["radius.positions"][0])
    section = belly_section([out[f"{f}.positions"][0] for f in info.fibers],
                            info.fiber_rest_length, info.fiber_area)
    assert angle.max() > 90.0
    growth = growth_at(angle, section)
    origin = np.array([ORIGIN_X, HEAD_Y, SHOULDER[2]])
    x0 = out["radius.positions"][0][0]
    forearm = (x0[-1] - x0[0]) / FOREARM_LENGTH
    insertion0 = ELBOW + INSERTION * forearm + (0, HEAD_Y, 0)
    insertion90 = ELBOW + INSERTION * np.array([1.0, 0.0, 0.0]) + (0, HEAD_Y, 0)
    d0, d90 = np.linalg.norm(insertion0 - origin), np.linalg.norm(insertion90 - origin)
    belly = BELLY * d0
    want = belly / (belly - (d0 - d90)) - 1.0
    assert abs(growth - want) < 0.05, (growth, want)


def test_the_flexion_stop_holds_the_bones():
    """The hinge stop acts between the two bones' end elements; with cortical bones (17 GPa,
    BONE) their end elements follow the bones, so a stop holds the bones' chords: with the
    stop moved to 60 deg the flexing forearm, which would otherwise swing past 90 deg, stays
    within 3 deg of it (measured 1 deg: the stop's penetration under the biceps and the end
    elements' bending; with the former 0.5 GPa bones it reached 99 deg)."""
    from softmech.scenarios import elbow

    saved = elbow.FLEXION_RANGE
    elbow.FLEXION_RANGE = (0.0, 60.0)
    try:
        scene, info = build_elbow(fibers=7)
    finally:
        elbow.FLEXION_RANGE = saved
    sim = scene.compile(dt=info.dt)
    out = sim.run(duration=0.25, record=sm.Every(0.0025, ("humerus.positions",
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
