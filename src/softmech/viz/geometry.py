"""What the 3D views draw: bodies at one instant (rods now, shells later), their triangle meshes,
and a camera framed on their bounding box. Shared by the matplotlib views (softmech.viz.tubes)
and the POV-Ray renders (softmech.viz.povray), so both show the same geometry from the same side.

A body is any object with `name`, `color` (RGB in [0, 1]), `bounds() -> (lo, hi)` [m] and
`mesh() -> (vertices (V, 3) [m], faces (F, 3) int)`. RodBody is the rod; a shell body will be a
second class with the same four members (its mesh is the mid-surface, or the offset surfaces of
its thickness), and every renderer that draws meshes draws it without change.

Coordinates are the simulation's (right-handed, SI units). `View` says where the camera looks
from: an up axis ("x", "y" or "z"; with gravity along -z, "z"), an elevation above the horizontal
plane and an azimuth around the up axis (degrees).
"""
from dataclasses import dataclass

import numpy as np

from softmech import _checks

PALETTE = ((0.89, 0.42, 0.16), (0.16, 0.47, 0.71), (0.30, 0.65, 0.33), (0.80, 0.25, 0.33),
           (0.55, 0.40, 0.70), (0.90, 0.70, 0.15), (0.25, 0.70, 0.75), (0.55, 0.55, 0.55))
"""Rod colours (RGB in [0, 1]): rod k of a scene gets PALETTE[k % len(PALETTE)]."""

AXES = {"x": 0, "y": 1, "z": 2}


def rod_color(index):
    """Colour (RGB in [0, 1]) of the index-th rod of a scene."""
    return PALETTE[_checks.integer("rod index", index, 0) % len(PALETTE)]


def node_radius(radius, n_nodes, closed=False):
    """Radius at the nodes [m], shape (n_nodes,), from a scalar, a per-node array (n_nodes,) of
    an open rod, or a per-element array (n_elems,): an interior node takes the mean of its two
    elements, an end node its element's (to_nodes). n_elems = n_nodes - 1 (open) or n_nodes
    (closed; an array of that length is read as per element, as recorded)."""
    n_nodes = _checks.integer("n_nodes", n_nodes, 2)
    r = _checks.positive("radius", radius)
    if r.ndim == 0:
        return np.full(n_nodes, float(r))
    return to_nodes("radius", r, n_nodes, closed)


def to_nodes(field, values, n_nodes, closed=False):
    """Values at the nodes, shape (..., n_nodes), from per-element values (..., n_elems) (an
    interior node takes the mean of its two elements, an end node its element's) or per-node
    values (..., n_nodes) of an open rod (returned as they are). n_elems = n_nodes - 1 (open)
    or n_nodes (closed: per element). field: its name, for errors."""
    v = np.asarray(values, dtype=float)
    n_elems = n_nodes if closed else n_nodes - 1
    if v.ndim >= 1 and v.shape[-1] == n_elems:
        if closed:                        # node i joins elements i - 1 and i
            return 0.5 * (v + np.roll(v, 1, axis=-1))
        out = np.empty(v.shape[:-1] + (n_nodes,))
        out[..., 1:-1] = 0.5 * (v[..., :-1] + v[..., 1:])
        out[..., 0], out[..., -1] = v[..., 0], v[..., -1]
        return out
    if v.ndim >= 1 and v.shape[-1] == n_nodes and not closed:
        return v.copy()
    raise ValueError(f"{field} has shape {v.shape}, expected a scalar, (..., {n_elems}) per "
                     "element" + ("" if closed else f" or (..., {n_nodes}) per node"))


