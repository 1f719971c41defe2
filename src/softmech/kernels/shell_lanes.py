"""Stretching, hinge bending and pressure forces of discrete shells for the W worlds of a block
at once, the worlds innermost (lanes): the unified engine's force pass of shells in blocks of
several worlds (softmech.kernels.der_shell.der_shell_forces_lanes, der_shell_pressure_lanes);
blocks of one world run the per-world kernels (softmech.kernels.shell_stretch.stretch_forces,
shell_hinge.hinge_forces, shell_loads.pressure_forces) on a gathered copy of its positions.

The formulas are the per-world kernels' (ref. 004 eqs. 9-10 and 17; Tamstorf & Grinspun 2013),
through the same inline helpers (shell_stretch.spring_pull; shell_hinge.hinge_frame,
hinge_gradient), so each lane's forces are the per-world kernel's bit for bit: numba compiles
without fast-math or FMA contraction, and a SIMD instruction does per lane what the scalar one
does (softmech.kernels.der_bend_twist_lanes' docstring). The forces are summed into a lanes
scratch F in the per-world kernel's order (the edges, then the hinges, each element's entries
in its DOF order), so der_shell_forces_lanes copies or adds it as der_shell_forces does the
per-world F.

Layout: the positions x and forces F are a block field (3, n W) of the discrete kind (node slot
s, coordinate c, lane w at c n W + s W + w), flattened. A node's W lanes are read at unsigned
offsets (lane_offset): indexed as a row known only at run time plus w, numba's negative-index
wraparound on every lane made LLVM's vectorized loads gathers (der_frames_lanes.lane_rows).
Each element's per-lane results go to a scratch of rows LANES apart (constant offsets from w:
no runtime overlap checks keep the loop over lanes from vectorizing), and a loop per DOF adds
them to F. atan2 has no SIMD form in this numba (no SVML): it runs in a loop of its own,
between the hinge geometry and gradient (its arguments and grad theta, kept in the scratch) and
their product k (theta - theta_bar) grad theta. The 1,503 hinges of the 1,032-triangle plate
for eight lanes on one thread: 186-226 against 344-419 ns per hinge for the per-world kernel
eight times (2026-12-05), of which atan2 ~100 ns, eight scalar libm calls.
"""
import numpy as np

from softmech.kernels import kernel
from softmech.kernels.band_lanes import LANES
from softmech.kernels.shell_hinge import hinge_frame, hinge_gradient
from softmech.kernels.shell_stretch import spring_pull
from softmech.kernels.vec3 import cross, sub

L = LANES

HINGE_ROWS = 15
"""Rows of the lanes scratch (HINGE_ROWS L,): atan2's arguments y and x, theta, then the 12
force entries k (theta - theta_bar) grad theta of a hinge's nodes (the stretching uses the
first 3 rows)."""


@kernel(inline="always")
def lane_offset(dof, nW, W):
    """Where lane 0 of DOF dof = 3 s + c (node slot s, coordinate c) lies in a flat block
    field (3 n W,), nW = n W, unsigned (np.uint64): with an unsigned offset and lane, numba
    indexes flat[o + w] without its negative-index wraparound, which LLVM cannot fold for an
    offset known only at run time (it made the vectorized loads gathers:
    der_frames_lanes.lane_rows); a view per DOF (lane_rows' way) avoids it too, but making
    the views cost as much as the arithmetic (the plate's stretching, eight lanes: 49 against
    26 ns per edge, 2026-12-05)."""
    s = dof // 3
    return np.uint64((dof - 3 * s) * nW + s * W)


@kernel(inline="always")
def node_offsets(dofs, row, node, nW, W):
    """The lane offsets (lane_offset) of the x, y, z DOFs of node `node` of stencil `row` of
    dofs (a 3-tuple)."""
    return (lane_offset(dofs[row, 3 * node], nW, W), lane_offset(dofs[row, 3 * node + 1], nW, W),
            lane_offset(dofs[row, 3 * node + 2], nW, W))


@kernel(inline="always")
def _point(x, o, w):
    """Lane w of the node whose coordinates' offsets are o (node_offsets) in x (a 3-tuple).
    (Indexed by constants: a tuple indexed by a variable is a switch with a raising default,
    an early exit that kept the loops over lanes scalar.)"""
    return (x[o[0] + w], x[o[1] + w], x[o[2] + w])


@kernel(inline="always")
def _apply3(F, o, s, row, lanes, subtract):
    """F's lanes of one node's DOFs (offsets o, node_offsets) += (or -= with subtract) rows
    row .. row + 2 of the scratch, in the order x, y, z: the per-world kernels' F[dof] += ...
    (-= ...) of that node."""
    for i in range(3):
        r = np.uint64((row + i) * L)
        if subtract:
            for w in range(lanes):
                F[o[i] + w] -= s[r + w]
        else:
            for w in range(lanes):
                F[o[i] + w] += s[r + w]


