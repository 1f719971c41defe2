"""Cosserat rod bodies: geometry (straight, arbitrary centreline), materials and the discrete
quantities of Gazzola et al. 2018 (node masses, element inertia, stiffness matrices).

Cross-sections are solid circles of radius r: A = pi r^2, I1 = I2 = pi r^4 / 4, I3 = 2 I1.
Stiffness (ME498 handout Table 2): S = diag(alpha_c G A, alpha_c G A, E A),
B = diag(E I1, E I2, G I3); B on a Voronoi domain is the rest-length-weighted mean of its two
elements (as in PyElastica), node masses are half of each adjacent element's rho A l^.
"""
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation

from softmech import _checks

LAWS = {"gazzola2018": (1.0, 1.0, 0.0), "hyperelastic": (0.0, 0.0, 1.0)}
"""Constitutive laws -> (stretch_current, bend_current, exact_log_jacobian); see cosserat_forces."""


def frames_along(positions, normal):
    """Directors (n, 3, 3) with d3 along each edge and d1 parallel-transported from `normal`.

    positions: (n + 1, 3) [m]; normal: (3,) first d1, projected orthogonal to the first edge.
    Parallel transport (rotation-minimizing frame) keeps the initial twist zero.
    """
    edges = np.diff(positions, axis=0)
    t = edges / np.linalg.norm(edges, axis=1, keepdims=True)
    d1 = normal - np.dot(normal, t[0]) * t[0]
    if np.linalg.norm(d1) < 1e-10:
        raise ValueError("normal is parallel to the rod's first edge: it must have a component "
                         "perpendicular to the centreline")
    d1 /= np.linalg.norm(d1)
    Q = np.empty((len(t), 3, 3))
    for i in range(len(t)):
        if i > 0:
            axis = np.cross(t[i - 1], t[i])
            s = np.linalg.norm(axis)
            if s > 1e-14:
                angle = np.arctan2(s, np.dot(t[i - 1], t[i]))
                d1 = Rotation.from_rotvec(axis / s * angle).apply(d1)
            d1 -= np.dot(d1, t[i]) * t[i]
            d1 /= np.linalg.norm(d1)
        Q[i] = (d1, np.cross(t[i], d1), t[i])
    return Q


def curvature_of(Q, voronoi_rest_lengths):
    """kappa_j = -log(Q_{j+1} Q_j^T) / D^_j (handout erratum), shape (..., n - 1, 3) [1/m]."""
    R = Q[..., 1:, :, :] @ np.swapaxes(Q[..., :-1, :, :], -1, -2)
    flat = R.reshape(-1, 3, 3)
    rotvec = Rotation.from_matrix(flat).as_rotvec() if len(flat) else np.zeros((0, 3))
    return -rotvec.reshape(R.shape[:-1]) / voronoi_rest_lengths[..., None]


def shear_strain_of(Q, positions, rest_lengths):
    """sigma_i = Q_i (x_{i+1} - x_i) / l^_i - (0, 0, 1), shape (..., n, 3) [-]."""
    edges = np.diff(positions, axis=-2)
    local = np.einsum("...ij,...j->...i", Q, edges) / rest_lengths[..., None]
    local[..., 2] -= 1.0
    return local


@dataclass
class CosseratRod:
    """A Cosserat rod as built (rest state = initial state unless rest strains are given).

    Shapes: positions (n+1, 3) [m]; directors (n, 3, 3); per-element arrays (n,) in SI units;
    rest_curvature (n-1, 3) [1/m]; rest_strain (n, 3) [-].
    """
    name: str
    positions: np.ndarray
    directors: np.ndarray
    radius: np.ndarray
    density: np.ndarray
    youngs_modulus: np.ndarray
    shear_modulus: np.ndarray
    shear_coefficient: float = 4.0 / 3.0
    law: str = "gazzola2018"
    rest_curvature: np.ndarray = None
    rest_strain: np.ndarray = None
    velocities: np.ndarray = None
    angular_velocities: np.ndarray = None
    rest_lengths: np.ndarray = field(init=False)

    def __post_init__(self):
        self.rest_lengths = np.linalg.norm(np.diff(self.positions, axis=0), axis=1)
        n = self.n_elems
        if self.rest_curvature is None:
            self.rest_curvature = np.zeros((n - 1, 3))
        if self.rest_strain is None:
            self.rest_strain = np.zeros((n, 3))
        if self.velocities is None:
            self.velocities = np.zeros((n + 1, 3))
        if self.angular_velocities is None:
            self.angular_velocities = np.zeros((n, 3))
        f = f"rod '{self.name}'"
        _checks.finite(f"{f}.rest_curvature", self.rest_curvature, shape=(n - 1, 3))
        _checks.finite(f"{f}.rest_strain", self.rest_strain, shape=(n, 3))
        _checks.finite(f"{f}.velocities", self.velocities, shape=(n + 1, 3))
        _checks.finite(f"{f}.angular_velocities", self.angular_velocities, shape=(n, 3))
        _checks.positive(f"{f}.shear_coefficient", self.shear_coefficient)
        _checks.choice(f"{f}.law", self.law, LAWS)

    @property
    def n_elems(self):
        return len(self.directors)

    @property
    def n_nodes(self):
        return self.n_elems + 1

    @property
    def voronoi_rest_lengths(self):
        return 0.5 * (self.rest_lengths[1:] + self.rest_lengths[:-1])

    @property
    def length(self):
        return float(self.rest_lengths.sum())

    def parameters(self):
        """Per-world parameter arrays with a leading dimension of 1 (name -> (1, ...))."""
        return {
            "radius": self.radius[None].copy(),
            "density": self.density[None].copy(),
            "youngs_modulus": self.youngs_modulus[None].copy(),
            "shear_modulus": self.shear_modulus[None].copy(),
            "shear_coefficient": np.full((1, self.n_elems), float(self.shear_coefficient)),
            "rest_curvature": self.rest_curvature[None].copy(),
            "rest_strain": self.rest_strain[None].copy(),
        }


