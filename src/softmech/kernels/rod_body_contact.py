"""Contact between rod elements and rigid spheres, cylinders and boxes (softmech.terms.
rod_body_contact).

Geometry: the body's signed distance phi(y) at a point y of its own frame (y = Q (p - x)),
    sphere (radius R):            phi = |y| - R
    cylinder (R, half length h):  d = (sqrt(y1^2 + y2^2) - R, |y3| - h),
                                  phi = min(max(d1, d2), 0) + |max(d, 0)|
    box (half extents h):         q = |y| - h,  phi = min(max(q), 0) + |max(q, 0)|
(exact Euclidean distances outside, minus the depth inside; e.g. Quilez, "distance functions",
and Ericson, Real-Time Collision Detection, 2005, ch. 5). For a convex body phi is convex, so
along an element's centreline p(s) = a + s (b - a) the closest point is the minimum of a convex
function of s in [0, 1]: found by golden-section search on phi(p(s)) + eta (s - 1/2)^2, where the
tiny eta (1e-9 of the element-and-body size) only breaks ties, so an element lying flat on a
face (phi constant along it) is pushed at its middle, not at one end.

Force (the rod-rod law of softmech.kernels.rod_contact, Zhang et al. 2019 eq. 7): with
overlap eps = r - phi at the closest point (r: the element's radius) and outward normal
n = grad phi (lab frame) there, the normal force acts at the rod point c = c(s_c), s_c the
overlap-weighted mean of the closest point and the element's ends (`application_parameter`: an
element lying on a face pushes both its nodes), split (1 - s_c), s_c onto the element's nodes,
and -F_n on the body at q = c - phi n (force and torque (q - x) x (-F_n)):
    F_n = max(k eps - gamma v_n, 0) n
(v_n: the normal velocity of c against the body's material point at q, v + omega x (q - x)).
c and q differ along n only, so F_n has no net torque. Friction (regularized, or sticking in
softmech.kernels.rod_body_sticking) acts at the contact point p = c - (r - eps/2) n, midway
between the rod's surface point c - r n and q (contact_point), on the slip of the rod section's
material point there (its centreline velocity + omega_e x (p - c)) against the body's:
    F_t = -mu(|w_t|) F_n w_t / max(|w_t|, v_s)                                on the rod,
as F_t at c plus the couple (p - c) x F_t on the element, and -F_t on the body at p
(softmech.kernels.contact_point): linear and angular momentum are conserved to round-off.
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.contact_point import (add_body_force_at, add_elem_force_at, elem_spin,
                                           regularized_friction, spin_velocity)
from softmech.kernels.rod_contact import (GAMMA, K, MU_K, MU_S, V_S, add_rows, clear_rows,
                                          frictionless)
from softmech.kernels.sticking import tangential

SHAPE_SPHERE, SHAPE_CYLINDER, SHAPE_BOX = 0, 1, 2
GOLDEN_STEPS = 48
"""Golden-section steps: the bracket shrinks to 0.618^48 ~ 1e-10 of the element."""
TIE_BREAK = 1e-9
"""eta / (element length + body size): the tie-breaking weight towards the element's middle."""

RodBodyContactArgs = namedtuple("RodBodyContactArgs", [
    "x", "v", "Q", "w", "elem_radius", "rb_x", "rb_v", "rb_Q", "rb_w",   # state and radii
    "node_force", "elem_couple", "rb_force", "rb_torque",           # outputs (added to)
    "rbc_node_a", "rbc_node_b",  # node slots of each pair's element ends (n_p,) int64
    "rbc_elem",     # element slot of each pair (n_p,) int64
    "rbc_body",     # rigid-body slot of each pair (n_p,) int64
    "rbc_entry",    # contact entry (term) of each pair (n_p,) int64
    "rbc_shape",    # per pair: shape kind, (n_p,) int64
    "rbc_dims",     # per pair: sphere (R, 0, 0), cylinder (R, h, 0), box (h1, h2, h3) [m], (n_p, 3)
    "rbc_param",    # per entry and world (n_blocks, n_entries, N_PARAMS, W) (rod_contact's rows)
    "rbc_force",    # output (n_blocks, 3, n_nodes*W): rod-body contact force on every node [N]
    "rbc_stats",    # output (n_blocks, 2, W): max eps / r, number of contacts
])


