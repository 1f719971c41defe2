"""Static props and see-through bodies of the 3D views (BoxBody, RodBody.opacity) and the
gallery's staging helpers (clamp wall, centreline lines, page kept for unrendered scenes)."""
import numpy as np
import pytest

from softmech.viz import gallery, povray
from softmech.viz.geometry import BoxBody, RodBody, View, face_normals, frame_camera
from softmech.viz.source import RenderData
from softmech.viz.tubes import TubeAxes


def test_box_mesh_is_closed_and_outward():
    box = BoxBody.make("wall", [-0.3, -1.0, -0.5], [0.0, 1.0, 0.5])
    v, f = box.mesh()
    assert len(v) == 8 and len(f) == 12
    e = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
    assert np.all(np.unique(e, axis=0, return_counts=True)[1] == 2)     # watertight
    outward = np.sum(face_normals(v, f) * (v[f].mean(axis=1) - v.mean(axis=0)), axis=1)
    assert np.all(outward > 0)
    assert np.allclose(box.bounds()[0], [-0.3, -1.0, -0.5])


@pytest.mark.parametrize("make, match", [
    (lambda: BoxBody.make("w", [0, 0, 0], [1, 0, 1]), "hi.*must be > lo"),
    (lambda: BoxBody.make("w", [0, 0, 0], [1, 1, 1], opacity=0.0), r"w.opacity = 0.0.*\(0, 1\]"),
    (lambda: BoxBody.make("w", [0, 0, 0], [1, 1, 1], color=(2, 0, 0)), "w.color"),
    (lambda: RodBody.make("r", np.eye(3), 0.1, opacity=1.5), r"r.opacity = 1.5"),
    (lambda: gallery.Shot(rod_opacity=-1), "rod_opacity.opacity = -1")])
def test_props_are_validated(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def rod(opacity=1.0):
    x = np.stack([np.linspace(0.0, 1.0, 6), np.zeros(6), np.zeros(6)], axis=1)
    return RodBody.make("rod", x, 0.1, opacity=opacity)


def test_tubes_draw_see_through_bodies_with_their_opacity():
    from softmech.viz.figures import figure

    fig, _ = figure(layout=None)
    ax = fig.add_subplot(projection="3d")
    box = BoxBody.make("wall", [-0.2, -0.5, -0.5], [0.0, 0.5, 0.5])
    tubes = TubeAxes(ax, *box.bounds(), view=View(up="y", elevation=0.0, azimuth=0.0))
    alpha = tubes.draw([box, rod(0.4)])[0].get_facecolor()[:, 3]
    # faces come back sorted by depth: count them
    assert np.sum(alpha == 1.0) == 12 and np.sum(np.isclose(alpha, 0.4)) == len(alpha) - 12


@pytest.mark.skipif(not povray.povray_available(), reason="vapory or povray missing")
def test_pov_scene_has_the_box_and_a_see_through_merge():
    box = BoxBody.make("wall", [-0.2, -0.5, -0.5], [0.0, 0.5, 0.5])
    cam = frame_camera(*box.bounds(), View())
    text = str(povray.pov_scene([box, rod(), rod(0.25)], cam))
    assert text.count("box {") == 1 and text.count("union {") == 1
    assert text.count("merge {") == 1 and text.count("no_shadow") == 1
    assert "rgbt" in text and "<0.75>" not in text and ",0.75>" in text.replace(" ", "")


def cantilever_data(tangent=(1.0, 0.0, 0.0)):
    s = np.linspace(0.0, 3.0, 7)
    straight = s[:, None] * np.asarray(tangent)[None, :]
    bent = straight + np.stack([0 * s, -0.01 * s**2, 0 * s], axis=1)
    return RenderData({"time": np.array([0.0, 1.0]), "beam.positions": np.stack(
        [straight, bent])[None]}, {"beam": np.full((1, 6), 0.25)}, {"beam": False}, ("beam",))


def test_clamp_wall_sits_behind_the_clamped_end_and_lines_follow_the_rods():
    wall = gallery.clamp_wall(cantilever_data(), "beam", thickness=1.2, height=3.0, depth=2.0)
    assert np.allclose(wall.lo, [-0.3, -0.75, -0.5]) and np.allclose(wall.hi, [0.0, 0.75, 0.5])
    with pytest.raises(ValueError, match="does not point along a coordinate axis"):
        gallery.clamp_wall(cantilever_data((0.6, 0.8, 0.0)), "beam")
    with pytest.raises(ValueError, match="rod = 'arm'"):
        gallery.clamp_wall(cantilever_data(), "arm")
    from softmech.viz.source import bodies_at
    shot = gallery.Shot(rod_opacity=0.5, centrelines=True)
    beam, line = gallery.dress(bodies_at(cantilever_data(), 1), shot)
    assert beam.opacity == 0.5 and line.opacity == 1.0
    assert np.array_equal(line.positions, beam.positions)
    assert np.allclose(line.radius, gallery.LINE_RADIUS * 0.25)


def test_page_keeps_the_sections_of_scenes_not_rendered(tmp_path, monkeypatch):
    page = tmp_path / "gallery.md"
    page.write_text("# Gallery\n\nintro\n\n## snake\n\nOld snake text.\n\n*old caption*")

    def fake_render(name, output_dir, **kwargs):
        return (str(tmp_path / f"{name}.png"), str(tmp_path / f"{name}.mp4"),
                ("povray", "tubes"), 20.0, 4.0, "A note.")
    monkeypatch.setattr(gallery, "render_scene", fake_render)
    gallery.build_gallery(str(tmp_path / "gallery"), str(page), scenes=["cantilever"])
    text = page.read_text()
    assert text.index("## cantilever") < text.index("## snake")
    assert "Old snake text.\n\n*old caption*\n" in text and "A note.*" in text
    assert "picture rendered with POV-Ray, video with matplotlib tubes" in text
    assert text.count("# Gallery") == 1
