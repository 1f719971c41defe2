"""Cosserat rod bodies: geometry (straight, arbitrary centreline), materials and the discrete
quantities of Gazzola et al. 2018 (node masses, element inertia, stiffness matrices).

Open rods have n elements between n + 1 nodes and n - 1 Voronoi domains (interior nodes).
Closed rods (rings) have n elements, n nodes and n Voronoi domains: element i joins node i to
node (i + 1) mod n, and Voronoi domain j lies between elements j and (j + 1) mod n.

Cross-sections are solid circles of radius r (A = pi r^2, I1 = I2 = pi r^4 / 4, I3 = 2 I1)
unless a `section` gives A, I1, I2 and the torsion constant J (softmech.bodies.sections); then
I3 = J in the stiffness and I1 + I2 in the rotary inertia (they differ for non-circular shapes).
Stiffness (ME498 handout Table 2): S = diag(alpha_c G A, alpha_c G A, E A),
B = diag(E I1, E I2, G I3); B on a Voronoi domain is the rest-length-weighted mean of its two
elements (as in PyElastica), node masses are half of each adjacent element's rho A l^.
"""
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation

from softmech import _checks
from softmech.bodies.sections import section_constants

LAWS = {"gazzola2018": (1.0, 1.0, 0.0), "hyperelastic": (0.0, 0.0, 1.0)}
"""Constitutive laws -> (stretch_current, bend_current, exact_log_jacobian); see cosserat_forces."""


def edge_vectors(positions, closed=False):
    """x_{i+1} - x_i for every element, (..., n, 3) [m]; closed rods include x_0 - x_{n-1}."""
    positions = np.asarray(positions)
    if closed:
        return np.roll(positions, -1, axis=-2) - positions
    return np.diff(positions, axis=-2)


def frames_along(positions, normal, closed=False):
    """Directors (n, 3, 3) with d3 along each edge and d1 parallel-transported from `normal`.

    positions: (n + 1, 3) [m] (closed: (n, 3)); normal: (3,) first d1, projected orthogonal to
    the first edge. Parallel transport (rotation-minimizing frame) keeps the initial twist zero.
    """
    edges = edge_vectors(positions, closed)
    t = edges / np.linalg.norm(edges, axis=1, keepdims=True)
    d1 = normal - np.dot(normal, t[0]) * t[0]
    if np.linalg.norm(d1) < 1e-10:
        raise ValueError(f"normal = {_checks._show(normal)} is not allowed with the rod's first "
                         f"edge along {_checks._show(t[0])} (its direction or centreline): they "
                         "are parallel; the normal must have a component perpendicular to it")
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


def curvature_of(Q, voronoi_rest_lengths, closed=False):
    """kappa_j = -log(Q_{j+1} Q_j^T) / D^_j (handout erratum), shape (..., n_vor, 3) [1/m]."""
    Q_next = np.roll(Q, -1, axis=-3) if closed else Q[..., 1:, :, :]
    Q_this = Q if closed else Q[..., :-1, :, :]
    R = Q_next @ np.swapaxes(Q_this, -1, -2)
    flat = R.reshape(-1, 3, 3)
    rotvec = Rotation.from_matrix(flat).as_rotvec() if len(flat) else np.zeros((0, 3))
    return -rotvec.reshape(R.shape[:-1]) / voronoi_rest_lengths[..., None]


def shear_strain_of(Q, positions, rest_lengths, closed=False):
    """sigma_i = Q_i (x_{i+1} - x_i) / l^_i - (0, 0, 1), shape (..., n, 3) [-]."""
    edges = edge_vectors(positions, closed)
    local = np.einsum("...ij,...j->...i", Q, edges) / rest_lengths[..., None]
    local[..., 2] -= 1.0
    return local


