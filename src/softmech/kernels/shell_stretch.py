"""Stretching springs on the edges of a discrete shell (ref. 004 section 3.1, eqs. 9-10):

    eps = |x1 - x0| / l0 - 1,      E = 1/2 k eps^2,

k [J] per edge (for a shell edge DisMech's k = sqrt(3)/2 E h l0^2, softmech.bodies.shell). Energy,
forces -dE/dq and the Jacobian -d2E/dq2 of one world, per spring, for the implicit integrator.

This is the shells' own edge-spring kernel (the discrete-rod stretching of softmech.bodies.der_rod
is the same energy with k = E A l0): the two can be merged into one kernel.
"""
import numpy as np

from softmech.kernels import kernel


@kernel
def stretch_energy(q, dofs, rest_length, stiffness):
    """Total stretching energy [J]. q: DOFs (n_dof,); dofs: (n_springs, 6) int64, the x, y, z
    DOFs of node 0 then node 1; rest_length l0 [m], stiffness k [J]: (n_springs,)."""
    total = 0.0
    for s in range(dofs.shape[0]):
        d2 = 0.0
        for c in range(3):
            e = q[dofs[s, 3 + c]] - q[dofs[s, c]]
            d2 += e * e
        eps = np.sqrt(d2) / rest_length[s] - 1.0
        total += 0.5 * stiffness[s] * eps * eps
    return total


@kernel(inline="always")
def spring_pull(e0, e1, e2, l0, k):
    """(g, u0, u1, u2, |e|) of a spring of rest length l0 [m] and stiffness k [J] stretched to
    the edge vector e = x1 - x0 [m]: g = k eps / l0 [N] (eps = |e| / l0 - 1) and the unit
    direction u = e / |e|; the force on x0 is +g u, on x1 -g u."""
    length = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
    eps = length / l0 - 1.0
    return k * eps / l0, e0 / length, e1 / length, e2 / length, length


@kernel
def stretch_forces(q, dofs, rest_length, stiffness, want_jac, F, J):
    """Add forces -dE/dq to F (n_dof,) [N] and, if want_jac, the Jacobian -d2E/dq2 to J
    (36 n_springs,), spring s's 6 x 6 block row-major at J[36 s:36 (s + 1)] in the order of
    `dofs` (J unused without it).

    Per spring, with u = (x1 - x0)/|x1 - x0|:  dE/dx1 = k eps / l0 u = -dE/dx0,
    d2E/dx1^2 = k / l0^2 u u^T + k eps / (l0 |x1 - x0|) (I - u u^T)  (blocks +H, -H, -H, +H)."""
    for s in range(dofs.shape[0]):
        e0 = q[dofs[s, 3]] - q[dofs[s, 0]]
        e1 = q[dofs[s, 4]] - q[dofs[s, 1]]
        e2 = q[dofs[s, 5]] - q[dofs[s, 2]]
        l0 = rest_length[s]
        k = stiffness[s]
        g, u0, u1, u2, length = spring_pull(e0, e1, e2, l0, k)
        F[dofs[s, 0]] += g * u0
        F[dofs[s, 1]] += g * u1
        F[dofs[s, 2]] += g * u2
        F[dofs[s, 3]] -= g * u0
        F[dofs[s, 4]] -= g * u1
        F[dofs[s, 5]] -= g * u2
        if not want_jac:
            continue
        a = k / (l0 * l0)
        b = g / length
        base = 36 * s
        for r in range(3):
            ur = u0 if r == 0 else (u1 if r == 1 else u2)
            for c in range(3):
                uc = u0 if c == 0 else (u1 if c == 1 else u2)
                h = (a - b) * ur * uc + (b if r == c else 0.0)
                # dF/dq = -Hessian: -H on the diagonal blocks, +H off the diagonal
                J[base + 6 * r + c] -= h
                J[base + 6 * r + c + 3] += h
                J[base + 6 * (r + 3) + c] += h
                J[base + 6 * (r + 3) + c + 3] -= h
