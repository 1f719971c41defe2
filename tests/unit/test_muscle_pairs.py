"""MusclePairs: the antagonistic muscle-tendon pairs of the Nature Communications snake (Zhang et
al., Nat. Commun. 10:4825, 2019, eq. 2). The net bending moment of pair i about d1 is
    (right - left) h = F_i (0.5 sin(2 pi f t - 2 pi phi_i) + 0.5) h
                       - F_i (0.5 sin(2 pi f t - 2 pi phi_i + pi) + 0.5) h
                     = F_i h sin(2 pi f t - 2 pi phi_i),
applied at every interior node inside the pair's span [start, start + length] (vertebrae 0 at the
head .. 100 at the tail) as +M on the element after the node and -M on the one before.

The moments are recovered from the engine's accelerations of a straight rod at rest (no elastic,
gravity or damping loads): element e receives the couple C_e = J_e alpha_e = M_{e-1} - M_e about
d1, so the node moments are M_j = -sum_{e <= j} C_e.
"""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies.cosserat_rod import discrete_properties
from softmech.scenarios.snake import build_snake, demo_muscle_pairs, mean_velocities
from softmech.terms.muscles import MusclePairs

N, LENGTH, RADIUS = 50, 1.0, 0.025
GROUPS = [(11.0, 30.0, 100.0, 0.2), (31.0, 40.0, 50.0, 0.7)]   # overlap on vertebrae 31..41
FREQUENCY = 2.0


def straight_rod_scene(groups=GROUPS, head="last", lever_arm=None):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="r", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=LENGTH, n_elems=N, radius=RADIUS, density=1000.0,
                                 youngs_modulus=1e7, shear_modulus=2e7 / 3)
    scene.add(MusclePairs(rod, groups, frequency=FREQUENCY, ramp_time=0.0, head=head,
                          lever_arm=lever_arm, name="pairs"))
    return scene, rod


def node_moments(scene, rod, t):
    """(node accelerations (n+1, 3), element couples C (n, 3) [N m, local], node moments M
    (n-1,) [N m] about d1) of a straight rod at rest at time t [s]."""
    sim = scene.compile(worlds=1, dt=2.5e-5)
    sim.time = t
    acc, alpha = sim.accelerations()
    J = discrete_properties(rod.rest_lengths, sim.rod_params("r"))["elem_J"][0]
    couple = J * alpha[0]
    return acc[0], couple, -np.cumsum(couple[:, 0])[:-1]


def vertebrae(head="last"):
    """Vertebra coordinate 100 s / L of the interior nodes, s = arc length from the head."""
    from_first = LENGTH * np.arange(1, N) / N
    return 100.0 * (LENGTH - from_first if head == "last" else from_first) / LENGTH


def expected_moments(t, groups=GROUPS, head="last", lever=RADIUS / 2):
    v = vertebrae(head)
    m = np.zeros(N - 1)
    for start, length, force, phase in groups:
        inside = (v >= start) & (v <= start + length)
        m[inside] += force * lever * np.sin(2 * np.pi * FREQUENCY * t - 2 * np.pi * phase)
    return m


@pytest.mark.parametrize("head", ["last", "first"])
def test_moments_match_eq2_inside_spans_and_vanish_outside(head):
    scene, rod = straight_rod_scene(head=head)
    t = 0.37
    acc, couple, moments = node_moments(scene, rod, t)
    expected = expected_moments(t, head=head)
    # eq. 2 (module docstring) with h = r / 2 (Zhang 2019: tendons anchored half a radius from
    # the midline). Tolerance: round-off of J alpha and of the cumulative sum (~1e-15 of F h).
    scale = max(f for _, _, f, _ in GROUPS) * RADIUS / 2
    np.testing.assert_allclose(moments, expected, rtol=0, atol=1e-12 * scale)
    inside_any = expected != 0
    assert inside_any.sum() == len(range(12, 42, 2)) + len(range(32, 72, 2)) - len(range(32, 42, 2))
    # a node inside the overlap gets the sum of both pairs (vertebra 36)
    j = int(np.flatnonzero(np.isclose(vertebrae(head), 36.0))[0])
    both = sum(f * RADIUS / 2 * np.sin(2 * np.pi * FREQUENCY * t - 2 * np.pi * ph)
               for _, _, f, ph in GROUPS)
    assert moments[j] == pytest.approx(both, rel=1e-12)
    # elements with no node inside a span receive exactly nothing; muscles exert no forces and
    # no couples about d2 or d3 (exact zeros: nothing is added there)
    touched = np.zeros(N, dtype=bool)
    touched[:-1] |= inside_any
    touched[1:] |= inside_any
    assert np.all(couple[~touched] == 0.0)
    assert np.all(couple[:, 1:] == 0.0) and np.all(acc == 0.0)