@dataclass
class CosseratRod:
    """A Cosserat rod as built (rest state = initial state unless rest lengths, strains or
    curvatures are given).

    Shapes: positions (n_nodes, 3) [m] (n + 1 nodes, or n for a closed rod); directors
    (n, 3, 3); per-element arrays (n,) in SI units; rest_curvature (n_vor, 3) [1/m];
    rest_strain (n, 3) [-]; rest_lengths (n,) [m] (default: the initial element lengths, the
    chords of the initial centreline; given, the rod starts stretched or compressed by chord /
    rest length - 1, and its mass and inertia follow the rest lengths); section: None (solid
    circles of `radius`) or the constants of softmech.bodies.sections.section_constants ("area"
    (n,), "second_moments" (n, 2), "torsion_constant" (n,)); `radius` is then the circle
    contact, drag and drawings see.
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
    closed: bool = False
    section: dict = None
    builder: tuple = field(default=None, repr=False, compare=False)
    """(builder name, {argument: value}) of the Scene call that made the rod (scenario files)."""
    rest_lengths: np.ndarray = None

    def __post_init__(self):
        if self.rest_lengths is None:
            self.rest_lengths = np.linalg.norm(edge_vectors(self.positions, self.closed), axis=1)
        n = self.n_elems
        if self.rest_curvature is None:
            self.rest_curvature = np.zeros((self.n_vor, 3))
        if self.rest_strain is None:
            self.rest_strain = np.zeros((n, 3))
        if self.velocities is None:
            self.velocities = np.zeros((self.n_nodes, 3))
        if self.angular_velocities is None:
            self.angular_velocities = np.zeros((n, 3))
        f = f"rod '{self.name}'"
        _checks.finite(f"{f}.rest_curvature", self.rest_curvature, shape=(self.n_vor, 3))
        _checks.finite(f"{f}.rest_strain", self.rest_strain, shape=(n, 3))
        _checks.finite(f"{f}.velocities", self.velocities, shape=(self.n_nodes, 3))
        _checks.finite(f"{f}.angular_velocities", self.angular_velocities, shape=(n, 3))
        _checks.positive(f"{f}.shear_coefficient", self.shear_coefficient, shape=())
        _checks.choice(f"{f}.law", self.law, LAWS)

    @property
    def n_elems(self):
        return len(self.directors)

    @property
    def n_nodes(self):
        return self.n_elems + (0 if self.closed else 1)

    @property
    def n_vor(self):
        """Number of Voronoi domains: n - 1 (open) or n (closed)."""
        return self.n_elems - (0 if self.closed else 1)

    @property
    def voronoi_rest_lengths(self):
        return voronoi_lengths(self.rest_lengths, self.closed)

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
            **{k: self.section[k][None].copy() for k in SECTION_PARAMETERS
               if self.section is not None},
        }


def voronoi_lengths(elem_values, closed=False):
    """Mean of neighbouring elements' values, (..., n_vor): D^_j = (l^_j + l^_{j+1}) / 2."""
    nxt = np.roll(elem_values, -1, axis=-1) if closed else elem_values[..., 1:]
    this = elem_values if closed else elem_values[..., :-1]
    return 0.5 * (this + nxt)


def node_shares(elem_values, closed=False):
    """Half of each adjacent element's value gathered at the nodes, (..., n_nodes)."""
    if closed:
        return 0.5 * (elem_values + np.roll(elem_values, 1, axis=-1))
    out = np.zeros(elem_values.shape[:-1] + (elem_values.shape[-1] + 1,))
    out[..., :-1] += 0.5 * elem_values
    out[..., 1:] += 0.5 * elem_values
    return out


def section_properties(radius):
    """Area A = pi r^2 [m^2] and second moments (I1, I2, I3) [m^4] of solid circles, (..., 3)."""
    area = np.pi * radius**2
    i1 = area * radius**2 / 4.0
    return area, np.stack([i1, i1, 2.0 * i1], axis=-1)


SECTION_PARAMETERS = ("area", "second_moments", "torsion_constant")
"""Per-world parameters of a rod built with a `section` (absent for circles of `radius`)."""


def rod_section(p):
    """Section constants of a rod from its parameters p (radius (..., n), or the
    SECTION_PARAMETERS): area A (..., n) [m^2], stiffness moments (I1, I2, J) (..., n, 3) and
    mass moments (I1, I2, I1 + I2) (..., n, 3) [m^4] (equal for circles)."""
    if "area" not in p:
        area, inertia = section_properties(p["radius"])
        return area, inertia, inertia
    i12 = p["second_moments"]
    stiffness = np.concatenate([i12, p["torsion_constant"][..., None]], axis=-1)
    mass = np.concatenate([i12, i12.sum(axis=-1, keepdims=True)], axis=-1)
    return p["area"], stiffness, mass


