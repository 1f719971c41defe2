"""Planar scenes (sm.Planar, softmech.terms.planar): a rod or sheet that starts in a plane and is
loaded in it solves the same problem with the out-of-plane DOFs and the twist / mid-edge angles
removed from the Newton system. Reference: the same scene solved in 3D (by symmetry its motion
stays in the plane); tolerance 1e-12 of the body's size (round-off; measured: identical, 0.0).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from softmech.validation.der import FULL_STEPS, cantilever

ROUND_OFF = 1e-12


def run_both(build, action):
    """action(sim) -> array, for the 3D scene and the same scene with sm.Planar; also the
    number of free DOFs of each."""
    out = []
    for planar in (False, True):
        scene, normal = build()
        if planar:
            scene.add(sm.Planar(normal))
        sim = scene.compile(dt=1e-2, newton=FULL_STEPS)
        out.append((action(sim), len(sim.stepper.free), sim.layout.n_dof))
    return out


def curved_cantilever(E):
    """The DER cantilever (L = 1 m, n = 50, along x, gravity -z, first director m1 = +y) with a
    natural curvature in its plane y = 0 (kappa2 = 0.5 1/m about m1) and the material frames
    turned by a half turn (twist pi: m1 = -y; any other angle would turn the natural curvature
    out of the plane)."""
    def build():
        scene, rod = cantilever(E, natural_curvature=np.tile([0.0, 0.5], (50, 1)), twist=np.pi)
        return scene, "y"
    return build


@pytest.mark.parametrize("E", [1e8, 1e10])
def test_a_planar_cantilever_sags_as_in_3d_with_half_the_unknowns(E):
    (x3, free3, n), (x2, free2, _) = run_both(
        curved_cantilever(E), lambda sim: (sim.solve_static(), sim.get_state("rod"))[1])
    # 3D: 4N - 1 DOFs (N = 52 nodes) less the clamp's 7; planar: the N x and z, less 4 clamped
    assert (n, free3, free2) == (207, 200, 100)
    assert np.abs(x3["positions"][0, :, 2]).max() > 1e-3       # it does sag
    np.testing.assert_allclose(x2["positions"], x3["positions"], rtol=0, atol=ROUND_OFF)
    np.testing.assert_allclose(x2["angles"], x3["angles"], rtol=0, atol=ROUND_OFF)


def test_a_planar_swinging_cantilever_moves_as_in_3d():
    # a soft rod (1e7 Pa, tip sag ~ L) released straight under gravity: 0.5 s of dynamics
    record = sm.Every(0.05, ("rod.positions", "rod.angles"))
    (a, free3, _), (b, free2, _) = run_both(curved_cantilever(1e7),
                                            lambda sim: sim.run(0.5, record=record))
    assert free2 == free3 // 2
    assert np.ptp(a["rod.positions"][..., 2]) > 0.3
    np.testing.assert_allclose(b["rod.positions"], a["rod.positions"], rtol=0, atol=ROUND_OFF)


def hanging_sheet(bending):
    """A builder of a 0.1 x 0.05 m sheet (`bending`) in the plane z = 0 hanging from its top
    row under gravity -y (in-plane: a membrane problem): () -> (scene, "z")."""
    def build():
        scene = sm.Scene()
        sheet = scene.add_shell(name="sheet", mesh=meshes.rectangle(0.1, 0.05, 6),
                                thickness=1e-3, youngs_modulus=1e5, density=1000.0,
                                bending=bending)
        top = np.flatnonzero(sheet.vertices[:, 1] >= sheet.vertices[:, 1].max() - 1e-12)
        scene.add(sm.FixNodes(sheet, top))
        scene.add(sm.Gravity((0.0, -9.81, 0.0)))
        return scene, "z"
    return build


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_a_planar_sheet_hangs_as_in_3d(bending):
    # the planar solve drops z and the mid-edge angles
    build = hanging_sheet(bending)
    (a, free3, n), (b, free2, _) = run_both(build, lambda sim: sim.run(
        0.1, record=sm.Every(0.05, ("sheet.positions",)))["sheet.positions"])
    assert free2 < 0.7 * free3
    assert np.ptp(a[..., 1]) > 1e-4                                 # it does stretch
    np.testing.assert_allclose(b, a, rtol=0, atol=ROUND_OFF * 0.1)


def test_planar_arguments_are_checked():
    with pytest.raises(ValueError, match="normal"):
        sm.Planar("w")
    scene, _ = cantilever(1e8)
    scene.add(sm.Planar("z"))          # the rod lies along x at y = z = 0, but its first node
    scene.compile(dt=1e-2)             # is in that plane too: allowed
    tilted, rod = cantilever(1e8)
    tilted.add(sm.Planar("x"))
    with pytest.raises(ValueError, match="off the plane"):
        tilted.compile(dt=1e-2)
    twice, _ = cantilever(1e8)
    twice.add(sm.Planar("y"))
    twice.add(sm.Planar("y", name="again"))
    with pytest.raises(ValueError, match="one sm.Planar"):
        twice.compile(dt=1e-2)
