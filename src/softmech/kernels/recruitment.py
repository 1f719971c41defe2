"""Arm recruitment (softmech.terms.recruitment; Renda et al., IJRR 2018 eq. 25): an internal
bending moment recruited from the base to the tip,

    m(X, t) = m_baz (1 - X / (L tau)) H(L tau - X),   tau = (t - t0) / dt in (0, 1],

zero before t0 and after t0 + dt (the sudden release of the escape manoeuvre). Applied as an
internal joint moment about a local axis d_k at every node X_j < L tau: +m on the element after
the node, -m on the element before it (net couple zero: an active stress couple, as the muscle
waves of softmech.kernels.muscles); at the base node X = 0 the element before is the root body,
which takes -m (the reaction of the arm's base) when the arm is attached to one.
"""
from collections import namedtuple

from softmech.kernels import kernel

RecruitmentArgs = namedtuple("RecruitmentArgs", [
    "Q", "rb_Q",
    "rec_elem0",    # first element slot of each arm, (n,) int64
    "rec_axis",     # local axis k (0: d1, 1: d2), (n,) int64
    "rec_body",     # rigid-body slot of the root (-1: none), (n,) int64
    "rec_X",        # arc length of the nodes [m], (n, n_max + 1), +inf past the arm's last node
    "rec_length",   # arm length L [m], (n,)
    "rec_params",   # m_baz [N m], t0 [s], dt [s], (n_blocks, n, 3, W)
    "elem_couple", "rb_torque",                                   # outputs (added to)
])


@kernel(inline="always")
def recruited_bending(a, bi, W, t):
    """Add eq. 25's internal moments of block bi at time t to elem_couple (local) and the
    base reactions to rb_torque (body frame)."""
    C, Q = a.elem_couple[bi], a.Q[bi]
    for i in range(a.rec_elem0.shape[0]):
        k, e0, b = a.rec_axis[i], a.rec_elem0[i], a.rec_body[i]
        for lane in range(W):
            m, t0, dt = (a.rec_params[bi, i, 0, lane], a.rec_params[bi, i, 1, lane],
                         a.rec_params[bi, i, 2, lane])
            tau = (t - t0) / dt
            if tau <= 0.0 or tau > 1.0:
                continue
            front = a.rec_length[i] * tau
            for j in range(a.rec_X.shape[1]):
                X = a.rec_X[i, j]
                if X >= front:
                    break
                A = m * (1.0 - X / front)
                C[k, (e0 + j) * W + lane] += A
                if j > 0:
                    C[k, (e0 + j - 1) * W + lane] -= A
                elif b >= 0:     # the base's reaction on the root: -A d_k, in the body frame
                    e = e0 * W + lane
                    kb = b * W + lane
                    d = (Q[3 * k, e], Q[3 * k + 1, e], Q[3 * k + 2, e])
                    R, T = a.rb_Q[bi], a.rb_torque[bi]
                    for r in range(3):
                        T[r, kb] -= A * (R[3 * r, kb] * d[0] + R[3 * r + 1, kb] * d[1]
                                         + R[3 * r + 2, kb] * d[2])
