"""Muscle rods glued to a body rod (Zhang, Chan, Parthasarathy, Gazzola, Nat. Commun. 10:4825,
2019, Fig. 3: "muscles and tendons are 'glued' to the body, hence complying with the same local
curvature in response to the full body dynamics").

A muscle rod runs parallel to a straight stretch of a body rod, nodes i0..i1 of the body, at a
fixed offset in the body's material frame (the snake's +-r/2 along its lateral director d2);
its node j is held at the body point x_{i0+j} + Q^T offset by a SphericalJoint whose body end
is (body, i0 + j, offset) (softmech.terms.joints: the force acts at the offset point and puts
the torque (Q^T offset) x F on the body's element). The muscle's contraction (an ActiveMuscle)
is thus carried by the body through the glue: its end joints (the tendons' anchors) take the
muscle tension, its interior joints the lateral pull T kappa dl of a curved muscle.

reaction="couple" glues the muscle the way the paper's own code does (mattialab/elastica,
ExternalContact.h, FLAGMUSCULARSNAKE; read, not copied): the end joints pull the muscle and
give the body only their moment about its axis, (Q^T offset) x F, as couples on the span's end
elements ("we ... apply this averaged torque to the snake body"), and the interior joints pull
the muscle alone ("we ignore the effect of the opposite, equivalent force applied on the
body"). So the body is bent but never compressed by its muscles, nor does it carry their
weight: a couples model with the muscles' dynamics, not Newton's third law
(softmech.kernels.joints, one-way glue). One difference: that code's interior glue pulls only
along the muscle's lateral director and lets it slide along the body; here it holds the muscle
in every direction, because a sliding muscle went unstable (its nodes oscillating laterally,
growing within 0.12 s of the snake's first contraction at dt = 25 and 12.5 us; measured). The
end anchors still carry the muscle's tension less what the glue next to them takes
(E_m A_m / (k l) of it, 0.6 % for the snake's muscles).

    glue_muscle(scene, body, first, last, offset, radius=..., youngs_modulus=..., density=...,
                stiffness=..., damping=..., reaction="force", name="m")   # -> the muscle rod
"""
import numpy as np

from softmech import _checks
from softmech.terms.joints import SphericalJoint, rod_node, rod_offset

GLUE_REACTIONS = ("force", "couple")
"""How the body feels a glued muscle: Newton's third law at every glue joint, or the paper's
code's couples at the span's ends (module docstring)."""


def glue_muscle(scene, body, first, last, offset, *, radius, youngs_modulus, density,
                stiffness, damping=0.0, shear_modulus=None, reaction="force", name):
    """Add a straight muscle rod glued to body rod `body` (straight between its nodes `first` <
    `last`) at `offset` (3,) [m] in the body's element frames, one element per body element,
    and its last - first + 1 glue joints (stiffness [N/m], damping [N s/m]; names
    `<name>_glue<j>`). radius [m], youngs_modulus [Pa], density [kg/m^3] of the muscle; shear
    modulus default E / 3 (incompressible); reaction "force" or "couple" (GLUE_REACTIONS).
    Returns the muscle rod (its d1, d3 those of the body).
    """
    reaction = _checks.choice(f"{name}.reaction", reaction, set(GLUE_REACTIONS))
    first = rod_node(name, "first", body, first)
    last = rod_node(name, "last", body, last)
    if not first < last:
        raise ValueError(f"{name}: first = {first}, last = {last} is not allowed: the muscle "
                         f"needs first < last (body nodes, at least one element)")
    offset = rod_offset(name, "offset", body, _checks.finite(f"{name}.offset", offset, shape=(3,)))
    nodes = body.positions[first:last + 1]
    d = body.directors[first:last]                                         # (n, 3, 3)
    chord = nodes[-1] - nodes[0]
    straight = np.linalg.norm(np.cross(nodes - nodes[0], chord), axis=1).max() / np.linalg.norm(chord)
    if straight > 1e-9 * np.linalg.norm(chord) or np.ptp(d, axis=0).max() > 1e-9:
        raise ValueError(f"{name}: body nodes {first}..{last} of rod {body.name!r} must be straight "
                         f"with one frame (a muscle rod is built straight along them)")
    shift = d[0].T @ offset                                                # lab [m]
    muscle = scene.add_cosserat_rod(
        name=name, centerline=nodes + shift, normal=d[0][0], radius=radius, density=density,
        youngs_modulus=youngs_modulus,
        shear_modulus=youngs_modulus / 3.0 if shear_modulus is None else shear_modulus)
    n = last - first
    for j in range(n + 1):
        one_way = "force" if reaction == "force" else ("couple" if j in (0, n) else "none")
        scene.add(SphericalJoint((body, first + j, tuple(offset)), (muscle, j),
                                 stiffness=stiffness, damping=damping, reaction=one_way,
                                 name=f"{name}_glue{j}"))
    return muscle


__all__ = ["GLUE_REACTIONS", "glue_muscle"]
