"""sm.NodeUserForce on the discrete rods and shells of the unified engine: the user's Python
function called from the compiled force pass, once per world (lane), through numba's object
mode (the GIL is taken for the call; the rest of the pass runs without it).

The function is the term's own, `function(t, positions (K, 3) [m], velocities (K, 3) [m/s])
-> forces (K, 3) [N]` on the body's K nodes, as in the discrete engine
(softmech.terms.implicit_environment.NodeUserForce). The compiled kernel knows it by an integer
key into USER_FORCES (a compiled function cannot hold a Python object); the key is a per-process
counter, so a scene compiled in a worker process registers its own.
"""
import itertools
import warnings
from collections import namedtuple

import numba
from numba.core.errors import NumbaWarning

from softmech import _checks
from softmech.kernels import kernel

# numba warns, when it compiles a step that calls der_user_force, that an object-mode block
# cannot run in parallel although the kernel is nogil: true and intended (the user's Python
# function needs the GIL; the other worlds' blocks run their compiled work meanwhile), so not
# shown (the message starts with terminal colour codes, hence the leading .*)
warnings.filterwarnings("ignore", category=NumbaWarning,
                        message=".*Code running in object mode won't allow parallel")

USER_FORCES = {}
"""{key: (term name, function)} of the NodeUserForce terms compiled in this process."""
_KEYS = itertools.count()


def register(name, function):
    """Key (int) under which der_user_force finds `function` of term `name`."""
    key = next(_KEYS)
    USER_FORCES[key] = (name, function)
    return key


def call_user_force(key, t, bi, x, v, out):
    """out[bi] (3 K,) <- the user's forces at time t [s] for the nodes' positions x[bi] and
    velocities v[bi] (3 K,) each, handed to the function as (K, 3) arrays; ValueError naming
    the term if it does not return (K, 3) finite values. The whole scratch arrays
    (n_blocks, 3 K) come in and are indexed here: numba's object mode hands a view over as the
    array it was cut from."""
    name, function = USER_FORCES[key]
    shape = (x.shape[1] // 3, 3)
    forces = function(float(t), x[bi].reshape(shape).copy(), v[bi].reshape(shape).copy())
    out[bi] = _checks.user_result(name, forces, shape, t).reshape(-1)


DerUserForceArgs = namedtuple("DerUserForceArgs", [
    "der_x", "der_v",   # State: node positions [m], velocities [m/s] (n_blocks, 3, n W)
    "der_force",        # Workspace: node forces [N] (n_blocks, 3, n W), accumulated into
    "node_slot",        # (K,) int64: the body's node slots (softmech.der_packing.DerSlots)
    "key",              # (1,) int64: the function's key in USER_FORCES
    "user_x", "user_v", "user_f",   # scratch (n_blocks, 3 K): one world's positions [m],
                                    # velocities [m/s] and forces [N] (names that no State,
                                    # model or Workspace field has: softmech.packing.pick)
])
"""Arrays of der_user_force (one sm.NodeUserForce)."""


@kernel
def der_user_force(a, bi, W, t):
    """der_force += the user's forces on the body's nodes, world by world (a plain kernel,
    never inlined: its object-mode block stays out of the scenes' generated steps)."""
    x, v, F = a.user_x[bi], a.user_v[bi], a.user_f[bi]
    xs, vs, fs = a.user_x, a.user_v, a.user_f
    slots = a.node_slot
    key = a.key[0]
    for lane in range(W):
        for k in range(slots.shape[0]):
            for c in range(3):
                x[3 * k + c] = a.der_x[bi, c, slots[k] * W + lane]
                v[3 * k + c] = a.der_v[bi, c, slots[k] * W + lane]
        with numba.objmode():
            call_user_force(key, t, bi, xs, vs, fs)
        for k in range(slots.shape[0]):
            for c in range(3):
                a.der_force[bi, c, slots[k] * W + lane] += F[3 * k + c]
