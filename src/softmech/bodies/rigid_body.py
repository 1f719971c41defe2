"""Rigid bodies: sphere, cylinder, box and a general body (mass, inertia tensor, display mesh).

A rigid body's state is its centre of mass x [m], velocity v [m/s], frame Q (rows d1, d2, d3 in
the lab frame, as the rods' directors) and angular velocity w [rad/s] in that frame. Newton-Euler
equations (6 DoF):
    m dv/dt = F + m g,      J dw/dt = C + (J w) x w       (Euler's equations, body frame)
with J diagonal: the engine's frame is the body's *principal* frame. For spheres, cylinders and
boxes it is the frame the user gives (d3 along a cylinder's axis, box edges along d1, d2, d3);
a general body's inertia tensor (user frame) is diagonalised once at build time,
J_user = P^T diag(J) P (rows of P: principal axes in user coordinates), and the engine's frame
is Q_p = P Q_user. Users only see their own frame: Simulation.get_state converts back, and
body-fixed points (joints, contact, mesh) are given in user coordinates.

Inertia formulas (solid, uniform density; e.g. Goldstein, Classical Mechanics, table 5.1):
    sphere   J = 2/5 m r^2 (all axes)
    cylinder J3 = m r^2 / 2 (axis d3),  J1 = J2 = m (3 r^2 + L^2) / 12
    box      J1 = m (b^2 + c^2) / 12, ... for edge lengths (a, b, c) along (d1, d2, d3)
"""
from dataclasses import dataclass, field

import numpy as np

from softmech import _checks

SHAPES = ("sphere", "cylinder", "box", "general")

N_RIM = 2
"""Contact features of a cylinder: its two end discs (rims)."""


@dataclass
class RigidBody:
    """A rigid body as built. Vectors in the lab frame unless stated; `P` maps user body
    coordinates to principal ones (p_principal = P p_user)."""
    name: str
    shape: str
    mass: float                      # [kg]
    inertia: np.ndarray              # principal moments (3,) [kg m^2]
    P: np.ndarray                    # (3, 3), rows: principal axes in user body coordinates
    position: np.ndarray             # centre of mass (3,) [m]
    directors: np.ndarray            # user frame (3, 3), rows d1, d2, d3
    velocity: np.ndarray             # (3,) [m/s]
    angular_velocity: np.ndarray     # (3,) [rad/s], user body frame
    fixed: bool = False
    size: dict = field(default_factory=dict)     # radius, length, lengths [m] for display
    mesh: tuple = None               # (vertices (n, 3) [m] user body frame about the COM, faces (m, 3))
    contact: tuple = None            # (centres (k, 3) user frame, sphere radii (k,), disc axes
                                     #  (k, 3) user frame, disc radii (k,)): ground-contact features
    builder: tuple = None            # (kind, call) for scenario files

    n_nodes = 1
    """One "node" (the centre of mass) and one "element" (the frame): user-facing state arrays
    have the rods' shapes, (B, 1, 3) and (B, 1, 3, 3)."""
    n_elems = 1

    @property
    def principal_directors(self):
        """The engine's frame Q_p = P Q_user, (3, 3)."""
        return self.P @ self.directors

    def parameters(self):
        """Per-world parameters: mass (1,) [kg] and principal moments of inertia (1, 3) [kg m^2]."""
        return {"mass": np.array([self.mass]), "inertia": self.inertia[None].copy()}

    def to_principal(self, points):
        """User body coordinates (..., 3) -> principal coordinates."""
        return np.asarray(points, dtype=float) @ self.P.T


def _frame(owner, directors, direction=None, normal=None):
    """Orthonormal right-handed user frame from `directors` (3, 3), or from d3 = direction and
    d1 = normal (projected orthogonal), or the lab frame."""
    if directors is not None:
        if direction is not None or normal is not None:
            raise ValueError(f"{owner}: give directors or direction/normal, not both")
        Q = _checks.finite(f"{owner}.directors", directors, shape=(3, 3))
        _checks.orthonormal_frames(f"{owner}.directors", Q[None])
        return Q.copy()
    if direction is None and normal is None:
        return np.eye(3)
    d3 = _checks.unit_vector(f"{owner}.direction", (0.0, 0.0, 1.0) if direction is None else direction)
    n = _checks.finite(f"{owner}.normal", (1.0, 0.0, 0.0) if normal is None else normal, shape=(3,))
    d1 = n - np.dot(n, d3) * d3
    if np.linalg.norm(d1) < 1e-10:
        raise ValueError(f"{owner}.normal = {tuple(n)} is not allowed: parallel to direction")
    d1 /= np.linalg.norm(d1)
    return np.array([d1, np.cross(d3, d1), d3])


FIXED_DENSITY = 1000.0
"""Nominal density [kg/m^3] of a fixed body given neither density nor mass: a fixed body never
moves, so its mass is never used (joints and contact treat it as infinitely heavy); the nominal
value only keeps its recorded mass and inertia finite."""


