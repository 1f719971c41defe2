"""A tapered snake body (softmech.scenarios.snake.tapered_radii, resting_centerline; Zhang et
al. 2019's "tapered, elastic skeleton", docs/musculoskeletal.md "A tapered body"): its radius
profile, its mass, its rest on the ground, its time step, and where it is refused."""
import numpy as np
import pytest

import softmech as sm
from softmech.scenarios.muscular_snake import build_muscular_snake, projected_layout
from softmech.scenarios.snake import TABLE2, build_snake, resting_centerline, tapered_radii


@pytest.mark.parametrize("taper", [1.0, 0.75, 0.5, 0.2])
def test_the_radius_falls_linearly_to_the_tail_at_the_uniform_bodys_mass(taper):
    """Element radii linear in the element middles, head (last element) to tail in the ratio
    `taper` at the body's ends (the line extrapolated half an element), and sum(r^2) = n r^2:
    the mass of the Table 2 body, whatever the taper (to round-off)."""
    r = tapered_radii(50, taper)
    np.testing.assert_allclose(np.diff(r, 2), 0.0, atol=1e-15)
    slope = r[1] - r[0]
    assert (r[0] - slope / 2) / (r[-1] + slope / 2) == pytest.approx(taper, rel=1e-12)
    assert np.mean(r**2) == pytest.approx(TABLE2["radius"] ** 2, rel=1e-12)


@pytest.mark.parametrize("bad", [0.0, -0.5, 1.5, float("nan"), "thin"])
def test_a_taper_outside_0_1_is_refused_naming_the_field(bad):
    with pytest.raises((ValueError, TypeError), match="taper"):
        build_snake(taper=bad)


def test_muscle_rods_on_a_tapered_body_are_refused():
    """The rods are glued at one lever for the whole body: couples only (ValueError naming
    taper and the muscles) before anything is built."""
    with pytest.raises(ValueError, match="taper = 0.5 is not allowed with muscles = 'rods'"):
        build_muscular_snake(muscles="rods", taper=0.5)


def test_a_tapered_snake_starts_and_stays_resting_on_the_ground():
    """Every element's middle at the height of its radius (the ground contact's distance), and
    unactuated the snake lies nearly still for 0.5 s: its centre of mass moves < 0.1 mm (0.4 %
    of the radius). Not exactly still, as the uniform body is: the Table 2 wall cancels each
    element's push into the ground, shared half and half by its nodes, which leaves the nodes
    of a body whose mass varies along it a small imbalance; it settles by ~80 um and creeps
    ~60 um/s, 0.01 % of the gait's speed (measured at taper 0.6). Started with the centreline
    at the head's height, the tail fell onto the wall, which cancels a touching element's push
    but does not stop a falling one: it sank through the ground at its speed of impact, 4 cm
    in 0.3 s at taper 0.75."""
    r = tapered_radii(50, 0.6)
    nodes = resting_centerline(r, 1.0)
    np.testing.assert_allclose(0.5 * (nodes[:-1, 2] + nodes[1:, 2]), r, rtol=1e-14)
    scene, info = build_snake(taper=0.6, actuated=False)
    out = scene.compile(dt=info.dt).run(0.5, record=sm.Every(0.05, ("snake.com",)))
    com = out["snake.com"][0]
    assert np.abs(com - com[0]).max() < 1e-4


def test_the_thin_tail_lowers_the_time_step_estimate():
    """The ME498 rotational damping (gamma_r = 5 kg m/s) on the tail's elements: at taper 0.5
    (tail radius 16.5 mm) the estimate is 0.9 x 2 J / (gamma_r l) = 0.9 rho pi r^4 / (2
    gamma_r) = 21 us, below Table 2's 25 us step, so compiling at that step warns (it diverges
    within 50 ms there); the uniform body's estimate is its elastic modes' 102 us."""
    tail = tapered_radii(50, 0.5)[0]
    expected = 0.9 * TABLE2["density"] * np.pi * tail**4 / (2 * TABLE2["damping"])
    scene, info = build_snake(taper=0.5)
    assert scene.time_step_limit()[0] == pytest.approx(expected, rel=1e-12)
    with pytest.warns(RuntimeWarning, match="above the estimated stability limit"):
        scene.compile(dt=TABLE2["dt"])
    assert build_snake()[0].time_step_limit()[0] > 1e-4


def test_the_projection_on_a_tapered_body_fits_the_moments_with_its_levers():
    """A pair's moment is its force times half the local radius (MusclePairs' lever), so the
    projection onto a tapered body fits the torque wave's moments with that body's levers:
    its forces are not the uniform body's, and the moment error they leave with the tapered
    levers is no larger than the uniform layout's (the same least squares, softmech.scenarios.
    muscular_snake.pair_moment_fit, on the uniform layout's spans). With taper = 1 the layout
    is the default's, bit for bit."""
    from softmech.scenarios.muscular_snake import moment_wave, pair_moment_fit

    uniform = projected_layout(2)[0]
    tapered, residual = projected_layout(2, taper=0.5)
    np.testing.assert_array_equal(projected_layout(2, taper=1.0)[0], uniform)
    assert not np.allclose(tapered[:, 2], uniform[:, 2])
    vertebra, target, lever = moment_wave(taper=0.5)
    on_uniform_spans = pair_moment_fit(uniform[:, :2], vertebra, target, lever)[2]
    assert residual * np.sum(np.abs(target) ** 2) <= on_uniform_spans * (1 + 1e-12)
