"""Analytic Jacobians in the implicit integrator of the unified engine: what a force term
declares (AnalyticJacobian, on its softmech.integrators.driver.Call) and how the integrator
turns it into entries of the Newton matrix (analytic_entries).

The integrator's Jacobian is otherwise a colored finite difference of the whole residual
(softmech.integrators.implicit): one residual evaluation per color, and a term that couples
many DOFs (a discrete rod's bending: 11 DOFs per spring) makes many colors. A term with an
analytic Jacobian is left out of the finite differences (its `without` kernel runs in their
evaluations instead of its own: e.g. clearing the accumulators it would have initialised),
so the coloring covers the other terms alone, and its entries are added from its own kernel
(softmech.kernels.analytic_jacobian). The Newton matrix is the same up to the finite
differences' error in the entries the term owns.
"""
from dataclasses import dataclass

import numpy as np

from softmech.integrators.dof_layout import kind_dofs
from softmech.kernels.analytic_jacobian import AnalyticArgs


def _check_entries(owner, rows, cols):
    """rows and cols of a Jacobian's entries: one-dimensional, of the same length."""
    rows, cols = np.asarray(rows), np.asarray(cols)
    if rows.ndim != 1 or rows.shape != cols.shape:
        raise ValueError(f"{owner}.rows and cols have shapes {rows.shape} and {cols.shape}: "
                         "must be one-dimensional and of the same length")


@dataclass(frozen=True)
class AnalyticJacobian:
    """The analytic Jacobian of a "forces" Call.

    kernel(args, bi, W, t, h, lane, out): out (k,) <- dF/dq + dF/dv / h of the term's k
    entries at lane's current state (its forces' derivatives with respect to the coordinates
    and velocities of its body kind; h [s] the step, softmech.kernels.analytic_jacobian), args
    the Call's; without(args, bi, W, t): what the Call does in a finite-difference evaluation
    instead of its kernel (softmech.kernels.analytic_jacobian.adds_nothing for a term that
    only adds to the accumulators); rows, cols
    (k,) int64: each entry's row and column in the kind's coordinate numbering (the positions
    of its n velocity slots, 3 s + c, then its angular DOFs, 3 n + j); kind: the BodyKind
    (softmech.integrators.driver) whose coordinates they are; every_step: renew the entries
    at every step's start (a lane then takes new finite differences only when its Jacobian is
    due), or, False, only with the finite differences, when the Jacobian is due (kept up to
    ImplicitOptions.max_age steps). If one analytic term renews every step, all do.
    lanes_kernel(args, bi, W, t, h, lanes, values), optional: `kernel` for every lane flagged
    in lanes (W,) int64 at once, into values (k, W), the lanes innermost (a kernel whose lanes
    run together in SIMD registers: the discrete rods' elasticity); given, the integrator calls
    it instead of `kernel` lane by lane."""
    kernel: object
    without: object
    rows: np.ndarray
    cols: np.ndarray
    kind: object
    every_step: bool = True
    lanes_kernel: object = None

    def __post_init__(self):
        _check_entries("AnalyticJacobian", self.rows, self.cols)

    @classmethod
    def blocks(cls, kernel, without, stencils, kind, every_step=True, lanes_kernel=None):
        """The Jacobian of a kernel that writes one dense block per element, row-major over
        the element's coordinates: the elements of each (m, k) int64 array of `stencils` in
        turn (each row the k coordinates of one element, e.g. a spring's 11), as the discrete
        rods' and shells' kernels write their Jacobians."""
        parts = [Couplings.blocks(s, kind) for s in stencils]
        return cls(kernel=kernel, without=without, rows=np.concatenate([p.rows for p in parts]),
                   cols=np.concatenate([p.cols for p in parts]), kind=kind,
                   every_step=every_step, lanes_kernel=lanes_kernel)

    def couplings(self):
        """Its entries as the Call's couplings (driver.Call.couplings)."""
        return Couplings(self.rows, self.cols, self.kind)


@dataclass(frozen=True)
class Couplings:
    """The structural couplings of a Call (driver.Call.couplings): rows, cols (k,) int64, the
    entries dR/du it can make at any state, in `kind`'s coordinate numbering (as
    AnalyticJacobian's); none (k = 0) for a call that couples nothing (a constraint, a
    parameter it writes)."""
    rows: np.ndarray
    cols: np.ndarray
    kind: object

    def __post_init__(self):
        _check_entries("Couplings", self.rows, self.cols)

    @classmethod
    def blocks(cls, stencils, kind):
        """Every entry among each stencil's coordinates: stencils (m, k) int64, each row the k
        coordinates of one element of the term (e.g. a hinge's 12)."""
        stencils = np.asarray(stencils, dtype=np.int64)
        k = stencils.shape[1]
        return cls(np.repeat(stencils, k, axis=1).ravel(), np.tile(stencils, (1, k)).ravel(),
                   kind)

    @classmethod
    def none(cls, kind):
        """A call that couples nothing."""
        return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), kind)


