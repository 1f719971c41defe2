"""Banded LU solves of several worlds at once, the worlds innermost (lanes across worlds).

The lockstep Newton loop (softmech.implicit.compiled, NewtonOptions.lockstep) evaluates the
worlds of a worker thread together and solves their Newton systems A_w dq_w = -R_w, LANES
at a time, in one call:
each world's matrix is a *lane* of one band storage, `ab[slot, lane]`, where `slot` is the
entry's place in LAPACK's band storage of one matrix (column-major, leading dimension
ld = 2 kl + ku + 1, rows 0 .. kl - 1 of each column the fill-in; softmech.kernels.newton's
BandSystem.slot_of_entry), and the innermost loops of the factorization run across the lanes,
so that the loop overhead, index arithmetic and pivot bookkeeping of the rank-1 updates
(almost all the flops) are shared by the worlds: 12 us per world for falling_rod's band
against LAPACK's 26.5 us. numba runs LLVM without its SLP vectorizer
(NUMBA_SLP_VECTORIZE=0), which left the 8-lane rows as unrolled scalar instructions (12 us);
`allocate` therefore compiles the factorization with it, for this kernel only
(softmech.kernels.compile_slp_vectorized): the same code in SIMD registers, 6.9 us (idle,
2026-11-29, the process-wide switch) and 2.4x cheaper than without it (2026-12-01).

The algorithm is LAPACK's unblocked banded LU with partial pivoting (dgbtf2: column by column,
the pivot the largest |entry| of the column below the diagonal, rows swapped up to the last
column that U reaches, the column scaled by the pivot's reciprocal, a rank-1 update) followed by
its solve (dgbtrs: the row interchanges and L forward, U backward), the same operations in the
same order for every lane. A lane's answer therefore depends only on its own matrix and
right-hand side, bit for bit, whatever the number of lanes and whatever the other lanes hold:
the columns updated are those any lane's U reaches, and where a lane's U does not reach a
column, its row entries there are exact zeros, whose update x - l * 0 = x changes nothing
(a lane with a zero pivot gets inf / NaN in its own entries only, and a non-zero `info`).
It is not LAPACK's dgbsv bit for bit (OpenBLAS's own kernels order the sums differently, and the
per-world loop first tries the banded Cholesky where the matrix is symmetric): the two differ
by the solve's round-off, condition number x 1e-16 relative.

The pivot search runs across the lanes too; the row swaps and the reach of U stay per lane
(a branch per world, rarely taken: the Newton matrices are nearly diagonally dominant).
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import compile_slp_vectorized, kernel

LANES = 8
"""Lanes solved together: the solve's arithmetic runs over all of them, idle lanes included
(8 doubles: one AVX-512 register, two AVX2 ones)."""

BandLanes = namedtuple("BandLanes", [
    "ab",        # (size + 1, LANES) the lanes' band storage (slot, lane); row `size` takes the
                 #   entries of constrained rows / columns (BandSystem.slot_of_entry), unused
    "rhs",       # (n, L) right-hand sides, overwritten by the solutions
    "ipiv",      # (n, L) int64 pivot rows
    "info",      # (L,) int64 per lane: 0, or j + 1 for the first zero pivot U(j, j) = 0
    "last",      # (L,) int64 scratch: the last column each lane's U reaches so far
    "recip",     # (L,) scratch: the pivots' reciprocals
    "col",       # (kl + 1, L) scratch: the multipliers of the current column
    "row",       # (L,) scratch: the current row's entry in the column being updated
    "pick",      # (L,) int64 scratch: the pivot's row below the diagonal
    "dims",      # (3,) int64: n, kl, ku
])
"""Storage and scratch of the lanes solve of up to LANES worlds (L below: LANES); one per
lockstep thread."""


def allocate(n, kl, ku):
    """BandLanes for LANES systems of order n, bandwidths kl, ku (band storage of
    softmech.kernels.newton.BandSystem: size = (2 kl + ku + 1) n slots and a spare), and the
    factorization compiled for them with LLVM's SLP vectorizer (once per process, then cached)."""
    width = LANES
    size = (2 * kl + ku + 1) * n
    s = BandLanes(ab=np.zeros((size + 1, width)), rhs=np.zeros((n, width)),
                  ipiv=np.zeros((n, width), np.int64), info=np.zeros(width, np.int64),
                  last=np.zeros(width, np.int64), recip=np.zeros(width),
                  col=np.zeros((kl + 1, width)), row=np.zeros(width),
                  pick=np.zeros(width, np.int64), dims=np.array([n, kl, ku], np.int64))
    compile_slp_vectorized(_solve, (s.ab, s.rhs, s.ipiv, s.last, s.recip, s.info, s.col,
                                    s.row, s.pick, n, kl, ku, width))
    return s


