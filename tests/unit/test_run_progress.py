"""`softmech run` as a newcomer meets it (issue 31): the kernels are compiled before the first
step (the implicit scenes' by a warm-up step that is undone bit for bit), the summary is printed
before the plots and the video are written, each announced, and a static result that has not
settled is flagged."""
import json
import os

import numpy as np
import pytest

import softmech as sm
from softmech import cli
from softmech.implicit.simulation import ImplicitSimulation
from softmech.scenefile import builtin_scenario


def _run(name, duration, warm):
    """Positions and velocities of every body at 5 samples (with the energies of the first) and
    the Newton counters (implicit scenes) of a short run of a built-in scene, with or without
    warm_up first."""
    scenario = builtin_scenario(name, duration=duration)
    sim = scenario.compile()
    scene = scenario.scene
    bodies = [b.name for b in scene.implicit_bodies + scene.rods]
    fields = tuple(f"{b}.{f}" for b in bodies for f in ("positions", "velocities"))
    record = sm.Every(seconds=duration / 5, fields=fields + (f"{bodies[0]}.total_energy",))
    if warm:
        # (snapshot: the discrete engine's {DOFs, bindings' history}, or Simulation's tuple of
        # state arrays and terms' history; then the clock)
        arrays = lambda snap: list(snap[0].values()) if isinstance(snap[0], dict) else snap[0]
        state = sim.snapshot()
        assert sim.warm_up(record=record)
        assert sim.snapshot()[1] == state[1]                      # the clock
        for k, (now, value) in enumerate(zip(arrays(sim.snapshot()), arrays(state))):
            np.testing.assert_array_equal(now, value, err_msg=str(k))
    out = sim.run(duration, record=record)
    return sim, out


@pytest.mark.parametrize("name", ["falling_rod", "cantilever"])
def test_warm_up_compiles_and_changes_no_result(name):
    """falling_rod (implicit discrete rods, the compiled Newton loop, which compiles inside
    its first step: warm_up takes one and undoes it) and the cantilever (explicit): a run after
    warm_up equals a run without it bit for bit, Newton counters included."""
    _, cold = _run(name, 0.03, warm=False)
    sim, warm = _run(name, 0.03, warm=True)
    assert set(cold) == set(warm) and len(cold["time"]) == 6
    for key in cold:
        np.testing.assert_array_equal(warm[key], cold[key], err_msg=key)
    if name == "falling_rod":
        # the compiled loop was called: numba compiled it (or loaded it from its disk cache)
        assert sim.stepper.loop.module.run_steps.signatures
        assert sim.newton_stats == _run(name, 0.03, warm=False)[0].newton_stats
        assert sim.newton_stats.steps == 30


def test_run_warms_up_before_the_first_step(tmp_path, monkeypatch, capsys):
    """The CLI warms the simulation up before it steps, once, and says what it compiled."""
    calls = []
    warm_up, advance = ImplicitSimulation.warm_up, ImplicitSimulation._advance_steps

    def logged_warm_up(self, record=None):
        calls.append("warm_up")
        assert record is not None and record.fields      # the run's fields compile too
        return warm_up(self, record=record)

    def logged_advance(self, n_steps):
        calls.append("warm_up step" if calls[-1:] == ["warm_up"] else "run")
        return advance(self, n_steps)

    monkeypatch.setattr(ImplicitSimulation, "warm_up", logged_warm_up)
    monkeypatch.setattr(ImplicitSimulation, "_advance_steps", logged_advance)
    assert cli.main(["run", "falling_rod", "--duration", "0.01", "--output",
                     str(tmp_path / "o")]) == 0
    assert calls[:2] == ["warm_up", "warm_up step"] and calls.count("warm_up") == 1
    assert set(calls[2:]) == {"run"}
    out = capsys.readouterr().out
    compiled = [line for line in out.splitlines() if "compiling the kernels" in line]
    assert len(compiled) == 1 and "done in" in compiled[0] and "Newton loop" in compiled[0]
    assert "compiling not included" in out