def section_properties(radius):
    """Area A = pi r^2 [m^2] and second moments (I1, I2, I3) [m^4] of solid circles, (..., 3)."""
    area = np.pi * radius**2
    i1 = area * radius**2 / 4.0
    return area, np.stack([i1, i1, 2.0 * i1], axis=-1)


def discrete_properties(rest_lengths, p):
    """Derived per-world arrays from parameters p (each (B, n) or (B, n, 3)).

    Returns dict with node_mass (B, n+1) [kg], elem_J (B, n, 3) [kg m^2], elem_S (B, n, 3) [N],
    vor_B (B, n-1, 3) [N m^2].
    """
    area, inertia = section_properties(p["radius"])
    elem_mass = p["density"] * area * rest_lengths
    node_mass = np.zeros((elem_mass.shape[0], elem_mass.shape[1] + 1))
    node_mass[:, :-1] += 0.5 * elem_mass
    node_mass[:, 1:] += 0.5 * elem_mass
    E, G, a = p["youngs_modulus"], p["shear_modulus"], p["shear_coefficient"]
    elem_S = np.stack([a * G * area, a * G * area, E * area], axis=-1)
    elem_Bend = np.stack([E * inertia[..., 0], E * inertia[..., 1], G * inertia[..., 2]], axis=-1)
    w = rest_lengths[:, None]
    vor_B = (elem_Bend[:, 1:] * w[1:] + elem_Bend[:, :-1] * w[:-1]) / (w[1:] + w[:-1])
    elem_J = (p["density"] * rest_lengths)[..., None] * inertia
    return {"node_mass": node_mass, "elem_J": elem_J, "elem_S": elem_S, "vor_B": vor_B}


def build_rod(name, *, positions, normal=None, directors=None, radius, density, youngs_modulus,
              shear_modulus=None, poisson_ratio=0.5, shear_coefficient=4.0 / 3.0,
              law="gazzola2018", rest_curvature=None, rest_strain=None, positions_field="positions"):
    """Validate user input and build a CosseratRod from a centreline (n+1, 3).

    rest_curvature: None (straight rest state), "initial" (the initial shape is stress-free) or an
    array (n-1, 3) [1/m]. shear_modulus defaults to E / (2 (1 + poisson_ratio)).
    """
    f = f"rod '{name}'"
    pf = f"{f}.{positions_field}"
    positions = _checks.finite(pf, positions, shape=(None, 3))
    if len(positions) < 2:
        raise ValueError(f"{pf} has {len(positions)} nodes, expected at least 2")
    n = len(positions) - 1
    edge_len = np.linalg.norm(np.diff(positions, axis=0), axis=1)
    if np.any(edge_len <= 0):
        raise ValueError(f"{pf} has coincident consecutive nodes (element length 0); "
                         "element lengths must be > 0")
    if directors is None:
        if normal is None:
            raise ValueError(f"{f}: give either normal (3,) or directors (n, 3, 3)")
        directors = frames_along(positions, _checks.unit_vector(f"{f}.normal", normal))
    else:
        directors = _checks.orthonormal_frames(f"{f}.directors", directors)
        if directors.shape != (n, 3, 3):
            raise ValueError(f"{f}.directors has shape {directors.shape}, expected ({n}, 3, 3)")
    radius = _checks.per_element(f"{f}.radius", radius, n)
    density = _checks.per_element(f"{f}.density", density, n)
    E = _checks.per_element(f"{f}.youngs_modulus", youngs_modulus, n)
    if shear_modulus is None:
        nu = float(_checks.finite(f"{f}.poisson_ratio", poisson_ratio))
        if not -1.0 < nu <= 0.5:
            raise ValueError(f"{f}.poisson_ratio = {poisson_ratio!r} is not allowed: must be in (-1, 0.5]")
        G = E / (2.0 * (1.0 + nu))
    else:
        G = _checks.per_element(f"{f}.shear_modulus", shear_modulus, n)
    if isinstance(rest_curvature, str):
        _checks.choice(f"{f}.rest_curvature", rest_curvature, {"initial"})
        D = 0.5 * (edge_len[1:] + edge_len[:-1])
        rest_curvature = curvature_of(directors, D)
    return CosseratRod(name=name, positions=positions, directors=directors, radius=radius,
                       density=density, youngs_modulus=E, shear_modulus=G,
                       shear_coefficient=shear_coefficient, law=law,
                       rest_curvature=rest_curvature, rest_strain=rest_strain)


def straight_centerline(start, direction, length, n_elems):
    """Equispaced nodes (n+1, 3) [m] from `start` along unit `direction` over `length`."""
    start = _checks.finite("start", start, shape=(3,))
    direction = _checks.unit_vector("direction", direction)
    length = float(_checks.positive("length", length))
    n = _checks.integer("n_elems", n_elems, 1)
    return start + np.linspace(0.0, length, n + 1)[:, None] * direction
