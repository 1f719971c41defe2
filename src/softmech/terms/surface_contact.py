"""The compiled part of a Cosserat rod's plane contact on its surface
(GroundContact(rod, surface=True); the model and its equations: softmech.kernels.surface_contact).

The default plane contact of a rod (softmech.terms.contact.GroundContacts, Gazzola et al. 2018)
acts on the element centres; this part keeps every point of the rod's surface (each element's
capsule of its radius, so every node and every element) out of the plane with a penalty whose
depth is the load over the stiffness.
"""
import numpy as np

from softmech.integrators.driver import Call
from softmech.kernels.surface_contact import (N_SURFACE_PARAMS, SURFACE_VARIANTS,
                                              SurfaceContactArgs)
from softmech.packing import add_element_ends
from softmech.terms.base import Part

ORDER = 90
"""With the centre contact (softmech.terms.contact.ORDER): the penalty reads no other force, so
its place in the force pass changes nothing but the round-off of the sum."""


def node_stiffness(n_nodes, closed, stiffness):
    """Stiffness of every node's sphere [N/m], (B, n_nodes): half of each adjacent element's k,
    i.e. k inside and k/2 at an open rod's two end nodes."""
    k = np.repeat(np.reshape(stiffness, (-1, 1)), n_nodes, axis=1).astype(float)
    if not closed:
        k[:, [0, -1]] *= 0.5
    return k


def time_step_limit(node_mass, closed, stiffness):
    """dt limit [s] (B,) of the penalty springs on the nodes: sqrt(min_i m_i / k_i) (the
    explicit stability bound 2 sqrt(m/k) of a spring on a mass, halved, as for the other contact
    terms). node_mass (B, n_nodes) [kg], stiffness (B,) [N/m]."""
    k = node_stiffness(node_mass.shape[1], closed, stiffness)
    return np.sqrt(np.min(node_mass / k, axis=1))


class SurfaceContacts(Part):
    """All surface plane contacts of a scene: per entry the rod index, the parameters
    (B, N_SURFACE_PARAMS) and whether friction uses the unit decomposition. One call per run of
    consecutive entries with the same decomposition (a scene compiles only what it uses)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def add(self, rod_index, params, unit):
        self.entries.append((rod_index, params, bool(unit)))

    def calls(self, engine):
        params = engine.elem_table([(e[0], e[1][:, None, :]) for e in self.entries],
                                   N_SURFACE_PARAMS)
        n_e = engine.slots.n_elems * engine.lanes.W
        calls, start = [], 0
        for stop in range(1, len(self.entries) + 1):
            if stop < len(self.entries) and self.entries[stop][2] == self.entries[start][2]:
                continue
            group = slice(start, stop)
            args = engine.args(
                SurfaceContactArgs,
                surface_rod=np.array([e[0] for e in self.entries[group]], dtype=np.int64),
                surface_param=params[:, group], surface_force=engine.zeros(stop - start, 6, n_e))
            calls.append(Call("forces", ORDER, SURFACE_VARIANTS[self.entries[start][2]], args,
                              "surface_contacts"))
            start = stop
        return calls


def node_forces(engine):
    """Surface plane-contact force on every node slot [N], block layout (n_blocks, 3,
    n_nodes*W), from the end forces the kernels kept during the last force evaluation (every
    entry; a closed rod's last element ending on node 0). Zero where no contact acts."""
    W = engine.lanes.W
    out = np.zeros_like(engine.workspace.node_force)
    for call in engine.calls:
        if call.name != "surface_contacts":
            continue
        a = call.args
        for i, r in enumerate(a.surface_rod):
            e0, n0 = a.rod_elem_off[r] * W, a.rod_node_off[r] * W
            ne, closed = a.rod_n_elems[r] * W, a.rod_closed[r]
            f = a.surface_force[:, i, :, e0:e0 + ne]
            add_element_ends(out, n0, ne, W, closed, f[:, :3], f[:, 3:])
    return out
