"""A study (sweep / optimization, softmech.optimize.study) over a discrete rod's per-world
stiffness: no recompiling per candidate, each world equal to a scene built with that modulus,
and every evaluation starting from the same state (the rods' reference frames included)."""
import numpy as np
import pytest

import softmech as sm
from softmech.optimize.settings import study_of
from softmech.scenefile.schema import RunSettings, Scenario

MODULI = np.array([[2e6], [5e7]])
TABLE = {"parameters": [{"path": "rod.youngs_modulus", "lower": 1e6, "upper": 1e8, "log": True}],
         "objectives": {"tip": {"quantity": "final_position", "rod": "rod", "axis": "z",
                                "window": [0.0, 0.2]},
                        "energy": {"quantity": "energy", "rod": "rod", "kind": "elastic",
                                   "reduce": "final", "window": [0.0, 0.2]}},
         "objective": "tip"}


def swinging_rod(E, engine=None):
    """A 0.2 m DER cantilever released straight under gravity (0.2 s, dt = 10 ms), on the
    given engine (None: the default, the discrete engine for discrete rods alone)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), length=0.2,
                            n_elems=8, radius=2e-3, density=1200.0, youngs_modulus=E)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    scene.add(sm.Gravity())
    return Scenario(scene=scene, run=RunSettings(dt=1e-2, duration=0.2, engine=engine),
                    name="swing")


@pytest.mark.parametrize("engine", [None, "unified"])
def test_a_study_sweeps_a_discrete_rods_modulus_without_rebuilding(engine):
    """Both engines. On the unified engine each evaluation started where the last one left the
    rod until 2026-12-05 (the study restored the Cosserat rods and rigid bodies only, and kept
    the implicit integrator's memory): the second evaluation's tips were -0.0636 and -0.0149 m
    against -0.0705 and -0.0176 m. Now Simulation.snapshot / restore carry every body kind,
    the clock and the integrator's memory."""
    study = study_of(swinging_rod(1e7, engine), TABLE)
    assert not study.rebuild                     # a per-world parameter: one compiled scene
    first = study.evaluate(MODULI)
    again = study.evaluate(MODULI)               # starts from the same state and frames
    for name in TABLE["objectives"]:
        np.testing.assert_array_equal(first[name], again[name])
    assert first["tip"][0] < first["tip"][1] < 0    # the softer rod sags more
    for k, (E,) in enumerate(MODULI):
        # the stiffness is the section constant times the world's modulus either way (the
        # same products), so the batched world equals the scene built with E, bit for bit
        single = swinging_rod(E, engine).compile()
        single.run(0.2)
        d = single.diagnostics("rod")
        assert first["tip"][k] == d["com"][0, 2]
        assert first["energy"][k] == pytest.approx(
            sum(d[key][0] for key in ("stretch_energy", "bending_energy", "twisting_energy")),
            rel=1e-12)


def test_a_study_names_a_missing_discrete_rod_parameter():
    table = dict(TABLE, parameters=[{"path": "rod.stiffnes", "lower": 1.0, "upper": 2.0}])
    with pytest.raises(ValueError, match="youngs_modulus"):
        study_of(swinging_rod(1e7), table)


def test_a_study_rebuilds_a_discrete_rod_for_a_construction_field():
    # the radius is not a per-world parameter: the scene is rebuilt per candidate
    table = dict(TABLE, parameters=[{"path": "rod.radius", "lower": 1e-3, "upper": 4e-3}])
    study = study_of(swinging_rod(1e7), table)
    assert study.rebuild
    values = study.evaluate(np.array([[1.5e-3], [3e-3]]))
    assert values["tip"][0] < values["tip"][1] < 0     # the thinner rod sags more
