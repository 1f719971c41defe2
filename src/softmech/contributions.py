"""What one force kernel call of a compiled scene contributes, at the current state: its forces
and couples on every body and the power they deliver. The diagnostics behind force
decompositions and efficiencies (e.g. Renda et al. 2018 Fig. 14 and eqs. 26-27,
softmech.scenarios.underwater_power).

A call is one kernel of the force pass (softmech.integrators.driver.Call; its `name`, e.g.
"quadratic_drag", "joints", "rigid_quadratic_drag"): it holds every term of one kind, so a
call's contribution is that of all its terms together. The force pass is run once, in its own
order, from zeroed accumulators, and each named call's contribution is the change it makes to
the accumulators (rods: node forces [N] in the lab frame and element couples [N m] in the
material frame; rigid bodies: force [N] lab, torque [N m] principal frame), so calls that read
what earlier calls accumulated (static friction) see exactly what they see in a step.
"""
from dataclasses import dataclass

import numpy as np

from softmech.packing import from_blocks

ACCUMULATORS = ("node_force", "elem_couple", "rb_force", "rb_torque")
"""Workspace arrays the force calls add to, (n_blocks, 3, n * W) each."""
RATES = {"node_force": "v", "elem_couple": "w", "rb_force": "rb_v", "rb_torque": "rb_w"}
"""The state rate each accumulator does work on (same frame, same slots)."""


@dataclass(frozen=True)
class Contribution:
    """One call's loads at one instant: arrays (n_blocks, 3, n * W) in the engine's block
    layout, keyed by accumulator (ACCUMULATORS), and the state rates they act on."""
    loads: dict
    rates: dict

    def power(self, lanes):
        """Power [W] of the call's loads in every world, (B,): sum of F . v over nodes and
        rigid bodies plus C . w over elements and rigid bodies."""
        total = np.zeros(lanes.worlds)
        for key, load in self.loads.items():
            if load.shape[-1]:
                total += from_blocks((load * self.rates[key]).sum(axis=1), lanes).sum(axis=1)
        return total

    def rigid_force(self, lanes, slot):
        """Force [N] (lab frame) of the call on rigid body `slot`, (B, 3)."""
        return from_blocks(self.loads["rb_force"], lanes, (3,))[:, slot]


def contributions(sim, names):
    """{call name: Contribution} of the named force calls of `sim` (a softmech.Simulation) at
    its current state and time; ValueError naming the unknown call and the known ones."""
    engine = sim._engine()
    known = [c.name for c in engine.calls if c.stage == "forces"]
    for name in names:
        if name not in known:
            raise ValueError(f"call = {name!r} is not allowed: no such force call in the "
                             f"scene (calls: {known})")
    arrays = {k: getattr(engine.workspace, k) for k in ACCUMULATORS}
    state = engine.state._asdict()
    out = {n: {k: np.zeros_like(a) for k, a in arrays.items()} for n in names}
    W, t = sim.lanes.W, sim.time
    for bi in range(sim.lanes.n_blocks):
        for a in arrays.values():
            a[bi] = 0.0
        for call in engine.calls:
            if call.stage != "forces":
                continue
            before = {k: a[bi].copy() for k, a in arrays.items()} if call.name in out else None
            call.kernel(call.args, bi, W, t)
            if before is not None:
                for k, a in arrays.items():
                    out[call.name][k][bi] = a[bi] - before[k]
    rates = {k: state[v].copy() for k, v in RATES.items()}
    return {n: Contribution(loads, rates) for n, loads in out.items()}
