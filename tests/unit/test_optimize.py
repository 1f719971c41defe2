"""CMA-ES campaigns (softmech.optimize.campaign) and `softmech optimize snake`.

Campaign mechanics are tested on a cheap analytic objective (a shifted sphere, maximized), the
snake problem on a tiny snake (10 elements, half-second evaluations, dt from the stability
estimate) so the file runs in seconds. What is checked: the append-only log and exact resume
(a campaign stopped after generation 2 and resumed equals an uninterrupted one, entry for
entry), a truncated last line is dropped and repaired, a damaged or foreign log is refused,
every evaluated point respects the bounds, one batched evaluation equals single-world ones,
and the command's JSON keys and files.
"""
import argparse
import json
import os

import numpy as np
import pytest

from softmech.commands import optimize as optimize_cmd
from softmech.optimize import Campaign, SnakeGaitProblem, read_log
from softmech.optimize.snake import NAMES, coefficients_of

LOWER, UPPER = np.array([-2.0, 0.0, 10.0]), np.array([2.0, 1.0, 30.0])
TARGET = np.array([0.5, 0.8, 27.0])


class Sphere:
    """Fitness -(|p - TARGET|^2 in box-scaled units), maximum 0 at TARGET; counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, params, progress=None):
        self.calls += 1
        assert params.shape[1] == 3
        return -np.sum(((params - TARGET) / (UPPER - LOWER)) ** 2, axis=1)


def sphere_campaign(path, objective=None, **kwargs):
    options = dict(names=("a", "b", "c"), lower=LOWER, upper=UPPER, log_path=path, popsize=6,
                   seed=3, max_generations=5, min_generations=3, patience=2, tolerance=0.0)
    options.update(kwargs)
    return Campaign(objective or Sphere(), **options)


def log_records(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def test_log_has_a_header_and_one_line_per_generation(tmp_path):
    path = tmp_path / "c.jsonl"
    result = sphere_campaign(path).run()
    header, records = read_log(path)
    assert header["kind"] == "header" and header["seed"] == 3 and header["popsize"] == 6
    assert [r["generation"] for r in records] == list(range(1, result.generations + 1))
    assert result.evaluations == 6 * result.generations
    fitness = np.array([r["fitness"] for r in records])
    assert fitness.shape == (result.generations, 6)
    # the reported best is the best logged evaluation, and lies where the log says
    k = np.unravel_index(np.argmax(fitness), fitness.shape)
    assert result.best_fitness == fitness[k]
    assert list(result.best_params.values()) == records[k[0]]["params"][k[1]]
    assert records[-1]["best_fitness"] == result.best_fitness
    # params are the unit-box samples mapped onto [lower, upper]
    x, p = np.array(records[0]["x"]), np.array(records[0]["params"])
    np.testing.assert_allclose(p, LOWER + x * (UPPER - LOWER), rtol=1e-15, atol=1e-14)


def test_stopped_and_resumed_campaign_equals_an_uninterrupted_one(tmp_path):
    full = sphere_campaign(tmp_path / "full.jsonl", max_generations=3).run()
    # "kill" after generation 2, then resume to 3 generations with a fresh objective
    first = sphere_campaign(tmp_path / "part.jsonl", max_generations=2).run()
    assert first.generations == 2
    objective = Sphere()
    resumed = sphere_campaign(tmp_path / "part.jsonl", objective, max_generations=3,
                              resume=True).run()
    assert resumed.resumed_generations == 2 and resumed.generations == 3
    assert objective.calls == 1                     # logged generations are not re-evaluated
    assert resumed.best_params == full.best_params  # bit-identical: same seed, same samples
    assert resumed.best_fitness == full.best_fitness
    a, b = log_records(tmp_path / "full.jsonl"), log_records(tmp_path / "part.jsonl")
    assert len(a) == len(b) == 4
    for ra, rb in zip(a[1:], b[1:]):
        assert ra["x"] == rb["x"] and ra["fitness"] == rb["fitness"]


def test_global_numpy_random_use_does_not_change_the_campaign(tmp_path):
    """cma samples from numpy's global generator; the campaign isolates it."""
    def noisy(params, progress=None):
        np.random.seed(12345)           # an objective that reseeds and draws from the global RNG
        np.random.rand(100)
        return Sphere()(params)

    clean = sphere_campaign(tmp_path / "a.jsonl", max_generations=3).run()
    np.random.seed(7)
    dirty = sphere_campaign(tmp_path / "b.jsonl", noisy, max_generations=3).run()
    assert clean.best_params == dirty.best_params