def _cap_rings(sides, closed, caps):
    """Number of rings of each hemispherical end cap of tube_mesh, plus one (0: no caps)."""
    return max(2, sides // 4) if caps and not closed else 0


def tube_vertex_nodes(n_nodes, *, sides=16, closed=False, caps=True):
    """Index of the centreline node (0..n_nodes - 1) that each vertex of tube_mesh(positions of
    n_nodes nodes, sides=sides, closed=closed, caps=caps) belongs to: shape (V,) int. Values at
    the nodes (n_nodes,) become values at the vertices by indexing with it (the viewer's
    colouring by a field)."""
    n_cap = _cap_rings(_checks.integer("sides", sides, 3), closed, caps)
    ring_nodes = np.arange(n_nodes)
    if n_cap:
        ring_nodes = np.concatenate([np.zeros(n_cap - 1, int), ring_nodes,
                                     np.full(n_cap - 1, n_nodes - 1)])
    index = np.repeat(ring_nodes, sides)
    return np.concatenate([index, [0, n_nodes - 1]]) if n_cap else index


def _unit(v, axis=-1):
    return v / np.maximum(np.linalg.norm(v, axis=axis, keepdims=True), 1e-300)


def _dot(a, b):
    """Dot products over the last axis, kept as an axis of length 1."""
    return np.sum(a * b, axis=-1, keepdims=True)


def _node_tangents(x, closed):
    """Unit tangents (..., N, 3) at the nodes (..., N, 3): central differences, one-sided at
    open ends."""
    if closed:
        return _unit(np.roll(x, -1, axis=-2) - np.roll(x, 1, axis=-2))
    t = np.empty_like(x)
    t[..., 1:-1, :] = x[..., 2:, :] - x[..., :-2, :]
    t[..., 0, :], t[..., -1, :] = x[..., 1, :] - x[..., 0, :], x[..., -1, :] - x[..., -2, :]
    return _unit(t)


def _any_normal(t):
    """Unit vectors (..., 3) normal to the unit vectors t (..., 3)."""
    helper = np.eye(3)[np.argmin(np.abs(t), axis=-1)]
    return _unit(np.cross(t, helper))


def _transported_normals(x, t, closed):
    """Rotation-minimizing normals (..., N, 3) along centrelines x (..., N, 3) with unit
    tangents t by the double-reflection method (Wang, Juettler, Zheng & Liu, ACM Trans. Graph.
    27(1), 2008, Algorithm 1); leading axes: a batch of rods of N nodes each, transported
    together (one Python loop over the nodes). On a closed rod the mismatch angle at the seam
    is spread evenly over the nodes, so the mesh closes."""
    n = np.empty_like(x)
    n[..., 0, :] = _any_normal(t[..., 0, :])
    for i in range(x.shape[-2] - 1):
        ni, ti, tn = n[..., i, :], t[..., i, :], t[..., i + 1, :]
        v1 = x[..., i + 1, :] - x[..., i, :]
        c1 = _dot(v1, v1)
        moving = c1 >= 1e-300                           # else the normal is kept
        c1 = np.where(moving, c1, 1.0)
        r_l = ni - (2.0 / c1) * _dot(v1, ni) * v1
        t_l = ti - (2.0 / c1) * _dot(v1, ti) * v1
        v2 = tn - t_l
        c2 = _dot(v2, v2)
        turned = c2 > 1e-300
        r = np.where(turned, r_l - (2.0 / np.where(turned, c2, 1.0)) * _dot(v2, r_l) * v2, r_l)
        n[..., i + 1, :] = np.where(moving, _unit(r - _dot(r, tn) * tn), ni)
    if closed:      # transport once more to node 0 and undo the holonomy gradually
        v1 = x[..., 0, :] - x[..., -1, :]
        c1 = np.maximum(_dot(v1, v1), 1e-300)
        r_l = n[..., -1, :] - (2.0 / c1) * _dot(v1, n[..., -1, :]) * v1
        t0 = t[..., 0, :]
        end = _unit(r_l - _dot(r_l, t0) * t0)
        angle = np.arctan2(_dot(np.cross(n[..., 0, :], end), t0), _dot(n[..., 0, :], end))
        phis = (-angle * np.arange(x.shape[-2]) / x.shape[-2])[..., None]     # (..., N, 1)
        b = np.cross(t, n)
        n = np.cos(phis) * n + np.sin(phis) * b
    return n


def tube_meshes(rods, sides, normals=None):
    """The meshes [(vertices, faces)] of RodBodies `rods`, rod k with sides[k] sides: each as
    its mesh(sides[k]), built in batches (a feathered wing's shafts, an elbow's 36 fibres: one
    pass for all): the rods' normals (rod_normals, unless given: a list with rod k's (N, 3)
    or None), then the meshes of the rods of one node count and side count."""
    if normals is None:
        normals = rod_normals(rods)
    meshes, batches = [None] * len(rods), {}
    for k, rod in enumerate(rods):
        if normals[k] is None:                  # directors of a wrong shape: mesh() raises
            meshes[k] = rod.mesh(sides[k])
            continue
        sides_k = _checks.integer("sides", sides[k], 3)
        batches.setdefault((len(rod.positions), rod.closed, sides_k), []).append(k)
    for (_, closed, sides_k), members in batches.items():
        vertices, faces = _tube_mesh_batch(
            np.stack([rods[k].positions for k in members]),
            np.stack([rods[k].radius for k in members]),
            np.stack([normals[k] for k in members]), sides_k, closed, True)
        for k, v in zip(members, vertices):
            meshes[k] = (v, faces)
    return meshes


def rod_normals(rods):
    """The normals (N, 3) along each of the RodBodies `rods` that their tube meshes' rings
    start from: from their directors, or rotation-minimizing frames, those of the open rods
    without directors transported together, padded to the longest by repeating their last
    node (a zero-length step keeps the normal), rings by node count (a video's frames may be
    given at once: the transport is a Python loop over the nodes, ~2 ms a frame for the
    snake's 51 nodes one frame at a time). None for a rod whose directors have a wrong
    shape (its mesh() raises)."""
    normals = [None] * len(rods)
    groups = {}
    for k, rod in enumerate(rods):
        if rod.directors is None:
            groups.setdefault(len(rod.positions) if rod.closed else "open", []).append(k)
        elif rod.directors.shape == (len(rod.positions) - (not rod.closed), 3, 3):
            normals[k] = _director_normals(rod.directors,
                                           _node_tangents(rod.positions, rod.closed), rod.closed)
    for key, members in groups.items():
        closed = key != "open"
        size = max(len(rods[k].positions) for k in members)
        x, t = (np.stack([np.concatenate([a, np.repeat(a[-1:], size - len(a), axis=0)])
                          for a in arrays])
                for arrays in ([rods[k].positions for k in members],
                               [_node_tangents(rods[k].positions, closed) for k in members]))
        for k, n in zip(members, _transported_normals(x, t, closed)):
            normals[k] = n[:len(rods[k].positions)]
    return normals


def _director_normals(directors, t, closed):
    """Normals (..., N, 3) at the nodes from the element frames (..., E, 3, 3) (rows d1, d2,
    d3): the mean of the adjacent elements' d1, made normal to the node tangent t (..., N, 3)."""
    d1 = np.asarray(directors)[..., 0, :]
    if closed:
        nodal = d1 + np.roll(d1, 1, axis=-2)
    else:
        nodal = np.empty(t.shape)
        nodal[..., 1:-1, :] = d1[..., :-1, :] + d1[..., 1:, :]
        nodal[..., 0, :], nodal[..., -1, :] = d1[..., 0, :], d1[..., -1, :]
    nodal -= np.sum(nodal * t, axis=-1, keepdims=True) * t
    return _unit(nodal)


def tube_mesh(positions, radius, directors=None, *, sides=16, closed=False, caps=True):
    """Triangle mesh of a tube around a rod's centreline.

    positions (N, 3) [m]: the nodes; radius [m]: scalar, per node (N,) or per element (E,)
    (made per node by node_radius); directors (E, 3, 3) (rows d1, d2, d3), optional: the
    cross-sections then turn with d1 (twist shows in the mesh), otherwise they follow a
    rotation-minimizing frame. sides: vertices per cross-section (>= 3). closed: a ring (the
    last node joins the first). caps: rounded (hemispherical) ends of an open rod.

    Returns (vertices (V, 3) [m], faces (F, 3) int, outward-facing counter-clockwise)."""
    x = _checks.finite("positions", positions)
    if x.ndim != 2 or x.shape[1] != 3 or x.shape[0] < 2:
        raise ValueError(f"positions has shape {x.shape}, expected (n_nodes >= 2, 3)")
    sides = _checks.integer("sides", sides, 3)
    r = node_radius(radius, len(x), closed)
    if directors is not None:
        directors = _checks.finite("directors", directors,
                                   shape=(len(x) if closed else len(x) - 1, 3, 3))
    return _tube_mesh(x, r, directors, sides, closed, caps)


def _tube_mesh(x, r, directors, sides, closed, caps, normals=None):
    """tube_mesh of checked input: positions x (N, 3) [m], node radii r (N,) [m], directors
    (E, 3, 3) or None, sides >= 3 (RodBody.mesh: its fields were checked when it was made);
    normals (N, 3): the transported normals when already known."""
    t = _node_tangents(x, closed)
    if directors is not None:
        normals = _director_normals(directors, t, closed)
    elif normals is None:
        normals = _transported_normals(x, t, closed)
    vertices, faces = _tube_mesh_batch(x[None], np.asarray(r)[None], normals[None], sides,
                                       closed, caps)
    return vertices[0], faces


def _tube_mesh_batch(x, r, normals, sides, closed, caps):
    """The tube meshes of R rods of N nodes each at once: positions x (R, N, 3) [m], node
    radii r (R, N) [m], unit normals (R, N, 3) (the rings' first direction). Returns
    (vertices (R, V, 3) [m], faces (F, 3) int: the same for every rod, into its own V)."""
    t = _node_tangents(x, closed)
    binormals = np.cross(t, normals)
    theta = 2.0 * np.pi * np.arange(sides) / sides
    ring = (np.cos(theta)[:, None] * normals[..., None, :]
            + np.sin(theta)[:, None] * binormals[..., None, :])       # (R, N, sides, 3)
    centres, radii, dirs = [x], [r], [ring]
    n_cap = _cap_rings(sides, closed, caps)
    if n_cap:   # rings of a hemisphere beyond each end, shrinking to a pole
        phi = 0.5 * np.pi * np.arange(1, n_cap) / n_cap
        start = x[:, :1] - np.sin(phi)[::-1, None] * r[:, :1, None] * t[:, :1]
        end = x[:, -1:] + np.sin(phi)[:, None] * r[:, -1:, None] * t[:, -1:]
        centres = [start, x, end]
        radii = [np.cos(phi)[::-1] * r[:, :1], r, np.cos(phi) * r[:, -1:]]
        dirs = [np.repeat(ring[:, :1], n_cap - 1, 1), ring,
                np.repeat(ring[:, -1:], n_cap - 1, 1)]
    centres, radii, dirs = (np.concatenate(a, axis=1) for a in (centres, radii, dirs))
    vertices = (centres[:, :, None, :] + radii[:, :, None, None] * dirs).reshape(len(x), -1, 3)
    n_rings = centres.shape[1]
    i = np.arange(n_rings if closed else n_rings - 1)[:, None]
    k = np.arange(sides)[None, :]
    a, b = i * sides + k, i * sides + (k + 1) % sides
    a2, b2 = ((i + 1) % n_rings) * sides + k, ((i + 1) % n_rings) * sides + (k + 1) % sides
    # ring direction theta runs counter-clockwise about +t: (a, b, b2) faces outward
    faces = np.concatenate([np.stack([a, b, b2], -1).reshape(-1, 3),
                            np.stack([a, b2, a2], -1).reshape(-1, 3)])
    if n_cap:
        first, last = vertices.shape[1], vertices.shape[1] + 1
        poles = np.stack([x[:, 0] - r[:, :1] * t[:, 0], x[:, -1] + r[:, -1:] * t[:, -1]], 1)
        vertices = np.concatenate([vertices, poles], axis=1)
        k0, k1 = np.arange(sides), (np.arange(sides) + 1) % sides
        top = (n_rings - 1) * sides
        faces = np.concatenate([faces, np.stack([np.full(sides, first), k1, k0], -1),
                                np.stack([np.full(sides, last), top + k0, top + k1], -1)])
    return vertices, faces.astype(np.int64)


def refine_centerline(positions, radius, factor=4, closed=False):
    """A smoother centreline through the nodes: `factor` points per element on a cubic spline
    in the chord length (periodic for a closed rod), the node radii (N,) [m] interpolated
    linearly. Returns (positions (M, 3) [m], radius (M,) [m]); M = factor E + 1 (open) or
    factor N (closed; the first point is not repeated)."""
    from scipy.interpolate import CubicSpline

    factor = _checks.integer("factor", factor, 1)
    x, r = np.asarray(positions, float), np.asarray(radius, float)
    if closed:
        x, r = np.concatenate([x, x[:1]]), np.concatenate([r, r[:1]])
    s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(x, axis=0), axis=1))])
    if factor == 1 or len(x) < 3 or not np.all(np.diff(s) > 0):
        return (x[:-1], r[:-1]) if closed else (x, r)
    fine = np.interp(np.arange(factor * (len(x) - 1) + 1) / factor, np.arange(len(x)), s)
    spline = CubicSpline(s, x, axis=0, bc_type="periodic" if closed else "not-a-knot")
    out_x, out_r = spline(fine), np.interp(fine, s, r)
    return (out_x[:-1], out_r[:-1]) if closed else (out_x, out_r)