def compile_assembly(J, slot_of_entry, ab):
    """Compile assemble_lanes for these arrays (J (nnz, worlds), slot_of_entry (nnz,) int64,
    ab (size + 1, LANES): LockstepWork's) with LLVM's SLP vectorizer, as allocate compiles the
    solve: its loop over LANES consecutive lanes is otherwise unrolled into 8 scalar
    subtractions (the loop vectorizer skips loops of 8; seen in the assembly)."""
    compile_slp_vectorized(assemble_lanes, (J, np.zeros(LANES, np.int64), slot_of_entry, ab,
                                            0))


@kernel
def lanes_in_order(worlds, m, width):
    """Whether the m lanes are LANES consecutive worlds worlds[0], worlds[0] + 1, ... of a
    block of `width` worlds (worlds (>= m,) int64): the case in which the lanes kernels
    read and write rows of LANES worlds in loops of constant length."""
    w0 = worlds[0]
    if m != LANES or w0 + LANES > width:
        return False
    for w in range(LANES):
        if worlds[w] != w0 + w:
            return False
    return True


@kernel
def assemble_lanes(J, lane_world, slot_of_entry, ab, m):
    """Lanes 0 .. m - 1 of ab (size + 1, LANES) = minus the sums of world lane_world[w]'s
    Jacobian entries J[:, lane_world[w]] (J (nnz, worlds), the worlds innermost:
    LockstepWork.J; lane_world (LANES,) int64) at their slots (slot_of_entry (nnz,) int64),
    every lane zeroed first; then close_lanes adds the diagonal. Entry after entry with the
    lanes innermost: each slot's cache line (its LANES lanes) is touched once per entry, and
    the worlds' entry i read from one row of J. Each lane's sums run in entry order from 0.0,
    subtracting: -(0 + a + b) = (0 - a) - b exactly (rounding to nearest is symmetric), so
    each lane holds softmech.kernels.newton.assemble_band's -J bit for bit but for the sign
    of an exact zero sum (+0 here, -0 there; x - (+0) = x - (-0) for every other x). Where
    the lanes are LANES consecutive worlds (the common case: every world of a thread of
    LANES solves), a loop of constant length that LLVM vectorizes."""
    for i in range(ab.shape[0]):
        ai = ab[i]
        for w in range(LANES):
            ai[w] = 0.0
    w0 = lane_world[0]
    if lanes_in_order(lane_world, m, J.shape[1]):
        for i in range(J.shape[0]):
            ai = ab[slot_of_entry[i]]
            Ji = J[i, w0:w0 + LANES]
            for w in range(LANES):
                ai[w] -= Ji[w]
        return
    for i in range(J.shape[0]):
        ai = ab[slot_of_entry[i]]
        Ji = J[i]
        for w in range(m):
            ai[w] -= Ji[lane_world[w]]


@kernel
def close_lanes(ab, L, diag_slot, diagonal, lane_row):
    """After assemble_lanes of lanes 0 .. L - 1 (L <= LANES): A = diag(d) - J in each lane,
    d = diagonal[lane_row[w]] (diagonal (rows, n_free), diag_slot (n_free,) int64): the
    diagonal added to -J, as in softmech.kernels.newton.assemble_band."""
    for w in range(L):
        r = lane_row[w]
        for i in range(diag_slot.shape[0]):
            ab[diag_slot[i], w] += diagonal[r, i]


@kernel
def band_lu_solve_lanes(s, L):
    """Solve A_w x_w = b_w in place for lanes w = 0 .. L - 1 of s (BandLanes; L <= LANES):
    s.ab holds each lane's matrix (assemble_lanes, close_lanes), s.rhs its right-hand side, which
    becomes the solution. s.ab and s.ipiv are overwritten; s.info[w] = 0 where lane w was
    solved, j + 1 where U(j, j) = 0 (its solution is then inf / NaN). The arithmetic runs over
    all LANES lanes; lanes L .. LANES - 1 compute with zero multipliers and are not read."""
    # the arrays one by one: numba marks array arguments noalias, not a tuple's fields
    _solve(s.ab, s.rhs, s.ipiv, s.last, s.recip, s.info, s.col, s.row, s.pick, s.dims[0],
           s.dims[1], s.dims[2], L)


