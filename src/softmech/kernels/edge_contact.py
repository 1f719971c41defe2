"""Implicit edge-edge contact with Coulomb friction between the edges of discrete rods (and a
shell's mesh edges), after IMC (Tong et al. 2023) as used by MAT-DiSMech (ref. 004 eqs. 21-24).

Pair of edges (x1, x2) and (x3, x4), closest points c1 = x1 + a (x2 - x1), c2 = x3 + c (x4 - x3)
with a, c in [0, 1] (Lumelsky's clamped closest points), distance D = |c1 - c2|, n = (c1 - c2)/D.
With z = K (delta - D) (delta: contact distance [m], e.g. the sum of the radii; K: sharpness):

    E = k s^2,  s = log(1 + exp(z)) / K                                   (eq. 21)
    F = -dE/dq = 2 k s sigma dD/dq,  sigma = 1/(1 + exp(-z)),              (eq. 22)
    dD/dx1 = (1 - a) n, dD/dx2 = a n, dD/dx3 = -(1 - c) n, dD/dx4 = -c n

(the envelope theorem: a and c minimize the distance, so their variation does not enter). The
friction force (eq. 23) opposes the tangential relative velocity u of the contact points,
F_f = -mu |F_n| gamma(|u|) u/|u| on edge 1 (shared (1 - a), a between its nodes) and the
opposite on edge 2, with gamma as in softmech.kernels.implicit_ground.

Static and kinetic coefficients: mu = mu_k + max(mu_s - mu_k, 0) S(w_n), the same lagged
static excess as the ground contact's (softmech.kernels.implicit_ground: why lagged -- with mu
falling with the current slip the implicit step has a sticking and a sliding root and Newton
finds the sliding one; with mu fixed within the step the root is unique). w_n, the slip of the
last accepted step, is a state of the edges' NODES, not of the pairs: pairs are collected
afresh at every step, so a state keyed by the pair would be a map whose size follows the pair
list, and a pair new to the list (a contact sliding onto the next edge faster than the
collection margin, or one that left the candidates for a step) would start at rest (full
mu_s, a spurious stick); per node the state is a fixed (B, n_nodes) array, saved with the
simulation's state, and consecutive edges share a node, which carries the slip across an
edge crossing. A node's slip is the
mean of the tangential slip speeds |u| of the pairs it belongs to, each weighted by the share
of the pair's normal force the node carries, |F_n| (1 - a), |F_n| a, ... (the candidate pairs
that do not touch carry next to nothing, so they do not lend their relative speed to a node
in contact; a node with no force at all has slip 0). A pair reads the largest slip of its four
nodes (constant within the step, so the Jacobian below stays that of a constant mu). The
price: contacts that share an edge's node share its state (one sliding erodes the other's
static excess while it slides).

Jacobian: the 12 x 12 block of each pair is the central difference of this analytic force with
respect to the pair's 12 node coordinates, the velocities moving with them (v = (q - q_n)/h),
with the step the term chooses (softmech.terms.edge_contact: small enough against both the
penalty's and the friction's widths): exact enough for Newton's direction (relative error
~1e-8); IMC writes the same block out
symbolically, which is long and gains nothing measurable here.
"""
import numpy as np

from softmech.kernels import kernel
from softmech.kernels.implicit_ground import (inverse_stribeck_speed, lagged_coefficient,
                                              smooth_penalty)


@kernel(inline="always")
def _clamp01(x):
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


@kernel
def closest_points(p, out):
    """Closest points of segments p[0:3]-p[3:6] and p[6:9]-p[9:12] (Lumelsky 1985; the clamped
    form of Ericson, Real-Time Collision Detection, 5.1.9). Writes out = (a, c, D)."""
    d1x, d1y, d1z = p[3] - p[0], p[4] - p[1], p[5] - p[2]
    d2x, d2y, d2z = p[9] - p[6], p[10] - p[7], p[11] - p[8]
    rx, ry, rz = p[0] - p[6], p[1] - p[7], p[2] - p[8]
    A = d1x * d1x + d1y * d1y + d1z * d1z
    E = d2x * d2x + d2y * d2y + d2z * d2z
    f = d2x * rx + d2y * ry + d2z * rz
    cc = d1x * rx + d1y * ry + d1z * rz
    bb = d1x * d2x + d1y * d2y + d1z * d2z
    denom = A * E - bb * bb
    a = _clamp01((bb * f - cc * E) / denom) if denom > 1e-14 * A * E else 0.0
    c = (bb * a + f) / E
    if c < 0.0:
        c = 0.0
        a = _clamp01(-cc / A)
    elif c > 1.0:
        c = 1.0
        a = _clamp01((bb - cc) / A)
    gx = p[0] + a * d1x - p[6] - c * d2x
    gy = p[1] + a * d1y - p[7] - c * d2y
    gz = p[2] + a * d1z - p[8] - c * d2z
    out[0] = a
    out[1] = c
    out[2] = np.sqrt(gx * gx + gy * gy + gz * gz)


