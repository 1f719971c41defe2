"""The compiled Newton loop: implicit Euler steps of one world, many per call, in compiled code.

softmech.implicit.newton.ImplicitStepper runs its Newton iterations in Python, calling each
binding's `forces`; for a small rod the Python around the kernels cost as much as the kernels.
When every binding of a scene offers a compiled form (`Binding.compiled()` -> CompiledForm)
and the Newton matrix is banded, the stepper runs this loop instead.

What is compiled where:
- each binding kind's kernels (softmech.kernels.implicit_bindings): once, for every scene;
- everything between two force evaluations -- the predictor, the residual, the convergence
  tests, the line search, the banded assembly and LAPACK's solve (softmech.kernels.newton's
  newton_continue and its helpers): once, for every scene;
- `run_steps`, the loop over worlds, steps and evaluations that calls the bindings' kernels,
  each with its own argument tuple (T[group][place]) -- one call steps every world a worker
  thread owns, so a block of steps pays the unboxing of the argument tuples (~10 us) once per
  thread rather than once per world: a module generated per set of binding kinds
  (group_forms, loop_source), written once under the cache folder
  (softmech.integrators.driver.load_generated) and cached by numba like any module. No kernel
  is inlined into it; it compiles in 1-3 s the first time a kind of scene runs
  (docs/benchmarks_log.md).

The module also holds `run_steps_lockstep` (NewtonOptions.lockstep; by default for batches of
LOCKSTEP_MIN_WORLDS worlds or more): the same steps with the worlds of a thread advancing
together, each with its own Newton state (softmech.kernels.newton_lockstep.LockstepWork, a row
per world), the bindings' forces evaluated binding after binding across the worlds that
evaluate (a binding with a `lanes` kernel, the discrete rods' bending and twisting, 8 worlds
per call with the worlds innermost: softmech.kernels.der_bend_twist_lanes, the same numbers
bit for bit), and the Newton systems that are due solved 8 worlds at a time by one banded LU
with the worlds innermost (softmech.kernels.band_lanes). Only the linear solve differs from the
per-world loop (by round-off; its answers do not depend on the other worlds), and numba
compiles only the function a run calls.

The per-world loop computes what the Python loop computes, in the same order, with the same
kernels: the bindings' Python `forces` call the same compiled kernels with the same tuples,
both loops take their norms from softmech.kernels.newton.sumsq and solve with its
solve_band, so results agree bit for bit (tests/unit/test_compiled_newton.py). Any failure (no convergence, a
singular matrix, a non-finite force, an exploding state) returns a status: the caller redoes
the step in Python, which halves it or raises NewtonFailed with its usual message.
"""
import itertools
from dataclasses import dataclass

import numpy as np

from softmech.integrators.driver import kernel_importer, load_generated
from softmech.kernels.implicit_bindings import threads_safe, with_own_scratch
from softmech.kernels import band_lanes
from softmech.kernels.newton import COUNTS_FIELDS, LoopOptions, NewtonWork
from softmech.kernels.newton_lockstep import PER_WORLD, LockstepWork
from softmech.threads import block_pool

LOCKSTEP_MIN_WORLDS = 16
"""NewtonOptions.lockstep=None steps a batch of at least this many worlds in lockstep: on two
threads, 8 worlds each, a full chunk of the solve across worlds (band_lanes.LANES); with 4
per thread half its lanes idle and lockstep cost as much as the per-world loop (falling_rod,
CPU per world and evaluation: B = 8 58.6 against 55.7 us, B = 16 47.5 against 55.7 us;
docs/benchmarks.md)."""


