"""Scenario files: builder -> file -> builder gives the same model, for the built-in scenes and
for a scene that uses every builder and term type, with arrays in side files."""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies.axisym_shell import cylinder_profile, meridian_rod
from softmech.scenefile import (builtin_scenario, dumps, load_scenario, loads_scenario,
                                save_scenario)
from softmech.scenefile.schema import TERM_TYPES, RunSettings, Scenario


def assert_same_model(a, b):
    """Two scenarios compile to identical engine models, parameters and initial states, and run
    to identical states (bit for bit)."""
    sa, sb = a.compile(), b.compile()
    assert sa.params.keys() == sb.params.keys()
    for k in sa.params:
        np.testing.assert_array_equal(sa.params[k], sb.params[k], err_msg=k)
    ea, eb = sa._engine(), sb._engine()
    assert [(c.name, c.kernel) for c in ea.calls] == [(c.name, c.kernel) for c in eb.calls]
    for ma, mb in zip(ea.arg_tuples(), eb.arg_tuples()):
        assert type(ma) is type(mb)
        for field in ma._fields:
            np.testing.assert_array_equal(getattr(ma, field), getattr(mb, field), err_msg=field)
    for x, y in zip(sa._state, sb._state):
        np.testing.assert_array_equal(x, y)
    sa.step(50)
    sb.step(50)
    for x, y in zip(sa._state, sb._state):
        np.testing.assert_array_equal(x, y)
    assert (a.run, a.template, a.report, a.name) == (b.run, b.template, b.report, b.name)


@pytest.mark.parametrize("name", ["snake", "cantilever", "plectoneme", "elbow",
                                  "walker", "muscular_snake", "poseidron", "quadropus",
                                  "monopus", "torque_swimmer", "wing"])
def test_builtin_scene_round_trips_through_a_file(name, tmp_path):
    n_elems = {"elbow": 4, "wing": 2}.get(name, 12)
    extra = {"wing": {"barbs": 152}}.get(name, {})                       # the smallest wing
    original = builtin_scenario(name, n_elems=n_elems, **extra)
    files = save_scenario(original, tmp_path / f"{name}.toml")
    assert files[0] == str(tmp_path / f"{name}.toml")
    # large arrays (the wing's: each rachis's >= 32 tapered elements): a side file
    assert len(files) == 1 or name in ("elbow", "walker", "poseidron", "quadropus",
                                       "monopus", "wing")
    loaded = load_scenario(files[0])
    assert_same_model(original, loaded)
    assert loaded.info() == original.info()


