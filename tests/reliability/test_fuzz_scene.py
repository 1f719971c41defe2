"""Fuzzed Python scene building: the Scene builder called with what a script can pass and a file
cannot -- sizes from 0 to 10^9 (n_elems, worlds), None, numpy arrays of the wrong shape or
dtype, complex numbers, objects; empty, degenerate and duplicate-node meshes; terms naming
bodies that are not in the scene; time steps from 10^-9 s to 10^3 s (far above the stable
step). The property is fuzz_cases.run_case's: it runs a few steps with a finite state, or is
refused with a ValueError naming the field before any work, or stops with SimulationDiverged."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import softmech as sm
from fuzz_cases import (DEFAULT_EXAMPLES, SLOW_EXAMPLES, fuzz_settings, new_outcomes, report,
                        run_case, warm_up)
from softmech.bodies import meshes
from softmech.scenefile.schema import RunSettings, Scenario

PY_BAD = [None, math.nan, math.inf, -1, 0, 0.0, 1e300, 10**9, 10**30, 1j, "1e7", "", b"x",
          object(), [], [[]], np.array([1.0, 2.0]), np.array(["a", "b", "c"]),
          np.zeros((2, 3)), np.float32("nan"), np.int64(-3), True, {"a": 1}]
"""Values a script might pass by mistake (a file cannot hold most of them)."""

ROD = dict(name="rod", start=(0.0, 0.0, 0.05), direction=(1.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0),
           length=0.5, n_elems=6, radius=0.02, density=1000.0, youngs_modulus=1e5)
SIZES = st.one_of(st.integers(-3, 40), st.integers(10**9, 2**63 - 1),
                  st.sampled_from([10**9, 2**31, 2**40, 2**63 - 1]))
"""n_elems / worlds: small (legal or not) or beyond any machine's memory (10^9 elements need
~2 TB). Legal large sizes (10^4 .. 10^6) are valid input, slow to build: not drawn."""


def _maybe_bad(draw, good, field, fields):
    """`good`, or (one time in four) a bad value, its field then added to `fields`."""
    if draw(st.integers(0, 3)):
        return good
    fields.append(field)
    return draw(st.sampled_from(PY_BAD))


@st.composite
def rod_scene(draw):
    """A clamped rod under gravity, ground contact and a tip load, with any of its arguments
    (and the time step, the number of worlds) possibly bad; fields: the names of those
    changed."""
    kw, fields = dict(ROD), []
    for key in ("start", "direction", "normal", "length", "radius", "density",
                "youngs_modulus"):
        kw[key] = _maybe_bad(draw, kw[key], key, fields)
    if draw(st.booleans()):
        kw["n_elems"], fields = draw(SIZES), fields + ["n_elems"]
    dt = 10.0 ** draw(st.integers(-9, 3)) if draw(st.booleans()) else 1e-5
    worlds = draw(SIZES) if draw(st.integers(0, 4)) == 0 else 1
    force = _maybe_bad(draw, (0.0, -0.1, 0.0), "force", fields)
    target = draw(st.sampled_from(["rod", "rod", "rod", "nobody", None, 3]))
    fields += [name for name, changed in (("dt", dt != 1e-5), ("worlds", worlds != 1),
                                          ("rod", target != "rod")) if changed]
    return (lambda: _rod_scenario(kw, dt, worlds, force, target)), fields


def _rod_scenario(kw, dt=1e-5, worlds=1, force=(0.0, -0.1, 0.0), target="rod"):
    """rod_scene's scenario from its (possibly bad) arguments; the defaults are the valid ones."""
    scene = sm.Scene()
    scene.add_cosserat_rod(**kw)
    scene.add(sm.Gravity())
    scene.add(sm.Clamp("rod", "first"))
    scene.add(sm.GroundContact("rod", friction=sm.AnisotropicFriction(1.0, 1.5, 2.0)))
    scene.add(sm.EndLoad(target, force=force, name="end_load"))
    return Scenario(scene=scene, run=RunSettings(dt=dt, duration=0.0, worlds=worlds))


def _mesh(draw):
    """Vertices and triangles of a small sheet, possibly broken: empty, a NaN, a duplicate
    node, a degenerate (collinear) triangle, an index out of range, a float or negative
    index, a triangle repeated."""
    mesh = meshes.rectangle(0.1, 0.05, 2)
    v, t = mesh.vertices.copy(), mesh.triangles.copy()
    how = draw(st.sampled_from(["ok", "empty_v", "empty_t", "nan", "duplicate", "collinear",
                                "range", "negative", "float", "repeat", "flat_list", "bad"]))
    if how == "empty_v":
        v = np.zeros((0, 3))
    elif how == "empty_t":
        t = np.zeros((0, 3), int)
    elif how == "nan":
        v[1, 2] = np.nan
    elif how == "duplicate":
        v = np.vstack([v, v[:1]])
        t = np.vstack([t, [[len(v) - 1, 1, 2]]])
    elif how == "collinear":
        v[2] = 0.5 * (v[0] + v[1])
    elif how == "range":
        t[0, 0] = len(v) + 5
    elif how == "negative":
        t[0, 0] = -1
    elif how == "float":
        t = t.astype(float) + 0.5
    elif how == "repeat":
        t = np.vstack([t, t[:1]])
    elif how == "flat_list":
        v = v.reshape(-1).tolist()
    elif how == "bad":
        v = draw(st.sampled_from(PY_BAD))
    return v, t, how


