"""Where one Newton evaluation of `falling_rod` goes, and what a worlds-innermost (SIMD across
worlds) banded solve would save per world (issue 27: B = 16 worlds within 4x of B = 1 on two
cores needs each world's work halved when batched; not collected by pytest).

    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch_split.py

Part 1 times, alone and warm, each compiled piece of one evaluation of the compiled Newton loop
(softmech.implicit.compiled) at a state in ground contact (t = 0.3 s: friction makes the matrix
unsymmetric, LAPACK's banded LU dgbsv): begin_evaluation, every binding's forces and Jacobian,
the banded assembly and solve (softmech.kernels.newton). Each is called from Python, so each
includes ~0.3 us of dispatch.

Part 2 is a prototype, not used by the library: the banded LU with partial pivoting of LAPACK's
dgbtf2 + dgbtrs (column by column: pivot, swap, scale by the pivot's reciprocal, rank-1 update),
written once for L worlds with the worlds innermost, so that the rank-1 update (most of the
flops) runs across worlds in SIMD lanes; the pivot search and the swaps stay per world. L = 1 is
the scalar code. It solves the same matrix for every world; its answers agree with LAPACK's to
round-off (printed), and a world's answer is the same bit for bit whatever L.
Min and median of 7 repeats, per world, in microseconds.
"""
import os
import time

import numpy as np
from numba import njit

import softmech as sm
from softmech.kernels import newton as kn
from softmech.scenarios.discrete import build_falling_rod


@njit(cache=True, nogil=True)
def band_lu_solve_lanes(ab, kl, ku, ipiv, b):
    """Solve A_w x_w = b_w for L worlds w: ab (n, 2 kl + ku + 1, L) the band of column j of A_w
    at ab[j, kl + ku + i - j, w] (LAPACK's dgbsv storage, rows 0 .. kl - 1 fill-in), b (n, L)
    the right-hand sides, overwritten by x; ipiv (n, L) int64 scratch. Returns the first world's
    zero pivot + 1 (0: none)."""
    n, L = b.shape
    kv = ku + kl
    for j in range(n):
        for i in range(kl):
            for w in range(L):
                ab[j, i, w] = 0.0
    last = np.zeros(L, np.int64)          # the last column each world's U reaches so far
    ju = 0
    recip = np.empty(L)
    info = 0
    for j in range(n):
        km = min(kl, n - 1 - j)
        for w in range(L):
            p = 0
            amax = abs(ab[j, kv, w])
            for i in range(1, km + 1):
                if abs(ab[j, kv + i, w]) > amax:
                    amax = abs(ab[j, kv + i, w])
                    p = i
            ipiv[j, w] = j + p
            if ab[j, kv + p, w] == 0.0 and info == 0:
                info = j + 1
            last[w] = max(last[w], min(j + ku + p, n - 1))
            ju = max(ju, last[w])
            if p != 0:
                for jj in range(j, last[w] + 1):
                    o = kv + j - jj
                    ab[jj, o, w], ab[jj, o + p, w] = ab[jj, o + p, w], ab[jj, o, w]
            recip[w] = 1.0 / ab[j, kv, w]
        for i in range(1, km + 1):
            for w in range(L):
                ab[j, kv + i, w] *= recip[w]
        for jj in range(j + 1, ju + 1):       # the rank-1 update, worlds innermost
            o = kv + j - jj
            for i in range(1, km + 1):
                for w in range(L):
                    ab[jj, o + i, w] -= ab[j, kv + i, w] * ab[jj, o, w]
    for j in range(n - 1):                    # L y = P b
        km = min(kl, n - 1 - j)
        for w in range(L):
            p = ipiv[j, w]
            if p != j:
                b[p, w], b[j, w] = b[j, w], b[p, w]
        for i in range(1, km + 1):
            for w in range(L):
                b[j + i, w] -= ab[j, kv + i, w] * b[j, w]
    for j in range(n - 1, -1, -1):            # U x = y
        for w in range(L):
            b[j, w] /= ab[j, kv, w]
        for i in range(max(0, j - kv), j):
            for w in range(L):
                b[i, w] -= ab[j, kv + i - j, w] * b[j, w]
    return info


def timed(f, calls, repeats=7):
    """(min, median) wall time of one call of f [us]."""
    f()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return min(times), float(np.median(times))


def main():
    print(f"load {os.getloadavg()[0]:.2f}")
    scene, info = build_falling_rod()
    sim = scene.compile(dt=info.dt)
    loop, h = sim.stepper.loop, info.dt
    sim.run(0.3, record=sm.Every(0.01, ("com",)))
    W, T = loop.W, loop.T
    q = sim.q[0] + h * sim.v[0]
    kn.predict(W, sim.q[0].copy(), sim.v[0].copy(), h)
    pieces = {"begin_evaluation": lambda: kn.begin_evaluation(W, q, h)}
    for i, form in enumerate(loop.forms):
        args, J = T[W.kinds[i]][W.members[i]], W.J[W.offsets[i]:W.offsets[i + 1]]
        pieces[f"forces {form.name}"] = (
            lambda form=form, args=args, J=J: form.forces(args, 0, q, W.v, 0.3, h, W.F, J))
    for piece in pieces.values():
        piece()
    band = W.band
    pieces["assemble_band"] = lambda: kn.assemble_band(W.J, band.slot_of_entry, band.diag_slot,
                                                       W.diagonal, band.ab)
    pieces["assemble_band"]()
    ab0 = band.ab.copy()
    n, kd = int(band.lapack_ints[0]), int(band.lapack_ints[7])
    rhs = np.random.default_rng(0).standard_normal(n)
    x = rhs.copy()

    def lapack():
        band.ab[:] = ab0
        x[:] = rhs
        kn.solve_band(band, x)
    pieces["solve_band (LAPACK)"] = lapack
    symmetric = kn._symmetric_upper(ab0.copy(), band.chol.copy(), kd, n)
    print(f"Part 1: one evaluation, {n} DOFs, half bandwidth {kd}, symmetric: {symmetric}")
    total = 0.0
    for name, piece in pieces.items():
        best, median = timed(piece, 1000)
        total += best
        print(f"  {name:32s} {best:8.2f} {median:8.2f} us")
    print(f"  {'sum':32s} {total:8.2f} us")

    print("Part 2: banded LU per world [us] (min, median)")
    lapack_best, lapack_median = timed(lapack, 300)
    print(f"  LAPACK dgbsv (solve_band)        {lapack_best:8.2f} {lapack_median:8.2f}")
    ld = 3 * kd + 1
    single = ab0[:ld * n].reshape(n, ld)
    reference = None
    for lanes in (1, 4, 8, 16):
        ab = np.ascontiguousarray(np.repeat(single[:, :, None], lanes, axis=2))
        b = np.ascontiguousarray(np.repeat(rhs[:, None], lanes, axis=1))
        ab_start, b_start, ipiv = ab.copy(), b.copy(), np.zeros((n, lanes), np.int64)

        def lanes_solve():
            ab[:] = ab_start
            b[:] = b_start
            band_lu_solve_lanes(ab, kd, kd, ipiv, b)
        best, median = timed(lanes_solve, max(300 // lanes, 20))
        reference = b[:, 0].copy() if reference is None else reference
        same = all(np.array_equal(b[:, w], reference) for w in range(lanes))
        print(f"  worlds innermost, L = {lanes:2d}        {best / lanes:8.2f} {median / lanes:8.2f}"
              f"   (|x - x_LAPACK| / |x| = {np.max(np.abs(b[:, 0] - x)) / np.max(np.abs(x)):.1e},"
              f" bit-equal to L = 1: {same})")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