def face_normals(vertices, faces):
    """Unit normals (F, 3) of the triangles (right-hand rule on the vertex order)."""
    v = np.asarray(vertices)[np.asarray(faces)]
    return _unit(np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0]))


def check_color(name, color):
    """Validated colour: a tuple of 3 floats (RGB) in [0, 1]; name: the body, for errors."""
    rgb = tuple(float(c) for c in _checks.finite(f"{name}.color", color, shape=(3,)))
    if not all(0.0 <= c <= 1.0 for c in rgb):
        raise ValueError(f"{name}.color = {rgb!r} is not allowed: RGB entries in [0, 1]")
    return rgb


def check_opacity(name, opacity):
    """Validated opacity [-] in (0, 1]: 1 = opaque, smaller = more see-through (a ghost)."""
    value = float(_checks.finite(f"{name}.opacity", opacity))
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name}.opacity = {opacity!r} is not allowed: must be in (0, 1] "
                         "(1 = opaque)")
    return value


@dataclass(frozen=True)
class RodBody:
    """A rod at one instant: node positions (N, 3) [m], node radii (N,) [m], optional element
    frames (E, 3, 3), closed (a ring), colour (RGB in [0, 1]), opacity in (0, 1] (1: opaque;
    e.g. 0.3 for a see-through ghost of a reference shape). Build it with RodBody.make."""
    name: str
    positions: np.ndarray
    radius: np.ndarray
    directors: np.ndarray = None
    closed: bool = False
    color: tuple = PALETTE[0]
    opacity: float = 1.0

    @classmethod
    def make(cls, name, positions, radius, directors=None, *, closed=False, color=None, index=0,
             opacity=1.0):
        """Validated RodBody; radius scalar, per node or per element (see node_radius); colour
        default rod_color(index); opacity in (0, 1]."""
        x = _checks.finite(f"{name}.positions", positions)
        if x.ndim != 2 or x.shape[1] != 3 or x.shape[0] < 2:
            raise ValueError(f"{name}.positions has shape {x.shape}, expected (n_nodes >= 2, 3)")
        color = rod_color(index) if color is None else check_color(name, color)
        opacity = check_opacity(name, opacity)
        d = None if directors is None else _checks.finite(f"{name}.directors", directors)
        return cls(name, x, node_radius(radius, len(x), closed), d, bool(closed), color, opacity)

    watertight = True
    """The tube (tube_mesh: a ring, or an open rod with its end caps) is a closed surface."""

    def bounds(self):
        """(lo, hi): corners (3,) [m] of the box around the tube."""
        return ((self.positions - self.radius[:, None]).min(axis=0),
                (self.positions + self.radius[:, None]).max(axis=0))

    def mesh(self, sides=16, normals=None):
        """(vertices, faces) of the tube (tube_mesh); normals (N, 3): its rotation-minimizing
        normals, when already computed (tube_meshes; ignored with directors)."""
        if self.directors is not None and self.directors.shape != (
                len(self.positions) - (not self.closed), 3, 3):
            return tube_mesh(self.positions, self.radius, self.directors, sides=sides,
                             closed=self.closed)            # raises: directors of a wrong shape
        return _tube_mesh(self.positions, self.radius, self.directors,
                          _checks.integer("sides", sides, 3), self.closed, True, normals)


