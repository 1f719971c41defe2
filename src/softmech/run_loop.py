"""The run loop every solver shares: checks, blocks of steps, samples, the divergence error and
the checkpoint of the last good state.

Both engines -- softmech.simulation.Simulation (Cosserat rods and rigid bodies: position Verlet,
PEFRL, implicit Euler) and softmech.implicit.simulation.ImplicitSimulation (discrete rods and
shells: implicit Euler with Newton) -- run through `run`, so a duration, a recording, a
progress bar, a budget check, a divergence and its checkpoint mean the same thing whatever
steps the bodies. An engine supplies only what differs: how to advance n steps, how to take a
sample, and the largest block of steps it advances between two looks at the clock (the
explicit engine's divergence guard; the implicit one's progress).
"""
from typing import Callable, NamedTuple

import numpy as np

from softmech import _checks, run_cost
from softmech.progress import progress_bar
from softmech.recording import Every, Results


EXPLODING = _checks.MAX_COORDINATE
"""A state entry (position [m], velocity [m/s], angular velocity [rad/s]) larger than this in
magnitude has diverged though it is still finite: no simulated body is 1e100 m away, and its
square (energies, norms) would overflow a few steps later. Every engine's divergence guard."""


class SimulationDiverged(RuntimeError):
    """A run produced non-finite values; `state` holds the last finite state, `time` its time,
    `worlds` the indices of the worlds whose block diverged (a block holds up to 8 worlds),
    `body` and `quantity` the body and state field (or Newton residual) where it was found
    first. The simulation itself is back at the last finite state: `sim.save_state(path)`
    writes it (Simulation.run does so with checkpoint=path, `softmech run` always)."""

    def __init__(self, message, time, state, worlds=(), body=None, quantity=None):
        super().__init__(message)
        self.time = time
        self.state = state
        self.worlds = tuple(worlds)
        self.body = body
        self.quantity = quantity


class Stepper(NamedTuple):
    """What an engine gives `run` once the request is checked.

    advance(n): advance all worlds by n >= 1 steps (raises SimulationDiverged, the state kept);
    sample(samples): append the time and each recorded field to the dict of lists `samples`;
    block(n_total, with_bar): the most steps advanced between two samples of the clock;
    rods, rigid_bodies: the body names the Results list."""
    advance: Callable
    sample: Callable
    block: Callable
    rods: tuple
    rigid_bodies: tuple = ()


def run(sim, duration, *, record, progress, checkpoint, allow_large, prepare):
    """Advance `sim` by `duration` [s] (rounded to whole steps of sim.dt) and return Results.

    record: None (the end only) or sm.Every(seconds, fields); checkpoint: .npz path where
    sim.save_state writes the last good state if the run diverges (then the error is raised
    again); allow_large: run above softmech.run_cost's budgets. Every argument is checked
    before any work, then prepare(fields) -> Stepper (an engine may compile there)."""
    duration = float(_checks.nonnegative("duration", duration, shape=()))
    if record is not None and not isinstance(record, Every):
        raise ValueError(f"record = {record!r} is not allowed: must be None or "
                         "sm.Every(seconds, fields)")
    seconds = None if record is None else record.seconds
    fields = () if record is None else record.fields
    run_cost.check_run(sim, duration, seconds, fields, allow_large)
    n_total, every = _checks.run_steps(duration, sim.dt, seconds)
    stepper = prepare(fields)
    samples = {"time": []}
    stepper.sample(samples)
    bar = progress_bar(n_total, progress)
    most = stepper.block(n_total, bool(bar))
    try:
        done = 0
        while done < n_total:
            # blocks end at every sample, and hold at most `most` steps
            n = min(every - done % every, n_total - done, most)
            stepper.advance(n)
            done += n
            if bar:
                bar.update(n)
            if done % every == 0 or done == n_total:
                stepper.sample(samples)
    except SimulationDiverged:
        if checkpoint is not None:
            sim.save_state(checkpoint)
        raise
    finally:
        if bar:
            bar.close()
    out = Results(time=np.array(samples.pop("time")))
    out.rods = tuple(stepper.rods)
    out.rigid_bodies = tuple(stepper.rigid_bodies)
    for key, values in samples.items():
        out[key] = np.stack(values, axis=1)
    return out
