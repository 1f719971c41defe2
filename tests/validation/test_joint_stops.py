"""Joint stops (softmech.kernels.joint_stops): a hinge's range of angles, as a one-sided torsional
spring k_s and dashpot c_s outside [lower, upper], against the statics and the impact of a
rigid bar turning about the hinge."""
import math

import pytest

import softmech as sm
from softmech.validation.joints import I_ZZ, K_STOP, LIMITS, joint_stop_statics
from softmech.validation.joints import bar_angle as _angle
from softmech.validation.joints import hinged_bar as _hinged_bar


@pytest.mark.parametrize("torque, limit", [(2.0, LIMITS[1]), (-2.0, LIMITS[0])])
def test_a_torque_presses_the_bar_past_its_limit_by_torque_over_stiffness(torque, limit):
    """softmech.validation.joints.joint_stop_statics: theta = limit + T / k_s, 1e-6 rad."""
    record = joint_stop_statics(torque)
    assert record["reference"] == pytest.approx(limit + torque / K_STOP)
    assert record["passed"], record["detail"]


def test_inside_the_range_the_stop_does_nothing():
    """A bar spinning at 0.1 rad/s for 2 s turns 0.2 rad < upper = 0.3: free rotation, theta =
    w t exactly as without a stop (to 1e-9 rad)."""
    sim = _hinged_bar(spin=0.1)
    sim.run(2.0)
    assert _angle(sim) == pytest.approx(0.2, abs=1e-9)


def test_impact_on_the_stop_is_elastic_without_damping():
    """A bar meeting the upper stop at w0 (no damping): the stop is a linear torsional spring, so
    the bar goes past the limit by w0 sqrt(I / k_s) (half a period of sqrt(k_s / I)) and leaves
    it at -w0 (energy conserved). Tolerances: 1 % on the overshoot, 1e-3 relative on the speed
    (the Verlet step's error at dt sqrt(k_s / I) = 1.5e-3)."""
    w0 = 1.0
    sim = _hinged_bar(spin=w0)
    overshoot = 0.0
    for _ in range(60):          # 0.6 s: hits at 0.3 s, half period pi sqrt(I / k_s) = 0.081 s
        sim.run(0.01)
        overshoot = max(overshoot, _angle(sim) - LIMITS[1])
    assert overshoot == pytest.approx(w0 * math.sqrt(I_ZZ / K_STOP), rel=1e-2)
    w_after = sim.get_state("bar")["angular_velocities"][0, 0, 2]
    assert w_after == pytest.approx(-w0, rel=1e-3)
    assert _angle(sim) < LIMITS[1]


@pytest.mark.parametrize("kwargs, match", [
    (dict(limits=(0.2, 0.5), limit_stiffness=1.0), r"limits lower = \[0.2\].*\(-pi, 0\]"),
    (dict(limits=(-0.2, 4.0), limit_stiffness=1.0), r"limits upper = \[4.0\].*\[0, pi\)"),
    (dict(limits=(-0.2, 0.2)), r"limit_stiffness = None.*must be > 0"),
    (dict(limits=(-0.2, 0.2), limit_stiffness=-1.0), r"limit_stiffness"),
    (dict(limit_stiffness=1.0), r"limit_stiffness = 1.0 .* without limits"),
    (dict(limits=0.3, limit_stiffness=1.0), r"limits = 0.3 .*\(lower, upper\)"),
    (dict(limits=(-0.2, math.nan), limit_stiffness=1.0), r"limits\[1\]"),
    # an array for one number (found by the slow fuzz run)
    (dict(limits=([-0.2, 0.1], 0.2), limit_stiffness=1.0), r"limits\[0\] .* single number"),
    (dict(limits=(-0.2, 0.2), limit_stiffness=[1.0, 2.0]), r"limit_stiffness .* single number"),
])
def test_bad_limits_name_the_field_and_the_range(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sm.HingeJoint("pivot", "bar", axis=(0, 0, 1), stiffness=1.0, rotational_stiffness=1.0,
                      name="hinge", **kwargs)
