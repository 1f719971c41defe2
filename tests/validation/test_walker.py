"""The bio-hybrid walker (softmech.scenarios.walker): it walks because its muscle contracts.
The strip model (muscle="strip"; the rings: test_walker_rings.py).

With the muscle's stress set to zero (eq. 1's active term off: the strip is a passive elastic
rod) a walker only settles on the ground: after the first second its centre of mass moves by
less than 1 um/s (numerical creep at the static friction's slip velocity, 1e-6 m/s). Stimulated
at 2 Hz it walks at more than 20 x that, and its strip's length oscillates at the stimulation's
rate f: one contraction per stimulus (ActiveMuscle.walker; the authors' code's "2 Hz" walker
contracts twice a second).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.scenarios.walker import build_walker, mean_speeds


def run(stress, duration=2.5):
    scene, info = build_walker(frequencies=(2.0,), muscle_stress=stress, muscle="strip")
    sim = scene.compile(dt=info.dt)
    out = sim.run(duration=duration, record=sm.Every(0.01, ("skeleton_0.com", "strip_0.positions")))
    speed = mean_speeds(out["time"], out["skeleton_0.com"][0][None, :, 0], info.frequencies)[0]
    strip = out["strip_0.positions"][0]
    return out["time"], speed, np.linalg.norm(strip[:, -1] - strip[:, 0], axis=1)


def test_walker_walks_only_when_its_muscle_contracts():
    _, still, _ = run(0.0)
    t, walking, length = run(5e3)
    assert abs(still) < 1e-6
    assert abs(walking) > 20e-6
    after = t > 1.0                         # the strip's length oscillates at f = 2 Hz
    signal = length[after] - length[after].mean()
    spectrum = np.abs(np.fft.rfft(signal))
    freqs = np.fft.rfftfreq(len(signal), t[1] - t[0])
    assert abs(freqs[np.argmax(spectrum[1:]) + 1] - 2.0) < 0.5


@pytest.mark.parametrize("muscle", ["strip", pytest.param("rings", marks=pytest.mark.slow)])
def test_design_fitness_does_not_depend_on_its_generation(muscle):
    """softmech optimize walker runs a generation's designs side by side in one world at one dt:
    a design's speed is the same, bit for bit, whatever the other designs are."""
    from softmech.optimize.walker import LOWER, UPPER, WalkerDesignProblem, original_design

    problem = WalkerDesignProblem(2, duration=1.6, settle=1.0, muscle=muscle)
    a = problem.speeds(np.stack([original_design(), LOWER]))
    b = problem.speeds(np.stack([original_design(), UPPER]))
    assert np.isfinite(a).all() and np.isfinite(b).all()
    assert a[0] == b[0]


@pytest.mark.slow          # ~70 s: the default campaign (rings) runs one simulation per design
def test_optimize_walker_runs_a_campaign(tmp_path, capsys):
    import argparse
    import json
    import os

    from softmech.commands import optimize

    parser = argparse.ArgumentParser()
    optimize.add_arguments(parser)
    args = parser.parse_args(["walker", "--output", str(tmp_path), "--json", "--quiet",
                              "--generations", "1", "--popsize", "4"])
    assert optimize.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["generations"] == 1 and summary["evaluations"] == 4
    assert np.isfinite(summary["speed_original"]) and summary["speed_original"] > 0
    assert set(summary["best_params"]) == {"youngs_modulus", "short_pillar", "strip_height"}
    # the paper's report: the optimum against the original at 0.5, 1 and 2 Hz
    assert set(summary["speedups"]) == {"0.5", "1", "2"}
    assert np.isfinite(list(summary["speeds_original"].values())).all()
    assert os.path.exists(tmp_path / "best.json") and os.path.exists(tmp_path / "fitness.png")
    assert os.path.exists(tmp_path / "speedups.png")      # the report against the paper's 2.5x


@pytest.mark.parametrize("key, value", [("bath_damping", 4e-3), ("tangential_stiffness", 0.0),
                                        ("internal_damping", 0.046)])
def test_the_campaign_takes_the_bath_and_the_ground_for_every_design(key, value, tmp_path,
                                                                     monkeypatch):
    """`softmech optimize walker --bath-damping C` (the bath's 0.05 kg/(m s) is ours; the
    paper's medium's Stokes drag is 4.1e-3: docs/musculoskeletal.md, section 6) and
    `--tangential-stiffness K` (the ground's friction sticks with 10 N/m by default since
    2026-12-07; 0 is the regularized law of the campaigns before) and `--internal-damping C`
    (the damping of each walker's deformation alone, none by default): every design's scene gets
    the value, the campaign log's meta records it (a resume with another is refused), and the
    flag is checked by name and refused for the other problems."""
    import argparse

    import softmech.optimize.walker as walker_opt
    from softmech.commands import optimize

    problem = walker_opt.WalkerDesignProblem(4, **{key: value})
    assert problem.meta()[key] == value
    default = walker_opt.WalkerDesignProblem(4).meta()
    assert "bath_damping" not in default       # (the default bath, as the logs before it say)
    # held in its plane on friction that sticks since 2026-12-07: a log of the free walker on
    # the regularized friction (neither recorded) is not resumed
    assert default["planar"] is True and default["tangential_stiffness"] == 10.0
    built = []

    def build(**kwargs):
        built.append(kwargs)
        raise KeyboardInterrupt           # stop before the run: only the scene's options matter
    monkeypatch.setattr(walker_opt, "build_walker", build)
    with pytest.raises(KeyboardInterrupt):
        problem.speeds(np.stack([walker_opt.original_design()] * 4))
    assert built[0][key] == value
    with pytest.raises(ValueError, match=rf"{key} = -1\.0 is not allowed"):
        walker_opt.WalkerDesignProblem(4, **{key: -1.0})
    parser = argparse.ArgumentParser()
    optimize.add_arguments(parser)
    flag = "--" + key.replace("_", "-")
    args = parser.parse_args(["swimmer", flag, "0.01", "--output", str(tmp_path)])
    with pytest.raises(ValueError, match=rf"{flag} is not allowed with 'swimmer'"):
        optimize.execute(args)


