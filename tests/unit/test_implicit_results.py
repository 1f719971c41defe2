"""Discrete rods in results files: recorded with record_to_file like explicit rods (positions,
energies, checkpoints with the reference frames), resumed bit for bit, and their energies
split by kind add up to the bindings' total."""
import numpy as np
import pytest

import softmech as sm
from softmech.resultsfile import load_results, record_to_file


def swinging_rod(engine=None):
    """A soft discrete rod clamped at one end, swinging under gravity from an oblique start
    (on `engine`; None: the default)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0.3), length=0.2,
                            n_elems=12, radius=2e-3, density=1200.0, youngs_modulus=2e6)
    scene.add(sm.Gravity())
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    return scene.compile(dt=2e-3, engine=engine)


FIELDS = ("rod.positions", "rod.angles", "rod.total_energy", "rod.bending_energy")
RUN = dict(duration=0.1, every=0.01, fields=FIELDS, checkpoint_every=0.03, flush_seconds=0.0)


def test_energy_parts_add_up_to_the_elastic_energy():
    sim = swinging_rod("discrete")
    sim.run(0.05)
    e = sim.energies("rod")
    elastic = sum(bd.energy(0, sim.q[0]) for bd in sim.stepper.bindings if bd.body == "rod")
    parts = e["stretch_energy"] + e["bending_energy"] + e["twisting_energy"]
    assert parts[0] == pytest.approx(elastic, rel=1e-12)
    assert e["bending_energy"][0] > 0 and e["translational_energy"][0] > 0
    assert e["total_energy"][0] == pytest.approx(parts[0] + e["translational_energy"][0]
                                                 + e["rotational_energy"][0], rel=1e-12)


def test_both_engines_report_the_same_energies():
    # Simulation.energies (the unified engine's kind: softmech.diagnostics.der_diagnostics)
    # against ImplicitSimulation.energies (the bindings' energy_parts), each after its own run
    # of the same swing (implicit Euler, the same dt): the same formulas (ref. 004 eqs. 10, 14,
    # 16); the two Newton solutions differ within the solvers' tolerances (positions ~1e-9 m
    # apart), so tolerance 1e-6 relative to the total energy (measured 3e-8)
    runs = {}
    for engine in ("discrete", "unified"):
        sim = swinging_rod(engine)
        sim.run(0.05)
        runs[engine] = sim.energies("rod")
    expected, got = runs["discrete"], runs["unified"]
    assert got.keys() == expected.keys()
    assert expected["bending_energy"][0] > 0 and expected["translational_energy"][0] > 0
    scale = abs(expected["total_energy"][0])
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=0, atol=1e-6 * scale, err_msg=key)


def test_record_to_file_and_resume_bit_for_bit(tmp_path):
    plain = swinging_rod().run(0.1, record=sm.Every(0.01, FIELDS))
    whole = tmp_path / "whole.h5"
    out = record_to_file(swinging_rod(), whole, **RUN)
    for key in FIELDS:
        np.testing.assert_array_equal(out[key], plain[key])
    # interrupted after sample 5 (Ctrl-C inside a recorder), resumed from the checkpoint at 3
    path = tmp_path / "cut.h5"
    calls = []

    def interrupt(sim):
        calls.append(sim.time)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return np.zeros(sim.worlds)

    with pytest.raises(KeyboardInterrupt):
        record_to_file(swinging_rod(), path, recorders=[sm.Recorder("probe", interrupt, "1")],
                       **RUN)
    record_to_file(swinging_rod(), path, recorders=[sm.Recorder("probe", lambda s: np.zeros(1), "1")],
                   resume=True, **RUN)
    back = load_results(path)
    for key in FIELDS:
        np.testing.assert_array_equal(back[key], plain[key])


def test_shells_and_rod_networks_are_written_read_and_drawn(tmp_path):
    # A sheet (two triangles) hanging from a corner, and a three-armed discrete rod network:
    # results.h5 holds /shells/<name> with faces or edges, the pictures draw the sheet as a
    # mesh at its recorded node positions and the network edge by edge.
    import sys
    from pathlib import Path

    import h5py

    from softmech.viz.solids import SolidBody
    from softmech.viz.source import bodies_at, read_results
    from softmech.viz.viewer import view_figure
    sys.path.insert(0, str(Path(__file__).parent))
    from implicit_fixture import SpringSheet

    scene = sm.Scene()
    square = np.array([[0, 0, 0], [0.1, 0, 0], [0.1, 0.1, 0], [0, 0.1, 0]], dtype=float)
    scene.implicit_bodies.append(SpringSheet("sheet", square, [[0, 1, 2], [0, 2, 3]], 0.01, 50.0))
    star = np.array([[0.3, 0, 0], [0.4, 0, 0], [0.3, 0.1, 0], [0.2, 0, 0]], dtype=float)
    scene.add_der_rod(name="star", centerline=star, edges=[[0, 1], [0, 2], [0, 3]], radius=2e-3,
                      density=1000.0, youngs_modulus=1e6)
    scene.add(sm.FixNodes("sheet", [0]))
    scene.add(sm.FixNodes("star", [1, 2, 3], name="star_ends"))
    scene.add(sm.Gravity())
    sim = scene.compile(dt=1e-2)
    assert [b.name for b in sim.shells] == ["sheet", "star"] and sim.rods == []
    path = tmp_path / "s.h5"
    record_to_file(sim, path, duration=0.1, every=0.05,
                   fields=("sheet.positions", "star.positions"))
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["shells/sheet/faces"][()], [[0, 1, 2], [0, 2, 3]])
        assert f["shells/star/edges"].shape == (3, 2)
        assert f["shells/sheet/positions"].shape == (1, 3, 4, 3)
    data = read_results(path)
    bodies = bodies_at(data, 2)
    drawn = {b.name: b for b in bodies}
    sheet = drawn["sheet"]
    assert isinstance(sheet, SolidBody)
    np.testing.assert_array_equal(sheet.mesh()[0], data.results["sheet.positions"][0, 2])
    assert sum(b.name == "star" for b in bodies) == 3             # one tube per edge
    fig, _ = view_figure(data)
    assert "sheet" in {t.name for t in fig.data if t.type == "mesh3d"}


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_a_shells_elastic_energies_are_recorded_by_kind(bending):
    """A shell's stretching and bending bindings report their energies as the shell's
    stretch_energy and bending_energy (they were recorded as 0 before 2026-11-29): they add up
    to the bindings' own energies, a pressed plate stores both, and the total is their sum with
    the kinetic energy."""
    from shell_fixture import pressed_plate

    sim = pressed_plate(200.0, bending).compile(dt=1e-3, engine="discrete")
    sim.run(0.01)
    e = sim.energies("plate")
    elastic = sum(bd.energy(0, sim.q[0]) for bd in sim.stepper.bindings if bd.body == "plate")
    assert e["stretch_energy"][0] + e["bending_energy"][0] == pytest.approx(elastic, rel=1e-12)
    assert e["stretch_energy"][0] > 0 and e["bending_energy"][0] > 0
    assert e["twisting_energy"][0] == 0 and e["shear_energy"][0] == 0
    assert e["total_energy"][0] == pytest.approx(
        elastic + e["translational_energy"][0] + e["rotational_energy"][0], rel=1e-12)


def test_a_state_read_from_the_discrete_engine_sets_the_unified_one():
    # the discrete engine names a rod's edge twists "angles" and their rates
    # "angular_velocities" (softmech.der_packing.DISCRETE_ENGINE_NAMES); the unified engine takes
    # either name, and refuses both at once
    discrete, unified = swinging_rod("discrete"), swinging_rod("unified")
    discrete.run(0.02)
    state = discrete.get_state("rod")
    state["angles"] = state["angles"] + 0.01 * np.arange(12)       # (a twist to carry over)
    unified.set_state("rod", **state)
    got = unified.get_state("rod")
    for key, name in (("positions", "positions"), ("velocities", "velocities"),
                      ("angles", "twist"), ("angular_velocities", "twist_rates")):
        np.testing.assert_array_equal(got[name], state[key], err_msg=key)
    with pytest.raises(ValueError, match="'angles' and 'twist' of discrete rod 'rod' are the "
                                         "same: give one"):
        unified.set_state("rod", angles=state["angles"], twist=state["angles"])
