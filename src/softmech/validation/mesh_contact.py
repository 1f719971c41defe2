"""Validation cases of rods touching rigid bodies given as triangle meshes (group `contact`;
softmech.terms.rod_mesh_contact, the law of softmech.terms.rod_body_contact): Hooke's law for a
rod lying on a box mesh and on the floor of a trench (a non-convex mesh), and the statics of a
rod resting in a V-groove of two inclined faces. tests/validation/test_rod_mesh_contact.py
calls the same functions.
"""
import numpy as np

import softmech as sm
from softmech.terms.rod_body_contact import body_contact_forces, body_contact_stats
from softmech.validation.common import rel_error, result, validation_case

G = 9.81
ROD = dict(density=1000.0, youngs_modulus=1e8, shear_modulus=1e8 / 1.5)
N, R, L, K = 10, 0.01, 0.5, 1e4
"""The resting rod of the cases: n elements, radius [m], length [m], contact stiffness [N/m]."""


def box_mesh(lengths, centre=(0.0, 0.0, 0.0)):
    """(vertices (8, 3) [m], faces (12, 3)) of a box of edge lengths (3,) [m] about `centre`:
    two triangles per face, counter-clockwise seen from outside."""
    half = 0.5 * np.asarray(lengths, dtype=float)
    v = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    return v + np.asarray(centre, dtype=float), np.array(faces, dtype=np.int64)


def prism_mesh(radius, length, sections, phase=0.5):
    """(vertices (2 sections + 2, 3) [m], faces (4 sections, 3)) of a closed prism of `sections`
    rectangular facets about the z axis, its vertices on the circle of `radius` [m] at angles
    pi/2 + (i + phase) 2 pi / sections (phase 0.5: a facet's middle at +y; 0: a vertex there),
    from z = -length/2 to +length/2 [m], the end caps fanned from their centres; outward,
    counter-clockwise seen from outside. A faceted cylinder."""
    angles = np.pi / 2 + (np.arange(sections) + phase) * 2 * np.pi / sections
    ring = np.column_stack([radius * np.cos(angles), radius * np.sin(angles)])
    half = 0.5 * length
    v = np.vstack([np.column_stack([ring, np.full(sections, z)]) for z in (-half, half)])
    v = np.vstack([v, [[0, 0, -half], [0, 0, half]]])
    faces = []
    for i in range(sections):
        j = (i + 1) % sections
        faces += [(i, j, sections + j), (i, sections + j, sections + i),
                  (2 * sections, j, i), (2 * sections + 1, sections + i, sections + j)]
    return v, np.array(faces, dtype=np.int64)


def extruded_mesh(profile, cap, length):
    """(vertices (2 n, 3), faces) of the closed prism of a polygon `profile` (n, 2) [m] in the
    (y, z) plane, counter-clockwise seen from +x, extruded along x from -length/2 to
    +length/2 [m]: two triangles per side, the end caps from `cap` (triangles of the profile's
    vertex indices, counter-clockwise seen from +x); outward."""
    n = len(profile)
    s = 0.5 * length
    v = np.array([[x, y, z] for x in (-s, s) for y, z in profile])
    faces = []
    for i in range(n):                   # the sides: quads between the two end profiles
        j = (i + 1) % n
        faces += [(i, j, n + j), (i, n + j, n + i)]
    faces += [(a, c, b) for a, b, c in cap] + [(n + a, n + b, n + c) for a, b, c in cap]
    return v, np.array(faces, dtype=np.int64)


def fan(n, apex):
    """Triangles fanned from vertex `apex` of an n-gon that is star-shaped from it (every
    vertex seen from the apex: an L's or a notch's reflex corner), in the polygon's order."""
    return [(apex, (apex + i) % n, (apex + i + 1) % n) for i in range(1, n - 1)]


