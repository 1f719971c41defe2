"""Rod-rod and self contact with friction that sticks (softmech.terms.rod_contact with a
softmech.terms.friction.StickingFriction): the normal law, geometry and broad phase of
softmech.kernels.rod_contact (Zhang et al., Nat. Commun. 2019, eq. 7), the tangential law of
softmech.kernels.sticking (Cundall and Strack 1979).

Anchors. A contact of elements i < j (contact-element indices; the broad phase finds every
pair as (i, j) with j > i, softmech.kernels.rod_contact.visit_pairs) keeps a pair of material
points of the two sections, X_i = c_i(s_a) + Q_i^T l_i and X_j = c_j(u_a) + Q_j^T l_j
(c(s) = a + s (b - a), the levers kept in the elements' own frames, so they turn with the
sections). The spring is u = X_j - X_i, its tangential part u_t taken about the contact normal
n, and the slip velocity w_t is that of the two sections' material points at the contact point
p (softmech.kernels.rod_contact.contact_point). Element j gets the friction
F_t = -k_t u_t - c_t w_t clipped to the cone (softmech.kernels.sticking.stick_force) at p,
element i gets -F_t at p (each as a force at its closest centreline point and the couple of its
lever): equal and opposite at one point, so linear and angular momentum are conserved.

Return mapping and carrying (softmech.kernels.sticking.anchor_slip): after every drift the
spring of the stored anchors is measured, a spring beyond the cone is scaled back onto it,
(1 - c) u_t, and both anchors are carried to the current contact point with that spring,
X_i = p - u_t/2, X_j = p + u_t/2 (parameters s, u; levers l_i - u_t/2, l_j + u_t/2). The spring
thus grows by the sections' relative tangential displacement at p between updates (the
incremental law of Cundall and Strack 1979, eq. 6, kept in the tangent plane as Luding 2008,
sec. 2.2.3): a rod rolling on another without slipping does not stretch it (to O(dt^2) per
update), and a sliding one carries exactly mu_k F_n / k_t of spring.

Slots (the hashed grid keeps no pair list). Element i owns up to SLOTS slots; a slot holds the
other element j, s_a, u_a, the status (NO_CONTACT, STICKING, SLIDING) and the levers. The force kernel looks
a contact up among i's slots and never writes them; the anchors' update (after every drift,
before the forces) runs the same broad phase: a contact found updates its slot (return mapping)
or takes a free one (a new contact, sticking, spring 0), and the slots of contacts no longer
found are freed, the used ones kept first. More than SLOTS contacts owned by one element at
once (a short element in a dense bundle) stops the run with a ValueError (OVERFLOW).

Limits: a slot belongs to a pair of elements, so a contact that moves onto the next
element (a rod sliding or rolling along another by more than an element) starts a new spring
from zero: its friction builds up again over mu F_n / k_t of slip.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.contact_point import from_frame, to_frame
from softmech.kernels.rod_contact import (RodContactArgs, add_pair_force, add_pair_friction,
                                          block_contacts, contact_point, pair_geometry,
                                          visit_pairs)
from softmech.kernels.sticking import (NO_CONTACT, S_GAMMA, S_K, STICKING, anchor_slip,
                                       stick_force, tangential)

SLOTS = 16
"""Anchor slots per contact element: the most contacts element i may own at once (pairs (i, j)
with j > i). A crossing owns 1-2, an element in a close-packed parallel bundle ~9."""

OTHER, S_A, U_A, STATUS, L_I, L_J = 0, 1, 2, 3, 4, 7
SLOT_ROWS = 10
"""Rows of rs_slot per slot: the other element j (as a float), the anchors' centreline
parameters s_a on element i and u_a on element j [-], the status (softmech.kernels.sticking),
and the anchors' levers from those centreline points in the elements' own frames [m]
(L_I: rows 4-6 on element i, L_J: rows 7-9 on element j): each anchor is a material point of
its element's section, c(s_a) + Q^T l."""

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
def anchor(a, bi, col, row_s, row_l, ka, kb, e):
    """The position [m] (3,) of the anchor of slot column col stored in rows row_s (its
    centreline parameter) and row_l (its lever, in the frame of element column e) on the
    element with node columns ka, kb: c(s_a) + Q^T l."""
    S, X, Q = a.rs_slot[bi], a.x[bi], a.Q[bi]
    sa = S[row_s, col]
    lab = from_frame(Q, e, S[row_l, col], S[row_l + 1, col], S[row_l + 2, col])
    return (X[0, ka] + sa * (X[0, kb] - X[0, ka]) + lab[0],
            X[1, ka] + sa * (X[1, kb] - X[1, ka]) + lab[1],
            X[2, ka] + sa * (X[2, kb] - X[2, ka]) + lab[2])


