"""The worlds of an implicit scene stepped side by side: one step of every world, the worlds
spread over worker threads (softmech.threads.block_pool, as many as numba's thread count, at
most B), each thread with its own ImplicitStepper (ImplicitStepper.for_thread: its own scratch,
the worlds' kept preconditioners and history shared, each world stepped by one thread).

This is the batched path of the scenes that the compiled Newton loop does not run (a sparse
Newton matrix: shells, rod networks; a binding without a compiled form): their Newton
iterations are Python, but their heavy parts -- the bindings' kernels, the assembly, the
compiled GMRES with its preconditioner (softmech.kernels.factored_krylov,
softmech.kernels.multigrid_cycle) -- release the GIL, so two threads step two worlds at once
where the Python between them allows. What a world computes does not depend on the thread that
steps it nor on the other worlds, so the results are those of one thread, bit for bit
(tests/unit/test_implicit_batched_sparse.py). Scenes whose stepper cannot be shared
(ImplicitStepper.for_thread is None: contact, which rebuilds the scene's Jacobian structure per
world; a binding not known to be safe) step their worlds one after another, as before.
"""
import numba

from softmech.threads import block_pool


class WorldSteps:
    """One step of every world of `stepper`'s scene (B = worlds), on worker threads where the
    stepper allows it."""

    def __init__(self, stepper, worlds):
        self.stepper = stepper
        self.worlds = worlds
        self._twins = []            # the worker threads' steppers beyond the first
        self._shareable = True

    def steppers(self):
        """The steppers of the threads to use now: [stepper] alone, or it and its twins."""
        n = min(self.worlds, numba.get_num_threads())
        while self._shareable and len(self._twins) < n - 1:
            twin = self.stepper.for_thread(self.worlds)
            if twin is None:
                self._shareable = False
            else:
                self._twins.append(twin)
        if not self._shareable or n < 2:
            return [self.stepper]
        return [self.stepper] + self._twins[:n - 1]

    def step(self, method, q, v, t, dt):
        """Call stepper.`method`(b, q[b], v[b], t, dt) (ImplicitStepper.step or explicit_step)
        for every world b; returns a list (B,) of its results (q, v) or the exception it raised
        (an Exception: NewtonFailed, or another error to re-raise). A thread stops at its first
        failing world (its later worlds' entries stay None): the caller, going through the
        worlds in order, meets that failure first. With one thread the worlds run in order and
        stop at the first failure, as a Python loop over them did."""
        steppers = self.steppers()
        n = len(steppers)
        out = [None] * self.worlds

        def work(k):
            stepper = steppers[k]
            for b in range(k, self.worlds, n):
                try:
                    out[b] = getattr(stepper, method)(b, q[b], v[b], t, dt)
                except Exception as err:        # reported in world order by the caller
                    out[b] = err
                    return

        if n == 1:
            work(0)
        else:
            list(block_pool().map(work, range(n)))
            for twin in steppers[1:]:
                self.stepper.add_stats(twin)
        return out
