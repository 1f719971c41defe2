"""Scenes of discrete rods (and their terms) in scenario files: written and read back, they run
bit for bit like the scene they were written from; every implicit-only term type is covered."""
import numpy as np
import pytest

import softmech as sm
from softmech.scenefile import load_scenario, save_scenario
from softmech.scenefile.schema import RunSettings, Scenario
from softmech.terms import TERMS

SHELL_ONLY = {"ShellPressure", "ShellDrag", "RodShellJoint"}
"""Implicit-only terms that need a shell (covered by the shells' own round trip)."""
PYTHON_ONLY = {"NodeUserForce"}
"""Terms holding a Python function: a scenario file cannot describe them (the writer refuses)."""
PLANAR_ONLY = {"Planar"}
"""Terms of planar scenes (der_scene is 3D): covered by the planar round trip below."""


def der_scene():
    scene = sm.Scene()
    common = dict(radius=2e-3, density=1200.0, youngs_modulus=2e6)
    arm = scene.add_der_rod(name="arm", start=(0, 0, 0.05), direction=(1, 0, 0), length=0.2,
                            n_elems=8, natural_curvature="initial", **common)
    scene.add_der_rod(name="tail", start=(0.2, 0, 0.05), direction=(0, 1, 0), length=0.1,
                      n_elems=4, rest_lengths=[0.024, 0.025, 0.026, 0.025], **common)
    scene.add(sm.JoinNodes(arm, 8, "tail", 0))
    scene.add(sm.Gravity())
    scene.add(sm.Buoyancy(300.0))
    scene.add(sm.FixNodes(arm, nodes=[0, 1], angles=[0]))
    scene.add(sm.NodeForce("tail", 4, (0.0, 0.0, 0.01), name="tip"))
    scene.add(sm.GroundContact("tail", stiffness=50.0, distance=2e-3,
                               friction=sm.IsotropicFriction(0.3, slip_velocity=1e-3)))
    scene.add(sm.LinearDamping(arm, 0.05, name="viscous_friction"))
    scene.add(sm.EdgeContact([arm, "tail"], stiffness=50.0, distance=4e-3,
                             friction=sm.IsotropicFriction(0.2, 0.3, slip_velocity=1e-3)))
    scene.add(sm.PointMass("tail", 4, 0.01, name="weight"))
    scene.add(sm.ParameterWave("arm.natural_twist", 0.5, 2.0, phase=np.linspace(0, 1, 7),
                               ramp_time=0.01, name="twister"))
    return Scenario(scene=scene, run=RunSettings(dt=5e-3, duration=0.05), name="der",
                    record=sm.Every(0.01, ("arm.positions",)))


def test_a_discrete_rod_scene_round_trips_and_runs_bit_for_bit(tmp_path):
    original = der_scene()
    used = {type(t).__name__ for t in original.scene.terms}
    implicit_only = {n for n, c in TERMS.items() if getattr(c, "implicit_only", False)}
    # and the terms of every body kind that act on discrete rods too
    assert used == implicit_only - SHELL_ONLY - PYTHON_ONLY - PLANAR_ONLY | {
        "Gravity", "Buoyancy", "GroundContact", "LinearDamping"}
    files = save_scenario(original, tmp_path / "der.toml")
    text = open(files[0]).read()
    assert 'kind = "der_rod"' in text and "scheme" not in text      # the bodies' default
    back = load_scenario(files[0])
    a = original.compile().run(0.05, record=original.record)
    b = back.compile().run(0.05, record=back.record)
    np.testing.assert_array_equal(a["arm.positions"], b["arm.positions"])


def shell_scene():
    """A sheet and a flap (shells), a mast (discrete rod) joined to the sheet, with the
    shell-only terms (pressure, drag, rod-shell joint); also a base scene of the scenario-file
    fuzzer (tests/reliability/fuzz_cases.py)."""
    from softmech.bodies import meshes

    scene = sm.Scene()
    sheet = scene.add_shell(name="sheet", mesh=meshes.rectangle(0.1, 0.05, 2), thickness=1e-3,
                            youngs_modulus=1e6, density=1000.0, bending="midedge")
    scene.add_shell(name="flap", vertices=[[0, 0.2, 0], [0.05, 0.2, 0], [0, 0.25, 0]],
                    triangles=[[0, 1, 2]], thickness=1e-3, youngs_modulus=1e6, density=1000.0)
    scene.add(sm.Gravity())
    scene.add(sm.FixNodes(sheet, nodes=[0, 1]))
    scene.add(sm.FixNodes("flap", nodes=[0, 1], name="flap_fix"))
    scene.add(sm.ShellPressure(sheet, 5.0))
    scene.add(sm.ShellDrag("flap", 1.2))
    mast = scene.add_der_rod(name="mast", centerline=sheet.vertices[3] + np.outer(
        np.linspace(0.0, 0.04, 4), (0.0, 0.0, 1.0)), radius=1e-3, density=1000.0,
        youngs_modulus=1e6)
    scene.add(sm.RodShellJoint(mast, 0, sheet, 3, stiffness=2.0, name="mast_joint"))
    return Scenario(scene=scene, run=RunSettings(dt=5e-3, duration=0.02), name="sheet")


