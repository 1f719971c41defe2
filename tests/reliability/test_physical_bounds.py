"""Physical bounds per field (issue 32, item 7; softmech._checks MODULUS, DENSITY, LENGTH):
moduli, densities and lengths outside physical ranges are refused by the builders naming the
field, the value and the range; indices and ends that are not of the body are refused with a
clear message; every built-in scene stays within the bounds."""
import warnings

import numpy as np
import pytest

import softmech as sm
from softmech import _checks
from softmech.bodies import meshes
from softmech.scenarios import SCENES

ROD = dict(name="r", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1), length=0.1,
           n_elems=4, radius=1e-3, density=1000.0, youngs_modulus=1e6)
DER = dict(name="d", start=(0, 0, 0), direction=(1, 0, 0), length=0.1, n_elems=4,
           radius=1e-3, density=1000.0, youngs_modulus=1e6)
SHELL = dict(name="s", mesh=meshes.rectangle(0.1, 0.05, 2), thickness=1e-3,
             youngs_modulus=1e6, density=1000.0)


def _range(low, high, unit):
    return rf"must be within \[{low}, {high}\] {unit}"


@pytest.mark.parametrize("add, changes, field, bound", [
    ("add_cosserat_rod", {"youngs_modulus": 1e-300}, r"rod 'r'.youngs_modulus = 1e-300 Pa",
     _range("0.001", "1e\\+13", "Pa")),
    ("add_cosserat_rod", {"shear_modulus": 1e300}, r"rod 'r'.shear_modulus = 1e\+300 Pa",
     _range("0.001", "1e\\+13", "Pa")),
    ("add_cosserat_rod", {"density": 1e6}, r"rod 'r'.density = 1000000.0 kg/m\^3",
     _range("0.001", "100000", "kg/m\\^3")),
    ("add_cosserat_rod", {"radius": 1e-12}, r"rod 'r'.radius = 1e-12 m",
     _range("1e-09", "10000", "m")),
    ("add_cosserat_rod", {"length": 1e5}, r"length = 100000.0 m", _range("1e-09", "10000", "m")),
    ("add_der_rod", {"youngs_modulus": 1e14}, r"der_rod 'd'.youngs_modulus = 100000000000000.0 Pa",
     _range("0.001", "1e\\+13", "Pa")),
    ("add_der_rod", {"density": 1e6}, r"der_rod 'd'.density = 1000000.0 kg/m\^3",
     _range("0.001", "100000", "kg/m\\^3")),
    ("add_shell", {"thickness": 1e-300}, r"shell 's'.thickness = 1e-300 m",
     _range("1e-09", "10000", "m")),
    ("add_shell", {"youngs_modulus": 1e-4}, r"shell 's'.youngs_modulus = 0.0001 Pa",
     _range("0.001", "1e\\+13", "Pa")),
    ("add_sphere", {"radius": 1e300}, r"body 'b'.radius = 1e\+300 m",
     _range("1e-09", "10000", "m")),
    ("add_cylinder", {"density": 1e-300}, r"body 'b'.density = 1e-300 kg/m\^3",
     _range("0.001", "100000", "kg/m\\^3")),
    ("add_box", {"lengths": (1.0, 1.0, 1e5)}, r"body 'b'.lengths = \[1.0, 1.0, 100000.0\] m",
     _range("1e-09", "10000", "m")),
])
def test_values_outside_the_physical_bounds_are_refused(add, changes, field, bound):
    base = {"add_cosserat_rod": ROD, "add_der_rod": DER, "add_shell": SHELL}.get(add)
    if base is None:
        base = {"name": "b", "position": (0, 0, 0), "density": 1000.0,
                **{"add_sphere": {"radius": 0.1}, "add_cylinder": {"radius": 0.1, "length": 0.2},
                   "add_box": {"lengths": (0.1, 0.1, 0.1)}}[add]}
    with pytest.raises(ValueError, match=field + r" is not allowed: " + bound):
        getattr(sm.Scene(), add)(**{**base, **changes})


