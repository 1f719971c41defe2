"""The cost of a run estimated before its first step (issue 32; softmech.run_cost,
docs/reliability.md "Absurd requests"): compute, recording memory and results-file disk above
their budgets are refused naming the fields and the estimate, allow_large=True (--allow-large,
[run] allow_large) lets a large but valid request through, a dt below 1e-12 of the stability
limit is refused outright, and every built-in scene's default run is within the budgets."""
import os
import warnings

import pytest

import softmech as sm
from fuzz_states import discrete_sim as discrete
from softmech import run_cost
from softmech.cli import main
from softmech.commands.reports import report_for
from softmech.commands.run import recording
from softmech.resultsfile import record_to_file
from softmech.scenarios import SCENES
from softmech.scenefile import builtin_scenario, dumps, loads_scenario


def explicit(n_elems=5, dt=1e-4, worlds=1):
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=1.0, n_elems=n_elems, radius=0.01, density=1000.0,
                           youngs_modulus=1e6)
    return scene.compile(dt=dt, worlds=worlds)


# ------------------------------------------------------------------- refused at real budgets
def test_too_many_element_steps_are_refused_naming_the_estimate():
    """1e9 steps of a 2,000-element rod: 2e12 element-steps, above 1e12; nothing runs."""
    sim = explicit(n_elems=2000, dt=1e-9)
    with pytest.raises(ValueError, match=r"duration = 1 s at dt = 1e-09 s: 1e\+09 steps x 1 "
                                         r"worlds x 2000 elements = 2e\+12 element-steps .* the "
                                         r"budget is 1e\+12 element-steps.* pass "
                                         r"allow_large=True"):
        sim.run(1.0)
    assert sim.time == 0.0


@pytest.mark.parametrize("build", [explicit, discrete])
def test_a_recording_too_large_for_memory_is_refused(build):
    """Positions and velocities every step for 1e7 steps: 2.5-3 GB of samples (a rod of 5
    elements or a discrete rod of 4), refused before the first step."""
    sim = build()
    with pytest.raises(ValueError, match=r"record every = .* s: 1e\+07 samples x 2 fields "
                                         r"\((36|30) values per world\) x 1 worlds x 8 bytes = "
                                         r"[23].[0-9]+ GB in memory; the budget is 2 GB"):
        sim.run(1e7 * sim.dt, record=sm.Every(sim.dt, ("positions", "velocities")))
    assert sim.time == 0.0


def test_the_recording_budget_counts_worlds_and_fields():
    sim = explicit(worlds=4)
    with pytest.raises(ValueError, match=r"1e\+07 samples x 2 fields \(33 values per world\) x "
                                         r"4 worlds x 8 bytes = 10.6 GB in memory"):
        sim.run(1e7 * sim.dt, record=sm.Every(sim.dt, ("positions", "angular_velocities")))


def test_a_results_file_too_large_for_the_disk_is_refused_before_it_is_created(tmp_path,
                                                                              monkeypatch):
    """The memory budget (the samples are read back) usually binds first; with it lifted, the
    disk budget refuses a file of 1e7 samples x 4 worlds x 33 values (21 GB with its checkpoint
    copy), and no file is created."""
    monkeypatch.setattr(run_cost, "MAX_RECORD_BYTES", 10**15)
    sim = explicit(worlds=4)
    path = tmp_path / "r.h5"
    with pytest.raises(ValueError, match=r"= 21.3 GB on disk \(results file and its checkpoint "
                                         r"copy\); the budget is 10 GB"):
        record_to_file(sim, path, duration=1e7 * sim.dt, every=sim.dt,
                       fields=("positions", "angular_velocities"))
    assert not path.exists() and sim.time == 0.0


