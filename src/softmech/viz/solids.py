"""Rigid bodies and joints in the 3D views (softmech.viz.tubes and softmech.viz.povray draw them
like any other body: through their triangle mesh).

A rigid body is drawn from its description (softmech.bodies.rigid_body.describe, stored in
results files under /bodies/<name>) at a recorded pose: centre of mass x (3,) [m] and frame Q
(3, 3) (rows d1, d2, d3 in the lab frame). Its mesh is built in the body frame about the
centre of mass (body_mesh) and placed at the pose by `place`, the one function that puts body
points into the lab frame (lab = x + Q^T p) for both renderers:

    sphere    UV sphere of its radius
    cylinder  its radius and length along d3, flat caps
    box       its edge lengths along d1, d2, d3
    general   its mesh; without one, the box of the same mass and principal moments
              (equivalent_box) along its principal axes

A joint is drawn as a small dark sphere at its point (the middle of its two ends), and, when
the ends have drifted apart by more than the marker's radius, a thin line between them.
"""
import functools
import math
from dataclasses import dataclass

import numpy as np

from softmech import _checks
from softmech.viz.geometry import RodBody, box_mesh, check_color, check_opacity, rod_color

SHAPES = ("sphere", "cylinder", "box", "general")
JOINT_COLOR = (0.13, 0.13, 0.15)
"""Colour (RGB in [0, 1]) of joint markers and lines."""
JOINT_SIZE = {"rod": 1.6, "rigid": 0.25}
"""Joint marker radius as a multiple of the rod's radius at the joint's node, or of half the
smallest extent of a rigid body (the smaller over the two ends) [-]."""
SIDES = 24
"""Default vertices around a sphere's or cylinder's circumference."""


def place(points, position, directors):
    """Body-frame points (..., 3) [m] (about the centre of mass) -> lab frame: x + Q^T p, for
    Q (3, 3) with rows d1, d2, d3 (lab frame) and x (3,) [m]. Directions: position = 0."""
    return np.asarray(position, float) + np.asarray(points, float) @ np.asarray(directors, float)


def sphere_mesh(radius, sides=SIDES):
    """UV sphere of `radius` [m] about the origin: (vertices (V, 3) [m], faces (F, 3) int,
    outward counter-clockwise, unit vertex normals (V, 3)). The faces and normals are shared
    between calls with the same `sides` (read-only arrays): a wing's thousands of joint
    markers are drawn every frame."""
    normals, faces = _unit_sphere(_checks.integer("sides", sides, 3))
    return radius * normals, faces, normals


def sphere_meshes(spheres, sides=SIDES):
    """The meshes of many sphere SolidBodies at once, in the lab frame: (vertices (n V, 3) [m],
    faces (n F, 3) int, F = faces per sphere), sphere k's faces k F ... (k + 1) F - 1. The
    same numbers as each one's `mesh(sides)`, without a Python call per sphere (a feathered
    wing shows ~2,800 joint markers a frame)."""
    unit, faces = _unit_sphere(_checks.integer("sides", sides, 3))
    radius = np.array([float(b.description["radius"]) for b in spheres])
    position = np.array([b.position for b in spheres]).reshape(-1, 3)
    directors = np.array([b.directors for b in spheres]).reshape(-1, 3, 3)
    vertices = position[:, None, :] + (radius[:, None, None] * unit) @ directors
    offsets = len(unit) * np.arange(len(spheres))[:, None, None]
    return vertices.reshape(-1, 3), (faces + offsets).reshape(-1, 3)


@functools.lru_cache(maxsize=64)
def _unit_sphere(sides):
    """(unit vertex normals (V, 3), faces (F, 3) int) of the UV sphere with `sides` vertices
    around its equator, read-only."""
    rings = max(2, sides // 2)
    theta = np.pi * np.arange(1, rings) / rings
    phi = 2.0 * np.pi * np.arange(sides) / sides
    ring = np.stack([np.outer(np.sin(theta), np.cos(phi)), np.outer(np.sin(theta), np.sin(phi)),
                     np.repeat(np.cos(theta)[:, None], sides, 1)], -1).reshape(-1, 3)
    normals = np.concatenate([ring, [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0]]])
    north, south = len(ring), len(ring) + 1
    i = np.arange(rings - 2)[:, None]
    j = np.arange(sides)[None, :]
    a, b = i * sides + j, i * sides + (j + 1) % sides
    c, d = b + sides, a + sides
    k0, k1 = np.arange(sides), (np.arange(sides) + 1) % sides
    last = (rings - 2) * sides
    faces = np.concatenate([np.stack([a, d, c], -1).reshape(-1, 3),
                            np.stack([a, c, b], -1).reshape(-1, 3),
                            np.stack([np.full(sides, north), k0, k1], -1),
                            np.stack([np.full(sides, south), last + k1, last + k0], -1)])
    faces = faces.astype(np.int64)
    normals.flags.writeable = False
    faces.flags.writeable = False
    return normals, faces