@kernel
def signed_distance(shape, dims, y0, y1, y2):
    """phi(y) of a body of `shape` and `dims` at y (body frame) [m]."""
    if shape == SHAPE_SPHERE:
        return math.sqrt(y0 * y0 + y1 * y1 + y2 * y2) - dims[0]
    if shape == SHAPE_CYLINDER:
        d0 = math.sqrt(y0 * y0 + y1 * y1) - dims[0]
        d1 = abs(y2) - dims[1]
        e0, e1 = max(d0, 0.0), max(d1, 0.0)
        return min(max(d0, d1), 0.0) + math.sqrt(e0 * e0 + e1 * e1)
    q0, q1, q2 = abs(y0) - dims[0], abs(y1) - dims[1], abs(y2) - dims[2]
    e0, e1, e2 = max(q0, 0.0), max(q1, 0.0), max(q2, 0.0)
    return min(max(q0, max(q1, q2)), 0.0) + math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)


@kernel(inline="always")
def sign(v):
    return 1.0 if v >= 0.0 else -1.0


@kernel
def outward_normal(shape, dims, y0, y1, y2):
    """Unit gradient of phi at y (body frame): the outward normal of the nearest surface."""
    if shape == SHAPE_SPHERE:
        m = math.sqrt(y0 * y0 + y1 * y1 + y2 * y2)
        if m < 1e-300:
            return 0.0, 0.0, 1.0
        return y0 / m, y1 / m, y2 / m
    if shape == SHAPE_CYLINDER:
        rho = math.sqrt(y0 * y0 + y1 * y1)
        r0, r1 = (y0 / rho, y1 / rho) if rho > 1e-300 else (1.0, 0.0)
        d0 = rho - dims[0]
        d1 = abs(y2) - dims[1]
        if d0 <= 0.0 and d1 <= 0.0:          # inside: the nearer of the side and the cap
            return (r0, r1, 0.0) if d0 > d1 else (0.0, 0.0, sign(y2))
        e0, e1 = max(d0, 0.0), max(d1, 0.0)
        m = math.sqrt(e0 * e0 + e1 * e1)
        return e0 * r0 / m, e0 * r1 / m, e1 * sign(y2) / m
    q0, q1, q2 = abs(y0) - dims[0], abs(y1) - dims[1], abs(y2) - dims[2]
    if q0 <= 0.0 and q1 <= 0.0 and q2 <= 0.0:   # inside: the nearest face
        if q0 >= q1 and q0 >= q2:
            return sign(y0), 0.0, 0.0
        if q1 >= q2:
            return 0.0, sign(y1), 0.0
        return 0.0, 0.0, sign(y2)
    e0, e1, e2 = max(q0, 0.0), max(q1, 0.0), max(q2, 0.0)
    m = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    return sign(y0) * e0 / m, sign(y1) * e1 / m, sign(y2) * e2 / m


