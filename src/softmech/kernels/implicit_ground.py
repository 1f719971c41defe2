"""Smooth penalty ground contact with regularized Coulomb friction on the nodes of discrete rods
and shells, with the Jacobian the implicit integrator needs (MAT-DiSMech, ref. 004 eqs. 23,
25-26, after the implicit contact model IMC of Tong et al. 2023).

Gap of node i: d = n . (x_i - p) (plane through p with unit normal n). With z = K (delta - d)
(delta: contact distance [m], K: sharpness [1/m]), the penalty energy is

    E = k s^2,   s = log(1 + exp(z)) / K,                          (IMC's smooth penalty)

so the normal force is F_n = -dE/dd n = 2 k s sigma n, sigma = 1 / (1 + exp(-z)), and
d|F_n|/dd = -2 k (sigma^2 + K s sigma (1 - sigma)). Friction (eq. 23): with the tangential
velocity u = (I - n n^T) v,

    F_f = -mu |F_n| gamma(|u|) u / |u|,   gamma(w) = 2 / (1 + exp(-K_f w)) - 1,

K_f = 15 / slip_tolerance (gamma = 0.9999996 at the slip tolerance: sliding above it, a smooth
stick below). The paper's mu is one coefficient. With a static coefficient mu_s above the
kinetic mu_k, a node at rest holds up to mu_s |F_n| and slides at mu_k: the coefficient falls
from mu_s to mu_k with the node's slip speed w_n at the LAST accepted step (a state of the
contact, as in rate-and-state friction, Dieterich 1979 / Ruina 1983: the static excess is a
property of the resting contact that slip erodes),

    mu = mu_k + max(mu_s - mu_k, 0) S(w_n),   S(w) = 1 / (1 + (w / v_S)^8),
    v_S = STRIBECK_SPEED * slip_tolerance = STRIBECK_SPEED * 15 / K_f.

Why lagged and not S(|u|) at the end of the step: with mu falling as |u| grows, the implicit
step's equation for u has two roots on an incline steeper than mu_k (one sticking, one
sliding at ~h g (sin - mu_k cos)) and Newton, started from the predictor, finds the sliding
one; with mu fixed within the step, mu gamma(|u|) is monotone and the root is unique (the
sticking one while the demand is below mu_s |F_n|). The price is one step's delay at a stick-
slip transition. mu_s <= mu_k gives the paper's law exactly (mu = mu_k, the same arithmetic).
Its Jacobian (mu constant within the step) has the velocity part mu (d g/du) P / h
(v = (q - q_n) / h) and the normal-force part -mu g (d|F_n|/dx)^T, g = gamma u / |u|,
d g / du = gamma/|u| (I - u^ u^T) + gamma'(|u|) u^ u^T (-> K_f / 2 I as |u| -> 0).
"""
import numpy as np

from softmech.kernels import kernel

STRIBECK_SPEED = 1.5
"""v_S / slip_tolerance: the slip speed at which the static excess mu_s - mu_k has halved
(module docstring); it is below 0.4 % of it from 3 slip tolerances on."""


@kernel(inline="always")
def smooth_penalty(z, sharpness):
    """(s, sigma) of IMC's smooth penalty at z = K (delta - d): s = log(1 + exp(z)) / K [m] and
    sigma = 1 / (1 + exp(-z)), written to avoid overflow for large |z|."""
    if z > 0.0:
        e = np.exp(-z)
        return (z + np.log1p(e)) / sharpness, 1.0 / (1.0 + e)
    e = np.exp(z)
    return np.log1p(e) / sharpness, e / (1.0 + e)


@kernel(inline="always")
def inverse_stribeck_speed(slip_sharpness):
    """1 / v_S [s/m] of the lagged static excess, v_S = STRIBECK_SPEED * 15 / K_f (module
    docstring), from the slip sharpness K_f [s/m]."""
    return slip_sharpness / (15.0 * STRIBECK_SPEED)


@kernel(inline="always")
def lagged_coefficient(kinetic, excess, slip, inv_vs):
    """mu = mu_k + excess S(w_n), S(w) = 1 / (1 + (w / v_S)^8) [-]: the kinetic coefficient
    plus the static excess mu_s - mu_k (>= 0) eroded by the slip speed w_n [m/s] of the last
    accepted step (module docstring); inv_vs: 1 / v_S [s/m]. excess 0 gives mu_k exactly."""
    y = slip * inv_vs
    y4 = (y * y) * (y * y)
    return kinetic + excess / (1.0 + y4 * y4)


@kernel(inline="always")
def tangential_velocity(v, a, b, c, nx, ny, nz):
    """(u0, u1, u2, |u|): the velocity (v[a], v[b], v[c]) [m/s] without its component along the
    unit normal (nx, ny, nz)."""
    vn = nx * v[a] + ny * v[b] + nz * v[c]
    u0 = v[a] - vn * nx
    u1 = v[b] - vn * ny
    u2 = v[c] - vn * nz
    return u0, u1, u2, np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)