def _mass(owner, volume, density, mass, size="", fixed=False):
    if density is None and mass is None and _checks.boolean(f"{owner}.fixed", fixed):
        density = FIXED_DENSITY
    if (density is None) == (mass is None):
        raise ValueError(f"{owner}: give exactly one of density [kg/m^3] or mass [kg] (a fixed "
                         "body, fixed=True, needs neither)")
    if mass is not None:
        return float(_checks.positive(f"{owner}.mass", mass, shape=()))
    m = float(_checks.physical(f"{owner}.density", density, _checks.DENSITY, shape=())) * volume
    if not 0.0 < m < np.inf:        # a huge or tiny size or density: inf or 0 kg
        raise ValueError(f"{owner}.density = {density!r} is not allowed with {size} (volume "
                         f"{volume:g} m^3): the mass {m:g} kg must be finite and > 0")
    return m


def build_rigid_body(name, shape, *, position, mass, inertia_tensor, directors, velocity,
                     angular_velocity, fixed, size, mesh=None, contact=None):
    """Validate the common fields and return a RigidBody. inertia_tensor (3, 3) [kg m^2] about
    the centre of mass in the user body frame: symmetric positive definite."""
    owner = f"body '{name}'"
    position = _checks.coordinates(f"{owner}.position", position, shape=(3,))
    velocity = _checks.finite(f"{owner}.velocity", velocity, shape=(3,))
    angular_velocity = _checks.finite(f"{owner}.angular_velocity", angular_velocity, shape=(3,))
    fixed = _checks.boolean(f"{owner}.fixed", fixed)
    if fixed and (np.any(velocity) or np.any(angular_velocity)):
        raise ValueError(f"{owner}: a fixed body cannot have an initial velocity or angular velocity")
    J = _checks.finite(f"{owner}.inertia", inertia_tensor, shape=(3, 3))
    if not np.allclose(J, J.T, rtol=1e-10, atol=1e-14 * np.abs(J).max()):
        raise ValueError(f"{owner}.inertia is not allowed: the inertia tensor must be symmetric")
    moments, axes = np.linalg.eigh(0.5 * (J + J.T))
    if moments[0] <= 0.0:
        raise ValueError(f"{owner}.inertia is not allowed: not positive definite (principal "
                         f"moments {moments.tolist()} kg m^2 must all be > 0)")
    if moments[0] + moments[1] < moments[2] * (1.0 - 1e-9):
        raise ValueError(f"{owner}.inertia is not allowed: principal moments {moments.tolist()} "
                         f"violate the triangle inequality J1 + J2 >= J3 of a physical body")
    P = axes.T.copy()
    if np.linalg.det(P) < 0:
        P[2] *= -1.0
    if shape != "general":  # the user frame is principal already: keep its axes and their order
        P = np.eye(3)
        moments = np.diag(J).copy()
    return RigidBody(name=name, shape=shape, mass=mass, inertia=moments, P=P, position=position,
                     directors=directors, velocity=velocity, angular_velocity=angular_velocity,
                     fixed=fixed, size=size, mesh=mesh, contact=contact)


def point_features(points, radius):
    """Contact features of points (k, 3) with sphere radius `radius` [m] (0 for corners)."""
    points = np.atleast_2d(points).astype(float)
    k = len(points)
    return (points, np.full(k, float(radius)), np.tile([0.0, 0.0, 1.0], (k, 1)), np.zeros(k))


def sphere(name, *, position, radius, density=None, mass=None, **common):
    r = float(_checks.physical(f"body '{name}'.radius", radius, _checks.LENGTH, shape=()))
    m = _mass(f"body '{name}'", 4.0 / 3.0 * np.pi * r * r * r, density, mass,   # r**3 raises
              f"radius = {r:g} m", common.get("fixed", False))
    # OverflowError for r = 1e300 where r * r * r gives inf, refused by _mass
    return build_rigid_body(name, "sphere", position=position, mass=m,
                            inertia_tensor=np.eye(3) * 0.4 * m * r * r, size={"radius": r},
                            contact=point_features(np.zeros(3), r), **common)


def cylinder(name, *, position, radius, length, density=None, mass=None, **common):
    owner = f"body '{name}'"
    r = float(_checks.physical(f"{owner}.radius", radius, _checks.LENGTH, shape=()))
    L = float(_checks.physical(f"{owner}.length", length, _checks.LENGTH, shape=()))
    m = _mass(owner, np.pi * r * r * L, density, mass, f"radius = {r:g} m, length = {L:g} m",
              common.get("fixed", False))
    perp = m * (3.0 * r * r + L * L) / 12.0
    caps = np.array([[0.0, 0.0, -0.5 * L], [0.0, 0.0, 0.5 * L]])
    contact = (caps, np.zeros(N_RIM), np.tile([0.0, 0.0, 1.0], (N_RIM, 1)), np.full(N_RIM, r))
    return build_rigid_body(name, "cylinder", position=position, mass=m,
                            inertia_tensor=np.diag([perp, perp, 0.5 * m * r * r]),
                            size={"radius": r, "length": L}, contact=contact, **common)