def everything_scene():
    """A scene with every rod kind and term type, per-element arrays and a curved centreline."""
    scene = sm.Scene()
    n = 30
    s = np.linspace(0.0, 1.0, n + 1)
    centerline = np.stack([s, 0.1 * np.sin(np.pi * s), np.zeros_like(s)], axis=1)
    arm = scene.add_cosserat_rod(name="arm", centerline=centerline, normal=(0, 0, 1),
                                 radius=np.linspace(0.02, 0.01, n), density=1200.0,
                                 youngs_modulus=np.full(n, 2e6), shear_modulus=7e5,
                                 rest_curvature="initial", law="hyperelastic")
    scene.add_cosserat_rod(name="beam", start=(0, 1, 0), direction=(1, 0, 0), length=0.5,
                           n_elems=8, normal=(0, 0, 1), radius=0.01, density=1000.0,
                           youngs_modulus=1e6, poisson_ratio=0.4,
                           rest_lengths=np.linspace(0.06, 0.065, 8))   # not the chords
    scene.add_cosserat_ring(name="ring", center=(0, -1, 0.2), ring_radius=0.2, n_elems=12,
                            radius=0.01, density=1000.0, youngs_modulus=1e6)
    scene.add(sm.Gravity((0, 0, -9.81)))
    scene.add(sm.Clamp(arm, "first", frame="element"))
    scene.add(sm.PrescribedMotion("beam", (0.01, 0, 0), end="first", frequency=2.0,
                                  hold_frame=True, name="shaker"))
    scene.add(sm.Pin("beam", "last"))
    scene.add(sm.EndLoad(arm, force=(0, 0, -0.1), couple=(0.01, 0, 0), ramp_time=0.2, name="tip"))
    scene.add(sm.UniformLoad("ring", force_per_length=(0, 0.1, 0), frequency=1.0, name="push"))
    scene.add(sm.LinearDamping(arm, 0.5))
    scene.add(sm.LinearDamping("ring", 0.5, rotational_coefficient=1e-3, name="ring_damping"))
    scene.add(sm.KelvinVoigt("beam", 1e-4))
    scene.add(sm.RelativeDamping(["beam", "ring"], 0.3, name="relative"))
    scene.add(sm.ViscousDrag("ring", normal=0.2, tangential=0.1))
    scene.add(sm.SlenderBodyDrag("beam", 1.2e-3, form="gazzola2018"))
    scene.add(sm.Buoyancy(998.0))
    scene.add(sm.QuadraticDrag(arm, 2.5, 0.01, fluid_density=998.0, binormal=1.5))
    scene.add(sm.AddedMass("beam", 1.5))
    scene.add(sm.RotaryInertiaScaling("beam", 3.0))
    scene.add(sm.ContractileCell(arm, 0.3, 0.2, 0.05, frequency=1.0, side="-d2", name="cell"))
    scene.add(sm.GroundContact("ring", friction=sm.IsotropicFriction(0.4, 0.6, rolling=False),
                               plane_point=(0, 0, 0.0)))
    scene.add(sm.GroundContact("beam", stiffness=50.0, damping=0.1, surface=True,
                               friction=sm.IsotropicFriction(0.4, rolling=False,
                                                             regularization="mollified"),
                               plane_normal=(0, -1, 0), plane_point=(0, 1.5, 0), name="wall"))
    scene.add(sm.MuscleTorqueWave(arm, (0, 1e-3, 2e-3, 1e-3, 0), wavelength=0.8, period=1.0))
    scene.add(sm.MusclePairs("beam", [(10, 30, 5.0, 0.0), (50, 30, 5.0, 0.5)], frequency=2.0,
                             name="pairs"))
    scene.add(sm.ActiveMuscle(arm, 1e3, activation=lambda t: min(t / 0.005, 1.0),
                              times=np.linspace(0.0, 0.01, 5), damping=0.5, name="arm_muscle"))
    scene.add(sm.ActiveMuscle.walker("beam", 2e3, active_fraction=0.5, frequency=2.0,
                                     name="beam_muscle"))
    scene.add(sm.RodContact(("arm", "beam"), stiffness=1e3, damping=0.1,
                            friction=sm.CoulombFriction(static=0.5, kinetic=0.4)))
    scene.add(sm.RodContact(["ring"], stiffness=5e2, self_contact=True, name="ring_self"))
    # every rigid-body kind, their terms and every joint type
    tip = arm.positions[-1]
    bob = scene.add_sphere(name="bob", position=tip + (0.05, 0, 0), radius=0.05, density=500.0,
                           velocity=(0.1, 0, 0))
    scene.add_cylinder(name="drum", position=(2, 1, 0.05), direction=(0, 1, 0), normal=(1, 0, 0),
                       radius=0.05, length=0.2, density=800.0)
    scene.add_box(name="crate", position=tip + (0.15, 0, 0), lengths=(0.1, 0.2, 0.1), mass=1.5)
    vertices = np.array([[x, y, z] for x in (-0.1, 0.1) for y in (-0.1, 0.1) for z in (-0.1, 0.1)])
    faces = np.array([[0, 1, 2], [1, 3, 2], [4, 6, 5], [5, 6, 7], [0, 4, 1], [1, 4, 5],
                      [2, 3, 6], [3, 7, 6], [0, 2, 4], [2, 6, 4], [1, 5, 3], [3, 5, 7]])
    scene.add_rigid_body(name="rock", position=(3, 0, 0.5), mass=2.0, vertices=vertices,
                         faces=faces, inertia=[[0.02, 0.001, 0], [0.001, 0.03, 0], [0, 0, 0.04]],
                         fixed=True)
    scene.add(sm.EndLoad(bob, force=(0.1, 0, 0), couple=(0, 0, 0.01), name="bob_push"))
    scene.add(sm.LinearDamping("crate", 0.2, rotational_coefficient=0.01, name="rigid_damping"))
    scene.add(sm.HoldMotion("crate", translation=(False, False, True), name="crate_rail"))
    scene.add(sm.QuadraticDrag(bob, coefficient=0.01, name="rigid_quadratic_drag"))
    scene.add(sm.AddedMass("drum", 0.8, fluid_density=998.0, name="rigid_added_mass"))
    scene.add(sm.GroundContact("drum", stiffness=1e4, damping=10.0,
                               friction=sm.IsotropicFriction(0.3, slip_velocity=1e-4),
                               name="rigid_ground_contact"))
    scene.add(sm.SphericalJoint((arm, "last"), (bob, "attach"), stiffness=1e3))
    scene.add(sm.FixedJoint(("bob", (0.05, 0, 0)), ("crate", "attach"), stiffness=1e3,
                            rotational_stiffness=1.0, rest_axis=(0, 1, 0), rest_angle=0.3))
    scene.add(sm.HingeJoint(("ring", 3), ("rock", "attach"), axis=(0, 0, 1), stiffness=1e3,
                            rotational_stiffness=1e-3, damping=0.1, limits=(-0.4, 0.6),
                            limit_stiffness=1e-2))
    scene.add(sm.RodBodyContact(["beam"], ["drum", "crate"], stiffness=1e3, damping=0.1,
                                friction=sm.CoulombFriction(static=0.5, kinetic=0.4)))
    scene.add(sm.DrivenEnd("drum", times=[0.0, 0.5, 1.0], rotation=[[0, 0, 0], [0, 0.5, 0], [0, 2, 0]],
                           slide=(0, 0, 1), name="drum_drive"))
    scene.add(sm.DrivenEnd(arm, "last", times=[0.0, 1.0], displacement=[[0, 0, 0], [0, 0, 0.01]],
                           name="arm_drive"))
    # an axisymmetric mantle on the bob, with its jet, drag and added mass
    r, z = cylinder_profile(0.05, 0.1, 6)
    mantle = scene.add_cosserat_rod(**meridian_rod("mantle", r, -0.06 - z, thickness=2e-3,
                                                   density=1000.0, youngs_modulus=1e5,
                                                   axis=(1, 0, 0), origin=tip + (0.05, 0, 0),
                                                   radial=(0, 0, 1)))
    scene.add(sm.AxisymmetricShell(mantle, bob, thickness=2e-3, youngs_modulus=1e5,
                                   viscosity=0.1, axis=(1, 0, 0), origin=tip + (0.05, 0, 0),
                                   times=[0.0, 1.0], pressure=[0.0, 5.0], actuation=-1.0,
                                   actuation_interval=(0.0, 0.05), clamp_stiffness=1e3))
    scene.add(sm.PulsedJet(mantle, outflow_area=5e-4, inflow_area=1e-3, flow_coefficient=0.8))
    scene.add(sm.MantleDrag(mantle, 1.7, reference_area=0.01))
    scene.add(sm.MantleAddedMass(mantle, 1.1))
    scene.add(sm.RecruitedBending(arm, 1e-3, start=0.1, duration=0.5, axis="d1", body=bob))
    return Scenario(scene=scene, run=RunSettings(dt=1e-5, duration=0.01, worlds=3, scheme="pefrl"),
                    name="everything", record=sm.Every(0.001, ("com", "arm.positions")))


