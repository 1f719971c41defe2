"""Every integrator stops a diverging run within a bounded number of steps, with an error naming
the simulated time, the body, the quantity and a suggested time step, keeps the last finite
state, writes it (run(checkpoint=...)), and that file reloads and reruns with a smaller dt.

Integrators: the explicit engine (position Verlet and PEFRL) with Cosserat rods, rigid bodies and
the axisymmetric shell (a meridian rod plus its term); the implicit Newton stepper of discrete
rods and shells (implicit Euler) and its explicit comparison scheme (symplectic Euler)."""
import re
import warnings

import numpy as np
import pytest

import softmech as sm
from softmech.bodies.axisym_shell import cylinder_profile, meridian_rod
from softmech.bodies import meshes
from softmech.simulation import GUARD_STEPS

STEPS = 2000
"""Steps asked of a diverging explicit run (it must stop long before)."""


def compile_quietly(scene, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # dt above the estimate: on purpose
        return scene.compile(**kw)


def cantilever():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="beam", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 1, 0), length=1.0, n_elems=8, radius=0.05,
                                 density=1000.0, youngs_modulus=1e6)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.EndLoad(rod, force=(0, -1.0, 0)))
    return scene, "beam"


def damped_ball():
    """A falling sphere under a strong linear damping c: the explicit update
    v <- v (1 - c dt / m) grows geometrically once c dt / m > 2."""
    scene = sm.Scene()
    scene.add_sphere(name="ball", position=(0, 0, 1.0), radius=0.1, density=1000.0,
                     velocity=(0, 0, -1.0))
    scene.add(sm.Gravity())
    scene.add(sm.LinearDamping("ball", 1e5, name="rigid_damping"))
    return scene, "ball"


def mantle():
    """An axisymmetric shell (a meridian rod and its hoop term) under a cavity pressure."""
    scene = sm.Scene()
    r, z = cylinder_profile(0.05, 0.1, 6)
    rod = scene.add_cosserat_rod(**meridian_rod("mantle", r, -z, thickness=2e-3, density=1000.0,
                                                youngs_modulus=1e5, poisson_ratio=0.3))
    scene.add(sm.AxisymmetricShell(rod, thickness=2e-3, youngs_modulus=1e5, poisson_ratio=0.3,
                                   times=(0.0, 1.0), pressure=(0.0, 100.0)))
    return scene, "mantle"


def check_message(err, body, dt):
    """The error names the time, the body, the quantity and a smaller suggested dt."""
    msg = str(err)
    assert re.search(r"t = [0-9.e+-]+ s", msg), msg
    assert repr(body) in msg and err.body == body, msg
    assert err.quantity and err.quantity.split()[0] in msg, msg
    suggested = float(re.search(r"dt <= ([0-9.e+-]+) s", msg).group(1))
    assert 0 < suggested < dt, msg
    return suggested


@pytest.mark.parametrize("scheme", ["verlet", "pefrl", "symplectic_euler"])
@pytest.mark.parametrize("build", [cantilever, damped_ball, mantle])
def test_explicit_divergence_stops_names_the_body_and_reruns_from_its_file(tmp_path, build,
                                                                          scheme):
    scene, body = build()
    limit = float(compile_quietly(scene, dt=1e-9).time_step_limit().min())
    dt = 50 * min(limit, 1e-3)
    sim = compile_quietly(scene, dt=dt, scheme=scheme)
    path = tmp_path / "last_good.npz"
    with pytest.raises(sm.SimulationDiverged) as info:
        sim.run(STEPS * dt, checkpoint=path)
    err = info.value
    # bounded: the run stopped after at most one guard interval of steps past the last
    # finite check, long before the duration asked for
    assert sim.time == err.time < STEPS * dt
    assert round(err.time / dt) % min(GUARD_STEPS, STEPS) == 0
    suggested = check_message(err, body, dt)
    for value in sim.get_state(body).values():
        assert np.all(np.isfinite(value))
    # the file holds the last finite state: reload it at the suggested dt and run on
    again = compile_quietly(scene, dt=suggested, scheme=scheme)
    again.load_state(path)
    assert again.time == err.time
    for key, value in again.get_state(body).items():
        np.testing.assert_array_equal(value, sim.get_state(body)[key], err_msg=key)
    again.step(50)
    assert all(np.all(np.isfinite(v)) for v in again.get_state(body).values())


def discrete_scene(force):
    scene = sm.Scene()
    rod = scene.add_der_rod(name="whip", start=(0, 0, 0), direction=(1, 0, 0), length=0.2,
                            n_elems=6, radius=2e-3, density=1200.0, youngs_modulus=2e6)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    scene.add(sm.NodeForce(rod, 6, force, name="tip"))
    return scene, "whip"


def shell_scene(pressure):
    scene = sm.Scene()
    sheet = scene.add_shell(name="sheet", mesh=meshes.rectangle(0.1, 0.05, 2), thickness=1e-3,
                            youngs_modulus=1e6, density=1000.0)
    scene.add(sm.FixNodes(sheet, nodes=[0, 1]))
    scene.add(sm.ShellPressure(sheet, pressure))
    return scene, "sheet"


@pytest.mark.parametrize("build, bad, good, engine", [
    (discrete_scene, (0.0, 0.0, 1e300), (0.0, 0.0, 1e-3), "discrete"),     # overflowing force
    (discrete_scene, (0.0, 0.0, 1e300), (0.0, 0.0, 1e-3), "unified"),
    (shell_scene, 1e305, 5.0, "discrete"),
    (shell_scene, 1e305, 5.0, "unified"),
])
def test_implicit_divergence_stops_names_the_body_and_reruns_from_its_file(tmp_path, build,
                                                                          bad, good, engine):
    """Implicit Euler is stable at any dt, so the divergence is provoked by a force that
    overflows (Newton meets non-finite forces); the saved state reruns with a sane force. On
    the unified engine the last good state holds the integrator's memory (its kept factor) as
    it was before the failed step (it held the failed step's NaN, and the file was refused)."""
    scene, body = build(bad)
    dt = 1e-3
    sim = scene.compile(dt=dt, engine=engine)
    sim.step(0)
    before = sim.implicit_integrator().memory() if engine == "unified" else {}
    path = tmp_path / "last_good.npz"
    with pytest.raises(sm.SimulationDiverged) as info:
        sim.run(5 * dt, checkpoint=path)
    err = info.value
    assert sim.time == err.time == 0.0      # checked every step: it stops at the first one
    check_message(err, body, dt)
    for key, value in before.items():
        np.testing.assert_array_equal(sim.implicit_integrator().memory()[key], value, key)
    again = build(good)[0].compile(dt=dt / 4, engine=engine)
    again.load_state(path)
    again.step(3)
    assert all(np.all(np.isfinite(v)) for v in again.get_state(body).values())


def test_symplectic_euler_of_discrete_rods_stops_at_a_too_large_step(tmp_path):
    scene, body = discrete_scene((0.0, 0.0, 1e-3))
    dt = 1e-2                       # far above the explicit limit of a 3 cm stiff element
    sim = scene.compile(dt=dt, scheme="symplectic_euler")
    path = tmp_path / "last_good.npz"
    with pytest.raises(sm.SimulationDiverged) as info:
        sim.run(STEPS * dt, checkpoint=path)
    err = info.value
    assert sim.time == err.time < STEPS * dt
    suggested = check_message(err, body, dt)
    again = scene.compile(dt=suggested / 100, scheme="symplectic_euler")
    again.load_state(path)
    assert again.time == err.time
    again.step(20)
    assert all(np.all(np.isfinite(v)) for v in again.get_state(body).values())