def test_truncated_last_line_is_dropped_and_repaired(tmp_path):
    path = tmp_path / "c.jsonl"
    sphere_campaign(path, max_generations=2).run()
    with open(path) as f:
        intact = f.read()
    # a crash in the middle of writing generation 3: half a line, no newline
    with open(path, "a") as f:
        f.write('{"kind":"generation","generation":3,"x":[[0.1,')
    header, records = read_log(path, repair=False)
    assert len(records) == 2
    with open(path) as f:
        assert f.read() != intact                   # repair=False leaves the file alone
    full = sphere_campaign(tmp_path / "ref.jsonl", max_generations=3).run()
    resumed = sphere_campaign(path, max_generations=3, resume=True).run()
    assert resumed.resumed_generations == 2 and resumed.best_params == full.best_params
    lines = log_records(path)                       # every line parses: the tail was cut off
    assert [r.get("generation") for r in lines[1:]] == [1, 2, 3]


def test_damaged_or_foreign_logs_are_refused(tmp_path):
    path = tmp_path / "c.jsonl"
    sphere_campaign(path, max_generations=2).run()
    lines = open(path).read().splitlines(keepends=True)
    # a damaged line before the last one
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "{not json\n" + lines[2])
    with pytest.raises(ValueError, match="line 2 is not valid JSON"):
        read_log(bad)
    # edited samples: the replay notices they are not this seed's
    rec = json.loads(lines[1])
    rec["x"][0][0] = 0.123
    edited = tmp_path / "edited.jsonl"
    edited.write_text(lines[0] + json.dumps(rec) + "\n")
    with pytest.raises(ValueError, match="does not match the samples"):
        sphere_campaign(edited, max_generations=3, resume=True).run()
    # other settings than the log's
    with pytest.raises(ValueError, match="seed"):
        sphere_campaign(path, seed=4, max_generations=3, resume=True).run()
    with pytest.raises(ValueError, match="popsize"):
        sphere_campaign(path, popsize=8, max_generations=3, resume=True).run()
    # a new campaign never overwrites a log; resume needs one
    with pytest.raises(ValueError, match="already exists"):
        sphere_campaign(path).run()
    with pytest.raises(ValueError, match="no campaign log"):
        sphere_campaign(tmp_path / "none.jsonl", resume=True).run()


def test_stop_rule_waits_for_min_generations_then_stops_on_stagnation(tmp_path):
    # The sphere's fitness lies in [-3, 0], so no gain ever exceeds tolerance 10: the rule
    # "gain over the last `patience` generations <= tolerance" fires as soon as it may, at
    # max(min_generations, patience + 1) = 4 generations.
    result = sphere_campaign(tmp_path / "c.jsonl", min_generations=4, patience=2,
                             tolerance=10.0, max_generations=10).run()
    assert result.generations == 4 and "improved by" in result.stop_reason
    # cma's own termination criteria also stop it (a flat fitness: tolfun)
    result = sphere_campaign(tmp_path / "flat.jsonl", lambda p, progress=None: np.zeros(len(p)),
                             max_generations=10).run()
    assert result.generations < 10 and "cma termination" in result.stop_reason
    # before min_generations only max_generations stops it
    result = sphere_campaign(tmp_path / "d.jsonl", min_generations=10, max_generations=4).run()
    assert result.generations == 4 and "max_generations" in result.stop_reason


def test_failed_evaluations_rank_last(tmp_path):
    def half_fail(params, progress=None):
        f = Sphere()(params)
        f[::2] = np.nan
        return f

    result = sphere_campaign(tmp_path / "c.jsonl", half_fail, max_generations=2).run()
    rec = log_records(tmp_path / "c.jsonl")[1]
    assert rec["fitness"][0] is None and rec["fitness"][1] is not None
    assert np.isfinite(result.best_fitness)


def test_a_campaign_whose_every_evaluation_fails_stops_with_a_clear_error(tmp_path):
    """Every candidate NaN (each run diverged, or too short to measure; CMA-ES then sees a flat
    fitness and stops): a clear error that keeps the log, not a best of NaN (which best.json,
    written strictly, cannot hold: `softmech optimize walker --fitness least_speedup` stopped
    so on "Out of range float values are not JSON compliant" before mean_speeds counted a
    record's last period)."""
    def all_fail(params, progress=None):
        return np.full(len(params), np.nan)

    with pytest.raises(ValueError, match=r"every evaluation of the campaign failed \(.*NaN"):
        sphere_campaign(tmp_path / "c.jsonl", all_fail, max_generations=2).run()
    assert log_records(tmp_path / "c.jsonl")[1]["fitness"][0] is None      # the log is kept