@kernel
def stretch_forces_lanes(x, F, dofs, rest_length, stiffness, W, s):
    """F += the stretching springs' forces (shell_stretch.stretch_forces) of W lanes: x, F flat
    block fields (3 n W,) [m], [N]; dofs (e, 6) int64 (3 slot + c of each edge's two nodes);
    rest_length [m], stiffness [J] (e,); s: scratch (HINGE_ROWS L,)."""
    nW = x.shape[0] // 3
    lanes = np.uint64(W)
    for e in range(dofs.shape[0]):
        a, b = node_offsets(dofs, e, 0, nW, W), node_offsets(dofs, e, 1, nW, W)
        l0 = rest_length[e]
        k = stiffness[e]
        for w in range(lanes):
            d = sub(_point(x, b, w), _point(x, a, w))
            g, u0, u1, u2, _ = spring_pull(d[0], d[1], d[2], l0, k)
            _put3(s, 0, w, (g * u0, g * u1, g * u2))
        _apply3(F, a, s, 0, lanes, False)       # node 0 gets +g u, node 1 -g u
        _apply3(F, b, s, 0, lanes, True)


@kernel
def hinge_forces_lanes(x, F, dofs, rest_angle, stiffness, W, s):
    """F -= k (theta - theta_bar) grad theta of every hinge (shell_hinge.hinge_forces, its
    forces) for W lanes: x, F flat block fields (3 n W,) [m], [N]; dofs (h, 12) int64;
    rest_angle (W, h) [rad] per lane; stiffness (h,) [J]; s: scratch (HINGE_ROWS L,)."""
    nW = x.shape[0] // 3
    lanes = np.uint64(W)
    for h in range(dofs.shape[0]):
        o0, o1 = node_offsets(dofs, h, 0, nW, W), node_offsets(dofs, h, 1, nW, W)
        o2, o3 = node_offsets(dofs, h, 2, nW, W), node_offsets(dofs, h, 3, nW, W)
        for w in range(lanes):
            e, n1, n2, y, c, l0, _, _, r1, r2 = hinge_frame(
                _point(x, o0, w), _point(x, o1, w), _point(x, o2, w), _point(x, o3, w))
            s[w] = y
            s[L + w] = c
            g = hinge_gradient(e, n1, n2, l0, r1, r2)       # rows 3 .. 14: grad theta
            _put3(s, 3, w, g[0])
            _put3(s, 6, w, g[1])
            _put3(s, 9, w, g[2])
            _put3(s, 12, w, g[3])
        for w in range(lanes):
            s[2 * L + w] = np.arctan2(s[w], s[L + w])
        k = stiffness[h]
        for w in range(lanes):
            s[L + w] = s[2 * L + w] - rest_angle[w, h]         # d = theta - theta_bar
        for r in range(3, HINGE_ROWS):
            row = r * L
            for w in range(lanes):
                s[row + w] = k * s[L + w] * s[row + w]          # k d g, as k * d * g
        _apply3(F, o0, s, 3, lanes, True)
        _apply3(F, o1, s, 6, lanes, True)
        _apply3(F, o2, s, 9, lanes, True)
        _apply3(F, o3, s, 12, lanes, True)


@kernel(inline="always")
def _put3(s, row, w, v):
    """Rows row .. row + 2 of the scratch, lane w <- the 3-tuple v (row a constant at every
    call: the rows written out, as a loop here kept the loop over lanes from being innermost,
    der_bend_twist_lanes' docstring)."""
    s[row * L + w] = v[0]
    s[(row + 1) * L + w] = v[1]
    s[(row + 2) * L + w] = v[2]


@kernel
def pressure_forces_lanes(x, F, dofs, pressure, W, s):
    """F += the follower pressure's p N / 6 on each node of each triangle
    (shell_loads.pressure_forces, its forces) for W lanes: x, F flat block fields (3 n W,) [m],
    [N]; dofs (t, 9) int64; pressure (W,) [Pa] per lane; s: scratch (HINGE_ROWS L,)."""
    nW = x.shape[0] // 3
    lanes = np.uint64(W)
    for t in range(dofs.shape[0]):
        o0, o1 = node_offsets(dofs, t, 0, nW, W), node_offsets(dofs, t, 1, nW, W)
        o2 = node_offsets(dofs, t, 2, nW, W)
        for w in range(lanes):
            x0 = _point(x, o0, w)
            N = cross(sub(_point(x, o1, w), x0), sub(_point(x, o2, w), x0))
            c = pressure[w] / 6.0
            _put3(s, 0, w, (c * N[0], c * N[1], c * N[2]))
        for o in (o0, o1, o2):
            _apply3(F, o, s, 0, lanes, False)
