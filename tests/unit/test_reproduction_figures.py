"""The papers' figures (softmech.viz.reproductions, softmech.validation.paper_figures;
docs/reproductions.md): each draws softmech's numbers and the paper's on the same axes. The
figures are checked through their artists (what a reader sees: the paper's reference lines at
the paper's numbers, softmech's points at softmech's), on synthetic data with known values, and
`softmech validate --figures` is checked for its option's validation and for which figures it
draws."""
import argparse

import numpy as np
import pytest

from softmech.validation import command, paper_figures
from softmech.viz import reproductions


@pytest.fixture
def drawn(monkeypatch):
    """Replaces the figures' save: collects the figures instead of writing them."""
    figures = []
    monkeypatch.setattr(reproductions, "save",
                        lambda fig, path, dpi: figures.append(fig) or path)
    return figures


def lines_at(ax, y):
    """The horizontal lines of `ax` drawn at height y (axhline: ydata (y, y))."""
    return [line for line in ax.get_lines()
            if len(line.get_ydata()) == 2 and np.allclose(line.get_ydata(), y)
            and np.allclose(line.get_xdata(), (0, 1))]


def test_snake_figure_draws_the_handouts_means_and_the_per_period_speeds(drawn):
    # a snake gliding at 0.5 m/s along +x, sideways at 0.02 m/s, 7 periods of 1 s
    time = np.linspace(0.0, 7.0, 701)
    com = np.zeros((1, time.size, 3))
    com[0, :, 0] = 0.5 * time
    com[0, :, 1] = 0.02 * time
    reproductions.snake_figure("x.png", time, com, 1.0, 0.585, -0.004, 0.10, 0.01)
    track, speeds = drawn[0].axes
    assert len(lines_at(speeds, 0.585)) == 1 and len(lines_at(speeds, -0.004)) == 1
    forward = next(line for line in speeds.get_lines() if line.get_marker() == "o")
    # along its direction of travel the glide's speed is |v| in every whole period 1..6
    assert np.allclose(forward.get_ydata(), np.hypot(0.5, 0.02), rtol=1e-9)
    assert np.allclose(forward.get_xdata(), np.arange(1, 7) + 0.5)


def test_muscle_pairs_figure_draws_every_speed_and_both_layouts(drawn):
    speeds = {"continuous": 0.6, "overlapping": 0.55, "non_overlapping": 0.4,
              "paper_code": 0.5, "paper_code_rods": 0.45}
    layout = np.array([[0, 30, 1, 0], [20, 30, 1, 0.2], [40, 30, 1, 0.4], [60, 30, 1, 0.6]])
    paper = layout + np.array([5, 2, 0, 0])
    reproductions.muscle_pairs_figure("x.png", speeds, layout, paper, 0.58, 0.10)
    bars, spans = drawn[0].axes
    heights = [patch.get_height() for patch in bars.containers[0]]
    assert heights == [0.6, 0.55, 0.4, 0.5, 0.45]
    assert len(lines_at(bars, 0.58)) == 1
    ends = sorted(tuple(line.get_xdata()) for line in spans.get_lines())
    expected = sorted((s, s + n) for rows in (layout, paper) for s, n in rows[:, :2])
    assert ends == expected


def test_fig8_figure_draws_the_excess_over_euler_bernoulli(drawn):
    moduli = np.array([1e9, 1e8])
    def beam(E):
        return 1e6 / np.asarray(E)                        # any deflection law [m]
    published = {"rod": -1.045 * beam(moduli), "hinge": -1.16 * beam(moduli),
                 "midedge": -0.99 * beam(moduli)}
    reproductions.fig8_figure("x.png", moduli, -1.05 * beam(moduli), moduli[:1],
                              -1.17 * beam(moduli[:1]), published, beam)
    ax = drawn[0].axes[0]
    curves = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
    assert np.allclose(curves["published (DisMech), rod"], 4.5)
    assert np.allclose(curves["published (DisMech), hinge"], 16.0)
    assert np.allclose(curves["softmech, rod"], 5.0)
    assert np.allclose(curves["softmech, hinge shell"], 17.0)


