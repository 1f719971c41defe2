"""Analytic Jacobian entries of a force term in the implicit integrator of the unified engine
(softmech.integrators.implicit, softmech.integrators.analytic).

A term that knows the derivative of its forces with respect to its body kind's coordinates,
dF/dq (e.g. the discrete rods' stretching, bending and twisting: their Hessians, which the
discrete engine uses too), writes it per lane into AnalyticArgs.values in its own entry order;
add_analytic adds it to the Newton matrix. With the implicit Euler step of the velocities u
(softmech.kernels.implicit_motion: q = q_b + h u, a = F / m on free DOFs),

    dR_i/du_j = -h^2 (1/m_i) dF_i/dq_j             (F a function of the coordinates alone)

on free rows i and free columns j; a held row (u - P(u)) or column (its coordinate set by a
constraint) has no such entry (Hairer and Wanner, Solving ODEs II, IV.8).
"""
from collections import namedtuple

from softmech.kernels import kernel

AnalyticArgs = namedtuple("AnalyticArgs", [
    "values",    # (n_blocks, W, k) dF/dq of each entry [N/m, N, N m], written per lane
    "rows",      # (k,) int64: the DOF (row of the Newton matrix) of each entry
    "cols",      # (k,) int64: its column
    "pos",       # (k,) int64: its position in the factor's values (softmech.kernels.sparse_lu)
])
"""One analytic term's entries (softmech.integrators.analytic)."""


@kernel
def add_analytic(a, bi, W, h, inv_mass, free, vals, lanes):
    """vals[pos, lane] -= h^2 inv_mass[row, lane] free[row, lane] free[col, lane] dF/dq for
    every entry of term `a` and every lane flagged in lanes (W,).

    inv_mass (n_dof, W) [1/kg or 1/(kg m^2)]: 1/m of each DOF's row; free (n_dof, W): 1.0 on
    free DOFs, 0.0 on held ones; vals (nnz, W): the factor's values of block bi."""
    values = a.values[bi]
    h2 = h * h
    for k in range(a.rows.shape[0]):
        r = a.rows[k]
        c = a.cols[k]
        p = a.pos[k]
        for lane in range(W):
            if lanes[lane] != 0:
                vals[p, lane] -= h2 * inv_mass[r, lane] * free[r, lane] * free[c, lane] \
                    * values[lane, k]
