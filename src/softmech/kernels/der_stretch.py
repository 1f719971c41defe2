"""Stretching springs of discrete elastic rods (MAT-DiSMech, ref. 004 sec. 3.1, eqs. 9-10).

Edge j between nodes x0, x1 with rest length l^_j and stiffness EA_j [N]:
    eps_j = |x1 - x0| / l^_j - 1                                   (ref. 004 eq. 9)
    E_j   = 1/2 EA_j l^_j eps_j^2                                  (ref. 004 eq. 10)
With e = x1 - x0, u = e / |e| (|e| = l):
    dE/de     = EA eps u
    d2E/de2   = EA / l^ u u^T + EA eps / l (I - u u^T)
and dE/dx0 = -dE/de, dE/dx1 = dE/de (d2E/dx0dx1 = -d2E/de2).
"""
import math

from softmech.kernels import kernel


@kernel
def der_stretch_forces(q, edge_dofs, rest_len, EA, want_jac, F, J):
    """Add the stretching forces F -= dE/dq [N] and, if want_jac, their Jacobian J -= d2E/dq2
    [N/m] (36 entries per edge, row-major over the edge's 6 DOFs (x0, y0, z0, x1, y1, z1)).

    q: (n_dof,); edge_dofs: (m, 6) int64; rest_len: (m,) [m]; EA: (m,) [N] (or (1,) shared:
    read EA[j % EA.shape[0]]). F: (n_dof,); J: (36 m,) (unused when want_jac is False).
    Returns the stretching energy [J].
    """
    energy = 0.0
    n_ea = EA.shape[0]
    for j in range(edge_dofs.shape[0]):
        d = edge_dofs[j]
        e0 = q[d[3]] - q[d[0]]
        e1 = q[d[4]] - q[d[1]]
        e2 = q[d[5]] - q[d[2]]
        length = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        lbar = rest_len[j]
        ea = EA[j % n_ea]
        eps = length / lbar - 1.0
        energy += 0.5 * ea * lbar * eps * eps
        inv_l = 1.0 / length
        u = (e0 * inv_l, e1 * inv_l, e2 * inv_l)
        g = ea * eps
        for k in range(3):
            F[d[k]] += g * u[k]
            F[d[3 + k]] -= g * u[k]
        if want_jac:
            a = ea / lbar
            c = ea * eps * inv_l
            base = 36 * j
            for r in range(3):
                for s in range(3):
                    h = (a - c) * u[r] * u[s]
                    if r == s:
                        h += c
                    # J = -Hessian: blocks [[-H, H], [H, -H]]
                    J[base + r * 6 + s] -= h
                    J[base + r * 6 + 3 + s] += h
                    J[base + (3 + r) * 6 + s] += h
                    J[base + (3 + r) * 6 + 3 + s] -= h
    return energy