@dataclass(frozen=True)
class CompiledForm:
    """A binding's compiled form: `args`, its argument tuple (a namedtuple of arrays and
    numbers, kept by reference: the loop reads the per-world parameters and writes the history
    in them), and module-level numba kernels (softmech.kernels.implicit_bindings documents the
    signatures): `forces` (required), and `update`, `constrain`, `accept` where the binding has
    those hooks. No two arrays of `args` may share memory (the kernels are compiled noalias).
    `lanes` (optional): the lockstep loop's form of `forces`, one call for the worlds of a
    thread that evaluate, k(args, x, S, i, world0, Q, t, h, n) (softmech.kernels.
    der_bend_twist_lanes.der_bend_twist_lanes_binding documents it), with its scratch
    x = lanes_scratch(args) (one per lockstep thread); its numbers per world must be those of
    `forces` bit for bit. `lanes_accept` (optional, with `lanes`): the lockstep loop's form of
    `accept`, k(args, x, S, world0, Q, n) for the worlds r = S.evaluating[0 .. n - 1] whose
    step converged (softmech.kernels.der_frames_lanes.der_bend_twist_accept_lanes documents
    it), with the same scratch; its history per world must be that of `accept` bit for bit."""
    name: str
    args: tuple
    forces: object
    update: object = None
    constrain: object = None
    accept: object = None
    lanes: object = None
    lanes_scratch: object = None
    lanes_accept: object = None

    def __post_init__(self):
        arrays = [(k, v) for k, v in zip(self.args._fields, self.args) if isinstance(v, np.ndarray)]
        for (ka, a), (kb, b) in itertools.combinations(arrays, 2):
            if a.size and b.size and np.may_share_memory(a, b):
                raise ValueError(f"binding {self.name!r}: its compiled arguments {ka} and {kb} "
                                 "share memory (the kernels assume they do not)")


def group_forms(forms):
    """Group the bindings' compiled forms by their kernels and argument types: returns groups
    (lists of forms), and per binding its group and its place in it. The generated loop calls
    each group's kernel at one place (a binding's arguments: T[group][place]), so that its size
    and compile time depend on the kinds of bindings, not on their number (three rods compile
    as one)."""
    import numba
    index, groups, kinds, members = {}, [], [], []
    for form in forms:
        key = (form.forces, form.update, form.constrain, form.accept, form.lanes,
               form.lanes_accept, numba.typeof(form.args))
        if key not in index:
            index[key] = len(groups)
            groups.append([])
        g = index[key]
        kinds.append(g)
        members.append(len(groups[g]))
        groups[g].append(form)
    return groups, kinds, members


