"""Held degrees of freedom of a rigid body or a Cosserat rod: a rail or a test rig that lets a
body move only along some lab axes, or keeps its orientation (HoldMotion).

Renda et al. 2018 (section 6.1) compare the PoseiDRONE's simulated swimming speed with a tank
experiment in which "the vehicle is allowed to translate along the surge direction only", and
in the model "to meet the experimental constraint of traveling on a straight line, the pitch
and lift motions have been controlled". HoldMotion is that constraint: the held translation
components keep their initial values and zero velocity, and a held orientation keeps its
initial frame and zero angular velocity. It is imposed exactly, by the same position and rate
hooks as the rods' clamps (softmech.kernels.constraints, reused on the rigid bodies' arrays), so
the explicit schemes project onto it after every drift and kick and implicit Euler finds the
held components by its constraint probe. The constraint force is not a term of the equations
(a held body feels its loads only along its free directions).

On a Cosserat rod the held components are those of every node: translation=(False, True,
False) keeps a rod that starts in the plane y = y0 in that plane, as a frictionless guide would
(a planar mechanism modelled by one rod: a walker whose width keeps it upright, Zhang et al.
2019 "fixing the overall length and width of the walker"; softmech.scenarios.walker). Its
frames stay free (their in-plane rotations are the rod's bending).
"""
import numpy as np

from softmech import _checks
from softmech.terms.base import RIGID, ROD, BodyTerm, Part, time_profile
from softmech.terms.boundary import Constraints, constraint_calls
from softmech.terms.rigid import rigid_arrays

_STILL = time_profile("hold", 0.0, 0.0, 0.0)
"""Profile of a held component: x = pos0 (no prescribed displacement)."""


class RigidHolds(Part):
    """The held translation components and orientations of rigid bodies: one position and one
    rate hook over all of them."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.nodes, self.frames = [], []

    def hold(self, body, translation, rotation):
        """Hold the lab-frame translation components flagged in `translation` (3,) bools of the
        rigid body `body` (softmech.bodies.rigid_body.RigidBody) at their initial values, and
        its orientation if `rotation`."""
        B = self.ctx.worlds
        slot = self.ctx.rigid_index[body.name]
        if any(translation):
            self.nodes.append((slot, np.broadcast_to(body.position, (B, 3)), np.zeros((B, 3)),
                               _STILL, np.asarray(translation, dtype=float)))
        if rotation:
            self.frames.append((slot, np.broadcast_to(body.principal_directors, (B, 3, 3))))

    def calls(self, engine):
        return constraint_calls(engine, self.nodes, self.frames, "rigid_",
                                **rigid_arrays(engine, x="rb_x", v="rb_v", Q="rb_Q", w="rb_w"))


class HoldMotion(BodyTerm):
    """HoldMotion(body, translation=(False, False, False), rotation=False, *, name="hold"):
    the rigid body's centre of mass keeps its initial x, y and/or z (lab frame: the components
    flagged True in `translation`) with zero velocity there, and with rotation=True its
    orientation keeps its initial frame, with zero angular velocity. Free components move under
    the body's loads as usual. At least one component must be held. The held values are those
    the body was built with.

    On a Cosserat rod: every node keeps its initial x, y and/or z (the flagged components), e.g.
    translation=(False, True, False) holds the rod in its plane y = y0 (module docstring);
    rotation=True is refused there (a rod's frames turn as it bends).
    """

    section = "boundary"
    kinds = (RIGID, ROD)

    def __init__(self, body, translation=(False, False, False), rotation=False, *, name="hold"):
        self.name = name
        self._set_target(body)
        translation = tuple(translation) if isinstance(translation, (list, tuple, np.ndarray)) \
            else translation
        if not (isinstance(translation, tuple) and len(translation) == 3
                and all(isinstance(f, (bool, np.bool_)) for f in translation)):
            raise ValueError(f"{name}.translation = {translation!r} is not allowed: must be three "
                             "booleans (hold x, y, z of the lab frame)")
        self.translation = tuple(bool(f) for f in translation)
        self.rotation = _checks.boolean(f"{name}.rotation", rotation)
        if not (any(self.translation) or self.rotation):
            raise ValueError(f"{name}: translation = {self.translation!r} and rotation = False "
                             "hold nothing: hold at least one component")

    def check_kind(self, kind):
        if kind == ROD and self.rotation:
            raise ValueError(f"{self.name}.rotation = True is not allowed on a Cosserat rod: its "
                             "element frames turn as it bends; hold translation components only "
                             "(or clamp an end: sm.Clamp)")

    def contribute_cosserat_rod(self, ctx, p):
        mask = np.asarray(self.translation, dtype=float)
        constraints = ctx.part(Constraints)
        for node in range(len(ctx.rod(self.rod, self.name).positions)):
            constraints.constrain_node(self.rod, node, None, _STILL, mask)

    def contribute_rigid_body(self, ctx, p):
        ctx.part(RigidHolds).hold(ctx.rigid_body(self.body, self.name), self.translation,
                                  self.rotation)