@kernel(inline="always")
def contact_normal(p, a, c, D):
    """Unit normal n = (c1 - c2) / D of the pair p (12,) at its closest points (a, c), D > 0 [m]
    their distance."""
    nx = (p[0] + a * (p[3] - p[0]) - p[6] - c * (p[9] - p[6])) / D
    ny = (p[1] + a * (p[4] - p[1]) - p[7] - c * (p[10] - p[7])) / D
    nz = (p[2] + a * (p[5] - p[2]) - p[8] - c * (p[11] - p[8])) / D
    return nx, ny, nz


@kernel(inline="always")
def tangential_slip(w, a, c, nx, ny, nz):
    """(ux, uy, uz, |u|): the relative velocity of the contact points (edge 1 minus edge 2) [m/s]
    without its component along the unit normal n; w (12,): the velocities of x1..x4."""
    ux = (1 - a) * w[0] + a * w[3] - (1 - c) * w[6] - c * w[9]
    uy = (1 - a) * w[1] + a * w[4] - (1 - c) * w[7] - c * w[10]
    uz = (1 - a) * w[2] + a * w[5] - (1 - c) * w[8] - c * w[11]
    un = ux * nx + uy * ny + uz * nz
    ux -= un * nx
    uy -= un * ny
    uz -= un * nz
    return ux, uy, uz, np.sqrt(ux * ux + uy * uy + uz * uz)


@kernel
def pair_force(p, w, k, delta, K, mu, Kf, f, tmp):
    """Contact + friction force (12,) of one pair into f (overwritten): p (12,) positions [m],
    w (12,) velocities [m/s] of x1..x4; mu [-] the friction coefficient of this step; tmp (3,)
    scratch. Returns the energy k s^2 [J]."""
    closest_points(p, tmp)
    a, c, D = tmp[0], tmp[1], tmp[2]
    for i in range(12):
        f[i] = 0.0
    z = K * (delta - D)
    if z < -40.0 or D == 0.0:
        return 0.0
    s, sigma = smooth_penalty(z, K)
    fn = 2.0 * k * s * sigma
    wts = (1.0 - a, a, -(1.0 - c), -c)
    nx, ny, nz = contact_normal(p, a, c, D)
    for j in range(4):
        f[3 * j] += fn * wts[j] * nx
        f[3 * j + 1] += fn * wts[j] * ny
        f[3 * j + 2] += fn * wts[j] * nz
    if mu > 0.0:
        ux, uy, uz, speed = tangential_slip(w, a, c, nx, ny, nz)
        x = Kf * speed
        ratio = (2.0 / (1.0 + np.exp(-x)) - 1.0) / speed if x > 1e-6 else 0.5 * Kf
        g = mu * fn * ratio
        for j in range(4):
            f[3 * j] -= g * wts[j] * ux
            f[3 * j + 1] -= g * wts[j] * uy
            f[3 * j + 2] -= g * wts[j] * uz
    return k * s * s


@kernel(inline="always")
def slip_state(p, w, a, c, D, z, k, K, speed, weight, r):
    """The static excess's state of touching pair r (closest points a, c at distance D > 0,
    z = K (delta - D)): speed[r] <- its tangential slip speed [m/s], weight[r] <- the normal
    force [N] each of its four nodes carries, |F_n| (1 - a), |F_n| a, |F_n| (1 - c), |F_n| c
    (module docstring; edge_slip_accept averages them per node)."""
    s, sigma = smooth_penalty(z, K)
    fn = 2.0 * k * s * sigma
    nx, ny, nz = contact_normal(p, a, c, D)
    speed[r] = tangential_slip(w, a, c, nx, ny, nz)[3]
    weight[r, 0] = fn * (1.0 - a)
    weight[r, 1] = fn * a
    weight[r, 2] = fn * (1.0 - c)
    weight[r, 3] = fn * c


