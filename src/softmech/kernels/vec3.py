"""3-vectors as tuples for allocation-free kernels (the shell kernels; numba keeps tuples in
registers): arithmetic, dot, cross, and a node's position read from the DOF vector."""
import numpy as np

from softmech.kernels import kernel


@kernel(inline="always")
def load(q, dofs, row, node):
    """Position (3-tuple) of the `node`-th node of stencil `row`: q at dofs[row, 3 node + 0..2]."""
    return (q[dofs[row, 3 * node]], q[dofs[row, 3 * node + 1]], q[dofs[row, 3 * node + 2]])


@kernel(inline="always")
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel(inline="always")
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@kernel(inline="always")
def scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


@kernel(inline="always")
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel(inline="always")
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel(inline="always")
def norm(a):
    return np.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@kernel(inline="always")
def add_outer(J, base, stride, r0, c0, coef, a, b):
    """J[base + stride (r0 + i) + c0 + j] += coef a[i] b[j] for i, j in 0..2 (a block of a
    row-major stride x stride matrix stored flat)."""
    for i in range(3):
        for j in range(3):
            J[base + stride * (r0 + i) + c0 + j] += coef * a[i] * b[j]


@kernel(inline="always")
def skew(a, i, j):
    """Entry (i, j) of the cross-product matrix [a]x (so that [a]x b = a x b)."""
    if i == j:
        return 0.0
    if i == 0:
        return -a[2] if j == 1 else a[1]
    if i == 1:
        return a[2] if j == 0 else -a[0]
    return -a[1] if j == 0 else a[0]
