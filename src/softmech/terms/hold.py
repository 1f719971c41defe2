"""Held degrees of freedom of a rigid body: a rail or a test rig that lets a body move only along
some lab axes, or keeps its orientation (HoldMotion).

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
"""
import numpy as np

from softmech import _checks
from softmech.terms.base import RIGID, BodyTerm, Part, time_profile
from softmech.terms.boundary import constraint_calls
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
    """

    section = "boundary"
    kinds = (RIGID,)

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

    def contribute_rigid_body(self, ctx, p):
        ctx.part(RigidHolds).hold(ctx.rigid_body(self.body, self.name), self.translation,
                                  self.rotation)