def trench_mesh(width, depth, size):
    """(vertices, faces) of a square block of side `size` [m] and height `depth` [m] (top face
    at z = 0) with a trench of `width` [m] and the block's depth minus a floor of depth / 2 cut
    along x through its middle: a closed, non-convex mesh (an extruded U profile)."""
    w, h, s = 0.5 * width, depth, 0.5 * size
    floor = -0.5 * depth
    # the U profile in the (y, z) plane, counter-clockwise seen from +x
    profile = np.array([[-s, -h], [s, -h], [s, 0.0], [w, 0.0], [w, floor], [-w, floor],
                        [-w, 0.0], [-s, 0.0]])
    # the end caps: the U as 6 triangles, fanned from convex pieces
    cap = [(0, 1, 4), (0, 4, 5), (1, 2, 3), (1, 3, 4), (0, 5, 6), (0, 6, 7)]
    return extruded_mesh(profile, cap, size)


def v_notch_mesh(alpha, width, depth, length):
    """(vertices (10, 3), faces (16, 3)) of one closed block `width` wide (y), `length` long
    (x) [m], its bottom at z = -depth [m], with a V-notch along x: two faces through the x axis
    rising at +-alpha [rad] to the block's sides y = +-width/2 (top edges at z = (width/2)
    tan alpha). One mesh: the groove's two faces meet at a concave edge."""
    s = 0.5 * width
    top = s * np.tan(alpha)
    profile = np.array([[-s, -depth], [s, -depth], [s, top], [0.0, 0.0], [-s, top]])
    return extruded_mesh(profile, fan(5, 3), length)


def corner_mesh(size, length):
    """(vertices (12, 3), faces (20, 3)) of one closed L-shaped block extruded along x over
    `length` [m]: a floor z = 0 for y < 0 and a wall y = 0 for z > 0, each `size` [m] wide
    and the block `size` thick, meeting at a 90 deg inner corner along the x axis."""
    s = size
    profile = np.array([[-s, -s], [s, -s], [s, s], [0.0, s], [0.0, 0.0], [-s, 0.0]])
    return extruded_mesh(profile, fan(6, 4), length)


def resting_rod(scene, height, y=0.0):
    """The rod of the cases along x at `height` [m] (centre line), with damping."""
    rod = scene.add_cosserat_rod(name="rod", start=(-0.5 * L, y, height), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=L, n_elems=N, radius=R, **ROD)
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.LinearDamping(rod, 0.5))
    return rod


def weight():
    """The rod's weight m g [N]."""
    return ROD["density"] * np.pi * R * R * L * G


def rod_on_mesh(mesh=True, duration=1.0):
    """A rod lying along the top face (z = 0.1 m) of a fixed 1 m x 1 m x 0.1 m box: a 12-triangle
    mesh (mesh=True) or the analytic box. Returns (node heights (n + 1,) [m], contact force
    on each node (n + 1, 3) [N], elements touching)."""
    scene = sm.Scene()
    resting_rod(scene, 0.1 + R, y=0.1)
    if mesh:
        v, f = box_mesh((1.0, 1.0, 0.1))
        scene.add_rigid_body(name="table", position=(0, 0, 0.05), vertices=v, faces=f, fixed=True)
    else:
        scene.add_box(name="table", position=(0, 0, 0.05), lengths=(1, 1, 0.1), fixed=True)
    scene.add(sm.RodBodyContact(stiffness=K, damping=1.0))
    sim = scene.compile(dt=2e-5)
    sim.run(duration)
    return (sim.get_state("rod")["positions"][0, :, 2], body_contact_forces(sim, "rod")[0],
            int(body_contact_stats(sim)[0, 1]))