def test_write_figures_draws_only_the_figures_of_the_cases_that_ran(monkeypatch, tmp_path):
    called = []
    monkeypatch.setattr(paper_figures, "FIGURES", {
        "a.png": (("case_a", "case_b"), lambda path: called.append(path) or path),
        "c.png": (("case_c",), lambda path: called.append(path) or path)})
    written = paper_figures.write_figures(str(tmp_path), ["case_b", "me498"])
    assert written == called == [str(tmp_path / "a.png")]


def parse(argv):
    parser = argparse.ArgumentParser(prog="softmech validate")
    command.add_arguments(parser)
    return parser.parse_args(argv)


def test_figures_option_is_validated_before_any_case_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(command, "select", lambda *a, **k: pytest.fail("a case ran"))
    a_file = tmp_path / "f.png"
    a_file.write_bytes(b"")
    with pytest.raises(ValueError, match="--figures = .* not allowed: must be a folder"):
        command.execute(parse(["--papers", "--figures", str(a_file)]))
    with pytest.raises(ValueError, match="--figures = .* parent folder .* does not exist"):
        command.execute(parse(["--papers", "--figures", str(tmp_path / "no" / "figs")]))


def test_first_crossing_interpolates_where_the_elbow_reaches_90_degrees():
    from softmech.scenarios.elbow import first_crossing, growth_at
    angle = np.array([0.0, 60.0, 120.0, 80.0])
    time = np.array([0.0, 0.1, 0.2, 0.3])
    assert first_crossing(angle, time) == pytest.approx(0.15)        # halfway 60 -> 120
    assert growth_at(angle, np.array([2.0, 2.0, 3.0, 2.0])) == pytest.approx(0.25)
    assert np.isnan(first_crossing(angle, time, target=130.0))       # never reached
    assert np.isnan(first_crossing(angle, time, target=0.0))         # reached at the start


def test_flexion_plot_marks_softmechs_growth_where_the_elbow_reaches_90_degrees(monkeypatch):
    from softmech.viz import musculoskeletal
    figures = []
    monkeypatch.setattr(musculoskeletal, "save", lambda fig, path, dpi: figures.append(fig))
    time = np.linspace(0.0, 0.4, 41)
    angle = 300.0 * time                                             # 90 deg at t = 0.3 s
    section = 1.0 + time                                             # growth 30 % there
    musculoskeletal.plot_flexion("x.png", time, angle, section)
    growth_axes = figures[0].axes[1]
    mark = next(line for line in growth_axes.get_lines() if line.get_marker() == "o")
    assert mark.get_xdata()[0] == pytest.approx(0.3) and mark.get_ydata()[0] == pytest.approx(30)
    assert len(lines_at(growth_axes, 28.0)) == 1                     # the paper's ~28 %


def test_walker_speedups_figure_draws_both_designs_and_the_papers_speedup(drawn):
    reproductions.walker_speedups_figure("x.png", (0.5, 1.0, 2.0), (3e-4, 2e-4, 1e-4),
                                         (1e-4, 1e-4, 1e-4), 2.5, 2.0)
    speeds, ratios = drawn[0].axes
    original, best = speeds.containers
    assert np.allclose([p.get_height() for p in original], 100.0)           # um/s
    assert np.allclose([p.get_height() for p in best], (300.0, 200.0, 100.0))
    assert np.allclose([p.get_height() for p in ratios.containers[0]], (3.0, 2.0, 1.0))
    # green where the speed-up meets the least one asked for, red where it does not
    colors = [p.get_facecolor()[:3] for p in ratios.containers[0]]
    assert colors[0] == colors[1] != colors[2]
    assert len(lines_at(ratios, 2.5)) == 1 and len(lines_at(ratios, 2.0)) == 1


def test_a_design_campaigns_fitness_figure_draws_the_papers_target(monkeypatch):
    # the swimmer's and walker's campaigns draw the paper's speed-up times the original's speed
    from softmech.optimize import figures as campaign_figures
    from softmech.viz import figures
    drawn = []
    monkeypatch.setattr(figures, "save", lambda fig, path, dpi: drawn.append(fig) or path)
    campaign_figures.plot_fitness([1, 2], [1.0, 2.0], [1.0, 2.0], [0.5, 1.0], "x.png",
                                  reference=2.44 * 1.2, reference_label="the paper's 2.44x")
    ax = drawn[0].axes[0]
    target = lines_at(ax, 2.44 * 1.2)
    assert len(target) == 1 and target[0].get_label() == "the paper's 2.44x 2.93 m/s"
