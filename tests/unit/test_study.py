"""Studies, generic [optimize] tables, sweeps and the chunk journal (softmech.optimize.study,
settings, sweep, executors), on the 10-element snake with quarter-second windows.

What is checked: a world's measured objectives do not depend on its batch-mates, on the chunk
split or on block grouping (bit for bit); the snake gait problem's fitness is unchanged (pinned
bit patterns, computed before it became a Study); the snake campaign written as a generic table
gives the same campaign; construction fields rebuild the scene (length 1 m equals the original);
quantities against direct measurements; a killed sweep or campaign takes finished chunks from
its journal; bad [optimize] tables name the field.
"""
import json

import numpy as np
import pytest

from softmech.cli import main
from softmech.optimize.executors import EvaluationJournal, LocalExecutor, evaluate_batch
from softmech.optimize.study import Parameter, Study
from softmech.scenefile import ScenarioError, builtin_scenario, load_scenario, save_scenario

DT = 8.15564825995739e-05
"""Half the stability estimate of the 10-element snake (as tests/unit/test_optimize.py)."""

GAITS = np.array([[17.4, 48.5, 5.4, 14.7, 0.97], [-30.0, 10.0, 0.0, 45.0, 0.4],
                  [0.0, 0.0, 0.0, 0.0, 1.5], [5.0, -20.0, 33.0, 1.0, 1.2]])
PINNED = ["0x1.94c5e18983ca2p-8", "0x1.72208356d7fe3p-10", "0x0.0p+0", "0x1.4fb804168aeacp-9"]
"""SnakeGaitProblem(4, n_elems=10, dt=DT, window=(0.25, 0.5))(GAITS).hex() before this change."""

GAIT_TABLE = {
    "parameters": [{"path": "muscle.coefficients[1:5]", "lower": -50.0, "upper": 50.0,
                    "names": ["beta_1", "beta_2", "beta_3", "beta_4"]},
                   {"path": "muscle.wavelength", "lower": 0.3, "upper": 2.0,
                    "names": ["wavelength"]}],
    "objectives": {"forward_speed": {"quantity": "com_speed", "axis": "x",
                                     "window": [0.25, 0.5]},
                   "lateral": {"quantity": "com_speed", "axis": "y", "window": [0.25, 0.5]},
                   "planar": {"quantity": "com_speed", "plane": "xy", "window": [0.25, 0.5]},
                   "distance": {"quantity": "distance", "plane": "xy", "window": [0.25, 0.5]},
                   "final_x": {"quantity": "final_position", "axis": "x", "window": [0, 0.5]},
                   "kinetic": {"quantity": "energy", "kind": "kinetic", "reduce": "max",
                               "window": [0.25, 0.5], "every": 0.05},
                   "head_y": {"quantity": "field", "field": "positions", "index": [-1, 1],
                              "reduce": "final", "window": [0, 0.5]}},
    "objective": "forward_speed",
    "fixed": {"muscle.coefficients[0]": 0.0, "muscle.coefficients[5]": 0.0},
}


def snake_file(tmp_path, table=None, name="s.toml", **campaign):
    scenario = builtin_scenario("snake", n_elems=10, dt=DT)
    scenario.optimize = {"popsize": 4, "seed": 0, "max_generations": 2, **(table or GAIT_TABLE),
                         **campaign}
    save_scenario(scenario, tmp_path / name)
    return tmp_path / name


def hexes(values):
    return [float(v).hex() for v in values]


