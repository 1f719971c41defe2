"""One term per physical idea (issue 27): EndLoad, LinearDamping, QuadraticDrag, AddedMass and
GroundContact act on every body kind they have a part for (softmech.terms.base.BodyTerm); the
kind is found when the term is added to a scene and picks its parameters. Older scenario files'
per-kind types (RigidDamping, RigidQuadraticDrag, ...) are read as the unified terms and written
with their names. (Their results are the per-kind kernels' own: the physics tests of each kind
run the unified terms, e.g. tests/validation/test_fluids.py, test_rigid_bodies.py.)"""
import numpy as np
import pytest

import softmech as sm
from softmech.scenefile import dumps, loads_scenario
from softmech.terms import TERMS


def mixed_scene():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0.03), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=0.5, n_elems=6, radius=0.02, density=1100.0,
                                 youngs_modulus=1e5, shear_modulus=1e5 / 3)
    ball = scene.add_sphere(name="ball", position=(1.0, 0, 0.2), radius=0.05, density=1500.0)
    return scene, rod, ball


def test_no_per_kind_copies_of_a_term():
    assert not [name for name in TERMS if name.startswith(("Smooth", "Rigid"))
                and name[5 if name.startswith("Rigid") else 6:] in TERMS]
    for gone in ("RigidLoad", "RigidDamping", "RigidQuadraticDrag", "RigidAddedMass", "RigidGroundContact",
                 "SmoothGroundContact", "ViscousFriction", "BodyTerm"):
        assert gone not in TERMS and not hasattr(sm, gone)


def test_the_kind_picks_the_parameters():
    scene, rod, ball = mixed_scene()
    terms = [scene.add(t) for t in (
        sm.QuadraticDrag(rod), sm.QuadraticDrag("ball", coefficient=0.02, name="ball_drag"),
        sm.AddedMass(rod), sm.AddedMass(ball, name="ball_mass"),
        sm.LinearDamping(rod, 0.1), sm.LinearDamping("ball", 0.3, name="ball_damping"),
        sm.GroundContact(rod), sm.GroundContact(ball, stiffness=1e4, name="ball_ground"),
        sm.EndLoad(rod, (1.0, 0, 0)), sm.EndLoad(ball, couple=(0, 0, 1.0), name="ball_load"))]
    assert [t.kind for t in terms] == ["cosserat_rod", "rigid_body"] * 5
    assert (terms[8].end, terms[9].end) == ("last", None)
    assert sorted(terms[0].parameters()) == ["binormal", "fluid_density", "normal", "tangential"]
    assert terms[0].normal == terms[0].binormal == 2.5 and terms[0].tangential == 0.01
    assert sorted(terms[1].parameters()) == ["coefficient", "fluid_density"]
    assert (terms[2].coefficient, terms[3].coefficient) == (1.0, 0.5)     # potential flow
    assert sorted(terms[4].parameters()) == ["coefficient"]              # gamma I / A default
    assert terms[5].parameters()["rotational_coefficient"][0] == 0.0
    assert sorted(terms[7].parameters()) == ["damping", "kinetic", "slip_velocity", "static",
                                             "stiffness"]
    assert terms[7].slip_velocity == 1e-4 and terms[7].damping == 0.0
    assert (terms[0].rod, terms[1].body) == ("rod", "ball")              # what the engines read


@pytest.mark.parametrize("make,message", [
    (lambda: sm.QuadraticDrag("ball", name="x"), r"x.coefficient is missing"),
    (lambda: sm.QuadraticDrag("ball", 2.0, coefficient=1.0, name="x"),
     r"x.normal = 2.0 is not allowed on rigid body 'ball'"),
    (lambda: sm.QuadraticDrag("rod", coefficient=1.0, name="x"),
     r"x.coefficient = 1.0 is not allowed on rod 'rod'"),
    (lambda: sm.GroundContact("ball", name="x"), r"x.stiffness is missing"),
    (lambda: sm.GroundContact("ball", stiffness=1.0, surface_tolerance=1e-3, name="x"),
     r"x.surface_tolerance = 0.001 is not allowed on a rigid body"),
    (lambda: sm.GroundContact("rod", distance=0.1, name="x"),
     r"x.distance = 0.1 is not allowed on a Cosserat rod"),
    (lambda: sm.GroundContact("ball", stiffness=1.0, name="x",
                              friction=sm.AnisotropicFriction(1.0, 2.0, 3.0)),
     r"is not allowed on a rigid body: its friction is isotropic"),
    (lambda: sm.EndLoad("ball", end="first", name="x"),
     r"x.end = 'first' is not allowed on rigid body 'ball'"),
    (lambda: sm.LinearDamping("nowhere", 1.0, name="x"),
     r"x.body = 'nowhere' is not allowed: no such body in the scene"),
    (lambda: sm.AddedMass(3.0, name="x"), r"x.body = 3.0 is not allowed: must be a body")])
