"""The bio-hybrid swimmer: the scene's geometry from the Fig. 2 caption, `softmech run swimmer`
writes its plots and video, the design problem maps its search variables onto per-world
parameters and `softmech optimize swimmer` runs a (tiny) campaign end to end."""
import argparse
import json
import os

import numpy as np
import pytest

from softmech.commands import optimize, run
from softmech.optimize.swimmer import SwimmerDesignProblem, original_design, paper_optimum
from softmech.scenarios.swimmer import FIG2, build_swimmer, radius_profile


def test_geometry_and_mass_match_the_caption():
    """Fig. 2: head 424 um x 20 um, tail 1503 um x 7 um, rho = 965 kg/m^3 -> m = 7.364e-10 kg
    (the caption's 7.364e-7 g; tolerance: the head/tail boundary falls on an element edge within
    one element, 1 % here with 100 elements)."""
    scene, info = build_swimmer(n_elems=100, cycles=1)
    rod = scene.rods[0]
    assert rod.length == pytest.approx(FIG2["length"], rel=1e-12)
    assert set(np.round(rod.radius * 1e6, 9)) == {20.0, 7.0}
    mass = np.sum(965.0 * np.pi * rod.radius**2 * rod.rest_lengths)
    assert mass == pytest.approx(7.364e-10, rel=1e-2)
    assert info.period == pytest.approx(1 / 3.6)


def test_radius_profile_and_design_mapping():
    r = radius_profile(10, np.array([0.0, 0.5e-3]), np.array([30e-6, 30e-6]),
                       np.array([5e-6, 5e-6]))
    assert r.shape == (2, 10) and np.all(r[0] == 5e-6)
    assert np.all(r[1, :2] == 30e-6) and np.all(r[1, 3:] == 5e-6)   # midpoints 96, 289, 482 um
    problem = SwimmerDesignProblem(4, n_elems=20, window=(0.1, 0.2))
    radius, start = problem.world_parameters(np.stack([original_design(), paper_optimum()]))
    assert start[0] == pytest.approx(FIG2["head_length"])             # cell at the junction
    assert start[1] == pytest.approx(190e-6)                          # the caption's optimum
    assert radius.shape == (2, 20)


def test_run_swimmer_writes_plots_and_video(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    run.add_arguments(parser)
    args = parser.parse_args(["swimmer", "--output", str(tmp_path), "--json", "--quiet",
                              "--duration", "0.03", "--n-elems", "20"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert np.isfinite(summary["mean_speed"]) and np.isfinite(summary["displacement"])
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "displacement.png", "midlines.png", "energy.png"} <= names
    assert names & {"swimmer.mp4", "swimmer.gif"}


def test_optimize_swimmer_runs_a_campaign(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    optimize.add_arguments(parser)
    args = parser.parse_args(["swimmer", "--output", str(tmp_path), "--json", "--quiet",
                              "--generations", "1", "--popsize", "4", "--n-elems", "20",
                              "--window", "0.1", "0.2"])
    assert optimize.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["generations"] == 1 and summary["evaluations"] == 4
    assert np.isfinite(summary["speed_original"]) and summary["speed_original"] > 0
    assert os.path.exists(tmp_path / "best.json") and os.path.exists(tmp_path / "campaign.jsonl")