@kernel
def edge_contact_forces(q, v, pair_dofs, pair_nodes, k, delta, K, kinetic, static, Kf, inv_h,
                        step, slip, speed, weight, F, J, scratch):
    """Add the forces of the candidate pairs to F (n_dof,) and their 12x12 Jacobian blocks
    (row-major, pair after pair) to J (n_pairs * 144,). pair_dofs (n_pairs, 12) int64: the DOFs
    of x1, x2, x3, x4; pair_nodes (n_pairs, 4) int64: their indices into slip; kinetic mu_k,
    static mu_s [-] (a static excess where above mu_k); slip (n_nodes,) [m/s]: each node's slip
    speed at the last accepted step; speed (n_pairs,) [m/s] and weight (n_pairs, 4) [N]:
    written with a static excess (else left as they are), each pair's tangential slip speed and
    the normal force its four nodes carry at this evaluation (edge_slip_accept keeps the
    accepted ones); step [m]: the central-difference step; scratch (51,). Returns the contact
    energy [J]."""
    p = scratch[0:12]
    w = scratch[12:24]
    f = scratch[24:36]
    fp = scratch[36:48]
    tmp = scratch[48:51]
    excess = max(static - kinetic, 0.0)               # mu_s - mu_k
    inv_vs = inverse_stribeck_speed(Kf)
    energy = 0.0
    for r in range(pair_dofs.shape[0]):
        for i in range(12):
            p[i] = q[pair_dofs[r, i]]
            w[i] = v[pair_dofs[r, i]]
        closest_points(p, tmp)
        a, c, D = tmp[0], tmp[1], tmp[2]
        if excess > 0.0:
            speed[r] = 0.0
            for j in range(4):
                weight[r, j] = 0.0
        z = K * (delta - D)
        if z < -40.0:
            continue
        if excess > 0.0 and D > 0.0:     # the state of the static excess (module docstring)
            slip_state(p, w, a, c, D, z, k, K, speed, weight, r)
        w_n = max(max(slip[pair_nodes[r, 0]], slip[pair_nodes[r, 1]]),
                  max(slip[pair_nodes[r, 2]], slip[pair_nodes[r, 3]]))
        mu = lagged_coefficient(kinetic, excess, w_n, inv_vs)   # mu_k exactly without excess
        energy += pair_force(p, w, k, delta, K, mu, Kf, f, tmp)
        for i in range(12):
            F[pair_dofs[r, i]] += f[i]
        base = 144 * r
        for col in range(12):
            p[col] += step
            w[col] += step * inv_h
            pair_force(p, w, k, delta, K, mu, Kf, fp, tmp)
            for i in range(12):
                J[base + 12 * i + col] += fp[i] / (2.0 * step)
            p[col] -= 2.0 * step
            w[col] -= 2.0 * step * inv_h
            pair_force(p, w, k, delta, K, mu, Kf, fp, tmp)
            for i in range(12):
                J[base + 12 * i + col] -= fp[i] / (2.0 * step)
            p[col] += step
            w[col] += step * inv_h
    return energy


@kernel
def edge_slip_accept(pair_nodes, speed, weight, slip, total):
    """A step accepted: each node's slip [m/s] (n_nodes,), overwritten, becomes the mean of the
    slip speeds (n_pairs,) of the pairs it belongs to (pair_nodes (n_pairs, 4)), weighted by
    the normal force it carries in each (weight (n_pairs, 4) [N]); 0 for a node that carries
    none (module docstring). total (n_nodes,): scratch."""
    for i in range(slip.shape[0]):
        slip[i] = 0.0
        total[i] = 0.0
    for r in range(pair_nodes.shape[0]):
        for j in range(4):
            n = pair_nodes[r, j]
            slip[n] += weight[r, j] * speed[r]
            total[n] += weight[r, j]
    for i in range(slip.shape[0]):
        if total[i] > 0.0:
            slip[i] /= total[i]


@kernel
def candidate_pairs(q, edge_dofs, edge_nodes, cutoff, out):
    """Candidate pairs: edges that share no node and whose bounding spheres (about their
    midpoints) come closer than `cutoff` [m]. Writes their indices into out (max_pairs, 2) and
    returns how many (-1 if out is too small). edge_dofs (m, 6) int64, edge_nodes (m, 2) int64
    (global node ids). All pairs are tested, O(m^2): fine for a few thousand edges."""
    m = edge_dofs.shape[0]
    count = 0
    for i in range(m):
        for j in range(i + 1, m):
            if (edge_nodes[i, 0] == edge_nodes[j, 0] or edge_nodes[i, 0] == edge_nodes[j, 1]
                    or edge_nodes[i, 1] == edge_nodes[j, 0] or edge_nodes[i, 1] == edge_nodes[j, 1]):
                continue
            # bounding spheres first: |mid_i - mid_j| > (l_i + l_j)/2 + cutoff -> far apart
            dx = 0.5 * (q[edge_dofs[i, 0]] + q[edge_dofs[i, 3]] - q[edge_dofs[j, 0]] - q[edge_dofs[j, 3]])
            dy = 0.5 * (q[edge_dofs[i, 1]] + q[edge_dofs[i, 4]] - q[edge_dofs[j, 1]] - q[edge_dofs[j, 4]])
            dz = 0.5 * (q[edge_dofs[i, 2]] + q[edge_dofs[i, 5]] - q[edge_dofs[j, 2]] - q[edge_dofs[j, 5]])
            li = np.sqrt((q[edge_dofs[i, 3]] - q[edge_dofs[i, 0]]) ** 2
                         + (q[edge_dofs[i, 4]] - q[edge_dofs[i, 1]]) ** 2
                         + (q[edge_dofs[i, 5]] - q[edge_dofs[i, 2]]) ** 2)
            lj = np.sqrt((q[edge_dofs[j, 3]] - q[edge_dofs[j, 0]]) ** 2
                         + (q[edge_dofs[j, 4]] - q[edge_dofs[j, 1]]) ** 2
                         + (q[edge_dofs[j, 5]] - q[edge_dofs[j, 2]]) ** 2)
            reach = 0.5 * (li + lj) + cutoff
            if dx * dx + dy * dy + dz * dz > reach * reach:
                continue
            if count >= out.shape[0]:
                return -1
            out[count, 0] = i
            out[count, 1] = j
            count += 1
    return count
