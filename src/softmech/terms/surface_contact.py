"""The compiled part of a Cosserat rod's plane contact on its surface
(GroundContact(rod, surface=True); the model and its equations: softmech.kernels.surface_contact).

The default plane contact of a rod (softmech.terms.contact.GroundContacts, Gazzola et al. 2018)
acts on the element centres; this part keeps every point of the rod's surface (each element's
capsule of its radius, so every node and every element) out of the plane with a penalty whose
depth is the load over the stiffness.
"""
import numpy as np

from softmech.integrators.driver import Call
from softmech.kernels.sticking import N_STICK_PARAMS
from softmech.kernels.surface_contact import (N_SURFACE_PARAMS, SURFACE_VARIANTS,
                                              SurfaceContactArgs)
from softmech.kernels.surface_sticking import (ANCHOR_ROWS, SurfaceStickArgs, surface_anchors,
                                               surface_sticking)
from softmech.packing import add_element_ends, lane_table
from softmech.stability import spring_time_step
from softmech.terms.base import Part

ORDER = 90
"""With the centre contact (softmech.terms.contact.ORDER): the penalty reads no other force, so
its place in the force pass changes nothing but the round-off of the sum."""
ANCHOR_ORDER = 90
"""Place of the sticking anchors' update in the positions pass: after every constraint (as the
other sticking contacts')."""


def node_stiffness(n_nodes, closed, stiffness):
    """Stiffness of every node's sphere [N/m], (B, n_nodes): half of each adjacent element's k,
    i.e. k inside and k/2 at an open rod's two end nodes."""
    k = np.repeat(np.reshape(stiffness, (-1, 1)), n_nodes, axis=1).astype(float)
    if not closed:
        k[:, [0, -1]] *= 0.5
    return k


def time_step_limit(node_mass, closed, stiffness, damping=0.0):
    """dt limit [s] (B,) of the penalty springs on the nodes, k inside and k/2 at an open rod's
    end nodes (node_stiffness), with their dashpots shared alike: min_i spring_time_step(m_i,
    k_i, c_i), sqrt(min_i m_i / k_i) without them (the explicit stability bound 2 sqrt(m/k) of
    a spring on a mass, halved, as for the other contact terms). node_mass (B, n_nodes) [kg],
    stiffness (B,) [N/m], damping (B,) or a number [N s/m]."""
    n = node_mass.shape[1]
    k = node_stiffness(n, closed, stiffness)
    c = node_stiffness(n, closed, damping)
    return spring_time_step(node_mass, k, c).min(axis=1)


class SurfaceContacts(Part):
    """All surface plane contacts of a scene: per entry the rod index, the parameters
    (B, N_SURFACE_PARAMS) and the friction's variant (unit decomposition, mollified law). One
    call per run of consecutive entries with the same variant (a scene compiles only what it
    uses). An entry with sticking friction (its kinetic coefficients 0 in params) adds the
    anchors' update and the friction of softmech.kernels.surface_sticking, one pair of calls
    per entry."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []
        self.sticking = []

    def add(self, rod_index, params, unit, sticking=None, mollified=False):
        """sticking: None, or (name, plane (B, 6): point (3) [m], unit normal (3), rows (B,
        N_STICK_PARAMS): softmech.terms.friction.sticking_rows); mollified: the mollified
        friction law (softmech.kernels.surface_contact) instead of the kinetic one."""
        self.entries.append((rod_index, params, (bool(unit), bool(mollified))))
        if sticking is not None:
            self.sticking.append((rod_index,) + tuple(sticking))

    def calls(self, engine):
        return self._penalty_calls(engine) + [
            c for entry in self.sticking for c in sticking_calls(engine, *entry)]

    def _penalty_calls(self, engine):
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


def sticking_calls(engine, rod_index, name, plane, rows):
    """[anchors' update (positions), friction (forces)] of the sticking surface contact `name`
    on rod rod_index; plane (B, 6), rows (B, N_STICK_PARAMS) (SurfaceContacts.add)."""
    rod = engine.rods[rod_index]
    W = engine.lanes.W
    args = engine.args(
        SurfaceStickArgs, sst_rod=np.array([rod_index], dtype=np.int64),
        sst_plane=lane_table([plane], engine.lanes, 6)[:, 0],
        sst_param=lane_table([rows], engine.lanes, N_STICK_PARAMS)[:, 0],
        sst_force=np.zeros((engine.lanes.n_blocks, 6, rod.n_elems * W)),
        # the anchors are history (softmech.packing.Engine.history), saved with the state
        sst_anchor=engine.history(f"surface_sticking.{name}", ANCHOR_ROWS, 2 * rod.n_elems))
    return [Call("positions", ANCHOR_ORDER, surface_anchors, args, "surface_anchors",
                 history=True),
            Call("forces", ORDER, surface_sticking, args, "surface_sticking")]


def node_forces(engine):
    """Surface plane-contact force on every node slot [N], block layout (n_blocks, 3,
    n_nodes*W), from the end forces the kernels kept during the last force evaluation (every
    entry; a closed rod's last element ending on node 0). Zero where no contact acts."""
    W = engine.lanes.W
    out = np.zeros_like(engine.workspace.node_force)
    for call in engine.calls:
        if call.name == "surface_sticking":     # the friction of an open rod's end spheres
            a = call.args
            r = a.sst_rod[0]
            add_element_ends(out, a.rod_node_off[r] * W, a.rod_n_elems[r] * W, W, False,
                             a.sst_force[:, :3], a.sst_force[:, 3:])
            continue
        if call.name != "surface_contacts":
            continue
        a = call.args
        for i, r in enumerate(a.surface_rod):
            e0, n0 = a.rod_elem_off[r] * W, a.rod_node_off[r] * W
            ne, closed = a.rod_n_elems[r] * W, a.rod_closed[r]
            f = a.surface_force[:, i, :, e0:e0 + ne]
            add_element_ends(out, n0, ne, W, closed, f[:, :3], f[:, 3:])
    return out