@kernel
def _solve(ab, b, ipiv, last, recip, info, col, row, pick, n, kl, ku, active):
    """band_lu_solve_lanes on BandLanes' arrays (b: rhs; n, kl, ku: dims), `active` lanes
    holding systems: the swaps per active lane, the pivot search and the arithmetic across
    all LANES lanes, its
    loops `for w in range(LANES)` on whole rows of the storage (views), which LLVM turns into
    SIMD instructions (measured, falling_rod's band, per world: 13 us; with loops over a
    runtime lane count 22 us, and with two-index accesses ab[o + i, w] 33 us: an index that is
    not a plain loop variable costs a negative-index test per access, and LLVM left those
    loops scalar). The idle lanes' right-hand sides and
    pivot reciprocals are set to 0, so that their multipliers are 0 (or NaN) and their entries
    do not grow or decay into slow denormals. Each update reads its multipliers and its row
    entries from the scratch arrays col and row, not from ab or b themselves: LLVM cannot tell
    that two rows of one array do not overlap; separate (noalias) arrays it can."""
    kv = kl + ku
    ld = 2 * kl + ku + 1
    for w in range(LANES):
        last[w] = 0
        info[w] = 0
        recip[w] = 0.0
    for i in range(n):
        bi = b[i]
        for w in range(active, LANES):
            bi[w] = 0.0
    ju = 0
    for j in range(n):
        km = min(kl, n - 1 - j)
        c = j * ld + kv                  # slot of the diagonal entry A(j, j)
        # the pivots: the largest |A(j + i, j)|, i = 0 .. km (the first one on ties), all
        # lanes at once (row holds the largest so far, pick its i)
        top = ab[c]
        for w in range(LANES):
            row[w] = abs(top[w])
            pick[w] = 0
        for i in range(1, km + 1):
            below = ab[c + i]
            for w in range(LANES):
                a = abs(below[w])
                if a > row[w]:
                    row[w] = a
                    pick[w] = i
        for w in range(active):
            p = pick[w]
            ipiv[j, w] = j + p
            if ab[c + p, w] == 0.0 and info[w] == 0:
                info[w] = j + 1
            reach = min(j + ku + p, n - 1)
            if reach > last[w]:
                last[w] = reach
            if last[w] > ju:
                ju = last[w]
            if p != 0:                   # swap rows j and j + p in columns j .. last
                for jj in range(j, last[w] + 1):
                    o = jj * ld + kv + j - jj
                    x = ab[o, w]
                    ab[o, w] = ab[o + p, w]
                    ab[o + p, w] = x
        for w in range(LANES):
            recip[w] = 1.0 / top[w]
        for w in range(active, LANES):
            recip[w] = 0.0
        for i in range(1, km + 1):       # the multipliers l = A(j + i, j) / A(j, j)
            src = ab[c + i]
            ci = col[i]
            for w in range(LANES):
                ci[w] = src[w] * recip[w]
            for w in range(LANES):
                src[w] = ci[w]
        for jj in range(j + 1, ju + 1):  # the rank-1 update, worlds innermost
            o = jj * ld + kv + j - jj    # A(j, jj)
            top = ab[o]
            for w in range(LANES):
                row[w] = top[w]
            for i in range(1, km + 1):
                dst = ab[o + i]
                ci = col[i]
                for w in range(LANES):
                    dst[w] -= ci[w] * row[w]
    for j in range(n - 1):               # L y = P b
        km = min(kl, n - 1 - j)
        c = j * ld + kv
        for w in range(active):
            p = ipiv[j, w]
            if p != j:
                x = b[p, w]
                b[p, w] = b[j, w]
                b[j, w] = x
        bj = b[j]
        for w in range(LANES):
            row[w] = bj[w]
        for i in range(1, km + 1):
            dst = b[j + i]
            li = ab[c + i]
            for w in range(LANES):
                dst[w] -= li[w] * row[w]
    for j in range(n - 1, -1, -1):       # U x = y
        c = j * ld + kv
        bj = b[j]
        d = ab[c]
        for w in range(LANES):
            bj[w] /= d[w]
        for w in range(LANES):
            row[w] = bj[w]
        for i in range(max(0, j - kv), j):
            dst = b[i]
            ui = ab[c + i - j]
            for w in range(LANES):
                dst[w] -= ui[w] * row[w]