def test_zero_net_couple_and_couples_only_at_span_ends():
    scene, rod = straight_rod_scene(groups=[(21.0, 30.0, 80.0, 0.1)])
    t = 0.11
    _, couple, _ = node_moments(scene, rod, t)
    # straight rod: all local frames coincide, so the sum of local couples is the net couple;
    # round-off tolerance relative to F h
    m = 80.0 * RADIUS / 2 * np.sin(2 * np.pi * FREQUENCY * t - 2 * np.pi * 0.1)
    assert abs(couple[:, 0].sum()) < 1e-12 * abs(m)
    # interior couples cancel: only the two elements at the span's ends carry +-M
    ends = np.flatnonzero(np.abs(couple[:, 0]) > 1e-9 * abs(m))
    assert len(ends) == 2
    np.testing.assert_allclose(sorted(couple[ends, 0]), sorted([m, -m]), rtol=1e-12)


def test_explicit_lever_arm_and_batched_groups():
    scene, rod = straight_rod_scene(lever_arm=0.01)
    sim = scene.compile(worlds=2, dt=2.5e-5)
    other = [(5.0, 90.0, 10.0, 0.5), (50.0, 10.0, 0.0, 0.0)]
    sim.params["pairs.groups"] = np.array([GROUPS, other])
    sim.time = 0.2
    _, alpha = sim.accelerations()
    J = discrete_properties(rod.rest_lengths, sim.rod_params("r"))["elem_J"]
    moments = -np.cumsum((J * alpha)[..., 0], axis=1)[:, :-1]
    for b, groups in enumerate([GROUPS, other]):
        np.testing.assert_allclose(moments[b], expected_moments(0.2, groups, lever=0.01),
                                   rtol=0, atol=1e-12 * 100 * 0.01)


@pytest.mark.parametrize("groups, field", [
    ([(4.0, 10.0, 1.0, 0.0)], "groups[0].start"),
    ([(10.0, 10.0, 1.0, 0.0), (50.0, 46.0, 1.0, 0.0)], "groups[1].length"),
    ([(10.0, -1.0, 1.0, 0.0)], "groups[0].length"),
    ([(10.0, 10.0, -1.0, 0.0)], "groups[0].force"),
    ([(10.0, 10.0, 1.0, 1.5)], "groups[0].phase"),
])
def test_out_of_range_groups_raise(groups, field):
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        straight_rod_scene(groups=groups)


def test_bad_shapes_and_per_world_params_raise():
    with pytest.raises(ValueError, match="pairs.groups"):
        straight_rod_scene(groups=[(10.0, 10.0, 1.0)])
    scene, _ = straight_rod_scene()
    with pytest.raises(ValueError, match="frequency"):
        scene.add(MusclePairs("r", GROUPS, frequency=0.0, name="bad"))
    sim = scene.compile(worlds=1, dt=2.5e-5)
    sim.params["pairs.groups"] = np.array([[(10.0, 10.0, 1.0, 2.0)]])
    with pytest.raises(ValueError, match=r"pairs.groups'\]\[0\]\[0\].phase"):
        sim.step(1)


def test_snake_with_four_pairs_moves_forward():
    # demo layout: four overlapping pairs of 35 vertebrae, 1500 N, phases of a head-to-tail
    # travelling wave with lambda = 0.97 L (docs/snake.md)
    scene, info = build_snake(muscle_pairs=demo_muscle_pairs(), duration=3.0)
    sim = scene.compile(worlds=1, dt=info.dt)
    out = sim.run(info.duration, record=sm.Every(seconds=0.01, fields=("com", "positions")))
    forward, lateral = mean_velocities(out["time"], out["com"], info.period, first=1, last=3)
    # the travelling muscle wave must propel the snake head first (+x): a net forward speed of
    # at least 0.1 m/s over periods 1-3 (measured 0.24 m/s, docs/snake.md), where an unactuated
    # snake does not move at all
    assert forward[0] > 0.1
    # and it slithers on the ground: every node stays below one diameter (measured max 0.028 m,
    # 0.025 m resting); larger forces (2400 N) lift and flip the body
    assert np.all(np.isfinite(out["positions"]))
    assert out["positions"][..., 2].max() < 2 * info.radius