def test_the_least_speedup_fitness_takes_the_worst_of_the_three_frequencies(tmp_path,
                                                                             monkeypatch):
    """`softmech optimize walker --fitness least_speedup` (issue 28 asks for 2x at 0.5, 1 and
    2 Hz, which a campaign at 2 Hz cannot aim at): each design's fitness is the least, over
    the three frequencies, of its speed over the original's there (the original measured once),
    NaN where any run diverged; the campaign's duration must hold a whole period at 0.5 Hz
    after the settling time; the log's meta records the choice (the default unrecorded, so the
    campaigns of before resume), and the flag is refused for the other problems."""
    import argparse

    import softmech.optimize.walker as walker_opt
    from softmech.commands import optimize

    table = {0.5: (1.0, 3.0, 2.0, 1.0), 1.0: (2.0, 4.0, 8.0, np.nan), 2.0: (4.0, 4.0, 12.0, 8.0)}
    calls = []

    def speeds(self, params, frequency=walker_opt.FREQUENCY, duration=None):
        calls.append((len(params), frequency))
        if len(params) == 1:                       # the original
            return np.array([table[frequency][0]])
        return np.array(table[frequency][1:])
    monkeypatch.setattr(walker_opt.WalkerDesignProblem, "speeds", speeds)
    problem = walker_opt.WalkerDesignProblem(3, fitness="least_speedup")
    designs = np.stack([walker_opt.original_design()] * 3)
    first = problem(designs)
    # ratios 3/1, 4/2, 4/4 -> 1; 2/1, 8/2, 12/4 -> 2; 1/1, nan, 8/4 -> nan
    np.testing.assert_array_equal(first, [1.0, 2.0, np.nan])
    problem(designs)
    assert sum(1 for n, _ in calls if n == 1) == 3      # the original: once per frequency
    assert problem.meta()["fitness"] == "least_speedup"
    assert "fitness" not in walker_opt.WalkerDesignProblem(3).meta()
    np.testing.assert_array_equal(walker_opt.WalkerDesignProblem(3)(designs), [4.0, 12.0, 8.0])
    with pytest.raises(ValueError, match=r"fitness = 'fastest' is not allowed"):
        walker_opt.WalkerDesignProblem(3, fitness="fastest")
    with pytest.raises(ValueError, match=r"duration = 3\.0 is not allowed.*0\.5 Hz = 4 s"):
        walker_opt.WalkerDesignProblem(3, duration=3.0, fitness="least_speedup")
    walker_opt.WalkerDesignProblem(3, duration=3.0)          # (2 Hz: one period is 0.5 s)
    table[1.0] = (-2.0,) + table[1.0][1:]           # an original walking backwards at 1 Hz:
    with pytest.raises(ValueError, match=r"needs it to walk forward"):     # no speed-up
        walker_opt.WalkerDesignProblem(3, fitness="least_speedup")(designs)
    parser = argparse.ArgumentParser()
    optimize.add_arguments(parser)
    args = parser.parse_args(["snake", "--fitness", "least_speedup", "--output", str(tmp_path)])
    with pytest.raises(ValueError, match=r"--fitness is not allowed with 'snake'"):
        optimize.execute(args)


def test_a_record_a_step_short_of_its_duration_keeps_its_last_period():
    """A run ends on a whole step, up to one step short of its duration (4 s at dt = 9.64e-6 s
    ends at 3.9999977 s): mean_speeds still counts the period that ends at the duration, so
    the 2 Hz fitness over 2-4 s reads four periods (it read three, 2-3.5 s) and a 4 s run has
    its period at 0.5 Hz (it had none: NaN). A walker at 10 um/s that speeds up to 30 um/s
    after 3.5 s: over 2-4 s, 15 um/s; over 2-3.5 s it would read 10."""
    time = np.append(np.arange(0.0, 3.99, 0.01), 3.9999977)
    x = 10e-6 * time + 20e-6 * np.maximum(time - 3.5, 0.0)
    v = mean_speeds(time, np.stack([x, x]), [2.0, 0.5], settle=2.0)
    np.testing.assert_allclose(v, [15e-6, 15e-6], rtol=1e-5)
    short = time[time <= 3.9]                      # a period short by 0.1 s (0.2 of one at
    v = mean_speeds(short, x[None, :short.size], [2.0], settle=2.0)   # 2 Hz): not counted
    np.testing.assert_allclose(v, [10e-6], rtol=1e-9)