def discrete_properties(rest_lengths, p, closed=False):
    """Derived per-world arrays from parameters p (each (B, n) or (B, n, 3)).

    Returns dict with node_mass (B, n_nodes) [kg], elem_J (B, n, 3) [kg m^2], elem_S (B, n, 3)
    [N], vor_B (B, n_vor, 3) [N m^2] (rest-length-weighted mean of the two elements).
    """
    area, inertia, mass_inertia = rod_section(p)
    elem_mass = p["density"] * area * rest_lengths
    node_mass = node_shares(elem_mass, closed)
    E, G, a = p["youngs_modulus"], p["shear_modulus"], p["shear_coefficient"]
    elem_S = np.stack([a * G * area, a * G * area, E * area], axis=-1)
    elem_Bend = np.stack([E * inertia[..., 0], E * inertia[..., 1], G * inertia[..., 2]], axis=-1)
    weighted = np.swapaxes(elem_Bend * rest_lengths[:, None], -1, -2)
    vor_B = np.swapaxes(voronoi_lengths(weighted, closed), -1, -2) / voronoi_lengths(
        rest_lengths, closed)[:, None]
    elem_J = (p["density"] * rest_lengths)[..., None] * mass_inertia
    return {"node_mass": node_mass, "elem_J": elem_J, "elem_S": elem_S, "vor_B": vor_B}


def build_rod(name, *, positions, normal=None, directors=None, radius=None, density,
              youngs_modulus, shear_modulus=None, poisson_ratio=0.5, shear_coefficient=4.0 / 3.0,
              law="gazzola2018", rest_curvature=None, rest_strain=None, positions_field="positions",
              closed=False, section=None, rest_lengths=None):
    """Validate user input and build a CosseratRod from a centreline (n+1, 3), or (n, 3) nodes
    of a closed rod (the first node is not repeated).

    rest_curvature: None (straight rest state), "initial" (the initial shape is stress-free) or an
    array (n_vor, 3) [1/m]. rest_lengths: None (the initial element lengths) or (n,) [m], each
    > 0. shear_modulus defaults to E / (2 (1 + poisson_ratio)).
    radius and/or section: solid circles of `radius`, or the `section` (softmech.bodies.sections)
    with `radius` (default: the section's circumscribed circle) for contact, drag and drawing.
    """
    f = f"rod '{name}'"
    pf = f"{f}.{positions_field}"
    positions = _checks.coordinates(pf, positions, shape=(None, 3))
    if len(positions) < (3 if closed else 2):
        raise ValueError(f"{pf} has {len(positions)} nodes, expected at least {3 if closed else 2}")
    n = len(positions) - (0 if closed else 1)
    edge_len = np.linalg.norm(edge_vectors(positions, closed), axis=1)
    if np.any(edge_len <= 0):
        raise ValueError(f"{pf} has coincident consecutive nodes (element length 0); "
                         "element lengths must be > 0")
    if directors is None:
        if normal is None:
            raise ValueError(f"{f}: give either normal (3,) or directors (n, 3, 3)")
        directors = frames_along(positions, _checks.unit_vector(f"{f}.normal", normal), closed)
    else:
        directors = _checks.orthonormal_frames(f"{f}.directors", directors)
        if directors.shape != (n, 3, 3):
            raise ValueError(f"{f}.directors has shape {directors.shape}, expected ({n}, 3, 3): "
                             f"one frame per element of {pf} ({len(positions)} nodes)")
    of = f"{pf} ({len(positions)} nodes)"
    if section is not None:
        section = section_constants(f"{f}.section", section, n, of=of)
        circumscribed = section.pop("radius")       # the rod's radius unless one is given
        radius = circumscribed if radius is None else radius
    elif radius is None:
        raise ValueError(f"{f}: give radius (solid circles) or section "
                         "(softmech.sections.rectangle, ellipse, tube, ...)")
    radius = _checks.per_element(f"{f}.radius", radius, n, of=of, bounds=_checks.LENGTH)
    density = _checks.per_element(f"{f}.density", density, n, of=of, bounds=_checks.DENSITY)
    E = _checks.per_element(f"{f}.youngs_modulus", youngs_modulus, n, of=of,
                            bounds=_checks.MODULUS)
    # checked even when shear_modulus sets G: poisson_ratio = {} must not pass unnoticed
    nu = _checks.poisson_ratio(f"{f}.poisson_ratio", poisson_ratio)
    if shear_modulus is None:
        G = E / (2.0 * (1.0 + nu))
    else:
        G = _checks.per_element(f"{f}.shear_modulus", shear_modulus, n, of=of,
                                bounds=_checks.MODULUS)
    if rest_lengths is not None:
        rest_lengths = _checks.per_element(f"{f}.rest_lengths", rest_lengths, n, of=of)  # > 0
    if isinstance(rest_curvature, str):
        _checks.choice(f"{f}.rest_curvature", rest_curvature, {"initial"})
        rest_curvature = curvature_of(directors, voronoi_lengths(
            edge_len if rest_lengths is None else rest_lengths, closed), closed)
    return CosseratRod(name=name, positions=positions, directors=directors, radius=radius,
                       density=density, youngs_modulus=E, shear_modulus=G,
                       shear_coefficient=shear_coefficient, law=law,
                       rest_curvature=rest_curvature, rest_strain=rest_strain, closed=closed,
                       section=section, rest_lengths=rest_lengths)