def test_a_time_step_far_below_the_stability_limit_is_refused():
    """dt = 1e-300 s would take 1e290 steps; below 1e-12 of the stability limit (computed at
    compile from the parameters, no kernel compiled) it is refused outright, with no opt-in."""
    with pytest.raises(ValueError, match=r"dt = 1e-300 s is not allowed: below 1e-12 x the "
                                         r"estimated stability limit .* allowed range is \["):
        explicit(dt=1e-300)
    explicit(dt=1e-12)          # small, but within 1e-12 of the limit (~1e-4 s here)


# ---------------------------------------------- allow_large lets a large, valid request through
@pytest.fixture
def small_budgets(monkeypatch):
    """Budgets tiny enough that a run of a few steps exceeds each of them."""
    monkeypatch.setattr(run_cost, "MAX_ELEMENT_STEPS", 10)
    monkeypatch.setattr(run_cost, "MAX_RECORD_BYTES", 100)
    monkeypatch.setattr(run_cost, "MAX_RESULTS_BYTES", 100)


@pytest.mark.parametrize("build", [explicit, discrete])
def test_allow_large_runs_what_the_budget_refuses(build, small_budgets):
    sim = build()
    record = sm.Every(sim.dt, ("positions",))
    with pytest.raises(ValueError, match=r"element-steps.*budget is 1e\+01.*in memory; the "
                                         r"budget is 100 bytes"):
        sim.run(5 * sim.dt, record=record)
    assert sim.time == 0.0
    out = sim.run(5 * sim.dt, record=record, allow_large=True)
    assert out["time"].shape == (6,) and sim.time == pytest.approx(5 * sim.dt)


def test_allow_large_must_be_true_or_false():
    with pytest.raises(ValueError, match=r"allow_large = 1 is not allowed: must be True or False"):
        explicit().run(0.0, allow_large=1)


def test_record_to_file_with_allow_large(tmp_path, small_budgets):
    sim = explicit()
    with pytest.raises(ValueError, match=r"on disk .* the budget is 100 bytes"):
        record_to_file(sim, tmp_path / "a.h5", duration=3 * sim.dt, every=sim.dt)
    assert not (tmp_path / "a.h5").exists()
    out = record_to_file(sim, tmp_path / "a.h5", duration=3 * sim.dt, every=sim.dt,
                         allow_large=True)
    assert out["time"].shape == (4,)


def _tiny_file(tmp_path, allow_large):
    scenario = loads_scenario(dumps(builtin_scenario("snake", n_elems=4, duration=2e-4)))
    scenario.run.allow_large = allow_large
    path = tmp_path / f"tiny_{allow_large}.toml"
    path.write_text(dumps(scenario))
    return path