@kernel
def closest_parameter(shape, dims, ya, yb, eta):
    """s in [0, 1] minimising phi(ya + s (yb - ya)) + eta (s - 1/2)^2 (golden section), phi
    there, and phi at the ends ya, yb."""
    g = 0.5 * (math.sqrt(5.0) - 1.0)
    lo, hi = 0.0, 1.0
    s1, s2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1 = signed_distance(shape, dims, ya[0] + s1 * (yb[0] - ya[0]), ya[1] + s1 * (yb[1] - ya[1]),
                         ya[2] + s1 * (yb[2] - ya[2])) + eta * (s1 - 0.5) ** 2
    f2 = signed_distance(shape, dims, ya[0] + s2 * (yb[0] - ya[0]), ya[1] + s2 * (yb[1] - ya[1]),
                         ya[2] + s2 * (yb[2] - ya[2])) + eta * (s2 - 0.5) ** 2
    for _ in range(GOLDEN_STEPS):
        if f1 < f2:
            hi, s2, f2 = s2, s1, f1
            s1 = hi - g * (hi - lo)
            f1 = signed_distance(shape, dims, ya[0] + s1 * (yb[0] - ya[0]),
                                 ya[1] + s1 * (yb[1] - ya[1]),
                                 ya[2] + s1 * (yb[2] - ya[2])) + eta * (s1 - 0.5) ** 2
        else:
            lo, s1, f1 = s1, s2, f2
            s2 = lo + g * (hi - lo)
            f2 = signed_distance(shape, dims, ya[0] + s2 * (yb[0] - ya[0]),
                                 ya[1] + s2 * (yb[1] - ya[1]),
                                 ya[2] + s2 * (yb[2] - ya[2])) + eta * (s2 - 0.5) ** 2
    s = 0.5 * (lo + hi)
    # the ends themselves (golden section never evaluates them): a minimum at an end is exact
    da = signed_distance(shape, dims, ya[0], ya[1], ya[2])
    db = signed_distance(shape, dims, yb[0], yb[1], yb[2])
    fa = da + 0.25 * eta
    fb = db + 0.25 * eta
    fs = signed_distance(shape, dims, ya[0] + s * (yb[0] - ya[0]), ya[1] + s * (yb[1] - ya[1]),
                         ya[2] + s * (yb[2] - ya[2])) + eta * (s - 0.5) ** 2
    if fa < fs and fa <= fb:
        s, fs = 0.0, fa
    elif fb < fs:
        s, fs = 1.0, fb
    return s, fs - eta * (s - 0.5) ** 2, da, db


@kernel(inline="always")
def to_body(Q, k, p0, p1, p2):
    """Q p: a lab vector in the body frame of slot k."""
    return (Q[0, k] * p0 + Q[1, k] * p1 + Q[2, k] * p2, Q[3, k] * p0 + Q[4, k] * p1 + Q[5, k] * p2,
            Q[6, k] * p0 + Q[7, k] * p1 + Q[8, k] * p2)


@kernel
def element_depth(shape, dims, Q, k, xb0, xb1, xb2, a, b, eta):
    """Closest parameter s, phi there, the point y (body frame) of element [a, b] (lab) against
    the body at xb with frame Q[:, k], and phi at the ends a, b."""
    ya = to_body(Q, k, a[0] - xb0, a[1] - xb1, a[2] - xb2)
    yb = to_body(Q, k, b[0] - xb0, b[1] - xb1, b[2] - xb2)
    s, phi, da, db = closest_parameter(shape, dims, ya, yb, eta)
    y = (ya[0] + s * (yb[0] - ya[0]), ya[1] + s * (yb[1] - ya[1]), ya[2] + s * (yb[2] - ya[2]))
    return s, phi, y, da, db


@kernel(inline="always")
def application_parameter(s, eps, r, da, db):
    """Where along the element the contact force acts: a weighted mean of the closest point s
    and the ends 0, 1, with weights eps - max(eps_a+, eps_b+), eps_a+ and eps_b+ (eps_a+, eps_b+:
    the ends' overlaps where positive; eps >= both),
        s_c = (s (eps - m) + eps_b+) / (eps - m + eps_a+ + eps_b+),   m = max(eps_a+, eps_b+):
    s itself while the ends are clear, the end itself when it is the deepest point, and the
    middle of an element lying flat on a face (a line contact shared by both nodes, however the
    search placed s in the flat stretch); continuous as the ends touch or leave. da, db: phi
    at the ends, r: the element's radius."""
    ea = max(r - da, 0.0)
    eb = max(r - db, 0.0)
    m = max(ea, eb)
    return (s * (eps - m) + eb) / (eps - m + ea + eb)


@kernel(inline="always")
def bounding_radius(shape, dims):
    if shape == SHAPE_SPHERE:
        return dims[0]
    if shape == SHAPE_CYLINDER:
        return math.sqrt(dims[0] * dims[0] + dims[1] * dims[1])
    return math.sqrt(dims[0] * dims[0] + dims[1] * dims[1] + dims[2] * dims[2])


