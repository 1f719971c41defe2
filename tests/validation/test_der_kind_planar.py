"""sm.Planar on the unified engine's discrete kind (softmech.terms.planar.Planar.contribute: the
nodes' coordinate along the normal and every edge angle held by the kind's FixNodes
constraints). Reference, as for the discrete engine (test_planar.py): the same scene solved in
3D, whose motion stays in the plane by symmetry (reflection through the plane maps the problem
onto itself); tolerance 1e-12 of the body's size (round-off). And the discrete engine's Planar
run, within the two Newtons' stopping rules."""
import numpy as np
import pytest

import softmech as sm

from test_planar import ROUND_OFF, curved_cantilever, hanging_sheet


def run(build, planar, body, engine="unified", duration=0.5, dt=1e-2):
    """The positions of `body` recorded over `duration` [s] of `build`'s scene (with sm.Planar
    if planar) compiled for `engine`."""
    scene, normal = build()
    if planar:
        scene.add(sm.Planar(normal))
    sim = scene.compile(dt=dt, engine=engine)
    key = f"{body}.positions"
    return sim.run(duration, record=sm.Every(duration / 10, (key,)))[key]


def test_a_planar_swinging_cantilever_moves_as_in_3d_and_in_the_discrete_engine():
    """The soft curved cantilever of test_planar.py (1e7 Pa, released straight, its tip
    swinging ~0.9 m in 0.5 s): Planar equal to the 3D run within round-off (measured 7e-18 m),
    and to the discrete engine's Planar run within 1e-7 m, where the two engines' 3D runs
    differ by their Newtons' stopping rules (both measured 1.2e-8 m, 2026-12-04)."""
    build = curved_cantilever(1e7)
    planar, flat3d = run(build, True, "rod"), run(build, False, "rod")
    assert np.ptp(flat3d[..., 2]) > 0.3
    assert np.abs(planar[..., 1]).max() == 0.0          # held in the plane y = 0
    np.testing.assert_allclose(planar, flat3d, rtol=0, atol=ROUND_OFF)
    np.testing.assert_allclose(planar, run(build, True, "rod", "discrete"), rtol=0, atol=1e-7)


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_a_planar_sheet_hangs_as_in_3d(bending):
    """test_planar.py's 0.1 x 0.05 m sheet in the plane z = 0 hanging from its top row under
    gravity -y (a membrane problem): Planar equal to the 3D run within round-off."""
    build = hanging_sheet(bending)
    planar, flat3d = (run(build, flag, "sheet", duration=0.1) for flag in (True, False))
    assert np.ptp(flat3d[..., 1]) > 1e-4                           # it does stretch
    np.testing.assert_allclose(planar, flat3d, rtol=0, atol=ROUND_OFF * 0.1)


def test_planar_on_the_unified_engine_is_checked():
    """Off the plane, twice, or beside bodies it does not hold: refused before any step."""
    build = curved_cantilever(1e8)
    tilted, _ = build()
    tilted.add(sm.Planar("x"))
    with pytest.raises(ValueError, match="off the plane"):
        tilted.compile(dt=1e-2, engine="unified")
    twice, _ = build()
    twice.add(sm.Planar("y"))
    twice.add(sm.Planar("y", name="again"))
    with pytest.raises(ValueError, match="one sm.Planar"):
        twice.compile(dt=1e-2, engine="unified")
    mixed, _ = build()
    mixed.add_sphere(name="ball", position=(0.0, 0.0, 1.0), radius=0.05, density=1000.0)
    mixed.add(sm.Planar("y"))
    with pytest.raises(ValueError, match="rigid bodies on the unified engine"):
        mixed.compile(dt=1e-2)
