"""One case per failure the fuzzers found (docs/reliability.md, "Bad input, fuzzed"), kept as
plain tests: each used to crash with an unclear error (TypeError, OverflowError, IndexError,
numpy's own message) or to run on silently; now it is refused naming the field, the value and
what is allowed."""
import numpy as np
import pytest

import softmech as sm
from softmech import _checks
from softmech.bodies import meshes
from softmech.scenefile.reader import scenario_from_dict
from softmech.scenefile.values import ScenarioError

ROD = dict(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0), length=1.0,
           n_elems=4, radius=0.05, density=1000.0, youngs_modulus=1e6)


def rod_doc(**rod_changes):
    """A one-rod scenario dict (as tomllib returns it) with `rod_changes` in its [[rods]]."""
    rod = {k: list(v) if isinstance(v, tuple) else v for k, v in ROD.items()}
    rod.update(rod_changes)
    return {"schema_version": 1, "run": {"dt": 1e-5, "duration": 1e-3}, "rods": [rod],
            "boundary": [{"type": "Clamp", "rod": "rod"}]}


@pytest.mark.parametrize("value", [[1.0, 2.0], [[1.0]]])
def test_an_array_for_a_single_number_is_refused_naming_the_field(value):
    """float() of the checked array raised 'only 0-dimensional arrays can be converted'."""
    with pytest.raises(ScenarioError, match=r"length = .* must be a single number"):
        scenario_from_dict(rod_doc(length=value))
    with pytest.raises(ValueError, match=r"length = .* must be a single number"):
        sm.Scene().add_cosserat_rod(**{**ROD, "length": value})
    with pytest.raises(ValueError, match=r"shear_coefficient = .* must be a single number"):
        sm.Scene().add_cosserat_rod(**ROD, shear_coefficient=value)
    with pytest.raises(ValueError, match=r"radius = .* must be a single number"):
        sm.Scene().add_sphere(position=(0, 0, 0), radius=value, density=1000.0)
    with pytest.raises(ValueError, match=r"stiffness = .* must be a single number"):
        sm.GroundContact("ball", stiffness=value, name="rigid_ground_contact")
    with pytest.raises(ValueError, match=r"drag.tangential = .* must be a single number"):
        sm.ViscousDrag("rod", 0.1, tangential=value)     # a call split over two lines


def test_a_list_where_a_name_is_expected_is_refused():
    """choice() met an unhashable list and raised TypeError."""
    with pytest.raises(ValueError, match=r"decomposition = \['sign'\] is not allowed: must be one of"):
        sm.AnisotropicFriction(1.0, 1.0, 1.0, decomposition=["sign"])
    doc = rod_doc()
    doc["boundary"][0]["type"] = ["Clamp"]
    with pytest.raises(ScenarioError, match=r"type = .*Clamp.* is not allowed in \[\[boundary\]\]"):
        scenario_from_dict(doc)
    with pytest.raises(ValueError, match=r"spherical_joint.a = \(\['rod'\], 'last'\) is not "
                                         r"allowed: must be \(rod,"):
        sm.SphericalJoint((["rod"], "last"), "ball", stiffness=1.0)   # (the scene's lookup)
    doc = rod_doc(kind={"a": 1})
    with pytest.raises(ScenarioError, match=r"kind = \{'a': 1\} is not allowed"):
        scenario_from_dict(doc)
    doc = rod_doc(material=["steel"])
    with pytest.raises(ScenarioError, match=r"material = \['steel'\] is not allowed"):
        scenario_from_dict(doc)


def test_a_ragged_list_is_refused_naming_the_field():
    """numpy's 'inhomogeneous shape' error escaped through the message helper."""
    with pytest.raises(ValueError, match=r"gravity.acceleration = \[0, \[1, 2\], 0\] is not allowed"):
        sm.Gravity([0, [1, 2], 0])
    with pytest.raises(ValueError, match=r"fix.nodes = .* must be a list of integer indices"):
        sm.FixNodes("sheet", nodes=[0, [1, 2]])
    mesh = meshes.rectangle(0.1, 0.05, 2)
    with pytest.raises(ValueError, match=r"triangles = .* must be an \(n_tris, 3\) array"):
        sm.Scene().add_shell(name="s", vertices=mesh.vertices, triangles=[[0, 1, 2], [1, 2]],
                             thickness=1e-3, youngs_modulus=1e6, density=1000.0)