def test_every_builder_round_trips_with_side_arrays(tmp_path):
    original = everything_scene()
    used = {type(t).__name__ for t in original.scene.terms}
    # every term type (those of discrete rods and shells only, implicit_only, are covered by
    # the implicit scenes' own round trip)
    assert used == {n for n, c in TERM_TYPES.items() if not getattr(c, "implicit_only", False)}
    files = save_scenario(original, tmp_path / "everything.toml")
    assert files[1].endswith("everything.arrays.npz")            # centreline and radius
    text = open(files[0]).read()
    assert 'file = "everything.arrays.npz"' in text
    loaded = load_scenario(files[0])
    assert_same_model(original, loaded)
    assert loaded.record == original.record
    # the self-contained text (every array inline) loads to the same model too
    assert_same_model(original, loads_scenario(dumps(original)))


def test_an_edited_file_runs_as_edited(tmp_path):
    path = tmp_path / "snake.toml"
    save_scenario(builtin_scenario("snake", n_elems=10), path)
    text = path.read_text().replace("n_elems = 10", "n_elems = 16").replace(
        "period = 1.0  # [s]", "period = 2.0  # [s]")
    path.write_text(text)
    loaded = load_scenario(path)
    info = loaded.info()
    assert (info.n_elems, info.period) == (16, 2.0)     # the report follows the scene
    assert loaded.compile().get_state()["positions"].shape == (1, 17, 3)