WALL_COLOR = (0.62, 0.62, 0.64)
"""Default colour (RGB in [0, 1]) of static boxes: a light concrete grey."""


@dataclass(frozen=True)
class BoxBody:
    """A static axis-aligned box (a clamp wall, a block): corners lo, hi (3,) [m] with lo < hi,
    colour (RGB in [0, 1]), opacity in (0, 1]. Build it with BoxBody.make."""
    name: str
    lo: np.ndarray
    hi: np.ndarray
    color: tuple = WALL_COLOR
    opacity: float = 1.0

    @classmethod
    def make(cls, name, lo, hi, *, color=WALL_COLOR, opacity=1.0):
        """Validated BoxBody: lo and hi (3,) [m], every hi[k] > lo[k]."""
        lo = _checks.finite(f"{name}.lo", lo, shape=(3,)).astype(float)
        hi = _checks.finite(f"{name}.hi", hi, shape=(3,)).astype(float)
        if not np.all(hi > lo):
            raise ValueError(f"{name}: lo = {lo.tolist()}, hi = {hi.tolist()} is not allowed: "
                             "every hi[k] must be > lo[k] (a box of positive size)")
        return cls(name, lo, hi, check_color(name, color), check_opacity(name, opacity))

    watertight = True
    """The box is a closed surface."""

    def bounds(self):
        """(lo, hi): the box's corners (3,) [m]."""
        return self.lo.copy(), self.hi.copy()

    def mesh(self, sides=None):
        """(vertices (8, 3) [m], faces (12, 3) int, outward counter-clockwise); sides is
        ignored (same signature as the rods')."""
        return box_mesh(self.lo, self.hi)