@kernel
def pair_geometry(a, bi, W, lane, p):
    """Geometry and kinematics of pair p in one lane: (hit, eps [m], r [m], s, n (3,) lab,
    lever (3,) [m] of the body point q from the body's centre, relative tangential velocity
    w_t (3,) [m/s] and normal velocity v_n [m/s] of the rod point against the body's material
    point, node slots ia, ib, body slot k); hit 0 (and the rest zero) when apart."""
    X = a.x[bi]
    ia, ib = a.rbc_node_a[p] * W + lane, a.rbc_node_b[p] * W + lane
    k = a.rbc_body[p] * W + lane
    xb, Q = a.rb_x[bi], a.rb_Q[bi]
    xa = (X[0, ia], X[1, ia], X[2, ia])
    xe = (X[0, ib], X[1, ib], X[2, ib])
    r = a.elem_radius[bi, a.rbc_elem[p] * W + lane]
    dims = a.rbc_dims[p]
    shape = a.rbc_shape[p]
    zero = (0.0, 0.0, 0.0)
    # broad phase: the body's bounding sphere against the element's
    m0, m1, m2 = 0.5 * (xa[0] + xe[0]) - xb[0, k], 0.5 * (xa[1] + xe[1]) - xb[1, k], \
        0.5 * (xa[2] + xe[2]) - xb[2, k]
    half = 0.5 * math.sqrt((xe[0] - xa[0]) ** 2 + (xe[1] - xa[1]) ** 2 + (xe[2] - xa[2]) ** 2)
    reach = bounding_radius(shape, dims) + half + r
    if m0 * m0 + m1 * m1 + m2 * m2 > reach * reach:
        return 0, 0.0, r, 0.0, zero, zero, zero, 0.0, ia, ib, k
    # phi is 1-Lipschitz: no point of the element is nearer than phi(middle) - half (one
    # evaluation instead of a search, for elements near a large body's bounding sphere)
    ym = to_body(Q, k, m0, m1, m2)
    if signed_distance(shape, dims, ym[0], ym[1], ym[2]) - half > r:
        return 0, 0.0, r, 0.0, zero, zero, zero, 0.0, ia, ib, k
    s, phi, y, da, db = element_depth(shape, dims, Q, k, xb[0, k], xb[1, k], xb[2, k], xa, xe,
                                      TIE_BREAK * reach)
    eps = r - phi
    if not eps > 0.0:
        return 0, 0.0, r, 0.0, zero, zero, zero, 0.0, ia, ib, k
    nl = outward_normal(shape, dims, y[0], y[1], y[2])
    return pair_kinematics(a, bi, ia, ib, k, xa, xe, r, s, phi, nl, da, db)


@kernel
def pair_kinematics(a, bi, ia, ib, k, xa, xe, r, s, phi, nl, da, db):
    """The contact of element [xa, xe] (nodes ia, ib, radius r) with body k at its closest
    parameter s, signed distance phi < r there, outward normal nl (body frame) and signed
    distances da, db of its ends: pair_geometry's result (1, eps, r, s_c, n lab, lever, w_t,
    v_n, ia, ib, k), s_c the application parameter. Shared with the mesh contact
    (softmech.kernels.rod_mesh_contact)."""
    X, V = a.x[bi], a.v[bi]
    xb, Q = a.rb_x[bi], a.rb_Q[bi]
    eps = r - phi
    n = (Q[0, k] * nl[0] + Q[3, k] * nl[1] + Q[6, k] * nl[2],       # Q^T: lab frame
         Q[1, k] * nl[0] + Q[4, k] * nl[1] + Q[7, k] * nl[2],
         Q[2, k] * nl[0] + Q[5, k] * nl[1] + Q[8, k] * nl[2])
    s = application_parameter(s, eps, r, da, db)
    # body point q = p(s) - phi n, its lever arm and material velocity
    lev = (xa[0] + s * (xe[0] - xa[0]) - phi * n[0] - xb[0, k],
           xa[1] + s * (xe[1] - xa[1]) - phi * n[1] - xb[1, k],
           xa[2] + s * (xe[2] - xa[2]) - phi * n[2] - xb[2, k])
    w = a.rb_w[bi]
    wl = (Q[0, k] * w[0, k] + Q[3, k] * w[1, k] + Q[6, k] * w[2, k],
          Q[1, k] * w[0, k] + Q[4, k] * w[1, k] + Q[7, k] * w[2, k],
          Q[2, k] * w[0, k] + Q[5, k] * w[1, k] + Q[8, k] * w[2, k])
    vb = a.rb_v[bi]
    rel = (V[0, ia] + s * (V[0, ib] - V[0, ia]) - vb[0, k] - (wl[1] * lev[2] - wl[2] * lev[1]),
           V[1, ia] + s * (V[1, ib] - V[1, ia]) - vb[1, k] - (wl[2] * lev[0] - wl[0] * lev[2]),
           V[2, ia] + s * (V[2, ib] - V[2, ia]) - vb[2, k] - (wl[0] * lev[1] - wl[1] * lev[0]))
    vn = rel[0] * n[0] + rel[1] * n[1] + rel[2] * n[2]
    rel = (rel[0] - vn * n[0], rel[1] - vn * n[1], rel[2] - vn * n[2])
    return 1, eps, r, s, n, lev, rel, vn, ia, ib, k


