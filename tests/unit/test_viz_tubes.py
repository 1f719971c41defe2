"""Tube meshes, bodies, camera framing and the matplotlib 3D views (softmech.viz.geometry,
softmech.viz.tubes)."""
import numpy as np
import pytest

from softmech.viz.geometry import (RodBody, View, bounds_of, face_normals, frame_camera,
                                   node_radius, refine_centerline, tube_mesh)
from softmech.viz.tubes import plot_tubes, tube_frames


def helix(n=30):
    s = np.linspace(0.0, 1.0, n)
    return np.stack([0.2 * np.cos(4 * s), 0.2 * np.sin(4 * s), 0.3 * s], axis=1)


def circle(n=24, radius=0.3):
    th = 2 * np.pi * np.arange(n) / n
    return np.stack([radius * np.cos(th), radius * np.sin(th), np.zeros(n)], axis=1)


def edges_shared_twice(faces):
    """True when every edge belongs to exactly two faces (a closed, watertight surface)."""
    e = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]), axis=1)
    _, counts = np.unique(e, axis=0, return_counts=True)
    return np.all(counts == 2), len(counts)


def test_node_radius_from_elements_open_and_closed():
    r = np.array([1.0, 2.0, 4.0])
    open_ = node_radius(r, 4)
    assert open_[0] == r[0] and open_[-1] == r[-1]
    assert np.allclose(open_[1:-1], (r[:-1] + r[1:]) / 2)
    ring = node_radius(r, 3, closed=True)
    assert np.allclose(ring, (r + np.roll(r, 1)) / 2)
    assert np.array_equal(node_radius(np.arange(1.0, 5.0), 4), np.arange(1.0, 5.0))
    assert np.all(node_radius(0.1, 5) == 0.1)
    with pytest.raises(ValueError, match="radius has shape"):
        node_radius(np.ones(7), 4)
    with pytest.raises(ValueError, match="radius"):
        node_radius(-1.0, 4)


@pytest.mark.parametrize("closed", [False, True])
def test_tube_mesh_is_a_closed_outward_surface_at_the_radius(closed):
    x = circle() if closed else helix()
    n_el = len(x) if closed else len(x) - 1
    r = np.linspace(0.02, 0.04, n_el)
    v, f = tube_mesh(x, r, sides=10, closed=closed)
    watertight, n_edges = edges_shared_twice(f)
    assert watertight
    # Euler characteristic: torus 0, capped tube (a sphere) 2
    assert len(v) - n_edges + len(f) == (0 if closed else 2)
    rn = node_radius(r, len(x), closed)
    ring = v[:len(x) * 10].reshape(len(x), 10, 3) if closed else None
    if closed:
        assert np.allclose(np.linalg.norm(ring - x[:, None], axis=2), rn[:, None])
    # outward: each face normal points away from the nearest centreline node
    centres = v[f].mean(axis=1)
    nearest = x[np.argmin(np.linalg.norm(centres[:, None] - x[None], axis=2), axis=1)]
    assert np.all(np.sum(face_normals(v, f) * (centres - nearest), axis=1) > 0)


def test_tube_mesh_follows_directors():
    x = np.stack([np.linspace(0, 1, 5), np.zeros(5), np.zeros(5)], axis=1)
    angle = np.linspace(0, np.pi / 2, 4)                  # twisted frames along +x
    d1 = np.stack([np.zeros(4), np.cos(angle), np.sin(angle)], axis=1)
    d3 = np.tile([1.0, 0, 0], (4, 1))
    Q = np.stack([d1, np.cross(d3, d1), d3], axis=1)
    v, _ = tube_mesh(x, 0.1, Q, sides=8, caps=False)
    first = v.reshape(5, 8, 3)[:, 0] - x               # vertex 0 of each ring lies along d1
    assert np.allclose(first[0] / 0.1, d1[0])
    assert np.allclose(first[-1] / 0.1, d1[-1])
    with pytest.raises(ValueError, match="directors has shape"):
        tube_mesh(x, 0.1, Q[:2])


def test_refine_centerline_passes_through_the_nodes():
    x = helix(9)
    fine, r = refine_centerline(x, np.full(9, 0.1), factor=4)
    assert fine.shape == (33, 3) and np.allclose(fine[::4], x) and np.allclose(r, 0.1)
    ring, _ = refine_centerline(circle(12), np.full(12, 0.1), factor=3, closed=True)
    assert ring.shape == (36, 3) and np.allclose(ring[::3], circle(12))


