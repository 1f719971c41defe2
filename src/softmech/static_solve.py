"""The static equilibrium of a unified-engine Simulation (Simulation.solve_static): pseudo-transient
continuation by the implicit integrator's own steps.

Each pseudo step sets every velocity to zero and takes one implicit Euler step of size h at the
current time, h doubling from the simulation's dt until the forces balance (RTOL). Implicit
Euler from rest solves M (x1 - x0) / h^2 = F(x1) (damping forces, c (x1 - x0) / h, fall away
likewise): for small h it moves the bodies a little along their forces (the continuation keeps
Newton near its answer), and once h is far above the slowest elastic period, M / h^2 is
negligible beside the stiffness and the step is Newton's method on F(x1) = 0 itself, converged
to the integrator's tolerance (ImplicitOptions.tol of each DOF's length scale). At most
DOUBLINGS steps take h to 2^40 dt: a mode of period T is then held back by a relative force of
(T / (2^40 dt))^2, 1e-16 for T = 10^4 dt. This is the continuation that the discrete engine
falls back to (softmech.implicit.newton; Kelley & Keyes 1998, pseudo-transient continuation),
without its first attempt of a plain Newton solve, which the unified engine has no separate
form of.

A scene without an equilibrium (a free body under a load) makes the large steps fail or
explode: SimulationDiverged, the state kept as it was before the solve. A direction free of
both load and stiffness (a body on frictionless rails) keeps its place: the solve stops once
the loads balance. Regularized friction holds a load only over the pseudo steps it can (its
force needs a slip velocity, which grows with h): a load that friction alone carries is not
an equilibrium here (the discrete engine's Newton solves it).
"""
import numpy as np

from softmech.divergence import (STATUS_EXPLODED, body_states, culprit, exploded_blocks,
                                 failed_worlds)
from softmech.kernels.rod_motion import STATUS_OK
from softmech.run_loop import SimulationDiverged
from softmech.threads import block_pool

DOUBLINGS = 40
"""Pseudo steps after the first: h from dt to 2^DOUBLINGS dt."""

RTOL = 1e-9
"""The solve stops when every coordinate's imbalance (the acceleration a pseudo step from rest
gives it, dx / h^2 [m/s^2 or rad/s^2]) has fallen to RTOL of the first step's, or after
DOUBLINGS: a scene with a direction free of load and stiffness (a body on frictionless rails)
keeps its place instead of drifting in steps too large for anything to hold it."""

COORDINATES = ("x", "rb_x", "der_x", "der_theta")
"""The State's coordinates whose imbalance is measured: node and centre-of-mass positions,
discrete rods' twists and mid-edge angles (a Cosserat rod's frames follow its nodes)."""

VELOCITIES = ("v", "w", "rb_v", "rb_w", "der_v", "der_w")
"""The State's velocity arrays (softmech.model.State), zeroed before every pseudo step."""


def solve_static(sim):
    """Replace every world's state of `sim` (softmech.simulation.Simulation) by the equilibrium
    reached from it at the current time, velocities 0; SimulationDiverged (the state and the
    integrator's memory kept) if a pseudo step fails."""
    integrator = sim.implicit_integrator()
    engine = sim._engine()
    if engine.sampled:      # function schedules at the current time
        from softmech.function_schedules import sample_schedules
        sample_schedules(engine, [sim.time], sim.clock)
    saved = sim._snapshot()
    memory = integrator.memory()
    h, first = sim.dt, None
    # (each pseudo step is far from the last: its analytic Jacobian entries are renewed)
    with integrator.renewing_every_step():
        for _ in range(DOUBLINGS + 1):
            _at_rest(sim, integrator)
            before = [getattr(sim._state, name).copy() for name in COORDINATES]
            # one step ending at the current time (step 0 of a clock that starts h before it)
            status = integrator.advance(block_pool(), sim.time - h, 0, h, 1)
            status[(status == STATUS_OK) & exploded_blocks(sim)] = STATUS_EXPLODED
            if np.any(status != STATUS_OK):
                _fail(sim, integrator, saved, memory, status, h)
            # the step from rest gives the forces at its end: M dx / h^2 = F(x1) (+ damping)
            imbalance = np.array([np.max(np.abs(getattr(sim._state, name) - b), initial=0.0)
                                  for name, b in zip(COORDINATES, before)]) / h ** 2
            first = imbalance if first is None else first
            if np.all(imbalance <= RTOL * first):
                break
            h *= 2.0
    _at_rest(sim, integrator)


def _fail(sim, integrator, saved, memory, status, h):
    """Restore the state and the integrator's memory from before the solve and raise
    SimulationDiverged naming the worlds, the body and the pseudo step."""
    body, quantity = culprit(sim, False)
    sim._restore(saved, memory)
    worlds = failed_worlds(sim, status)
    raise SimulationDiverged(
        f"static solve failed in world(s) {worlds} at a pseudo step of {h:.3g} s (near body "
        f"{body!r}, {quantity}): the scene may have no equilibrium (a free body under a "
        f"load), or one that only friction holds (use engine='discrete'). The state was "
        f"restored to t = {sim.time:.6g} s.", time=sim.time, state=body_states(sim),
        worlds=worlds, body=body, quantity=quantity)


def _at_rest(sim, integrator):
    """Every velocity 0, and nothing for the integrator's predictor to extrapolate."""
    for name in VELOCITIES:
        getattr(sim._state, name)[...] = 0.0
    integrator.solver.history[...] = 0
