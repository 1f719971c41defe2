"""What the implicit integrator (softmech.integrators.implicit) carries from step to step, and
how it is saved and put back: for a restart from a file that continues bit for bit
(memory / restore_memory, per-world arrays) and for a chunk that fails and is redone
(keep / restore_kept, the solver's own layout, no conversion)."""
import numpy as np


FACTOR_LAYOUT = 1
"""memory()'s "factor_layout": the kept factors' values are in the order of the solve's passes
(softmech.integrators.sparse_pattern.pass_layout, since 2026-12-06). A memory without it was
saved with the factor's columns stored whole: restore_memory reorders its values."""


class IntegratorMemory:
    """The memory half of ImplicitIntegrator (a base class; it reads the integrator's solver,
    lanes, options, kinds, couplings and pattern builder)."""

    MEMORY_LANES = ("U_old", "values", "refresh", "age")
    """Solver arrays carried from step to step per world (lane): the last step's velocities
    (the predictor's), the kept LU factor, its refresh flag and age."""
    MEMORY_BLOCKS = ("history", "factored_h")
    """... and per block: how many past steps the predictor may extrapolate from, the step
    size factored at."""

    def _lane_keys(self):
        """MEMORY_LANES, the velocities of the step before (U_old2) for predictor 2, whether
        the last step crossed a kink (rough) with the predictor's guard, and the last finite
        differences (fd_values) with analytic Jacobians."""
        return self.MEMORY_LANES + (("U_old2",) if self.options.predictor == 2 else ()) + (
            ("rough",) if self.options.predictor_guard else ()) + (
            ("fd_values",) if self._analytic else ())

    def memory(self):
        """What the integrator carries between steps, {key: array} (copies), for a restart that
        continues bit for bit: the sparsity's couplings (2, n) and the MEMORY_LANES and
        MEMORY_BLOCKS arrays per world (B, ...) (a block's value repeated for its worlds); with
        ImplicitOptions.predictor 2, U_old2; with ImplicitOptions.predictor_guard, rough (B,);
        with ImplicitOptions.corotate, each kind's frames
        of the factorization ("frames<j>", (B, 9, n_q))."""
        s, lanes = self.solver, self.lanes
        out = {"couplings": np.stack(self._couplings), "factor_layout": np.array(FACTOR_LAYOUT)}
        for key in self._lane_keys():
            arr = getattr(s, key)                                       # (nb, ..., W)
            # (a copy: with one lane per block the reshape is a view of the solver's array)
            out[key] = np.moveaxis(arr, -1, 1).reshape((-1,) + arr.shape[1:-1])[
                :lanes.worlds].copy()
        if "fd_values" in out:      # files hold them in the factor's values layout
            out["fd_values"] = self._fd_spread(out["fd_values"])
        if self.options.corotate:
            for j, a in enumerate(self.kinds):
                nb, _, size = a.Qf.shape
                per = np.moveaxis(a.Qf.reshape(nb, 9, size // lanes.W, lanes.W), -1, 1)
                out[f"frames{j}"] = per.reshape((-1, 9, size // lanes.W))[:lanes.worlds].copy()
        for key in self.MEMORY_BLOCKS:
            # a step size never factored (NaN) is saved as 0: also "refactor at the next step"
            out[key] = np.nan_to_num(np.repeat(getattr(s, key), lanes.W)[:lanes.worlds], nan=0.0)
        return out

    def _memory_arrays(self):
        """The arrays memory() reads, in the solver's own layout (blocks, ..., lanes)."""
        s = self.solver
        arrays = [getattr(s, key) for key in self._lane_keys() + self.MEMORY_BLOCKS]
        if self.options.corotate:
            arrays += [a.Qf for a in self.kinds]
        return arrays

    def keep(self):
        """Copy what memory() holds, in the solver's own layout, into buffers allocated once
        (again when the pattern changed): a chunk's fallback (softmech.simulation), which
        restore_kept puts back. memory() itself converts to per-world arrays for files: the
        1,032-triangle plate's 16 worlds copied their 35 MB of factors twice per chunk with it,
        0.093 of a 0.51 s run on one thread; in this layout 9.3 ms per chunk (the copy is
        memory-bound: on the blocks' two threads 9.3 ms as well, and the manta's 5.4 MB took
        0.47 ms against 0.41 ms on one, 2026-12-05)."""
        arrays = self._memory_arrays()
        if self._kept is None or any(b.shape != a.shape for b, a in zip(self._kept[1], arrays)):
            self._kept = (None, [np.empty_like(a) for a in arrays])
        for buffer, a in zip(self._kept[1], arrays):
            np.copyto(buffer, a)
        self._kept = (np.stack(self._couplings), self._kept[1])

    def restore_kept(self):
        """Put back what keep() copied (the pattern rebuilt first if the couplings changed
        since: a failing block probes them again)."""
        couplings, buffers = self._kept
        if not np.array_equal(couplings, np.stack(self._couplings)):
            self._couplings = (couplings[0].copy(), couplings[1].copy())
            self._build_pattern()
        for buffer, a in zip(buffers, self._memory_arrays()):
            np.copyto(a, buffer)
        self._round_factors()

    def _round_factors(self):
        """The single-precision copy that the solves read (SolverArgs.single) from the kept
        factors, after they were put back: rounded as softmech.kernels.sparse_lu.single_factor
        rounds them (to nearest), so it is not saved."""
        if self.options.single_solves:
            np.copyto(self.solver.single, self.solver.values, casting="same_kind")

    def restore_memory(self, arrays):
        """Set the memory() of a saved run (same scene and worlds): its couplings (the pattern
        rebuilt from them if they differ from the probed ones), then the arrays. A block whose
        worlds disagree on a block value (the run was saved with another blocking) refactors
        and does not extrapolate at its next step (factored_h 0, history 0)."""
        missing = sorted({"couplings", *self.MEMORY_LANES, *self.MEMORY_BLOCKS} - set(arrays))
        if missing:
            raise ValueError(f"implicit integrator memory: {missing} missing (saved: "
                             f"{sorted(arrays)})")
        for key in self.MEMORY_BLOCKS:
            if np.shape(arrays[key]) != (self.lanes.worlds,):
                raise ValueError(f"implicit integrator memory: {key} has shape "
                                 f"{np.shape(arrays[key])}, expected ({self.lanes.worlds},)")
        couplings = np.asarray(arrays["couplings"], dtype=np.int64)
        if couplings.ndim != 2 or couplings.shape[0] != 2 or np.any(couplings < 0) or np.any(
                couplings >= self.n_dof):
            raise ValueError(f"implicit integrator memory: couplings of shape {couplings.shape} "
                             f"do not fit this scene's {self.n_dof} degrees of freedom")
        if not np.array_equal(couplings, np.stack(self._couplings)):
            self._couplings = (couplings[0].copy(), couplings[1].copy())
            self._build_pattern()
        arrays = self._fd_gathered(self._in_factor_layout(arrays))
        s, lanes = self.solver, self.lanes
        world = lanes.world_of_lane.reshape(lanes.n_blocks, lanes.W)
        lane_keys = [k for k in self._lane_keys() if k in arrays or k in self.MEMORY_LANES]
        for key in lane_keys:
            arr = getattr(s, key)
            saved = np.asarray(arrays[key])
            if saved.shape != (lanes.worlds,) + arr.shape[1:-1]:
                raise ValueError(f"implicit integrator memory: {key} has shape {saved.shape}, "
                                 f"expected {(lanes.worlds,) + arr.shape[1:-1]}")
            arr[...] = np.moveaxis(saved[world], 1, -1)
        for key in self.MEMORY_BLOCKS:
            saved = np.asarray(arrays[key])[world]                           # (nb, W)
            same = np.all(saved == saved[:, :1], axis=1)
            fallback = 0
            getattr(s, key)[...] = np.where(same, saved[:, 0], fallback)
        if self.options.predictor == 2 and "U_old2" not in arrays:
            np.minimum(s.history, 1, out=s.history)     # saved without it: linearly at most
        if "rough" not in lane_keys:                    # saved without the guard: smooth
            s.rough[...] = 0
        if self._analytic and "fd_values" not in lane_keys:     # new differences at once
            s.age[...] = self.options.max_age
        if self.options.corotate:
            self._restore_frames(arrays, world)
        self._round_factors()

    def _in_factor_layout(self, arrays):
        """arrays with the factor's values (and the last finite differences, in the same
        layout) in FACTOR_LAYOUT: a memory saved before it held each column whole
        (sparse_pattern.columns_of), reordered here so that the run continues bit for bit."""
        layout = arrays.get("factor_layout")
        if layout is not None:
            layout = np.asarray(layout)
            if layout.shape != () or layout.dtype.kind not in "iu" or layout != FACTOR_LAYOUT:
                raise ValueError(f"implicit integrator memory: factor_layout {layout.tolist()!r} "
                                 f"is not known (this version writes {FACTOR_LAYOUT})")
            return arrays
        from softmech.integrators.sparse_pattern import columns_of, pass_layout
        where = pass_layout(*columns_of(self.pattern.lptr, self.pattern.uptr))[2]
        arrays = dict(arrays)
        for key in ("values", "fd_values"):
            saved = np.asarray(arrays[key]) if key in arrays else None
            if saved is not None and saved.ndim >= 2 and saved.shape[1] == where.size:
                moved = np.empty_like(saved)
                moved[:, where] = saved
                arrays[key] = moved
        return arrays

    def _fd_spread(self, kept):
        """The last finite differences kept at their entries (worlds, n_entries) (SolverArgs
        .fd_values) in the factor's values layout (worlds, nnz), as memory() has always saved
        them: zero elsewhere, which they are (softmech.kernels.analytic_jacobian
        .keep_differences)."""
        spread = np.zeros((kept.shape[0], self.solver.values.shape[1]))
        spread[:, self.solver.entry_pos] = kept
        return spread

    def _fd_gathered(self, arrays):
        """arrays with memory()'s finite differences (worlds, nnz), in the factor's values
        layout, gathered at their entries' positions (worlds, n_entries) as the solver keeps
        them."""
        if "fd_values" not in arrays:
            return arrays
        saved, nnz = np.asarray(arrays["fd_values"]), self.solver.values.shape[1]
        if saved.shape != (self.lanes.worlds, nnz):
            raise ValueError(f"implicit integrator memory: fd_values has shape {saved.shape}, "
                             f"expected {(self.lanes.worlds, nnz)}")
        return dict(arrays, fd_values=saved[:, self.solver.entry_pos])

    def _restore_frames(self, arrays, world):
        """The kinds' frames of the factorization from memory() (corotate); a memory without
        them (saved without corotate) has every Jacobian renewed at the next step."""
        s, W = self.solver, self.lanes.W
        if any(f"frames{j}" not in arrays for j in range(len(self.kinds))):
            s.refresh[...] = 1
            return
        for j, a in enumerate(self.kinds):
            nb, _, size = a.Qf.shape
            saved = np.asarray(arrays[f"frames{j}"], dtype=float)
            if saved.shape != (self.lanes.worlds, 9, size // W):
                raise ValueError(f"implicit integrator memory: frames{j} has shape "
                                 f"{saved.shape}, expected {(self.lanes.worlds, 9, size // W)}")
            a.Qf[...] = np.moveaxis(saved[world], 1, -1).reshape(nb, 9, size)