@st.composite
def shell_scene(draw):
    """A sheet (shell) fixed on two nodes, with a possibly broken mesh, thickness, modulus or
    time step, and a pressure on it or on a missing body."""
    v, t, how = _mesh(draw)
    fields = ["dt"] + (["vertices", "triangles"] if how != "ok" else [])
    thickness = _maybe_bad(draw, 1e-3, "thickness", fields)
    modulus = _maybe_bad(draw, 1e6, "youngs_modulus", fields)
    dt = 10.0 ** draw(st.integers(-6, 3))
    target = draw(st.sampled_from(["sheet", "sheet", "ghost"]))
    if target != "sheet":
        fields.append("shell")

    return (lambda: _shell_scenario(v, t, thickness, modulus, dt, target)), fields


def _shell_scenario(v, t, thickness=1e-3, modulus=1e6, dt=1e-3, target="sheet"):
    """shell_scene's scenario from its (possibly bad) arguments."""
    scene = sm.Scene()
    scene.add_shell(name="sheet", vertices=v, triangles=t, thickness=thickness,
                    youngs_modulus=modulus, density=1000.0)
    scene.add(sm.FixNodes("sheet", nodes=[0, 1]))
    scene.add(sm.ShellPressure(target, 5.0))
    scene.add(sm.Gravity())
    return Scenario(scene=scene, run=RunSettings(dt=dt, duration=0.0))


GOOD_B = ("ball", (0.0, 0.0, -0.05))
"""The joint's valid end on the ball: its lowest point, at the rod's top (0, 0, 0.8)."""


@st.composite
def rigid_scene(draw):
    """A sphere on the ground hinged to a clamped rod; the joint may name a missing body or
    anchor, the sphere's size and mass may be bad."""
    fields = ["dt"]
    radius = _maybe_bad(draw, 0.05, "radius", fields)
    density = _maybe_bad(draw, 500.0, "density", fields)
    a = draw(st.sampled_from([("rod", "last"), ("rod", "middle"), ("ghost", "last"), ("rod", 99),
                              ("rod", -1), "rod", None]))
    b = draw(st.sampled_from([GOOD_B, ("nobody", (0, 0, 0)),
                              ("ball", (math.nan, 0, 0)), ("ball", "attach")]))
    stiffness = _maybe_bad(draw, 1e3, "stiffness", fields)
    dt = 10.0 ** draw(st.integers(-7, 1))
    if a != ("rod", "last"):
        fields += ["a", "rod", "ghost", "end", "node"]
    if b != GOOD_B:
        fields += ["b", "nobody", "anchor", "point"]

    return (lambda: _rigid_scenario(radius, density, a, b, stiffness, dt)), fields


def _rigid_scenario(radius=0.05, density=500.0, a=("rod", "last"), b=GOOD_B, stiffness=1e3,
                    dt=1e-5):
    """rigid_scene's scenario from its (possibly bad) arguments; the defaults are the valid ones."""
    scene = sm.Scene()
    scene.add_cosserat_rod(**{**ROD, "start": (0.0, 0.0, 0.5), "direction": (0.0, 0.0, 1.0),
                              "normal": (1.0, 0.0, 0.0), "length": 0.3})
    scene.add(sm.Clamp("rod", "first"))
    scene.add_sphere(name="ball", position=(0.0, 0.0, 0.85), radius=radius, density=density)
    scene.add(sm.SphericalJoint(a, b, stiffness=stiffness, damping=0.1))
    scene.add(sm.GroundContact("ball", stiffness=1e3, damping=1.0, name="rigid_ground_contact"))
    scene.add(sm.Gravity())
    return Scenario(scene=scene, run=RunSettings(dt=dt, duration=0.0))


CASES = st.one_of(rod_scene(), shell_scene(), rigid_scene())


def fuzz_scenes(n, slow):
    # the valid scenes compile their kernels first, outside a case's time limit (a cold cache
    # is not a hang: fuzz_cases.warm_up)
    warm_up(lambda: _rod_scenario(dict(ROD)))
    warm_up(lambda: _rigid_scenario())
    sheet = meshes.rectangle(0.1, 0.05, 2)
    warm_up(lambda: _shell_scenario(sheet.vertices, sheet.triangles))
    outcomes = new_outcomes()

    @fuzz_settings(n, slow=slow)
    @given(CASES)
    def case(drawn):
        load, fields = drawn
        run_case(load, fields, outcomes)

    case()
    return outcomes


def test_fuzzed_scenes_run_or_fail_clearly(capsys):
    outcomes = fuzz_scenes(DEFAULT_EXAMPLES, slow=False)
    report("Python scenes", outcomes, capsys)
    assert sum(outcomes.values()) >= DEFAULT_EXAMPLES // 2


@pytest.mark.slow
def test_fuzzed_scenes_run_or_fail_clearly_many(capsys):
    outcomes = fuzz_scenes(SLOW_EXAMPLES, slow=True)
    report("Python scenes (slow)", outcomes, capsys)
    assert sum(outcomes.values()) >= SLOW_EXAMPLES // 2
