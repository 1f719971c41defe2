"""The figures of the reference papers' fast reproductions (`softmech validate --papers --figures
DIR`; docs/reproductions.md shows them): which cases each illustrates and where its data come
from. Each figure reuses the runs of its validation cases (softmech.validation.papers caches
them), so drawing it after `--papers` costs no simulation; the drawing is
softmech.viz.reproductions.

The references drawn: the ME498 handout's mean speeds (Table 2 snake), Zhang et al. 2019's
continuous-snake speed and the spans of its own four muscle pairs (its linked code), the
starling's joint ranges beside the wing's angles (Fig. 4e's pigeon curves are in no source we
have), and the tip deflections of MAT-DiSMech's Fig. 8 (the figure's script).
"""
import os

from softmech.validation import papers
from softmech.viz import reproductions as draw


def _draw_snake(path):
    from softmech.scenarios.snake import REFERENCE_LATERAL_SPEED, REFERENCE_SPEED
    return draw.snake_figure(path, *papers.snake_run(), REFERENCE_SPEED,
                             REFERENCE_LATERAL_SPEED, *papers.SNAKE_TOLERANCES)


def _draw_muscle_pairs(path):
    from softmech.scenarios.muscular_snake import paper_code_layout
    speeds, layouts = papers.muscle_pair_speeds()
    return draw.muscle_pairs_figure(path, speeds, layouts[0], paper_code_layout(),
                                    papers.CONTINUOUS_SNAKE_SPEED, papers.FOUR_PAIRS_TOLERANCE)


def _draw_fig8(path):
    from softmech.validation import dismech_cantilever as dismech
    return draw.fig8_figure(path, dismech.MODULI, papers.fig8_rod_tips(),
                            papers.FIG8_HINGE_MODULI, papers.fig8_hinge_tips(),
                            dismech.PUBLISHED, dismech.euler_bernoulli)


def _draw_wing(path):
    from softmech.scenarios.wing import BIRD_RANGES
    from softmech.viz.musculoskeletal import plot_wing_angles
    time, angles, info = papers.wing_run()
    return plot_wing_angles(path, time, *angles.T, info.initiation, info.frequency,
                            bird=BIRD_RANGES, bird_label="starling (Dial et al. 1991)")


FIGURES = {
    "me498_snake.png": (("me498_snake_forward_speed", "me498_snake_lateral_speed"),
                        _draw_snake),
    "zhang2019_muscle_pairs.png": (("zhang2019_four_muscle_pairs",), _draw_muscle_pairs),
    "zhang2019_wing.png": (("zhang2019_wing_joint_angles",), _draw_wing),
    "dismech_fig8.png": (("dismech_fig8_rod", "dismech_fig8_hinge"), _draw_fig8),
}
"""File name -> (the cases it illustrates, function(path) that draws it from their runs)."""


def write_figures(folder, cases):
    """Draw into `folder` every figure one of whose cases is in `cases` (names of the papers'
    cases that ran); returns the paths written."""
    ran = set(cases)
    return [drawn(os.path.join(folder, name)) for name, (illustrated, drawn) in FIGURES.items()
            if ran.intersection(illustrated)]