def loop_source(groups):
    """Source text of the loop module for the groups of compiled forms (group_forms): one
    function, `run_steps`, in which every hook runs the bindings in binding order, each call
    dispatched on its group (no numba-level inlining), and the generic steps of
    softmech.kernels.newton (predict, begin_evaluation, newton_continue, finish_step)."""
    lines = ['"""Generated by softmech.implicit.compiled; do not edit."""',
             "import math",
             "from softmech.kernels.newton import (EVALUATE, EXPLODED, OK, SOLVE, "
             "begin_evaluation, begin_forces, finish_step, loop_kernel, max_abs, "
             "newton_continue, newton_solved, predict, sumsq)",
             "from softmech.kernels.newton_lockstep import (clear_jacobians, load_lane, "
             "solve_lanes, world_work)"]
    name = kernel_importer(lines)

    def hook(attr, call, indent, after=()):
        """Every binding in order: its group's `attr` kernel (skipped where it has none)."""
        branches = [(g, getattr(grp[0], attr)) for g, grp in enumerate(groups)
                    if getattr(grp[0], attr) is not None]
        if not branches:
            return []
        out = [f"{indent}for i in range(W.kinds.shape[0]):",
               f"{indent}    g = W.kinds[i]",
               f"{indent}    j = W.members[i]"]
        for n, (g, kernel) in enumerate(branches):
            out += [f"{indent}    {'if' if n == 0 else 'elif'} g == {g}:",
                    f"{indent}        {name(kernel)}(T[{g}][j], {call})"]
        return out + [f"{indent}    {line}" for line in after]

    for grp in groups:
        for kernel in (grp[0].forces, grp[0].update, grp[0].constrain, grp[0].accept,
                       grp[0].lanes, grp[0].lanes_accept):
            if kernel is not None:
                name(kernel)

    def lockstep_forces(indent):
        """The bindings' forces in lockstep, binding after binding: each binding for every
        world r = S.evaluating[e] (e < ne), a group's `lanes` kernel for all of them in one
        call, and each world's measure after each binding (as `measure` below)."""
        out = [f"{indent}for i in range(S.kinds.shape[0]):",
               f"{indent}    g = S.kinds[i]",
               f"{indent}    j = S.members[i]"]
        for g, grp in enumerate(groups):
            out.append(f"{indent}    {'if' if g == 0 else 'elif'} g == {g}:")
            if grp[0].lanes is not None:
                out.append(f"{indent}        {name(grp[0].lanes)}(T[{g}][j], X[{g}][j], S, i, "
                           "world0, Q, t, dt, ne)")
            else:
                out += [f"{indent}        for e in range(ne):",
                        f"{indent}            r = S.evaluating[e]",
                        f"{indent}            W = world_work(S, r)",
                        f"{indent}            {name(grp[0].forces)}(T[{g}][j], world0 + S.rows[r], "
                        "Q[S.rows[r]], W.v, t, dt, W.F, W.J[W.offsets[i]:W.offsets[i + 1]])"]
        return out + [f"{indent}    for e in range(ne):",
                      f"{indent}        r = S.evaluating[e]",
                      f"{indent}        if S.measure[r] == 1:",
                      f"{indent}            after = math.sqrt(sumsq(S.F[r]))",
                      f"{indent}            S.norms[r] += abs(after - S.before[r])",
                      f"{indent}            S.before[r] = after"]
    def lockstep_accept(indent):
        """The accept hooks in lockstep, binding after binding, for the worlds r =
        S.evaluating[e] (e < ne) whose step converged: a group's `lanes_accept` kernel for all
        of them in one call, else its `accept` world by world (each binding's history is its
        own, so the order across worlds is free)."""
        out = [f"{indent}for i in range(S.kinds.shape[0]):",
               f"{indent}    g = S.kinds[i]",
               f"{indent}    j = S.members[i]"]
        branches = [(g, grp[0]) for g, grp in enumerate(groups)
                    if grp[0].lanes_accept is not None or grp[0].accept is not None]
        for n, (g, form) in enumerate(branches):
            out.append(f"{indent}    {'if' if n == 0 else 'elif'} g == {g}:")
            if form.lanes_accept is not None:
                out.append(f"{indent}        {name(form.lanes_accept)}(T[{g}][j], X[{g}][j], S, "
                           "world0, Q, ne)")
            else:
                out += [f"{indent}        for e in range(ne):",
                        f"{indent}            r = S.evaluating[e]",
                        f"{indent}            {name(form.accept)}(T[{g}][j], world0 + S.rows[r], "
                        "Q[S.rows[r]])"]
        return out if branches else []

    # the round-off floor's estimate of each binding's force size, |F| after minus before
    # (ImplicitStepper.forces with measure=True), also for a binding that adds nothing
    measure = ["if measure:",
               "    after = math.sqrt(sumsq(W.F))",
               "    norms += abs(after - before)",
               "    before = after"]
    lines += ['', '', '@loop_kernel(nogil=True)     # (threads may step other simulations)',
              'def run_steps(T, W, world0, first, stride, Q, V, t_origin, step0, dt, n_steps, o,',
              '              exploding, status, done, counts):',
              '    """Steps step0 .. step0 + n_steps - 1, step i from t_origin + i dt',
              '    (ImplicitSimulation\'s clock), of the worlds in rows first, first + stride, ...',
              '    of (Q, V) (rows, n_dof), in place, one world after another with the same scratch',
              '    (T, W); row r holds world world0 + r (its rows of the per-world parameters).',
              '    Writes per row: status[r] (OK, or the status of the step that failed',
              '    (softmech.kernels.newton) or whose state exceeds `exploding` in absolute value',
              '    (EXPLODED), where that world stopped), done[r] (steps done) and counts[r, :]',
              '    (W.counts of that world: steps, iterations, evaluations, solves). One call for',
              '    all the worlds a thread steps: the argument tuples are unboxed once, not per',
              '    world (CompiledLoop.run_worlds)."""',
              '    for row in range(first, Q.shape[0], stride):',
              '        b = world0 + row',
              '        q = Q[row]',
              '        v = V[row]',
              '        for i in range(W.counts.shape[0]):',
              '            W.counts[i] = 0',
              '        status[row] = OK',
              '        done[row] = n_steps',
              '        for k in range(n_steps):',
              '            t = t_origin + (step0 + k) * dt + dt        # the end of the step',
              '            predict(W, q, v, dt)',
              *hook("constrain", "b, t, q", " " * 12),
              '            state = EVALUATE',
              '            measure = True              # the first evaluation (the predictor\'s)',
              '            while state == EVALUATE:',
              '                begin_evaluation(W, q, dt)',
              *hook("update", "b, t", " " * 16),
              '                norms = 0.0',
              '                before = 0.0',
              *hook("forces", "b, q, W.v, t, dt, W.F, W.J[W.offsets[i]:W.offsets[i + 1]]",
                    " " * 16, measure),
              '                state = newton_continue(W, o, q, dt, norms, True)',
              '                measure = False',
              '            if state == OK:',
              *_accept_source(hook),
              '                break',
              '        for i in range(W.counts.shape[0]):',
              '            counts[row, i] = W.counts[i]']
    lines += _lockstep_source(hook, lockstep_forces, lockstep_accept)
    return "\n".join(lines) + "\n"


