"""Hinge bending of a discrete shell (ref. 004 section 3.3.1, eq. 17; Grinspun et al. 2003,
"Discrete shells"), with the analytic gradient and Hessian of the dihedral angle of Tamstorf &
Grinspun 2013, "Discrete bending forces and their Jacobians" (section 3: the gradient from the
normals n_i over the heights h_i, the Hessian from the blocks M, B, N built from the in-plane
edge normals m_i).

Stencil (softmech.bodies.meshes.hinges): x0 -> x1 the hinge edge e0, x2 and x3 the opposite nodes,
triangle (x0, x1, x2) with unit normal n1 and triangle (x1, x0, x3) with unit normal n2. The signed
hinge angle and the energy

    theta = atan2((n1 x n2) . e0/|e0|, n1 . n2)            (0 for a flat hinge),
    E = 1/2 k (theta - theta_bar)^2,

k [J] per hinge (softmech.bodies.shell: k = D |e0_bar|^2 / (A1_bar + A2_bar), the Grinspun 2003
weight, equal to DisMech's k_b = 2 D / sqrt(3) on an equilateral mesh).
"""
import numpy as np

from softmech.kernels import kernel
from softmech.kernels.vec3 import add, add_outer, cross, dot, load, norm, scale, sub


@kernel(inline="always")
def hinge_frame(x0, x1, x2, x3):
    """The hinge of nodes x0..x3 (3-tuples [m]): its edge vectors e = (e0, .., e4), the unit
    normals n1, n2, the arguments (y, x) of theta = atan2(y, x) (the atan2 call is left to the
    caller: its libm has no SIMD form, softmech.kernels.shell_lanes calls it in a loop of its
    own), l0 = |e0|, a1 = |e0 x e1| and a2 = |e2 x e0| (twice the triangles' areas [m^2]), and
    r1 = 1 / (l0 a1), r2 = 1 / (l0 a2) [1/m^3]: 3 square roots and 2 divisions, from which the
    gradient needs no more (hinge_gradient)."""
    e0, e1, e2, e3, e4 = sub(x1, x0), sub(x2, x0), sub(x3, x0), sub(x2, x1), sub(x3, x1)
    c1, c2 = cross(e0, e1), cross(e2, e0)
    l0, a1, a2 = norm(e0), norm(c1), norm(c2)
    r1 = 1.0 / (l0 * a1)
    r2 = 1.0 / (l0 * a2)
    n1 = scale(l0 * r1, c1)             # c1 / a1
    n2 = scale(l0 * r2, c2)
    y = dot(cross(n1, n2), e0) * (a1 * r1)          # (n1 x n2) . e0 / l0
    return (e0, e1, e2, e3, e4), n1, n2, y, dot(n1, n2), l0, a1, a2, r1, r2


@kernel(inline="always")
def _geometry(q, dofs, h):
    """Hinge h's hinge_frame (its atan2 arguments replaced by theta [rad])."""
    e, n1, n2, y, x, l0, a1, a2, r1, r2 = hinge_frame(
        load(q, dofs, h, 0), load(q, dofs, h, 1), load(q, dofs, h, 2), load(q, dofs, h, 3))
    return e, n1, n2, np.arctan2(y, x), l0, a1, a2, r1, r2