def box_mesh(lo, hi):
    """Triangle mesh of the axis-aligned box with corners lo, hi (3,) [m]: (vertices (8, 3)
    [m], faces (12, 3) int, outward counter-clockwise)."""
    bits = np.array([[i & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)], float)
    vertices = np.asarray(lo, float) + bits * (np.asarray(hi, float) - np.asarray(lo, float))
    faces = []
    for k in range(3):                        # the two faces normal to axis k
        j, m = (k + 1) % 3, (k + 2) % 3
        for side in (0, 1):
            quad = [int(sum(b << a for a, b in ((k, side), (j, p), (m, q))))
                    for p, q in ((0, 0), (1, 0), (1, 1), (0, 1))]
            if side == 0:                     # (j, m, k) is right-handed: flip the far face
                quad = quad[::-1]
            faces += [quad[:3], [quad[0], quad[2], quad[3]]]
    return vertices, np.array(faces, dtype=np.int64)


def bounds_of(frames):
    """(lo, hi) [m] of all bodies of all frames (an iterable of lists of bodies). Bodies whose
    class has `bounds_of_many(bodies)` (softmech.viz.solids.SolidBody) are boxed together,
    one call per class; the others by their own `bounds()`."""
    boxes, together = [], {}
    for bodies in frames:
        for body in bodies:
            if hasattr(type(body), "bounds_of_many"):
                together.setdefault(type(body), []).append(body)
            else:
                boxes.append(body.bounds())
    boxes += [kind.bounds_of_many(members) for kind, members in together.items()]
    if not boxes:
        raise ValueError("frames is empty: nothing to draw")
    return np.min([b[0] for b in boxes], axis=0), np.max([b[1] for b in boxes], axis=0)


