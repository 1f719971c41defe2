"""Rod-rod and self contact between element centrelines (softmech.terms.rod_contact).

Model (Zhang, Chan, Parthasarathy, Gazzola, Nat. Commun. 10:4825, 2019, "Rod collision", eq. 7):
for elements i and j (segments [a_i, b_i] and [a_j, b_j], radii r_i, r_j) with closest points
p_i = a_i + s (b_i - a_i), p_j = a_j + u (b_j - a_j), distance d = |p_j - p_i| and unit normal
n = (p_j - p_i) / d, the overlap is eps = r_i + r_j - d and the force on element j is

    F_n = H(eps) max(k eps - gamma (v_j - v_i) . n, 0) n                                  [N]

(v_i, v_j: velocities of the closest points, interpolated from the nodes; the max keeps the
damping from pulling the rods together while they separate). Element i gets -F_n; each
element's share is split onto its two nodes by the segment parameter, (1 - s) to a and s to b.
F_n lies along n through both closest points, so it has no net force and no net torque.

Optional Coulomb friction acts at the contact point p, the midpoint of the two surface points
c_i + r_i n and c_j - r_j n (contact_point; softmech.kernels.contact_point), on the tangential
slip velocity w of the two sections' material points there (the closest points' velocities plus
omega x lever: zero when one rod rolls on the other), regularized (a viscous law below the slip
velocity v_s, no history):

    F_t = -mu(|w|) |F_n| w / max(|w|, v_s),
    mu(|w|) = mu_s + (mu_k - mu_s) clip(|w| / v_s - 1, 0, 1)

i.e. a viscous stick law reaching mu_s |F_n| at |w| = v_s, blending to mu_k by 2 v_s. Element j
gets F_t at its closest point plus the couple l_j x F_t (l_j = p - c_j), element i gets -F_t
and l_i x (-F_t): equal and opposite at one point, so linear and angular momentum are conserved
to round-off (until issue 30 friction acted at the centrelines without couples: a spurious
couple (c_j - c_i) x F_t, and a rod could not roll on another).

Broad phase, per world (lane): every contact element's bounding box (inflated by its radius) is
put in the cell of a uniform grid that holds its centre, the cell size h being the largest box
extent, so two overlapping boxes lie in the same or in neighbouring cells. Cells are hashed
into H = 2^m >= 2 n buckets and sorted by bucket (counting sort), and every element visits the
buckets of its 27 neighbouring cells, taking only the elements of that cell: O(n) work for n elements of
bounded density, no pair list (nothing to overflow), forces computed where a pair is found.
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.contact_point import add_elem_force_at, regularized_friction, spin_velocity
from softmech.kernels.sticking import tangential

K, GAMMA, MU_S, MU_K, V_S = range(5)
N_PARAMS = 5
"""Rows of rc_param: stiffness k [N/m], damping gamma [kg/s], static and kinetic friction
coefficients mu_s, mu_k [-], slip velocity v_s [m/s]."""

SELF_GAP = 2.0
"""Self contact skips element pairs of one rod whose rest arc-length gap (between their nearest
ends along the centreline) is below SELF_GAP (r_i + r_j): a straight rod at rest has every such
gap above r_i + r_j, and a rod bent at rest to any radius of curvature above ~1.05 r keeps its
non-excluded pairs apart (chord 2 sin(kappa a / 2) / kappa > 2 r for a = 2 (r_i + r_j))."""

PARALLEL = 1e-10
"""sin^2 of the angle between two segments below which they are treated as parallel."""

RodContactArgs = namedtuple("RodContactArgs", [
    "x", "v", "Q", "w", "elem_radius", "node_force",
    "elem_couple",  # output: the friction's couples [N m] in the elements' frames (added to)
    "rc_node_a", "rc_node_b",  # node slots of each contact element's ends (n_ce,) int64
    "rc_elem",      # element slot of each contact element (n_ce,) int64 (its radius)
    "rc_rod",       # rod index of each contact element (n_ce,) int64
    "rc_arc",       # rest arc length [m] of each contact element's centre along its rod (n_ce,)
    "rc_len",       # rest length [m] of each contact element (n_ce,)
    "rc_rod_len",   # per rod: rest length [m] if closed (arc distances wrap), else 0 (n_rods,)
    "rc_member",    # (n_rods, n_entries) int64: 1 if the rod is in the contact entry, else 0
    "rc_self",      # (n_entries,) int64: 1 if the entry has self contact
    "rc_param",     # per entry and world (n_blocks, n_entries, N_PARAMS, W)
    "rc_box",       # scratch (n_blocks, 6, n_ce): box centres and half-extents [m]
    "rc_cell",      # scratch (n_blocks, 3, n_ce) int64: grid cell of each box centre
    "rc_bucket",    # scratch (n_blocks, n_ce) int64: hash bucket of each element
    "rc_start",     # scratch (n_blocks, H + 1) int64: bucket ends after the counting sort
    "rc_order",     # scratch (n_blocks, n_ce) int64: elements sorted by bucket
    "rc_force",     # output (n_blocks, 3, n_nodes*W): rod-contact force on every node slot [N]
    "rc_stats",     # output (n_blocks, 3, W): max eps / (r_i + r_j), box pairs, contacts
])


@kernel(inline="always")
def clamp01(x):
    return min(max(x, 0.0), 1.0)


@kernel(inline="always")
def segment_parameters(a0, a1, a2, b0, b1, b2, c0, c1, c2, e0, e1, e2):
    """Parameters (s, u) in [0, 1] of the closest points a + s (b - a), c + u (e - c) of two
    segments (Ericson, Real-Time Collision Detection, 2005, sec. 5.1.9). Zero-length segments
    give s = 0 or u = 0; (nearly) parallel ones (sin^2 < PARALLEL) take s at the middle of the
    part of [a, b] facing [c, e] (the end nearest to it if none), so that a force spread along
    a line contact acts at its centre rather than at one end."""
    d10, d11, d12 = b0 - a0, b1 - a1, b2 - a2
    d20, d21, d22 = e0 - c0, e1 - c1, e2 - c2
    r0, r1, r2 = a0 - c0, a1 - c1, a2 - c2
    A = d10 * d10 + d11 * d11 + d12 * d12
    E = d20 * d20 + d21 * d21 + d22 * d22
    f = d20 * r0 + d21 * r1 + d22 * r2
    if A <= 1e-300 and E <= 1e-300:
        return 0.0, 0.0
    if A <= 1e-300:
        return 0.0, clamp01(f / E)
    c = d10 * r0 + d11 * r1 + d12 * r2
    if E <= 1e-300:
        return clamp01(-c / A), 0.0
    b = d10 * d20 + d11 * d21 + d12 * d22
    denom = A * E - b * b
    if denom > PARALLEL * A * E:
        s = clamp01((b * f - c * E) / denom)
    else:  # parallel: the middle of the overlap of [0, 1] with c, e projected onto a..b
        s0 = -c / A
        s1 = (b - c) / A
        s = 0.5 * (clamp01(min(s0, s1)) + clamp01(max(s0, s1)))
    u = (b * s + f) / E
    if u < 0.0:
        return clamp01(-c / A), 0.0
    if u > 1.0:
        return clamp01((b - c) / A), 1.0
    return s, u


@kernel(inline="always")
def self_excluded(arc_i, arc_j, len_i, len_j, rad_i, rad_j, rod_len):
    """True for two elements of one rod too close along it to touch (SELF_GAP rule): rest arc
    distance of their centres (the shorter way round a closed rod, rod_len > 0) minus half
    their lengths, below SELF_GAP (r_i + r_j). Adjacent elements always (gap 0)."""
    dist = abs(arc_i - arc_j)
    if rod_len > 0.0:
        dist = min(dist, rod_len - dist)
    return dist - 0.5 * (len_i + len_j) < SELF_GAP * (rad_i + rad_j)


@kernel(inline="always")
def contact_normal(d0, d1, d2, dist, t0, t1, t2, q0, q1, q2):
    """Unit normal from element i to j: the closest points' difference d / |d|; if the
    centrelines cross (d ~ 0), the normal of both tangents t, q; if also parallel, any unit
    vector normal to t."""
    if dist > 1e-150:
        return d0 / dist, d1 / dist, d2 / dist
    n0, n1, n2 = t1 * q2 - t2 * q1, t2 * q0 - t0 * q2, t0 * q1 - t1 * q0
    m = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    if m <= 1e-150:  # parallel: t x (the axis t is least along)
        if abs(t0) <= abs(t1) and abs(t0) <= abs(t2):
            n0, n1, n2 = 0.0, t2, -t1
        elif abs(t1) <= abs(t2):
            n0, n1, n2 = -t2, 0.0, t0
        else:
            n0, n1, n2 = t1, -t0, 0.0
        m = np.sqrt(n0 * n0 + n1 * n1 + n2 * n2) + 1e-300
    return n0 / m, n1 / m, n2 / m


@kernel(inline="always")
def pair_entry(member, self_contact, ri, rj):
    """The contact entry holding rods ri and rj (both members; for ri == rj, one with self
    contact), or -1: a pair belongs to one entry at most (softmech.terms.rod_contact). Memory
    n_rods x n_entries, not n_rods^2 (10,000 rods)."""
    for e in range(member.shape[1]):
        if member[ri, e] and member[rj, e] and (ri != rj or self_contact[e]):
            return e
    return -1


@kernel(inline="always")
def cell_hash(ix, iy, iz, mask):
    """Bucket of grid cell (ix, iy, iz) (Teschner et al. 2003 spatial hashing primes)."""
    return ((ix * 73856093) ^ (iy * 19349663) ^ (iz * 83492791)) & mask


@kernel(inline="always")
def pair_geometry(a, bi, W, lane, i, j):
    """Narrow phase of contact elements i, j of one lane: (eps [m], r_i + r_j [m], s, u, unit
    normal n (3,) from i to j, relative velocity w = v_j - v_i (3,) [m/s] of the closest points,
    node columns ia, ib, ja, jb). No contact unless eps > 0 (n and w are then zeros)."""
    X = a.x[bi]
    V = a.v[bi]
    ia, ib = a.rc_node_a[i] * W + lane, a.rc_node_b[i] * W + lane
    ja, jb = a.rc_node_a[j] * W + lane, a.rc_node_b[j] * W + lane
    s, u = segment_parameters(X[0, ia], X[1, ia], X[2, ia], X[0, ib], X[1, ib], X[2, ib],
                              X[0, ja], X[1, ja], X[2, ja], X[0, jb], X[1, jb], X[2, jb])
    t0, t1, t2 = X[0, ib] - X[0, ia], X[1, ib] - X[1, ia], X[2, ib] - X[2, ia]
    q0, q1, q2 = X[0, jb] - X[0, ja], X[1, jb] - X[1, ja], X[2, jb] - X[2, ja]
    d0 = X[0, ja] + u * q0 - X[0, ia] - s * t0
    d1 = X[1, ja] + u * q1 - X[1, ia] - s * t1
    d2 = X[2, ja] + u * q2 - X[2, ia] - s * t2
    dist = np.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    rsum = a.elem_radius[bi, a.rc_elem[i] * W + lane] + a.elem_radius[bi, a.rc_elem[j] * W + lane]
    eps = rsum - dist
    if not eps > 0.0:
        return eps, rsum, s, u, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), ia, ib, ja, jb
    n = contact_normal(d0, d1, d2, dist, t0, t1, t2, q0, q1, q2)
    w0 = V[0, ja] + u * (V[0, jb] - V[0, ja]) - V[0, ia] - s * (V[0, ib] - V[0, ia])
    w1 = V[1, ja] + u * (V[1, jb] - V[1, ja]) - V[1, ia] - s * (V[1, ib] - V[1, ia])
    w2 = V[2, ja] + u * (V[2, jb] - V[2, ja]) - V[2, ia] - s * (V[2, ib] - V[2, ia])
    return eps, rsum, s, u, n, (w0, w1, w2), ia, ib, ja, jb


@kernel(inline="always")
def add_pair_force(F, ia, ib, ja, jb, s, u, f0, f1, f2):
    """F += f on element j at its parameter u, -f on element i at s ((1 - s) to node a, s to
    node b): equal and opposite, so linear momentum is conserved."""
    F[0, ja] += (1.0 - u) * f0
    F[1, ja] += (1.0 - u) * f1
    F[2, ja] += (1.0 - u) * f2
    F[0, jb] += u * f0
    F[1, jb] += u * f1
    F[2, jb] += u * f2
    F[0, ia] -= (1.0 - s) * f0
    F[1, ia] -= (1.0 - s) * f1
    F[2, ia] -= (1.0 - s) * f2
    F[0, ib] -= s * f0
    F[1, ib] -= s * f1
    F[2, ib] -= s * f2


@kernel(inline="always")
def contact_point(a, bi, W, lane, i, j, eps, rsum, n, w):
    """Where the friction of contact elements i, j acts (softmech.kernels.contact_point): the
    contact point p, the midpoint of the surface points c_i + r_i n and c_j - r_j n, as the
    levers from the closest centreline points, l_i = (d + r_i - r_j)/2 n and l_j = l_i - d n
    (d = r_i + r_j - eps, the centrelines' distance); the element columns e_i, e_j; and the
    tangential slip velocity of the two sections' material points at p,
        w_t = [w + omega_j x l_j - omega_i x l_i]_t      (w = v_j(u) - v_i(s), eq. 1 there)
    which vanishes when one rod rolls on the other. Returns (l_i, l_j, e_i, e_j, w_t)."""
    ei, ej = a.rc_elem[i] * W + lane, a.rc_elem[j] * W + lane
    d = rsum - eps
    hi = 0.5 * (d + a.elem_radius[bi, ei] - a.elem_radius[bi, ej])
    hj = hi - d
    li = (hi * n[0], hi * n[1], hi * n[2])
    lj = (hj * n[0], hj * n[1], hj * n[2])
    Q, om = a.Q[bi], a.w[bi]
    si = spin_velocity(Q, om, ei, li)
    sj = spin_velocity(Q, om, ej, lj)
    wt = tangential(w[0] + sj[0] - si[0], w[1] + sj[1] - si[1], w[2] + sj[2] - si[2], n)
    return li, lj, ei, ej, wt


@kernel(inline="always")
def add_pair_friction(a, bi, ia, ib, ja, jb, ei, ej, s, u, li, lj, f):
    """Friction f [N] (3,) on element j and -f on element i, both at the contact point p:
    each at its closest centreline point (u, s) with the couple of its lever l_j, l_i
    (softmech.kernels.contact_point.add_elem_force_at): no net force and no net torque."""
    F, C, Q = a.rc_force[bi], a.elem_couple[bi], a.Q[bi]
    add_elem_force_at(F, C, Q, ja, jb, ej, u, lj, f)
    add_elem_force_at(F, C, Q, ia, ib, ei, s, li, (-f[0], -f[1], -f[2]))


@kernel(inline="always")
def frictionless(prm, mu_s, mu_k, lane):
    """True where a contact entry has no friction in this lane (mu_s = mu_k = 0): its kernels
    then apply the normal force only, exactly as before friction acted at the contact point."""
    return prm[mu_s, lane] == 0.0 and prm[mu_k, lane] == 0.0


@kernel(inline="always")
def pair_force(a, bi, W, lane, i, j, entry):
    """Contact elements i, j of one lane, in contact entry `entry`: adds their forces to
    a.rc_force (the friction's couples to a.elem_couple) and returns (contact 0 or 1,
    eps / (r_i + r_j))."""
    prm = a.rc_param[bi, entry]
    eps, rsum, s, u, n, w, ia, ib, ja, jb = pair_geometry(a, bi, W, lane, i, j)
    if not eps > 0.0:
        return 0, 0.0
    n0, n1, n2 = n
    vn = w[0] * n0 + w[1] * n1 + w[2] * n2
    fn = max(prm[K, lane] * eps - prm[GAMMA, lane] * vn, 0.0)          # Zhang 2019 eq. 7
    # the normal force on element j (element i gets -f) along n through both centrelines
    add_pair_force(a.rc_force[bi], ia, ib, ja, jb, s, u, fn * n0, fn * n1, fn * n2)
    if not frictionless(prm, MU_S, MU_K, lane):          # regularized Coulomb at the point p
        li, lj, ei, ej, wt = contact_point(a, bi, W, lane, i, j, eps, rsum, n, w)
        f = regularized_friction(wt, fn, prm[MU_S, lane], prm[MU_K, lane], prm[V_S, lane])
        add_pair_friction(a, bi, ia, ib, ja, jb, ei, ej, s, u, li, lj, f)
    return 1, eps / rsum


@kernel(inline="always")
def build_grid(a, bi, W, lane, n_ce, mask):
    """Boxes, cells and the counting sort of one lane's contact elements (module docstring)."""
    X = a.x[bi]
    box = a.rc_box[bi]
    cell = a.rc_cell[bi]
    bucket = a.rc_bucket[bi]
    start = a.rc_start[bi]
    order = a.rc_order[bi]
    h = 0.0
    for i in range(n_ce):
        ia, ib = a.rc_node_a[i] * W + lane, a.rc_node_b[i] * W + lane
        rad = a.elem_radius[bi, a.rc_elem[i] * W + lane]
        for c in range(3):
            lo = min(X[c, ia], X[c, ib]) - rad
            hi = max(X[c, ia], X[c, ib]) + rad
            box[c, i] = 0.5 * (lo + hi)
            box[3 + c, i] = 0.5 * (hi - lo)
            h = max(h, hi - lo)
    inv_h = 1.0 / max(h, 1e-300)
    for k in range(start.shape[0]):
        start[k] = 0
    for i in range(n_ce):
        for c in range(3):
            cell[c, i] = np.int64(np.floor(box[c, i] * inv_h))
        b = cell_hash(cell[0, i], cell[1, i], cell[2, i], mask)
        bucket[i] = b
        start[b + 1] += 1
    for k in range(1, start.shape[0]):
        start[k] += start[k - 1]
    for i in range(n_ce):          # afterwards start[b] is the end of bucket b
        order[start[bucket[i]]] = i
        start[bucket[i]] += 1


@kernel(inline="always")
def visit_pairs(a, bi, W, lane, n_ce, mask, visit):
    """Every candidate pair of one lane (world): grid, then each element i against the
    elements j > i of its 27 neighbouring cells, box test, pair mask, self-contact rule; each
    pair goes to visit(a, bi, W, lane, i, j, entry) -> (contact 0 or 1, eps / (r_i + r_j)).
    All pairs of element i are visited before those of i + 1. Returns (largest eps / (r_i +
    r_j), box pairs, contacts)."""
    build_grid(a, bi, W, lane, n_ce, mask)
    box = a.rc_box[bi]
    cell = a.rc_cell[bi]
    start = a.rc_start[bi]
    order = a.rc_order[bi]
    n_box = 0
    n_contact = 0
    worst = 0.0
    for i in range(n_ce):
        ri = a.rc_rod[i]
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                for dz in range(-1, 2):
                    cx = cell[0, i] + dx
                    cy = cell[1, i] + dy
                    cz = cell[2, i] + dz
                    b = cell_hash(cx, cy, cz, mask)
                    for q in range(start[b - 1] if b > 0 else 0, start[b]):
                        j = order[q]
                        # only j of this very cell: a bucket shared by several cells (hash
                        # collision) is then visited once per cell without duplicate pairs
                        if j <= i or cell[0, j] != cx or cell[1, j] != cy or cell[2, j] != cz:
                            continue
                        if (abs(box[0, i] - box[0, j]) > box[3, i] + box[3, j]
                                or abs(box[1, i] - box[1, j]) > box[4, i] + box[4, j]
                                or abs(box[2, i] - box[2, j]) > box[5, i] + box[5, j]):
                            continue
                        rj = a.rc_rod[j]
                        entry = pair_entry(a.rc_member, a.rc_self, ri, rj)
                        if entry < 0:
                            continue
                        if ri == rj and self_excluded(
                                a.rc_arc[i], a.rc_arc[j], a.rc_len[i], a.rc_len[j],
                                a.elem_radius[bi, a.rc_elem[i] * W + lane],
                                a.elem_radius[bi, a.rc_elem[j] * W + lane], a.rc_rod_len[ri]):
                            continue
                        n_box += 1
                        hit, ratio = visit(a, bi, W, lane, i, j, entry)
                        n_contact += hit
                        worst = max(worst, ratio)
    return worst, n_box, n_contact


@kernel(inline="always")
def lane_contacts(a, bi, W, lane, n_ce, mask, visit):
    """Every contact of one lane (world) through visit (pair_force or a sticking law's: forces
    into a.rc_force), its stats in a.rc_stats."""
    worst, n_box, n_contact = visit_pairs(a, bi, W, lane, n_ce, mask, visit)
    a.rc_stats[bi, 0, lane] = worst
    a.rc_stats[bi, 1, lane] = n_box
    a.rc_stats[bi, 2, lane] = n_contact


@kernel(inline="always")
def clear_rows(F):
    """F[...] = 0 for a (3, n) output."""
    for c in range(F.shape[0]):
        fc = F[c]
        for k in range(fc.shape[0]):
            fc[k] = 0.0


@kernel(inline="always")
def add_rows(out, F):
    """out += F for (3, n) arrays (a contact term's per-node forces into node_force)."""
    for c in range(F.shape[0]):
        fc = F[c]
        oc = out[c]
        for k in range(fc.shape[0]):
            oc[k] += fc[k]


@kernel(inline="always")
def block_contacts(a, bi, W, visit):
    """Every contact of block bi through visit (lane_contacts), added to a.node_force;
    a.rc_force keeps the forces per node slot, a.rc_stats the stats per lane."""
    n_ce = a.rc_node_a.shape[0]
    mask = a.rc_start.shape[1] - 2          # H - 1 (rc_start holds H + 1 entries, H = 2^m)
    clear_rows(a.rc_force[bi])
    for lane in range(W):
        lane_contacts(a, bi, W, lane, n_ce, mask, visit)
    add_rows(a.node_force[bi], a.rc_force[bi])


@kernel
def rod_rod_contacts(a, bi, W, t):
    """Add the rod-rod and self-contact forces of block bi to a.node_force (all contact terms of
    a scene with the regularized law in this one call); a.rc_force keeps them per node slot,
    a.rc_stats per lane."""
    block_contacts(a, bi, W, pair_force)


@kernel
def initial_overlaps(x0, x1, rad, arc, length, rod, rod_len, pairs, out):
    """Overlap ratio eps / (r_i + r_j) of candidate element pairs (pairs (m, 2)) of segments
    [x0, x1] (n, 3) with radii rad, by the kernel's closest points and self-contact rule (0 for
    excluded pairs): the scene's check of its initial geometry (softmech.terms.rod_contact)."""
    for p in range(pairs.shape[0]):
        i, j = pairs[p, 0], pairs[p, 1]
        out[p] = 0.0
        if rod[i] == rod[j] and self_excluded(arc[i], arc[j], length[i], length[j], rad[i],
                                              rad[j], rod_len[rod[i]]):
            continue
        s, u = segment_parameters(x0[i, 0], x0[i, 1], x0[i, 2], x1[i, 0], x1[i, 1], x1[i, 2],
                                  x0[j, 0], x0[j, 1], x0[j, 2], x1[j, 0], x1[j, 1], x1[j, 2])
        d = 0.0
        for c in range(3):
            dc = x0[j, c] + u * (x1[j, c] - x0[j, c]) - x0[i, c] - s * (x1[i, c] - x0[i, c])
            d += dc * dc
        out[p] = (rad[i] + rad[j] - np.sqrt(d)) / (rad[i] + rad[j])