@kernel(inline="always")
def hinge_gradient(e, n1, n2, l0, r1, r2):
    """grad theta of the hinge (Tamstorf & Grinspun 2013, section 3), its four nodes'
    3-tuples, from hinge_frame's values: with the angles alpha_i of the stencil at x0 (i = 1,
    2) and x1 (3, 4), the heights h_i = l0 sin alpha_i and h01, h02 of x2, x3 over the hinge
    edge,

        g0 = cos a3 / h3 n1 + cos a4 / h4 n2,   g1 = cos a1 / h1 n1 + cos a2 / h2 n2,
        g2 = -n1 / h01,                           g3 = -n2 / h02,

    where cos a1 / h1 = (e0 . e1) / (l0 |e0 x e1|) = (e0 . e1) r1 (e3 = e1 - e0, so
    |e0 x e3| = a1 and cos a3 / h3 = -(e0 . e3) r1; likewise a2 for alpha2 and alpha4) and
    1 / h01 = l0 / a1 = l0^2 r1: multiplications only (the paper's cosines over heights took
    12 square roots and 17 divisions per hinge, which bound the shells' force pass)."""
    e0, e1, e2, e3, e4 = e
    q = l0 * l0
    return (add(scale(-dot(e0, e3) * r1, n1), scale(-dot(e0, e4) * r2, n2)),
            add(scale(dot(e0, e1) * r1, n1), scale(dot(e0, e2) * r2, n2)),
            scale(-q * r1, n1),
            scale(-q * r2, n2))


@kernel(inline="always")
def hinge_stencil(e, l0, a1, a2):
    """What the Hessian of theta needs besides the gradient (Tamstorf & Grinspun 2013): the
    edge lengths (l1..l4) [m], the cosines of alpha1..alpha4 and the heights (h1..h4, h01,
    h02) [m] (hinge_gradient's docstring; h1 = l0 sin alpha1 = a1 / l1, h01 = a1 / l0)."""
    e0, e1, e2, e3, e4 = e
    l1, l2, l3, l4 = norm(e1), norm(e2), norm(e3), norm(e4)
    cosines = (dot(e0, e1) / (l0 * l1), dot(e0, e2) / (l0 * l2),
               -dot(e0, e3) / (l0 * l3), -dot(e0, e4) / (l0 * l4))
    return (l1, l2, l3, l4), cosines, (a1 / l1, a2 / l2, a1 / l3, a2 / l4, a1 / l0, a2 / l0)


@kernel
def hinge_angles(q, dofs, out):
    """Signed hinge angles theta [rad] into out (n_hinges,). q: DOFs (n_dof,); dofs (n_hinges,
    12) int64: the x, y, z DOFs of x0, x1, x2, x3."""
    for h in range(dofs.shape[0]):
        out[h] = _geometry(q, dofs, h)[3]


@kernel
def hinge_energy(q, dofs, rest_angle, stiffness):
    """Total hinge bending energy [J]: sum of 1/2 k (theta - theta_bar)^2; rest_angle [rad] and
    stiffness k [J]: (n_hinges,)."""
    total = 0.0
    for h in range(dofs.shape[0]):
        d = _geometry(q, dofs, h)[3] - rest_angle[h]
        total += 0.5 * stiffness[h] * d * d
    return total


