"""State files of the explicit engine's simulations (Simulation.save_state / load_state): the
clock, every rod's and rigid body's state and the integrator's history in one .npz, written
atomically and read back member by member after checks (softmech.io.read_state_npz).

Members: "time" (), "clock_origin" (), "clock_steps" () int, "clock_dt" () [s];
"<body>.<field>" (B, ...) for every state field (softmech.recording.STATE_FIELDS); a rigid
body's frame also exactly as the engine holds it, "<body>.principal_directors" and
"<body>.principal_angular_velocities"; a discrete rod's softmech.der_packing.DER_STATE_FIELDS
(its twist and reference frames with its nodes); "implicit.*", the implicit integrator's memory, and "term.*", the terms' history (friction
anchors) (Simulation.history)."""
import zipfile

import numpy as np

from softmech.integrators.implicit import IMPLICIT_SCHEMES
from softmech.io import ZIP_ERRORS, atomic_save_npz, read_state_npz
from softmech.recording import PRINCIPAL, STATE_FIELDS

CLOCK = ("clock_origin", "clock_steps", "clock_dt")
HISTORY_PREFIXES = ("implicit.", "term.")
"""Members of Simulation.history(): the implicit integrator's memory, the terms' history."""


def write_state(sim, path):
    """Write `sim`'s clock, states and history() to `path` atomically (module docstring)."""
    origin, steps = sim.clock
    arrays = {"time": np.array(sim.time), "clock_origin": np.array(origin),
              "clock_steps": np.array(steps, dtype=np.int64), "clock_dt": np.array(sim.dt)}
    for r in sim.rods + sim.rigid_bodies + sim.der_rods + sim.der_shells:
        arrays.update({f"{r.name}.{k}": v for k, v in sim.get_state(r.name).items()})
    for b in sim.rigid_bodies:
        exact = sim.get_state(b.name, principal=True)
        arrays.update({f"{b.name}.principal_{k}": exact[k] for k in PRINCIPAL})
    arrays.update(sim.history())
    atomic_save_npz(path, **arrays)


def read_state(sim, path):
    """Restore a state file into `sim`: the clock when the file's dt is sim's (else the time),
    the states, and the integrator's history at the same dt. Every member is checked first;
    on any refusal (ValueError naming the file and the member) sim is unchanged."""
    names = _member_names(path)
    history = {n: None for n in names if n.startswith(HISTORY_PREFIXES)}
    data = read_state_npz(path, _expected(sim, names), optional={**{k: () for k in CLOCK},
                                                                 **history},
                          counts=("clock_steps",))
    same_dt = set(CLOCK) <= set(data) and float(data["clock_dt"]) == sim.dt
    saved = tuple(a.copy() for a in sim._state)
    try:
        for r in sim.rods + sim.rigid_bodies:
            exact = f"{r.name}.principal_directors" in data
            sim.set_state(r.name, principal=exact, **{
                k: data[f"{r.name}.{'principal_' if exact and k in PRINCIPAL else ''}{k}"]
                for k in STATE_FIELDS})
        for r in sim.der_rods + sim.der_shells:     # (a shell: positions, velocities)
            sim.set_state(r.name, **{k: data[f"{r.name}.{k}"] for k in sim.get_state(r.name)})
    except ValueError as err:          # e.g. directors that are not rotations
        for a, b in zip(sim._state, saved):
            a[...] = b
        raise ValueError(f"{path}: {err}") from None
    if same_dt:
        sim.clock = (float(data["clock_origin"]), int(data["clock_steps"]))
    else:
        sim.time = float(data["time"])
    # the terms' history (friction anchors) whatever the step; another step size (or scheme)
    # starts the integrator afresh
    history = {k: v for k, v in data.items() if k.startswith("term.") or (
        k.startswith("implicit.") and same_dt and sim.scheme in IMPLICIT_SCHEMES)}
    sim.set_history(history)


def _member_names(path):
    """The member names of an .npz (empty if it is not one: read_state_npz then says why)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return {m[:-4] for m in archive.namelist() if m.endswith(".npy")}
    except ZIP_ERRORS:
        return set()


def _expected(sim, names):
    """{member: shape} a state file of sim's scene must hold; a rigid body's frame in the exact
    (principal) form when the file has it."""
    members = {"time": ()}
    for r in sim.rods + sim.rigid_bodies:
        exact = f"{r.name}.principal_directors" in names
        for key, value in sim.get_state(r.name).items():
            if key in STATE_FIELDS:
                prefix = "principal_" if exact and key in PRINCIPAL else ""
                members[f"{r.name}.{prefix}{key}"] = value.shape
    for r in sim.der_rods + sim.der_shells:
        members.update({f"{r.name}.{k}": v.shape for k, v in sim.get_state(r.name).items()})
    return members
