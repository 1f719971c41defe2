"""Where one Newton evaluation of `falling_rod` goes, and what a worlds-innermost (SIMD across
worlds) banded solve would save per world (issue 27: B = 16 worlds within 4x of B = 1 on two
cores needs each world's work halved when batched; not collected by pytest).

    OPENBLAS_NUM_THREADS=1 python benchmarks/implicit_batch_split.py

Part 1 times, alone and warm, each compiled piece of one evaluation of the compiled Newton loop
(softmech.implicit.compiled) at a state in ground contact (t = 0.3 s: friction makes the matrix
unsymmetric, LAPACK's banded LU dgbsv): begin_evaluation, every binding's forces and Jacobian,
the banded assembly and solve (softmech.kernels.newton). Each compiled piece is called in a
loop from a compiled driver: a call from Python would add numba's dispatch, which for a kernel
of ~40 arguments costs more than the kernel (2026-12-01: the bending-twisting forces took 51 us
called from Python, 25 us from the driver); LAPACK's solve is called from Python.

Part 2 times, per world, the lockstep loop's solve across worlds (softmech.kernels.band_lanes,
NewtonOptions.lockstep): the lanes assembly of the worlds' matrices (assemble_lanes,
close_lanes) and the banded LU with partial pivoting of LAPACK's dgbtf2 + dgbtrs written
with the worlds innermost (band_lu_solve_lanes, LANES = 8 lanes), for L worlds solved together, each the
same matrix; its answers agree with LAPACK's to round-off (printed), and a world's answer is the
same bit for bit whatever L. Min and median of 7 repeats, per world, in microseconds.

Part 3 times, per world, the lockstep loop's bending-twisting forces across worlds
(softmech.kernels.der_bend_twist_lanes: the per-world kernel's arithmetic with the worlds
innermost, LANES = 8 at a time; CompiledForm.lanes) for L = 1, 4, 8 and 16 worlds, each
world 0 at the same state (idle lanes compute on a copy), against the per-world kernel's time of Part 1, and
checks that every world's forces and Jacobian entries equal the per-world kernel's bit for bit.
"""
import os
import time

import numba
import numpy as np
import softmech as sm
from softmech.kernels import newton as kn
from softmech.kernels.band_lanes import (allocate, assemble_lanes, band_lu_solve_lanes,
                                         close_lanes)
from softmech.scenarios.discrete import build_falling_rod


@numba.njit
def drive_forces(forces, args, q, v, t, h, F, J, calls):
    """`calls` calls of a binding's forces kernel (no dispatch between them)."""
    for _ in range(calls):
        forces(args, 0, q, v, t, h, F, J)


@numba.njit
def drive_begin(W, q, h, calls):
    for _ in range(calls):
        kn.begin_evaluation(W, q, h)


@numba.njit
def drive_assemble(J, slot_of_entry, diag_slot, diagonal, ab, calls):
    for _ in range(calls):
        kn.assemble_band(J, slot_of_entry, diag_slot, diagonal, ab)


@numba.njit
def drive_assemble_lanes(J, lane_world, slot_of_entry, diag_slot, diagonals, ab, lanes, calls):
    for _ in range(calls):
        assemble_lanes(J, lane_world, slot_of_entry, ab, lanes)
        close_lanes(ab, lanes, diag_slot, diagonals, lane_world)


@numba.njit
def drive_lanes(kernel, args, x, S, i, Q, t, h, worlds, calls):
    for _ in range(calls):
        kernel(args, x, S, i, 0, Q, t, h, worlds)


