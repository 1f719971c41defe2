"""The divergence guard of softmech.simulation.Simulation: which blocks of worlds have a state
on its way to overflow, which body and quantity diverged, and the SimulationDiverged error (the
state restored to the block's start first)."""
import numpy as np

from softmech.integrators.implicit import IMPLICIT_SCHEMES, STATUS_NOT_CONVERGED
from softmech.kernels.rod_motion import STATUS_OK, STATUS_ROTATION
from softmech.recording import STATE_FIELDS
from softmech.run_loop import EXPLODING, SimulationDiverged

STATUS_EXPLODED = -1
"""Status of a block stopped by the EXPLODING bound (the kernels' own codes are >= 0)."""


def exploded_blocks(sim):
    """(n_blocks,) bool: blocks of `sim` whose positions or velocities (rods', rigid bodies' or
    discrete rods') exceed EXPLODING in magnitude -- finite still, but on their way to
    overflow."""
    out = np.zeros(sim.lanes.n_blocks, dtype=bool)
    for key in ("x", "v", "w", "rb_x", "rb_v", "rb_w", "der_x", "der_v", "der_w"):
        a = getattr(sim._state, key)
        if a.size:      # max and min, not abs: no temporary array
            flat = a.reshape(a.shape[0], -1)
            out |= (flat.max(axis=1) > EXPLODING) | (flat.min(axis=1) < -EXPLODING)
    return out


def culprit(sim, rotation):
    """(body, quantity) of sim's current (diverged) state: the first body with a non-finite
    state field, in the order of STATE_FIELDS; after a too-large rotation (rotation=True),
    the body of the fastest-turning element."""
    bodies = _bodies(sim)
    if rotation:        # (a discrete rod's drift turns no frame: never the culprit here)
        bodies = sim.rods + sim.rigid_bodies
        spin = [np.nanmax(np.abs(sim.get_state(b.name)["angular_velocities"]), initial=0.0)
                for b in bodies]
        return bodies[int(np.argmax(spin))].name, "angular_velocities"
    for b in bodies:
        state = sim.get_state(b.name)
        for field in (state if sim._der(b.name) is not None else STATE_FIELDS):
            if not np.all(np.abs(state[field]) <= EXPLODING):    # NaN compares False
                return b.name, field
    # a finite state whose forces overflow (an implicit step stops at its start: its residual
    # was not finite): the first node whose acceleration is not finite or beyond EXPLODING
    for b in bodies:
        bad = ~(np.abs(sim.accelerations(b.name)[0]) <= EXPLODING)         # (B, n, 3)
        if bad.any():
            return b.name, f"accelerations of node {int(np.argwhere(bad)[0][1])}"
    return bodies[0].name, "state"


def raise_diverged(sim, saved, n_steps, status):
    """Restore sim's state `saved` (the block's start) and raise SimulationDiverged naming the
    worlds, the body, the quantity and a time step; status (n_blocks,): each block's code."""
    rotation = bool(np.any(status == STATUS_ROTATION))
    body, quantity = culprit(sim, rotation)
    sim._restore(saved)
    limit = (np.inf if sim.scheme in IMPLICIT_SCHEMES
             else float(sim.time_step_limit().min()))
    worlds = failed_worlds(sim, status)
    overflow = (f"{quantity} not finite or beyond {EXPLODING:g} m/s^2 at the step's start (the "
                "force is too large)") if quantity.startswith("accelerations") else ""
    if np.any(status >= STATUS_NOT_CONVERGED):
        what = (f"implicit step: Newton did not converge even at dt / "
                f"{2 ** sim.implicit_integrator().options.max_halvings} (near body "
                f"{body!r}{': ' + overflow if overflow else ''})")
    elif rotation:
        what = (f"body {body!r}: a frame rotated by more than 1 rad in one drift (its "
                f"{quantity} * dt too large)")
    elif np.any(status == STATUS_EXPLODED):
        what = f"body {body!r}: exploding {quantity} (|value| > {EXPLODING:g} in SI units)"
    elif overflow:
        what = f"body {body!r}: {overflow}"
    else:
        what = f"body {body!r}: non-finite {quantity}"
    t_end = sim.time + n_steps * sim.dt
    raise SimulationDiverged(
        f"simulation diverged between t = {sim.time:.6g} s and t = {t_end:.6g} s in world(s) "
        f"{worlds}, {what}. Suggested time step: dt <= {min(limit, 0.5 * sim.dt):.3g} s "
        f"(current {sim.dt:g} s). The state was restored to t = {sim.time:.6g} s.",
        time=sim.time, state=body_states(sim), worlds=worlds, body=body, quantity=quantity)


def failed_worlds(sim, status):
    """The worlds (sorted list) of the blocks whose status (n_blocks,) is not STATUS_OK."""
    lanes = sim.lanes
    return sorted({int(w) for bi in np.flatnonzero(status != STATUS_OK)
                   for w in lanes.world_of_lane[bi * lanes.W:(bi + 1) * lanes.W]})


def body_states(sim):
    """{body name: get_state} of every body of sim (SimulationDiverged.state)."""
    return {b.name: sim.get_state(b.name) for b in _bodies(sim)}


def _bodies(sim):
    return sim.rods + sim.rigid_bodies + sim.der_rods + sim.der_shells