BYTES_PER_ELEMENT = 2048
"""Memory of one element of one world [bytes], model, state and workspace together: an upper
estimate (1.2-1.4 KB measured for a 200,000-element rod and for 200 worlds of 1,000 elements),
used only to refuse sizes that cannot fit in memory before anything is allocated."""


def ring_nodes(center, axis, ring_radius, n_elems):
    """n equispaced nodes (n, 3) [m] on a circle of `ring_radius` about `axis` through `center`
    (counter-clockwise about axis)."""
    center = _checks.finite("center", center, shape=(3,))
    axis = _checks.unit_vector("axis", axis)
    ring_radius = float(_checks.physical("ring_radius", ring_radius, _checks.LENGTH, shape=()))
    n = _checks.affordable_count("n_elems", n_elems, 3, BYTES_PER_ELEMENT, "the ring's arrays")
    helper = np.eye(3)[np.argmin(np.abs(axis))]
    e1 = np.cross(axis, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(axis, e1)
    phi = 2.0 * np.pi * np.arange(n) / n
    nodes = center + ring_radius * (np.cos(phi)[:, None] * e1 + np.sin(phi)[:, None] * e2)
    if np.max(np.abs(nodes)) > _checks.MAX_COORDINATE:
        raise ValueError(f"ring_radius = {ring_radius:g} m is not allowed with center = "
                         f"{_checks._show(center)}: the ring would reach |x| = "
                         f"{np.max(np.abs(nodes)):.3g} m, beyond +-{_checks.MAX_COORDINATE:g} m")
    if not np.all(np.linalg.norm(nodes - np.roll(nodes, 1, axis=0), axis=1) > 0):
        raise ValueError(f"ring_radius = {ring_radius:g} m is not allowed with n_elems = {n} and "
                         f"center = {_checks._show(center)}: consecutive nodes coincide in "
                         "float64 (element length 0); use a larger ring_radius")
    return nodes


def straight_centerline(start, direction, length, n_elems):
    """Equispaced nodes (n+1, 3) [m] from `start` along unit `direction` over `length`."""
    start = _checks.finite("start", start, shape=(3,))
    direction = _checks.unit_vector("direction", direction)
    length = float(_checks.physical("length", length, _checks.LENGTH, shape=()))
    n = _checks.affordable_count("n_elems", n_elems, 1, BYTES_PER_ELEMENT, "the rod's arrays")
    nodes = start + np.linspace(0.0, length, n + 1)[:, None] * direction
    if np.max(np.abs(nodes)) > _checks.MAX_COORDINATE:
        raise ValueError(f"length = {length:g} m is not allowed with start = {_checks._show(start)}"
                         f": the rod would reach |x| = {np.max(np.abs(nodes)):.3g} m, beyond "
                         f"+-{_checks.MAX_COORDINATE:g} m")
    if np.any(np.all(nodes[1:] == nodes[:-1], axis=1)):
        # a far-off start (1e300 m) absorbs the element length in round-off
        raise ValueError(f"start = {_checks._show(start)} is not allowed with length = {length:g} "
                         f"m and n_elems = {n}: consecutive nodes coincide in floating point "
                         "(|start| must be well below length / n_elems / 1e-16)")
    return nodes
