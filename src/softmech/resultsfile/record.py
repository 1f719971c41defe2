"""record_to_file: run a simulation while writing its samples to a results file incrementally,
with checkpoints; `resume=True` continues an interrupted run bit for bit."""
import hashlib
import json
import math
import time as _time

import numpy as np

from softmech import _checks, run_cost
from softmech.progress import progress_bar
from softmech.resultsfile import snapshot
from softmech.resultsfile.reader import damaged_file_errors, load_results
from softmech.resultsfile.recorders import check_recorders
from softmech.resultsfile.writer import ResultsWriter
from softmech.simulation import Every, Simulation

UNCHECKED_SETTINGS = ("command_line",)
"""Settings that may differ between a run and its resumption."""


def record_to_file(sim, path, *, duration, every, fields=("com",), recorders=(), scene_text=None,
                   scene_name="", settings=None, checkpoint_every=1.0, flush_seconds=2.0,
                   progress=False, resume=False, allow_large=False):
    """Run `sim` for `duration` [s], sampling `fields` (as sm.Every) and `recorders`
    (sm.Recorder) every `every` [s] (both rounded to whole steps; a last, shorter interval ends
    the run), and write the samples to the results file `path` (docs/results_files.md).

    The samples are buffered and appended (and the file flushed) every `flush_seconds` of wall
    time and at every checkpoint: a killed process loses at most the samples since. A checkpoint
    (exact state and clock) is written at the first sample, every `checkpoint_every` [s] of
    simulated time (rounded to whole samples) and at the end; then attr complete = True. At
    each checkpoint before the end an atomic copy of the file is kept as `<path>.checkpoint`
    (resultsfile.snapshot): a kill in the middle of an HDF5 write can tear the file, and resume
    then starts from that copy; the finished run removes it.

    scene_text: the scenario file (TOML) of the run, or None (stored as ""). settings: a
    JSON-serializable dict stored in /settings_json with the run's own settings (dt, duration,
    record interval, fields, recorders, checkpoint interval, scheme, worlds), whose keys it may
    not reuse. resume: continue the unfinished file `path` from its last checkpoint (`sim` must be
    compiled from the same scene; the settings must be equal except `command_line`) — the final
    file then holds exactly the datasets of an uninterrupted run.

    allow_large: run even above the budgets of softmech.run_cost (compute, the memory of the
    samples, which are read back at the end, and the file's disk), which are otherwise refused
    before the file is created; user recorders (not called for the estimate) count as one
    value per world there, and with their real sizes at the first sample, checked before the
    run goes on.

    Returns sm.Results of the whole run (read back from the file). Raises SimulationDiverged as
    sim.run does, after appending the samples taken so far.
    """
    from softmech.implicit.simulation import ImplicitSimulation

    if not isinstance(sim, (Simulation, ImplicitSimulation)):
        raise ValueError(f"sim = {sim!r} is not allowed: must be a Simulation (scene.compile())")
    duration = float(_checks.nonnegative("duration", duration))
    if isinstance(fields, str):
        raise ValueError(f"fields = {fields!r} is not allowed: must be a tuple of field names, "
                         f"e.g. ({fields!r},)")
    if not isinstance(scene_name, str):
        raise ValueError(f"scene_name = {scene_name!r} is not allowed: must be a string")
    record = Every(seconds=float(_checks.positive("every", every)), fields=tuple(fields))
    recorders = check_recorders(recorders)
    checkpoint_every = float(_checks.positive("checkpoint_every", checkpoint_every))
    flush_seconds = float(_checks.nonnegative("flush_seconds", flush_seconds))
    if scene_text is not None and not isinstance(scene_text, str):
        raise ValueError(f"scene_text = {scene_text!r} is not allowed: must be a string or None")
    n_total, every_steps = _checks.run_steps(duration, sim.dt, record.seconds)
    run_cost.check(run_cost.estimate(sim, duration, record.seconds, record.fields, recorders),
                   allow_large, to_file=True)
    n_samples = 1 + math.ceil(n_total / every_steps)
    checkpoint_samples = max(1, int(round(checkpoint_every / (every_steps * sim.dt))))
    full = _settings(settings, dt=sim.dt, duration=duration, record_interval=every_steps * sim.dt,
                     record_steps=every_steps, fields=list(record.fields),
                     recorders=[r.name for r in recorders], scheme=sim.scheme,
                     worlds=sim.worlds, checkpoint_interval=checkpoint_samples * every_steps * sim.dt,
                     checkpoint_samples=checkpoint_samples)
    # a resumed run must continue the same scene: its scenario text is compared by hash
    full["scene_sha256"] = hashlib.sha256((scene_text or "").encode("utf-8")).hexdigest()
    record = Every(seconds=every_steps * sim.dt, fields=record.fields)

    sized = []      # whether the recorders' sizes were checked (at the first sample)

    def sample():
        values = {"time": sim.time}
        if record.fields:
            out = sim.run(0.0, record=record, allow_large=True)     # the run is checked above
            values.update({k: v[:, 0] for k, v in out.items() if k != "time"})
        values.update({r.name: r.sample(sim) for r in recorders})
        if recorders and not sized:     # the budgets again, with the recorders' real sizes
            sized.append(True)
            sizes = {r.name: np.asarray(values[r.name])[0].size for r in recorders}
            run_cost.check(run_cost.estimate(sim, duration, record.seconds, record.fields,
                                             recorders, sizes), allow_large, to_file=True)
        return values

    if resume:
        snapshot.restore_if_damaged(path)       # a kill tore the file: back to its checkpoint
        writer = ResultsWriter.reopen(path)
        try:
            with damaged_file_errors(path):
                _same_settings(path, writer.settings(), full)
                done = writer.restore_checkpoint(sim)
        except BaseException:
            writer.close()
            raise
    else:
        snapshot.discard(path)                  # an older run's copy must not be resumed
        writer = ResultsWriter.create(path, sim, duration=duration, settings=full,
                                      scene_text=scene_text or "", scene_name=scene_name)
    writer.recorder_units = {r.name: r.units for r in recorders}
    pending, finished = [], False
    bar = progress_bar(n_total, progress)
    try:
        if not resume:
            writer.append([sample()])
            writer.write_checkpoint(sim, 1)
            snapshot.take(path)
            done = 1
        if bar:
            bar.update(min(n_total, (done - 1) * every_steps))
        last_flush = _time.monotonic()
        for i in range(done, n_samples):
            steps = min(every_steps, n_total - (i - 1) * every_steps)
            sim.run(steps * sim.dt, allow_large=True)     # the whole run is checked above
            pending.append(sample())
            if bar:
                bar.update(steps)
            at_checkpoint = (i % checkpoint_samples == 0) or i == n_samples - 1
            if at_checkpoint or _time.monotonic() - last_flush >= flush_seconds:
                batch, pending = pending, []
                writer.append(batch)
                last_flush = _time.monotonic()
            if at_checkpoint:
                writer.write_checkpoint(sim, i + 1)
                if i < n_samples - 1:
                    snapshot.take(path)
        writer.finish()
        finished = True
    finally:
        try:
            writer.append(pending)      # keep what was computed (divergence, Ctrl-C)
        finally:
            writer.close()
            if bar:
                bar.close()
    if finished:
        snapshot.discard(path)
    return load_results(path, derived=False)


def _settings(user, **engine):
    """The stored settings: the engine's plus the caller's (JSON-serializable, no key reused)."""
    user = {} if user is None else user
    if not isinstance(user, dict):
        raise ValueError(f"settings = {user!r} is not allowed: must be a dict or None")
    clash = sorted(set(user) & set(engine))
    if clash:
        raise ValueError(f"settings key {clash[0]!r} is not allowed: it is set by record_to_file "
                         f"(reserved: {sorted(engine)})")
    try:
        merged = json.loads(json.dumps({**engine, **user}))
    except (TypeError, ValueError) as err:
        raise ValueError(f"settings are not allowed: not JSON-serializable ({err})") from None
    return merged


def _same_settings(path, stored, now):
    """ValueError naming the first setting that differs between `stored` and `now`."""
    keys = sorted((set(stored) | set(now)) - set(UNCHECKED_SETTINGS))
    for key in keys:
        if stored.get(key) != now.get(key):
            raise ValueError(f"cannot resume {path}: setting {key!r} was {stored.get(key)!r} "
                             f"in the interrupted run, now {now.get(key)!r} (it must be equal)")

