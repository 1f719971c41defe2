"""Smallest end-to-end check: a clamped rod under a tip load bends towards the load."""
import numpy as np

import softmech as sm


def test_clamped_rod_bends_towards_tip_load():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="beam", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                                 length=1.0, n_elems=10, radius=0.05, density=1000.0,
                                 youngs_modulus=1e6)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.EndLoad(rod, force=(0, -1.0, 0), name="tip"))
    sim = scene.compile(dt=1e-4)
    sim.run(0.05)
    x = sim.get_state()["positions"][0]
    assert np.all(np.isfinite(x))
    assert x[-1, 1] < -1e-6
    np.testing.assert_array_equal(x[0], [0.0, 0.0, 0.0])