def test_a_body_table_without_kind_names_the_misspelling():
    doc = {"schema_version": 1, "run": {"dt": 1e-5, "duration": 1e-3},
           "bodies": [{"knd": "sphere", "name": "ball", "position": [0, 0, 1], "radius": 0.1,
                       "density": 1000.0}]}
    with pytest.raises(ScenarioError, match=r"unknown field 'knd'; did you mean 'kind'"):
        scenario_from_dict(doc)
    del doc["bodies"][0]["knd"]
    with pytest.raises(ScenarioError, match=r"required field 'kind' is missing: must be one of"):
        scenario_from_dict(doc)


def test_a_rod_without_material_fields_mentions_materials():
    doc = rod_doc()
    del doc["rods"][0]["density"]
    with pytest.raises(ScenarioError, match=r"'density' is missing \(give it, or a material"):
        scenario_from_dict(doc)


def test_record_every_errors_name_the_every_field():
    doc = rod_doc()
    doc["record"] = {"every": float("nan"), "fields": ["com"]}
    with pytest.raises(ScenarioError, match=r"\[record\] every: Every.seconds = nan"):
        scenario_from_dict(doc)


@pytest.mark.parametrize("n_elems", [10**9, 2**63 - 1])
def test_sizes_beyond_memory_are_refused_with_the_allowed_range(n_elems):
    """n_elems = 10^9 used to fail in numpy with MemoryError (or be killed by the OS);
    worlds = 10^9 the same at compile."""
    with pytest.raises(ValueError, match=r"n_elems = \d+ is not allowed: must be an integer in "
                                         r"\[1, \d+\] on this machine"):
        sm.Scene().add_cosserat_rod(**{**ROD, "n_elems": n_elems})
    with pytest.raises(ValueError, match=r"n_elems = \d+ is not allowed: must be an integer in \[3,"):
        sm.Scene().add_cosserat_ring(ring_radius=1.0, n_elems=n_elems, radius=0.01,
                                     density=1000.0, youngs_modulus=1e6)
    scene = sm.Scene()
    scene.add_cosserat_rod(**ROD)
    with pytest.raises(ValueError, match=r"worlds = \d+ is not allowed: must be an integer in \[1,"):
        scene.compile(worlds=n_elems, dt=1e-5)


def test_the_memory_limit_follows_the_address_space_limit():
    limit = _checks.memory_bytes()
    assert 0 < limit
    n = _checks.affordable_count("n", 10, 1, 8, "ten numbers")
    assert n == 10


def test_huge_sizes_whose_mass_or_rigidity_overflows_are_refused():
    """A sphere of radius 1e300 raised OverflowError (r**3); a shell 1e300 m thick too (h**3).
    Both are now beyond the physical bounds of a length (softmech._checks.LENGTH)."""
    with pytest.raises(ValueError, match=r"radius = 1e\+300 m is not allowed: must be within"):
        sm.Scene().add_sphere(position=(0, 0, 0), radius=1e300, density=1000.0)
    mesh = meshes.rectangle(0.1, 0.05, 2)
    with pytest.raises(ValueError, match=r"thickness = 1e\+300 m is not allowed: must be within"):
        sm.Scene().add_shell(mesh=mesh, thickness=1e300, youngs_modulus=1e6, density=1000.0)


def test_terms_name_the_field_of_a_bad_or_missing_body():
    with pytest.raises(ValueError, match=r"join.body_b = nan is not allowed"):
        sm.JoinNodes("a", 0, float("nan"), 0)
    with pytest.raises(ValueError, match=r"edge_contact.bodies = 3 is not allowed"):
        sm.EdgeContact(["a", 3], stiffness=1.0, distance=1e-3)
    scene = sm.Scene()
    common = dict(radius=1e-3, density=1000.0, youngs_modulus=1e6)
    scene.add_der_rod(name="a", start=(0, 0, 0), direction=(1, 0, 0), length=0.1, n_elems=3,
                      **common)
    with pytest.raises(ValueError, match=r"join.body_b = 'nobody' is not allowed: no discrete rod"):
        scene.add(sm.JoinNodes("a", 3, "nobody", 0))