def _accept_source(hook):
    """Source lines (inside a world's step, 12 spaces deep) that accept world `row`'s converged
    step (state OK): finish it, run the accept hooks, then _stop_source."""
    return ['                finish_step(W, q, v, dt)',
            *hook("accept", "b, q", " " * 16),
            *_stop_source()]


def _stop_source():
    """Source lines (12 spaces deep) after world `row`'s step has been accepted (state OK,
    q, v its state) or has failed: flag an exploding state; a world whose state is not OK
    records its status and step and stops. Shared by the per-world and the lockstep loops."""
    return ['                if not (max_abs(q) <= exploding and max_abs(v) <= exploding):',
            '                    state = EXPLODED',
            '            if state != OK:',
            '                status[row] = state',
            '                done[row] = k']


def _lockstep_source(hook, lockstep_forces, lockstep_accept):
    """Lines of `run_steps_lockstep` (loop_source's hooks): run_steps's worlds advanced
    together in rounds: in each, one Newton evaluation of every world that needs one -- the
    bindings' forces binding after binding across those worlds (lockstep_forces: a binding
    with a lanes kernel evaluates them LANES at a time, softmech.kernels.der_bend_twist_lanes),
    each world's own operations in the per-world loop's order -- then each world's Newton step,
    and the Newton systems that are due solved across worlds (softmech.kernels.band_lanes), a
    chunk of LANES worlds as soon as it is full, until each world's step has converged or
    failed; then the converged worlds' steps are finished and accepted together
    (lockstep_accept: a binding with a lanes_accept kernel accepts them LANES at a time)."""
    return [
        '', '', '@loop_kernel(nogil=True)',
        'def run_steps_lockstep(T, X, S, world0, first, stride, Q, V, t_origin, step0, dt,',
        '                       n_steps, o, exploding, status, done, counts):',
        '    """run_steps (same arguments, same answers per row) with the worlds of rows first,',
        '    first + stride, ... in lockstep: S (softmech.kernels.newton_lockstep.LockstepWork,',
        '    a row per world) instead of W, and X[g][j] the scratch of binding T[g][j]\'s lanes',
        '    kernel (() for a group without one). Each world takes its own Newton iterations,',
        '    line search and status; a world that has converged waits for the others of its',
        '    step, one that fails stops (its status, steps done) and the others go on."""',
        '    n = 0',
        '    for row in range(first, Q.shape[0], stride):',
        '        S.rows[n] = row',
        '        S.alive[n] = 1',
        '        status[row] = OK',
        '        done[row] = n_steps',
        '        for i in range(S.counts.shape[1]):',
        '            S.counts[n, i] = 0',
        '        n += 1',
        '    for k in range(n_steps):',
        '        t = t_origin + (step0 + k) * dt + dt        # the end of the step',
        '        for r in range(n):',
        '            S.phase[r] = OK',
        '            if S.alive[r] == 0:',
        '                continue',
        '            W = world_work(S, r)',
        '            b = world0 + S.rows[r]',
        '            q = Q[S.rows[r]]',
        '            predict(W, q, V[S.rows[r]], dt)',
        *hook("constrain", "b, t, q", " " * 12),
        '            S.phase[r] = EVALUATE',
        '            S.measure[r] = 1',
        '        busy = True',
        '        while busy:',
        '            ne = 0                        # worlds that evaluate in this round',
        '            clear_jacobians(S)',
        '            for r in range(n):',
        '                if S.phase[r] == EVALUATE:',
        '                    W = world_work(S, r)',
        '                    b = world0 + S.rows[r]',
        '                    q = Q[S.rows[r]]',
        '                    begin_forces(W, q, dt)',
        *hook("update", "b, t", " " * 20),
        '                    S.norms[r] = 0.0',
        '                    S.before[r] = 0.0',
        '                    S.evaluating[ne] = r',
        '                    ne += 1',
        *lockstep_forces(" " * 12),
        '            m = 0                         # lanes loaded for the next solve',
        '            for e in range(ne):',
        '                r = S.evaluating[e]',
        '                W = world_work(S, r)',
        '                state = newton_continue(W, o, Q[S.rows[r]], dt, S.norms[r], False)',
        '                S.measure[r] = 0',
        '                S.phase[r] = state',
        '                if state == SOLVE:',
        '                    load_lane(W, S.lanes, m)',
        '                    S.lane_world[m] = r',
        '                    m += 1',
        '                # a full chunk is solved at once; the last one after the last world',
        '                # (one call site: the solve is compiled into this function once)',
        '                if m == S.lane_world.shape[0] or (e == ne - 1 and m > 0):',
        '                    solve_lanes(S, m)',
        '                    for lane in range(m):',
        '                        rl = S.lane_world[lane]',
        '                        W = world_work(S, rl)',
        '                        S.phase[rl] = newton_solved(W, o, Q[S.rows[rl]], S.lanes.rhs,',
        '                                                    lane, S.lanes.info[lane])',
        '                    m = 0',
        '            busy = False',
        '            for r in range(n):',
        '                if S.phase[r] == EVALUATE:',
        '                    busy = True',
        '        ne = 0                            # the worlds whose step converged',
        '        for r in range(n):',
        '            if S.alive[r] == 1 and S.phase[r] == OK:',
        '                W = world_work(S, r)',
        '                finish_step(W, Q[S.rows[r]], V[S.rows[r]], dt)',
        '                S.evaluating[ne] = r',
        '                ne += 1',
        *lockstep_accept(" " * 8),
        '        for r in range(n):',
        '            if S.alive[r] == 0:',
        '                continue',
        '            row = S.rows[r]',
        '            state = S.phase[r]',
        '            q = Q[row]',
        '            v = V[row]',
        '            if state == OK:',
        *_stop_source(),
        '                S.alive[r] = 0',
        '    for r in range(n):',
        '        for i in range(S.counts.shape[1]):',
        '            counts[S.rows[r], i] = S.counts[r, i]']


