"""Corotated kept Jacobians of the implicit integrator (softmech.integrators.implicit,
ImplicitOptions.corotate): a Newton matrix factored at one configuration, applied at a later
one whose bodies have turned.

The Newton matrix of a step couples velocity DOFs in world axes (node and rigid-body
velocities v) and angular-velocity DOFs in body axes (w). When the bodies turn by rotations
R_i between the configuration at which the matrix A was factored and the current one, the
current matrix is, to first order in the bodies' relative rotations (the elastic couplings of
a rod turn with its elements),

    A_now ~ D A D^T,    D = diag(R_i on the world-axis velocity DOFs, identity on w),

so A_now^{-1} r ~ D A^{-1} D^T r: the kept factor is used in the current axes by turning the
residual back into the factor's axes and the correction forward, without refactoring (the
corotational idea of Rankin and Brogan 1986 / Felippa and Haugen 2005, applied to a kept
Jacobian). A kept Jacobian that is not turned sees a stiff element's force direction a
rotation theta off, an error theta k_stiff that modified Newton amplifies by the stiff-to-soft
ratio; turned, the error is the change of the bodies' relative rotations and strains only.

R_i of a velocity DOF slot: the rotation of the frames around it since the factorization,
R_e = Q_e^T Q_e,f (Q rows: the directors; Q_f: the frame kept at the factorization), the
quaternion mean of its two adjacent frames (a rod node: the elements before and after it; a
rigid body: its own frame twice). Slot adjacency: ImplicitKindArgs.adjacent (n_x, 2).
"""
import math

from softmech.kernels import kernel


@kernel(inline="always")
def _quaternion(r00, r01, r02, r10, r11, r12, r20, r21, r22):
    """Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd 1978: the largest of
    4w^2, 4x^2, 4y^2, 4z^2 computed first, so no division by a small number)."""
    tr = r00 + r11 + r22
    if tr >= r00 and tr >= r11 and tr >= r22:
        s = 2.0 * math.sqrt(max(1.0 + tr, 1e-300))
        return 0.25 * s, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s
    if r00 >= r11 and r00 >= r22:
        s = 2.0 * math.sqrt(max(1.0 + r00 - r11 - r22, 1e-300))
        return (r21 - r12) / s, 0.25 * s, (r01 + r10) / s, (r02 + r20) / s
    if r11 >= r22:
        s = 2.0 * math.sqrt(max(1.0 + r11 - r00 - r22, 1e-300))
        return (r02 - r20) / s, (r01 + r10) / s, 0.25 * s, (r12 + r21) / s
    s = 2.0 * math.sqrt(max(1.0 + r22 - r00 - r11, 1e-300))
    return (r10 - r01) / s, (r02 + r20) / s, (r12 + r21) / s, 0.25 * s


@kernel(inline="always")
def _frame_turn(Q, Qf, k):
    """Quaternion of R = Q^T Q_f of frame column k (the turn since the factorization)."""
    return _quaternion(_entry(Q, Qf, k, 0, 0), _entry(Q, Qf, k, 0, 1), _entry(Q, Qf, k, 0, 2),
                       _entry(Q, Qf, k, 1, 0), _entry(Q, Qf, k, 1, 1), _entry(Q, Qf, k, 1, 2),
                       _entry(Q, Qf, k, 2, 0), _entry(Q, Qf, k, 2, 1), _entry(Q, Qf, k, 2, 2))


@kernel(inline="always")
def _entry(Q, Qf, k, i, j):
    """(Q^T Q_f)[i, j] of frame column k (Q[3 r + c, k]: row r, column c)."""
    return Q[i, k] * Qf[j, k] + Q[3 + i, k] * Qf[3 + j, k] + Q[6 + i, k] * Qf[6 + j, k]


@kernel
def node_rotations(a, bi, W):
    """a.Rn <- R_i of each velocity DOF slot of block bi (module docstring), rows of the 3x3
    matrix flattened, (9, n_x*W): the normalized mean of the quaternions of its two adjacent
    frames' turns (sign-aligned: q and -q are the same rotation)."""
    Q, Qf, Rn, adj = a.Q[bi], a.Qf[bi], a.Rn[bi], a.adjacent
    for s in range(adj.shape[0]):
        for lane in range(W):
            w1, x1, y1, z1 = _frame_turn(Q, Qf, adj[s, 0] * W + lane)
            w2, x2, y2, z2 = _frame_turn(Q, Qf, adj[s, 1] * W + lane)
            sign = 1.0 if w1 * w2 + x1 * x2 + y1 * y2 + z1 * z2 >= 0.0 else -1.0
            w, x, y, z = w1 + sign * w2, x1 + sign * x2, y1 + sign * y2, z1 + sign * z2
            n = 1.0 / math.sqrt(w * w + x * x + y * y + z * z)
            w, x, y, z = w * n, x * n, y * n, z * n
            k = s * W + lane
            Rn[0, k] = 1.0 - 2.0 * (y * y + z * z)
            Rn[1, k] = 2.0 * (x * y - w * z)
            Rn[2, k] = 2.0 * (x * z + w * y)
            Rn[3, k] = 2.0 * (x * y + w * z)
            Rn[4, k] = 1.0 - 2.0 * (x * x + z * z)
            Rn[5, k] = 2.0 * (y * z - w * x)
            Rn[6, k] = 2.0 * (x * z - w * y)
            Rn[7, k] = 2.0 * (y * z + w * x)
            Rn[8, k] = 1.0 - 2.0 * (x * x + y * y)


@kernel
def keep_frames(a, bi, W, lanes):
    """For the lanes with lanes[lane] != 0 (being factored now): Q_f <- Q (the frames of the
    factorization) and R_i <- identity (the factor is in the current axes)."""
    Q, Qf, Rn = a.Q[bi], a.Qf[bi], a.Rn[bi]
    for lane in range(W):
        if lanes[lane] == 0:
            continue
        for s in range(Q.shape[1] // W):
            for c in range(9):
                Qf[c, s * W + lane] = Q[c, s * W + lane]
        for s in range(Rn.shape[1] // W):
            for c in range(9):
                Rn[c, s * W + lane] = 1.0 if c % 4 == 0 else 0.0


@kernel
def rotate_dofs(a, bi, W, X, transpose):
    """X (n_dof, W) <- D^T X (transpose) or D X on the kind's velocity DOFs (R_i of a.Rn on
    each slot's 3 components); its angular-velocity DOFs (body axes) are left as they are."""
    Rn, off = a.Rn[bi], a.offsets[0]
    for s in range(Rn.shape[1] // W):
        d = off + 3 * s
        for lane in range(W):
            k = s * W + lane
            x0, x1, x2 = X[d, lane], X[d + 1, lane], X[d + 2, lane]
            if transpose:
                X[d, lane] = Rn[0, k] * x0 + Rn[3, k] * x1 + Rn[6, k] * x2
                X[d + 1, lane] = Rn[1, k] * x0 + Rn[4, k] * x1 + Rn[7, k] * x2
                X[d + 2, lane] = Rn[2, k] * x0 + Rn[5, k] * x1 + Rn[8, k] * x2
            else:
                X[d, lane] = Rn[0, k] * x0 + Rn[1, k] * x1 + Rn[2, k] * x2
                X[d + 1, lane] = Rn[3, k] * x0 + Rn[4, k] * x1 + Rn[5, k] * x2
                X[d + 2, lane] = Rn[6, k] * x0 + Rn[7, k] * x1 + Rn[8, k] * x2