@kernel
def apply_pair_force(a, bi, W, ia, ib, k, s, lev, f):
    """Add force f (3,) [N] on the rod at p(s) (split (1 - s), s onto nodes ia, ib of
    a.rbc_force) and -f on body k at lever lev (force and body-frame torque)."""
    F, Q = a.rbc_force[bi], a.rb_Q[bi]
    for c in range(3):
        F[c, ia] += (1.0 - s) * f[c]
        F[c, ib] += s * f[c]
        a.rb_force[bi, c, k] -= f[c]
    t0 = -(lev[1] * f[2] - lev[2] * f[1])
    t1 = -(lev[2] * f[0] - lev[0] * f[2])
    t2 = -(lev[0] * f[1] - lev[1] * f[0])
    tq = to_body(Q, k, t0, t1, t2)
    for c in range(3):
        a.rb_torque[bi, c, k] += tq[c]


@kernel(inline="always")
def contact_point(a, bi, W, lane, p, eps, r, n, lev, rel, k):
    """Where the friction of pair p acts (softmech.kernels.contact_point): the contact point,
    the midpoint of the rod's surface point c(s) - r n and the body's q = c(s) - phi n, as the
    rod's lever from its centreline point, l = -(r - eps/2) n, and the body's lever from its
    centre, lev - (eps/2) n; the element column e; and the tangential slip velocity of the rod
    section's and the body's material points there,
        w_t = [rel + omega_e x l + (eps/2) Omega x n]_t
    (rel: of the centreline point against the body's point q; Omega x (p - q) = -(eps/2)
    Omega x n), which vanishes when the rod rolls on the body. Returns (l, lev_p, e, w_t)."""
    e = a.rbc_elem[p] * W + lane
    h = r - 0.5 * eps
    lr = (-h * n[0], -h * n[1], -h * n[2])
    half = 0.5 * eps
    lb = (lev[0] - half * n[0], lev[1] - half * n[1], lev[2] - half * n[2])
    sr = spin_velocity(a.Q[bi], a.w[bi], e, lr)
    Om = elem_spin(a.rb_Q[bi], a.rb_w[bi], k)      # the body's Q^T w, as an element's
    wt = tangential(rel[0] + sr[0] + half * (Om[1] * n[2] - Om[2] * n[1]),
                    rel[1] + sr[1] + half * (Om[2] * n[0] - Om[0] * n[2]),
                    rel[2] + sr[2] + half * (Om[0] * n[1] - Om[1] * n[0]), n)
    return lr, lb, e, wt


