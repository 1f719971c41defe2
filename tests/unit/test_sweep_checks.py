"""`softmech sweep` and `softmech optimize` check every option and optional package before any
work, and report honestly (issue 31, item 5): a missing pyarrow or ray is refused before
anything is simulated or written; a journal with no finished chunk does not block a rerun; an
earlier sweep's finished chunks are never overwritten and the message says what to do; a
resumed sweep reports the runs it simulated apart from those it found finished; the plot's axes
carry the units of the parameters and objectives. On the 10-element snake of test_study.py."""
import json
import sys

import pytest

from softmech.cli import main
from softmech.optimize.executors import EvaluationJournal
from softmech.optimize.study import Study
from test_study import snake_file

PARAMS = ["--param", "muscle.wavelength=0.5:1.5:2", "--param", "muscle.coefficients[2]=10,40",
          "--chunk", "2"]
"""Four runs in two chunks."""


def forbid_simulation(monkeypatch):
    """Study.evaluate fails the test: one that passes simulated nothing."""
    monkeypatch.setattr(Study, "evaluate", lambda *a, **k: pytest.fail("a run was simulated"))


@pytest.fixture
def no_simulation(monkeypatch):
    forbid_simulation(monkeypatch)


def missing(monkeypatch, package):
    """`import package` raises ImportError, as where it is not installed."""
    monkeypatch.setitem(sys.modules, package, None)
    for name in [m for m in sys.modules if m.startswith(package + ".")]:
        monkeypatch.setitem(sys.modules, name, None)


def test_a_missing_pyarrow_is_refused_before_any_run_and_hdf5_then_works(
        tmp_path, monkeypatch, capsys):
    path, out = snake_file(tmp_path), tmp_path / "out"
    with monkeypatch.context() as m:
        missing(m, "pyarrow")
        forbid_simulation(m)
        assert main(["sweep", str(path), *PARAMS, "--quiet", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--format parquet needs the pyarrow package" in err and "--format hdf5" in err
    assert not out.exists()                           # nothing written, no journal to block
    assert main(["sweep", str(path), *PARAMS, "--quiet", "--format", "hdf5", "--output",
                 str(out)]) == 0
    assert (out / "sweep.h5").exists()


@pytest.mark.parametrize("command", ["sweep", "optimize"])
def test_a_missing_ray_is_refused_before_anything_is_read_or_written(
        tmp_path, monkeypatch, capsys, no_simulation, command):
    missing(monkeypatch, "ray")
    path, out = snake_file(tmp_path), tmp_path / "out"
    extra = PARAMS if command == "sweep" else []
    assert main([command, str(path), *extra, "--ray", "local", "--quiet", "--output",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert f"softmech {command}: error: --ray needs the ray package" in err and "pip install" in err
    assert not out.exists()


def test_an_existing_campaign_log_is_refused_before_ray_or_any_run(
        tmp_path, capsys, no_simulation, monkeypatch):
    path, out = snake_file(tmp_path), tmp_path / "out"
    out.mkdir()
    (out / "campaign.jsonl").write_text("{}\n")
    monkeypatch.setattr("softmech.commands.optimize.make_executor",
                        lambda args: pytest.fail("the executor was made first"))
    assert main(["optimize", str(path), "--quiet", "--output", str(out)]) == 2
    assert "--resume" in capsys.readouterr().err


def test_a_journal_without_finished_chunks_does_not_block_a_rerun(tmp_path, capsys):
    path, out = snake_file(tmp_path), tmp_path / "out"
    # a sweep that failed after creating its journal, before finishing a chunk (other settings)
    EvaluationJournal(out / "evaluations.jsonl", {"an": "earlier sweep"})
    assert main(["sweep", str(path), *PARAMS, "--format", "hdf5", "--json", "--quiet",
                 "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["simulated"] == summary["runs"] == 4 and summary["reused"] == 0
    header = json.loads((out / "evaluations.jsonl").read_text().splitlines()[0])
    assert header["meta"]["chunk"] == 2                   # this sweep's journal


def test_finished_chunks_are_kept_and_resume_reports_what_it_simulated(tmp_path, capsys):
    path, out = snake_file(tmp_path), tmp_path / "out"
    args = ["sweep", str(path), *PARAMS, "--output", str(out)]
    assert main(args + ["--format", "hdf5", "--quiet"]) == 0
    journal = out / "evaluations.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    assert len(lines) == 3                                 # header + two chunks
    capsys.readouterr()
    # without --resume: refused, the journal untouched, and the message says what to do
    assert main(args + ["--quiet"]) == 2
    err = capsys.readouterr().err
    assert "2 finished chunks" in err and "--resume" in err and "--output" in err
    assert journal.read_text() == "".join(lines)
    # a sweep killed after its first chunk, resumed with another table format
    journal.write_text("".join(lines[:2]))
    assert main(args + ["--resume", "--format", "parquet", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert (summary["runs"], summary["simulated"], summary["reused"]) == (4, 2, 2)
    assert "2 simulated now, 2 found finished" in captured.err
    assert (out / "sweep.parquet").exists()
    # everything finished: resuming simulates nothing and says so
    assert main(args + ["--resume", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["simulated"] == 0
    assert "0 simulated now, 4 found finished" in captured.err


def test_the_sweep_plot_axes_carry_units(tmp_path, monkeypatch, capsys):
    from softmech.optimize import figures
    from softmech.optimize.settings import study_of
    from softmech.scenefile import load_scenario

    path = snake_file(tmp_path)
    study = study_of(load_scenario(path))
    units = study.units()
    # the units of the fields named (scenario-file comments) and of the measured quantities
    assert units["wavelength"] == "m" and units["beta_1"] == "N m"
    assert units["forward_speed"] == units["fitness"] == "m/s"
    assert units["distance"] == units["head_y"] == "m" and units["kinetic"] == "J"
    figures_made = []
    monkeypatch.setattr(figures, "_save", lambda fig, p: figures_made.append(fig) or p)
    assert main(["sweep", str(path), *PARAMS, "--format", "hdf5", "--quiet", "--output",
                 str(tmp_path / "out")]) == 0
    axes = figures_made[0].axes
    assert [ax.get_xlabel() for ax in axes] == ["muscle.wavelength [m]",
                                                "muscle.coefficients[2] [N m]"]
    assert {ax.get_ylabel() for ax in axes} == {"forward_speed [m/s]"}


def test_a_journal_whose_header_a_kill_tore_is_started_again(tmp_path):
    """A sweep killed while writing its journal's header leaves a line without its end: no
    chunk was finished, so --resume (and a plain rerun) starts the journal again; a file that is
    not the start of a header is refused, naming it."""
    from softmech.optimize.executors import EvaluationJournal, check_journal, finished_chunks

    path = tmp_path / "evaluations.jsonl"
    for torn in ('{"kind":"head', '{"kind":"header","format":"softmech.ev', ""):
        path.write_text(torn)
        assert finished_chunks(path) == 0
        assert check_journal(path, {"a": 1}, resume=True) == 0
        journal = EvaluationJournal(path, {"a": 1}, resume=True)
        assert len(journal) == 0 and path.read_text().startswith('{"kind":"header"')
        assert path.read_text().endswith("\n")
    path.write_text("not a journal")
    import pytest
    with pytest.raises(ValueError, match="not a softmech evaluations journal"):
        finished_chunks(path)
