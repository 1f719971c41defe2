"""Resistive-force (slender-body Stokes) drag on the edges of a discrete elastic rod, with the
Jacobian the implicit integrator needs.

On an edge of rest length l from node a to node b, with unit tangent t = e / |e| (e = x_b - x_a),
the local drag per unit length is f(s) = -C v(s), C = c_t t t^T + c_n (I - t t^T), and the
velocity varies linearly along the edge, v(s) = v_a (1 - s/l) + v_b s/l. Its consistent nodal
forces (virtual work with the same linear shape functions; the Rayleigh dissipation
1/2 int v.C v ds) are

    F_a = -C w_a,  F_b = -C w_b,   w_a = l (v_a / 3 + v_b / 6),  w_b = l (v_a / 6 + v_b / 3).

They hold both the translation drag -C l v (their sum) and the drag on the edge's own rotation:
an edge turning at Omega about its midpoint feels the couple -c_n Omega l^3 / 12 (the "element
rotation" couples of softmech.kernels.drag, here exact by construction). The edge's spin about
its axis (the twist rate) is resisted by -4 pi mu r^2 l theta' (a cylinder rotating in Stokes
flow; `spin` = 4 pi mu r^2 l [N m s]).

Jacobian (dF/dq + dF/dv / h): the velocity part -(l/3, l/6; l/6, l/3) (x) C / h, and the
tangent's part: with C w = c_n w - (c_n - c_t)(t.w) t and dt/de = P / |e|, P = I - t t^T,
dF_a/de = (c_n - c_t) (t w_a^T + (t.w_a) I) P / |e| (and the same with w_b), de/dx_b = I,
de/dx_a = -I.
"""
import numpy as np

from softmech.kernels import kernel


@kernel
def slender_drag_forces(q, v, edge_dofs, twist_dofs, rest_len, c_t, c_n, spin, inv_h, F, J):
    """Add the drag forces to F (n_dof,) and write-add the Jacobian entries to J
    (m * 36 + m_t,): per edge a 6 x 6 block over (x_a, x_b) row-major, then one diagonal entry
    per twist DOF.

    q, v: DOFs [m, rad] and their velocities (n_dof,); edge_dofs (m, 6) int64 (x_a, x_b);
    twist_dofs (m_t,) int64 (m_t = m, or 0 to skip the spin drag); rest_len (m,) [m];
    c_t, c_n (m,) [N s/m^2]; spin (m,) [N m s]; inv_h: 1/h [1/s] (0 in a static solve)."""
    m = edge_dofs.shape[0]
    for k in range(m):
        d = edge_dofs[k]
        e0, e1, e2 = q[d[3]] - q[d[0]], q[d[4]] - q[d[1]], q[d[5]] - q[d[2]]
        norm = np.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        t = (e0 / norm, e1 / norm, e2 / norm)
        l = rest_len[k]
        ct, cn = c_t[k], c_n[k]
        base = 36 * k
        for node in range(2):
            # w = l (v_a / 3 + v_b / 6) for node a, l (v_a / 6 + v_b / 3) for node b
            fa, fb = (1.0 / 3.0, 1.0 / 6.0) if node == 0 else (1.0 / 6.0, 1.0 / 3.0)
            w = (l * (fa * v[d[0]] + fb * v[d[3]]), l * (fa * v[d[1]] + fb * v[d[4]]),
                 l * (fa * v[d[2]] + fb * v[d[5]]))
            tw = t[0] * w[0] + t[1] * w[1] + t[2] * w[2]
            for r in range(3):
                F[d[3 * node + r]] -= cn * w[r] - (cn - ct) * tw * t[r]
            # tangent part: G = (c_n - c_t)(t w^T + (t.w) I) P / |e|; columns x_a: -G, x_b: +G
            for r in range(3):
                row = base + (3 * node + r) * 6
                for c in range(3):
                    g = 0.0
                    for j in range(3):
                        p_jc = (1.0 if j == c else 0.0) - t[j] * t[c]
                        g += (t[r] * w[j] + (tw if r == j else 0.0)) * p_jc
                    g *= (cn - ct) / norm
                    J[row + c] -= g
                    J[row + 3 + c] += g
        if inv_h != 0.0:
            # velocity part: -(l/3 on the node's own columns, l/6 on the other's) C / h
            for r in range(3):
                for c in range(3):
                    cc = (ct - cn) * t[r] * t[c] + (cn if r == c else 0.0)
                    for node in range(2):
                        row = base + (3 * node + r) * 6
                        J[row + 3 * node + c] -= cc * l / 3.0 * inv_h
                        J[row + 3 * (1 - node) + c] -= cc * l / 6.0 * inv_h
    for k in range(twist_dofs.shape[0]):
        F[twist_dofs[k]] -= spin[k] * v[twist_dofs[k]]
        J[36 * m + k] -= spin[k] * inv_h
