"""A rigid body's triangle mesh prepared for rod contact (softmech.kernels.rod_mesh_contact):
checked, its angle-weighted pseudonormals and a static uniform grid of its triangles, built once
at compile time in the body's (principal) frame.

Checks (ValueError naming the body and the offending triangle or edge), on top of
softmech.bodies.meshes.validate (shapes, indices, degenerate and repeated triangles, duplicate
or unused vertices, edges of more than two triangles):
* consistent orientation: the two triangles of an inner edge run along it in opposite
  directions (otherwise no normal field tells outside from inside);
* a closed mesh (no boundary edge) encloses a positive volume: its triangles run
  counter-clockwise seen from outside (their normals point out). An open mesh (a terrain, a
  wall) has the outside on the side its normals point to.

Pseudonormals (Baerentzen and Aanaes, IEEE TVCG 11:243, 2005): the face normal n_f for a
face; for an edge, the sum of the unit normals of its one or two faces (eq. 3: the angle-
weighted normal of an edge is pi n_1 + pi n_2); for a vertex, the sum of the unit normals of
its faces weighted by each face's angle at the vertex (eq. 2; Thuermer and Wuethrich 1998);
each normalized.

Grid: cell size h = the mean largest extent of the triangles' bounding boxes (grown until the
grid has at most MAX_CELLS_PER_TRI cells per triangle), every triangle listed in each cell its
bounding box overlaps; a query visits the cells of an element's box grown by REACH r.
"""
import numpy as np

from softmech.bodies.meshes import edge_triangles, validate
from softmech.kernels.mesh_distance import N_FEATURES
from softmech.kernels.rod_mesh_contact import N_DIMS, N_GRID

MAX_CELLS_PER_TRI = 8
"""Upper bound of grid cells per triangle (a mesh of large flat regions and small details)."""


def check_orientation(owner, vertices, triangles):
    """ValueError naming `owner` if the triangles are not consistently oriented, or if a closed
    mesh's normals point inwards. Returns True for a closed mesh."""
    edges, edge_tris = edge_triangles(triangles)
    inner = np.flatnonzero(edge_tris[:, 1] >= 0)

    def along(t, a, b):     # +1 if triangle t runs a -> b, -1 if b -> a
        row = list(triangles[t])
        i = row.index(a)
        return 1 if row[(i + 1) % 3] == b else -1

    for e in inner:
        a, b = edges[e]
        t1, t2 = edge_tris[e]
        if along(t1, a, b) == along(t2, a, b):
            raise ValueError(
                f"{owner}.faces is not allowed: triangles {int(t1)} and {int(t2)} are oriented "
                f"oppositely across their edge {[int(a), int(b)]} (every triangle must run "
                f"counter-clockwise seen from outside)")
    closed = len(inner) == len(edges)
    if closed:
        p = vertices[triangles]
        volume = np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0
        if volume <= 0.0:
            raise ValueError(f"{owner}.faces is not allowed: the closed mesh's triangles run "
                             f"clockwise seen from outside (enclosed volume {volume:.3g} m^3 < 0):"
                             " reverse each triangle's vertex order")
    return closed


def pseudonormals(vertices, triangles):
    """Unit normals (n_tri, N_FEATURES, 3): the face, its vertices' and its edges' angle-weighted
    pseudonormals (module docstring), in softmech.kernels.mesh_distance's feature order."""
    p = vertices[triangles]                                    # (m, 3, 3)
    face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    face /= np.linalg.norm(face, axis=1)[:, None]
    vertex = np.zeros_like(vertices)
    for k in range(3):
        u = p[:, (k + 1) % 3] - p[:, k]
        w = p[:, (k + 2) % 3] - p[:, k]
        cos = np.einsum("ij,ij->i", u, w) / (np.linalg.norm(u, axis=1) * np.linalg.norm(w, axis=1))
        angle = np.arccos(np.clip(cos, -1.0, 1.0))
        np.add.at(vertex, triangles[:, k], angle[:, None] * face)
    vertex /= np.linalg.norm(vertex, axis=1)[:, None]
    edges, edge_tris = edge_triangles(triangles)
    edge = face[edge_tris[:, 0]] + np.where(edge_tris[:, 1:] >= 0, face[edge_tris[:, 1]], 0.0)
    edge /= np.linalg.norm(edge, axis=1)[:, None]
    index = {(int(a), int(b)): e for e, (a, b) in enumerate(edges)}
    out = np.empty((len(triangles), N_FEATURES, 3))
    out[:, 0] = face
    for k in range(3):
        out[:, 1 + k] = vertex[triangles[:, k]]
        a, b = triangles[:, k], triangles[:, (k + 1) % 3]
        out[:, 4 + k] = edge[[index[(min(i, j), max(i, j))] for i, j in zip(a, b)]]
    return out


