"""Which engine Scene.compile picks when none is given (softmech.scene._default_engine; the
rule and its reasons: docs/implicit.md#a-scene)."""
import pytest

import softmech as sm
from softmech.bodies import meshes
from softmech.implicit.multigrid import AMG_MIN_NODES
from softmech import scene as scene_module
from softmech.scene import UNIFIED_SHELL_NODES
from softmech.implicit.newton import NewtonOptions
from softmech.implicit.simulation import ImplicitSimulation
from softmech.simulation import Simulation


def shell_scene(divisions=4, rod=False, cosserat=False):
    scene = sm.Scene()
    scene.add_shell(name="sheet", mesh=meshes.rectangle(0.1, 0.1, divisions), thickness=1e-3,
                    youngs_modulus=1e6, density=1000.0)
    if rod:
        scene.add_der_rod(name="mast", start=(0, 0, 0.01), direction=(0, 0, 1), length=0.05,
                          n_elems=4, radius=1e-3, density=1000.0, youngs_modulus=1e6)
    if cosserat:
        scene.add_cosserat_rod(start=(0, 0, 0.1), direction=(1, 0, 0), normal=(0, 0, 1),
                               length=0.1, n_elems=4, radius=1e-3, density=1000.0,
                               youngs_modulus=1e6)
    return scene


def rod_scene():
    scene = sm.Scene()
    scene.add_der_rod(name="whip", start=(0, 0, 0), direction=(1, 0, 0), length=0.2,
                      n_elems=6, radius=2e-3, density=1200.0, youngs_modulus=2e6)
    return scene


@pytest.mark.parametrize("build, options, expected", [
    (lambda: shell_scene(), {}, Simulation),                      # shells: unified
    (lambda: shell_scene(rod=True), {}, Simulation),              # shells with discrete rods
    (lambda: shell_scene(cosserat=True), {}, Simulation),         # mixed: unified
    (lambda: shell_scene(), {"newton": NewtonOptions()}, ImplicitSimulation),
    (lambda: shell_scene(), {"scheme": "symplectic_euler"}, Simulation),    # every kind has it
    (lambda: shell_scene(), {"engine": "discrete"}, ImplicitSimulation),
    (rod_scene, {}, ImplicitSimulation),                          # discrete rods alone
    (rod_scene, {"engine": "unified"}, Simulation),
])
def test_the_default_engine(build, options, expected):
    sim = build().compile(dt=1e-3, **options)
    assert type(sim) is expected


def test_large_shells_stay_on_the_discrete_engine(monkeypatch):
    """From UNIFIED_SHELL_NODES shell nodes the discrete engine (its multigrid; beyond the
    sizes where the unified engine was measured faster: scene.UNIFIED_SHELL_NODES); below it
    the unified engine, also above the multigrid's own threshold (AMG_MIN_NODES). The rule is
    checked at a lowered threshold: compiling a shell of 100,000 nodes took this test 90 s."""
    assert UNIFIED_SHELL_NODES > AMG_MIN_NODES
    threshold = 2 * AMG_MIN_NODES
    monkeypatch.setattr(scene_module, "UNIFIED_SHELL_NODES", threshold)
    divisions = 2
    while len(meshes.rectangle(0.1, 0.1, divisions).vertices) < threshold:
        divisions += 2
    below = divisions - 2
    assert AMG_MIN_NODES <= len(meshes.rectangle(0.1, 0.1, below).vertices) < threshold
    assert type(shell_scene(below).compile(dt=1e-3)) is Simulation
    assert type(shell_scene(divisions).compile(dt=1e-3)) is ImplicitSimulation


@pytest.mark.parametrize("engine", ["discrete", "unified"])
def test_a_value_for_every_world_is_taken_bare_on_both_engines(engine):
    """A script that set `params[...] = 5.0` on a shell scene (the discrete engine, the default
    before) keeps working on the unified engine: a value without the world axis is every
    world's (was refused there, "expected (1) or (2)"); a wrong shape names the ones allowed."""
    import numpy as np

    scene = shell_scene()
    scene.add(sm.ShellPressure("sheet", 1.0, name="pressure"))
    bare, rows = scene.compile(dt=1e-3, worlds=2, engine=engine), \
        scene.compile(dt=1e-3, worlds=2, engine=engine)
    bare.params["pressure.pressure"] = 5.0
    rows.params["pressure.pressure"] = [5.0, 5.0]
    bare.step(3)
    rows.step(3)
    np.testing.assert_array_equal(bare.get_state("sheet")["positions"],
                                  rows.get_state("sheet")["positions"])
    assert np.ptp(bare.get_state("sheet")["positions"][..., 2]) > 0
    bad = scene.compile(dt=1e-3, worlds=2, engine=engine)
    with pytest.raises(ValueError, match=r"pressure.pressure.*\(3,\)"):
        bad.params["pressure.pressure"] = [1.0, 2.0, 3.0]  # (refused here by the discrete
        bad.step(1)                                         # engine, at the step by the other)