@kernel
def hinge_forces(q, dofs, rest_angle, stiffness, want_jac, F, J):
    """Add forces -dE/dq to F (n_dof,) [N] and, if want_jac, the Jacobian -d2E/dq2 to J
    (144 n_hinges,), hinge h's 12 x 12 block row-major at J[144 h:144 (h + 1)] in the order of
    `dofs` (J unused without it: the unified engine's residuals, whose Jacobian is probed).

    dE/dq = k (theta - theta_bar) grad theta, d2E/dq2 = k (grad theta grad theta^T +
    (theta - theta_bar) Hess theta), grad and Hess of theta by Tamstorf & Grinspun 2013."""
    for h in range(dofs.shape[0]):
        e, n1, n2, theta, l0, a1, a2, r1, r2 = _geometry(q, dofs, h)
        g = hinge_gradient(e, n1, n2, l0, r1, r2)
        k = stiffness[h]
        d = theta - rest_angle[h]
        for a in range(4):
            for c in range(3):
                F[dofs[h, 3 * a + c]] -= k * d * g[a][c]
        if not want_jac:
            continue
        base = 144 * h
        for a in range(4):
            for b in range(4):
                add_outer(J, base, 12, 3 * a, 3 * b, -k, g[a], g[b])
        if d == 0.0:
            continue
        e0, e1, e2, e3, e4 = e
        lengths, cosines, heights = hinge_stencil(e, l0, a1, a2)
        l1, l2, l3, l4 = lengths
        cos1, cos2, cos3, cos4 = cosines
        h1, h2, h3, h4, h01, h02 = heights
        # in-plane unit normals of the stencil's edges (Tamstorf & Grinspun 2013, Fig. 1)
        m1 = scale(1.0 / l1, cross(n1, e1))
        m2 = scale(-1.0 / l2, cross(n2, e2))
        m3 = scale(-1.0 / l3, cross(n1, e3))
        m4 = scale(1.0 / l4, cross(n2, e4))
        m01 = scale(-1.0 / l0, cross(n1, e0))
        m02 = scale(1.0 / l0, cross(n2, e0))
        c = -k * d                              # J += -k d Hess theta, block by block
        iq = 1.0 / (l0 * l0)
        # (0, 0): M331 + M331^T - B1 + M442 + M442^T - B2
        _sym(J, base, 0, 0, c * cos3 / (h3 * h3), m3, n1)
        _sym(J, base, 0, 0, c * cos4 / (h4 * h4), m4, n2)
        add_outer(J, base, 12, 0, 0, -c * iq, n1, m01)
        add_outer(J, base, 12, 0, 0, -c * iq, n2, m02)
        # (1, 1): M111 + M111^T - B1 + M222 + M222^T - B2
        _sym(J, base, 3, 3, c * cos1 / (h1 * h1), m1, n1)
        _sym(J, base, 3, 3, c * cos2 / (h2 * h2), m2, n2)
        add_outer(J, base, 12, 3, 3, -c * iq, n1, m01)
        add_outer(J, base, 12, 3, 3, -c * iq, n2, m02)
        # (0, 1) = M311 + M131^T + B1 + M422 + M242^T + B2, and (1, 0) its transpose
        _pair(J, base, 0, 3, c * cos3 / (h3 * h1), m1, n1)
        _pair(J, base, 0, 3, c * cos1 / (h1 * h3), n1, m3)
        _pair(J, base, 0, 3, c * iq, n1, m01)
        _pair(J, base, 0, 3, c * cos4 / (h4 * h2), m2, n2)
        _pair(J, base, 0, 3, c * cos2 / (h2 * h4), n2, m4)
        _pair(J, base, 0, 3, c * iq, n2, m02)
        # (0, 2) = M3011 - N13, (0, 3) = M4022 - N24, (1, 2) = M1011 - N11, (1, 3) = M2022 - N22
        _pair(J, base, 0, 6, c * cos3 / (h3 * h01), m01, n1)
        _pair(J, base, 0, 6, -c / (h01 * h3), n1, m3)
        _pair(J, base, 0, 9, c * cos4 / (h4 * h02), m02, n2)
        _pair(J, base, 0, 9, -c / (h02 * h4), n2, m4)
        _pair(J, base, 3, 6, c * cos1 / (h1 * h01), m01, n1)
        _pair(J, base, 3, 6, -c / (h01 * h1), n1, m1)
        _pair(J, base, 3, 9, c * cos2 / (h2 * h02), m02, n2)
        _pair(J, base, 3, 9, -c / (h02 * h2), n2, m2)
        # (2, 2) = -(N101 + N101^T), (3, 3) = -(N202 + N202^T)
        _sym(J, base, 6, 6, -c / (h01 * h01), n1, m01)
        _sym(J, base, 9, 9, -c / (h02 * h02), n2, m02)


@kernel(inline="always")
def _sym(J, base, r0, c0, coef, a, b):
    """Block (r0, c0) += coef (a b^T + b a^T)."""
    add_outer(J, base, 12, r0, c0, coef, a, b)
    add_outer(J, base, 12, r0, c0, coef, b, a)


@kernel(inline="always")
def _pair(J, base, r0, c0, coef, a, b):
    """Block (r0, c0) += coef a b^T and block (c0, r0) += coef b a^T (the symmetric pair)."""
    add_outer(J, base, 12, r0, c0, coef, a, b)
    add_outer(J, base, 12, c0, r0, coef, b, a)