def line_load_check(name, overlap, forces, touching, top):
    """The record of a rod resting on a horizontal face at height `top` [m]: overlap
    eps = m g / (n k) for every element (Hooke: n springs in parallel), node forces m g / n
    (ends half), all n elements touching; tolerance 1e-9 (an exact discrete equilibrium,
    settled to round-off)."""
    eps = weight() / (N * K)
    depth = top + R - overlap
    worst = depth[np.argmax(np.abs(depth - eps))]
    share = np.full(N + 1, weight() / N)
    share[[0, -1]] /= 2
    force_error = float(np.max(np.abs(forces[:, 2] / share - 1)))
    error = rel_error(worst, eps)
    return result(name, worst, eps, error, 1e-9,
                  f"overlap {worst:.9e} m vs m g/(n k) = {eps:.9e} m; node forces within "
                  f"{force_error:.1e} of their shares; {touching} of {N} elements touch",
                  passed=error <= 1e-9 and force_error <= 1e-9 and touching == N)


@validation_case("overlap of each element ε [m]", "Hooke: n springs k in parallel carry the "
                 "weight, ε = m g / (n k), on a 12-triangle box mesh", fast=True)
def rod_on_mesh_box_carries_its_weight():
    """A straight rod (n = 10, r = 1 cm, L = 0.5 m) resting along the top face of a fixed box
    given as a 12-triangle mesh (each face two triangles: the rod crosses a face's diagonal),
    k = 1e4 N/m, damped to rest over 1 s: every element's overlap is eps = m g / (n k) and the
    nodes carry the weight as a line load (ends half), as on the analytic box. Error relative;
    tolerance 1e-9 (an exact discrete equilibrium, settled to round-off)."""
    heights, forces, touching = rod_on_mesh(mesh=True)
    return line_load_check("rod_on_mesh_box_carries_its_weight", heights, forces, touching, 0.1)


def rod_in_trench(duration=1.0):
    """A rod lying along the floor of a trench (width 0.1 m, floor at z = -0.05 m) cut in a
    fixed 1 m block: inside the block's convex hull, outside the mesh. Returns what rod_on_mesh
    returns."""
    scene = sm.Scene()
    resting_rod(scene, -0.05 + R)
    v, f = trench_mesh(0.1, 0.1, 1.0)
    scene.add_rigid_body(name="block", position=(0, 0, 0), vertices=v, faces=f, fixed=True)
    scene.add(sm.RodBodyContact(stiffness=K, damping=1.0))
    sim = scene.compile(dt=2e-5)
    sim.run(duration)
    return (sim.get_state("rod")["positions"][0, :, 2], body_contact_forces(sim, "rod")[0],
            int(body_contact_stats(sim)[0, 1]))


def slab(alpha, side):
    """(vertices, faces, directors) of a thin fixed slab whose top face passes through the
    x axis inclined by alpha [rad] about it, rising on the side y > 0 (side = +1) or y < 0
    (side = -1): a face of a V-groove."""
    c, s = np.cos(alpha), np.sin(alpha)
    d2 = np.array([0.0, side * c, s])           # up the face, away from the groove's bottom
    d3 = np.array([0.0, -side * s, c])          # the face's outward normal
    d1 = np.cross(d2, d3)
    v, f = box_mesh((1.0, 0.3, 0.02), centre=(0.0, 0.15, -0.01))
    return v, f, np.array([d1, d2, d3])


def rod_in_v_groove(alpha, duration=1.0, one_mesh=False):
    """A rod resting along a V-groove of two faces inclined by +-alpha [rad] meeting along the
    x axis, k = 1e4 N/m per element and face: two fixed mesh slabs, or (one_mesh) one block
    with a V-notch (v_notch_mesh: both faces in one mesh, two contacts per element). Returns
    (node positions (n + 1, 3) [m], contact force on each node (n + 1, 3) [N], contacts)."""
    scene = sm.Scene()
    resting_rod(scene, R / np.cos(alpha))
    if one_mesh:
        v, f = v_notch_mesh(alpha, 0.5, 0.1, 1.0)
        scene.add_rigid_body(name="notch", position=(0, 0, 0), vertices=v, faces=f, fixed=True)
    else:
        for name, side in (("left", -1), ("right", 1)):
            v, f, d = slab(alpha, side)
            scene.add_rigid_body(name=name, position=(0, 0, 0), vertices=v, faces=f, directors=d,
                                 fixed=True)
    scene.add(sm.RodBodyContact(stiffness=K, damping=1.0))
    sim = scene.compile(dt=2e-5)
    sim.run(duration)
    return (sim.get_state("rod")["positions"][0], body_contact_forces(sim, "rod")[0],
            int(body_contact_stats(sim)[0, 1]))