def driven(f, calls, repeats=7):
    """(min, median) time of one of `calls` calls made by f(calls) [us]."""
    f(1)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(calls)
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return min(times), float(np.median(times))


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
    pieces = {"begin_evaluation": lambda calls: drive_begin(W, q, h, calls)}
    for i, form in enumerate(loop.forms):
        args, J = T[W.kinds[i]][W.members[i]], W.J[W.offsets[i]:W.offsets[i + 1]]
        pieces[f"forces {form.name}"] = (
            lambda calls, form=form, args=args, J=J:
            drive_forces(form.forces, args, q, W.v, 0.3, h, W.F, J, calls))
    for piece in pieces.values():
        piece(1)
    band = W.band
    pieces["assemble_band"] = lambda calls: drive_assemble(
        W.J, band.slot_of_entry, band.diag_slot, W.diagonal, band.ab, calls)
    pieces["assemble_band"](1)
    ab0 = band.ab.copy()
    J0 = W.J.copy()         # (the timing below adds to W.J again and again)
    n, kd = int(band.lapack_ints[0]), int(band.lapack_ints[7])
    rhs = np.random.default_rng(0).standard_normal(n)
    x = rhs.copy()

    def lapack():
        band.ab[:] = ab0
        x[:] = rhs
        kn.solve_band(band, x)

    def lapack_calls(calls):
        for _ in range(calls):
            lapack()
    pieces["solve_band (LAPACK)"] = lapack_calls
    symmetric = kn._symmetric_upper(ab0.copy(), band.chol.copy(), kd, n)
    print(f"Part 1: one evaluation, {n} DOFs, half bandwidth {kd}, symmetric: {symmetric}")
    total = 0.0
    times = {}
    for name, piece in pieces.items():
        best, median = driven(piece, 1000)
        times[name] = best
        total += best
        print(f"  {name:32s} {best:8.2f} {median:8.2f} us")
    print(f"  {'sum':32s} {total:8.2f} us")

    print("Part 2: per world [us] (min, median)")
    lapack_best, lapack_median = timed(lapack, 300)
    print(f"  LAPACK dgbsv (solve_band)        {lapack_best:8.2f} {lapack_median:8.2f}")
    reference = None
    for lanes in (1, 4, 8):
        S = allocate(n, kd, kd)

        diagonals = np.repeat(W.diagonal[None], lanes, axis=0)
        Js = np.repeat(J0[:, None], lanes, axis=1)     # (nnz, worlds): LockstepWork.J
        lane_world = np.zeros(S.ab.shape[1], np.int64)
        lane_world[:lanes] = np.arange(lanes)

        def assemble(calls=1):
            drive_assemble_lanes(Js, lane_world, band.slot_of_entry, band.diag_slot, diagonals,
                                 S.ab, lanes, calls)
        assemble()
        ab_start = S.ab.copy()
        S.rhs[:, :lanes] = rhs[:, None]
        b_start = S.rhs.copy()

        def lanes_solve():
            S.ab[:] = ab_start
            S.rhs[:] = b_start
            band_lu_solve_lanes(S, lanes)
        a_best, a_median = driven(assemble, max(300 // lanes, 20))
        best, median = timed(lanes_solve, max(300 // lanes, 20))
        reference = S.rhs[:, 0].copy() if reference is None else reference
        same = all(np.array_equal(S.rhs[:, w], reference) for w in range(lanes))
        print(f"  L = {lanes:2d}: assembly {a_best / lanes:8.2f} {a_median / lanes:8.2f}, LU "
              f"{best / lanes:8.2f} {median / lanes:8.2f}"
              f"   (|x - x_LAPACK| / |x| = "
              f"{np.max(np.abs(S.rhs[:, 0] - x)) / np.max(np.abs(x)):.1e},"
              f" bit-equal to L = 1: {same})")
    lanes_part(loop, q, h, times)
    print(f"load {os.getloadavg()[0]:.2f}")


def lanes_part(loop, q, h, times):
    """Part 3 (module docstring)."""
    from softmech.implicit.compiled import lockstep_work
    W, T = loop.W, loop.T
    print("Part 3: bending-twisting forces across worlds, per world [us] (min, median)")
    for i, form in enumerate(loop.forms):
        if form.lanes is None:
            continue
        args = T[W.kinds[i]][W.members[i]]
        x = form.lanes_scratch(args)
        o0, o1 = W.offsets[i], W.offsets[i + 1]
        F_ref, J_ref = np.zeros_like(W.F), np.zeros(o1 - o0)
        form.forces(args, 0, q.copy(), W.v, 0.3, h, F_ref, J_ref)
        line = f"  {form.name:18s} per world {times[f'forces {form.name}']:7.2f}; lanes"
        for worlds in (1, 4, 8, 16):
            S = lockstep_work(W, worlds)
            S.rows[:] = 0               # every lane world 0 (the scene has B = 1)
            S.evaluating[:] = np.arange(worlds)
            Q = q[None].copy()

            def run(calls=1):
                drive_lanes(form.lanes, args, x, S, i, Q, 0.3, h, worlds, calls)
            best, median = driven(run, max(400 // worlds, 20))
            S.F[:] = 0.0
            S.J[:] = 0.0
            run()
            same = all(np.array_equal(S.F[r], F_ref) and np.array_equal(S.J[o0:o1, r], J_ref)
                       for r in range(worlds))
            line += f"  L={worlds}: {best / worlds:6.2f} {median / worlds:6.2f}" + \
                ("" if same else " (NOT bit-equal)")
        print(line)


if __name__ == "__main__":
    main()