def test_a_shell_angle_out_of_range_is_refused():
    """FixNodes(angles=[huge]) on a mid-edge shell indexed past its edges (IndexError)."""
    scene = sm.Scene()
    scene.add_shell(name="sheet", mesh=meshes.rectangle(0.1, 0.05, 2), thickness=1e-3,
                    youngs_modulus=1e6, density=1000.0, bending="midedge")
    scene.add(sm.FixNodes("sheet", nodes=[0], angles=[2**62]))
    with pytest.raises(ValueError, match=r"fix.angles = \[\d+\] is not allowed: shell 'sheet' has \d+ angles"):
        scene.compile(dt=1e-3)


def test_a_massless_node_names_its_body():
    """A radius of 1e-300 m or a subnormal density, which made the mass 0, are refused when
    the rod is built (naming the field and its physical bounds, softmech._checks). (The
    compile-time refusal of a massless free node stays as a guard; builder values no longer
    reach it.)"""
    scene = sm.Scene()
    with pytest.raises(ValueError, match=r"der_rod 'thread'.radius = 1e-300 m is not allowed: "
                                         r"must be within \[1e-09, 10000\] m"):
        scene.add_der_rod(name="thread", start=(0, 0, 0), direction=(1, 0, 0), length=0.1,
                          n_elems=3, radius=1e-300, density=1000.0, youngs_modulus=1e6)
    with pytest.raises(ValueError, match=r"der_rod 'thread'.density = 1e-320 kg/m\^3 is not "
                                         r"allowed: must be within"):
        scene.add_der_rod(name="thread", start=(0, 0, 0), direction=(1, 0, 0), length=0.1,
                          n_elems=3, radius=1e-3, density=1e-320, youngs_modulus=1e6)



