"""sm.NodeUserForce on the discrete rods and shells of the unified engine (softmech.terms.
der_loads.DerUserForces: the user's Python function called per world from the compiled force
pass, softmech.kernels.der_user_force) against the backward-Euler recurrence of a linear
oscillator and against the discrete engine."""
import numpy as np
import pytest

import softmech as sm
from softmech.implicit.newton import NewtonOptions

KAPPA, GAMMA, G, DT, STEPS = 400.0, 3.0, 9.81, 1e-3, 50
"""The spring per unit mass kappa [1/s^2] and damping per unit mass gamma [1/s] of the user's
force, gravity [m/s^2], the step [s] and the steps run."""


def rod_scene(force_of):
    """A free discrete rod (0.2 m, r = 1 cm, 10 edges, E = 1 MPa) under gravity with the user
    force force_of(rod) -> function(t, x, v)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                            length=0.2, n_elems=10, radius=0.01, density=1000.0,
                            youngs_modulus=1e6)
    scene.add(sm.NodeUserForce(rod, force_of(rod), name="user"))
    scene.add(sm.Gravity((0.0, 0.0, -G)))
    return scene, rod


def mass_proportional_spring(rod):
    """F_i = -m_i (kappa (x_i - x_i0) + gamma v_i): every node's acceleration is that of one
    damped oscillator, so a rigid translation (no strain, no elastic force) solves the rod's
    equations exactly."""
    start, mass = rod.positions.copy(), rod.node_mass.copy()

    def force(t, x, v):
        return -mass[:, None] * (KAPPA * (x - start) + GAMMA * v)
    return force


def backward_euler_heights():
    """z_n of z'' = -kappa z - gamma z' - g from rest at 0 under implicit Euler with DT:
    v_{n+1} (1 + h gamma + h^2 kappa) = v_n - h kappa z_n - h g, z_{n+1} = z_n + h v_{n+1}
    (Hairer and Wanner, Solving ODEs II, IV.3: the method applied to the linear system)."""
    z, v, out = 0.0, 0.0, []
    for _ in range(STEPS):
        v = (v - DT * KAPPA * z - DT * G) / (1.0 + DT * GAMMA + DT * DT * KAPPA)
        z += DT * v
        out.append(z)
    return np.array(out)


def test_a_mass_proportional_user_spring_moves_the_rod_as_one_oscillator_in_every_world():
    """Two worlds (the function is called for each, from the compiled force pass): every node's
    height after each step equals the backward-Euler recurrence of the one oscillator within
    1e-12 m (the Newton tolerance 1e-8 of a 2 cm edge would allow 2e-10; measured 2.6e-17:
    the step is linear, one Newton correction solves it), and the rod stays straight. The
    oscillator moves 1 cm in the 50 steps."""
    scene, _ = rod_scene(mass_proportional_spring)
    sim = scene.compile(dt=DT, engine="unified", worlds=2)
    heights = []
    for _ in range(STEPS):
        sim.step(1)
        heights.append(sim.get_state("rod")["positions"][:, :, 2])
    heights = np.array(heights)                                    # (steps, worlds, nodes)
    expected = backward_euler_heights()
    assert abs(expected[-1]) > 5e-3
    assert np.abs(heights - expected[:, None, None]).max() < 1e-12


def tip_pull(rod):
    """A spring of 20 N/m pulling the last node towards (0.2, 0, 0.05), zero on the others: a
    force that bends the rod."""
    target = np.array([0.2, 0.0, 0.05])

    def force(t, x, v):
        out = np.zeros_like(x)
        out[-1] = -20.0 * (x[-1] - target)
        return out
    return force


def test_a_user_pull_on_a_clamped_rod_equals_the_discrete_engines():
    """The rod clamped at one end (two nodes, one twist), sagging under gravity and pulled up at
    its tip by the user's spring, 50 implicit Euler steps: every node within 1e-9 m of the
    discrete engine's (NodeUserForce with its finite-difference node blocks; both Newtons
    converged far below it: measured 1.5e-13 m). The tip moves 3.7 cm."""
    paths = {}
    for engine, newton in (("unified", sm.ImplicitOptions(tol=1e-12)),
                           ("discrete", NewtonOptions(rtol=1e-13))):
        scene, rod = rod_scene(tip_pull)
        scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name="clamp"))
        sim = scene.compile(dt=DT, engine=engine, newton=newton)
        start = sim.get_state("rod")["positions"][0].copy()
        sim.step(STEPS)
        paths[engine] = sim.get_state("rod")["positions"][0]
    assert np.abs(paths["discrete"][-1] - start[-1]).max() > 1e-2
    assert np.abs(paths["unified"] - paths["discrete"]).max() < 1e-9


def test_a_user_force_on_a_shell_equals_the_discrete_engines():
    """The clamped plate of test_der_kind_shells (0.1 x 0.03 m, hinge bending) with a user force
    lifting the nodes of its free edge by 2 mN each against gravity, 20 steps of 1 ms: within
    1e-9 m of the discrete engine's (measured 1.4e-14 m; the plate moves 3 mm)."""
    from test_der_kind_shells import TIGHT, clamped_plate

    def lift(t, x, v):
        out = np.zeros_like(x)
        out[x[:, 0] > 0.099, 2] = 2e-3
        return out

    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        shell = clamped_plate(scene)
        scene.add(sm.NodeUserForce(shell, lift, name="lift"))
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.step(20)
        final[engine] = sim.get_state("plate")["positions"][0]
    assert np.abs(final["unified"] - final["discrete"]).max() < 1e-9


@pytest.mark.parametrize("returned, message", [
    (lambda x: np.zeros((2, 3)), "returned shape"),
    (lambda x: np.full_like(x, np.nan), "returned NaN or inf")])
def test_a_bad_user_function_stops_the_run_naming_the_term(returned, message):
    """The function's result is checked at every call, as in the discrete engine: a wrong
    shape or a non-finite value raises ValueError naming the term."""
    scene, _ = rod_scene(lambda rod: lambda t, x, v: returned(x))
    with pytest.raises(ValueError, match=f"user: the user function {message}"):
        scene.compile(dt=DT, engine="unified").step(1)
