"""Mid-edge normal bending of a discrete shell (ref. 004 section 3.3.2, eqs. 19-20 and Appendix
A; Grinspun et al. 2006, "Computing discrete shape operators on general meshes", section 4.3).

Each edge e carries a scalar DOF xi_e: the projection of its mid-edge normal on tau_e, the unit
vector perpendicular to the edge in the surface, tau_e = e_hat x n0_e with n0_e the unit sum of
its faces' normals; (tau_e, n0_e) are set at the start of each step (softmech.bodies.shell), as in
DisMech. In triangle t with unit normal n, edge i (opposite node i) has the rest in-plane outward
unit normal t_i, the sign s_i = +-1 of t_i . tau_e, and

    a_i = (l_i / A) (s_i xi_i - n . c_i) / (n . n0_i),      c_i = s_i tau_i,

the mid-edge normal's tilt towards t_i ((m - n) . tau / (t_hat . tau) of ref. 004 eq. 19, with
t_hat . tau = n . n0 exactly when the edge has not turned since the frames were set). The
shape operator is S = sum_i a_i t_i t_i^T (eq. 19) and the energy (eq. 20)

    E = D/2 A [(1 - nu) tr((S - S_bar)^2) + nu tr(S - S_bar)^2]
      = 1/2 sum_ij K_ij (a_i - a_bar_i)(a_j - a_bar_j),   K_ij = D A ((1 - nu)(t_i . t_j)^2 + nu),

D = E h^3 / (12 (1 - nu^2)). As in Appendix A (thin shells: the membrane keeps the triangles'
shape), the in-plane quantities l_i, A, t_i are the rest ones; the energy then depends on the node
positions through the unit normal n only, and its gradient and Hessian below are exact for it
(checked against finite differences in tests/properties/test_shell_energies.py):

    grad a_i = l_i/A [-grad u_i / v_i - r_i grad v_i / v_i^2,  s_i / v_i on xi_i],
    u_i = n . c_i, v_i = n . n0_i, r_i = s_i xi_i - u_i,
    Hess E = sum_ij K_ij grad a_i grad a_j^T + sum_i lambda_i Hess a_i,  lambda = K (a - a_bar),

where the second derivatives of n . c (linear in c) are gathered into one Hess(n . w).
"""

from softmech.kernels import kernel
from softmech.kernels.vec3 import cross, dot, load, norm, scale, skew, sub


@kernel(inline="always")
def _normal(q, dofs, t):
    x0, x1, x2 = load(q, dofs, t, 0), load(q, dofs, t, 1), load(q, dofs, t, 2)
    e1, e2 = sub(x1, x0), sub(x2, x0)
    N = cross(e1, e2)
    lN = norm(N)
    return scale(1.0 / lN, N), lN, e1, e2


@kernel(inline="always")
def _frame(tri_edges, sign, tau, nrm0, t, i):
    e = tri_edges[t, i]
    s = sign[t, i]
    return s, (s * tau[e, 0], s * tau[e, 1], s * tau[e, 2]), (nrm0[e, 0], nrm0[e, 1], nrm0[e, 2])


@kernel(inline="always")
def _grad_ndot(n, lN, e1, e2, c, out, row):
    """out[row, 0:9] = d(n . c)/d(x0, x1, x2) = A^T P c / |N| with dN = A dx (N = e1 x e2)."""
    pc = sub(c, scale(dot(n, c), n))
    g = scale(1.0 / lN, pc)
    w0 = sub(e2, e1)
    b0, b1, b2 = cross(g, w0), cross(e2, g), cross(g, e1)
    for k in range(3):
        out[row, k] = b0[k]
        out[row, 3 + k] = b1[k]
        out[row, 6 + k] = b2[k]