def test_the_command_line_refuses_and_allows(tmp_path, small_budgets, capsys):
    """`softmech run` refuses with exit code 2 before compiling, naming --allow-large and the
    [run] table's allow_large; either lets the run through."""
    path = _tiny_file(tmp_path, False)
    assert "allow_large" not in path.read_text()        # written only when set
    assert main(["run", str(path), "--output", str(tmp_path / "a"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "element-steps" in err and "pass --allow-large (or set allow_large = true" in err
    assert not os.path.exists(tmp_path / "a" / "results.h5")
    assert main(["run", str(path), "--output", str(tmp_path / "b"), "--quiet",
                 "--allow-large"]) == 0
    allowed = _tiny_file(tmp_path, True)
    assert "allow_large = true" in allowed.read_text()
    assert main(["run", str(allowed), "--output", str(tmp_path / "c"), "--quiet"]) == 0


def test_the_run_table_refuses_a_non_boolean_allow_large():
    text = dumps(builtin_scenario("snake", n_elems=4)).replace("strict = false",
                                                               "strict = false\nallow_large = 1")
    with pytest.raises(ValueError, match=r"\[run\].*allow_large = 1 is not allowed: must be true "
                                         r"or false"):
        loads_scenario(text)


# --------------------------------------------------------------- the built-in scenes' defaults
def test_every_built_in_scene_runs_within_the_budgets():
    """The estimate of `softmech run SCENE`'s default run (its fields, interval and recorders)
    for each of the built-in scenes, without running it: each within every budget."""
    assert len(SCENES) == 16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in SCENES:
            scenario = builtin_scenario(name)
            info = scenario.info()
            sim = scenario.compile()
            fields, every, recorders = recording(scenario, report_for(scenario), info)
            cost = run_cost.estimate(sim, info.duration, every, fields, recorders)
            assert cost.samples > 1 and cost.values and cost.excesses(to_file=True) == [], name
            assert cost.element_steps < run_cost.MAX_ELEMENT_STEPS / 100, name
            assert cost.file_bytes < run_cost.MAX_RECORD_BYTES / 10, name


@pytest.mark.parametrize("build", [explicit, discrete])
def test_allow_large_skips_the_estimate_but_not_the_outright_limits(build, monkeypatch):
    """With allow_large the budgets' estimate is not computed (record_to_file checks its whole
    run once, then calls `run` once per sample: the estimate of a ~2,800-rod wing cost 8 ms a
    call); what _checks.run_steps refuses outright (more than 1e9 steps) is still refused."""
    sim = build()

    def no_estimate(*args, **kwargs):
        raise AssertionError("estimated")

    monkeypatch.setattr(run_cost, "estimate", no_estimate)
    sim.run(2 * sim.dt, record=sm.Every(sim.dt, ("positions",)), allow_large=True)
    with pytest.raises(ValueError, match="steps"):
        sim.run(2e9 * sim.dt, allow_large=True)
    with pytest.raises(AssertionError, match="estimated"):
        sim.run(sim.dt)


def test_recorders_are_not_called_for_the_estimate_and_their_size_is_checked_at_once(
        tmp_path, monkeypatch):
    """A user's recorder is called once per sample only (one may count its calls, as the
    resume tests do); its real size is checked with the first sample: one of 10^6 values per
    world over 6 samples exceeds a 10 MB budget there, before the run goes on."""
    import numpy as np

    monkeypatch.setattr(run_cost, "MAX_RECORD_BYTES", 10e6)
    calls = []

    def big(sim):
        calls.append(sim.time)
        return np.zeros((sim.worlds, 10**6))

    sim = explicit()
    with pytest.raises(ValueError, match=r"48 MB in memory; the budget is 10 MB"):
        record_to_file(sim, tmp_path / "r.h5", duration=5 * sim.dt, every=sim.dt,
                       recorders=[sm.Recorder("big", big)])
    assert len(calls) == 1 and sim.time == 0.0
    calls.clear()
    out = record_to_file(explicit(), tmp_path / "s.h5", duration=5 * sim.dt, every=sim.dt,
                         recorders=[sm.Recorder("small", lambda s: calls.append(1) or
                                                np.zeros(s.worlds))])
    assert len(calls) == 6 and out["small"].shape == (1, 6)


@pytest.mark.parametrize("engine", ["discrete", "unified"])
def test_the_estimate_counts_what_the_run_records_on_both_engines(engine):
    """The estimate's values per world of each recorded field are the recorded arrays' sizes
    per world and sample, for a mid-edge shell, a hinge shell and a discrete rod joined to
    the first (the unified engine left its shells out: no values, no elements, 2026-12-04)."""
    import numpy as np
    from fuzz_cases import _test_module

    # (by path: tests/unit is on sys.path only where pytest collected a test there)
    shell_scene = _test_module("unit/test_implicit_scenefile.py",
                               "test_implicit_scenefile").shell_scene
    sim = shell_scene().compile(engine=engine)
    fields = ("positions", "velocities", "angles", "angular_velocities", "total_energy", "com")
    cost = run_cost.estimate(sim, 2 * sim.dt, sim.dt, fields)
    out = sim.run(2 * sim.dt, record=sm.Every(sim.dt, fields))
    recorded = {key: int(np.prod(np.shape(value)[2:])) for key, value in out.items()
                if key != "time"}
    assert cost.values == recorded and len(recorded) == 3 * len(fields) and cost.samples == 3
    assert cost.elements > 0
