"""Friction at the contact point: kinematics and force application shared by every rod contact
kernel (rod-rod: softmech.kernels.rod_contact, rod_sticking; rod-body: rod_body_contact,
rod_body_sticking), in the block layout.

A Cosserat rod element is a rigid cross-section of radius r carried along its centreline: the
material point at lever l from the centreline point c(s) = x_a + s (x_b - x_a) moves with

    v(c(s) + l) = v_a + s (v_b - v_a) + omega x l,      omega = Q^T w             (1)

(w: the element's angular velocity in its material frame, rows of Q: the directors d1 d2 d3;
the section's rigid motion, Gazzola et al., R. Soc. Open Sci. 5:171628, 2018, eqs. 2.1-2.4).
A force f acting at that material point is statically equivalent to f at c(s) -- split (1 - s),
s onto the nodes, whose torque about any point is that of f at c(s) because the split is linear
in s -- plus the couple l x f on the element, given to the kernel in the material frame,
Q (l x f) (handout eq. 4: couples are local). Its power f . v(c(s)) + (l x f) . omega equals
f . v(c(s) + l), so it is the virtual work of f at the material point.

Two bodies touching at one point p, each receiving +-f there (as f at its centreline or centre
plus the couple of its lever p - c), exchange no net force and no net torque about any point:
(c_1 + l_1) x f - (c_2 + l_2) x f = (p - p) x f = 0. This is how friction conserves angular
momentum exactly (issue 30); the normal force acts along n through both centrelines already.
"""
import math

from softmech.kernels import kernel


@kernel(inline="always")
def elem_spin(Q, w, e):
    """omega = Q^T w [rad/s] (3,): element column e's angular velocity in the lab frame."""
    return (Q[0, e] * w[0, e] + Q[3, e] * w[1, e] + Q[6, e] * w[2, e],
            Q[1, e] * w[0, e] + Q[4, e] * w[1, e] + Q[7, e] * w[2, e],
            Q[2, e] * w[0, e] + Q[5, e] * w[1, e] + Q[8, e] * w[2, e])


@kernel(inline="always")
def spin_velocity(Q, w, e, lev):
    """omega x lev [m/s] (3,): the velocity of element column e's material point at lever lev
    [m] (lab) from its centreline point, relative to that point (eq. 1)."""
    o = elem_spin(Q, w, e)
    return (o[1] * lev[2] - o[2] * lev[1], o[2] * lev[0] - o[0] * lev[2],
            o[0] * lev[1] - o[1] * lev[0])


@kernel(inline="always")
def to_frame(Q, e, v0, v1, v2):
    """Q v: a lab vector in element (or body) column e's frame."""
    return (Q[0, e] * v0 + Q[1, e] * v1 + Q[2, e] * v2, Q[3, e] * v0 + Q[4, e] * v1 + Q[5, e] * v2,
            Q[6, e] * v0 + Q[7, e] * v1 + Q[8, e] * v2)


@kernel(inline="always")
def from_frame(Q, e, v0, v1, v2):
    """Q^T v: a vector of element (or body) column e's frame in the lab frame."""
    return (Q[0, e] * v0 + Q[3, e] * v1 + Q[6, e] * v2, Q[1, e] * v0 + Q[4, e] * v1 + Q[7, e] * v2,
            Q[2, e] * v0 + Q[5, e] * v1 + Q[8, e] * v2)


@kernel(inline="always")
def add_elem_force_at(F, C, Q, ka, kb, e, s, lev, f):
    """Force f [N] (3,) at the material point c(s) + lev of the element with node columns ka, kb
    and element column e: (1 - s) f to F[:, ka], s f to F[:, kb] and the couple lev x f [N m]
    to C[:, e] in the element's frame, Q (lev x f)."""
    for c in range(3):
        F[c, ka] += (1.0 - s) * f[c]
        F[c, kb] += s * f[c]
    t = to_frame(Q, e, lev[1] * f[2] - lev[2] * f[1], lev[2] * f[0] - lev[0] * f[2],
                 lev[0] * f[1] - lev[1] * f[0])
    for c in range(3):
        C[c, e] += t[c]


@kernel(inline="always")
def add_body_force_at(Fb, Tb, Qb, k, lev, f):
    """Force f [N] (3,) at lever lev [m] (lab) from rigid body column k's centre: f to Fb[:, k]
    and the torque lev x f [N m] to Tb[:, k] in the body's frame."""
    for c in range(3):
        Fb[c, k] += f[c]
    t = to_frame(Qb, k, lev[1] * f[2] - lev[2] * f[1], lev[2] * f[0] - lev[0] * f[2],
                 lev[0] * f[1] - lev[1] * f[0])
    for c in range(3):
        Tb[c, k] += t[c]


@kernel(inline="always")
def regularized_friction(wt, fn, mu_s, mu_k, v_s):
    """Regularized Coulomb friction [N] (3,) against the tangential slip velocity wt [m/s] (3,)
    under the normal force fn [N] (softmech.kernels.rod_contact's law):
        F_t = -mu(|w|) fn w / max(|w|, v_s),  mu(|w|) = mu_s + (mu_k - mu_s) clip(|w|/v_s - 1, 0, 1)
    """
    slip = math.sqrt(wt[0] * wt[0] + wt[1] * wt[1] + wt[2] * wt[2])
    mu = mu_s + (mu_k - mu_s) * min(max(slip / v_s - 1.0, 0.0), 1.0)
    ft = mu * fn / max(slip, v_s)
    return -ft * wt[0], -ft * wt[1], -ft * wt[2]