def test_bad_campaign_input_raises_value_error(tmp_path):
    with pytest.raises(ValueError, match="popsize"):
        sphere_campaign(tmp_path / "c.jsonl", popsize=2)
    with pytest.raises(ValueError, match="upper"):
        sphere_campaign(tmp_path / "c.jsonl", upper=LOWER)
    with pytest.raises(ValueError, match="seed"):
        sphere_campaign(tmp_path / "c.jsonl", seed=-1)
    with pytest.raises(ValueError, match="shape"):
        sphere_campaign(tmp_path / "c.jsonl", lambda p, progress=None: np.zeros(2)).run()


# ------------------------------------------------------------------------------ the snake
def tiny_dt():
    """Half the stability estimate of the 10-element snake (softmech.stability)."""
    from softmech.scenarios.snake import build_snake
    scene, _ = build_snake(10)
    return 0.5 * float(scene.compile(worlds=1, dt=1e-6).time_step_limit().min())


def test_snake_batched_evaluation_equals_single_runs_and_resets():
    dt = tiny_dt()
    problem = SnakeGaitProblem(3, n_elems=10, dt=dt, window=(0.25, 0.5))
    params = np.array([[17.4, 48.5, 5.4, 14.7, 0.97], [-30.0, 10.0, 0.0, 45.0, 0.4],
                       [0.0, 0.0, 0.0, 0.0, 1.5]])
    batched = problem(params)
    again = problem(params)                   # the same compiled simulation, reset to rest
    np.testing.assert_array_equal(batched, again)
    single = SnakeGaitProblem(1, n_elems=10, dt=dt, window=(0.25, 0.5))
    alone = np.array([single(p[None])[0] for p in params])
    # batched worlds are independent: equal to single-world runs up to round-off of a few
    # steps of reordered float arithmetic (tolerance 1e-9 m/s on speeds of ~1e-2 m/s)
    np.testing.assert_allclose(batched, alone, rtol=0, atol=1e-9)
    assert batched[2] == 0.0                  # no muscle activity: the snake does not move
    assert batched[0] != 0.0
    coefficients, wavelengths = coefficients_of(params)
    assert coefficients.shape == (3, 6) and np.all(coefficients[:, [0, 5]] == 0)
    np.testing.assert_array_equal(wavelengths, params[:, 4])


def test_snake_diverging_world_gets_nan_and_the_others_their_speed():
    """dt above the stability estimate: the strongly driven gait blows up, the resting one (no
    muscle activity) stays put; the batch is re-evaluated world by world so only the culprit is
    lost."""
    dt = 3.0 * tiny_dt()
    with pytest.warns(RuntimeWarning, match="stability limit"):
        problem = SnakeGaitProblem(2, n_elems=10, dt=dt, window=(0.25, 0.5))
        fitness = problem(np.array([[0.0, 0.0, 0.0, 0.0, 1.0], [50.0, 50.0, 50.0, 50.0, 0.3]]))
    assert fitness[0] == 0.0 and np.isnan(fitness[1])


def test_snake_problem_rejects_points_outside_its_box():
    problem = SnakeGaitProblem(1, n_elems=10, dt=1e-4, window=(0.25, 0.5))
    with pytest.raises(ValueError, match="beta_2"):
        problem(np.array([[0.0, 60.0, 0.0, 0.0, 1.0]]))
    with pytest.raises(ValueError, match="wavelength"):
        problem(np.array([[0.0, 0.0, 0.0, 0.0, 0.1]]))
    with pytest.raises(ValueError, match="window"):
        SnakeGaitProblem(1, window=(2.0, 1.0))
    with pytest.raises(ValueError, match="wavelength_range"):
        SnakeGaitProblem(1, wavelength_range=(2.0, 1.0))


