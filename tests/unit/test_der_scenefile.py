"""A discrete rod's actuation schedule in scenario files: a table ({"times", "values"}) is
written, read back and runs bit for bit; a Python function cannot be written (named error)."""
import numpy as np
import pytest

import softmech as sm
from softmech.scenefile import load_scenario, save_scenario
from softmech.scenefile.schema import RunSettings, Scenario


def scenario(curvature):
    scene = sm.Scene()
    arm = scene.add_der_rod(name="arm", start=(0, 0, 0.05), direction=(1, 0, 0), length=0.2,
                            n_elems=8, radius=2e-3, density=1200.0, youngs_modulus=2e6,
                            natural_curvature=curvature)
    scene.add(sm.FixNodes(arm, nodes=[0, 1], angles=[0]))
    return Scenario(scene=scene, run=RunSettings(dt=5e-3, duration=0.05), name="der",
                    record=sm.Every(0.01, ("arm.positions",)))


def test_a_curvature_table_round_trips_and_runs_bit_for_bit(tmp_path):
    table = {"times": [0.0, 0.05], "values": np.stack([np.zeros((7, 2)),
                                                       np.tile([0.0, 5.0], (7, 1))])}
    original = scenario(table)
    files = save_scenario(original, tmp_path / "der.toml")
    back = load_scenario(files[0])
    a = original.compile().run(0.05, record=original.record)["arm.positions"]
    b = back.compile().run(0.05, record=back.record)["arm.positions"]
    np.testing.assert_array_equal(a, b)
    assert np.abs(a[0, -1, -1, 2] - a[0, 0, -1, 2]) > 1e-3      # the actuator did bend


def test_a_curvature_function_cannot_go_into_a_scenario_file(tmp_path):
    with pytest.raises(ValueError, match="natural_curvature .* cannot be written"):
        save_scenario(scenario(lambda t: np.zeros((7, 2))), tmp_path / "f.toml")