def test_csv_and_npy_side_files(tmp_path):
    n = 6
    np.save(tmp_path / "radius.npy", np.linspace(0.02, 0.01, n))
    x = np.linspace(0, 1, n + 1)
    np.savetxt(tmp_path / "line.csv", np.stack([x, 0 * x, 0 * x], 1), delimiter=",",
               header="x, y, z [m]")
    (tmp_path / "s.toml").write_text(
        'schema_version = 1\n[run]\ndt = 1e-5\nduration = 0.0\n[[rods]]\nname = "r"\n'
        'centerline = { file = "line.csv" }\nradius = { file = "radius.npy" }\n'
        'normal = [0, 0, 1]\ndensity = 1000\nyoungs_modulus = 1e6\n')
    rod = load_scenario(tmp_path / "s.toml").scene.rods[0]
    np.testing.assert_array_equal(rod.radius, np.linspace(0.02, 0.01, n))
    np.testing.assert_allclose(rod.positions[:, 0], x)


def test_mesh_side_files(tmp_path):
    """A centreline read from the vertices of an .obj; an .stl's faces through key = "faces"."""
    import trimesh

    from softmech.scenefile.values import ScenarioError, load_side_array

    x = np.linspace(0.0, 0.5, 6)
    (tmp_path / "line.obj").write_text("".join(f"v {v} 0 0.1\n" for v in x))
    (tmp_path / "s.toml").write_text(
        'schema_version = 1\n[run]\ndt = 1e-5\nduration = 0.0\n[[rods]]\nname = "r"\n'
        'centerline = { file = "line.obj" }\nnormal = [0, 0, 1]\nradius = 0.01\n'
        'density = 1000\nyoungs_modulus = 1e6\n')
    rod = load_scenario(tmp_path / "s.toml").scene.rods[0]
    np.testing.assert_allclose(rod.positions[:, 0], x)
    trimesh.creation.box(extents=(1, 2, 3)).export(tmp_path / "box.stl")
    faces = load_side_array({"file": "box.stl", "key": "faces"}, str(tmp_path), "here")
    vertices = load_side_array({"file": "box.stl"}, str(tmp_path), "here")
    assert faces.shape == (12, 3) and vertices.shape[1] == 3
    np.testing.assert_allclose(vertices.max(axis=0) - vertices.min(axis=0), [1, 2, 3])
    with pytest.raises(ScenarioError, match="key = 'normals' is not allowed.*'vertices' or 'faces'"):
        load_side_array({"file": "box.stl", "key": "normals"}, str(tmp_path), "here")
