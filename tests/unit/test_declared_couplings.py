"""Declared couplings (softmech.integrators.analytic.Couplings on a driver.Call): where every call
of a scene declares the entries dR/du it can make (the shells' stretching, hinge and mid-edge
stencils, their pressure and drag per triangle, a wave or a constraint none), the unified
engine's implicit integrator builds its Newton pattern from them instead of probing the
residual one DOF at a time (n_dof evaluations: 17,590 of them, 19.5 s, for an 11,421-triangle
plate; docs/benchmarks.md). The declared pattern must hold every coupling a probe finds (else
the finite-difference Jacobian misses entries), and a scene with a call that declares nothing
is still probed."""
import numpy as np
import pytest

import softmech as sm
import softmech.integrators.implicit as implicit
from softmech.bodies import meshes
from softmech.integrators.analytic import declared_couplings


def shell_scene(bending):
    """A 0.1 m square of 4 x 4 squares clamped along x = 0, under pressure and drag, its natural
    angles or curvatures waved."""
    scene = sm.Scene()
    mesh = meshes.rectangle(0.1, 0.1, 4)
    shell = scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e7,
                            density=1000.0, bending=bending)
    scene.add(sm.FixNodes(shell, np.flatnonzero(mesh.vertices[:, 0] <= 0)))
    scene.add(sm.ShellPressure(shell, 10.0))
    scene.add(sm.ShellDrag(shell, 1.0))
    name, amplitude = ("rest_angle", 0.2) if bending == "hinge" else ("rest_curvature",
                                                                      [5.0, 0.0, 0.0])
    scene.add(sm.ParameterWave(f"plate.{name}", amplitude, 2.0, name="wave"))
    return scene


def integrator(scene):
    return scene.compile(dt=1e-3, engine="unified").implicit_integrator()


def declared(integ):
    return declared_couplings(integ._calls, integ.engine.kinds, integ.kinds, integ.lanes.W,
                              integ.lanes.n_blocks, integ.n_dof)


def pairs(integ):
    """The Newton matrix's entries: the finite differences' couplings and the analytic terms'
    entries (softmech.integrators.analytic; since 2026-12-04 every shell term's)."""
    rows = np.concatenate([integ._couplings[0]] + [a.rows for _, a in integ._analytic])
    cols = np.concatenate([integ._couplings[1]] + [a.cols for _, a in integ._analytic])
    return set(zip(rows.tolist(), cols.tolist()))


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_the_declared_pattern_holds_every_probed_coupling(bending, monkeypatch):
    """The shells' declared couplings against the probe of the same scene: every probed one
    declared (the declared ones a probe misses are entries that vanish at the probed state,
    e.g. out of a flat plate's plane: they are kept, their values come from the differences)."""
    with_declared = integrator(shell_scene(bending))
    assert declared(with_declared) is not None
    monkeypatch.setattr(implicit, "declared_couplings", lambda *args: None)
    probed = integrator(shell_scene(bending))
    assert pairs(probed) <= pairs(with_declared)
    assert len(pairs(with_declared)) < 1.1 * len(pairs(probed))


def test_a_scene_with_an_undeclared_call_is_probed():
    """A discrete rod on the ground: the contact declares each node's own block (its Jacobian
    is analytic) and the damping declares none beyond a DOF's own (since 2026-12-05), so no
    probe; a user's force (sm.NodeUserForce: its couplings are unknown) makes the pattern
    probed as before."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.002), direction=(1.0, 0.0, 0.0),
                            length=0.1, n_elems=5, radius=1e-3, density=1000.0,
                            youngs_modulus=1e7)
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact(rod, stiffness=10.0, distance=1e-3))
    scene.add(sm.LinearDamping(rod, 10.0))
    assert declared(integrator(scene)) is not None
    scene.add(sm.NodeUserForce(rod, lambda t, x, v: -0.1 * v, name="user"))
    assert declared(integrator(scene)) is None
