"""HoldMotion (softmech.terms.hold): a rigid body on a rail keeps its held components and moves
along its free ones exactly as Newton's law says, under the explicit and the implicit schemes."""
import numpy as np
import pytest

import softmech as sm


def rail_scene(hold_rotation=True):
    """A box (principal axes off the lab axes) pushed by a constant force F and couple C,
    held in y and z (and in orientation): along x it must accelerate at F_x / m."""
    scene = sm.Scene()
    c, s = np.cos(0.4), np.sin(0.4)
    box = scene.add_box(name="sled", position=(0.1, -0.2, 0.3), lengths=(0.2, 0.1, 0.05),
                        density=800.0, directors=[[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])
    scene.add(sm.EndLoad(box, force=(2.0, -3.0, 5.0), couple=(0.01, 0.02, -0.03)))
    scene.add(sm.HoldMotion(box, translation=(False, True, True), rotation=hold_rotation))
    return scene, box


@pytest.mark.parametrize("scheme", ["verlet", "implicit_euler"])
def test_a_body_on_a_rail_moves_along_its_free_axis_only(scheme):
    """x(t) = x0 + F_x t^2 / (2 m) under a constant force: position Verlet is exact on constant
    accelerations (its error term is x''' = 0), backward Euler gives x0 + h^2 a n (n + 1) / 2
    (the residual is linear in the velocity). The held y, z and frame stay at their initial
    values and rates to round-off (1e-12)."""
    scene, box = rail_scene()
    h, n = 1e-3, 200
    sim = scene.compile(dt=h, scheme=scheme)
    sim.step(n)
    state = sim.get_state("sled")
    x, v = state["positions"][0, 0], state["velocities"][0, 0]
    a = 2.0 / box.mass
    expected = 0.1 + (a * (n * h) ** 2 / 2 if scheme == "verlet" else a * h * h * n * (n + 1) / 2)
    assert x[0] == pytest.approx(expected, rel=1e-10)
    assert v[0] == pytest.approx(a * n * h, rel=1e-10)
    assert np.allclose(x[1:], (-0.2, 0.3), atol=1e-12) and np.allclose(v[1:], 0.0, atol=1e-12)
    assert np.allclose(state["directors"][0, 0], box.directors, atol=1e-12)
    assert np.allclose(state["angular_velocities"][0, 0], 0.0, atol=1e-12)


def test_without_the_rotation_held_the_couple_turns_the_body():
    """rotation=False leaves the orientation free: the couple turns the box (its frame moves
    by more than 1e-3), while the held y and z still stay."""
    scene, box = rail_scene(hold_rotation=False)
    sim = scene.compile(dt=1e-3, scheme="verlet")
    sim.step(200)
    state = sim.get_state("sled")
    assert np.abs(state["directors"][0, 0] - box.directors).max() > 1e-3
    assert np.allclose(state["positions"][0, 0, 1:], (-0.2, 0.3), atol=1e-12)


def test_hold_motion_rejects_bad_arguments():
    scene = sm.Scene()
    scene.add_sphere(name="ball", position=(0, 0, 0), radius=0.1, density=1000.0)
    rod = scene.add_cosserat_rod(name="rod", start=(1, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=1.0, n_elems=4, radius=0.01,
                                 density=1000.0, youngs_modulus=1e6)
    with pytest.raises(ValueError, match=r"hold.translation = .* three booleans"):
        sm.HoldMotion("ball", translation=(1, 0, 0))
    with pytest.raises(ValueError, match=r"hold.translation"):
        sm.HoldMotion("ball", translation=(True, False))
    with pytest.raises(ValueError, match=r"hold.rotation = 'yes' is not allowed"):
        sm.HoldMotion("ball", rotation="yes")
    with pytest.raises(ValueError, match="hold nothing"):
        sm.HoldMotion("ball")
    with pytest.raises(ValueError, match="rotation = True is not allowed on a Cosserat rod"):
        scene.add(sm.HoldMotion(rod, translation=(False, True, False), rotation=True))
    dismech = scene.add_der_rod(name="der", start=(0, 1, 0), direction=(1, 0, 0), length=1.0,
                                n_elems=4, radius=0.01, density=1000.0, youngs_modulus=1e6)
    with pytest.raises(ValueError, match="HoldMotion acts on a rigid body or a Cosserat rod"):
        scene.add(sm.HoldMotion(dismech, rotation=True))
    with pytest.raises(ValueError, match="no such body"):
        scene.add(sm.HoldMotion("nobody", rotation=True))


def rod_scene(gravity, hold, clamp=False):
    """A Cosserat rod in the plane y = 0.2 m (along x, d1 = y) under gravity (3,) [m/s^2],
    held in that plane (HoldMotion translation (False, True, False)) if `hold`, clamped at its
    first end if `clamp`."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0.0, 0.2, 0.5), direction=(1, 0, 0),
                                 normal=(0, 1, 0), length=0.5, n_elems=10, radius=0.01,
                                 density=1000.0, youngs_modulus=1e6)
    scene.add(sm.Gravity(gravity))
    if hold:
        scene.add(sm.HoldMotion(rod, translation=(False, True, False)))
    if clamp:
        scene.add(sm.Clamp(rod, "first"))
        scene.add(sm.LinearDamping(rod, 0.5))
    return scene


@pytest.mark.parametrize("scheme", ["verlet", "implicit_euler"])
def test_a_rod_held_in_its_plane_falls_freely_in_it(scheme):
    """Every node of a free rod held in y = 0.2 m under gravity (0, 3, -9.81) m/s^2 falls as a
    point: z(t) = z0 - g t^2 / 2 (position Verlet exact on a constant acceleration; backward
    Euler z0 - g h^2 n (n + 1) / 2), x unchanged, y and its velocity held (1e-12)."""
    h, n = 1e-4, 300
    sim = rod_scene((0.0, 3.0, -9.81), hold=True).compile(dt=h, scheme=scheme)
    sim.step(n)
    state = sim.get_state("rod")
    x, v = state["positions"][0], state["velocities"][0]
    drop = 9.81 * ((n * h) ** 2 / 2 if scheme == "verlet" else h * h * n * (n + 1) / 2)
    assert np.allclose(x[:, 2], 0.5 - drop, rtol=0, atol=1e-10)
    assert np.allclose(x[:, 1], 0.2, atol=1e-12) and np.allclose(v[:, 1], 0.0, atol=1e-12)
    assert np.allclose(x[:, 0], np.linspace(0.0, 0.5, 11), atol=1e-10)


def test_a_rod_held_in_its_plane_bends_in_it_as_without_the_hold():
    """The hold only removes the out-of-plane motion: a cantilever in the xz plane under gravity
    (0, 3, -9.81) held in y moves exactly as the same cantilever under (0, 0, -9.81) without the
    hold (a planar problem: its out-of-plane components are zero by symmetry), to round-off
    (1e-12 m), and it does bend (tip 1 mm down at least)."""
    runs = []
    for gravity, hold in (((0.0, 3.0, -9.81), True), ((0.0, 0.0, -9.81), False)):
        sim = rod_scene(gravity, hold, clamp=True).compile(dt=2e-5)
        sim.step(5000)
        runs.append(sim.get_state("rod")["positions"][0])
    held, free = runs
    np.testing.assert_allclose(held, free, rtol=0, atol=1e-12)
    assert held[-1, 2] < 0.5 - 1e-3
