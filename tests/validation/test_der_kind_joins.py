"""Rod networks on the discrete-rod kind of the unified engine: sm.JoinNodes makes two nodes
one (DisMech's joints through shared nodes, ref. 004 sections 2 and 3.4): one slot in the
kind's arrays (softmech.der_packing.DerSlots), with the sum of the rods' masses and their
mass-weighted body acceleration. Checked against the discrete engine, which merges the nodes
in its DOF layout (softmech.implicit.layout.DofLayout.merge), and against the conservation
laws of a free network."""
import numpy as np
import pytest

import softmech as sm
from softmech.implicit.newton import NewtonOptions

L, N, R, RHO, E = 0.1, 8, 2e-3, 1200.0, 1e6

TIGHT = {"unified": sm.ImplicitOptions(tol=1e-12, max_iterations=25),
         "discrete": NewtonOptions(rtol=1e-13)}
"""Newton tolerances far below the defaults, so that the engines differ by the model, not by
where each Newton stops (as in test_der_kind_fluids.py)."""


def network(scene, contact=False):
    """A clamped rod `a` along x; `b` along y and `c` along z from a's free end, each joined to
    the one before it there (b's node 0 to a's last, c's node 0 to b's node 0: three nodes
    become one through two joins)."""
    kw = dict(normal=(0.0, 0.0, 1.0), length=L, n_elems=N, radius=R, density=RHO,
              youngs_modulus=E)
    a = scene.add_der_rod(name="a", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0), **kw)
    b = scene.add_der_rod(name="b", start=(L, 0.0, 0.0), direction=(0.0, 1.0, 0.0), **kw)
    c = scene.add_der_rod(name="c", start=(L, 0.0, 0.0), direction=(0.0, 0.0, 1.0),
                          **{**kw, "normal": (1.0, 0.0, 0.0)})
    scene.add(sm.JoinNodes(a, N, b, 0, name="ab"))
    scene.add(sm.JoinNodes(b, 0, c, 0, name="bc"))
    if contact:
        scene.add(sm.EdgeContact([a, b, c], stiffness=1e3, distance=2 * R))
    return a, b, c


@pytest.mark.parametrize("contact", [False, True])
def test_a_hanging_network_moves_as_in_the_discrete_engine(contact):
    """The clamped network falls under gravity for 0.1 s (100 implicit Euler steps of 1 ms, the
    free ends falling ~0.05 m): every node equal to the discrete engine's within 1e-10 m
    (measured 2026-11-30: 1.8e-13 m, with contact too). With sm.EdgeContact over
    the three rods, the edges that meet at the junction share its node and are not a contact
    pair (an edge's distance to its neighbour is zero: were they tested, the penalty would
    throw the rods apart), as in the discrete engine, which sees one DOF there."""
    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        a, _, _ = network(scene, contact)
        scene.add(sm.FixNodes(a, nodes=[0, 1], angles=[0], name="clamp"))
        scene.add(sm.Gravity((0.0, 0.0, -9.81)))
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.step(100)
        final[engine] = {r: sim.get_state(r)["positions"][0] for r in "abc"}
    moved = np.abs(final["discrete"]["b"][-1] - (L, L, 0.0)).max()
    assert moved > 0.03
    for r in "abc":
        assert np.abs(final["unified"][r] - final["discrete"][r]).max() < 1e-10
    # one node: the three rods' junction nodes are the same numbers
    assert np.array_equal(final["unified"]["a"][-1], final["unified"]["b"][0])
    assert np.array_equal(final["unified"]["b"][0], final["unified"]["c"][0])


def test_a_free_network_conserves_momentum_under_verlet():
    """A free network spinning about z and drifting (no gravity, no clamp) under position Verlet:
    linear and angular momentum, summed over the rods' diagnostics (each rod counts its own
    share of a joined node's mass, so the sum is the network's), conserved to round-off
    (1e-12 of their scale): the internal forces of the merged node cancel in pairs only if
    its mass is the sum of the rods' shares; the energy error O(dt^2), below 1e-4 of the
    kinetic energy at dt = 2 us."""
    scene = sm.Scene()
    network(scene)
    sim = scene.compile(dt=2e-6, engine="unified", scheme="verlet")
    omega, drift = np.array([0.0, 0.0, 3.0]), np.array([0.1, -0.05, 0.02])
    for r in "abc":
        x = sim.get_state(r)["positions"][0]
        sim.set_state(r, velocities=np.cross(omega, x) + drift)

    def totals():
        d = [sim.diagnostics(r) for r in "abc"]
        return (sum(x["linear_momentum"][0] for x in d), sum(x["angular_momentum"][0] for x in d),
                sum(x["total_energy"][0] for x in d), sum(x["translational_energy"][0] for x in d))

    p0, h0, e0, k0 = totals()
    sim.step(5000)
    p1, h1, e1, _ = totals()
    assert np.abs(p1 - p0).max() < 1e-12 * np.abs(p0).max()
    assert np.abs(h1 - h0).max() < 1e-12 * max(np.abs(h0).max(), 1e-12) + 1e-12 * np.abs(p0).max()
    assert abs(e1 - e0) < 1e-4 * k0


def test_joins_are_checked_before_any_work():
    """A join of nodes that do not coincide, or of a node the rod does not have, is refused when
    the scene is compiled, naming the join and the gap or the range; AddedMass on a joined rod
    is refused (its projection walks each rod's own chain of nodes)."""
    kw = dict(direction=(1.0, 0.0, 0.0), length=L, n_elems=N, radius=R, density=RHO,
              youngs_modulus=E)
    scene = sm.Scene()
    a = scene.add_der_rod(name="a", start=(0.0, 0.0, 0.0), **kw)
    b = scene.add_der_rod(name="b", start=(L + 1e-3, 0.0, 0.0), **kw)
    scene.add(sm.JoinNodes(a, N, b, 0, name="gap"))
    with pytest.raises(ValueError, match="gap: the joined nodes are 0.001 m apart"):
        scene.compile(dt=1e-3, engine="unified")
    scene = sm.Scene()
    a = scene.add_der_rod(name="a", start=(0.0, 0.0, 0.0), **kw)
    b = scene.add_der_rod(name="b", start=(L, 0.0, 0.0), **kw)
    scene.add(sm.JoinNodes(a, N, b, 0))
    scene.add(sm.AddedMass(b, fluid_density=1000.0))
    with pytest.raises(ValueError, match="AddedMass on discrete rod 'b' is not allowed"):
        scene.compile(dt=1e-3, engine="unified").step(1)
