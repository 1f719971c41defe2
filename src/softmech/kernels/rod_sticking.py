"""Rod-rod and self contact with friction that sticks (softmech.terms.rod_contact with a
softmech.terms.friction.StickingFriction): the normal law, geometry and broad phase of
softmech.kernels.rod_contact (Zhang et al., Nat. Commun. 2019, eq. 7), the tangential law of
softmech.kernels.sticking (Cundall and Strack 1979).

Anchors. A contact of elements i < j (contact-element indices; the broad phase finds every
pair as (i, j) with j > i, softmech.kernels.rod_contact.visit_pairs) keeps a pair of material
points of the two centrelines, p_i(s_a) = a_i + s_a (b_i - a_i) and p_j(u_a), set to the
closest points (s, u) when the contact starts. The spring is their difference
u = p_j(u_a) - p_i(s_a), its tangential part u_t taken about the contact normal n, and the slip
velocity w_t is the tangential part of v_j(u_a) - v_i(s_a). Element j gets the friction
F_t = -k_t u_t - c_t w_t clipped to the cone (softmech.kernels.sticking.stick_force) at u_a,
element i gets -F_t at s_a: equal and opposite, so linear momentum is conserved.

Return mapping (softmech.kernels.sticking.anchor_slip): a spring beyond the cone slides back
onto it by moving both anchors towards the closest points, s_a <- (1 - c) s_a + c s,
u_a <- (1 - c) u_a + c u. The points are affine in their parameters, so the new spring is
(1 - c) u + c (p_j(u) - p_i(s)), whose tangential part is exactly (1 - c) u_t (the closest
points' difference lies along n): the spring lands on the kinetic cone, mu_k F_n / k_t long.

Slots (the hashed grid keeps no pair list). Element i owns up to SLOTS slots; a slot holds the
other element j, s_a, u_a and the status (NO_CONTACT, STICKING, SLIDING). The force kernel looks
a contact up among i's slots and never writes them; the anchors' update (after every drift,
before the forces) runs the same broad phase: a contact found updates its slot (return mapping)
or takes a free one (a new contact, sticking, spring 0), and the slots of contacts no longer
found are freed, the used ones kept first. More than SLOTS contacts owned by one element at
once (a short element in a dense bundle) stops the run with a ValueError (OVERFLOW).

Limits: the anchors are material points of two elements, so a contact that moves onto the
next element (a rod sliding along another by more than an element) starts a new spring from
zero: its friction builds up again over mu F_n / k_t of slip. Both points lie on the
centrelines, so the spring spans the directions of the two axes in the tangent plane: for
(nearly) parallel elements the direction across both axes (one rod rolling about the other,
which the centreline friction, having no couple, cannot tell from sliding) is not held.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.rod_contact import (RodContactArgs, add_pair_force, block_contacts,
                                          pair_geometry, visit_pairs)
from softmech.kernels.sticking import (NO_CONTACT, S_GAMMA, S_K, STICKING, anchor_slip,
                                       stick_force, tangential)

SLOTS = 16
"""Anchor slots per contact element: the most contacts element i may own at once (pairs (i, j)
with j > i). A crossing owns 1-2, an element in a close-packed parallel bundle ~9."""

OTHER, S_A, U_A, STATUS = range(4)
SLOT_ROWS = 4
"""Rows of rs_slot per slot: the other element j (as a float), the anchors' parameters s_a on
element i and u_a on element j [-], the status (softmech.kernels.sticking)."""

OVERFLOW = (f"RodContact with sm.StickingFriction: an element is in contact with more than "
            f"{SLOTS} elements at once (softmech.kernels.rod_sticking.SLOTS): its anchors do not "
            f"fit; use fewer, longer elements or sm.CoulombFriction")
"""The error of a slot table overflow."""

RodStickArgs = namedtuple("RodStickArgs", RodContactArgs._fields + (
    "rs_slot",   # history (n_blocks, SLOT_ROWS, n_ce*SLOTS*W): column (i*SLOTS + k)*W + lane
    "rs_seen",   # scratch (n_blocks, n_ce*SLOTS*W) int64: slot found in this update pass
))
"""RodContactArgs (rc_param with the rows of softmech.kernels.sticking.N_STICK_PARAMS) and the
anchors' slots."""


@kernel(inline="always")
def find_slot(S, i, j, W, lane):
    """Column of element i's slot holding contact (i, j), or -1 (slots are kept compact: the
    used ones first)."""
    for k in range(SLOTS):
        col = (i * SLOTS + k) * W + lane
        if S[STATUS, col] == NO_CONTACT:
            return -1
        if S[OTHER, col] == j:
            return col
    return -1


@kernel(inline="always")
def point(X, ka, kb, s):
    """x_a + s (x_b - x_a): the material point at parameter s of the element with node columns
    ka, kb (positions or velocities)."""
    return (X[0, ka] + s * (X[0, kb] - X[0, ka]), X[1, ka] + s * (X[1, kb] - X[1, ka]),
            X[2, ka] + s * (X[2, kb] - X[2, ka]))


