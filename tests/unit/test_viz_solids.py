"""Rigid bodies and joints in the 3D views (softmech.viz.solids): meshes of every shape, the one
placement function, joint markers where the joints are, and renders (matplotlib tubes and
POV-Ray) whose pixels show the bodies where they are."""
import numpy as np
import pytest

from softmech.viz import povray
from softmech.viz.geometry import PALETTE, RodBody, View, face_normals
from softmech.viz.solids import (JOINT_COLOR, JOINT_SIZE, SolidBody, body_mesh, cylinder_mesh,
                                 equivalent_box, joint_bodies, place, sphere_mesh)
from softmech.viz.source import RenderData, bodies_at, ground_height
from softmech.viz.tubes import plot_tubes

needs_povray = pytest.mark.skipif(not povray.povray_available(),
                                  reason="POV-Ray (povray program and vapory) not installed")
GREEN, MAGENTA = (0.1, 0.8, 0.1), (0.85, 0.1, 0.85)


def closed_and_outward(vertices, faces):
    """Every edge (vertices merged by position) in exactly two faces; every face normal points
    away from the centre."""
    _, ids = np.unique(np.round(vertices, 12), axis=0, return_inverse=True)
    f = ids.reshape(-1)[faces]
    edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    counts = np.unique(edges, axis=0, return_counts=True)[1]
    outward = np.sum(face_normals(vertices, faces) * (vertices[faces].mean(axis=1)
                                                      - vertices.mean(axis=0)), axis=1)
    return np.all(counts == 2) and np.all(outward > 0)


def test_sphere_and_cylinder_meshes_are_closed_outward_and_at_their_size():
    v, f, n = sphere_mesh(0.3, 12)
    assert closed_and_outward(v, f)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 0.3)
    np.testing.assert_allclose(n, v / 0.3)
    v, f, n = cylinder_mesh(0.1, 0.5, 10)
    assert closed_and_outward(v, f)
    np.testing.assert_allclose(v.min(axis=0), [-0.1, -0.1 * np.sin(0.4 * np.pi), -0.25])
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0)
    side = np.abs(n[:, 2]) < 0.5                       # side normals radial, cap normals axial
    np.testing.assert_allclose(n[side], v[side] * [10.0, 10.0, 0.0], atol=1e-12)


def test_equivalent_box_has_the_body_mass_and_moments():
    m, (a, b, c) = 12.0, (1.0, 2.0, 3.0)
    moments = m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    np.testing.assert_allclose(equivalent_box(m, moments), [a, b, c])
    # a general body without a mesh: that box along its principal axes (rows of P)
    P = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    inertia = P.T @ np.diag(moments) @ P
    v, f, normals = body_mesh({"shape": "general", "mass": m, "inertia": inertia,
                               "principal_axes": P})
    assert normals is None and closed_and_outward(v, f)
    np.testing.assert_allclose(v.max(axis=0), 0.5 * np.array([c, a, b]))


def test_place_puts_body_points_where_the_frame_says():
    Q = np.array([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])   # d1 = z, d3 = x
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(place([[0.5, 0.0, 0.0], [0.0, 0.0, 2.0]], x, Q),
                               [[1.0, 2.0, 3.5], [3.0, 2.0, 3.0]])
    box = SolidBody.make("b", {"shape": "box", "lengths": np.array([1.0, 0.2, 0.2])}, x, Q)
    lo, hi = box.bounds()
    np.testing.assert_allclose(hi - lo, [0.2, 0.2, 1.0])          # the long edge d1 along z
    with pytest.raises(ValueError, match="b.shape = 'cone'"):
        SolidBody.make("b", {"shape": "cone"}, x)


def pendulum_data():
    """A rod hanging from a sphere's lowest point (joint 'pivot'), a box hinged to its end
    (joint 'hinge'), as recorded data of one sample."""
    x = np.stack([np.zeros(5), np.zeros(5), -np.linspace(0.0, 0.4, 5)], axis=1)
    results = {"time": np.zeros(1), "rod.positions": x[None, None],
               "ball.positions": np.array([0.0, 0.0, 0.1])[None, None, None],
               "box.positions": np.array([0.0, 0.0, -0.45])[None, None, None],
               "box.directors": np.eye(3)[None, None, None]}
    solids = {"ball": {"shape": "sphere", "radius": 0.1},
              "box": {"shape": "box", "lengths": np.array([0.1, 0.1, 0.1])}}
    end = lambda body, node=-1, point=(0.0, 0.0, 0.0): {"body": body, "node": node,
                                                        "point": np.array(point)}
    joints = {"pivot": {"kind": "spherical", "a": end("rod", 0), "b": end("ball", -1, (0, 0, -0.1))},
              "hinge": {"kind": "hinge", "a": end("rod", 4), "b": end("box", -1, (0, 0, 0.07))}}
    return RenderData(results, {"rod": np.full((1, 4), 0.01)}, {"rod": False}, ("rod",),
                      solids=solids, joints=joints)


def test_joint_markers_sit_at_the_joints():
    bodies = {b.name: b for b in bodies_at(pendulum_data(), 0)}
    assert list(bodies) == ["rod", "ball", "box", "pivot joint", "hinge joint", "hinge gap"]
    assert bodies["ball"].color == PALETTE[1] and bodies["box"].color == PALETTE[2]
    pivot, hinge = bodies["pivot joint"], bodies["hinge joint"]
    np.testing.assert_allclose(pivot.position, [0.0, 0.0, 0.0], atol=1e-15)
    assert pivot.color == JOINT_COLOR
    assert pivot.description["radius"] == pytest.approx(JOINT_SIZE["rod"] * 0.01)
    # the box's point is 0.02 m above the rod's end: a marker between, and a line (the gap is
    # wider than the marker, 0.25 x half the box's 0.1 m)
    np.testing.assert_allclose(hinge.position, [0.0, 0.0, -0.39])
    assert hinge.description["radius"] == pytest.approx(JOINT_SIZE["rigid"] * 0.05)
    gap = bodies["hinge gap"]
    np.testing.assert_allclose(gap.bounds()[0][2], -0.4, atol=1e-12)
    np.testing.assert_allclose(gap.bounds()[1][2], -0.38, atol=1e-12)
    assert gap.description["radius"] == pytest.approx(0.3 * hinge.description["radius"])
    # a joint whose bodies are not shown is not drawn
    assert joint_bodies("pivot", pendulum_data().joints["pivot"], {}) == []


