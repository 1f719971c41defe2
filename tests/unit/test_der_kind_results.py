"""Discrete rods of the unified engine (a body kind beside Cosserat rods: Scene.compile with a
mixed scene) in results files: described under /rods like the discrete engine's, recorded by
record_to_file exactly as sim.run records them, checkpointed with their reference frames and
resumed bit for bit, read back and drawn by the pictures."""
import h5py
import numpy as np
import pytest

import softmech as sm
from softmech.resultsfile import load_results, record_to_file
from softmech.simulation import Simulation

N_DER, N_COSSERAT = 10, 8


def mixed_scene():
    """A clamped discrete rod "d" sagging beside a falling Cosserat rod "c", two worlds (the
    second discrete rod twice as stiff), position Verlet."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="d", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                            length=0.2, n_elems=N_DER, radius=2e-3, density=1200.0,
                            youngs_modulus=1e6, normal=(0.0, 0.0, 1.0))
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
    scene.add_cosserat_rod(name="c", start=(0.0, 0.1, 0.0), direction=(1.0, 0.0, 0.0),
                           normal=(0.0, 0.0, 1.0), length=0.2, n_elems=N_COSSERAT, radius=2e-3,
                           density=1200.0, youngs_modulus=1e6)
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    sim = scene.compile(dt=1e-5, scheme="verlet", worlds=2)
    sim.params["d.youngs_modulus"] = np.array([1e6, 2e6])
    return sim


FIELDS = ("d.positions", "d.velocities", "d.total_energy", "c.positions")
RUN = dict(duration=0.01, every=0.001, fields=FIELDS, checkpoint_every=0.003, flush_seconds=0.0)


@pytest.fixture(scope="module")
def plain():
    sim = mixed_scene()
    assert isinstance(sim, Simulation) and [r.name for r in sim.der_rods] == ["d"]
    return sim.run(RUN["duration"], record=sm.Every(RUN["every"], FIELDS))


def test_a_discrete_rod_is_described_and_recorded_as_sim_run_records_it(plain, tmp_path):
    path = tmp_path / "mixed.h5"
    out = record_to_file(mixed_scene(), path, **RUN)
    for key in FIELDS:
        np.testing.assert_array_equal(out[key], plain[key])
    # the two worlds' stiffnesses differ: the recording is per world, not one world copied
    sag = plain["d.positions"][:, -1, -1, 2]
    assert sag[0] < sag[1] < 0
    with h5py.File(path, "r") as f:
        g = f["rods/d"]
        assert (g.attrs["n_nodes"], g.attrs["n_elems"], bool(g.attrs["closed"])) == \
            (N_DER + 1, N_DER, False)
        np.testing.assert_array_equal(g["radius"][()], np.full((2, N_DER), 2e-3))
        np.testing.assert_allclose(g["rest_lengths"][()], np.full(N_DER, 0.02), rtol=1e-12)
        assert g["positions"].shape == (2, 11, N_DER + 1, 3)
        assert g["positions"].attrs["units"] == "m"
        # the checkpoint holds the kind's whole state, reference frames included
        assert {"twist", "twist_rates", "reference_a1", "reference_tangent",
                "reference_twist"} <= set(f["checkpoint/d"])
        assert f["checkpoint/d/reference_twist"].attrs["units"] == "rad"
    back = load_results(path)          # the layout checker accepts the file
    np.testing.assert_array_equal(back["d.positions"], plain["d.positions"])


def test_an_interrupted_recording_resumes_bit_for_bit(plain, tmp_path):
    path = tmp_path / "cut.h5"
    calls = []

    def interrupt(sim):
        calls.append(sim.time)
        if len(calls) == 6:                 # after sample 5; the checkpoint is at sample 3
            raise KeyboardInterrupt
        return np.zeros(sim.worlds)

    with pytest.raises(KeyboardInterrupt):
        record_to_file(mixed_scene(), path, recorders=[sm.Recorder("probe", interrupt, "1")],
                       **RUN)
    record_to_file(mixed_scene(), path, resume=True,
                   recorders=[sm.Recorder("probe", lambda s: np.zeros(s.worlds), "1")], **RUN)
    back = load_results(path)
    for key in FIELDS:
        np.testing.assert_array_equal(back[key], plain[key])


def test_the_pictures_draw_the_discrete_rod_from_the_file(tmp_path):
    from softmech.viz.geometry import RodBody
    from softmech.viz.source import bodies_at, read_results

    path = tmp_path / "drawn.h5"
    record_to_file(mixed_scene(), path, **RUN)
    data = read_results(path)
    drawn = {b.name: b for b in bodies_at(data, 10, world=1)}
    assert isinstance(drawn["d"], RodBody) and isinstance(drawn["c"], RodBody)
    np.testing.assert_array_equal(data.results["d.positions"][1, 10],
                                  load_results(path)["d.positions"][1, 10])
    assert data.radius["d"].shape == (2, N_DER) and not data.closed["d"]


MIXED_TOML = """schema_version = 1
[scene]
name = "mixed"
[run]
dt = 1e-05
duration = 0.004
scheme = "verlet"
[[bodies]]
kind = "der_rod"
name = "d"
start = [0, 0, 0]
direction = [1, 0, 0]
length = 0.2
n_elems = 10
normal = [0, 0, 1]
radius = 0.002
density = 1200.0
youngs_modulus = 1e6
[[rods]]
kind = "cosserat_rod"
name = "c"
start = [0, 0.1, 0]
direction = [1, 0, 0]
length = 0.2
n_elems = 8
normal = [0, 0, 1]
radius = 0.002
density = 1200.0
youngs_modulus = 1e6
[[boundary]]
type = "FixNodes"
name = "clamp"
body = "d"
nodes = [0, 1]
angles = [0]
[[environment]]
type = "Gravity"
"""


def test_softmech_run_of_a_mixed_scenario_file_records_and_draws_every_rod(tmp_path):
    # the report of a scene with discrete rods recorded only them before: the Cosserat rod of a
    # mixed scene was missing from results.h5 and from the pictures
    from softmech.cli import main

    scenario = tmp_path / "mixed.toml"
    scenario.write_text(MIXED_TOML)
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--output", str(out), "--quiet"]) == 0
    with h5py.File(out / "results.h5", "r") as f:
        assert {"positions", "com", "directors"} <= set(f["rods/c"])
        assert {"positions", "com"} <= set(f["rods/d"])
        assert f["rods/d/positions"].shape[2:] == (N_DER + 1, 3)
    assert (out / "mixed_tubes.mp4").stat().st_size > 0
