"""examples/der_pneunet.py (docs/examples.md) runs as written and bends the actuators as their
natural curvatures say."""
import os
import runpy

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "der_pneunet.py")


def test_der_pneunet_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = runpy.run_path(EXAMPLE, run_name="__main__")
    assert os.path.getsize(tmp_path / "output" / "der_pneunet.png") > 0
    tips = ns["shapes"][:, -1]
    # without curvature the load and gravity bend it down; with it, it curls up and over
    assert tips[0, 2] < -0.01 and tips[1, 2] > 0.01
    assert tips[0, 0] > tips[1, 0] > tips[2, 0]