@dataclass(frozen=True)
class View:
    """Where the camera looks from. up: "x", "y" or "z" (the vertical axis of the picture);
    elevation [deg] in (-90, 90) above the horizontal plane; azimuth [deg] around up, measured
    from the next axis (x for up z, y for up x, z for up y); None: chosen by frame_camera so
    that the longer horizontal side of the box runs across the picture, seen 30 deg obliquely."""
    up: str = "z"
    elevation: float = 25.0
    azimuth: float = None

    def __post_init__(self):
        _checks.choice("up", self.up, AXES)
        el = float(_checks.finite("elevation", self.elevation))
        if not -89.0 <= el <= 89.0:
            raise ValueError(f"elevation = {self.elevation!r} is not allowed: must be in "
                             "[-89, 89] degrees")
        if self.azimuth is not None:
            _checks.finite("azimuth", self.azimuth)

    def basis(self):
        """(a, c, u): orthonormal right-handed axes; u = up, a and c horizontal."""
        k = AXES[self.up]
        eye = np.eye(3)
        return eye[(k + 1) % 3], eye[(k + 2) % 3], eye[k]

    def direction(self, lo=None, hi=None):
        """Unit vector from the target to the camera."""
        a, c, u = self.basis()
        az = self.azimuth
        if az is None:
            span = (np.zeros(3) if lo is None else np.asarray(hi) - np.asarray(lo))
            az = -60.0 if span @ a >= span @ c else 30.0      # look across the long side
        az, el = np.radians(az), np.radians(self.elevation)
        return np.cos(el) * (np.cos(az) * a + np.sin(az) * c) + np.sin(el) * u


@dataclass(frozen=True)
class Camera:
    """A perspective camera: location and look_at [m], sky (the picture's up), angle [deg]
    (horizontal field of view), aspect (width / height)."""
    location: np.ndarray
    look_at: np.ndarray
    sky: np.ndarray
    angle: float
    aspect: float


def frame_camera(lo, hi, view=View(), *, aspect=16 / 9, angle=35.0, fill=0.9):
    """Camera looking at the box (lo, hi) [m] from view.direction, at the distance where the
    box's corners fill `fill` of the picture (its wider side)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    d = view.direction(lo, hi)
    _, _, sky = view.basis()
    forward = -d
    right = _unit(np.cross(forward, sky))
    up = np.cross(right, forward)
    centre = 0.5 * (lo + hi)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])]) - centre
    tan_h = np.tan(np.radians(angle) / 2.0) * fill
    tan_v = tan_h / aspect
    depth = corners @ forward
    need = np.maximum(np.abs(corners @ right) / tan_h, np.abs(corners @ up) / tan_v) - depth
    distance = max(float(need.max()), 1e-6) + 1e-9
    return Camera(centre + distance * d, centre, sky, float(angle), float(aspect))