@pytest.mark.parametrize("engine", ["discrete", "unified"])
def test_an_overflowing_force_stops_newton_instead_of_converging_at_once(engine):
    """|F| = 1e300 made the residual norm inf, and `inf <= rtol * inf` passed the convergence
    test at iteration 0: the rod did not move at all, silently. Both engines name the body,
    the node and the cause (the unified one: its acceleration at the step's start,
    softmech.divergence.culprit)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="whip", start=(0, 0, 0), direction=(1, 0, 0), length=0.2,
                            n_elems=4, radius=2e-3, density=1200.0, youngs_modulus=2e6)
    scene.add(sm.FixNodes(rod, nodes=[0, 1]))
    scene.add(sm.NodeForce(rod, 4, (0.0, 0.0, 1e300)))
    sim = scene.compile(dt=1e-3, engine=engine)
    with pytest.raises(sm.SimulationDiverged, match=r"body 'whip'\W+\w+ of node 4\W.*"
                                                    r"the force is too large"):
        sim.step(1)


def test_a_far_off_start_that_absorbs_the_elements_is_refused_naming_start():
    """start = (1e50, 0, 0): the nodes coincide in round-off; the message named 'positions'."""
    with pytest.raises(ValueError, match=r"start = .* is not allowed with length = 1 m and "
                                         r"n_elems = 4: consecutive nodes coincide"):
        sm.Scene().add_cosserat_rod(**{**ROD, "start": (1e50, 0, 0)})


def test_an_unused_vertex_names_the_triangles():
    mesh = meshes.rectangle(0.1, 0.05, 2)
    with pytest.raises(ValueError, match=r"no triangle uses it .* must be in shell 's'.triangles"):
        sm.Scene().add_shell(name="s", vertices=mesh.vertices, triangles=mesh.triangles[:-1],
                             thickness=1e-3, youngs_modulus=1e6, density=1000.0)


def test_scalar_friction_coefficients_and_paired_activation_tables():
    """CoulombFriction(static=[a, b]) failed at compile in np.stack ('all input arrays must
    have the same shape'); an activation table one entry longer than its times named only the
    activation."""
    with pytest.raises(ValueError, match=r"friction.static = \[0.5, 0.5\] is not allowed: must be a single"):
        sm.CoulombFriction([0.5, 0.5], 0.4)
    with pytest.raises(ValueError, match=r"d.displacement has shape \(3, 3\), expected \(2, 3\): one 3-vector per entry of d.times"):
        sm.DrivenEnd("rod", "last", times=[0.0, 1.0], displacement=np.zeros((3, 3)), name="d")
    with pytest.raises(ValueError, match=r"m.activation has \(3,\) values for m.times of shape \(2,\)"):
        sm.ActiveMuscle("rod", 1e3, activation=[0.0, 0.5, 1.0], times=[0.0, 1.0], name="m")


def test_far_off_coordinates_and_huge_directions():
    """A rod at 1e300 m overflowed the rod-contact search (scipy's cKDTree: 'floating point
    overflow'); a direction (1e300, 1e300, 0) normalised to 0 (its norm overflowed)."""
    with pytest.raises(ValueError, match=r"length = 1e\+200 m is not allowed: must be within"):
        sm.Scene().add_cosserat_rod(**{**ROD, "length": 1e200})
    with pytest.raises(ValueError, match=r"centerline = .* coordinates must be within \+-1e\+100 m"):
        sm.Scene().add_cosserat_rod(**{**ROD, "start": None, "direction": None, "length": None,
                                       "n_elems": None, "centerline": [[0, 0, 0], [1e300, 0, 0]]})
    with pytest.raises(ValueError, match=r"position = .* coordinates must be within"):
        sm.Scene().add_sphere(position=(1e300, 0, 0), radius=0.1, density=1000.0)
    rod = sm.Scene().add_cosserat_rod(**{**ROD, "direction": (1e300, 1e300, 0.0), "normal": (0, 0, 1)})
    np.testing.assert_allclose(rod.positions[-1], [np.sqrt(0.5), np.sqrt(0.5), 0.0], atol=1e-12)


def test_a_contact_naming_a_missing_body_names_its_field():
    scene = sm.Scene()
    scene.add_cosserat_rod(**ROD)
    with pytest.raises(ValueError, match=r"rod_body_contact.bodies: body 'nobody' is not allowed"):
        scene.add(sm.RodBodyContact(["rod"], ["nobody"], stiffness=1.0))


def test_a_far_off_discrete_rod_names_start():
    """A discrete rod at y = 2^63 m (slow fuzz run): its 2.5 cm edges are below the round-off
    of its coordinates; the message said 'centerline: ... nodes must be distinct', naming a
    field the user did not give."""
    with pytest.raises(ValueError, match=r"start/length: edge \d+ has length .* not allowed: must "
                                         r"be > 1e-12 x the largest coordinate"):
        sm.Scene().add_der_rod(name="arm", start=(0.0, 2.0**63, 0.05), direction=(1, 0, 0),
                               length=0.2, n_elems=8, radius=0.002, density=1200.0,
                               youngs_modulus=2e6)


def test_a_direction_turned_parallel_to_the_normal_names_both():
    """direction (1e300, 0, 1) is x to round-off, parallel to normal (1, 0, 0) (slow fuzz run):
    the message named neither field's value."""
    with pytest.raises(ValueError, match=r"normal = .* is not allowed with the rod's first edge "
                                         r"along .* \(its direction or centreline\)"):
        sm.Scene().add_cosserat_rod(**{**ROD, "direction": (1e300, 0, 1), "normal": (1, 0, 0)})


@pytest.mark.parametrize("ring_radius", [1e300, 1e-320])
def test_a_ring_too_large_or_too_small_names_ring_radius(ring_radius):
    """ring_radius = 1e300 m (its nodes beyond 1e100 m) or 1e-320 m (consecutive nodes equal
    in float64) (slow scenario-file fuzz run, 2026-11-28): the message named the centreline,
    which the user did not give."""
    with pytest.raises(ValueError, match=r"ring_radius = .* m is not allowed"):
        sm.Scene().add_cosserat_ring(ring_radius=ring_radius, n_elems=12, radius=0.01,
                                     density=1000.0, youngs_modulus=1e6)


def test_directors_that_do_not_fit_a_shortened_centerline_name_the_centerline():
    """A fuzzed scenario file dropped a node of a rod's centerline while keeping its directors
    (one per element): the error named only `directors`, not the field that was broken; it now
    says they must fit the centerline and how many nodes it has."""
    centerline = [[0.1 * i, 0.0, 0.0] for i in range(6)]
    frames = np.tile(np.eye(3), (6, 1, 1)).tolist()
    doc = rod_doc(centerline=centerline, directors=frames)
    for key in ("start", "direction", "length", "n_elems", "normal"):
        doc["rods"][0].pop(key)
    with pytest.raises(ScenarioError, match=r"directors has shape \(6, 3, 3\), expected "
                                            r"\(5, 3, 3\): one frame per element of "
                                            r"rod 'rod'.centerline \(6 nodes\)"):
        scenario_from_dict(doc)
