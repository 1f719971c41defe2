"""The per-scene step: a small module generated for each set of term kernels and cached on disk.

A scene's step calls the kernels of the terms it has, and only those. The generator writes the
integrator's entry points (softmech.integrators.explicit.STEP_BLOCK_SOURCE) after three hooks
(forces, positions, rates) that call the scene's term kernels in the table's order, each kernel
a separately compiled function taking its own argument tuple. The module is written once per
distinct term set under softmech.cache.cache_dir()/steps (the file name is a hash of its text
and of softmech.cache.kernel_fingerprint(): the kernels' sources and the numba version), so
numba caches it like any other module and a second scene with the same terms reuses it.

Compile cost therefore grows with the terms a scene uses: a term kernel is compiled once (and
cached) for every scene that uses it, a term absent from a scene costs that scene nothing, and
the generated module itself is a few dozen lines. Only the time loop (step_block) is compiled
per term set; diagnostics (softmech.simulation.Simulation.accelerations, contact forces) call
the same kernels one by one from Python, compiling nothing per scene.
"""
import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from softmech.cache import cache_dir, kernel_fingerprint
from softmech.integrators.explicit import STEP_BLOCK_SOURCE
from softmech.kernels import external_calls

STAGES = ("forces", "positions", "rates")
"""Hooks of the integrator a term kernel can take part in."""


class Proximity(NamedTuple):
    """Groups of slots a contact call may couple (Call.proximity), one row per group, int64:
    nodes (m, a) rod node slots, elems (m, b) rod element slots, bodies (m, c) rigid-body
    slots (a, b or c may be 0). Every velocity of a group is coupled with every other."""
    nodes: np.ndarray
    elems: np.ndarray
    bodies: np.ndarray


@dataclass(frozen=True)
class Call:
    """One compiled term kernel in one hook of the step: kernel(args, bi, W, t).

    stage: one of STAGES; order: position within the stage (lower first; ties keep insertion
    order); kernel: a numba dispatcher defined at module level (imported by the generated
    module by its module and name); args: the namedtuple of arrays it reads and writes.
    history: a "positions" call that advances a term's history (the friction anchors' return
    mapping) instead of imposing a constraint: it runs after every drift inside a step, but not
    at the configuration that closes a block of steps (closing_positions), where a block ends
    and the next one starts with its opening drift. A constraint may be imposed there twice
    (projecting again changes nothing), a history update may not: run there, it made a run's
    result depend on how it was split into blocks, i.e. on the record interval.
    proximity: None, or a Python function (args, bi, lane, W) -> Proximity: the m groups of
    rod nodes, rod elements and rigid bodies that the call may couple at block bi's lane
    (contact between bodies near each other, touching or not; e.g.
    softmech.terms.rod_contact.near_pairs and near_bodies): the implicit integrator adds their
    couplings to the Jacobian's pattern (softmech.integrators.implicit), which a probe of the
    current forces alone misses until they touch.
    jacobian: None, or a "forces" call's softmech.integrators.analytic.AnalyticJacobian: the
    implicit integrator takes its entries of the Newton matrix from it instead of finite
    differences.
    couplings: None, or a softmech.integrators.analytic.Couplings: every entry dR_i/du_j that
    the call can make, at any state (its stencils; none for a constraint or a parameter it
    writes). Where every call of a scene declares them (or an analytic Jacobian), the implicit
    integrator builds its pattern from them instead of probing the residual column by column
    (one evaluation per DOF)."""
    stage: str
    order: int
    kernel: object
    args: tuple
    name: str = ""
    history: bool = False
    proximity: object = None
    jacobian: object = None
    couplings: object = None

    def __post_init__(self):
        if self.stage not in STAGES:
            raise ValueError(f"Call.stage = {self.stage!r} is not allowed: must be one of {STAGES}")
        if self.history and self.stage != "positions":
            raise ValueError(f"Call.history = True is not allowed with stage = {self.stage!r}: "
                             "only a 'positions' call updates a history")
        if self.jacobian is not None and self.stage != "forces":
            raise ValueError(f"Call.jacobian is not allowed with stage = {self.stage!r}: only a "
                             "'forces' call has forces to differentiate")


@dataclass(frozen=True)
class BodyKind:
    """The motion kernels of a kind of body (module-level kernels): how the integrator moves it.

    drift(a.drift, bi, W, h), drift_twice(a.drift, bi, W, h1, h2) (two drifts, bit-identical to
    two drift calls), kick(a.kick, bi, W, h) (inertia: forces -> accelerations -> velocities),
    kick_drift(a.kick_drift, bi, W, h, h1, h2) (kick, then drift(h1) for h2 == 0 or
    drift_twice(h1, h2)), reset_status(a.drift, bi), status(a.drift, bi) -> int (0 ok, larger
    is worse), accelerations(a.kick, bi, W) (diagnostics), and, for kinds with ghost slots,
    refresh_positions / refresh_rates(a.ghosts, bi, W, t); `a` is the kind's motion tuple in
    T[0] (softmech.packing.Engine.motions). The Cosserat rods' are
    softmech.kernels.rod_motion.ROD_MOTION; a new body kind (rigid bodies, discrete rods,
    shells) brings its own and joins the step without touching the integrator.
    implicit_place(S_j, bi, W, h, U) and implicit_copy(S_j, bi, to_base, to_save, from_save):
    the implicit integrator's placement of a trial state and its state copies, for a kind whose
    state is not that of softmech.kernels.implicit_motion (positions and frames); None: those
    (the discrete rods': softmech.kernels.der_motion)."""
    drift: object
    drift_twice: object
    kick: object
    kick_drift: object
    reset_status: object
    status: object
    accelerations: object
    refresh_positions: object = None
    refresh_rates: object = None
    implicit_place: object = None
    implicit_copy: object = None