def parse(argv):
    parser = argparse.ArgumentParser(prog="softmech optimize")
    optimize_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def test_command_writes_panels_json_and_resumes(tmp_path, capsys):
    out = tmp_path / "out"
    tiny = ["--popsize", "4", "--seed", "0", "--n-elems", "10", "--dt", repr(tiny_dt()),
            "--window", "0.25", "0.5", "--figure-periods", "1", "--output", str(out),
            "--quiet", "--json"]
    assert optimize_cmd.execute(parse(["snake", "--generations", "2"] + tiny)) == 0
    first = json.loads(capsys.readouterr().out)          # stdout is exactly one JSON object
    assert {"best_fitness", "best_params", "generations", "evaluations", "wall_s"} <= set(first)
    assert set(first["best_params"]) == set(NAMES)
    assert first["generations"] == 2 and first["evaluations"] == 8
    names = {os.path.basename(f) for f in first["files"]}
    assert names == {"campaign.jsonl", "evaluations.jsonl", "best.json", "fitness.png", "velocities.png",
                     "envelope.png", "snapshots.png"}
    for f in names - {"campaign.jsonl", "evaluations.jsonl", "best.json"}:
        with open(out / f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    # every evaluated point lies inside the box |beta| <= 50 N m, 0.3 <= lambda <= 2 m
    _, records = read_log(out / "campaign.jsonl")
    params = np.array([r["params"] for r in records]).reshape(-1, 5)
    assert np.all(np.abs(params[:, :4]) <= 50.0)
    assert np.all((params[:, 4] >= 0.3) & (params[:, 4] <= 2.0))
    # without --resume an existing campaign is never overwritten
    with pytest.raises(ValueError, match="already exists"):
        optimize_cmd.execute(parse(["snake", "--generations", "3"] + tiny))
    # resume: popsize, seed and model come from the log; one more generation is evaluated
    assert optimize_cmd.execute(parse(["snake", "--resume", "--generations", "3", "--output",
                                       str(out), "--figure-periods", "1", "--quiet",
                                       "--json"])) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["generations"] == 3 and resumed["resumed_generations"] == 2
    with open(out / "best.json") as f:
        best = json.load(f)
    assert best["best_params"] == resumed["best_params"]
    assert best["best_fitness"] == resumed["best_fitness"] >= first["best_fitness"]


def test_command_rejects_bad_options(tmp_path):
    base = ["snake", "--output", str(tmp_path), "--quiet"]
    with pytest.raises(ValueError, match="--popsize"):
        optimize_cmd.execute(parse(base + ["--popsize", "2"]))
    with pytest.raises(ValueError, match="--generations"):
        optimize_cmd.execute(parse(base + ["--generations", "0"]))
    with pytest.raises(ValueError, match="--dt"):
        optimize_cmd.execute(parse(base + ["--dt", "-1"]))


def test_campaign_from_an_edited_scenario_file(tmp_path, capsys):
    """`softmech new snake` writes an [optimize] table; `softmech optimize FILE` runs the campaign
    on the file's snake (here edited to 10 elements, a larger time step and a tiny campaign), and
    equals the same campaign given on the command line (the file only moves the settings)."""
    from softmech.scenefile import builtin_scenario, save_scenario

    path = tmp_path / "snake.toml"
    save_scenario(builtin_scenario("snake", n_elems=10, dt=tiny_dt()), path)
    text = path.read_text()
    for old, new in (("popsize = 16", "popsize = 4"), ("seed = 1", "seed = 0"),
                     ("max_generations = 60", "max_generations = 2"),
                     ("window = [2.0, 3.0]", "window = [0.25, 0.5]"),
                     ("figure_periods = 6.0", "figure_periods = 1.0")):
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)
    assert optimize_cmd.execute(parse([str(path), "--output", str(tmp_path / "a"), "--quiet",
                                       "--json"])) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert optimize_cmd.execute(parse(["snake", "--popsize", "4", "--seed", "0", "--generations",
                                       "2", "--n-elems", "10", "--dt", repr(tiny_dt()),
                                       "--window", "0.25", "0.5", "--figure-periods", "1",
                                       "--output", str(tmp_path / "b"), "--quiet",
                                       "--json"])) == 0
    from_flags = json.loads(capsys.readouterr().out)
    assert from_file["best_params"] == from_flags["best_params"]
    assert from_file["generations"] == 2 and from_file["evaluations"] == 8
    assert "scenario" in read_log(tmp_path / "a" / "campaign.jsonl")[0]["meta"]
    with pytest.raises(ValueError, match="--n-elems is not allowed with a scenario file"):
        optimize_cmd.execute(parse([str(path), "--n-elems", "12", "--output", str(tmp_path / "c")]))