def test_the_bounds_admit_their_ends():
    """The ends of each range are allowed (the bounds are inclusive)."""
    sm.Scene().add_der_rod(**{**DER, "youngs_modulus": 1e13, "density": 1e-3})
    sm.Scene().add_der_rod(**{**DER, "youngs_modulus": 1e-3, "density": 1e5})
    sm.Scene().add_sphere(name="b", position=(0, 0, 0), radius=1e4, density=1e-3)


def test_a_ring_of_radius_1e12_m_is_refused():
    with pytest.raises(ValueError, match=r"ring_radius = 1000000000000 m is not allowed: "
                                         + _range("1e-09", "10000", "m")):
        sm.Scene().add_cosserat_ring(ring_radius=10**12, n_elems=12, radius=0.01,
                                     density=1000.0, youngs_modulus=1e6)


def test_poisson_ratio_is_checked_even_with_a_shear_modulus():
    """poisson_ratio = {} was ignored when shear_modulus set G; it is now refused by name."""
    with pytest.raises(ValueError, match=r"rod 'r'.poisson_ratio = \{\} is not allowed: must be "
                                         r"a number"):
        sm.Scene().add_cosserat_rod(**ROD, shear_modulus=1e5, poisson_ratio={})
    with pytest.raises(ValueError, match=r"poisson_ratio = 0.7 is not allowed: must be in "
                                         r"\(-1, 0.5\]"):
        sm.Scene().add_cosserat_rod(**ROD, shear_modulus=1e5, poisson_ratio=0.7)


def test_a_node_force_beyond_the_body_names_its_node_range():
    """NodeForce(node=10**9) is refused when added (not at compile), naming the nodes."""
    scene = sm.Scene()
    rod = scene.add_der_rod(**DER)
    with pytest.raises(ValueError, match=r"node_force.node = \[1000000000\] is not allowed: "
                                         r"discrete rod 'd' has 5 nodes \(indices 0..4\)"):
        scene.add(sm.NodeForce(rod, 10**9, (0.0, 0.0, 1.0)))
    scene.add(sm.NodeForce(rod, 4, (0.0, 0.0, 1.0)))


def test_fixed_nodes_and_angles_beyond_the_body_are_refused_when_added():
    """FixNodes(nodes=[10**9]) used to pass Scene.add and fail only at compile; nodes and a
    discrete rod's edge angles are now checked against the body when the term is added."""
    scene = sm.Scene()
    rod = scene.add_der_rod(**DER)
    with pytest.raises(ValueError, match=r"fix.nodes = \[0, 1000000000\] is not allowed: "
                                         r"discrete rod 'd' has 5 nodes \(indices 0..4\)"):
        scene.add(sm.FixNodes(rod, [0, 10**9]))
    with pytest.raises(ValueError, match=r"fix.angles = \[4\] is not allowed: discrete rod "
                                         r"'d' has 4 angles \(indices 0..3\)"):
        scene.add(sm.FixNodes(rod, [0], angles=[4]))
    scene.add(sm.FixNodes(rod, [0, 4], angles=[3]))


@pytest.mark.parametrize("end", [np.array([0, 1]), True, 2.0, None])
def test_a_clamp_end_that_is_not_an_end_is_refused_clearly(end):
    """Clamp(rod, end=array) raised numpy's 'truth value of an array is ambiguous'."""
    with pytest.raises(ValueError, match=r"clamp.end = .* is not allowed: must be 'first' or "
                                         r"'last'"):
        sm.Clamp("r", end=end)


def test_every_built_in_scene_is_within_the_bounds():
    """Every scene builds (its rods', shells' and bodies' values within the bounds), and the
    table's ranges are the ones documented."""
    assert _checks.MODULUS[:2] == (1e-3, 1e13) and _checks.DENSITY[:2] == (1e-3, 1e5)
    assert _checks.LENGTH[:2] == (1e-9, 1e4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name, entry in SCENES.items():
            scene, _ = entry.build()
            assert scene.rods or scene.implicit_bodies, name
