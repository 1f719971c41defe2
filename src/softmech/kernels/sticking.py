"""Coulomb friction that sticks: the law every contact kind shares (softmech.terms.friction.
StickingFriction; rod-rod contact in softmech.kernels.rod_sticking, rod-body contact in
softmech.kernels.rod_body_sticking, a rod on a plane in softmech.kernels.rod_ground_sticking, a
rigid body on a plane in softmech.kernels.rigid_contact).

Model: the elastic-plastic ("spring-slider", "bristle") Coulomb law of the discrete element
method (Cundall and Strack, Geotechnique 29:47, 1979, eqs. 4-6; Luding, Granular Matter
10:235, 2008, sec. 2.2.3, the tangential spring with its anchor reset onto the Coulomb cone).
Every contact keeps an anchor A, the material point of the other surface that coincided with
its contact point P when it was last sticking, and a status (NO_CONTACT, STICKING, SLIDING).
With the unit normal n, the spring u = P - A, its tangential part u_t = u - (u.n) n and the
relative tangential velocity w_t of the two material points at P:

    F_t = -k_t u_t - c_t w_t,  clipped to |F_t| <= mu F_n,  mu = mu_s sticking, mu_k sliding

(force_kernel: a pure function of the state, anchors included). After every drift, at the
configuration the next forces see, the anchors are updated (the return mapping, update
kernel):

    new contact:                      A = P, STICKING
    SLIDING and w_t . u_t <= 0:       STICKING (the slip stopped or reversed)
    k_t |u_t| > mu F_n:               A += (1 - mu_k F_n / (k_t |u_t|)) u_t, SLIDING
    contact lost:                     NO_CONTACT

so a contact held below the cone does not move at all (no creep, unlike the regularized law),
and a sliding one carries mu_k F_n. The anchors are history: they live in the simulation
(softmech.packing.Engine.history) and are saved with the state.
"""
import math

from softmech.kernels import kernel

NO_CONTACT, STICKING, SLIDING = 0.0, 1.0, 2.0
"""Status of an anchor (stored as a float beside its coordinates)."""

S_K, S_GAMMA, S_MU_S, S_MU_K, S_KT, S_CT = range(6)
N_STICK_PARAMS = 6
"""Rows of a sticking contact's per-world parameters: normal stiffness k [N/m], normal damping
gamma [N s/m], static and kinetic coefficients mu_s, mu_k [-], tangential stiffness k_t [N/m],
tangential damping c_t [N s/m]."""


@kernel(inline="always")
def tangential(u0, u1, u2, n):
    """u - (u.n) n: the part of u in the tangent plane of unit normal n."""
    un = u0 * n[0] + u1 * n[1] + u2 * n[2]
    return u0 - un * n[0], u1 - un * n[1], u2 - un * n[2]


@kernel(inline="always")
def stick_force(ut, wt, fn, status, prm, lane):
    """Friction force (3,) [N] of a contact with spring u_t [m] and slip velocity w_t [m/s]
    (tangential), normal force fn [N] and anchor status; prm: the rows of S_* (module
    docstring: -k_t u_t - c_t w_t clipped to the cone of mu_s or, sliding, mu_k)."""
    if status == NO_CONTACT:
        return 0.0, 0.0, 0.0
    kt, ct = prm[S_KT, lane], prm[S_CT, lane]
    f0 = -kt * ut[0] - ct * wt[0]
    f1 = -kt * ut[1] - ct * wt[1]
    f2 = -kt * ut[2] - ct * wt[2]
    mag = math.sqrt(f0 * f0 + f1 * f1 + f2 * f2)
    limit = (prm[S_MU_K, lane] if status == SLIDING else prm[S_MU_S, lane]) * fn
    if mag > limit:
        c = limit / mag
        return c * f0, c * f1, c * f2
    return f0, f1, f2


@kernel(inline="always")
def anchor_slip(ut, wt, fn, status, prm, lane):
    """The anchor update of a contact in touch (module docstring): (c, new status), the anchor
    to move by c u_t (0: it stays)."""
    if status == SLIDING and wt[0] * ut[0] + wt[1] * ut[1] + wt[2] * ut[2] <= 0.0:
        status = STICKING
    spring = prm[S_KT, lane] * math.sqrt(ut[0] * ut[0] + ut[1] * ut[1] + ut[2] * ut[2])
    mu = prm[S_MU_K, lane] if status == SLIDING else prm[S_MU_S, lane]
    if spring > mu * fn:
        return 1.0 - prm[S_MU_K, lane] * fn / spring, SLIDING
    return 0.0, status