def test_snake_problem_fitness_is_unchanged_and_the_generic_table_equals_it(tmp_path):
    from softmech.optimize import SnakeGaitProblem
    from softmech.optimize.settings import study_of

    problem = SnakeGaitProblem(4, n_elems=10, dt=DT, window=(0.25, 0.5))
    assert hexes(problem(GAITS)) == PINNED
    study = study_of(load_scenario(snake_file(tmp_path)))
    values = study.evaluate(GAITS)
    assert hexes(values["forward_speed"]) == PINNED
    # the other quantities, against their definitions
    assert values["lateral"][2] == 0.0 and values["kinetic"][2] < 1e-20   # no muscle: at rest
    planar = np.hypot(values["forward_speed"], values["lateral"])
    np.testing.assert_allclose(values["planar"], planar, rtol=1e-12)
    window = (round(0.5 / DT) - round(0.25 / DT)) * DT                 # whole steps [s]
    np.testing.assert_allclose(values["distance"], planar * window, rtol=1e-12)
    sim = builtin_scenario("snake", n_elems=10, dt=DT).compile(worlds=4)
    sim.params["muscle.coefficients"] = np.column_stack([np.zeros(4), GAITS[:, :4], np.zeros(4)])
    sim.params["muscle.wavelength"] = GAITS[:, 4].copy()
    sim.step(int(round(0.5 / DT)))
    np.testing.assert_array_equal(values["final_x"], sim.diagnostics("snake")["com"][:, 0])
    np.testing.assert_array_equal(values["head_y"], sim.get_state("snake")["positions"][:, -1, 1])


def test_results_do_not_depend_on_batch_mates_chunks_or_executor(tmp_path):
    from softmech.optimize.settings import study_of

    study = study_of(load_scenario(snake_file(tmp_path)))
    rng = np.random.default_rng(1)
    params = np.column_stack([rng.uniform(-50, 50, (7, 4)), rng.uniform(0.3, 2.0, 7)])
    whole = evaluate_batch(study, params)                          # one 7-world simulation
    for chunk in (1, 3):
        split = evaluate_batch(study, params, chunk=chunk, executor=LocalExecutor())
        for name in whole:
            assert hexes(split[name]) == hexes(whole[name]), (name, chunk)
    reversed_ = study.evaluate(params[::-1])
    assert hexes(reversed_["forward_speed"][::-1]) == hexes(whole["forward_speed"])


def test_construction_fields_rebuild_the_scene_per_candidate():
    scenario = builtin_scenario("snake", n_elems=10, dt=DT)
    objectives = {"speed": {"quantity": "com_speed", "window": [0.25, 0.5]}}
    rebuilt = Study(scenario, [Parameter("rods.snake.length", 0.5, 1.5),
                               Parameter("rods.snake.n_elems", 8, 12)], objectives,
                    fixed={"muscle.wavelength": 0.97})
    assert rebuilt.rebuild and [p.kind for p in rebuilt.paths] == ["build", "build"]
    same = Study(scenario, [Parameter("muscle.wavelength", 0.3, 2.0)], objectives)
    assert not same.rebuild
    values = rebuilt.evaluate(np.array([[1.0, 10.0], [0.8, 10.0], [1.0, 12.0]]))["speed"]
    # the scenario's own length and element count: the same number as without rebuilding
    assert values[0] == same.evaluate(np.array([[0.97]]))["speed"][0]
    assert values[1] != values[0] and values[2] != values[0]


def test_journal_resumes_without_simulating_finished_chunks(tmp_path):
    from softmech.optimize.settings import study_of

    study = study_of(load_scenario(snake_file(tmp_path)))
    path = tmp_path / "evaluations.jsonl"
    journal = EvaluationJournal(path, study.meta())
    full = evaluate_batch(study, GAITS, chunk=2, journal=journal)
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 3                                   # header + two chunks
    path.write_text("".join(lines[:2]) + lines[2][:20])      # killed while writing chunk 2

    class Counting(LocalExecutor):
        rows = 0

        def run(self, study, chunks, progress=None):
            self.rows += sum(len(c) for c in chunks)
            return super().run(study, chunks, progress)

    counting = Counting()
    again = evaluate_batch(study, GAITS, chunk=2, executor=counting,
                           journal=EvaluationJournal(path, study.meta(), resume=True))
    assert counting.rows == 2                                # only the unfinished chunk
    assert hexes(again["forward_speed"]) == hexes(full["forward_speed"])
    with pytest.raises(ValueError, match="already exists"):
        EvaluationJournal(path, study.meta())
    with pytest.raises(ValueError, match="other settings"):
        EvaluationJournal(path, {"other": 1}, resume=True)


