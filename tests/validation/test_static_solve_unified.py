"""Simulation.solve_static on the unified engine (softmech.static_solve: pseudo-transient
continuation by the implicit integrator's steps), for every body kind: against the discrete
engine's static solve of the same shells, against beam theory for a Cosserat rod, at the
current time of a ramped load, and refused where there is no equilibrium."""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from softmech.validation import shells as plate


def clamped_strip(bending, E, engine):
    """The heavy cantilever strip of softmech.validation.shells.cantilever_tip (L x W x H,
    nu = 0, clamped along its first two rows), compiled on `engine`; (sim, tip node mask)."""
    W, L, H = plate.W, plate.L, plate.H
    dy = W / 6 * np.sqrt(3) / 2
    n_rows = int(round(L / dy))
    dy = L / n_rows
    mesh = meshes.rectangle(W, L + dy, 6, n_y=n_rows + 1)
    scene = sm.Scene()
    shell = scene.add_shell(name="plate", mesh=mesh, thickness=H, youngs_modulus=E,
                            poisson_ratio=0.0, density=plate.RHO, bending=bending)
    y = mesh.vertices[:, 1]
    scene.add(plate.clamp(shell, np.flatnonzero(y <= dy * 1.0001)))
    scene.add(sm.Gravity((0, 0, -plate.G)))
    return scene.compile(dt=1e-3, engine=engine), np.isclose(y, L + dy)


@pytest.mark.parametrize("bending, E", [("hinge", 1e5), ("midedge", 1e7)])
def test_a_heavy_strip_settles_where_the_discrete_engine_puts_it(bending, E):
    """The same discrete model, two solvers: the unified engine's continuation and the
    discrete engine's Newton (its own tolerances) agree within 1e-9 m (measured 3.0e-13 m
    hinge, 1.0e-12 m mid-edge, 2026-12-04; the tip sags 0.100 and 0.078 m); the mid-edge
    strip is within 1 % of the heavy elastica (measured 0.004 %: plate.heavy_elastica)."""
    positions, tips = {}, {}
    for engine in ("discrete", "unified"):
        sim, tip = clamped_strip(bending, E, engine)
        sim.solve_static()
        positions[engine] = sim.get_state("plate")["positions"][0]
        tips[engine] = -positions[engine][tip, 2].mean()
        assert sim.time == 0.0
        assert np.all(sim.get_state("plate")["velocities"] == 0.0)
    assert np.abs(positions["unified"] - positions["discrete"]).max() < 1e-9
    assert tips["unified"] > 0.05
    if bending == "midedge":
        assert tips["unified"] / plate.heavy_elastica(E) - 1 == pytest.approx(0.0, abs=0.01)


def cosserat_cantilever(scheme, ramp_time=0.0):
    """A slender clamped Cosserat rod (L/r = 60) with an end load P, on `scheme`."""
    scene = sm.Scene()
    beam = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                  length=BEAM["L"], n_elems=40, radius=BEAM["r"],
                                  density=1e3, youngs_modulus=BEAM["E"],
                                  shear_modulus=BEAM["E"] / 3)
    scene.add(sm.Clamp(beam, "first"))
    scene.add(sm.EndLoad(beam, force=(0, -BEAM["P"], 0), ramp_time=ramp_time, name="load"))
    # (Verlet below its stability limit, 1.07e-3 s)
    return scene.compile(dt=5e-4 if scheme == "verlet" else 1e-2, scheme=scheme)


BEAM = dict(L=3.0, r=0.05, E=1e6, P=1e-3)


def timoshenko_tip():
    """delta = P L^3 / (3 E I) + P L / (kappa G A), kappa = 4/3 (the rod's shear factor for a
    circle; the shear part is 6e-4 of the whole here) (Gere & Timoshenko, Mechanics of
    materials, cantilever with an end load)."""
    L, r, E, P = BEAM["L"], BEAM["r"], BEAM["E"], BEAM["P"]
    inertia, area = np.pi * r ** 4 / 4, np.pi * r ** 2
    return P * L ** 3 / (3 * E * inertia) + P * L / (4 / 3 * E / 3 * area)


@pytest.mark.parametrize("scheme", ["verlet", "implicit_euler"])
def test_a_cosserat_cantilever_settles_at_the_beam_theory_deflection(scheme):
    """Any scheme's simulation (the integrator is built for the solve); deflection 6e-4 of
    L: linear theory holds; within 0.2 % (measured +0.031 %: 40 elements)."""
    sim = cosserat_cantilever(scheme)
    sim.solve_static()
    tip = -sim.get_state()["positions"][0, -1, 1]
    assert tip / timoshenko_tip() - 1 == pytest.approx(0.0, abs=2e-3)
    sim.step(20)        # the equilibrium stays put
    assert abs(-sim.get_state()["positions"][0, -1, 1] / tip - 1) < 1e-6


def test_the_equilibrium_is_that_of_the_loads_at_the_current_time():
    """A load ramped over 1 s: at t = 0.5 s the equilibrium is half the full deflection (the
    pseudo steps end at the current time; the clock does not move)."""
    sim = cosserat_cantilever("implicit_euler", ramp_time=1.0)
    sim.step(50)
    sim.solve_static()
    assert sim.time == pytest.approx(0.5)
    tip = -sim.get_state()["positions"][0, -1, 1]
    assert tip / (0.5 * timoshenko_tip()) - 1 == pytest.approx(0.0, abs=2e-3)


def test_no_equilibrium_is_refused_with_the_state_kept():
    """A free rod under gravity falls for ever: the large pseudo steps fail, SimulationDiverged
    names the body, and the state is as before the solve."""
    scene = sm.Scene()
    scene.add_der_rod(name="whip", start=(0, 0, 0), direction=(1, 0, 0), length=0.2,
                      n_elems=6, radius=2e-3, density=1200.0, youngs_modulus=2e6)
    scene.add(sm.Gravity())
    sim = scene.compile(dt=1e-3, engine="unified")
    before = sim.get_state("whip")
    with pytest.raises(sm.SimulationDiverged, match="static solve failed.*'whip'") as info:
        sim.solve_static()
    assert info.value.body == "whip" and sim.time == 0.0
    for key, value in before.items():
        np.testing.assert_array_equal(sim.get_state("whip")[key], value, key)


def test_the_pseudo_steps_renew_the_analytic_entries_and_the_setting_is_restored():
    """A shell's analytic Jacobian entries are kept between the steps of a run
    (softmech.terms.der_shell.RENEW_EVERY_STEP), but renewed at every pseudo step of the
    static solve (each far from the last: measured 337 Newton iterations for the 10^7 Pa hinge
    strip against 1,071 with kept entries); the run's setting is back after a solve and after
    a failed one (a free plate under gravity has no equilibrium)."""
    sim, _ = clamped_strip("hinge", 1e5, "unified")
    flag = sim.implicit_integrator().solver.renew_every
    assert flag[0] == 0
    sim.solve_static()
    assert flag[0] == 0
    scene = sm.Scene()
    scene.add_shell(name="plate", mesh=meshes.rectangle(0.04, 0.04, 3), thickness=1e-3,
                    youngs_modulus=1e6, poisson_ratio=0.3, density=1000.0)
    scene.add(sm.Gravity())
    sim = scene.compile(dt=1e-3, engine="unified")
    flag = sim.implicit_integrator().solver.renew_every
    with pytest.raises(sm.SimulationDiverged, match="'plate'"):
        sim.solve_static()
    assert flag[0] == 0
