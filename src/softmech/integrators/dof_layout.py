"""Between a body kind's block arrays (softmech.packing: (c, n*W), lanes innermost per slot)
and the implicit integrator's DOF rows ((c n, W): DOF c s + i of slot s, lanes last), used by
softmech.integrators.implicit and softmech.integrators.analytic."""
import numpy as np


def kind_dofs(arr, W):
    """A kind's (c, n*W) block array -> its DOF rows (c n, W) (DOF c s + i <- arr[i, s W + l];
    c = 3, or 1 for a discrete rod's twist rates)."""
    c, n = arr.shape[0], arr.shape[1] // W
    return arr.reshape(c, n, W).transpose(1, 0, 2).reshape(c * n, W)


def kind_array(dofs, W, rows=3):
    """Inverse of kind_dofs: (rows n, W) -> (rows, n*W)."""
    n = dofs.shape[0] // rows
    return np.ascontiguousarray(dofs.reshape(n, rows, W).transpose(1, 0, 2).reshape(rows, n * W))