@kernel
def midedge_energy(q, dofs, tri_edges, sign, tau, nrm0, length_over_area, K, rest):
    """Total mid-edge bending energy [J]. q (n_dof,); dofs (n_tris, 12) int64: x, y, z of the
    three nodes then xi of the edges opposite them; tri_edges (n_tris, 3) edge ids; sign (n_tris,
    3) s_i; tau, nrm0 (n_edges, 3) the edge frames; length_over_area l_i/A [1/m] (n_tris, 3);
    K (n_tris, 9) [J m^2] row-major; rest a_bar (n_tris, 3) [1/m]."""
    total = 0.0
    for t in range(dofs.shape[0]):
        n, lN, e1, e2 = _normal(q, dofs, t)
        d0 = _delta(q, dofs, tri_edges, sign, tau, nrm0, length_over_area, rest, n, t, 0)
        d1 = _delta(q, dofs, tri_edges, sign, tau, nrm0, length_over_area, rest, n, t, 1)
        d2 = _delta(q, dofs, tri_edges, sign, tau, nrm0, length_over_area, rest, n, t, 2)
        d = (d0, d1, d2)
        for i in range(3):
            for j in range(3):
                total += 0.5 * K[t, 3 * i + j] * d[i] * d[j]
    return total


@kernel(inline="always")
def _delta(q, dofs, tri_edges, sign, tau, nrm0, length_over_area, rest, n, t, i):
    s, c, d = _frame(tri_edges, sign, tau, nrm0, t, i)
    return length_over_area[t, i] * (s * q[dofs[t, 9 + i]] - dot(n, c)) / dot(n, d) - rest[t, i]


@kernel
def midedge_forces(q, dofs, tri_edges, sign, tau, nrm0, length_over_area, K, rest, work,
                   want_jac, F, J):
    """Add forces -dE/dq to F (n_dof,) and, if want_jac, the Jacobian -d2E/dq2 to J
    (144 n_tris,), triangle t's 12 x 12 block row-major at J[144 t:144 (t + 1)] in the order of
    `dofs` (J unused without it). work: scratch (>= 150,) float64 (kernels do not allocate).
    Arguments as midedge_energy."""
    ga = work[0:36].reshape((3, 12))       # grad a_i over the 12 stencil DOFs
    gu = work[36:63].reshape((3, 9))       # grad u_i
    gv = work[63:90].reshape((3, 9))       # grad v_i
    for t in range(dofs.shape[0]):
        n, lN, e1, e2 = _normal(q, dofs, t)
        r = (0.0, 0.0, 0.0)
        v = (0.0, 0.0, 0.0)
        da = (0.0, 0.0, 0.0)
        for i in range(3):
            s, c, d = _frame(tri_edges, sign, tau, nrm0, t, i)
            _grad_ndot(n, lN, e1, e2, c, gu, i)
            _grad_ndot(n, lN, e1, e2, d, gv, i)
            vi = dot(n, d)
            ri = s * q[dofs[t, 9 + i]] - dot(n, c)
            L = length_over_area[t, i]
            for k in range(9):
                ga[i, k] = L * (-gu[i, k] / vi - ri * gv[i, k] / (vi * vi))
            for k in range(3):
                ga[i, 9 + k] = L * s / vi if k == i else 0.0
            r = _set(r, i, ri)
            v = _set(v, i, vi)
            da = _set(da, i, L * ri / vi - rest[t, i])
        lam = (0.0, 0.0, 0.0)
        for i in range(3):
            li = 0.0
            for j in range(3):
                li += K[t, 3 * i + j] * da[j]
            lam = _set(lam, i, li)
        for k in range(12):
            g = lam[0] * ga[0, k] + lam[1] * ga[1, k] + lam[2] * ga[2, k]
            F[dofs[t, k]] -= g
        if not want_jac:
            continue
        base = 144 * t
        # Gauss-Newton part: sum_ij K_ij grad a_i grad a_j^T
        for i in range(3):
            for j in range(3):
                kij = K[t, 3 * i + j]
                for a in range(12):
                    for b in range(12):
                        J[base + 12 * a + b] -= kij * ga[i, a] * ga[j, b]
        # curvature part: sum_i lambda_i Hess a_i
        w = (0.0, 0.0, 0.0)
        for i in range(3):
            s, c, d = _frame(tri_edges, sign, tau, nrm0, t, i)
            L = length_over_area[t, i]
            coef = lam[i] * L
            w = (w[0] - coef * (c[0] / v[i] + r[i] * d[0] / (v[i] * v[i])),
                 w[1] - coef * (c[1] / v[i] + r[i] * d[1] / (v[i] * v[i])),
                 w[2] - coef * (c[2] / v[i] + r[i] * d[2] / (v[i] * v[i])))
            # -(grad r grad v^T + grad v grad r^T)/v^2 + 2 r grad v grad v^T / v^3, grad r =
            # (-grad u, s on xi_i)
            c1 = -coef / (v[i] * v[i])
            c2 = 2.0 * coef * r[i] / (v[i] * v[i] * v[i])
            for a in range(9):
                for b in range(9):
                    J[base + 12 * a + b] -= (c1 * (-gu[i, a] * gv[i, b] - gv[i, a] * gu[i, b])
                                             + c2 * gv[i, a] * gv[i, b])
                J[base + 12 * a + 9 + i] -= c1 * gv[i, a] * s
                J[base + 12 * (9 + i) + a] -= c1 * s * gv[i, a]
        _add_hess_ndot(n, lN, e1, e2, w, J, base)


