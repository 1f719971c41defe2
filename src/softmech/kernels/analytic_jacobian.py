"""Analytic Jacobian entries of a force term in the implicit integrator of the unified engine
(softmech.integrators.implicit, softmech.integrators.analytic).

A term that knows the derivative of its forces with respect to its body kind's coordinates
and velocities (e.g. the discrete rods' stretching, bending and twisting: their Hessians, which
the discrete engine uses too; a shell's drag) writes K = dF/dq + dF/dv / h per lane into
AnalyticArgs.values in its own entry order (the discrete engine's implicit Euler Jacobian in
the positions, v = (q - q_b) / h); add_analytic adds it to the Newton matrix. With the
implicit Euler step of the velocities u (softmech.kernels.implicit_motion: q = q_b + h u,
v = u, a = F / m on free DOFs),

    dR_i/du_j = -(1/m_i) (h^2 dF_i/dq_j + h dF_i/dv_j) = -h^2 (1/m_i) K_ij

on free rows i and free columns j; a held row (u - P(u)) or column (its coordinate set by a
constraint) has no such entry (Hairer and Wanner, Solving ODEs II, IV.8).
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.sparse_lu import unsigned

AnalyticArgs = namedtuple("AnalyticArgs", [
    "values",    # (n_blocks, W, k) K = dF/dq + dF/dv / h of each entry [N/m, N, N m]; a
                 # term whose lanes run together (AnalyticJacobian.lanes_kernel): (n_blocks,
                 # k, W), the lanes innermost as in its kernels
    "rows",      # (k,) int64: the DOF (row of the Newton matrix) of each entry
    "cols",      # (k,) int64: its column
    "pos",       # (k,) int64: its position in the factor's values (softmech.kernels.sparse_lu)
    "weight",    # (n_blocks, k, W) 1/m of its row [1/kg or 1/(kg m^2)], 0 where its row or
                 # column is held
])
"""One analytic term's entries (softmech.integrators.analytic)."""


@kernel
def add_analytic(a, bi, W, h, vals, lanes):
    """vals[pos, lane] -= h^2 weight K (module docstring) for every entry of term `a` and
    every lane flagged in lanes (W,); vals (nnz, W): the factor's values of block bi."""
    _add_entries(a.pos, a.weight[bi], a.values[bi].T, W, h, vals, lanes)


@kernel
def add_analytic_lanes(a, bi, W, h, vals, lanes):
    """add_analytic for a term whose values are (n_blocks, k, W), the lanes innermost (a lanes
    kernel's: AnalyticJacobian.lanes_kernel): each entry's row of lanes read contiguously, as
    the factor's (the per-lane layout read W rows 8 k bytes apart for every entry: 62.6 against
    25.0 us for the 9,178 entries of falling_rod's elasticity at eight lanes, 2026-12-05)."""
    _add_entries(a.pos, a.weight[bi], a.values[bi], W, h, vals, lanes)


@kernel(inline="always")
def _add_entries(pos, weight, values, W, h, vals, lanes):
    """vals[pos[k], lane] -= h^2 weight[k, lane] values[k, lane] on the flagged lanes (values
    (k, W): a lanes-innermost array, or the transposed view of a per-lane one). Where every
    lane is flagged (the common case: a step's renewal) the loop runs without the flags' test,
    and a single world without the loop over lanes (the same operations on each entry, in
    the same order: the same numbers; falling_rod's one world spent 16 % of its time in the
    loop over one lane with its test, 2026-12-05). Each position is unsigned (sparse_lu
    .unsigned: no negative-index wraparound on the scattered rows)."""
    h2 = h * h
    if count_flagged(lanes, W) < W:
        for k in range(pos.shape[0]):
            p = unsigned(pos[k])
            for lane in range(W):
                if lanes[lane] != 0:
                    vals[p, lane] -= h2 * weight[k, lane] * values[k, lane]
    elif W == 1:
        for k in range(pos.shape[0]):
            vals[unsigned(pos[k]), 0] -= h2 * weight[k, 0] * values[k, 0]
    else:
        for k in range(pos.shape[0]):
            p = unsigned(pos[k])
            for lane in range(W):
                vals[p, lane] -= h2 * weight[k, lane] * values[k, lane]


@kernel(inline="always")
def count_flagged(lanes, W):
    """How many of the W lanes are flagged (lanes (W,) int64, nonzero: flagged)."""
    n = 0
    for lane in range(W):
        n += 1 if lanes[lane] != 0 else 0
    return n


@kernel
def keep_differences(vals, kept, entry_pos, lanes, refresh):
    """The finite-difference part of the factor's values vals (nnz, W) of block bi, kept
    compactly: kept (n_entries, W) holds the values at the differenced entries' positions
    entry_pos (n_entries,) (every other position of that part is zero: a lane taking new
    differences starts from zero). kept <- vals there on the lanes that took new differences
    (lanes); vals <- kept there on the other fresh lanes (refresh), which renew their analytic
    entries alone and were zeroed like the others. Holding the whole (nnz, W) array instead
    copied 17.7 MB per Jacobian for the 1,032-triangle plate's eight lanes, whose differences
    are its 1,686 diagonal entries (2026-12-06)."""
    W = vals.shape[1]
    for e in range(entry_pos.shape[0]):
        p = entry_pos[e]
        for lane in range(W):
            v = vals[p, lane]
            k = kept[e, lane]
            kept[e, lane] = v if lanes[lane] != 0 else k
            vals[p, lane] = k if lanes[lane] == 0 and refresh[lane] != 0 else v


@kernel
def adds_nothing(a, bi, W, t):
    """The `without` of a term that only adds to the accumulators (its analytic Jacobian is
    used, softmech.integrators.analytic): leaving it out of a finite-difference evaluation
    leaves nothing to do."""


@kernel(inline="always")
def wants_jacobian(J):
    """Whether a kernel called with the Jacobian array J writes into it (J has room): the
    `want_jac` argument of the discrete engine's force kernels (softmech.kernels.shell_stretch
    etc.) as a run-time bool. Called with a literal True from one caller and False from
    another, numba compiles such a kernel twice (it specializes on literal booleans: 4.6 s for
    the hinge kernel, 2026-12-04); with this flag, once."""
    return J.shape[0] > 0