@kernel
def ground_contact_forces(q, v, node_dofs, point, normal, stiffness, distance, sharpness,
                          friction, static, slip, speed, slip_sharpness, inv_h, F, J):
    """Add the ground's forces on the nodes to F (n_dof,) and their 3x3 Jacobian blocks
    dF/dq + dF/dv / h to J (n_nodes * 9,) (row-major per node).

    q, v: DOFs [m] and velocities [m/s] (n_dof,); node_dofs: (n_nodes, 3) int64; point (3,)
    [m], normal (3,) unit; stiffness k [N/m]; distance delta [m]; sharpness K [1/m]; friction
    mu_k [-] (kinetic); static mu_s [-] (a static excess where above mu_k); slip (n_nodes,)
    [m/s]: each node's slip speed at the last accepted step; speed (n_nodes,): written, each
    node's slip speed |u| at this evaluation (with a static excess only; the caller keeps the
    accepted one as the next step's slip); slip_sharpness K_f [s/m]; inv_h: 1/h [1/s] (0 in a
    static solve). An empty J (0,) asks for the forces alone (the unified engine's force pass:
    the blocks are its analytic Jacobian's, written when that is due), the same F."""
    want_jac = J.shape[0] > 0
    excess = max(static - friction, 0.0)              # mu_s - mu_k
    inv_vs = inverse_stribeck_speed(slip_sharpness)
    nx, ny, nz = normal[0], normal[1], normal[2]
    for i in range(node_dofs.shape[0]):
        a, b_, c = node_dofs[i, 0], node_dofs[i, 1], node_dofs[i, 2]
        if excess > 0.0:       # the state of the static excess, in contact or not
            speed[i] = tangential_velocity(v, a, b_, c, nx, ny, nz)[3]
        d = nx * (q[a] - point[0]) + ny * (q[b_] - point[1]) + nz * (q[c] - point[2])
        z = sharpness * (distance - d)
        if z < -40.0:          # exp(-40) ~ 4e-18: no contact force to double precision
            continue
        s, sigma = smooth_penalty(z, sharpness)
        fn = 2.0 * stiffness * s * sigma                       # |F_n| [N]
        dfn = -2.0 * stiffness * (sigma * sigma + sharpness * s * sigma * (1.0 - sigma))
        F[a] += fn * nx
        F[b_] += fn * ny
        F[c] += fn * nz
        base = 9 * i
        for r in range(3 if want_jac else 0):
            nr = normal[r]
            for col in range(3):
                J[base + 3 * r + col] += dfn * nr * normal[col]
        if friction == 0.0 and excess == 0.0:
            continue
        u0, u1, u2, w = tangential_velocity(v, a, b_, c, nx, ny, nz)
        x = slip_sharpness * w
        ex = np.exp(-x)
        gamma = 2.0 / (1.0 + ex) - 1.0
        dgamma = 2.0 * slip_sharpness * ex / ((1.0 + ex) * (1.0 + ex))
        if x > 1e-6:
            ratio = gamma / w                                   # gamma / |u|
            h0, h1, h2 = u0 / w, u1 / w, u2 / w
        else:                                                   # gamma ~ K_f w / 2
            ratio = 0.5 * slip_sharpness
            h0 = h1 = h2 = 0.0
            dgamma = ratio
        # the static excess eroded by the last step's slip: mu = mu_k exactly without one
        mu = lagged_coefficient(friction, excess, slip[i], inv_vs)
        g0, g1, g2 = ratio * u0, ratio * u1, ratio * u2
        mu_fn = mu * fn
        F[a] -= mu_fn * g0
        F[b_] -= mu_fn * g1
        F[c] -= mu_fn * g2
        uhat = (h0, h1, h2)
        g = (g0, g1, g2)
        for r in range(3 if want_jac else 0):
            for col in range(3):
                # dg/du (r, m) = ratio (delta_rm - uh_r uh_m) + dgamma uh_r uh_m; times
                # P = I - n n^T (u = P v) and 1/h
                acc = 0.0
                for m in range(3):
                    dgdu = ratio * ((1.0 if r == m else 0.0) - uhat[r] * uhat[m]) \
                        + dgamma * uhat[r] * uhat[m]
                    acc += dgdu * ((1.0 if m == col else 0.0) - normal[m] * normal[col])
                J[base + 3 * r + col] += -mu_fn * acc * inv_h - mu * g[r] * dfn * normal[col]


@kernel
def ground_contact_energy(q, node_dofs, point, normal, stiffness, distance, sharpness):
    """Penalty energy sum_i k s_i^2 [J] of the nodes (the conservative part; friction has none)."""
    total = 0.0
    for i in range(node_dofs.shape[0]):
        d = (normal[0] * (q[node_dofs[i, 0]] - point[0]) + normal[1] * (q[node_dofs[i, 1]] - point[1])
             + normal[2] * (q[node_dofs[i, 2]] - point[2]))
        s, _ = smooth_penalty(sharpness * (distance - d), sharpness)
        total += stiffness * s * s
    return total
