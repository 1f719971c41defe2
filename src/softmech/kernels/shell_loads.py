"""Loads on the triangles of a discrete shell, with their Jacobians for the implicit integrator
(softmech.terms.shell_loads): a uniform pressure that follows the normals, and DisMech's
aerodynamic drag (ref. 004 section 5.4 and Appendix B).

Triangle t = (x0, x1, x2), N = (x1 - x0) x (x2 - x0) = 2 A n, and dN = sum_k [w_k]x dx_k with
w_0 = x2 - x1, w_1 = x0 - x2, w_2 = x1 - x0 (the edge opposite node k, along the triangle).
"""

from softmech.kernels import kernel
from softmech.kernels.vec3 import cross, dot, load, norm, scale, skew, sub


@kernel
def pressure_forces(q, dofs, pressure, want_jac, F, J):
    """Pressure p [Pa] on every triangle along its normal n (positive p pushes towards +n; a
    follower load): each node gets p A n / 3 = p N / 6. J (81 n_tris,), added to if want_jac:
    block (a, k) of triangle t is dF_a/dx_k = p/6 [w_k]x, row-major 9 x 9 at J[81 t:81 (t + 1)].
    dofs (n_tris, 9) int64."""
    c = pressure / 6.0
    for t in range(dofs.shape[0]):
        x0, x1, x2 = load(q, dofs, t, 0), load(q, dofs, t, 1), load(q, dofs, t, 2)
        N = cross(sub(x1, x0), sub(x2, x0))
        w = (sub(x2, x1), sub(x0, x2), sub(x1, x0))
        base = 81 * t
        for a in range(3):
            for i in range(3):
                F[dofs[t, 3 * a + i]] += c * N[i]
                if not want_jac:
                    continue
                for k in range(3):
                    for j in range(3):
                        J[base + 9 * (3 * a + i) + 3 * k + j] += c * skew(w[k], i, j)


@kernel
def drag_forces(q, v, inv_h, dofs, rest_area, coefficient, want_jac, F, J):
    """DisMech's aerodynamic drag (ref. 004 section 5.4): every triangle t pushes each of its
    nodes i against the normal component of the node's velocity,

        F_i += -c A_t / 3 (v_i . n)|v_i . n| n,   c = 1/2 rho C_d (`coefficient` [kg/m^3]),

    A_t the rest area; Jacobian dF/dq + dF/dv / h (Appendix B): with s = v_i . n,
        dF_i/dv_i = -c A/3 2|s| n n^T,
        dF_i/dx_k = -c A/3 (2|s| n v_i^T + s|s| I) dn/dx_k,  dn/dx_k = (I - n n^T)[w_k]x / |N|.
    q, v (n_dof,) positions [m] and velocities [m/s]; inv_h = 1/h [1/s] (0 in a static solve);
    dofs (n_tris, 9); rest_area (n_tris,) [m^2]; J (81 n_tris,) as pressure_forces, added to
    if want_jac."""
    for t in range(dofs.shape[0]):
        x0, x1, x2 = load(q, dofs, t, 0), load(q, dofs, t, 1), load(q, dofs, t, 2)
        N = cross(sub(x1, x0), sub(x2, x0))
        lN = norm(N)
        n = scale(1.0 / lN, N)
        w = (sub(x2, x1), sub(x0, x2), sub(x1, x0))
        cA = coefficient * rest_area[t] / 3.0
        base = 81 * t
        for a in range(3):
            u = load(v, dofs, t, a)
            s = dot(u, n)
            mag = abs(s)
            for i in range(3):
                F[dofs[t, 3 * a + i]] -= cA * s * mag * n[i]
            if mag == 0.0 or not want_jac:
                continue
            for i in range(3):
                for j in range(3):
                    J[base + 9 * (3 * a + i) + 3 * a + j] -= cA * 2.0 * mag * n[i] * n[j] * inv_h
            for k in range(3):
                for i in range(3):
                    for j in range(3):
                        # (2|s| n v^T + s|s| I)_il (P [w_k]x)_lj / |N|
                        acc = 0.0
                        for l in range(3):
                            m_il = 2.0 * mag * n[i] * u[l] + (s * mag if i == l else 0.0)
                            pw = 0.0
                            for r in range(3):
                                p_lr = (1.0 if l == r else 0.0) - n[l] * n[r]
                                pw += p_lr * skew(w[k], r, j)
                            acc += m_il * pw
                        J[base + 9 * (3 * a + i) + 3 * k + j] -= cA * acc / lN