@kernel(inline="always")
def _set(tup, i, value):
    if i == 0:
        return (value, tup[1], tup[2])
    if i == 1:
        return (tup[0], value, tup[2])
    return (tup[0], tup[1], value)


@kernel(inline="always")
def _add_hess_ndot(n, lN, e1, e2, w, J, base):
    """J (12 x 12 block at base, node rows/cols 0..8) -= Hess_x (n . w) for a constant w.

    n . w = f(N), N = e1 x e2: Hess = A^T H_N A + H2, with dN = A dx, A_p = [w_p]x (w_0 = e2 - e1,
    w_1 = -e2, w_2 = e1), H_N = -[(P w) n^T + n (P w)^T + (n . w) P] / |N|^2 (P = I - n n^T), and
    H2 from N's second derivative: g . (de1 x de2' + de1' x de2), g = P w / |N|, i.e. blocks
    s1_p s2_q M + s2_p s1_q M^T with M = -[g]x, s1 = (-1, 1, 0), s2 = (-1, 0, 1)."""
    nw = dot(n, w)
    pw = sub(w, scale(nw, n))
    inv2 = 1.0 / (lN * lN)
    g = scale(1.0 / lN, pw)
    ws = (sub(e2, e1), scale(-1.0, e2), e1)
    s1 = (-1.0, 1.0, 0.0)
    s2 = (-1.0, 0.0, 1.0)
    for p in range(3):
        for qq in range(3):
            a = ws[p]
            b = ws[qq]
            for i in range(3):
                for j in range(3):
                    # (A_p^T H_N A_q)_ij = -sum_kl [a]x_ik H_kl [b]x_lj
                    acc = 0.0
                    for k in range(3):
                        sik = skew(a, i, k)
                        if sik == 0.0:
                            continue
                        for l in range(3):
                            slj = skew(b, l, j)
                            if slj == 0.0:
                                continue
                            hkl = -(pw[k] * n[l] + n[k] * pw[l]
                                    + nw * ((1.0 if k == l else 0.0) - n[k] * n[l])) * inv2
                            acc -= sik * hkl * slj
                    m_ij = -skew(g, i, j)
                    acc += s1[p] * s2[qq] * m_ij + s2[p] * s1[qq] * (-skew(g, j, i))
                    J[base + 12 * (3 * p + i) + 3 * qq + j] -= acc