def box(name, *, position, lengths, density=None, mass=None, **common):
    owner = f"body '{name}'"
    a, b, c = (float(v) for v in _checks.finite(f"{owner}.lengths", lengths, shape=(3,)))
    if min(a, b, c) <= 0:
        raise ValueError(f"{owner}.lengths = {(a, b, c)} is not allowed: edge lengths must be > 0")
    _checks.physical(f"{owner}.lengths", (a, b, c), _checks.LENGTH)
    m = _mass(owner, a * b * c, density, mass, f"lengths = {[a, b, c]} m",
              common.get("fixed", False))
    J = np.diag([b * b + c * c, a * a + c * c, a * a + b * b]) * m / 12.0
    corners = 0.5 * np.array([[sx * a, sy * b, sz * c] for sx in (-1, 1) for sy in (-1, 1)
                              for sz in (-1, 1)])
    return build_rigid_body(name, "box", position=position, mass=m, inertia_tensor=J,
                            size={"lengths": np.array([a, b, c])},
                            contact=point_features(corners, 0.0), **common)


FIXED_MASS = 1.0
"""Nominal mass [kg] (and inertia, FIXED_MASS x identity [kg m^2]) of a fixed general body given
neither: as FIXED_DENSITY, never used by the dynamics."""


def general(name, *, position, mass=None, inertia=None, vertices=None, faces=None, **common):
    """A body of given mass [kg] and inertia tensor (3, 3) [kg m^2] about its centre of mass in
    the user body frame (a fixed body, fixed=True, needs neither); optional mesh (vertices
    (n, 3) [m] about the centre of mass, user body frame; faces (m, 3) vertex indices): drawn,
    its vertices are its ground-contact points, and rods touch its triangles
    (sm.RodBodyContact)."""
    owner = f"body '{name}'"
    if _checks.boolean(f"{owner}.fixed", common.get("fixed", False)):
        mass = FIXED_MASS if mass is None else mass
        inertia = FIXED_MASS * np.eye(3) if inertia is None else inertia
    if mass is None or inertia is None:
        raise ValueError(f"{owner}: give mass [kg] and inertia (3, 3) [kg m^2] (a fixed body, "
                         "fixed=True, needs neither)")
    m = float(_checks.positive(f"{owner}.mass", mass, shape=()))
    mesh = contact = None
    if (vertices is None) != (faces is None):
        raise ValueError(f"{owner}: give both vertices and faces of the mesh, or neither")
    if vertices is not None:
        V = np.asarray(vertices, dtype=float)
        if V.ndim != 2 or V.shape[1] != 3 or len(V) < 4:
            raise ValueError(f"{owner}.vertices has shape {V.shape}: expected (n >= 4, 3)")
        _checks.finite(f"{owner}.vertices", V)
        F = np.asarray(faces)
        if F.ndim != 2 or F.shape[1] != 3 or len(F) == 0 or not np.issubdtype(F.dtype, np.integer):
            raise ValueError(f"{owner}.faces has shape {F.shape}: expected (m >= 1, 3) integers")
        if F.min() < 0 or F.max() >= len(V):
            raise ValueError(f"{owner}.faces refers to vertex {int(F.max() if F.max() >= len(V) else F.min())}"
                             f": allowed 0 .. {len(V) - 1}")
        mesh = (V, F.astype(np.int64))
        contact = point_features(V, 0.0)
    return build_rigid_body(name, "general", position=position, mass=m, inertia_tensor=inertia,
                            size={}, mesh=mesh, contact=contact, **common)


BUILDERS = {"sphere": sphere, "cylinder": cylinder, "box": box, "general": general}


def describe(body):
    """The static description of a body that pictures need (stored in results files under
    /bodies/<name>; softmech.viz.solids draws from it): shape (str), fixed (bool), mass [kg],
    inertia (3, 3) [kg m^2] about the centre of mass in the user body frame, principal_axes
    P (3, 3), the shape's sizes (radius [m], length [m], lengths (3,) [m], as built) and, for a
    general body with a mesh, vertices (n, 3) [m] (user body frame about the centre of mass)
    and faces (m, 3) int."""
    out = {"shape": body.shape, "fixed": bool(body.fixed), "mass": float(body.mass),
           "inertia": body.P.T @ np.diag(body.inertia) @ body.P, "principal_axes": body.P.copy()}
    out.update({k: np.asarray(v, dtype=float) for k, v in body.size.items()})
    if body.mesh is not None:
        out["vertices"], out["faces"] = np.asarray(body.mesh[0], float), np.asarray(body.mesh[1])
    return out


def to_engine_frame(body, directors, angular_velocities):
    """User frame (..., 3, 3) and user-frame angular velocities (..., 3) -> the engine's
    principal frame Q_p = P Q and w_p = P w."""
    return body.P @ np.asarray(directors), np.asarray(angular_velocities) @ body.P.T


def to_user_frame(body, directors, angular_velocities):
    """Inverse of to_engine_frame: Q = P^T Q_p, w = P^T w_p."""
    return body.P.T @ np.asarray(directors), np.asarray(angular_velocities) @ body.P