@kernel(inline="always")
def spring(a, bi, col, ia, ib, ja, jb, ei, ej, n):
    """u_t: the tangential part [m] of the spring between slot column col's two anchors,
    X_j - X_i."""
    pj = anchor(a, bi, col, U_A, L_J, ja, jb, ej)
    pi = anchor(a, bi, col, S_A, L_I, ia, ib, ei)
    return tangential(pj[0] - pi[0], pj[1] - pi[1], pj[2] - pi[2], n)


@kernel(inline="always")
def set_anchors(a, bi, col, s, u, ei, ej, li, lj, ut):
    """Anchor slot column col at the contact point p with the tangential spring ut [m] (3,):
    element i's anchor at p - ut/2 (its centreline parameter s, lever l_i - ut/2 in its frame),
    element j's at p + ut/2 (u, l_j + ut/2): their spring is ut exactly, at this
    configuration."""
    S, Q = a.rs_slot[bi], a.Q[bi]
    S[S_A, col], S[U_A, col] = s, u
    gi = to_frame(Q, ei, li[0] - 0.5 * ut[0], li[1] - 0.5 * ut[1], li[2] - 0.5 * ut[2])
    gj = to_frame(Q, ej, lj[0] + 0.5 * ut[0], lj[1] + 0.5 * ut[1], lj[2] + 0.5 * ut[2])
    for c in range(3):
        S[L_I + c, col] = gi[c]
        S[L_J + c, col] = gj[c]


@kernel(inline="always")
def normal_force(prm, lane, eps, n, w):
    """F_n = max(k eps - gamma (w . n), 0) [N] (Zhang 2019 eq. 7)."""
    vn = w[0] * n[0] + w[1] * n[1] + w[2] * n[2]
    return max(prm[S_K, lane] * eps - prm[S_GAMMA, lane] * vn, 0.0)


@kernel(inline="always")
def stick_pair_force(a, bi, W, lane, i, j, entry):
    """Contact elements i, j of one lane: the normal force at the closest points and, if the
    contact has a slot, the friction of its spring at the contact point p (with the couples of
    the levers, softmech.kernels.rod_contact.add_pair_friction), into a.rc_force and
    a.elem_couple; (contact, eps / (r_i + r_j))."""
    prm = a.rc_param[bi, entry]
    eps, rsum, s, u, n, w, ia, ib, ja, jb = pair_geometry(a, bi, W, lane, i, j)
    if not eps > 0.0:
        return 0, 0.0
    fn = normal_force(prm, lane, eps, n, w)
    add_pair_force(a.rc_force[bi], ia, ib, ja, jb, s, u, fn * n[0], fn * n[1], fn * n[2])
    col = find_slot(a.rs_slot[bi], i, j, W, lane)
    if col >= 0:
        li, lj, ei, ej, wt = contact_point(a, bi, W, lane, i, j, eps, rsum, n, w)
        ut = spring(a, bi, col, ia, ib, ja, jb, ei, ej, n)
        ft = stick_force(ut, wt, fn, a.rs_slot[bi, STATUS, col], prm, lane)
        add_pair_friction(a, bi, ia, ib, ja, jb, ei, ej, s, u, li, lj, ft)
    return 1, eps / rsum


@kernel(inline="always")
def stick_pair_update(a, bi, W, lane, i, j, entry):
    """The anchors' update of contact elements i, j of one lane (module docstring): its slot
    marked seen, return-mapped and carried to the contact point, or a free slot taken by a new
    contact; (contact, 0)."""
    prm = a.rc_param[bi, entry]
    eps, rsum, s, u, n, w, ia, ib, ja, jb = pair_geometry(a, bi, W, lane, i, j)
    if not eps > 0.0:
        return 0, 0.0
    S, seen = a.rs_slot[bi], a.rs_seen[bi]
    li, lj, ei, ej, wt = contact_point(a, bi, W, lane, i, j, eps, rsum, n, w)
    col = find_slot(S, i, j, W, lane)
    if col < 0:                      # a new contact: the first free slot of element i
        for k in range(SLOTS):
            free = (i * SLOTS + k) * W + lane
            if S[STATUS, free] == NO_CONTACT:
                S[OTHER, free] = j
                S[STATUS, free] = STICKING
                set_anchors(a, bi, free, s, u, ei, ej, li, lj, (0.0, 0.0, 0.0))
                seen[free] = 1
                return 1, 0.0
        raise ValueError(OVERFLOW)
    seen[col] = 1
    ut = spring(a, bi, col, ia, ib, ja, jb, ei, ej, n)
    c, status = anchor_slip(ut, wt, normal_force(prm, lane, eps, n, w), S[STATUS, col], prm,
                            lane)
    # slide (c > 0): the spring back onto the kinetic cone, (1 - c) u_t; then both anchors are
    # carried to the contact point with that spring (a rolling contact does not stretch it)
    set_anchors(a, bi, col, s, u, ei, ej, li, lj,
                ((1.0 - c) * ut[0], (1.0 - c) * ut[1], (1.0 - c) * ut[2]))
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