def v_groove_check(name, alpha, one_mesh):
    """The record of rod_in_v_groove(alpha, one_mesh=one_mesh) against the wedge's statics
    (rod_in_v_groove_of_meshes): overlap eps = m g / (2 n k cos alpha) with each face, node
    forces m g / n (ends half), on the symmetry plane, 2 n contacts; tolerance 1e-9."""
    x, forces, touching = rod_in_v_groove(alpha, one_mesh=one_mesh)
    eps = weight() / (2 * N * K * np.cos(alpha))
    depths = []
    for side in (-1, 1):
        normal = np.array([0.0, -side * np.sin(alpha), np.cos(alpha)])
        depths.append(R - x @ normal)
    depths = np.concatenate(depths)
    worst = depths[np.argmax(np.abs(depths - eps))]
    share = np.full(N + 1, weight() / N)
    share[[0, -1]] /= 2
    force_error = float(np.max(np.abs(forces[:, 2] / share - 1)))
    off_axis = float(np.max(np.abs(x[:, 1])))
    error = rel_error(worst, eps)
    return result(name, worst, eps, error, 1e-9,
                  f"overlap {worst:.9e} m vs m g/(2 n k cos a) = {eps:.9e} m; node forces within "
                  f"{force_error:.1e} of their shares; off the symmetry plane {off_axis:.1e} m; "
                  f"{touching} contacts",
                  passed=error <= 1e-9 and force_error <= 1e-9 and off_axis <= 1e-9 * R
                  and touching == 2 * N)


@validation_case("overlap with each face ε [m]", "statics of a V-groove: N = m g / (2 cos α) on "
                 "each face, ε = N / (n k)")
def rod_in_v_groove_of_meshes():
    """A rod (n = 10, r = 1 cm, L = 0.5 m) resting in a V-groove of two fixed mesh slabs
    inclined by alpha = 30 deg: by symmetry and vertical equilibrium each face pushes each
    element with N = m g / (2 n cos(alpha)) along its normal (frictionless wedge), so each
    element overlaps each face by eps = N / k (Hooke), the centreline sits at
    (r - eps) / cos(alpha) above the groove's bottom line, midway. Measured: the overlap of the
    nodes with the faces, r - (distance from each node to each face plane). Error relative;
    tolerance 1e-9 (exact discrete statics, settled to round-off). Also required: the nodes
    carry the weight (ends half) to 1e-9 and stay in the groove's plane of symmetry (|y| <
    1e-9 r)."""
    return v_groove_check("rod_in_v_groove_of_meshes", np.radians(30.0), False)


@validation_case("overlap with each face ε [m]", "statics of a V-groove cut in one mesh: "
                 "N = m g / (2 cos α) on each face, ε = N / (n k), two contacts per element")
def rod_in_v_groove_of_one_mesh():
    """rod_in_v_groove_of_meshes with both faces in one mesh (v_notch_mesh: a block with a
    V-notch, alpha = 30 deg, the faces meeting at a concave edge): every element must get two
    contacts, one per face (softmech.kernels.rod_mesh_contact.second_contact), and the same
    statics, N = m g / (2 n cos(alpha)) per face and element, eps = N / k (Hooke), on the
    symmetry plane. Error relative; tolerance 1e-9 (exact discrete statics, settled to
    round-off), node forces to 1e-9 of their shares, |y| < 1e-9 r, 2 n contacts."""
    return v_groove_check("rod_in_v_groove_of_one_mesh", np.radians(30.0), True)