def test_body_validation_and_bounds():
    body = RodBody.make("a", helix(), 0.05, index=1)
    lo, hi = body.bounds()
    assert np.allclose(lo, helix().min(axis=0) - 0.05) and np.allclose(hi, helix().max(0) + 0.05)
    with pytest.raises(ValueError, match="a.positions has shape"):
        RodBody.make("a", np.zeros((4, 2)), 0.1)
    with pytest.raises(ValueError, match="a.color"):
        RodBody.make("a", helix(), 0.1, color=(2, 0, 0))
    with pytest.raises(ValueError, match="elevation"):
        View(elevation=95)
    with pytest.raises(ValueError, match="up"):
        View(up="w")


@pytest.mark.parametrize("up", ["x", "y", "z"])
def test_camera_frames_every_corner(up):
    lo, hi = np.array([0.0, -0.2, 0.0]), np.array([2.0, 0.3, 0.1])
    cam = frame_camera(lo, hi, View(up=up), aspect=1.5, angle=40.0)
    forward = cam.look_at - cam.location
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, cam.sky)
    right /= np.linalg.norm(right)
    upv = np.cross(right, forward)
    tan_h = np.tan(np.radians(20.0))
    corners = np.array([[a, b, c] for a in (lo[0], hi[0]) for b in (lo[1], hi[1])
                        for c in (lo[2], hi[2])]) - cam.location
    depth = corners @ forward
    assert np.all(depth > 0)
    fx, fy = np.abs(corners @ right) / depth / tan_h, np.abs(corners @ upv) / depth / (tan_h / 1.5)
    assert np.all(np.maximum(fx, fy) <= 1.0) and np.max(np.maximum(fx, fy)) > 0.8


def test_plot_tubes_and_frames(tmp_path):
    bodies = [RodBody.make("h", helix(), 0.03), RodBody.make("c", circle(), 0.02, closed=True,
                                                               index=1)]
    path = plot_tubes(str(tmp_path / "t.png"), bodies, floor=-0.05, size_px=(320, 240))
    import imageio.v2 as imageio
    img = imageio.imread(path)
    assert img.shape[:2] == (240, 320)
    assert len(np.unique(img.reshape(-1, img.shape[2]), axis=0)) > 50     # not blank
    frames = [[RodBody.make("h", helix() + [0.1 * k, 0, 0], 0.03)] for k in range(3)]
    assert bounds_of(frames)[1][0] == pytest.approx(0.2 + helix()[:, 0].max() + 0.03)
    calls = []
    pics = list(tube_frames(frames, times=[0, 1, 2], size_px=(320, 240),
                            progress=lambda: calls.append(1)))
    assert len(pics) == 3 and len(calls) == 3 and pics[0].shape == (240, 320, 4)
    assert not np.array_equal(pics[0], pics[2])


def test_small_bodies_are_drawn_with_less_detail():
    """TubeAxes.draw: a rod narrower than HAIRLINE_PX on the picture becomes a line (one line
    collection for all of them, drawn first); rods and spheres narrower than DETAIL_PX get a
    side per pixel of their width (at least 4); a wide rod keeps every side."""
    from mpl_toolkits.mplot3d.art3d import Line3DCollection

    from softmech.viz import tubes
    from softmech.viz.solids import SolidBody

    x = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, 0.0, 0.0]])
    wide = RodBody.make("wide", x, 0.05)
    fig, axes, _ = tubes._tube_figure(*bounds_of([[wide]]), (640, 480), 100, View(), None, 12,
                                      None, True)
    px = axes.pixels_per_metre()
    assert 300 < px < 2000                                  # ~1 m drawn across ~640 px
    hair = RodBody.make("hair", x + [0, 0.2, 0], 0.4 / px)   # 0.8 px wide
    thin = RodBody.make("thin", x + [0, 0.4, 0], 5.0 / px)   # 10 px wide
    bead = SolidBody.make("bead", {"shape": "sphere", "radius": 3.0 / px}, (0.5, 0.6, 0.0))
    artists = axes.draw([wide, hair, thin, bead])
    assert isinstance(artists[0], Line3DCollection)
    assert len(artists[0].get_linewidths()) == 2             # one per segment of the hair
    assert len(artists) == 2                                 # the lines, then every tube
    assert axes._sides(wide, px) == 12
    assert axes._sides(thin, px) == 10
    assert axes._sides(bead, px) == 6
    assert axes._sides(hair, px) == 4
