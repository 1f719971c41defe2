"""Joint stops: a hinge joint's range of angles (kernel and equations:
softmech.kernels.joint_stops).

    HingeJoint(a, b, axis=..., ..., limits=(lower, upper), limit_stiffness=k_s, limit_damping=c_s)

The hinge angle is zero at the start and positive for a right-handed rotation of b's frame
relative to a's about the axis; lower <= 0 <= upper [rad], both within (-pi, pi). Per-world
parameters `<name>.lower`, `.upper` [rad], `.limit_stiffness` [N m/rad], `.limit_damping`
[N m s/rad], shape (B,). Like the joints' own springs, a stop is soft: a torque T presses it
past its limit by T / k_s.
"""
import math

import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.joint_stops import N_STOP_PARAMS, JointStopsArgs, joint_stops
from softmech.packing import lane_table
from softmech.stability import spring_time_step
from softmech.terms.base import Part

ORDER = 51
"""Place in the force pass: right after the joints (softmech.terms.joints.ORDER = 50)."""


class JointStops(Part):
    """Every joint stop of a scene in one kernel call (a scene without stops has no call)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (End a, End b, axes (2, 3), normals (2, 3), params (B, 4))

    def calls(self, engine):
        e = self.entries
        n = len(e)
        ends = lambda attr: np.array([[getattr(x[0], attr), getattr(x[1], attr)] for x in e],
                                     dtype=np.int64).reshape(n, 2)
        args = engine.args(
            JointStopsArgs, stop_end_kind=ends("kind"), stop_end_slot=ends("slot"),
            stop_end_frame=ends("frame_slot"),
            stop_axis=np.array([x[2] for x in e]).reshape(n, 2, 3),
            stop_normal=np.array([x[3] for x in e]).reshape(n, 2, 3),
            stop_params=lane_table([x[4] for x in e], engine.lanes, N_STOP_PARAMS))
        return [Call("forces", ORDER, joint_stops, args, "joint_stops")]


def limit_arguments(owner, limits, limit_stiffness, limit_damping):
    """Validated (lower, upper, k_s, c_s) of a stop, or None without limits."""
    if limits is None:
        if limit_stiffness is not None:
            raise ValueError(f"{owner}.limit_stiffness = {limit_stiffness!r} is not allowed "
                             f"without limits: give limits=(lower, upper) [rad] too")
        return None
    if not isinstance(limits, (tuple, list, np.ndarray)) or len(limits) != 2:
        raise ValueError(f"{owner}.limits = {limits!r} is not allowed: must be (lower, upper) [rad]")
    lower = float(_checks.finite(f"{owner}.limits[0]", limits[0], shape=()))
    upper = float(_checks.finite(f"{owner}.limits[1]", limits[1], shape=()))
    check_range(owner, np.array([lower]), np.array([upper]))
    if limit_stiffness is None:
        raise ValueError(f"{owner}.limit_stiffness = None is not allowed with limits: must be > 0 "
                         f"[N m/rad]")
    k = float(_checks.positive(f"{owner}.limit_stiffness", limit_stiffness, shape=()))
    c = float(_checks.nonnegative(f"{owner}.limit_damping", limit_damping, shape=()))
    return lower, upper, k, c


def check_range(owner, lower, upper):
    """lower (B,) <= 0 <= upper (B,), both inside (-pi, pi) (the angle is atan2's, and the start,
    angle 0, must lie in the range)."""
    if np.any(lower > 0) or np.any(lower <= -math.pi):
        raise ValueError(f"{owner}.limits lower = {lower.tolist()} is not allowed: must be in "
                         f"(-pi, 0] rad (the start, angle 0, must be inside the range)")
    if np.any(upper < 0) or np.any(upper >= math.pi):
        raise ValueError(f"{owner}.limits upper = {upper.tolist()} is not allowed: must be in "
                         f"[0, pi) rad (the start, angle 0, must be inside the range)")


def normal_to(axis):
    """A unit vector (3,) normal to the unit vector `axis` (3,)."""
    helper = np.eye(3)[int(np.argmin(np.abs(axis)))]
    n = np.cross(axis, helper)
    return n / np.linalg.norm(n)


def rotation_limit(end, stiffness, damping, direction=None):
    """Explicit limit [s] (B,) of a rotational spring [N m/rad] (B,) and dashpot [N m s/rad]
    (B,) acting on a joint's End (softmech.terms.joints.End), on its own: spring_time_step
    about the unit `direction` (3,) in its frame (moment and own stiffness sum_i X_i n_i^2),
    or the least over its axes (None). A joint's limit is the lesser of its two ends' (the
    heavier end's is the larger)."""
    inertia = np.asarray(end.inertia, float)
    own = np.broadcast_to(np.asarray(end.own_rotational_stiffness, float), inertia.shape)
    k, c = np.asarray(stiffness, float)[:, None], np.asarray(damping, float)[:, None]
    if direction is None:
        return spring_time_step(inertia, k, c, own).min(axis=1)
    if np.isinf(inertia).any():                     # a fixed body
        return np.full(inertia.shape[0], np.inf)
    weights = np.asarray(direction, float) ** 2
    return spring_time_step(inertia @ weights, k[:, 0], c[:, 0], own @ weights)


def add_stop(ctx, owner, a, b, axis, p):
    """Register the stop of hinge `owner` between resolved ends a and b (softmech.terms.joints.End)
    about the lab axis (3,), per-world parameters p (lower, upper, limit_stiffness,
    limit_damping: (B,) each)."""
    check_range(owner, p["lower"], p["upper"])
    if np.any(p["limit_stiffness"] <= 0):
        raise ValueError(f"params['{owner}.limit_stiffness'] has entries <= 0 (must be > 0)")
    if np.any(p["limit_damping"] < 0):
        raise ValueError(f"params['{owner}.limit_damping'] has entries < 0 (must be >= 0)")
    normal = normal_to(axis)
    axes = np.array([a.frame @ axis, b.frame @ axis])
    normals = np.array([a.frame @ normal, b.frame @ normal])
    params = np.stack([p["lower"], p["upper"], p["limit_stiffness"], p["limit_damping"]], axis=1)
    ctx.part(JointStops).entries.append((a, b, axes, normals, params))
    # explicit stability of the stop's spring and dashpot about the axis, on either end
    ctx.time_step_limits.append(np.minimum(
        rotation_limit(a, p["limit_stiffness"], p["limit_damping"], axes[0]),
        rotation_limit(b, p["limit_stiffness"], p["limit_damping"], axes[1])))