def cylinder_mesh(radius, length, sides=SIDES):
    """Cylinder of `radius` and `length` [m] along z, centred on the origin, with flat caps
    (their vertices apart from the side's, so normals stay sharp at the rims): (vertices,
    faces, outward counter-clockwise, unit vertex normals)."""
    sides = _checks.integer("sides", sides, 3)
    phi = 2.0 * np.pi * np.arange(sides) / sides
    radial = np.stack([np.cos(phi), np.sin(phi), np.zeros(sides)], -1)
    half = np.array([0.0, 0.0, 0.5 * length])
    z = np.array([0.0, 0.0, 1.0])
    vertices = np.concatenate([radius * radial - half, radius * radial + half,      # side
                               radius * radial - half, radius * radial + half,      # caps
                               [-half, half]])
    normals = np.concatenate([radial, radial, np.tile(-z, (sides, 1)), np.tile(z, (sides, 1)),
                              [-z, z]])
    k0, k1 = np.arange(sides), (np.arange(sides) + 1) % sides
    bottom, top = 4 * sides, 4 * sides + 1
    faces = np.concatenate([np.stack([k0, k1, sides + k1], -1), np.stack([k0, sides + k1, sides + k0], -1),
                            np.stack([np.full(sides, bottom), 2 * sides + k1, 2 * sides + k0], -1),
                            np.stack([np.full(sides, top), 3 * sides + k0, 3 * sides + k1], -1)])
    return vertices, faces.astype(np.int64), normals


def equivalent_box(mass, inertia):
    """Edge lengths (3,) [m] of the uniform box with the given mass [kg] and principal moments
    `inertia` (3,) [kg m^2]: a_i^2 = 6 (J_j + J_k - J_i) / m (a flat body: a thin box)."""
    J = np.asarray(inertia, float)
    squares = 6.0 * (J.sum() - 2.0 * J) / float(mass)
    return np.sqrt(np.maximum(squares, 1e-6 * squares.max()))


def body_mesh(description, sides=SIDES):
    """(vertices (V, 3) [m] in the body frame about the centre of mass, faces (F, 3) int,
    vertex normals (V, 3) or None for flat faces) of a rigid body's description."""
    shape = _checks.choice("shape", description["shape"], SHAPES)
    if shape == "sphere":
        return sphere_mesh(float(description["radius"]), sides)
    if shape == "cylinder":
        return cylinder_mesh(float(description["radius"]), float(description["length"]), sides)
    if shape == "box":
        half = 0.5 * np.asarray(description["lengths"], float)
        return (*box_mesh(-half, half), None)
    if "vertices" in description:
        return (np.asarray(description["vertices"], float),
                np.asarray(description["faces"], np.int64), None)
    P = np.asarray(description["principal_axes"], float)     # rows: principal axes (user frame)
    moments = np.diag(P @ np.asarray(description["inertia"], float) @ P.T)
    half = 0.5 * equivalent_box(description["mass"], moments)
    vertices, faces = box_mesh(-half, half)
    return vertices @ P, faces, None


def half_size(description):
    """Half the smallest extent [m] of a rigid body's mesh in its frame (joint markers, floor).
    A sphere's, cylinder's or box's is read from its sizes (the same number as from its mesh:
    its vertices at 8 sides reach +-radius exactly), without building the mesh: every joint
    marker of every frame asks for it."""
    shape = description["shape"]
    if shape == "sphere":
        return float(description["radius"])
    if shape == "cylinder":
        return min(float(description["radius"]), 0.5 * float(description["length"]))
    if shape == "box":
        return 0.5 * float(np.min(np.asarray(description["lengths"], float)))
    vertices = body_mesh(description, 8)[0]
    return 0.5 * float(np.min(vertices.max(axis=0) - vertices.min(axis=0)))