def test_generic_campaign_from_a_file_and_resume(tmp_path, capsys):
    from softmech.optimize.campaign import read_log

    path = snake_file(tmp_path)
    assert main(["optimize", str(path), "--output", str(tmp_path / "a"), "--quiet", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["generations"] == 2 and first["evaluations"] == 8
    assert set(first["best_objectives"]) == set(GAIT_TABLE["objectives"])
    assert first["best_objectives"]["forward_speed"] == first["best_fitness"]
    # the snake's own campaign (problem = "snake_gait") with the same settings: same samples,
    # same fitness, same best
    assert main(["optimize", "snake", "--popsize", "4", "--seed", "0", "--generations", "2",
                 "--n-elems", "10", "--dt", repr(DT), "--window", "0.25", "0.5",
                 "--figure-periods", "0.5", "--output", str(tmp_path / "b"), "--quiet",
                 "--json"]) == 0
    snake = json.loads(capsys.readouterr().out)
    assert snake["best_params"] == first["best_params"]
    assert snake["best_fitness"] == first["best_fitness"]
    _, a = read_log(tmp_path / "a" / "campaign.jsonl")
    _, b = read_log(tmp_path / "b" / "campaign.jsonl")
    assert [r["fitness"] for r in a] == [r["fitness"] for r in b]
    # resume to 3 generations: 4 new evaluations, the logged ones kept
    assert main(["optimize", str(path), "--output", str(tmp_path / "a"), "--resume",
                 "--generations", "3", "--quiet", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["generations"] == 3 and resumed["resumed_generations"] == 2
    _, c = read_log(tmp_path / "a" / "campaign.jsonl")
    assert c[:2] == a


def test_minimize_log_scale_and_constraints(tmp_path):
    table = {"parameters": [{"path": "rods.snake.youngs_modulus", "lower": 1e6, "upper": 1e8,
                             "log": True},
                            {"path": "muscle.wavelength", "lower": 0.5, "upper": 1.5}],
             "objectives": {"kinetic": {"quantity": "energy", "kind": "kinetic",
                                        "window": [0.25, 0.5]},
                            "speed": {"quantity": "com_speed", "window": [0.25, 0.5]}},
             "objective": "kinetic", "goal": "minimize",
             "constraints": [{"objective": "speed", "min": 1.0, "weight": 2.0}]}
    from softmech.optimize.settings import study_of

    study = study_of(load_scenario(snake_file(tmp_path, table)))
    assert study.initial[0] == pytest.approx(1e7)                 # geometric centre
    values = study.evaluate(np.array([[1e6, 0.97], [1e8, 0.97]]))
    expected = -values["kinetic"] - 2.0 * (1.0 - values["speed"])
    np.testing.assert_array_equal(study.fitness(values), expected)
    assert main(["optimize", str(tmp_path / "s.toml"), "--output", str(tmp_path / "o"),
                 "--quiet"]) == 0
    from softmech.optimize.campaign import read_log

    header, records = read_log(tmp_path / "o" / "campaign.jsonl")
    assert header["log"] == [True, False]
    p = np.array([r["params"] for r in records])[..., 0]
    assert np.all((p >= 1e6) & (p <= 1e8))


def test_sweep_grid_random_tables_plot_and_resume(tmp_path, capsys):
    import h5py
    import pyarrow.parquet as pq

    path = snake_file(tmp_path)
    args = ["sweep", str(path), "--param", "muscle.wavelength=0.5:1.5:3", "--param",
            "muscle.coefficients[2]=10,40", "--chunk", "4", "--quiet", "--json"]
    assert main(args + ["--output", str(tmp_path / "g")]) == 0
    grid = json.loads(capsys.readouterr().out)
    assert grid["runs"] == 6
    table = pq.read_table(tmp_path / "g" / "sweep.parquet").to_pydict()
    assert table["muscle.wavelength"] == [0.5, 0.5, 1.0, 1.0, 1.5, 1.5]
    assert table["muscle.coefficients[2]"] == [10.0, 40.0] * 3
    assert set(GAIT_TABLE["objectives"]) | {"run", "fitness"} <= set(table)
    csv_rows = (tmp_path / "g" / "sweep.csv").read_text().splitlines()
    assert len(csv_rows) == 7 and float(csv_rows[1].split(",")[3]) == table["forward_speed"][0]
    with open(tmp_path / "g" / "sweep.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    # each run equals the same candidate evaluated alone
    from softmech.optimize.settings import study_of

    study = study_of(load_scenario(path))
    row = GAITS[0].copy()
    row[1], row[4] = 40.0, 1.5
    row[[0, 2, 3]] = 17.4, 5.4, 14.7              # the file's other coefficients
    assert study.evaluate(row[None])["forward_speed"][0] == table["forward_speed"][5]
    # random runs into HDF5; a repeated command refuses to overwrite, --resume reuses the journal
    rand = args[:2] + ["--param", "muscle.wavelength=0.5:1.5:2", "--random", "5", "--seed", "3",
                       "--format", "hdf5", "--quiet", "--output", str(tmp_path / "r")]
    assert main(rand) == 0
    with h5py.File(tmp_path / "r" / "sweep.h5") as h5:
        w = h5["sweep/muscle.wavelength"][:]
        speeds = h5["sweep/forward_speed"][:]
    assert w.shape == (5,) and np.all((w >= 0.5) & (w <= 1.5)) and len(set(w)) == 5
    assert main(rand) == 2
    assert main(rand[:-1] + [str(tmp_path / "nothing"), "--resume"]) == 2
    assert main(rand + ["--resume"]) == 0
    with h5py.File(tmp_path / "r" / "sweep.h5") as h5:
        np.testing.assert_array_equal(h5["sweep/forward_speed"][:], speeds)
    assert len((tmp_path / "r" / "evaluations.jsonl").read_text().splitlines()) == 2
    capsys.readouterr()


@pytest.mark.parametrize("change, fragments", [
    ({"parameters": [{"path": "rods.snake.stiffnes", "lower": 1, "upper": 2}]},
     ["[optimize]", "parameters[0].path", "'rods.snake.stiffnes'", "youngs_modulus"]),
    ({"parameters": [{"path": "rods.worm.length", "lower": 1, "upper": 2}]},
     ["parameters[0].path", "no rod 'worm'"]),
    ({"parameters": [{"path": "muscle.wavelength", "lower": 2.0, "upper": 2.0}]},
     ["parameters[0] (muscle.wavelength)", "bounds are empty"]),
    ({"parameters": [{"path": "muscle.coefficients[7:9]", "lower": 0, "upper": 1}]},
     ["muscle.coefficients[7:9]", "selects no entry"]),
    ({"objectives": {"v": {"quantity": "speed", "window": [0, 1]}}},
     ["objectives.v.quantity = 'speed'", "com_speed"]),
    ({"objectives": {"v": {"quantity": "com_speed"}}}, ["objectives.v.window is missing"]),
    ({"objective": "nothing"}, ["objective = 'nothing'", "forward_speed"]),
    ({"goal": "fastest"}, ["goal = 'fastest'", "maximize"]),
    ({"popsize": 2}, ["popsize = 2", "integer >= 4"]),
    ({"constraints": [{"objective": "lateral"}]}, ["constraints[0]", "min and/or max"]),
])
def test_bad_optimize_tables_name_the_field(tmp_path, change, fragments):
    path = snake_file(tmp_path, {**GAIT_TABLE, **change})
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    for fragment in fragments:
        assert fragment in str(err.value), (fragment, str(err.value))


def test_sweep_options_are_checked(tmp_path):
    from softmech.optimize.sweep import parse_param

    with pytest.raises(ValueError, match="PATH=v1,v2"):
        parse_param("muscle.wavelength")
    with pytest.raises(ValueError, match="lo < hi"):
        parse_param("muscle.wavelength=2:1:3")
    with pytest.raises(ValueError, match="log range needs lo > 0"):
        parse_param("muscle.wavelength=0:1:3:log")
    assert main(["sweep", str(snake_file(tmp_path)), "--quiet"]) == 2       # no --param


def test_the_documented_example_file_loads_and_names_its_campaign():
    """examples/snake_stiffness_gait.toml (docs/optimization.md): Young's modulus on a log scale
    and the gait, every dimension named by its path."""
    import os

    from softmech.optimize.settings import study_of

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                        "snake_stiffness_gait.toml")
    study = study_of(load_scenario(path))
    assert study.names == ("rods.snake.youngs_modulus", "muscle.coefficients[1]",
                           "muscle.coefficients[2]", "muscle.coefficients[3]",
                           "muscle.coefficients[4]", "muscle.wavelength")
    assert study.log.tolist() == [True] + [False] * 5 and not study.rebuild
    assert study.duration == 3.0


def test_muscle_power_is_the_engines_couple_times_angular_velocity():
    """muscle_power recomputes the muscle's couple from its parameters; the engine's own couple
    is the difference of the angular accelerations with and without the muscle kernel, times
    J / e (the rotational inertia over the dilatation, Gazzola 2018 eq. 2.7)."""
    from softmech.diagnostics import discrete_properties
    from softmech.optimize.quantities import muscle_power
    from softmech.packing import from_blocks

    sim = builtin_scenario("snake", n_elems=10, dt=DT).compile(worlds=2)
    sim.params["muscle.coefficients"] = np.column_stack([np.zeros(2), GAITS[:2, :4],
                                                         np.zeros(2)])
    sim.params["muscle.wavelength"] = GAITS[:2, 4].copy()
    sim.step(4000)                                      # t = 0.33 s: ramping, moving
    engine = sim._engine()
    accelerations = []
    for leave_out in ((), ("muscle_waves",)):
        sim._evaluate(engine, leave_out)
        accelerations.append(from_blocks(sim.workspace.elem_couple, sim.lanes, (3,)).copy())
    alpha = accelerations[0] - accelerations[1]         # the muscle's angular acceleration
    assert np.all(alpha[..., 1:] == 0.0)                # about d1 only
    rod = sim.rods[0]
    state = sim.get_state("snake")
    e = np.linalg.norm(np.diff(state["positions"], axis=1), axis=2) / rod.rest_lengths
    inertia = discrete_properties(rod.rest_lengths, sim.rod_params("snake"), rod.closed)["elem_J"]
    engine_power = np.sum(alpha[..., 0] * inertia[..., 0] / e
                          * state["angular_velocities"][..., 0], axis=1)
    power = muscle_power(sim, "muscle")
    assert np.all(np.abs(power) > 1.0)
    np.testing.assert_allclose(power, engine_power, rtol=1e-10)


def test_muscle_work_kinds(tmp_path):
    from softmech.optimize.settings import study_of

    work = {f"work_{k}": {"quantity": "muscle_work", "kind": k, "window": [0.25, 0.5],
                          "every": 0.005} for k in ("positive", "absolute", "net")}
    table = {**GAIT_TABLE, "objectives": {**GAIT_TABLE["objectives"], **work}}
    values = study_of(load_scenario(snake_file(tmp_path, table))).evaluate(GAITS)
    assert values["work_positive"][2] == 0.0                   # no muscle activity
    moving = [0, 1, 3]
    assert np.all(values["work_positive"][moving] > 0)
    assert np.all(values["work_absolute"] >= values["work_positive"])
    assert np.all(values["work_positive"] >= values["work_net"])
    # absolute = positive + negative parts, net = positive - negative parts
    np.testing.assert_allclose(values["work_absolute"] + values["work_net"],
                               2 * values["work_positive"], rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="must name a MuscleTorqueWave"):
        study_of(load_scenario(snake_file(tmp_path, {**GAIT_TABLE, "objectives": {
            "w": {"quantity": "muscle_work", "muscle": "ground", "window": [0, 1]}}},
            name="bad.toml")))


def test_resume_after_a_kill_before_the_log_header(tmp_path, capsys):
    """A driver killed after creating its journal but before the campaign log's header resumes
    as a fresh campaign that takes its chunks from the journal; --resume of an empty folder is
    refused."""
    import os

    path = snake_file(tmp_path)
    out = tmp_path / "o"
    assert main(["optimize", str(path), "--output", str(out), "--quiet"]) == 0
    full = (out / "campaign.jsonl").read_text()
    os.remove(out / "campaign.jsonl")
    assert main(["optimize", str(path), "--output", str(out), "--resume", "--quiet"]) == 0
    assert (out / "campaign.jsonl").read_text().splitlines()[1:] != []
    journal = (out / "evaluations.jsonl").read_text().splitlines()
    assert len(journal) == 1 + 2                      # nothing simulated twice
    strip = [{k: v for k, v in json.loads(line).items() if k != "wall_s"}
             for line in full.splitlines()[1:]]
    again = [{k: v for k, v in json.loads(line).items() if k != "wall_s"}
             for line in (out / "campaign.jsonl").read_text().splitlines()[1:]]
    assert again == strip
    capsys.readouterr()
    assert main(["optimize", str(path), "--output", str(tmp_path / "empty"), "--resume",
                 "--quiet"]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert not (tmp_path / "empty" / "evaluations.jsonl").exists()


def test_parameter_paths_resolve_indices_and_owners():
    import tomllib

    from softmech.optimize.paths import resolve_path
    from softmech.scenefile import dumps

    scenario = builtin_scenario("snake", n_elems=10, dt=DT)
    doc = tomllib.loads(dumps(scenario))
    params = scenario.compile().params
    cases = {"muscle.coefficients[1:5]": ("world", (1, 2, 3, 4)),
             "muscle.coefficients[-1]": ("world", (5,)),
             "muscle.coefficients[:2]": ("world", (0, 1)),
             "snake.youngs_modulus": ("world", None),
             "rods.snake.radius[3]": ("world", (3,)),
             "rods.snake.start[2]": ("build", (2,)),
             "rods.snake.n_elems": ("build", None),
             "ground.stiffness": ("world", None)}
    for text, (kind, index) in cases.items():
        path = resolve_path(text, params, doc)
        assert (path.kind, path.index) == (kind, index), text
    assert resolve_path("muscle.coefficients[1:3]", params, doc).dimension_names() == (
        "muscle.coefficients[1]", "muscle.coefficients[2]")
    for bad, fragment in (("muscle.coefficients[6]", "the index must be"),
                          ("muscle.coefficients[1:2:3]", "the index must be"),
                          ("snake", "a parameter path is OWNER.FIELD"),
                          ("gravity.nothing", "has no field 'nothing'"),
                          ("rods.muscle.wavelength", "no rod 'muscle'")):
        with pytest.raises(ValueError, match=fragment.replace("[", r"\[")):
            resolve_path(bad, params, doc)
    # a rebuilt start height (index into a construction array) moves the snake off the ground
    study = Study(scenario, [Parameter("rods.snake.start[2]", 0.02, 0.2),
                             Parameter("muscle.wavelength", 0.3, 2.0)],
                  {"z": {"quantity": "final_position", "axis": "z", "window": [0, 0.01]}})
    z = study.evaluate(np.array([[0.025, 0.97], [0.1, 0.97]]))["z"]
    assert abs(z[0] - 0.025) < 1e-3 and abs(z[1] - 0.1) < 2e-3


def test_an_unreachable_ray_address_is_refused_at_once():
    pytest.importorskip("ray")
    from softmech.optimize.executors import RayExecutor

    with pytest.raises(ValueError, match="no Ray head answers there"):
        RayExecutor("127.0.0.1:1")
