"""A Cosserat rod on a plane with friction that sticks (softmech.terms.contact.GroundContact with
a softmech.terms.friction.StickingFriction): the normal law of softmech.kernels.contact (the
wall response of Gazzola et al. 2018, eq. 4.8, run with zero friction), the tangential law of
softmech.kernels.sticking.

Per element in contact (its centre's distance to the plane minus its radius within the surface
tolerance, as the wall kernel decides) the spring joins the element's midpoint
P = (x_a + x_b) / 2, a material point of its axis, to an anchor A fixed on the plane; with the
plane's unit normal n, u_t = (P - A) - ((P - A).n) n and w_t the tangential part of the
midpoint's velocity (v_a + v_b) / 2. The friction -k_t u_t - c_t w_t, clipped to the cone
mu N, goes half to each node. N is the wall kernel's normal force of the element (contact_normal:
the force-balance part, max(-F.u, 0), the same N as the regularized rod friction of Gazzola
et al. 2018).

The anchor update (a positions-stage kernel, before the forces) needs N, which only a force
evaluation knows: the force kernel records each element's N in the history beside its anchor,
and the update uses the N of the latest evaluation (half a step old with position Verlet). Kept
in the history, it is saved with the state, so a restart continues bit for bit; diagnostics that
evaluate forces between steps restore the histories (softmech.simulation.Simulation._evaluate).

Limit: the friction acts on the axis, not at the contact point, so it exerts no couple: a rod
held by it does not roll (the regularized law's rolling=False).
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.sticking import NO_CONTACT, STICKING, anchor_slip, stick_force, tangential

RodGroundStickArgs = namedtuple("RodGroundStickArgs", [
    "x", "v",                                                 # state
    "rod_node_off", "rod_elem_off", "rod_n_elems", "elem_radius",
    "rgs_rod",        # (1,) int64: the rod of the contact entry
    "rgs_plane",      # (n_blocks, 7, W): plane point (3) [m], unit normal (3), surface tolerance [m]
    "rgs_param",      # (n_blocks, N_STICK_PARAMS, W): softmech.kernels.sticking's rows
    "contact_normal",  # (n_blocks, n_elems*W): N [N] per element slot, written by the wall kernel
    "rgs_anchor",     # history (n_blocks, ANCHOR_ROWS, n_rod_elems*W): A (3) [m], status, N [N]
    "rgs_force",      # output (n_blocks, 3, n_rod_elems*W): each element's friction [N]
    "node_force",                                             # output (added to)
])
"""The arguments of one rod-plane contact entry with sticking friction."""

ANCHOR_ROWS = 5
"""Rows of rgs_anchor per element-lane: the plane's anchor A (3) [m], the status
(softmech.kernels.sticking), the normal force N [N] of the latest force evaluation."""


@kernel(inline="always")
def midpoint(X, ka, kb):
    """(X[:, ka] + X[:, kb]) / 2: the element's midpoint (positions) or its velocity."""
    return (0.5 * (X[0, ka] + X[0, kb]), 0.5 * (X[1, ka] + X[1, kb]),
            0.5 * (X[2, ka] + X[2, kb]))


@kernel(inline="always")
def element_spring(A, j, P, n):
    """Tangential part u_t (3,) [m] of the spring P - A of anchor column j."""
    return tangential(P[0] - A[0, j], P[1] - A[1, j], P[2] - A[2, j], n)


@kernel
def rod_ground_sticking(a, bi, W, t):
    """Add the sticking friction of one rod-plane contact entry in block bi to a.node_force
    (module docstring), and each element's friction to a.rgs_force; record each element's N in
    the history for the anchors' update. Runs
    right after the entry's wall kernel (it reads contact_normal of this entry). Reads the
    anchors, never moves them."""
    r = a.rgs_rod[0]
    ne = a.rod_n_elems[r] * W
    e0, n0 = a.rod_elem_off[r] * W, a.rod_node_off[r] * W
    X, V, A, out = a.x[bi], a.v[bi], a.rgs_anchor[bi], a.node_force[bi]
    plane, prm, kept = a.rgs_plane[bi], a.rgs_param[bi], a.rgs_force[bi]
    for k in range(ne):
        lane = k % W
        fn = a.contact_normal[bi, e0 + k]
        A[4, k] = fn
        kept[0, k], kept[1, k], kept[2, k] = 0.0, 0.0, 0.0
        if A[3, k] == NO_CONTACT:
            continue
        n = (plane[3, lane], plane[4, lane], plane[5, lane])
        ka, kb = n0 + k, n0 + k + W
        w = midpoint(V, ka, kb)
        ft = stick_force(element_spring(A, k, midpoint(X, ka, kb), n),
                         tangential(w[0], w[1], w[2], n), fn, A[3, k], prm, lane)
        for c in range(3):
            kept[c, k] = ft[c]
            out[c, ka] += 0.5 * ft[c]
            out[c, kb] += 0.5 * ft[c]


@kernel
def rod_ground_anchors(a, bi, W, t):
    """Update the anchors of one rod-plane contact entry in block bi at its current
    configuration (softmech.kernels.sticking): an element coming into contact anchors its
    midpoint's foot on the plane; a spring beyond the cone (N of the latest force evaluation)
    slides back onto it; an element that left the surface band forgets. Positions stage."""
    r = a.rgs_rod[0]
    ne = a.rod_n_elems[r] * W
    e0, n0 = a.rod_elem_off[r] * W, a.rod_node_off[r] * W
    X, V, A = a.x[bi], a.v[bi], a.rgs_anchor[bi]
    plane, prm = a.rgs_plane[bi], a.rgs_param[bi]
    for k in range(ne):
        lane = k % W
        n = (plane[3, lane], plane[4, lane], plane[5, lane])
        ka, kb = n0 + k, n0 + k + W
        P = midpoint(X, ka, kb)
        # in contact as the wall kernel decides (softmech.kernels.contact.kinetic_element)
        dist = (n[0] * (P[0] - plane[0, lane]) + n[1] * (P[1] - plane[1, lane])
                + n[2] * (P[2] - plane[2, lane]) - a.elem_radius[bi, e0 + k])
        if not dist <= plane[6, lane]:
            A[3, k] = NO_CONTACT
            continue
        if A[3, k] == NO_CONTACT:
            A[0, k], A[1, k], A[2, k], A[3, k] = P[0], P[1], P[2], STICKING
            continue
        ut = element_spring(A, k, P, n)
        w = midpoint(V, ka, kb)
        c, status = anchor_slip(ut, tangential(w[0], w[1], w[2], n), A[4, k], A[3, k], prm, lane)
        if c != 0.0:   # slide: the spring (1 - c) u_t behind P
            A[0, k] += c * ut[0]
            A[1, k] += c * ut[1]
            A[2, k] += c * ut[2]
        A[3, k] = status