def rod_in_corner(beta, duration=1.0):
    """A rod lying along the 90 deg inner corner of one fixed L-shaped mesh (corner_mesh: floor
    z = 0, wall y = 0), gravity g (0, sin beta, -cos beta) tilted by beta [rad] into the wall,
    k = 1e4 N/m per element and face. Returns (node positions (n + 1, 3) [m], node velocities
    (n + 1, 3) [m/s], contact force on each node (n + 1, 3) [N], contacts)."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(-0.5 * L, -R, R), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=L, n_elems=N, radius=R, **ROD)
    scene.add(sm.Gravity((0, G * np.sin(beta), -G * np.cos(beta))))
    scene.add(sm.LinearDamping(rod, 0.5))
    v, f = corner_mesh(0.2, 1.0)
    scene.add_rigid_body(name="corner", position=(0, 0, 0), vertices=v, faces=f, fixed=True)
    scene.add(sm.RodBodyContact(stiffness=K, damping=1.0))
    sim = scene.compile(dt=2e-5)
    sim.run(duration)
    state = sim.get_state("rod")
    return (state["positions"][0], state["velocities"][0], body_contact_forces(sim, "rod")[0],
            int(body_contact_stats(sim)[0, 1]))


@validation_case("floor and wall overlaps ε [m]", "statics of an inner corner of one mesh: "
                 "N_floor = m g cos β / n, N_wall = m g sin β / n, ε = N / k")
def rod_in_inner_corner_of_one_mesh():
    """A rod (n = 10, r = 1 cm, L = 0.5 m) in the 90 deg inner corner of one L-shaped mesh
    (floor and wall), gravity tilted by beta = 30 deg into the wall, no friction: the floor
    pushes each element with N_f = m g cos(beta) / n up and the wall with N_w = m g sin(beta)
    / n out of it (equilibrium of each element; the normals are orthogonal, so the split is
    unique), each by Hooke eps = N / k: the nodes at z = r - eps_f, y = -(r - eps_w). Error:
    the larger relative error of the two overlaps; tolerance 1e-9 (exact discrete statics,
    settled to round-off). Also required: node forces (y and z) within 1e-9 of their shares
    (ends half), speed below 1e-9 m/s after 1 s (at rest, not chattering between the faces),
    2 n contacts."""
    beta = np.radians(30.0)
    x, v, forces, touching = rod_in_corner(beta)
    eps_f = weight() * np.cos(beta) / (N * K)
    eps_w = weight() * np.sin(beta) / (N * K)
    errors = np.concatenate([(R - x[:, 2]) / eps_f - 1, (R + x[:, 1]) / eps_w - 1])
    error = float(np.max(np.abs(errors)))
    worst = float(R - x[np.argmax(np.abs(x[:, 2] - (R - eps_f))), 2])
    share = np.full(N + 1, weight() / N)
    share[[0, -1]] /= 2
    force_error = float(max(np.max(np.abs(forces[:, 2] / (share * np.cos(beta)) - 1)),
                            np.max(np.abs(-forces[:, 1] / (share * np.sin(beta)) - 1))))
    speed = float(np.max(np.linalg.norm(v, axis=1)))
    return result("rod_in_inner_corner_of_one_mesh", worst, eps_f, error, 1e-9,
                  f"floor overlap {worst:.9e} m vs m g cos b/(n k) = {eps_f:.9e} m, wall "
                  f"overlap vs m g sin b/(n k) = {eps_w:.9e} m: worst relative error "
                  f"{error:.1e}; node forces within {force_error:.1e} of their shares; speed "
                  f"{speed:.1e} m/s; {touching} contacts",
                  passed=error <= 1e-9 and force_error <= 1e-9 and speed < 1e-9
                  and touching == 2 * N)


CASES = {f.__name__: f for f in (rod_on_mesh_box_carries_its_weight, rod_in_v_groove_of_meshes,
                                  rod_in_v_groove_of_one_mesh, rod_in_inner_corner_of_one_mesh)}
"""Case name -> function returning its record."""
