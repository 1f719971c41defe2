"""The muscular snake (softmech.scenarios.muscular_snake) and its layout problem
(softmech.optimize.muscular_snake): every CMA-ES sample is a valid eq. 2 layout, the snake
slithers forward only when its muscles pull, and the campaign runs end to end."""
import argparse
import json
import os

import numpy as np

from softmech.optimize.muscular_snake import MuscularSnakeProblem
from softmech.scenarios.muscular_snake import feasible_groups, initial_layout
from softmech.terms.muscles import validate_pairs


def test_every_sample_of_the_search_box_is_a_valid_layout():
    """feasible_groups maps the box [5, 95] x [0, 90] x [0, 3500] x [0, 1] (and beyond it) into
    the ranges of Zhang et al. 2019 that MusclePairs checks (raises otherwise)."""
    rng = np.random.default_rng(2)
    raw = rng.uniform([-10, -10, -100, -0.5], [110, 100, 4000, 1.5], size=(500, 4))
    validate_pairs("sample", feasible_groups(raw))
    inside = np.array([[10.0, 30.0, 1000.0, 0.3]])
    np.testing.assert_array_equal(feasible_groups(inside), inside)       # no change inside


def test_snake_moves_forward_only_when_its_muscles_pull():
    """Four pairs in the initial layout (non-overlapping spans, a head-to-tail wave) slither
    forward (> 1 cm/s over periods 2-3); with zero forces the snake stays (< 1 mm/s)."""
    problem = MuscularSnakeProblem(4, 2)
    layout = np.ravel(initial_layout(4))
    still = layout.copy()
    still[2::4] = 0.0
    moving, resting = problem.speeds(np.stack([layout, still]))
    assert moving > 0.01
    assert abs(resting) < 1e-3


def test_optimize_muscular_snake_runs_a_campaign(tmp_path, capsys):
    from softmech.commands import optimize

    parser = argparse.ArgumentParser()
    optimize.add_arguments(parser)
    args = parser.parse_args(["muscular_snake", "--pairs", "2", "--output", str(tmp_path),
                              "--json", "--quiet", "--generations", "1", "--popsize", "4",
                              "--window", "0.1", "0.2"])
    assert optimize.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["pairs"] == 2 and summary["evaluations"] == 4
    assert np.array(summary["best_layout"]).shape == (2, 4)
    assert np.isfinite(summary["speed_best"])
    assert os.path.exists(tmp_path / "best.json")


def test_a_snake_that_leaves_the_ground_is_infeasible(monkeypatch):
    """The lift-off rule: a centre of mass above LIFT_OFF x r makes the layout's fitness NaN
    (ranked last by the campaign). With the rule lowered to half a radius the snake, whose
    centre rests at one radius, is always 'above' it; at the default it never is."""
    import softmech.optimize.muscular_snake as ms

    problem = MuscularSnakeProblem(1, 1, window=(0.1, 0.2))
    layout = np.ravel(initial_layout(1))
    assert np.isfinite(problem.speeds(layout[None]))[0]
    monkeypatch.setattr(ms, "LIFT_OFF", 0.5)
    assert np.isnan(problem.speeds(layout[None]))[0]
