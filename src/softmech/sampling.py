"""What Simulation.run samples (sm.Every fields) from a unified-engine Simulation: state fields,
centres of mass, contact forces and diagnostics of every body, converted from the block layout
once per sample; and the check of the requested fields before a run."""
import numpy as np

from softmech.blocks import from_blocks
from softmech.der_packing import DISCRETE_ENGINE_NAMES
from softmech.recording import ROD_FIELDS, STATE_FIELDS
from softmech.shell_packing import MIDEDGE_STATE_FIELDS
from softmech.terms.rigid import ground_contact_force
from softmech.terms.rod_contact import CALLS as ROD_CONTACT_CALLS
from softmech.terms.rod_contact import node_forces as rod_contact_node_forces


def check_fields(sim, engine, fields):
    """ValueError for a recorded field the scene cannot give: rod_contact_force of a rigid
    body, or in a scene without sm.RodContact."""
    for f in fields:
        owner, base = f.split(".", 1) if "." in f else (None, f)
        if base not in ROD_FIELDS:
            continue
        if owner is not None and sim._rigid(sim._rod_name(owner)) is not None:
            raise ValueError(f"Every.fields entry {f!r} is not allowed: {owner!r} is a rigid "
                             "body; rod_contact_force is the sm.RodContact force on a rod's "
                             "nodes")
        if not any(c.name in ROD_CONTACT_CALLS for c in engine.calls):
            raise ValueError(f"Every.fields entry {f!r} is not allowed: the scene has no "
                             "sm.RodContact term")


def sample_fields(sim, samples, fields):
    """Append the current time and `fields` (sm.Every.fields: '<field>' of every body or
    '<body>.<field>') of `sim` to `samples` {key: list}: Simulation.run's sample."""
    samples["time"].append(sim.time)
    if not fields:
        return
    per_rod, full = {}, {}
    every = [b.name for b in sim.rods + sim.rigid_bodies] + list(sim._der_index)
    for f in fields:
        rod, base = (f.split(".", 1) if "." in f else (None, f))
        names = [sim._rod_name(rod)] if rod or len(every) == 1 else every
        for name in names:
            if sim._der(name) is not None:
                value = _der_sample(sim, name, base, per_rod)
            elif base in STATE_FIELDS and sim._rigid(name) is None:
                value = _sliced_state(sim, name, base, full)
            elif base in STATE_FIELDS:
                value = sim.get_state(name)[base]
            elif base in ("com", "com_velocity"):
                value = _centre_of_mass(sim, name, base, full)
            elif base == "contact_force":
                value = (ground_contact_force(sim, name) if sim._rigid(name) is not None
                         else sim.contact_forces(name))
            elif base == "rod_contact_force":
                if sim._rigid(name) is not None:
                    continue  # a rod-only field (ROD_FIELDS; checked by check_fields)
                value = rod_contact_node_forces(sim, name)
            else:
                if name not in per_rod:
                    per_rod[name] = sim.diagnostics(name)
                value = per_rod[name][base]
            samples.setdefault(f"{name}.{base}", []).append(value)


def _der_sample(sim, name, base, per_rod):
    """A recorded field of a discrete rod or shell: its state fields (get_state: a rod's
    softmech.der_packing.DER_STATE_FIELDS, a shell's positions and velocities, a mid-edge
    shell's angles and angular_velocities; a rod's twists also under the discrete engine's
    names, DISCRETE_ENGINE_NAMES; a hinge shell's angles, none), com and com_velocity, and the
    diagnostics' energies and momenta; ValueError for a field it does not have (directors,
    contact forces)."""
    if (name, "state") not in per_rod:      # (once per sample, as the diagnostics)
        per_rod[name, "state"] = sim.get_state(name)
    state = per_rod[name, "state"]
    if base in state:
        return state[base]
    if DISCRETE_ENGINE_NAMES.get(base) in state:
        return state[DISCRETE_ENGINE_NAMES[base]]
    if base in MIDEDGE_STATE_FIELDS:        # a hinge shell's (none), as the discrete engine's
        return np.zeros((sim.worlds, 0))
    if name not in per_rod:
        per_rod[name] = sim.diagnostics(name)
    if base in per_rod[name]:
        return per_rod[name][base]
    kind = "shell" if getattr(sim._der(name), "kind", "") == "shell" else "discrete rod"
    raise ValueError(f"Every.fields entry {base!r} is not allowed for {kind} {name!r}: "
                     f"it records {sorted(state)} and {sorted(per_rod[name])}")


def _unblocked(sim, key, full):
    """The state array `key` (x, v, Q, w) or the node masses ("mass") of every rod in the
    users' layout (B, n, ...), converted once per sample and kept in `full`: sampling a
    scene of thousands of rods then slices it per rod instead of converting the whole
    state again for each one (quadratic in the rod count)."""
    if key not in full:
        trailing = {"Q": (3, 3), "mass": ()}.get(key, (3,))
        arr = sim._engine().bodies.node_mass if key == "mass" else getattr(sim._state, key)
        full[key] = from_blocks(arr, sim.lanes, trailing)
    return full[key]


def _sliced_state(sim, name, field, full):
    """get_state(name)[field] of a rod, from the sample's converted arrays."""
    ns, es = sim._slices(name)
    key, where = {"positions": ("x", ns), "velocities": ("v", ns), "directors": ("Q", es),
                  "angular_velocities": ("w", es)}[field]
    return _unblocked(sim, key, full)[:, where].copy()


def _centre_of_mass(sim, name, field, full=None):
    """Mass-weighted mean node position [m] or velocity [m/s] of one rod, (B, 3); a rigid
    body's centre of mass. full: a sample's converted arrays (_unblocked)."""
    if sim._rigid(name) is not None:
        return sim.get_state(name)["positions" if field == "com" else "velocities"][:, 0]
    full = {} if full is None else full
    ns, _ = sim._slices(name)
    values = _unblocked(sim, "x" if field == "com" else "v", full)[:, ns]
    mass = _unblocked(sim, "mass", full)[:, ns]
    return np.einsum("bn,bnk->bk", mass, values) / mass.sum(axis=1)[:, None]
