"""Joints as soft constraints (softmech.kernels.joints; Zhang et al. 2019 eqs. 5-6) between rods
and rigid bodies, against pendulum and beam theory."""
import math

import numpy as np
import pytest

import softmech as sm
from softmech.validation import joints as J
from softmech.validation.joints import G, ROD
from softmech.validation.joints import compile_below_limits as _compile
from softmech.validation.joints import pivot as _pivot


def test_rod_hanging_from_a_rigid_body_is_a_compound_pendulum():
    """softmech.validation.joints.joint_compound_pendulum (its docstring: formula, source,
    tolerance 0.5 %)."""
    record = J.joint_compound_pendulum()
    assert record["passed"], record["detail"]


def _double_pendulum(stiffness, duration, record_every):
    """Two rods (L = 0.3 m each) joined end to end by a spherical joint, the first hanging from
    a fixed sphere by another; released from 60 and 90 degrees, no damping. The rods use the
    hyperelastic law, whose elastic energy is exactly the potential of its forces (Gazzola's
    law agrees with it to first order in the strains only: softmech.diagnostics)."""
    L = 0.3
    rod = dict(ROD, law="hyperelastic")
    scene = sm.Scene()
    _pivot(scene)
    a = np.radians(60.0)
    d1 = np.array([np.sin(a), 0, -np.cos(a)])
    scene.add_cosserat_rod(name="upper", start=(0, 0, 0), direction=d1, normal=(0, 1, 0), length=L,
                           n_elems=10, **rod)
    scene.add_cosserat_rod(name="lower", start=L * d1, direction=(1, 0, 0), normal=(0, 1, 0),
                           length=L, n_elems=10, **rod)
    scene.add(sm.Gravity())
    scene.add(sm.SphericalJoint(("upper", "first"), ("pivot", (0, 0, -0.05)), stiffness=stiffness,
                                name="top"))
    scene.add(sm.SphericalJoint(("upper", "last"), ("lower", "first"), stiffness=stiffness,
                                name="middle"))
    sim = _compile(scene, 2e-5)
    fields = ("positions", "total_energy")
    out = sim.run(duration, record=sm.Every(record_every, fields))
    return sim, out


def _total_energy(sim, out, stiffness):
    """Kinetic + elastic energies of both rods + gravity (-m g z) + joint springs k |gap|^2 / 2."""
    energy = out["upper.total_energy"][0] + out["lower.total_energy"][0]
    for name in ("upper", "lower"):
        m = sim._engine().ctx.discrete[name]["node_mass"][0]
        energy = energy + G * out[f"{name}.positions"][0, :, :, 2] @ m
    gap_mid = np.linalg.norm(out["upper.positions"][0, :, -1] - out["lower.positions"][0, :, 0], axis=1)
    gap_top = np.linalg.norm(out["upper.positions"][0, :, 0], axis=1)
    return energy + 0.5 * stiffness * (gap_mid**2 + gap_top**2), np.maximum(gap_mid, gap_top)


def test_double_pendulum_of_two_rods_conserves_energy_and_joint_gap_scales_as_one_over_k():
    """Without damping the energy of the chaotic double pendulum (rods, gravity, joint springs)
    stays within 0.5 % of the potential-energy scale m g L over 100 periods of the small-
    amplitude mode (2 pi sqrt(2L/3g) = 0.90 s); measured: 0.17 % (k = 2e4 N/m, dt = 2e-5 s),
    0.06 % with k = 1e5 N/m. (A single rod pendulum at 90 degrees keeps its energy to 1e-7
    over 60 s: the drift comes from the violently excited joint modes of the chaotic motion,
    whose amplitude scales as 1/k.) The joint gap is the spring's stretch under the joint force,
    gap = F / k: doubling k halves the largest gap over the first 2 s (within 10 %)."""
    k = 2e4
    duration = 100 * 2 * math.pi * math.sqrt(2 * 0.3 / (3 * G))
    sim, out = _double_pendulum(k, duration, 0.01)
    energy, _ = _total_energy(sim, out, k)
    scale = G * 0.3 * sum(sim._engine().ctx.discrete[n]["node_mass"][0].sum() for n in ("upper", "lower"))
    assert np.max(np.abs(energy - energy[0])) / scale < 5e-3
    _, out2 = _double_pendulum(2 * k, 2.0, 0.001)
    _, gap2 = _total_energy(sim, out2, 2 * k)
    _, out1 = _double_pendulum(k, 2.0, 0.001)
    _, gap1 = _total_energy(sim, out1, k)
    assert gap1.max() / gap2.max() == pytest.approx(2.0, rel=0.1)


