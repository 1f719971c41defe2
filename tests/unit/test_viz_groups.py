"""Pictures of scenes with many bodies (issue 31, items 6 and 7): one grouping rule for legends,
colours and the viewer; readable 3D ticks; the still's and the video's timing."""
import warnings

import numpy as np
import pytest

from softmech.viz.groups import OTHER, body_groups, group_colors, group_label, group_of, stem
from softmech.viz.source import from_results

ELBOW = (["humerus", "radius", "ulna"] + [f"long_fiber_{k}" for k in range(18)]
         + [f"short_fiber_{k}" for k in range(18)]
         + [f"{h}_tendon_{e}" for h in ("long", "short") for e in ("proximal", "distal")]
         + [f"{h}_plate_{e}" for h in ("long", "short") for e in ("top", "bottom")])


def test_names_group_by_role_then_by_stem():
    assert stem("long_fiber_12") == "long_fiber" and stem("rope3") == "rope"
    assert stem("canopy[4]") == "canopy" and stem("root") == "root" and stem("12") == "12"
    assert [group_of(n) for n in ("long_fiber_3", "f3_rachis", "f3_o12", "f0_i1", "humerus",
                                  "pectoralis", "long_tendon_distal", "long_plate_top")] == [
        "muscle fibres", "feather shafts", "barbs", "barbs", "bones", "muscles", "tendons",
        "tendon plates"]
    assert [group_of(n) for n in ("arm1", "skeleton_0", "root", "mantle", "radiusx")] == [
        "arms", "skeleton*", "root", "mantle", "radiusx"]          # whole words only
    groups = body_groups(ELBOW)
    assert list(groups) == ["bones", "muscle fibres", "tendons", "tendon plates"]
    assert [group_label(g, m) for g, m in groups.items()] == [
        "bones (3)", "muscle fibres (36)", "tendons (4)", "tendon plates (4)"]
    assert group_label("root", ["root"]) == "root"


def test_too_many_groups_keep_the_largest_and_join_the_rest():
    names = [f"big_{k}" for k in range(5)] + [f"solo{k}x" for k in range(12)]
    groups = body_groups(names, most=4)
    assert len(groups) == 4 and groups["big*"] == names[:5]
    assert list(groups)[-1] == OTHER and len(groups[OTHER]) == 10
    assert sum(len(v) for v in groups.values()) == len(names)
    with pytest.raises(ValueError, match="most = 0"):
        body_groups(names, most=0)


def test_a_group_shares_one_colour_and_groups_differ():
    colors = group_colors(ELBOW)
    assert len({colors[f"long_fiber_{k}"] for k in range(18)} | {colors["short_fiber_0"]}) == 1
    assert len({colors["humerus"], colors["long_fiber_0"], colors["long_tendon_distal"]}) == 3


def many_bodies(n_samples=21):
    """Render data of the elbow's bodies as straight rods moving apart (com and positions)."""
    t = np.linspace(0.0, 0.2, n_samples)
    results, radius = {"time": t}, {}
    for k, name in enumerate(ELBOW):
        x = np.zeros((n_samples, 4, 3))
        x[..., 0] = np.linspace(0.0, 0.3, 4)[None] + 0.01 * k * t[:, None]
        x[..., 1] = 0.004 * k
        results[f"{name}.positions"] = x[None]
        results[f"{name}.com"] = x.mean(axis=1)[None]
        radius[name] = np.full((1, 3), 0.002)
    for f in ("translational", "rotational", "bending", "twisting", "shear", "stretch",
              "total"):
        results[f"radius.{f}_energy"] = np.ones((1, n_samples))
    return from_results(results, radius, attrs={"scene": "many"})