def declared_couplings(calls, engine_kinds, kinds, W, n_blocks, n_dof):
    """(rows, cols) int64 in the Newton matrix's DOFs of every call's declared couplings
    (Call.couplings; a call with an analytic Jacobian adds its entries apart and none here)
    among the DOFs free in some world (the kinds' probed masks), and every DOF's own (its
    residual depends on its velocity, held or not: what a probe finds), or None where a call
    declares neither: then the pattern must be probed."""
    if any(c.couplings is None and c.jacobian is None for c in calls):
        return None
    _, free = dof_weights(kinds, W, n_blocks, n_dof)
    free = free.any(axis=(0, 2))
    every = np.arange(n_dof, dtype=np.int64)
    rows, cols = [every], [every]
    for call in calls:
        spec = call.couplings
        if call.jacobian is not None or spec is None or spec.rows.size == 0:
            continue
        j = [k for k, _ in engine_kinds].index(spec.kind)
        n_slots = kinds[j].v.shape[2] // W
        r = kind_to_dofs(spec.rows, kinds[j].offsets, n_slots)
        c = kind_to_dofs(spec.cols, kinds[j].offsets, n_slots)
        keep = free[r] & free[c]
        rows.append(r[keep])
        cols.append(c[keep])
    # each coupling once (stencils share entries), in the order (row, col) a probe finds them
    unique = np.unique(np.concatenate(cols) * n_dof + np.concatenate(rows))
    return unique % n_dof, unique // n_dof


def kind_to_dofs(index, offsets, n_slots):
    """The Newton matrix's DOFs of a kind's coordinate indices (AnalyticJacobian.rows): a
    velocity slot's v_off + index below 3 n_slots, an angular DOF's w_off + index - 3 n_slots."""
    index = np.asarray(index, dtype=np.int64)
    return np.where(index < 3 * n_slots, offsets[0] + index, offsets[1] + index - 3 * n_slots)


def analytic_entries(calls, engine_kinds, kinds, W, n_blocks, n_dof):
    """[(Call index into T, AnalyticArgs without positions)] of the calls with an analytic
    Jacobian, their rows and columns as the Newton matrix's DOFs (n_dof of them), their
    weights from the kinds' masses and probed masks (kinds: the integrator's
    ImplicitKindArgs, in the order of engine_kinds)."""
    if all(c.jacobian is None for c in calls):
        return []
    inv_mass, free = dof_weights(kinds, W, n_blocks, n_dof)
    out = []
    for i, call in enumerate(calls, start=1):
        spec = call.jacobian
        if spec is None:
            continue
        j = [k for k, _ in engine_kinds].index(spec.kind)
        n_slots = kinds[j].v.shape[2] // W
        rows = kind_to_dofs(spec.rows, kinds[j].offsets, n_slots)
        cols = kind_to_dofs(spec.cols, kinds[j].offsets, n_slots)
        weight = inv_mass[:, rows] * free[:, rows] * free[:, cols]              # (nb, k, W)
        # (a lanes kernel writes its lanes innermost: kernels.analytic_jacobian)
        shape = (rows.size, W) if spec.lanes_kernel is not None else (W, rows.size)
        out.append((i, AnalyticArgs(values=np.zeros((n_blocks,) + shape), rows=rows,
                                    cols=cols, pos=np.zeros(rows.size, dtype=np.int64),
                                    weight=np.ascontiguousarray(weight))))
    return out


def node_blocks(calls, engine_kinds, kinds, W):
    """(rows, cols) int64: the 3 x 3 block of every velocity slot of each kind that has an
    analytic term, for the finite differences' coloring. An analytic term leaves the coloring
    (its couplings are not probed) and with it the couplings among a node's three components
    that its stiffness used to bring; a node's own loads (ground friction, drag, damping) make
    them, possibly only later (a contact that starts after the probe), so they are kept when
    the pattern is probed (where every call declares its couplings, those are all there is)."""
    rows, cols = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for j in sorted({[k for k, _ in engine_kinds].index(c.jacobian.kind) for c in calls
                     if c.jacobian is not None}):
        v_off, n_slots = kinds[j].offsets[0], kinds[j].v.shape[2] // W
        dofs = v_off + 3 * np.arange(n_slots)[:, None] + np.arange(3)       # (n_slots, 3)
        rows.append(np.repeat(dofs, 3, axis=1).ravel())
        cols.append(np.tile(dofs, (1, 3)).ravel())
    return np.concatenate(rows), np.concatenate(cols)


def dof_weights(kinds, W, n_blocks, n_dof):
    """(inv_mass, free), each (n_blocks, n_dof, W): 1/m (or 1/J) of each DOF's row and 1.0 on
    free DOFs, 0.0 on those the constraints hold (the kinds' probed masks)."""
    inv_mass, free = np.zeros((n_blocks, n_dof, W)), np.zeros((n_blocks, n_dof, W))
    for a in kinds:
        v_off, w_off = a.offsets
        n_x, rows = a.v.shape[2] // W, a.w.shape[1]
        n_w = rows * (a.w.shape[2] // W)
        for bi in range(n_blocks):
            inv_mass[bi, v_off:v_off + 3 * n_x] = kind_dofs(
                np.broadcast_to(a.v_inv_mass[bi][None], (3, n_x * W)), W)
            free[bi, v_off:v_off + 3 * n_x] = kind_dofs(a.v_mask[bi], W)
            inv_mass[bi, w_off:w_off + n_w] = kind_dofs(
                np.broadcast_to(a.w_inv_inertia[bi], (rows, a.w.shape[2])), W)
            free[bi, w_off:w_off + n_w] = kind_dofs(a.w_mask[bi], W)
    return inv_mass, free
