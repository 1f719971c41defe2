"""The calls of a Cosserat rod's plane contact with friction that sticks (sm.GroundContact on a
rod with sm.StickingFriction; kernels in softmech.kernels.rod_ground_sticking): emitted by
softmech.terms.contact.GroundContacts right after the entry's wall call, which runs with zero
friction and leaves the normal force N of each element in contact_normal."""
import numpy as np

from softmech.integrators.driver import Call
from softmech.kernels.rod_ground_sticking import (ANCHOR_ROWS, RodGroundStickArgs,
                                                  rod_ground_anchors, rod_ground_sticking)
from softmech.kernels.sticking import N_STICK_PARAMS
from softmech.packing import add_element_ends, lane_table

ANCHOR_ORDER = 90
"""Place of the anchors' update in the positions pass: after every constraint (as the rigid
bodies' and the rod-body contact's)."""


def check_rod(name, rod):
    """ValueError unless the rod is open: the closed rod's last element ends on a ghost slot,
    which the sticking kernels do not treat."""
    if rod.closed:
        raise ValueError(f"{name}.friction = sm.StickingFriction(...) is not allowed on the "
                         f"closed rod {rod.name!r}: supported on open rods only")


def sticking_calls(engine, name, rod_index, plane, rows, contact_normal, order):
    """[anchors' update (positions), friction (forces)] of contact entry `name` on rod
    rod_index: plane (B, 7) point (3) [m], unit normal (3), surface tolerance [m]; rows (B,
    N_STICK_PARAMS) (softmech.terms.friction.sticking_rows); contact_normal the wall kernel's
    normal-force scratch; order the wall call's (the friction runs right after it)."""
    rod = engine.rods[rod_index]
    args = engine.args(
        RodGroundStickArgs, rgs_rod=np.array([rod_index], dtype=np.int64),
        rgs_plane=lane_table([plane], engine.lanes, 7)[:, 0],
        rgs_param=lane_table([rows], engine.lanes, N_STICK_PARAMS)[:, 0],
        contact_normal=contact_normal,
        rgs_force=np.zeros((engine.lanes.n_blocks, 3, rod.n_elems * engine.lanes.W)),
        # the anchors are history (softmech.packing.Engine.history), saved with the state
        rgs_anchor=engine.history(f"rod_ground_sticking.{name}", ANCHOR_ROWS, rod.n_elems))
    return [Call("positions", ANCHOR_ORDER, rod_ground_anchors, args, "rod_ground_anchors",
                 history=True),
            Call("forces", order, rod_ground_sticking, args, "rod_ground_sticking")]


def add_node_forces(call, out, W):
    """Add the friction of a "rod_ground_sticking" call's last force evaluation to out (block
    layout (n_blocks, 3, n_node_slots*W)), half of each element's to each of its nodes, as the
    kernel applies it."""
    a = call.args
    r = a.rgs_rod[0]
    n0, ne = a.rod_node_off[r] * W, a.rod_n_elems[r] * W
    half = 0.5 * a.rgs_force
    add_element_ends(out, n0, ne, W, False, half, half)           # open rods only (check_rod)
