"""sm.RodShellJoint on the unified engine's discrete kind (its network's springs in the kind's
elasticity: softmech.der_packing.DerSlots' joint edges and springs, softmech.terms.der_kind)
against the discrete engine, whose joint tests/validation/test_rod_shell_joint.py validates
against the Euler-Bernoulli cantilever and uniform torsion; and the explicit stability
estimate of the joint's springs (softmech.der_stability).

Scene: the rod of test_rod_shell_joint (L = 0.2 m, 20 edges, r = 2 mm, E = 1 GPa) on the
central node of its 40 x 40 mm plate (2 mm, E = 10 GPa), the plate held along one edge, under
gravity with a sideways tip load, so that the joint bends and twists the free side of the
plate."""
import warnings

import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from softmech.diagnostics import bending_twisting
from softmech.implicit.newton import NewtonOptions

from test_rod_shell_joint import ELEM, E, N, R

TIGHT = {"unified": sm.ImplicitOptions(tol=1e-12), "discrete": NewtonOptions(rtol=1e-13)}
"""Newton tolerances far below the defaults, so that the engines differ by the model, not by
where each Newton stops (as in test_der_kind_shells.py)."""

STEPS = 30
"""Implicit Euler steps of 1 ms."""


def joined(bending="hinge", through=False, connection="joint", stiffness=1.0):
    """The scene: the rod standing on the plate's central node c (rod node 0), or passing
    through it (through=True: node N + 1 of 2 N + 3 on c, an interior node with two edges);
    the plate's nodes at x = -20 mm held; gravity; a tip load (2, 1, 0) mN at the rod's top
    end. connection: "joint" (RodShellJoint "joint") or "hinge" (JoinNodes)."""
    scene = sm.Scene()
    plate = scene.add_shell(name="plate", mesh=meshes.rectangle(0.04, 0.04, 6,
                                                                origin=(-0.02, -0.02, 0.0)),
                            thickness=2e-3, youngs_modulus=1e10, density=1000.0,
                            bending=bending)
    c = int(np.argmin(np.linalg.norm(plate.vertices, axis=1)))
    s = (np.arange(2 * N + 3) - (N + 1)) * ELEM if through else np.arange(N + 2) * ELEM
    rod = scene.add_der_rod(name="rod", centerline=plate.vertices[c] + np.outer(s, [0, 0, 1.0]),
                            radius=R, density=1000.0, youngs_modulus=E, normal=(1.0, 0.0, 0.0))
    node = N + 1 if through else 0
    if connection == "joint":
        scene.add(sm.RodShellJoint(rod, node, plate, c, stiffness=stiffness, name="joint"))
    else:
        scene.add(sm.JoinNodes(rod, node, plate, c))
    held = np.flatnonzero(np.abs(plate.vertices[:, 0] + 0.02) < 1e-9)
    scene.add(sm.FixNodes(plate, held, name="wall"))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    scene.add(sm.NodeForce(rod, len(s) - 1, (2e-3, 1e-3, 0.0), name="load"))
    return scene


def stepped(scene, engine, worlds=1, params=None):
    """The simulation after STEPS implicit steps."""
    sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine], worlds=worlds)
    for key, value in (params or {}).items():
        sim.params[key] = value
    sim.step(STEPS)
    return sim


def final_state(scene, engine, worlds=1, params=None):
    """(rod positions (B, n, 3), plate positions (B, v, 3)) after STEPS implicit steps."""
    sim = stepped(scene, engine, worlds, params)
    return sim.get_state("rod")["positions"], sim.get_state("plate")["positions"]


@pytest.mark.parametrize("bending, through", [("hinge", False), ("midedge", False),
                                              ("hinge", True)])
def test_a_rod_shell_joint_on_the_kind_equals_the_discrete_engines(bending, through):
    """30 steps: the rod's and the plate's nodes within 1e-9 m of the discrete engine's
    (measured 2026-12-01: 5.6e-14 m for the rod's end on a hinge plate; the rod's nodes move
    up to 2.8-3.7 mm). The same scene with the nodes only shared (JoinNodes, a hinge: the rod
    turns about the node instead of bending) ends more than half that motion away (measured
    0.92-1.3 of it): the agreement is the joint's moment, not the shared node's."""
    scene = joined(bending, through)
    start = scene.compile(dt=1e-3, engine="unified").get_state("rod")["positions"]
    rod_u, plate_u = final_state(scene, "unified")
    rod_d, plate_d = final_state(joined(bending, through), "discrete")
    assert np.abs(rod_u - rod_d).max() < 1e-9
    assert np.abs(plate_u - plate_d).max() < 1e-9
    rod_h, _ = final_state(joined(bending, through, connection="hinge"), "unified")
    assert np.abs(rod_h - rod_d).max() > 0.5 * np.abs(rod_d - start).max()


