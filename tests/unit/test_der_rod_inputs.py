"""DerRod checks every argument in its constructor: a ValueError names the field and the value."""
import numpy as np
import pytest

from softmech.bodies.der_rod import DerRod, build_springs

BASE = {"start": (0, 0, 0), "direction": (1, 0, 0), "length": 1.0, "n_elems": 4,
        "radius": 0.01, "density": 1000.0, "youngs_modulus": 1e7}


@pytest.mark.parametrize("change, message", [
    ({"radius": -0.01}, "radius = -0.01 is not allowed"),
    ({"density": 0.0}, "density = 0.0 is not allowed"),
    ({"youngs_modulus": "1e7"}, "youngs_modulus = '1e7' is not allowed"),
    ({"poisson_ratio": 0.7}, "poisson_ratio = 0.7 is not allowed: must be in (-1, 0.5]"),
    ({"poisson_ratio": 0.3, "shear_modulus": 1e6}, "not both"),
    ({"n_elems": 1}, "n_elems = 1 is not allowed"),
    ({"length": np.inf}, "length = inf is not allowed"),
    ({"normal": (1, 0, 0)}, "normal = [1.0, 0.0, 0.0] is not allowed: parallel"),
    ({"natural_curvature": np.zeros((4, 2))},
     "natural_curvature has shape (4, 2), expected (3, 2)"),
    ({"natural_twist": "final"}, "natural_twist = 'final' is not allowed"),
    ({"twist": np.zeros(3)}, "twist has shape (3,), expected a scalar or shape (4,)"),
])
def test_bad_arguments_name_the_field(change, message):
    with pytest.raises(ValueError) as err:
        DerRod("r", **{**BASE, **change})
    assert message in str(err.value)
    assert "der_rod 'r'" in str(err.value)


def test_geometry_errors():
    kw = {k: v for k, v in BASE.items() if k not in ("start", "direction", "length", "n_elems")}
    with pytest.raises(ValueError, match="missing: length, n_elems"):
        DerRod("r", start=(0, 0, 0), direction=(1, 0, 0), **kw)
    with pytest.raises(ValueError, match="not both"):
        DerRod("r", centerline=np.zeros((5, 3)), n_elems=4, **kw)
    with pytest.raises(ValueError, match="edge 1 has length 0"):
        DerRod("r", centerline=[[0, 0, 0], [1, 0, 0], [1, 0, 0], [2, 0, 0]], **kw)
    with pytest.raises(ValueError, match=r"edges must hold two or more edges of node indices in "
                                         r"0..3"):
        DerRod("r", centerline=np.eye(4, 3), edges=[[0, 1], [1, 4]], **kw)
    with pytest.raises(ValueError, match=r"edges must hold two or more edges"):
        DerRod("r", centerline=np.eye(4, 3), edges=np.zeros((0, 2)), **kw)
    with pytest.raises(ValueError, match="no two edges share a node"):
        DerRod("r", centerline=np.eye(4, 3), edges=[[0, 1], [2, 3]], **kw)


def test_lumped_masses_and_stiffness_of_a_straight_rod():
    rod = DerRod("r", **BASE, poisson_ratio=0.25)
    m_edge = 1000.0 * np.pi * 0.01 ** 2 * 0.25
    assert rod.node_mass == pytest.approx([m_edge / 2, m_edge, m_edge, m_edge, m_edge / 2])
    assert rod.twist_inertia == pytest.approx(np.full(4, m_edge * 0.01 ** 2 / 2))
    assert rod.EI[:, 0] == pytest.approx(np.full(3, 1e7 * np.pi * 0.01 ** 4 / 4))
    assert rod.GJ == pytest.approx(np.full(3, 1e7 / 2.5 * np.pi * 0.01 ** 4 / 2))
    assert rod.voronoi_lengths == pytest.approx(np.full(3, 0.25))


def test_network_springs_use_dismech_edge_signs():
    # node 1 joins edge 0 (0 -> 1), edge 1 (2 -> 1, stored pointing in) and edge 2 (1 -> 3)
    nodes, pairs, signs = build_springs(4, np.array([[0, 1], [2, 1], [1, 3]]))
    assert nodes.tolist() == [[0, 1, 2], [0, 1, 3], [2, 1, 3]]
    assert pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert signs.tolist() == [[1, -1, 1], [1, 1, 1], [1, 1, 1]]


@pytest.mark.parametrize("schedule, message", [
    ({"times": [0.0, 0.0], "values": np.zeros((2, 3, 2))}, "strictly increasing"),
    ({"times": [0.0, 1.0], "values": np.zeros((2, 4, 2))}, "values has shape (2, 4, 2), expected (2, 3, 2)"),
    ({"times": [0.0, 1.0]}, "table with keys ['times'] is not allowed"),
    ({"file": "/nonexistent/curvature.txt"}, "could not be read"),
    (lambda t: np.zeros(3), "natural_curvature(t = 0) has shape (3,), expected (3, 2)"),
    (lambda t: np.full((3, 2), np.nan), "contains NaN"),
])
def test_bad_actuation_schedules_are_refused_when_the_rod_is_built(schedule, message):
    with pytest.raises(ValueError) as err:
        DerRod("r", **BASE, natural_curvature=schedule)
    assert message in str(err.value)


def test_table_schedule_interpolates_and_holds(tmp_path):
    values = np.arange(12.0).reshape(2, 3, 2)
    path = tmp_path / "c.csv"
    np.savetxt(path, np.column_stack([[1.0, 3.0], values.reshape(2, -1)]), delimiter=",")
    for spec in ({"times": [1.0, 3.0], "values": values}, {"file": str(path)}):
        rod = DerRod("r", **BASE, natural_curvature=spec)
        schedule = rod.schedules["natural_curvature"]
        assert np.array_equal(schedule(0.0), values[0]) and np.array_equal(schedule(9.0), values[1])
        assert np.allclose(schedule(1.5), 0.75 * values[0] + 0.25 * values[1])
        assert np.array_equal(rod.natural_curvature, values[0])    # the value at t = 0