def test_a_wrong_kind_or_argument_names_the_field(make, message):
    scene, _, _ = mixed_scene()
    with pytest.raises(ValueError, match=message):
        scene.add(make())


def test_a_boolean_is_not_a_number():
    with pytest.raises(ValueError, match="ground.stiffness = True is not allowed: must be a number"):
        sm.GroundContact("rod", stiffness=True)


OLD_FILE = """schema_version = 1
[run]
dt = 1e-5
duration = 1e-3

[[rods]]
name = "rod"
start = [0.0, 0.0, 0.03]
direction = [1.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
length = 0.5
n_elems = 6
radius = 0.02
density = 1100.0
youngs_modulus = 1e5
shear_modulus = 3e4

[[bodies]]
kind = "sphere"
name = "ball"
position = [1.0, 0.0, 0.2]
radius = 0.05
density = 1500.0

[[environment]]
type = "RigidAddedMass"
body = "ball"

[[loads]]
type = "RigidLoad"
body = "ball"
torque = [0.0, 0.0, 0.5]

[[loads]]
type = "EndLoad"
rod = "rod"
force = [0.0, 1.0, 0.0]
end = "first"

[[damping]]
type = "LinearDamping"
rod = "rod"
coefficient = 0.1

[[damping]]
type = "RigidDamping"
body = "ball"
coefficient = 0.2

[[damping]]
type = "RigidQuadraticDrag"
body = "ball"
coefficient = 0.004

[[contact]]
type = "RigidGroundContact"
body = "ball"
stiffness = 1e4
kinetic_friction = 0.4
"""


def test_older_files_are_read_as_the_unified_terms_and_written_with_their_names():
    scenario = loads_scenario(OLD_FILE)
    terms = {t.name: t for t in scenario.scene.terms}
    assert {n: type(t).__name__ for n, t in terms.items()} == {
        "rigid_added_mass": "AddedMass", "damping": "LinearDamping",
        "rigid_damping": "LinearDamping", "rigid_quadratic_drag": "QuadraticDrag",
        "rigid_ground_contact": "GroundContact", "rigid_load": "EndLoad",
        "end_load": "EndLoad"}                             # the old default names are kept
    assert terms["rigid_load"].couple.tolist() == [0.0, 0.0, 0.5]
    assert (terms["end_load"].rod, terms["end_load"].end) == ("rod", "first")
    assert terms["rigid_added_mass"].coefficient == 0.5
    assert terms["rigid_damping"].rotational_coefficient == 0.0
    contact = terms["rigid_ground_contact"]
    assert (contact.kinetic, contact.static, contact.slip_velocity,
            contact.damping) == (0.4, 0.0, 1e-4, 0.0)
    text = dumps(scenario)
    assert "Rigid" not in text and 'rod = "rod"' not in text and 'body = "rod"' in text
    again = loads_scenario(text)
    for a, b in zip(scenario.scene.terms, again.scene.terms):
        assert a.parameters().keys() == b.parameters().keys()
        for key, value in a.parameters().items():
            np.testing.assert_array_equal(value, b.parameters()[key])


def test_older_discrete_files_map_friction_and_viscosity():
    text = """schema_version = 1
[run]
dt = 5e-3
duration = 0.01

[[bodies]]
kind = "der_rod"
name = "chain"
start = [0.0, 0.0, 0.004]
direction = [1.0, 0.0, 0.0]
length = 0.2
n_elems = 4
radius = 2e-3
density = 1200.0
youngs_modulus = 2e6

[[damping]]
type = "ViscousFriction"
body = "chain"
viscosity = 0.05

[[contact]]
type = "SmoothGroundContact"
body = "chain"
stiffness = 50.0
distance = 2e-3
friction = 0.3
"""
    scenario = loads_scenario(text)
    damping, ground = scenario.scene.terms
    assert (type(damping).__name__, damping.name, damping.coefficient) == (
        "LinearDamping", "viscous_friction", 0.05)
    # the one coefficient mu of the older files: kinetic and static alike
    assert (type(ground).__name__, ground.name, ground.kinetic, ground.static,
            ground.slip_tolerance, ground.sharpness) == ("GroundContact", "ground", 0.3, 0.3,
                                                         1e-3, 15.0 / 2e-3)
    with pytest.raises(ValueError, match="viscosity = 0.05 is not allowed with coefficient"):
        loads_scenario(text.replace("viscosity = 0.05", "viscosity = 0.05\ncoefficient = 0.1"))