def test_ground_height_sees_rigid_bodies():
    data = pendulum_data()
    assert ground_height(data) is None
    data.results["box.positions"] = np.array([0.0, 0.0, 0.05])[None, None, None]
    data.results["rod.positions"] = data.results["rod.positions"] + [0.0, 0.0, 1.0]
    assert ground_height(data) == 0.0                 # the box rests on z = 0
    del data.results["box.directors"]
    with pytest.raises(ValueError, match="record 'box.directors'"):
        bodies_at(data, 0)


def scene_bodies(long_axis="x"):
    """A green sphere in the middle of the picture, a magenta box elongated along d1 (d1 along
    `long_axis`) beside it, a rod on the other side."""
    Q = np.eye(3) if long_axis == "x" else np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0],
                                                      [-1.0, 0.0, 0.0]])
    rod = RodBody.make("rod", [[-1.6, 0.0, 0.0], [-1.0, 0.0, 0.0]], 0.05)
    ball = SolidBody.make("ball", {"shape": "sphere", "radius": 0.35}, [0.0, 0.0, 0.0],
                          color=GREEN)
    box = SolidBody.make("box", {"shape": "box", "lengths": np.array([0.8, 0.15, 0.15])},
                         [1.3, 0.0, 0.0], Q, color=MAGENTA)
    return [rod, ball, box]


def image(path):
    import imageio.v2 as imageio
    return np.asarray(imageio.imread(path))[..., :3].astype(int)


def coloured(img, rgb):
    """Mask of pixels whose hue is that of `rgb` (green: g high, r and b low; magenta: r and
    b high, g low)."""
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    if rgb == GREEN:
        return (g - r > 40) & (g - b > 40)
    return (r - g > 40) & (b - g > 40)


def extent(mask):
    rows, cols = np.nonzero(mask)
    return rows.max() - rows.min(), cols.max() - cols.min()


VIEW = View(up="z", elevation=0.0, azimuth=-90.0)
"""Looking along +y: x across the picture, z up."""


def test_tubes_show_the_sphere_in_the_middle_and_the_box_turned(tmp_path):
    shapes = {}
    for axis in ("x", "z"):
        path = plot_tubes(str(tmp_path / f"{axis}.png"), scene_bodies(axis), view=VIEW,
                          size_px=(480, 270), axes_labels=False)
        img = image(path)
        h, w = img.shape[:2]
        assert coloured(img[h // 2 - 5:h // 2 + 5, w // 2 - 5:w // 2 + 5], GREEN).all()
        box = coloured(img, MAGENTA)
        assert box[:, w // 2:].sum() > 50 and box[:, :w // 2].sum() == 0     # right of centre
        shapes[axis] = extent(box)
    assert shapes["x"][1] > 3 * shapes["x"][0]          # lying: wide
    assert shapes["z"][0] > 3 * shapes["z"][1]          # d1 turned to z: tall


@needs_povray
def test_povray_shows_the_sphere_in_the_middle_and_the_box_turned(tmp_path):
    shapes = {}
    for axis in ("x", "z"):
        path = povray.render_still(str(tmp_path / f"{axis}.png"), scene_bodies(axis), view=VIEW,
                                   width=192, height=108, quality=4, antialias=0)
        img = image(path)
        h, w = img.shape[:2]
        assert coloured(img[h // 2 - 3:h // 2 + 3, w // 2 - 3:w // 2 + 3], GREEN).all()
        box = coloured(img, MAGENTA)
        assert box[:, w // 2:].sum() > 20 and box[:, :w // 2].sum() == 0
        shapes[axis] = extent(box)
    assert shapes["x"][1] > 3 * shapes["x"][0]
    assert shapes["z"][0] > 3 * shapes["z"][1]


@needs_povray
def test_pov_scene_draws_round_shapes_with_normals():
    from softmech.viz.geometry import frame_camera

    bodies = scene_bodies()
    text = str(povray.pov_scene(bodies, frame_camera(*bodies[1].bounds(), View())))
    assert text.count("mesh2") == 2 and text.count("normal_vectors") == 1     # sphere only


def test_a_tall_scene_is_fitted_into_the_picture(tmp_path, monkeypatch):
    from softmech.viz import tubes

    rod = RodBody.make("rod", [[0.0, 0.0, 0.0], [0.0, 0.0, -1.0]], 0.02)
    ball = SolidBody.make("ball", {"shape": "sphere", "radius": 0.12}, [0.0, 0.0, -1.12],
                          color=GREEN)
    whole = coloured(image(plot_tubes(str(tmp_path / "t.png"), [rod, ball], title="tall",
                                      size_px=(480, 270))), GREEN)
    assert whole.sum() > 100 and not whole[-3:].any()             # the ball, above the edge
    monkeypatch.setattr(tubes, "fit_box", lambda *args, **kwargs: None)
    cut = coloured(image(plot_tubes(str(tmp_path / "c.png"), [rod, ball], title="tall",
                                    size_px=(480, 270))), GREEN)
    assert cut[-3:].any()                                           # without the fit: cut