class CompiledLoop:
    """The compiled Newton loop of an ImplicitStepper whose bindings all have compiled forms
    (`forms`, in binding order, with `sizes` Jacobian entries each) and whose pattern
    (softmech.implicit.linear.JacobianPattern) is banded. `run` advances one world."""

    def __init__(self, forms, sizes, pattern, mass, options):
        self.forms = tuple(forms)
        groups, kinds, members = group_forms(self.forms)
        self.groups = groups
        self.module = load_generated(loop_source(groups), "newton")
        self.T = tuple(tuple(f.args for f in grp) for grp in groups)
        n_dof, n_free = mass.size, pattern.n_free
        nnz = int(sum(sizes))
        self.W = NewtonWork(
            mass=np.ascontiguousarray(mass, dtype=float), free=pattern.free.astype(np.int64),
            q_n=np.zeros(n_dof), v_n=np.zeros(n_dof), v=np.zeros(n_dof), F=np.zeros(n_dof),
            J=np.zeros(nnz), offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            kinds=np.array(kinds, dtype=np.int64), members=np.array(members, dtype=np.int64),
            R=np.zeros(n_free), dq=np.zeros(n_free), q_free=np.zeros(n_free),
            diagonal=np.zeros(n_free), tmp=np.zeros(n_dof),
            q_watch=np.zeros(n_dof), dq_watch=np.zeros(n_free),
            band=pattern.band,    # the pattern's storage and scratch (its Python solve's too)
            counts=np.zeros(len(COUNTS_FIELDS), dtype=np.int64),
            state=np.zeros(5, dtype=np.int64), fstate=np.zeros(4))
        self._contexts = [(self.T, self.W)]    # (T, W) of each worker thread (run_worlds)
        self._lockstep = {}                     # (thread, lanes): (T, LockstepWork)
        self.lockstep = options.lockstep
        self.options = LoopOptions(float(options.rtol), float(options.atol), float(options.xtol),
                                   int(options.max_iterations), int(options.max_line_search),
                                   bool(options.line_search), int(options.relaxed_steps))

    def uses_lockstep(self, worlds):
        """Whether run_worlds steps a batch of `worlds` worlds in lockstep:
        NewtonOptions.lockstep, or where it is None, from LOCKSTEP_MIN_WORLDS worlds on
        (docs/implicit.md: where it pays) -- a choice by the batch alone, not by the thread
        count, so that a batch's results do not depend on the machine."""
        if self.lockstep is not None:
            return bool(self.lockstep)
        return worlds >= LOCKSTEP_MIN_WORLDS

    def run_worlds(self, q, v, t_origin, step0, dt, n_steps, exploding):
        """Advance every world's (q, v) (B, n_dof) C-contiguous, in place, by n_steps steps of
        dt (as `run` for b = 0 .. B - 1), the worlds spread over worker threads (the loop
        releases the GIL): as many as numba's thread count (softmech.threads.block_pool),
        at most B, one compiled call each over worlds k, k + threads, ..., each thread with
        its own Newton scratch and its own copies of the bindings' scratch
        (softmech.kernels.implicit_bindings.SCRATCH). One thread where a binding's arguments
        are not known to be safe to share (implicit_bindings.threads_safe).

        Per world (run_steps), every world computes what `run` computes alone, bit for bit.
        In lockstep (uses_lockstep: run_steps_lockstep), a thread's worlds advance together
        and their Newton systems are solved in one call across worlds
        (softmech.kernels.band_lanes): each world's numbers are then the same bit for bit
        whatever the batch and the thread count (B = 1 in lockstep included), and differ from
        the per-world loop's by the linear solve's round-off (LAPACK's Cholesky or LU there),
        well within the Newton tolerance. Returns (status (B,) int64, counts (B, 4) int64:
        each world's steps, iterations, evaluations, solves)."""
        import numba
        worlds = q.shape[0]
        status = np.zeros(worlds, dtype=np.int64)
        done = np.zeros(worlds, dtype=np.int64)
        counts = np.zeros((worlds, len(COUNTS_FIELDS)), dtype=np.int64)
        n_workers = min(worlds, numba.get_num_threads())
        if n_workers > 1 and not all(threads_safe(f.args, worlds) for f in self.forms):
            n_workers = 1
        args = (float(t_origin), int(step0), float(dt), int(n_steps), self.options,
                float(exploding), status, done, counts)
        if self.uses_lockstep(worlds):
            lanes = -(-worlds // n_workers)
            run, contexts = self.module.run_steps_lockstep, [
                self._lockstep_context(k, lanes) for k in range(n_workers)]
        else:
            while len(self._contexts) < n_workers:
                self._contexts.append((_copy_scratch(self.T), _copy_work(self.W)))
            run, contexts = self.module.run_steps, self._contexts

        def work(k):
            # worlds k, k + n_workers, ...: one compiled call per thread, so that a block of
            # steps unboxes the argument tuples once per thread, not once per world; contexts:
            # (T, W), in lockstep (T, X, S)
            run(*contexts[k], 0, k, n_workers, q, v, *args)

        if n_workers == 1:
            work(0)
        else:
            list(block_pool().map(work, range(n_workers)))
        return status, counts

    def _lockstep_context(self, thread, lanes):
        """(T, X, LockstepWork) of worker thread `thread` for at most `lanes` worlds, made
        once: X[g][j] the scratch of binding T[g][j]'s lanes kernel (CompiledForm.lanes; ()
        for a group without one); thread 0 shares the bindings' scratch with the per-world
        loop (thread 0's)."""
        key = (thread, lanes)
        if key not in self._lockstep:
            T = self.T if thread == 0 else _copy_scratch(self.T)
            X = tuple(tuple(grp[0].lanes_scratch(args) for args in T[g])
                      if grp[0].lanes is not None else () for g, grp in enumerate(self.groups))
            self._lockstep[key] = (T, X, lockstep_work(self.W, lanes))
        return self._lockstep[key]

    def run(self, b, q, v, t_origin, step0, dt, n_steps, exploding):
        """Advance world b's (q, v) (n_dof,) C-contiguous, in place, by n_steps steps of dt
        from step step0 of the clock that starts at t_origin [s]. Returns (status, steps done,
        counts (4,): steps, iterations, evaluations, solves of this call)."""
        status = np.zeros(1, dtype=np.int64)
        done = np.zeros(1, dtype=np.int64)
        counts = np.zeros((1, len(COUNTS_FIELDS)), dtype=np.int64)
        self.module.run_steps(self.T, self.W, int(b), 0, 1, q[None], v[None], float(t_origin),
                              int(step0), float(dt), int(n_steps), self.options,
                              float(exploding), status, done, counts)
        return int(status[0]), int(done[0]), counts[0]


def _copy_scratch(T):
    """The loop's argument tuples T[group][place] with their SCRATCH fields copied (what a
    worker thread of run_worlds writes alone); every other array shared."""
    return tuple(tuple(with_own_scratch(args) for args in group) for group in T)


def _copy_work(W):
    """A NewtonWork with its own arrays (and its own band storage and LAPACK scratch)."""
    return W._replace(band=W.band._replace(**{k: v.copy() for k, v in W.band._asdict().items()}),
                      **{k: v.copy() for k, v in W._asdict().items() if k != "band"})


def lockstep_work(W, lanes):
    """A LockstepWork for `lanes` worlds of the loop whose NewtonWork is W: W's shared arrays
    (read only), a row per world of its per-world ones, and the storage of one chunk of the
    lanes solve (LANES worlds, solved as soon as they are loaded); the lanes assembly and
    solve compiled for them with LLVM's SLP vectorizer (band_lanes.compile_assembly,
    allocate)."""
    band = W.band
    n, kd = int(band.lapack_ints[0]), int(band.lapack_ints[7])
    S = LockstepWork(
        mass=W.mass, free=W.free, offsets=W.offsets, kinds=W.kinds, members=W.members,
        band=band, **{k: np.zeros((lanes,) + getattr(W, k).shape, getattr(W, k).dtype)
                      for k in PER_WORLD},
        J=np.zeros(W.J.shape + (lanes,)),
        lanes=band_lanes.allocate(n, kd, kd),
        rows=np.zeros(lanes, np.int64), phase=np.zeros(lanes, np.int64),
        measure=np.zeros(lanes, np.int64), alive=np.zeros(lanes, np.int64),
        lane_world=np.zeros(band_lanes.LANES, np.int64),
        evaluating=np.zeros(lanes, np.int64), norms=np.zeros(lanes), before=np.zeros(lanes))
    band_lanes.compile_assembly(S.J, band.slot_of_entry, S.lanes.ab)
    return S