def test_com_legend_lists_groups_beside_the_data_without_warnings(tmp_path, monkeypatch):
    from softmech.viz import figures, plots

    saved = []
    monkeypatch.setattr(plots, "save", lambda fig, path: saved.append(fig) or path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # e.g. the constrained-layout warning
        plots.plot_com(many_bodies().results, str(tmp_path / "com.png"))
        figures.save(saved[0], str(tmp_path / "com.png"))
    fig = saved[0]
    entries = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert entries == ["bones (3)", "muscle fibres (36)", "tendons (4)", "tendon plates (4)"]
    assert not any(ax.get_legend() for ax in fig.axes)            # not over the data
    fibres = {line.get_color() for line in fig.axes[0].get_lines()[3:39]}
    assert len(fibres) == 1


def test_energy_title_names_the_body_and_its_role(tmp_path, monkeypatch):
    from softmech.viz import plots

    saved = []
    monkeypatch.setattr(plots, "save", lambda fig, path: saved.append(fig) or path)
    plots.plot_energies(many_bodies().results, str(tmp_path / "energy.png"))
    title = saved[0].axes[0].get_title()
    assert title.startswith("Energies of radius (bones; 1 of 47 bodies), world 0")


def test_viewer_lists_groups_and_names_bodies_on_hover():
    from softmech.viz.viewer import view_figure

    fig, _ = view_figure(many_bodies(), fps=25)
    meshes = [t for t in fig.data if t.type == "mesh3d"]
    assert {t.hovertext for t in meshes} == set(ELBOW)
    assert [t.name for t in meshes if t.showlegend] == [
        "bones (3)", "muscle fibres (36)", "tendons (4)", "tendon plates (4)"]
    fibres = [t for t in meshes if t.legendgroup == "muscle fibres (36)"]
    assert len(fibres) == 36 and len({t.color for t in fibres}) == 1
    lines = [t.name for t in fig.data if t.type == "scatter" and t.showlegend]
    assert lines[:3] == ["bones (3).com x", "bones (3).com y", "bones (3).com z"]
    assert len(lines) == 12


def overlaps(boxes):
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


@pytest.mark.parametrize("size", [(960, 540), (640, 368)])
def test_3d_tick_labels_do_not_overlap_and_labels_stay_inside(size):
    """A long thin body along x (the Monopus, the plectoneme): before, the short axes'
    tick labels overlapped and the axis labels were cut or sat on the ticks."""
    from softmech.viz.geometry import RodBody, View, bounds_of
    from softmech.viz.tubes import _tube_figure

    x = np.stack([np.linspace(-0.35, 0.1, 20), np.zeros(20), np.zeros(20)], -1)
    body = RodBody.make("arm", x, 0.03)
    fig, tubes, _ = _tube_figure(*bounds_of([[body]]), size, 100, View(), None, 12, "t", True)
    tubes.draw([body])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    inside = fig.bbox.padded(1)
    texts, all_ticks, labels = [], [], []
    for axis in (tubes.ax.xaxis, tubes.ax.yaxis, tubes.ax.zaxis):
        lo, hi = axis.get_view_interval()          # ticks beyond the limits are not drawn
        ticks = [t.label1.get_window_extent(renderer) for t in axis.get_major_ticks()
                 if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi]
        assert len(ticks) <= 7 and not overlaps(ticks)
        all_ticks += ticks
        labels.append(axis.label.get_window_extent(renderer))
    texts = all_ticks + labels
    assert len(all_ticks) >= 4
    assert all(inside.contains(b.x0, b.y0) and inside.contains(b.x1, b.y1) for b in texts)
    assert not any(label.overlaps(t) for label in labels for t in all_ticks)


def test_short_runs_play_in_slow_motion_long_ones_faster():
    from softmech.commands.report_base import AssemblyReport, video_speed
    from softmech.viz.source import frame_samples

    t = np.linspace(0.0, 0.4, 201)                    # the elbow: 0.4 s
    speed = video_speed(t, *AssemblyReport.video_seconds)
    assert speed == pytest.approx(0.1) and len(frame_samples(t, 25.0, speed)) >= 100
    assert video_speed(np.linspace(0, 6, 50), 4.0, 10.0) == 1.0
    assert video_speed(np.linspace(0, 40, 50), 4.0, 10.0) == 4.0


def test_falling_rod_still_is_taken_at_the_impact():
    from softmech.commands.discrete_reports import FallingRodReport

    t = np.linspace(0.0, 0.6, 301)
    bend = np.exp(-((t - 0.13) / 0.02) ** 2) + 0.2 * (t > 0.3)     # impact, then settled
    assert FallingRodReport.still_time({"time": t, "soft_bend": bend}, None) == pytest.approx(
        0.13, abs=2e-3)


def test_cone_and_bar_roots_have_their_display_meshes():
    from softmech.scenarios.poseidron import TABLE2_ROOT, root_mesh
    from softmech.scenarios.quadropus import QUADROPUS, build_monopus, cone_inertia, cone_mesh
    from softmech.viz.geometry import face_normals

    q = QUADROPUS
    vertices, faces = cone_mesh(q["cone_length"], q["cone_radius"])
    centre = cone_inertia(q["mass"], q["cone_length"], q["cone_radius"])[0]
    assert np.allclose(vertices.max(axis=0)[0] + centre[0], q["cone_length"])  # the apex
    assert np.allclose(np.ptp(vertices[:, 1]), 2 * q["cone_radius"], rtol=1e-2)
    outward = np.sum(face_normals(vertices, faces) * (vertices[faces].mean(1) + [0.01, 0, 0]),
                     axis=1)
    assert np.all(outward > 0)
    scene, _ = build_monopus(duration=0.01)
    assert scene.rigid_bodies[0].mesh is not None
    bars, _ = root_mesh()
    assert len(bars) == 32 and np.ptp(bars[:, 2]) < 4 * TABLE2_ROOT["bar_width"]
