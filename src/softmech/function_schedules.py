"""Rest shapes given as Python functions of time on the unified engine's compiled step.

The compiled step cannot call Python, so a schedule given as a function f(t)
(softmech.bodies.schedules) is sampled from Python before each chunk of CHUNK_STEPS steps at
the exact times at which that chunk's force passes run, into a table that the step's kernel
(softmech.kernels.der_kind.der_rest_schedule) reads by linear interpolation. At a sampled
time the interpolation returns the sample itself (weight 0), so the step sees f(t) at the
times it evaluates forces, as the discrete engine, which calls f at every evaluation. The
step's start and end times are sampled too: a step that implicit Euler halves evaluates
between them, where the table interpolates f linearly (an error of h^2 f''/8 at substep h).

Evaluation times (softmech.integrators.explicit.step_block, implicit_source.implicit_block):
the explicit drift-kick schemes evaluate forces at t = t_origin + i dt + d_0 dt, then after
each further drift t += d_s dt; implicit Euler at t_origin + i dt + dt (the end of step i).
"""
import numpy as np

CHUNK_STEPS = 32
"""Steps per sampling: one function call per evaluation time, and a table the kernel scans
linearly (at most TIMES_PER_STEP CHUNK_STEPS + 1 entries)."""

TIMES_PER_STEP = 6
"""Sampled times per step at most: the step's start and end and PEFRL's four force passes."""

CAPACITY = TIMES_PER_STEP * CHUNK_STEPS + 1
"""Entries of each function schedule's table."""


def evaluation_times(t_origin, step0, dt, n_steps, drifts=None):
    """Sorted distinct times [s] at which steps step0 .. step0 + n_steps - 1 evaluate forces, with
    each step's start and end: drifts is the explicit scheme's drift table
    (softmech.integrators.explicit.SCHEME_TABLES; its kicks count the force passes), None for
    implicit Euler. The arithmetic is the steppers' own, operation by operation, so that the
    times compare equal to theirs."""
    steps = np.arange(step0, step0 + n_steps, dtype=float)
    base = t_origin + steps * dt
    times = [base, t_origin + np.arange(step0 + 1, step0 + n_steps + 1, dtype=float) * dt]
    if drifts is None:
        times.append(base + 1.0 * dt)
    else:
        t = base + drifts[0] * dt
        times.append(t)
        for s in range(1, len(drifts) - 1):     # the passes after the first: n_kicks - 1 drifts
            t = t + drifts[s] * dt
            times.append(t)
    return np.unique(np.concatenate(times + [np.array([t_origin + step0 * dt])]))


class SampledSchedule:
    """One function schedule's table in a kernel's arguments (DerScheduleArgs: times
    (CAPACITY,), values (n_blocks, W, CAPACITY, n)), refilled by `sample(times)`. Each lane
    takes the row of its world when f returns one row per world ((B, ...) values; softmech.
    bodies.schedules), else the one row."""

    def __init__(self, schedule, args, world_of_lane):
        self.schedule, self.args = schedule, args
        self.world_of_lane = np.asarray(world_of_lane).reshape(args.values.shape[:2])
        self.width = args.values.shape[-1]

    def sample(self, times):
        """Fill the table at `times` (sorted, at most CAPACITY), holding the last sample after
        them (the kernel holds a table's last value beyond its last time)."""
        k = len(times)
        if k > CAPACITY:  # pragma: no cover - the chunking keeps it below
            raise ValueError(f"{k} sample times exceed the table's {CAPACITY}")
        values = np.empty((len(times),) + self.world_of_lane.shape + (self.width,))
        for j, t in enumerate(times):
            value = np.asarray(self.schedule(float(t)), dtype=float)
            rows = value.reshape(-1, self.width) if value.ndim > len(self.schedule.shape) \
                else value.reshape(1, self.width)
            values[j] = rows[self.world_of_lane % rows.shape[0]]
        self.args.times[:k] = times
        self.args.times[k:] = times[-1]
        self.args.values[:, :, :k] = np.moveaxis(values, 0, 2)
        self.args.values[:, :, k:] = self.args.values[:, :, k - 1:k]


def sampled_chunks(t_origin, step0, dt, n_steps, drifts=None):
    """(first step, steps, evaluation times) of the chunks of at most CHUNK_STEPS steps that
    n_steps steps from step0 are advanced in when a function schedule is sampled."""
    done = 0
    while done < n_steps:
        n = min(CHUNK_STEPS, n_steps - done)
        yield step0 + done, n, evaluation_times(t_origin, step0 + done, dt, n, drifts)
        done += n


def sample_schedules(engine, times, clock):
    """Sample every function schedule of `engine` (softmech.packing.Engine.sampled) at `times`
    [s] (sorted) and remember the simulation's clock (time origin, steps) they were sampled at
    (engine.sampled_clock); nothing without them."""
    for schedule in engine.sampled:
        schedule.sample(np.asarray(times, dtype=float))
    engine.sampled_clock = clock
