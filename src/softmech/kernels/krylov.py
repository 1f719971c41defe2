"""The pieces of restarted flexible GMRES (FGMRES, Saad 1993) that do not depend on the
preconditioner, shared by the compiled Krylov solves of the sparse Newton systems: with a
multigrid V-cycle (softmech.kernels.multigrid_cycle.fgmres) and with the (incomplete) LU
factors of SuperLU (softmech.kernels.factored_krylov.fgmres).

A solve is rounds of Arnoldi iterations, each round started from the true residual r = b - A x
(so the round-off of the correction is relative to |r|, not to |x|): `begin_round` sets
v_0 = r / |r|; after the caller writes z_j = M^-1 v_j into Z[j] and A z_j into V[j + 1],
`arnoldi` orthogonalizes it (modified Gram-Schmidt) and updates the Givens QR of the
Hessenberg matrix, whose last entry of g is the round's residual norm; `correct` adds Z y,
y = H^-1 g, to x. All scratch is in `Krylov`; nothing is allocated.
"""
import math
from collections import namedtuple

from softmech.kernels import kernel

Krylov = namedtuple("Krylov", [
    "V",        # (m + 1, n) Arnoldi basis
    "Z",        # (m, n) preconditioned basis vectors M^-1 v_j
    "H",        # (m + 1, m) Hessenberg matrix (rotated to upper triangular)
    "g",        # (m + 1,) rotated right-hand side |r| e_1
    "cs",       # (m,) Givens cosines
    "sn",       # (m,) Givens sines
    "y",        # (m,) least-squares solution
    "r",        # (n,) true residual
])


@kernel
def dot(u, v):
    """sum_i u_i v_i over (n,) arrays, in index order."""
    s = 0.0
    for i in range(u.size):
        s += u[i] * v[i]
    return s


@kernel
def begin_round(K, beta):
    """v_0 = r / beta and g_0 = beta, beta = |r| > 0: the start of a round from K.r."""
    inv = 1.0 / beta
    for i in range(K.r.size):
        K.V[0, i] = K.r[i] * inv
    K.g[0] = beta


@kernel
def arnoldi(K, j):
    """Iteration j of a round, K.V[j + 1] holding A z_j on entry: orthogonalize it against
    v_0 .. v_j (modified Gram-Schmidt) into H[:, j] and normalize it (v_{j+1}); apply the
    earlier Givens rotations to H[:, j] and a new one zeroing H[j + 1, j], which updates g
    (|g[j + 1]| is then the round's residual norm). Returns |w| (0: the Krylov space is
    exhausted)."""
    n = K.r.size
    w = K.V[j + 1]
    for i in range(j + 1):
        h = dot(w, K.V[i])
        K.H[i, j] = h
        vi = K.V[i]
        for k in range(n):
            w[k] -= h * vi[k]
    hn = math.sqrt(dot(w, w))
    K.H[j + 1, j] = hn
    if hn > 0.0:
        inv = 1.0 / hn
        for k in range(n):
            w[k] *= inv
    # earlier rotations, then a new one zeroing H[j + 1, j]
    for i in range(j):
        t = K.cs[i] * K.H[i, j] + K.sn[i] * K.H[i + 1, j]
        K.H[i + 1, j] = -K.sn[i] * K.H[i, j] + K.cs[i] * K.H[i + 1, j]
        K.H[i, j] = t
    a, c = K.H[j, j], K.H[j + 1, j]
    rho = math.hypot(a, c)
    if rho == 0.0:
        cs, sn = 1.0, 0.0
    else:
        cs, sn = a / rho, c / rho
    K.cs[j], K.sn[j] = cs, sn
    K.H[j, j] = rho
    K.H[j + 1, j] = 0.0
    K.g[j + 1] = -sn * K.g[j]
    K.g[j] = cs * K.g[j]
    return hn


@kernel
def correct(K, j, x):
    """x += Z^T y with y = H^-1 g (the upper triangular j x j part): the end of a round of j
    iterations."""
    n = x.size
    for i in range(j - 1, -1, -1):
        s = K.g[i]
        for k in range(i + 1, j):
            s -= K.H[i, k] * K.y[k]
        K.y[i] = s / K.H[i, i]
    for k in range(j):
        yk = K.y[k]
        zk = K.Z[k]
        for i in range(n):
            x[i] += yk * zk[i]