def test_summary_comes_before_the_plots(tmp_path, monkeypatch, capsys):
    """A run stopped (Ctrl-C) while its plots are drawn has already printed its result."""
    from softmech.commands import reports

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reports._CantileverReport, "plot", staticmethod(stopped))
    with pytest.raises(KeyboardInterrupt):
        cli.main(["run", "cantilever", "--duration", "0.05", "--n-elems", "6", "--output",
                  str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert "relative error" in out
    assert out.index("relative error") < out.index("writing plots ...")
    assert "done in" not in out.split("writing plots ...")[1]


def test_video_comes_after_the_plots_with_its_frame_count(tmp_path, monkeypatch, capsys):
    """The plots are on disk and announced done before the video starts; the video is
    announced with the number of frames it then draws."""
    import softmech.viz.video as video

    drawn = []

    def stopped(frames, path, fps=25.0):
        drawn.extend(frames)
        raise KeyboardInterrupt

    monkeypatch.setattr(video, "write_video", stopped)
    out_dir = tmp_path / "o"
    with pytest.raises(KeyboardInterrupt):
        cli.main(["run", "falling_rod", "--duration", "0.05", "--output", str(out_dir)])
    out = capsys.readouterr().out
    assert out.index("largest bend") < out.index("writing plots ... done in")
    assert out.index("writing plots ... done in") < out.index("writing video (")
    assert f"writing video ({len(drawn)} frames) ..." in out and len(drawn) > 1
    assert {"bend.png", "com.png", "energy.png"} <= set(os.listdir(out_dir))


def test_unsettled_cantilever_warns_and_its_suggestion_settles(tmp_path, capsys):
    """The tutorial's short run (2 s: the beam is still moving, ~70 % off Timoshenko) warns,
    also with --quiet, exits 0 and suggests a duration; a run of that duration is settled
    and does not warn."""
    argv = ["run", "cantilever", "--n-elems", "20", "--json", "--quiet", "--output"]
    assert cli.main(argv + [str(tmp_path / "short"), "--duration", "2"]) == 0
    captured = capsys.readouterr()
    short = json.loads(captured.out)
    assert short["settled"] is False and short["tip_drift"] > short["settle_tolerance"]
    warning = [line for line in captured.err.splitlines() if "not settled" in line]
    assert len(warning) == 1
    assert f"--duration {short['suggested_duration']:g}" in warning[0]
    assert short["suggested_duration"] > 2
    assert cli.main(argv + [str(tmp_path / "long"), "--duration",
                            str(short["suggested_duration"])]) == 0
    captured = capsys.readouterr()
    long = json.loads(captured.out)
    assert long["settled"] is True and long["tip_drift"] <= long["settle_tolerance"]
    assert long["suggested_duration"] is None and "not settled" not in captured.err
    assert long["relative_error"] < short["relative_error"]


def test_default_cantilever_run_is_settled(tmp_path, capsys):
    assert cli.main(["run", "cantilever", "--n-elems", "20", "--output", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "not settled" not in captured.out + captured.err
    assert "relative error" in captured.out


def test_tip_drift_of_a_settling_and_a_ringing_tip():
    """tip_drift: the largest change over the last tenth of the run relative to the end."""
    from softmech.scenarios.cantilever import SETTLE_TOLERANCE, tip_drift

    t = np.linspace(0.0, 20.0, 201)
    settled = -1.0 + np.exp(-t)                      # e^-18 at the window's start
    assert tip_drift(t, settled) == pytest.approx(np.exp(-18.0) - np.exp(-20.0), rel=1e-6)
    ringing = -1.0 + 0.01 * np.cos(t)                # 1 % oscillation, phase at t = 20 s
    expected = np.max(np.abs(ringing[t >= 18.0] - ringing[-1])) / abs(ringing[-1])
    assert tip_drift(t, ringing) == pytest.approx(expected) and expected > SETTLE_TOLERANCE
    assert tip_drift(t[:1], settled[:1]) == 0.0


def test_settle_time_follows_the_first_mode_decay():
    """settle_time: the first mode's slowest root decays to tolerance / 10 after the ramp;
    heavier damping past critical settles more slowly, none never settles."""
    from dataclasses import replace

    from softmech.scenarios.cantilever import build_cantilever

    _, info = build_cantilever(n_elems=10)
    c = info.damping / (info.density * info.area)
    w = 1.875**2 * np.sqrt(info.youngs_modulus * info.second_moment
                           / (info.density * info.area * info.length**4))
    assert c < 2 * w                                 # the default is below critical
    assert info.settle_time(1e-3) == pytest.approx(info.ramp_time + np.log(1e4) / (c / 2))
    assert info.settle_time() < info.duration        # the default run settles
    assert replace(info, damping=100 * info.damping).settle_time() > info.settle_time()
    assert replace(info, damping=0.0).settle_time() == np.inf
    with pytest.raises(ValueError, match="tolerance"):
        info.settle_time(0.0)