def grid(corners):
    """Uniform grid of triangles with corners (m, 3, 3) [m]: (origin (3,), h [m], cells per axis
    (3,) int, cell_start (n_cells + 1,) int64, cell_tris int64), cells numbered (ix ny + iy) nz
    + iz (module docstring)."""
    lo, hi = corners.min(axis=1), corners.max(axis=1)          # (m, 3) triangle boxes
    origin, top = lo.min(axis=0), hi.max(axis=0)
    h = float(np.mean((hi - lo).max(axis=1)))
    while True:
        n = np.maximum(np.floor((top - origin) / h).astype(np.int64) + 1, 1)
        if n.prod() <= MAX_CELLS_PER_TRI * len(corners) + 64:
            break
        h *= 1.25
    first = np.clip(np.floor((lo - origin) / h).astype(np.int64), 0, n - 1)
    last = np.clip(np.floor((hi - origin) / h).astype(np.int64), 0, n - 1)
    cells, tris = [], []
    for t in range(len(corners)):
        ix, iy, iz = np.meshgrid(*(np.arange(first[t, c], last[t, c] + 1) for c in range(3)),
                                 indexing="ij")
        ids = ((ix * n[1] + iy) * n[2] + iz).ravel()
        cells.append(ids)
        tris.append(np.full(len(ids), t))
    cells, tris = np.concatenate(cells), np.concatenate(tris)
    order = np.argsort(cells, kind="stable")
    start = np.zeros(n.prod() + 1, dtype=np.int64)
    np.add.at(start, cells + 1, 1)
    return origin, h, n, np.cumsum(start), tris[order].astype(np.int64)


def contact_mesh(body):
    """(corners (m, 3, 3) [m], normals (m, N_FEATURES, 3), grid row (N_GRID,), cells per axis
    (3,), cell_start, cell_tris) of a general body's mesh in its principal frame, checked
    (module docstring); ValueError if the body has no mesh."""
    owner = f"body '{body.name}'"
    if body.mesh is None:
        raise ValueError(f"{owner} is not allowed in rod contact: a general body touches rods "
                         "through its mesh, and it has none (give vertices= and faces=)")
    vertices, triangles = validate(body.to_principal(body.mesh[0]), body.mesh[1], owner=owner)
    check_orientation(owner, vertices, triangles)
    corners = vertices[triangles]
    origin, h, n, start, tris = grid(corners)
    row = np.zeros(N_GRID)
    row[:3], row[3], row[4] = origin, h, 1.0 / h
    row[5] = float(np.linalg.norm(vertices, axis=1).max())
    return corners, pseudonormals(vertices, triangles), row, n, start, tris


def pack_meshes(bodies):
    """The kernel's arrays for a list of mesh bodies: mesh_tri_x, mesh_tri_n, mesh_grid,
    mesh_dims, mesh_cell_start, mesh_cell_tris (softmech.kernels.rod_mesh_contact)."""
    xs, ns, grids, dims, starts, cells = [], [], [], [], [], []
    n_tri = n_start = 0
    for body in bodies:
        corners, normals, row, n, start, tris = contact_mesh(body)
        xs.append(corners)
        ns.append(normals)
        grids.append(row)
        dims.append([n[0], n[1], n[2], n_start, n_tri])
        starts.append(start + sum(len(c) for c in cells))
        cells.append(tris + n_tri)
        n_tri += len(corners)
        n_start += len(start)
    return dict(mesh_tri_x=np.concatenate(xs), mesh_tri_n=np.concatenate(ns),
                mesh_grid=np.array(grids).reshape(-1, N_GRID),
                mesh_dims=np.array(dims, dtype=np.int64).reshape(-1, N_DIMS),
                mesh_cell_start=np.concatenate(starts).astype(np.int64),
                mesh_cell_tris=np.concatenate(cells).astype(np.int64))