def test_hinge_keeps_a_pendulum_in_its_plane():
    """A stiff rod pendulum (r = 2 cm, E = 100 MPa) hinged to a fixed sphere about the y axis
    (motion in the x-z plane), pushed out of the plane by a lateral tip force of 10 % of its
    weight: with the hinge (rotational stiffness 500 N m/rad) the tip leaves the plane by less
    than 1 % of L (static estimate: bending F L^3 / 3EI = 0.2 % of L plus the hinge's compliance
    F L^2 / k_r = 0.04 %, up to twice that for a suddenly applied load), while the same rod on
    a spherical joint swings out of it by more than 10 % of L."""
    L = 0.4
    stiff = dict(ROD, radius=0.02, youngs_modulus=1e8)

    def run(hinge):
        scene = sm.Scene()
        _pivot(scene)
        a = math.radians(20.0)
        rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(math.sin(a), 0, -math.cos(a)),
                                     normal=(0, 1, 0), length=L, n_elems=16, **stiff)
        scene.add(sm.Gravity())
        weight = G * stiff["density"] * math.pi * stiff["radius"] ** 2 * L
        scene.add(sm.EndLoad(rod, force=(0, 0.1 * weight, 0)))
        ends = (("rod", "first"), ("pivot", (0, 0, -0.05)))
        if hinge:
            scene.add(sm.HingeJoint(*ends, axis=(0, 1, 0), stiffness=1e6, rotational_stiffness=500.0,
                                    rotational_damping=1e-2))
        else:
            scene.add(sm.SphericalJoint(*ends, stiffness=1e6))
        sim = _compile(scene, 2e-5)
        out = sim.run(1.5, record=sm.Every(0.005, ("positions",)))
        return np.abs(out["rod.positions"][0, :, -1, 1]).max()

    assert run(True) < 0.01 * L
    assert run(False) > 0.1 * L


def test_fixed_joint_makes_two_rods_bend_like_one():
    """softmech.validation.joints.joint_fixed_two_rods: two rods joined by a fixed joint bend as
    the ME498 Table 1 cantilever, within 1 % of Timoshenko (its docstring)."""
    record = J.joint_fixed_two_rods()
    assert record["passed"], record["detail"]


def test_a_rigid_body_point_given_as_an_array_joins():
    """A joint's rigid-body point may be a numpy array (it was compared with 'attach' as a
    string, which raised for an array: found building the authors' walker)."""
    scene = sm.Scene()
    a = scene.add_cylinder(name="a", position=(0, 0, 0), radius=0.01, length=0.02, density=1e3)
    b = scene.add_cylinder(name="b", position=(0.02, 0, 0), radius=0.01, length=0.02, density=1e3)
    scene.add(sm.FixedJoint((a, np.array([0.01, 0, 0])), (b, np.array([-0.01, 0, 0])),
                            stiffness=1e3, rotational_stiffness=1.0, name="glue"))
    sim = scene.compile(dt=1e-4)
    sim.run(1e-3)
    gap = sim.get_state("b")["positions"][0, 0] - sim.get_state("a")["positions"][0, 0]
    assert np.allclose(gap, (0.02, 0, 0), atol=1e-12)


def test_a_fixed_joint_oscillates_about_its_rest_angle():
    """softmech.validation.joints.joint_fixed_rest_angle (its docstring: formula, tolerance)."""
    record = J.joint_fixed_rest_angle()
    assert record["passed"], record["detail"]


def test_a_fixed_joint_settles_at_its_rest_turn_about_an_oblique_axis():
    """A damped bar held by a fixed joint whose rest is the start turned by 2 rad about
    (1, 2, 3)/|.|: its directors settle at R D0^T (Rodrigues), within 1e-6, whatever the axis
    (the bar's principal axes are not along it)."""
    axis = np.array([1.0, 2.0, 3.0]) / math.sqrt(14.0)
    angle = 2.0
    scene = sm.Scene()
    scene.add_sphere(name="pivot", position=(0, 0, 0), radius=0.05, density=1000.0, fixed=True)
    scene.add_box(name="bar", position=(0, 0, 0), **J.BAR)
    scene.add(sm.FixedJoint("pivot", "bar", stiffness=1e5, rotational_stiffness=1.0,
                            rotational_damping=0.15, rest_axis=axis, rest_angle=angle))
    sim = _compile(scene, 1e-4)
    start = sim.get_state("bar")["directors"][0, 0].copy()
    sim.run(6.0)
    cross = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    turn = np.eye(3) + math.sin(angle) * cross + (1 - math.cos(angle)) * cross @ cross
    assert np.allclose(sim.get_state("bar")["directors"][0, 0], start @ turn.T, atol=1e-6)


@pytest.mark.parametrize("kwargs, message", [
    (dict(rest_angle=4.0, rest_axis=(0, 0, 1)), "rest_angle = 4.0 rad is not allowed"),
    (dict(rest_angle=0.5), "rest_axis = None is not allowed"),
    (dict(rest_angle=0.5, rest_axis=(0, 0, 0)), "rest_axis"),
    (dict(rest_angle=float("nan"), rest_axis=(0, 0, 1)), "rest_angle"),
])
def test_a_fixed_joints_rest_turn_is_validated(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sm.FixedJoint("a", "b", stiffness=1.0, rotational_stiffness=1.0, name="lig", **kwargs)