def test_the_joints_energy_is_counted_in_the_rods_diagnostics():
    """The joint's bending and twisting energies are added to the rod's (as the discrete engine
    counts them): equal to the discrete engine's within 1e-8 relative after the 30 steps
    (measured 6e-11), and the joint's springs hold more than 1 % of the bending energy
    (measured 1.4 %: the rod's own springs alone, softmech.diagnostics.bending_twisting,
    hold the rest). The spin of the joint's shell edges is added to the
    rod's rotational energy (the discrete engine leaves it out: measured 5.3e-10 J against
    the rod's own twist spin of 1.8e-14 J)."""
    energies = {}
    for engine in ("unified", "discrete"):
        d = stepped(joined(), engine).diagnostics("rod")
        energies[engine] = d
        for key in ("bending_energy", "twisting_energy"):
            assert d[key][0] > 0
    for key in ("bending_energy", "twisting_energy"):
        assert energies["unified"][key][0] == pytest.approx(energies["discrete"][key][0],
                                                            rel=1e-8)
    assert energies["unified"]["rotational_energy"][0] > energies["discrete"][
        "rotational_energy"][0]
    sim = stepped(joined(), "unified")
    own = sim.get_state("rod")
    rod = next(r for r in sim.der_rods if r.name == "rod")
    q = np.concatenate([own["positions"][0].ravel(), own["twist"][0]])
    p = sim._engine().ctx.der_params["rod"]
    alone = bending_twisting(rod, q, own["reference_a1"][0], own["reference_tangent"][0],
                             own["reference_twist"][0], p["youngs_modulus"][0],
                             p["shear_modulus"][0], p["natural_curvature"][0],
                             p["natural_twist"][0])[0]
    assert alone < 0.99 * energies["unified"]["bending_energy"][0]


def test_the_joints_stiffness_is_a_per_world_parameter():
    """Two worlds with stiffness 1 and 100 ("joint.stiffness", (B,)) step as the discrete
    engine with each (within 1e-9 m); the stiffer joint deflects the rod less."""
    rod_u, _ = final_state(joined(), "unified", worlds=2,
                           params={"joint.stiffness": np.array([1.0, 100.0])})
    for world, stiffness in enumerate((1.0, 100.0)):
        rod_d, _ = final_state(joined(stiffness=stiffness), "discrete")
        assert np.abs(rod_u[world] - rod_d[0]).max() < 1e-9
    assert abs(rod_u[1, -1, 0] - rod_u[1, 0, 0]) < abs(rod_u[0, -1, 0] - rod_u[0, 0, 0])


def test_the_explicit_limit_covers_the_joints_springs():
    """A joint 1000x the rod's stiffness sets the scene's explicit limit (its springs join
    edges at right angles, so bending reaches the edges' twists: softmech.der_stability.
    _joint_limit's Gershgorin bound on the mass-weighted Hessian). Position Verlet at 0.9 of
    the estimate stays within 1 cm of the start over 1 ms (measured: the tip moves 3 mm); at
    3x it diverges (measured: unstable already at 1.5x), so the estimate is neither unsafe
    nor more than 3x too small."""
    def simulation(dt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)      # (3x: above the estimate)
            return joined(stiffness=1000.0).compile(engine="unified", scheme="verlet", dt=dt)

    limit = float(simulation(1e-7).time_step_limit().min())
    soft = float(joined().compile(engine="unified", scheme="verlet",
                                  dt=1e-7).time_step_limit().min())
    assert limit < 0.5 * soft                     # the joint's springs set it
    sim = simulation(0.9 * limit)
    start = sim.get_state("rod")["positions"][0]
    sim.run(1e-3)
    assert np.abs(sim.get_state("rod")["positions"][0] - start).max() < 1e-2
    with pytest.raises(sm.SimulationDiverged):
        simulation(3.0 * limit).run(1e-3)