@pytest.mark.parametrize("engine", ["discrete", "unified"])
def test_a_shell_scene_round_trips_and_runs_bit_for_bit(tmp_path, engine):
    """On both engines; the same sm.Every on both: a mid-edge shell's angles, and a discrete
    rod's twists under the discrete engine's name `angles` (the unified engine's `twist`)."""
    original = shell_scene()
    assert {type(t).__name__ for t in original.scene.terms} >= SHELL_ONLY
    back = load_scenario(save_scenario(original, tmp_path / "sheet.toml")[0])
    record = sm.Every(0.01, ("sheet.positions", "sheet.angles", "flap.positions",
                             "mast.positions", "mast.angles"))
    sim = original.compile(engine=engine)
    a = sim.run(0.02, record=record)
    b = back.compile(engine=engine).run(0.02, record=record)
    for key in record.fields:
        np.testing.assert_array_equal(a[key], b[key])
    state = {name: sim.get_state(name) for name in ("sheet", "mast")}
    twist = "angles" if engine == "discrete" else "twist"
    np.testing.assert_array_equal(a["sheet.angles"][:, -1], state["sheet"]["angles"])
    np.testing.assert_array_equal(a["mast.angles"][:, -1], state["mast"][twist])
    assert a["sheet.angles"].shape == (1, 3, 11) and a["mast.angles"].shape == (1, 3, 3)


def test_a_planar_scene_round_trips_and_runs_bit_for_bit(tmp_path):
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0, 0.1, 0), direction=(1, 0, 1), length=0.2,
                            n_elems=6, radius=2e-3, density=1200.0, youngs_modulus=2e6)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    scene.add(sm.Gravity())
    scene.add(sm.Planar("y", tolerance=1e-12, name="flat"))
    original = Scenario(scene=scene, run=RunSettings(dt=5e-3, duration=0.02), name="planar")
    assert {type(t).__name__ for t in scene.terms} >= PLANAR_ONLY
    back = load_scenario(save_scenario(original, tmp_path / "planar.toml")[0])
    record = sm.Every(0.01, ("rod.positions",))
    a = original.compile().run(0.02, record=record)
    b = back.compile().run(0.02, record=record)
    np.testing.assert_array_equal(a["rod.positions"], b["rod.positions"])
    assert np.ptp(a["rod.positions"][..., 2]) > 0


def test_a_python_function_cannot_go_into_a_scenario_file(tmp_path):
    scenario = der_scene()
    scenario.scene.add(sm.NodeUserForce("arm", lambda t, x, v: np.zeros_like(x)))
    with pytest.raises(ValueError, match="user_force"):
        save_scenario(scenario, tmp_path / "f.toml")


def test_an_explicit_scheme_for_a_discrete_rod_is_refused():
    scenario = der_scene()
    scenario.run.scheme = "verlet"
    with pytest.raises(ValueError, match="scheme = 'verlet' is not allowed"):
        scenario.compile()


@pytest.mark.parametrize("name", ["falling_rod", "pneunet", "manta", "parachute", "swimmer"])
def test_builtin_discrete_scenes_round_trip_through_a_file(name, tmp_path):
    from softmech.scenefile import builtin_scenario

    original = builtin_scenario(name, n_elems=6, duration=0.02)
    files = save_scenario(original, tmp_path / f"{name}.toml")
    back = load_scenario(files[0])
    assert back.info() == original.info()
    record = sm.Every(0.01, tuple(f"{b.name}.positions" for b in original.scene.implicit_bodies))
    a = original.compile().run(0.02, record=record)
    b = back.compile().run(0.02, record=record)
    for key in record.fields:
        np.testing.assert_array_equal(a[key], b[key])


def test_the_engine_of_a_scenario_file_round_trips_and_is_checked(tmp_path):
    """[run] engine = "unified" puts the file's discrete rods and shells on the unified engine
    (a Simulation, not an ImplicitSimulation), survives a save and a load, and a bad value
    names the field and the allowed ones."""
    from softmech.simulation import Simulation

    original = builtin_scenario_6("manta")
    original.run.engine = "unified"
    path = save_scenario(original, tmp_path / "manta.toml")[0]
    assert 'engine = "unified"' in open(path).read()
    back = load_scenario(path)
    assert back.run.engine == "unified" and isinstance(back.compile(), Simulation)
    text = open(path).read().replace('engine = "unified"', 'engine = "fast"')
    (tmp_path / "bad.toml").write_text(text)
    with pytest.raises(ValueError, match=r"engine = 'fast' is not allowed.*discrete.*unified"):
        load_scenario(tmp_path / "bad.toml")


def builtin_scenario_6(name):
    from softmech.scenefile import builtin_scenario
    return builtin_scenario(name, n_elems=6, duration=0.02)


def test_softmech_run_takes_the_engine(tmp_path):
    """`softmech run manta --engine unified` runs the built-in manta on the unified engine and
    writes its results, plots and video as the discrete engine's run does; the engine is in
    the scene file stored with the results (so a --resume with another engine is refused as
    another scene)."""
    import h5py

    from softmech.cli import main

    out = tmp_path / "manta"
    assert main(["run", "manta", "--engine", "unified", "--duration", "0.03", "--output",
                 str(out), "--quiet"]) == 0
    assert {"results.h5", "com.png", "manta_tubes.mp4"} <= set(p.name for p in out.iterdir())
    with h5py.File(out / "results.h5", "r") as f:
        scene_toml = f["scene_toml"][()]
    text = scene_toml.decode() if isinstance(scene_toml, bytes) else str(scene_toml)
    assert 'engine = "unified"' in text
