"""The bio-hybrid swimmer: the scene's geometry from the Fig. 2 caption, `softmech run swimmer`
writes its plots and video, the design problem maps its search variables onto per-world
parameters and `softmech optimize swimmer` runs a (tiny) campaign end to end."""
import argparse
import json
import os

import numpy as np
import pytest

import softmech as sm
from softmech.commands import optimize, run
from softmech.optimize.swimmer import (SwimmerDesignProblem, discrete_design_speed,
                                       optimize_swimmer, original_design, paper_optimum)
from softmech.scenarios.swimmer import FIG2, beat_distances, build_swimmer, radius_profile


@pytest.mark.parametrize("model", ["discrete", "cosserat"])
def test_geometry_and_mass_match_the_caption(model):
    """Fig. 2: head 424 um x 20 um, tail 1503 um x 7 um, rho = 965 kg/m^3 -> m = 7.364e-10 kg
    (the caption's 7.364e-7 g; tolerance: the head/tail boundary falls on an element edge within
    one element, 1 % here with 100 elements)."""
    scene, info = build_swimmer(n_elems=100, cycles=1, model=model)
    rod = (scene.rods + scene.implicit_bodies)[0]
    assert np.sum(rod.rest_lengths) == pytest.approx(FIG2["length"], rel=1e-12)
    assert set(np.round(rod.radius * 1e6, 9)) == {20.0, 7.0}
    mass = np.sum(965.0 * np.pi * rod.radius**2 * rod.rest_lengths)
    assert mass == pytest.approx(7.364e-10, rel=1e-2)
    assert info.period == pytest.approx(1 / 3.6)


def test_radius_profile_and_design_mapping():
    r = radius_profile(10, np.array([0.0, 0.5e-3]), np.array([30e-6, 30e-6]),
                       np.array([5e-6, 5e-6]))
    assert r.shape == (2, 10) and np.all(r[0] == 5e-6)
    assert np.all(r[1, :2] == 30e-6) and np.all(r[1, 3:] == 5e-6)   # midpoints 96, 289, 482 um
    problem = SwimmerDesignProblem(4, model="cosserat", n_elems=20, window=(0.1, 0.2))
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


def test_cosserat_campaign_runs(tmp_path):
    summary = optimize_swimmer(str(tmp_path), model="cosserat", popsize=4, max_generations=1,
                               min_generations=1, n_elems=20, window=(0.1, 0.2))
    assert summary["generations"] == 1 and np.isfinite(summary["speed_original"])


def test_discrete_speed_extrapolation_converges():
    """Implicit Euler is first order: the speed of the original swimmer (50 edges, beat 1-2)
    extrapolated from 200 and 400 steps per beat agrees with that from 400 and 800 within 1 %
    (docs/swimmer.md: 0.1 % at 100 edges), while the raw 400-step speed is further off."""
    coarse = discrete_design_speed(original_design(), (1.0, 2.0), 50, 400)
    fine = discrete_design_speed(original_design(), (1.0, 2.0), 50, 800)
    assert coarse > 0 and fine == pytest.approx(coarse, rel=1e-2)


def test_caption_bending_stiffness():
    # Fig. 2 caption: E I = 2.427e-9 N mm^2 = 2.427e-15 N m^2 for the 7 um tail of E = 3.86 MPa,
    # i.e. E pi r^4 / 12 (a third of the circular section's): bending="caption" gives it
    # (rounding of the caption's 4 digits: 1e-3)
    scene, _ = build_swimmer(bending="caption")
    rod = scene.implicit_bodies[0]
    edge_tail = np.isclose(rod.radius, 7e-6)
    tail = edge_tail[:-1] & edge_tail[1:]            # interior nodes between two tail edges
    assert tail.sum() > 50
    np.testing.assert_allclose(rod.EI[tail], 2.427e-15, rtol=1e-3)
    circular, _ = build_swimmer()
    np.testing.assert_allclose(circular.implicit_bodies[0].EI[tail], 3 * 2.427e-15, rtol=1e-3)
    with pytest.raises(ValueError, match="bending"):
        build_swimmer(bending="square")


def test_paper_model_original_swims_at_the_measured_speed():
    # PAPER_MODEL: the soft contractile cell (E_c = CELL_MODULUS_EXPERIMENT) on the caption's E I.
    # E_c is calibrated (benchmarks/swimmer_soft_cell.py) so that the original swimmer swims at
    # 7.5 um/s, the middle of the 5-10 um/s Williams et al. 2014 measured: this checks that the
    # constant still does that (within 5 %, the 400-step runs of the benchmark against 200 here),
    # not an independent prediction. The distance per beat repeats from the second beat on.
    from softmech.scenarios.swimmer import PAPER_MODEL

    scene, info = build_swimmer(cycles=3, steps_per_beat=200, **PAPER_MODEL)
    sim = scene.compile(dt=info.dt)
    out = sim.run(info.duration, record=sm.Every(info.period / 20, ("flagellum.com",)))
    steps = beat_distances(out["time"], out["flagellum.com"][0], info.period)
    speed = steps[1:] / info.period
    np.testing.assert_allclose(speed, 7.5e-6, rtol=5e-2)
    assert abs(steps[2] / steps[1] - 1) < 1e-2
