"""The implicit step's Jacobian pattern includes the couplings of rod contacts that have not
started yet, between rods and between a rod and a rigid body (convex or a mesh)
(driver.Call.proximity; softmech.terms.rod_contact.near_pairs and near_bodies;
softmech.integrators.implicit): a probe of the forces sees a contact only while it touches, and
Newton on a contact much stiffer than the inertia (k h^2 >> m) without its Jacobian entries
does not converge (the walker's rings: ~240 residual evaluations at Newton's points and ~3
halvings per step, 7 and none with them).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies.meshes import icosphere
from softmech.integrators import implicit as implicit_module
from softmech.terms.rod_body_contact import body_contact_forces, body_contact_stats

NO_COUPLINGS = (lambda self: (np.zeros(0, np.int64), np.zeros(0, np.int64)))
"""ImplicitIntegrator._proximity_couplings without any (the pattern of the forces' probe)."""

R = 0.01
ROD = dict(radius=R, density=1000.0, youngs_modulus=1e7, shear_modulus=1e7 / 1.5, n_elems=4)


def crossing_rods(gap):
    """Rod 'a' along x clamped at both ends, rod 'b' along y a gap [m] above its middle (surfaces
    apart by `gap`), rod 'c' 1 m away; one RodContact of the three, gravity."""
    scene = sm.Scene()
    a = scene.add_cosserat_rod(name="a", start=(-0.1, 0, 0), direction=(1, 0, 0),
                               normal=(0, 0, 1), length=0.2, **ROD)
    b = scene.add_cosserat_rod(name="b", start=(0, -0.1, 2 * R + gap), direction=(0, 1, 0),
                               normal=(0, 0, 1), length=0.2, **ROD)
    c = scene.add_cosserat_rod(name="c", start=(1.0, 0, 0), direction=(1, 0, 0),
                               normal=(0, 0, 1), length=0.2, **ROD)
    scene.add(sm.Clamp(a, "first", name="clamp_first"))
    scene.add(sm.Clamp(a, "last", name="clamp_last"))
    scene.add(sm.RodContact([a, b, c], stiffness=1e6, damping=250.0, name="contact"))
    scene.add(sm.Gravity())
    return scene


def run_implicit(scene, duration, proximity, monkeypatch):
    """(simulation, Newton counters) after `duration` [s] of implicit Euler at dt = 1 ms, with
    the proximity couplings or (proximity False) without them."""
    if not proximity:
        monkeypatch.setattr(implicit_module.ImplicitIntegrator, "_proximity_couplings",
                            NO_COUPLINGS)
    sim = scene.compile(dt=1e-3, scheme="implicit_euler", newton=sm.ImplicitOptions())
    sim.run(duration)
    return sim, sim.implicit_integrator().stats


def node_dofs(integrator, sim, rod, node):
    """Velocity DOF numbers (3,) of a rod's node (softmech.integrators.implicit numbering)."""
    slot = sim._engine().slots.node[rod] + node
    return integrator.kinds[0].offsets[0] + 3 * slot + np.arange(3)


def coupled(integrator, rows, cols):
    pairs = set(zip(*integrator._couplings))
    return any((r, c) in pairs for r in rows for c in cols)


def test_rods_near_each_other_are_coupled_before_they_touch():
    # b's middle 0.4 r above a's middle: not touching (no force), within reach (centres
    # 2.4 r apart < r_i + r_j + l_i + l_j = 2 r + 0.1 m); c is 1 m away
    sim = crossing_rods(0.4 * R).compile(dt=1e-3, scheme="implicit_euler",
                                        newton=sm.ImplicitOptions())
    integrator = sim.implicit_integrator()
    a_mid, b_mid = node_dofs(integrator, sim, "a", 2), node_dofs(integrator, sim, "b", 2)
    assert coupled(integrator, a_mid, b_mid) and coupled(integrator, b_mid, a_mid)
    c_all = np.concatenate([node_dofs(integrator, sim, "c", k) for k in range(5)])
    a_all = np.concatenate([node_dofs(integrator, sim, "a", k) for k in range(5)])
    assert not coupled(integrator, a_all, c_all) and not coupled(integrator, c_all, a_all)


def test_a_pair_near_in_one_world_only_is_coupled_for_the_batch():
    # two worlds share one pattern: b 0.4 r above a in world 1, 0.3 m above it (out of reach)
    # in world 0 (the block's lane 0, which the forces' probe sees); world 1's pair is coupled
    sim = crossing_rods(0.3).compile(worlds=2, dt=1e-3, scheme="implicit_euler",
                                     newton=sm.ImplicitOptions())
    b = sim.get_state("b")["positions"].copy()                              # (2, 5, 3)
    b[1, :, 2] -= 0.3 - 0.4 * R
    sim.set_state("b", positions=b)
    integrator = sim.implicit_integrator()
    a_mid, b_mid = node_dofs(integrator, sim, "a", 2), node_dofs(integrator, sim, "b", 2)
    assert coupled(integrator, a_mid, b_mid) and coupled(integrator, b_mid, a_mid)


@pytest.mark.parametrize("proximity", [True, False], ids=["with", "without"])
def test_a_stiff_contact_that_starts_during_the_run_converges(proximity, monkeypatch):
    # b falls 0.4 r onto a: contact k = 1e6 N/m against a node's m / h^2 = 1.6e4 N/m (h = 1 ms,
    # k h^2 / m = 64). With the proximity couplings Newton converges in a few iterations;
    # without them (ImplicitIntegrator._proximity_couplings none) it has no contact entries
    # once b lands, and crawls (a fixed-point iteration of ratio ~k h^2 / m) and halves.
    sim, stats = run_implicit(crossing_rods(0.4 * R), 0.2, proximity, monkeypatch)
    # b rests on a's middle (which sags under it): centrelines 2 r apart less the overlap
    # m_b g / k = 0.6 um
    rest = sim.get_state("b")["positions"][0][2, 2] - sim.get_state("a")["positions"][0][2, 2]
    np.testing.assert_allclose(rest, 2 * R, atol=1e-3 * R)
    # measured: 3.0 Newton iterations (corrections) per step with the couplings (4.4 residual
    # evaluations at Newton's points; 7 halvings, at the impact: b lands at 0.3 m/s, 0.3 mm
    # per step against a 0.6 um rest overlap), 182 without (484; 433 halvings); the bounds
    # leave a factor 2 either way (until 2026-12-06 the counter was the residual evaluations,
    # and the bounds 10 and 200)
    per_step = stats["iterations"] / stats["steps"]
    assert (per_step < 6 and stats["halvings"] < 20) if proximity else per_step > 90, stats


# ------------------------------------------------------------------- rod and rigid body
BALL_R, BALL_MASS, BEAM_ELEMS = 0.02, 0.05, 8


def ball_over_beam(gap, mesh=False, stiffness=1e6):
    """A free ball (radius 2 cm, 50 g; a sphere, or a 320-triangle icosphere mesh) `gap` [m]
    above the middle of a rod clamped at both ends (0.2 m, r = 1 cm, 8 elements), a far ball
    0.5 m away; one RodBodyContact, gravity."""
    scene = sm.Scene()
    beam = scene.add_cosserat_rod(name="beam", start=(-0.1, 0, 0), direction=(1, 0, 0),
                                  normal=(0, 0, 1), length=0.2, **(ROD | {"n_elems": BEAM_ELEMS}))
    for name, x in (("ball", 0.0), ("far", 0.5)):
        position = (x, 0.0, R + BALL_R + gap)
        if mesh:
            shape = icosphere(BALL_R, 2)
            scene.add_rigid_body(name=name, position=position, mass=BALL_MASS,
                                 inertia=0.4 * BALL_MASS * BALL_R**2 * np.eye(3),
                                 vertices=shape.vertices, faces=shape.triangles)
        else:
            scene.add_sphere(name=name, position=position, radius=BALL_R, mass=BALL_MASS)
    scene.add(sm.Clamp(beam, "first", name="clamp_first"))
    scene.add(sm.Clamp(beam, "last", name="clamp_last"))
    scene.add(sm.Gravity())
    scene.add(sm.RodBodyContact(stiffness=stiffness, damping=1.0, name="contact"))
    return scene


@pytest.mark.parametrize("mesh", [False, True], ids=["sphere", "mesh"])
def test_a_rod_element_near_a_body_is_declared_before_it_touches(mesh):
    # the ball 0.4 r above the beam's middle: not touching, within reach of the two middle
    # elements (centres within the bounding radius + r + l); the far ball near none
    sim = ball_over_beam(0.4 * R, mesh).compile(dt=1e-3)
    engine = sim._engine()
    call = [c for c in engine.calls if c.proximity is not None][0]
    near = call.proximity(call.args, 0, 0, sim.lanes.W)
    middle = engine.slots.elem["beam"] + np.array([BEAM_ELEMS // 2 - 1, BEAM_ELEMS // 2])
    assert set(middle) <= set(near.elems[:, 0].tolist())
    assert near.nodes.shape == (len(near.elems), 2) and near.bodies.shape == (len(near.elems), 1)
    # every pair near is the near ball's (rigid slots in the scene's order), none the far one's
    assert set(near.bodies[:, 0].tolist()) == {sim._rigid_index["ball"]}


@pytest.mark.parametrize("proximity", [True, False], ids=["with", "without"])
def test_a_stiff_rod_body_contact_that_starts_during_the_run_converges(proximity, monkeypatch):
    # the ball falls 0.4 r onto the beam: k = 1e6 N/m against the ball's m / h^2 = 5e4 N/m
    # (h = 1 ms, k h^2 / m = 20); the couplings join the beam's two middle elements to the
    # ball's six velocities
    sim, stats = run_implicit(ball_over_beam(0.4 * R), 0.8, proximity, monkeypatch)
    # measured: 2.0 Newton iterations per step with the couplings (no halvings), 90 without
    # (1,373 halvings in the 800 steps); the bounds leave a factor 2 either way
    per_step = stats["iterations"] / stats["steps"]
    assert (per_step < 5 and stats["halvings"] == 0) if proximity else per_step > 50, stats
    if proximity:
        # at rest on the two middle elements' shared node: the contact carries the weight
        # (1 %: the ball's residual bounce, damped by the contact's 1 kg/s) and each of the
        # two contacts overlaps by m g / (2 k) (Hooke)
        weight = BALL_MASS * 9.81
        lift = -float(body_contact_forces(sim, "beam")[0, :, 2].sum())
        np.testing.assert_allclose(lift, weight, rtol=1e-2)
        overlap, touching = body_contact_stats(sim)[0]
        assert touching == 2
        np.testing.assert_allclose(overlap * R, weight / (2 * 1e6), rtol=1e-2)
