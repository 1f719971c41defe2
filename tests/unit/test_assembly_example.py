"""examples/rod_pendulum.py (the assembly example of docs/assemblies.md) runs as written: the
pendulum's ball collides with the post and bounces back."""
import os
import runpy
import warnings

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "rod_pendulum.py")


def test_rod_pendulum_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # dt below every stability limit
        runpy.run_path(EXAMPLE, run_name="__main__")
    assert os.path.getsize(tmp_path / "rod_pendulum.png") > 0
    out = capsys.readouterr().out
    # the ball reaches the post moving towards -x and bounces back (+x): a real collision
    assert "hits the post and comes back at up to +" in out, out