@kernel(inline="always")
def apply_friction(a, bi, ia, ib, e, k, s, lr, lb, f):
    """Friction f [N] (3,) on the rod and -f on body k, both at the contact point: the rod's at
    its centreline point c(s) (split onto nodes ia, ib of a.rbc_force) with the couple of lever
    lr on element column e, the body's at lever lb (force and body-frame torque): no net force
    and no net torque."""
    add_elem_force_at(a.rbc_force[bi], a.elem_couple[bi], a.Q[bi], ia, ib, e, s, lr, f)
    add_body_force_at(a.rb_force[bi], a.rb_torque[bi], a.rb_Q[bi], k, lb, (-f[0], -f[1], -f[2]))


@kernel
def pair_contact(a, bi, W, lane, p, prm):
    """Force of pair p in one lane (regularized friction), added to rbc_force, the element's
    couple and the body: (contact, eps / r)."""
    hit, eps, r, s, n, lev, rel, vn, ia, ib, k = pair_geometry(a, bi, W, lane, p)
    if hit == 0:
        return 0, 0.0
    regularized_pair_force(a, bi, W, lane, p, prm, eps, r, s, n, lev, rel, vn, ia, ib, k)
    return 1, eps / r


@kernel
def regularized_pair_force(a, bi, W, lane, p, prm, eps, r, s, n, lev, rel, vn, ia, ib, k):
    """The regularized law of pair p in one lane (module docstring), given its geometry
    (pair_geometry's or the mesh's, softmech.kernels.rod_mesh_contact): the normal force
    max(k eps - gamma vn, 0) n [N] at the rod's centreline point c(s) and the body's point q,
    and, unless the lane is frictionless, regularized Coulomb friction at the contact point on
    the slip of the two material points there (contact_point, apply_friction); prm: the rows of
    softmech.kernels.rod_contact.N_PARAMS. Added to rbc_force, elem_couple and the body."""
    fn = max(prm[K, lane] * eps - prm[GAMMA, lane] * vn, 0.0)
    apply_pair_force(a, bi, W, ia, ib, k, s, lev, (fn * n[0], fn * n[1], fn * n[2]))
    if not frictionless(prm, MU_S, MU_K, lane):          # regularized Coulomb at the point
        lr, lb, e, wt = contact_point(a, bi, W, lane, p, eps, r, n, lev, rel, k)
        f = regularized_friction(wt, fn, prm[MU_S, lane], prm[MU_K, lane], prm[V_S, lane])
        apply_friction(a, bi, ia, ib, e, k, s, lr, lb, f)


@kernel
def rod_body_contacts(a, bi, W, t):
    """Add the rod-body contact forces of block bi to a.node_force and the bodies' force and
    torque (all RodBodyContact terms of a scene in this one call); a.rbc_force keeps the rods'
    share per node slot, a.rbc_stats per lane."""
    clear_rows(a.rbc_force[bi])
    for lane in range(W):
        worst = 0.0
        count = 0
        for p in range(a.rbc_node_a.shape[0]):
            hit, ratio = pair_contact(a, bi, W, lane, p, a.rbc_param[bi, a.rbc_entry[p]])
            count += hit
            worst = max(worst, ratio)
        a.rbc_stats[bi, 0, lane] = worst
        a.rbc_stats[bi, 1, lane] = count
    add_rows(a.node_force[bi], a.rbc_force[bi])


@kernel
def initial_body_overlaps(x0, x1, rad, xb, Qb, shape, dims, out):
    """eps / r = (r - phi) / r of element [x0[p], x1[p]] (radius rad[p]) against a body (centre
    xb[p], frame Qb[:, p] (9, n_p), shape[p], dims[p]) for every pair p: the scene's check of its
    initial geometry (softmech.terms.rod_body_contact)."""
    for p in range(x0.shape[0]):
        reach = bounding_radius(shape[p], dims[p]) + rad[p] + math.sqrt(
            (x1[p, 0] - x0[p, 0]) ** 2 + (x1[p, 1] - x0[p, 1]) ** 2 + (x1[p, 2] - x0[p, 2]) ** 2)
        _, phi, _, _, _ = element_depth(shape[p], dims[p], Qb, p, xb[p, 0], xb[p, 1], xb[p, 2], x0[p],
                                  x1[p], TIE_BREAK * reach)
        out[p] = (rad[p] - phi) / rad[p]