@kernel(inline="always")
def spring(a, bi, col, ia, ib, ja, jb, n):
    """(u_t, w_t): the tangential spring p_j(u_a) - p_i(s_a) [m] of slot column col and the
    tangential velocity v_j(u_a) - v_i(s_a) [m/s] of its two material points."""
    S, X, V = a.rs_slot[bi], a.x[bi], a.v[bi]
    sa, ua = S[S_A, col], S[U_A, col]
    pj, pi = point(X, ja, jb, ua), point(X, ia, ib, sa)
    vj, vi = point(V, ja, jb, ua), point(V, ia, ib, sa)
    return (tangential(pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2], n),
            tangential(vj[0] - vi[0], vj[1] - vi[1], vj[2] - vi[2], n))


@kernel(inline="always")
def normal_force(prm, lane, eps, n, w):
    """F_n = max(k eps - gamma (w . n), 0) [N] (Zhang 2019 eq. 7)."""
    vn = w[0] * n[0] + w[1] * n[1] + w[2] * n[2]
    return max(prm[S_K, lane] * eps - prm[S_GAMMA, lane] * vn, 0.0)


@kernel(inline="always")
def stick_pair_force(a, bi, W, lane, i, j, entry):
    """Contact elements i, j of one lane: the normal force at the closest points and, if the
    contact has a slot, the friction at its anchors, into a.rc_force; (contact, eps / (r_i +
    r_j))."""
    prm = a.rc_param[bi, entry]
    eps, rsum, s, u, n, w, ia, ib, ja, jb = pair_geometry(a, bi, W, lane, i, j)
    if not eps > 0.0:
        return 0, 0.0
    fn = normal_force(prm, lane, eps, n, w)
    F = a.rc_force[bi]
    add_pair_force(F, ia, ib, ja, jb, s, u, fn * n[0], fn * n[1], fn * n[2])
    col = find_slot(a.rs_slot[bi], i, j, W, lane)
    if col >= 0:
        S = a.rs_slot[bi]
        ut, wt = spring(a, bi, col, ia, ib, ja, jb, n)
        ft = stick_force(ut, wt, fn, S[STATUS, col], prm, lane)
        add_pair_force(F, ia, ib, ja, jb, S[S_A, col], S[U_A, col], ft[0], ft[1], ft[2])
    return 1, eps / rsum


@kernel(inline="always")
def stick_pair_update(a, bi, W, lane, i, j, entry):
    """The anchors' update of contact elements i, j of one lane (module docstring): its slot
    marked seen and return-mapped, or a free slot taken by a new contact; (contact, 0)."""
    prm = a.rc_param[bi, entry]
    eps, rsum, s, u, n, w, ia, ib, ja, jb = pair_geometry(a, bi, W, lane, i, j)
    if not eps > 0.0:
        return 0, 0.0
    S, seen = a.rs_slot[bi], a.rs_seen[bi]
    col = find_slot(S, i, j, W, lane)
    if col < 0:                      # a new contact: the first free slot of element i
        for k in range(SLOTS):
            free = (i * SLOTS + k) * W + lane
            if S[STATUS, free] == NO_CONTACT:
                S[OTHER, free], S[S_A, free], S[U_A, free] = j, s, u
                S[STATUS, free] = STICKING
                seen[free] = 1
                return 1, 0.0
        raise ValueError(OVERFLOW)
    seen[col] = 1
    ut, wt = spring(a, bi, col, ia, ib, ja, jb, n)
    c, status = anchor_slip(ut, wt, normal_force(prm, lane, eps, n, w), S[STATUS, col], prm,
                            lane)
    if c != 0.0:   # slide: both anchors towards the closest points, the spring to (1 - c) u_t
        S[S_A, col] = (1.0 - c) * S[S_A, col] + c * s
        S[U_A, col] = (1.0 - c) * S[U_A, col] + c * u
    S[STATUS, col] = status
    return 1, 0.0


@kernel
def rod_sticking_contacts(a, bi, W, t):
    """Add the rod-rod and self-contact forces of the sticking entries of block bi to
    a.node_force (all of them in this one call; a.rc_force, a.rc_stats as
    softmech.kernels.rod_contact.rod_rod_contacts). Reads the slots, never writes them."""
    block_contacts(a, bi, W, stick_pair_force)


@kernel
def rod_sticking_anchors(a, bi, W, t):
    """Update the anchors of block bi at its current configuration (module docstring): every
    contact found updates or takes its slot, then each element's slots of contacts not found
    are freed and the rest moved to its first slots, in order. A positions-stage kernel: after
    every drift, before the forces."""
    n_ce = a.rc_node_a.shape[0]
    mask = a.rc_start.shape[1] - 2
    S, seen = a.rs_slot[bi], a.rs_seen[bi]
    for k in range(seen.shape[0]):
        seen[k] = 0
    for lane in range(W):
        visit_pairs(a, bi, W, lane, n_ce, mask, stick_pair_update)
        for i in range(n_ce):
            kept = 0
            for k in range(SLOTS):
                col = (i * SLOTS + k) * W + lane
                if S[STATUS, col] == NO_CONTACT:
                    continue
                if seen[col] == 1:
                    dst = (i * SLOTS + kept) * W + lane
                    if dst != col:
                        for r in range(SLOT_ROWS):
                            S[r, dst] = S[r, col]
                    kept += 1
            for k in range(kept, SLOTS):
                S[STATUS, (i * SLOTS + k) * W + lane] = NO_CONTACT
