"""softmech.contributions: one force call's loads and power at the current state, against closed
forms; and the underwater robots' power budget (softmech.scenarios.underwater_power)."""
import numpy as np
import pytest

import softmech as sm
from softmech.contributions import contributions
from softmech.scenarios.underwater_power import quasi_propulsive_efficiency


def test_linear_damping_power_and_an_end_load_on_a_body_are_the_closed_forms():
    """A box moving at v and spinning at w under LinearDamping(c, c_r): the damping force is
    -c v and torque -c_r w, so its power is -c |v|^2 - c_r |w|^2 (to round-off, 1e-12
    relative); an EndLoad F on the same body contributes exactly F (its power F . v); a rod's
    damping: -gamma dl_i |v_i|^2 summed over the nodes (dl_i: the node's share of the rest
    length, softmech.terms.damping), at a uniform velocity -gamma L |v|^2."""
    scene = sm.Scene()
    v, w = np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -0.5])
    scene.add_box(name="box", position=(0, 0, 1), lengths=(0.2, 0.1, 0.3), density=700.0,
                  velocity=v, angular_velocity=w)
    scene.add(sm.LinearDamping("box", 0.7, rotational_coefficient=0.02))
    force = np.array([1.0, -2.0, 3.0])
    scene.add(sm.EndLoad("box", force=force, name="push"))
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=0.8, n_elems=10, radius=0.01,
                                 density=1000.0, youngs_modulus=1e6)
    scene.add(sm.LinearDamping(rod, 0.3, name="rod_damping"))
    sim = scene.compile(dt=1e-4)
    sim.set_state("rod", velocities=np.tile(v, (rod.n_nodes, 1)))
    names = {c.name for c in sim._engine().calls}
    loads = contributions(sim, sorted(n for n in names if n in ("rigid_damping", "rigid_loads",
                                                                "linear_damping")))
    power = loads["rigid_damping"].power(sim.lanes)
    assert power[0] == pytest.approx(-0.7 * v @ v - 0.02 * w @ w, rel=1e-12)
    slot = sim._rigid_index["box"]
    assert np.allclose(loads["rigid_loads"].rigid_force(sim.lanes, slot)[0], force, atol=1e-12)
    assert loads["rigid_loads"].power(sim.lanes)[0] == pytest.approx(force @ v, rel=1e-12)
    assert loads["linear_damping"].power(sim.lanes)[0] == pytest.approx(-0.3 * 0.8 * v @ v,
                                                                        rel=1e-12)
    with pytest.raises(ValueError, match="call = 'nothing' is not allowed"):
        contributions(sim, ["nothing"])


def test_quasi_propulsive_efficiency_is_the_ratio_of_the_works():
    """eta = int P_out / int P_in over the window (trapezoid: exact on linear samples)."""
    t = np.linspace(0.0, 2.0, 201)
    assert quasi_propulsive_efficiency(t, 0.3 * (1 + t), 1 + t, (0.5, 1.5)) == pytest.approx(0.3)
    with pytest.raises(ValueError, match="window"):
        quasi_propulsive_efficiency(t, t, t, (3.0, 4.0))
    with pytest.raises(ValueError, match="no work"):
        quasi_propulsive_efficiency(t, t, -t, (0.5, 1.5))


def test_quadropus_power_budget_splits_drag_and_actuation():
    """The Quadropus at rest but for a uniform velocity V along its axis, at t = 0 (the
    triangular actuation is 0 there): the actuation does no work (P_in = 0) and P_out is the
    drag power of mantle, arms and root: without the arms' (their QuadraticDrag call's power,
    < 0), the mantle's and root's closed form 1/2 rho (C_d A_ref + C_r) V^3 (Renda eqs. 12 and
    26, Table 2: C_r = 0.02 m^2), to 1e-9."""
    from softmech.scenarios.quadropus import build_quadropus
    from softmech.scenarios.underwater_power import power_budget, root_loads

    scene, info = build_quadropus(n_elems=20, duration=1.0, moment=0.0)
    sim = scene.compile(dt=info.dt, scheme=info.scheme)
    V, axis = 0.05, np.asarray(info.axis)
    for body in [r.name for r in scene.rods] + ["root"]:
        n = 1 if body == "root" else next(r for r in scene.rods if r.name == body).n_nodes
        sim.set_state(body, velocities=np.tile(V * axis, (n, 1)))
    p_out, p_in = power_budget(sim, "root", axis)
    shell = next(t for t in scene.terms if t.name == "mantle_drag")
    rho = 1000.0
    closed = 0.5 * rho * (shell.drag_coefficient * shell_reference_area(scene) + 0.02) * V ** 3
    arms = contributions(sim, ["quadratic_drag"])["quadratic_drag"].power(sim.lanes)
    assert p_in[0] == pytest.approx(0.0, abs=1e-15)
    assert arms[0] < 0 and p_out[0] + arms[0] == pytest.approx(closed, rel=1e-9)
    loads = root_loads(sim, "root", axis)
    assert set(loads) == {"arms", "mantle"} and np.all(np.isfinite(loads["arms"]))


def shell_reference_area(scene):
    """The mantle's drag reference area [m^2] as its term resolved it (MantleDrag: the
    largest cross-section pi r_max^2 of the rest meridian by default)."""
    mantle = next(r for r in scene.rods if r.name == "mantle")
    shell = next(t for t in scene.terms if t.name == "mantle_shell")
    rel = mantle.positions - np.asarray(shell.origin)
    r = np.linalg.norm(rel - np.outer(rel @ np.asarray(shell.axis), shell.axis), axis=1)
    return np.pi * r.max() ** 2
