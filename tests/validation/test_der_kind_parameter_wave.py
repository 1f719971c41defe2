"""sm.ParameterWave on the unified engine's discrete kind (softmech.terms.der_kind.
DerParameterWaves, softmech.kernels.der_kind.der_parameter_wave): a discrete rod's natural
curvature or twist, a hinge shell's natural angles and a mid-edge shell's natural curvatures
driven by offset + ramp(t) A sin(2 pi f t + phase) (ref. 004 sec. 6.1, actuation by natural
curvature), written into the kind's packed tables at the time of every force evaluation.
Checked against the exact rest shape of a discrete rod (the natural polygon) and against the
discrete engine, whose wave writes the per-world parameter that its bindings read."""
import math

import numpy as np
import pytest

import softmech as sm
from softmech.scenarios.shells import build_manta

from test_der_kind_shells import TIGHT, plate
from test_der_kind_schedule import KAPPA, L, N, R, RHO, E, H


def waved_rod(engine, parameter, amplitude, frequency, phase, ramp_time):
    """The clamped rod of test_der_kind_schedule.py (0.2 m, 10 edges, 1 GPa) with a wave on its
    `parameter` ("natural_curvature" or "natural_twist"), compiled for `engine` at H."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                            normal=(0.0, 0.0, 1.0), length=L, n_elems=N, radius=R, density=RHO,
                            youngs_modulus=E)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
    scene.add(sm.ParameterWave(f"rod.{parameter}", amplitude, frequency, phase,
                               ramp_time=ramp_time, name="wave"))
    if engine == "unified":
        return scene.compile(dt=H, engine="unified", scheme="implicit_euler")
    return scene.compile(dt=H, engine="discrete")


def test_a_constant_wave_brings_the_rod_to_its_natural_polygon():
    """frequency 0 and phase pi/2: the wave is the ramp alone, offset + min(t / 1 s, 1) KAPPA,
    on kappa_1 (amplitude (KAPPA, 0) per spring). At rest (t = 4 s, 600 steps after the ramp)
    every spring takes its natural discrete curvature kappa l = 2 tan(phi / 2) (ref. 004
    eq. 12), a turning angle phi = 2 atan(KAPPA l / 2) at every inner node, so node k lies
    2 rho sin(k phi / 2) from node 0, rho = l / (2 sin(phi / 2)) (exact for the discrete model,
    as in test_der_kind_schedule.py). Tolerance 1e-9 relative, the Newton tolerance after
    backward Euler's damping; a wave written without the Voronoi length (kappa instead of
    kappa l) would bend the rod by a factor 1 / l = 50 more."""
    sim = waved_rod("unified", "natural_curvature", np.tile([KAPPA, 0.0], (N - 1, 1)), 0.0,
                    math.pi / 2, 1.0)
    sim.step(800)
    state = sim.get_state("rod")
    x, v = state["positions"][0], state["velocities"][0]
    assert np.abs(v).max() < 1e-8
    l = L / N
    phi = 2.0 * math.atan(KAPPA * l / 2.0)
    rho = l / (2.0 * math.sin(phi / 2.0))
    chords = 2.0 * rho * np.sin(np.arange(N + 1) * phi / 2.0)
    measured = np.linalg.norm(x - x[0], axis=1)
    assert np.abs(measured - chords).max() < 1e-9 * L


@pytest.mark.parametrize("parameter, amplitude", [
    ("natural_curvature", np.tile([KAPPA, -0.5 * KAPPA], (N - 1, 1))),
    ("natural_twist", 20.0)])
def test_a_waving_rod_moves_as_in_the_discrete_engine(parameter, amplitude):
    """A 1 Hz wave with a phase along the rod and a 0.2 s ramp, 100 steps (0.5 s, the rod
    swinging): every node equal to the discrete engine's within 1e-7 m, the tolerance of
    test_der_kind_schedule.py's ramp (the same implicit Euler equations with the parameter
    taken at the end of each step in both engines; the Newton stopping rules differ, ~2e-10 m
    per step; measured 2026-12-04: 1.7e-11 m and 2.2e-15 rad with the curvature waved, 0 m and
    4.4e-16 rad with the twist)."""
    phase = np.linspace(0.0, 2.0, N - 1)
    if parameter == "natural_curvature":
        phase = phase[:, None]
    final = {}
    for engine in ("unified", "discrete"):
        sim = waved_rod(engine, parameter, amplitude, 1.0, phase, 0.2)
        sim.step(100)
        final[engine] = sim.get_state("rod")
    # the natural curvature bends the rod; the natural twist of a straight rod only twists it
    # (the edges' twist angles: "angles" in the discrete engine's state, "twist" in the kind's)
    field = "positions" if parameter == "natural_curvature" else "angles"
    built = waved_rod("discrete", parameter, 0.0, 1.0, 0.0, 0.2).get_state("rod")[field]
    assert np.abs(final["discrete"][field] - built).max() > 1e-3
    u, d = final["unified"], final["discrete"]
    assert np.abs(u["positions"] - d["positions"]).max() < 1e-7
    assert np.abs(u["twist"] - d["angles"]).max() < 1e-7


def test_the_manta_swims_as_in_the_discrete_engine():
    """The built-in manta (hinge shell, 156 triangles, its hinges' natural angles travelling
    along the body, buoyancy and DisMech's drag in water), 1 s (100 steps of 10 ms, through
    its 1 s ramp): every node equal to the discrete engine's within 1e-10 m with both Newtons
    tight (test_der_kind_shells.TIGHT; measured 2026-12-04: 7.9e-13 m, the wing tips moved by
    1.4 cm, the body 0.63 mm forward, +y)."""
    final = {}
    for engine in ("unified", "discrete"):
        scene, info = build_manta(duration=1.0)
        sim = scene.compile(dt=info.dt, engine=engine, newton=TIGHT[engine])
        x0 = sim.get_state("manta")["positions"][0].copy()
        sim.run(1.0)
        final[engine] = sim.get_state("manta")["positions"][0]
    x = final["discrete"]
    assert np.abs(x[:, 2] - x0[:, 2]).max() > 0.01
    assert x[:, 1].mean() - x0[:, 1].mean() > 1e-4
    assert np.abs(final["unified"] - x).max() < 1e-10


def test_a_midedge_plate_curls_as_in_the_discrete_engine():
    """The 8 x 3 mid-edge plate of test_der_kind_midedge.py clamped along its first column,
    its natural curvature kappa_1 waved (10 1/m at 2 Hz on every triangle, 0.05 s ramp), 100
    implicit steps of 1 ms: every node within 1e-10 m of the discrete engine's with both
    Newtons tight (the mid-edge test's tolerance; measured 2026-12-04: 4.5e-12 m, the free edge
    7.3 mm out of plane)."""
    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        shell = plate(scene, bending="midedge")
        nodes = np.flatnonzero(shell.vertices[:, 0] < 1e-9)
        scene.add(sm.FixNodes(shell, nodes=nodes, name="clamp"))
        scene.add(sm.ParameterWave("plate.rest_curvature", [10.0, 0.0, 0.0], 2.0,
                                   ramp_time=0.05, name="curl"))
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.step(100)
        final[engine] = sim.get_state("plate")["positions"][0]
    assert np.abs(final["discrete"][:, 2]).max() > 1e-3
    assert np.abs(final["unified"] - final["discrete"]).max() < 1e-10


def test_a_wave_on_another_parameter_is_refused_on_the_unified_engine():
    """Only the parameters the kind's elasticity reads from packed tables can be waved there;
    any other names the field, the value and what is allowed, before any stepping."""
    scene = sm.Scene()
    scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0), length=L,
                      n_elems=N, radius=R, density=RHO, youngs_modulus=E)
    scene.add(sm.ParameterWave("rod.youngs_modulus", 1e8, 1.0, name="pulse"))
    with pytest.raises(ValueError, match=r"pulse\.parameter = 'rod\.youngs_modulus' is not "
                                         r"allowed on the unified engine.*natural_twist"):
        scene.compile(dt=H, engine="unified", scheme="implicit_euler")