@dataclass(frozen=True)
class SolidBody:
    """A rigid body at one instant: its description (softmech.bodies.rigid_body.describe),
    centre of mass `position` (3,) [m], frame `directors` (3, 3) (rows d1, d2, d3), colour (RGB
    in [0, 1]), opacity in (0, 1]. Build it with SolidBody.make."""
    name: str
    description: dict
    position: np.ndarray
    directors: np.ndarray
    color: tuple = rod_color(0)
    opacity: float = 1.0

    @classmethod
    def make(cls, name, description, position, directors=None, *, color=None, index=0,
             opacity=1.0):
        """Validated SolidBody; directors default to the lab frame (a sphere needs none);
        colour default rod_color(index)."""
        _checks.choice(f"{name}.shape", description.get("shape"), SHAPES)
        x = _checks.finite(f"{name}.position", position, shape=(3,))
        Q = np.eye(3) if directors is None else _checks.finite(f"{name}.directors", directors,
                                                                shape=(3, 3))
        color = rod_color(index) if color is None else check_color(name, color)
        return cls(name, description, x, Q, color, check_opacity(name, opacity))

    @property
    def watertight(self):
        """True when the mesh is a closed surface (sphere, cylinder, box, the box of a general
        body without a mesh), so that its faces turned away from the camera are hidden by
        the others (a general mesh, such as a shell's, may be open: False)."""
        return self.description["shape"] != "general" or "vertices" not in self.description

    def smooth_mesh(self, sides=SIDES):
        """(vertices (V, 3) [m], faces (F, 3), vertex normals (V, 3) or None) in the lab frame."""
        vertices, faces, normals = body_mesh(self.description, sides)
        normals = None if normals is None else place(normals, np.zeros(3), self.directors)
        return place(vertices, self.position, self.directors), faces, normals

    def mesh(self, sides=SIDES):
        """(vertices (V, 3) [m], faces (F, 3) int) in the lab frame."""
        return self.smooth_mesh(sides)[:2]

    def bounds(self):
        """(lo, hi): corners (3,) [m] of the box around the body."""
        vertices = self.mesh()[0]
        return vertices.min(axis=0), vertices.max(axis=0)

    @staticmethod
    def bounds_of_many(bodies):
        """(lo, hi): corners (3,) [m] of the box around all `bodies` (SolidBodies), the same
        numbers as the bodies' own bounds(): spheres in the lab frame (joint markers) from
        their centres and radii at once (the box of the unit sphere's vertices, scaled and
        moved: exact, as both are monotonic), the others one by one. An elbow video's 100
        frames hold ~8,500 joint markers, a wing's ~280,000: their meshes, one by one, took
        1 s and 19 s."""
        def in_lab(b):          # joint markers share _LAB: `is` spares ~10 us a body
            return b.description["shape"] == "sphere" and (
                b.directors is _LAB or np.array_equal(b.directors, _LAB))

        plain = [b for b in bodies if in_lab(b)]
        boxes = [b.bounds() for b in bodies if not in_lab(b)]
        if plain:
            unit = _unit_sphere(SIDES)[0]
            radius = np.array([float(b.description["radius"]) for b in plain])[:, None]
            centre = np.array([b.position for b in plain], float)
            boxes.append(((centre + radius * unit.min(axis=0)).min(axis=0),
                          (centre + radius * unit.max(axis=0)).max(axis=0)))
        return np.min([b[0] for b in boxes], axis=0), np.max([b[1] for b in boxes], axis=0)


def end_point(end, bodies):
    """Lab position (3,) [m] of a joint end {body, node, point} (softmech.terms.joints:
    describe) among `bodies` {name: RodBody or SolidBody}; None when its body is not there."""
    body = bodies.get(end["body"])
    if body is None:
        return None
    if isinstance(body, RodBody):
        return body.positions[int(end["node"])]
    return place(end["point"], body.position, body.directors)


_LAB = np.eye(3)
_LAB.flags.writeable = False          # the lab frame, shared by every joint marker


def joint_bodies(name, joint, bodies):
    """Bodies that show joint `name` ({kind, a, b}) among `bodies` {name: RodBody or
    SolidBody}: a marker (SolidBody sphere) at the middle of its ends and, if they are apart by
    more than its radius, a line (a thin SolidBody cylinder) between them. [] when neither
    end's body is shown."""
    points, sizes = [], []
    for side in ("a", "b"):
        end, body = joint[side], bodies.get(joint[side]["body"])
        point = end_point(end, bodies)
        if point is None:
            continue
        points.append(point)
        sizes.append(JOINT_SIZE["rod"] * float(body.radius[int(end["node"])])
                     if isinstance(body, RodBody)
                     else JOINT_SIZE["rigid"] * half_size(body.description))
    if not points:
        return []
    radius = min(sizes)
    # made without SolidBody.make's checks: the points come from bodies checked when they
    # were made, and a wing's ~2,800 joints a frame would spend most of a frame's time there
    middle = points[0] if len(points) == 1 else 0.5 * (points[0] + points[1])
    marker = SolidBody(f"{name} joint", {"shape": "sphere", "radius": radius}, middle, _LAB,
                       JOINT_COLOR)
    gap = points[-1] - points[0]
    length = math.sqrt(gap @ gap)       # np.linalg.norm's own sum, without its ~10 us of checks
    if length <= radius:
        return [marker]
    line = SolidBody(f"{name} gap", {"shape": "cylinder", "radius": 0.3 * radius,
                                     "length": length}, middle, frame_along(gap / length),
                     JOINT_COLOR)
    return [marker, line]


def frame_along(d3):
    """A right-handed frame (3, 3) (rows d1, d2, d3) whose d3 is the unit vector `d3`."""
    helper = np.eye(3)[int(np.argmin(np.abs(d3)))]
    d1 = np.cross(d3, helper)
    d1 /= np.linalg.norm(d1)
    return np.array([d1, np.cross(d3, d1), d3])