MOTION_HOOKS = {  # hook -> (signature, the motion tuple member its kernels take, extra args)
    "drift": ("T, bi, W, h", "drift", "bi, W, h"),
    "drift_twice": ("T, bi, W, h1, h2", "drift", "bi, W, h1, h2"),
    "kick": ("T, bi, W, h", "kick", "bi, W, h"),
    "kick_drift": ("T, bi, W, h, h1, h2", "kick_drift", "bi, W, h, h1, h2"),
    "reset_status": ("T, bi", "drift", "bi"),
}


def _kernel_ref(kernel):
    fn = getattr(kernel, "py_func", kernel)
    return fn.__module__, fn.__name__


def kernel_importer(lines):
    """name(kernel) -> the name under which a generated module refers to the module-level
    kernel, appending its import line to `lines` the first time (unique: module and name)."""
    names = {}

    def name(kernel):
        ref = _kernel_ref(kernel)
        if ref not in names:
            names[ref] = f"{ref[0].rsplit('.', 1)[-1]}__{ref[1]}"
            lines.append(f"from {ref[0]} import {ref[1]} as {names[ref]}")
        return names[ref]
    return name


def step_source(calls, kinds):
    """Source text of the step module for the term `calls` (each with its index into T: 1, 2,
    ...) and the body `kinds`: (BodyKind, with_ghosts) pairs, entry j of `T[0]` the motion
    tuple of kind j (with_ghosts: refresh the kind's ghost slots after the constraints)."""
    lines = ['"""Generated by softmech.integrators.driver; do not edit."""',
             "from softmech.kernels import kernel"]
    name = kernel_importer(lines)

    for call in calls:
        name(call.kernel)

    def hook(stage, hook_name=None, histories=True):
        body = [f"    {name(call.kernel)}(T[{i}], bi, W, t)"
                for i, call in enumerate(calls, start=1)
                if call.stage == stage and (histories or not call.history)]
        if stage != "forces":
            body += [f"    {name(getattr(kind, 'refresh_' + stage))}(T[0][{j}].ghosts, bi, W, t)"
                     for j, (kind, with_ghosts) in enumerate(kinds) if with_ghosts]
        return ["", "", '@kernel(inline="always")', f"def {hook_name or stage}(T, bi, W, t):",
                *(body or ["    pass"])]

    hooks = []
    for stage in STAGES:
        hooks += hook(stage)
    # the positions hook at a block's closing configuration: constraints only (Call.history)
    hooks += hook("positions", "closing_positions", histories=False)
    for hook_name, (signature, member, args) in MOTION_HOOKS.items():
        body = [f"    {name(getattr(kind, hook_name))}(T[0][{j}].{member}, {args})"
                for j, (kind, _) in enumerate(kinds)]
        hooks += ["", "", '@kernel(inline="always")', f"def {hook_name}({signature}):",
                  *(body or ["    pass"])]
    status = [f"    worst = max(worst, {name(kind.status)}(T[0][{j}].drift, bi))"
              for j, (kind, _) in enumerate(kinds)]
    hooks += ["", "", '@kernel(inline="always")', "def status(T, bi):", "    worst = 0", *status,
              "    return worst"]
    hooks_empty = not any(g for _, g in kinds) and all(c.stage == "forces" for c in calls)
    hooks += ["", "", f"FUSE = {hooks_empty}",
              '"""No constraint between a kick and the next drift: step_block fuses them."""']
    return "\n".join(lines + hooks) + "\n\n" + STEP_BLOCK_SOURCE


_LOADED = {}


def step_module(calls, kinds):
    """The compiled step module for these term calls and body kinds (see step_source):
    generated, written (once, atomically) and imported; the same module object for the same
    term set within a process."""
    return load_generated(step_source(calls, kinds), "step")


def load_generated(source, prefix):
    """Import the module whose text is `source`, written under softmech.cache.cache_dir()/steps
    as <prefix>_<hash>.py (the hash of the text, of the kernels' fingerprint and of whether its
    calls go through slots, softmech.kernels.external_calls) once, so that
    numba caches its functions like any module's; the same module object for the same text
    within a process. Also used by the implicit integrator's compiled Newton loop
    (softmech.implicit.compiled)."""
    calls = "slots" if external_calls.enabled() else "linked"
    digest = hashlib.sha256((source + kernel_fingerprint() + calls).encode()).hexdigest()[:20]
    key = f"{prefix}_{digest}"
    if key in _LOADED:
        return _LOADED[key]
    folder = cache_dir() / "steps"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.py"
    if not path.exists() or path.read_text() != source:
        # numba's cache keys on the file's modification time: write only when absent
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(source)
        tmp.replace(path)
    name = f"softmech_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[key] = module
    return module
