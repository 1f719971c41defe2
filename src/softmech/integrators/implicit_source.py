"""The compiled Newton loop of the implicit integrator of Cosserat rods and rigid bodies
(softmech.integrators.implicit): IMPLICIT_SOURCE, its two entry points (evaluate: the
constraints, the residual, the finite differences' residual; implicit_block: the steps with
halving, each a modified Newton iteration with a colored finite-difference Jacobian), completed
per scene by implicit_source with the explicit engine's term hooks
(softmech.integrators.driver.step_source) and the body kinds' implicit hooks
(softmech.kernels.implicit_motion, softmech.kernels.corotation). Status codes: 0 ok,
1 non-finite, 2 rotation (softmech.kernels.rod_motion), 3 not converged, 4 singular."""
from softmech.integrators.driver import kernel_importer, step_source
# the watchdog line search's budgets per lane (softmech.kernels.implicit_newton.judge_lanes):
# the discrete engine's defaults
from softmech.kernels.newton import MAX_LINE_SEARCH, RELAXED_STEPS

CONSTRAIN, RESIDUAL, DIFFERENCES = 0, 1, 2
"""What evaluate computes (its `mode`): the state of the velocities with the constraints
imposed; the residual; the residual of the finite differences (the calls that have analytic
Jacobians replaced by their `without`, softmech.integrators.analytic)."""

IMPLICIT_SOURCE = f"""

CONSTRAIN, RESIDUAL, DIFFERENCES = {CONSTRAIN}, {RESIDUAL}, {DIFFERENCES}
""" + '''

@kernel(unliteral=True)
def evaluate(T, S, bi, W, t, h, U, R, mode):
    """The state of velocities U (n_dof, W) for a step of h ending at t, constraints imposed,
    and unless mode is CONSTRAIN, R <- its residual (n_dof, W) (mode DIFFERENCES: the finite
    differences', without the forces of the calls that have analytic Jacobians). One function
    for the three (mode a plain integer, not a constant numba would compile a copy for): each
    entry point compiles to machine code on its own and again inside every caller."""
    place(S, bi, W, h, U)
    positions(T, bi, W, t)
    rates(T, bi, W, t)
    if mode != CONSTRAIN:
        # @splice forces
        accelerations(T, bi, W)
        residual(S, bi, W, h, U, R)


@kernel(nogil=True)
def implicit_block(T, S, N, bi, W, t_origin, step0, dt, n_steps, tol, max_iterations,
                   max_halvings, delta, max_age, refresh_rate, corotate, predictor, guard):
    """Steps step0 .. step0 + n_steps - 1 of block bi (step i ends at t_origin + (i + 1) dt);
    a failing step is redone as 2, 4, ... substeps. Returns a status code (0: all done; else
    the state is that of the failing step's start, after the steps before it).

    Each step solves for every lane of block bi from the guess in N.U, leaving the state at
    the solution (constraints imposed). Each Newton pass evaluates the residual at every
    lane's point, lets the line search judge the lanes' trial points
    (softmech.kernels.implicit_newton.judge_lanes), computes the Jacobians asked for at
    accepted points, solves, and applies the accepted lanes' corrections (update_lanes); a
    lane makes at most max_iterations corrections, RELAXED_STEPS full steps without enough
    decrease and MAX_LINE_SEARCH halvings in each line search.

    The Newton matrix of the lanes flagged in N.fresh is taken by finite differences over
    the coloring, plus the entries of the terms with analytic Jacobians (the snippets
    fd_base and add_entries: softmech.integrators.analytic; their forces are left out of the
    differences, and a lane that renews only them reuses its last differences: fd_lanes),
    factored in place (their N.refresh flags cleared; with SOLVE_SINGLE rounded to the
    single-precision copy that the solves then read, N.single: softmech.kernels.sparse_lu);
    corotate: the frames are kept.

    One function, written out: the Newton iteration and the Jacobian are not functions that
    numba inlines, nor are the analytic Jacobians' hooks (they are spliced in, SPLICE). numba
    gives each inlined function that reads T, S or N in more than one block its own copy of
    them, which LLVM splits into thousands of scalars: with the iteration, the Jacobian and
    the hooks inlined, LLVM's function passes on this function took 15.3 s of a discrete
    rod's cold start, written out 4.1 s (docs/benchmarks.md)."""
    U = N.U[bi]
    R = N.R[bi]
    dU = N.dU[bi]
    b = N.b[bi]
    norm = N.norm[bi]
    phi = N.phi[bi]
    prev = N.prev[bi]
    active = N.active[bi]
    refresh = N.refresh[bi]
    Up = N.Up[bi]
    Rp = N.Rp[bi]
    eps = N.eps[bi]
    vals = N.values[bi]
    fresh_lanes = N.fresh[bi]
    n_colors = N.color_ptr.shape[0] - 1
    for step in range(step0, step0 + n_steps):
        copy_states(S, bi, False, True, False)
        depth = 0
        while True:
            n_sub = 1 << depth
            h = dt / n_sub
            status = 0
            for sub in range(n_sub):
                t = t_origin + step * dt + (sub + 1) * h
                copy_states(S, bi, True, False, False)
                gather(S, bi, W, U)
                predict(U, N.U_old[bi], N.U_old2[bi],
                        min(N.history[bi], predictor) if n_sub == 1 else 0, N.rough[bi])
                # -- the Newton iteration of the step of h ending at t
                if N.factored_h[bi] != h:
                    N.factored_h[bi] = h
                    for lane in range(W):
                        refresh[lane] = 1
                for lane in range(W):
                    active[lane] = 1
                    prev[lane] = np.inf
                    N.searching[bi, lane] = 0
                    N.iterations[bi, lane] = 0
                    N.watch[bi, lane] = 0
                    N.relaxed[bi, lane] = 0
                    N.rough[bi, lane] = 0
                    if N.age[bi, lane] >= max_age:
                        refresh[lane] = 1
                # @splice renew_analytic
                status = 3
                for it in range(max_iterations * (MAX_LINE_SEARCH + 2)):
                    evaluate(T, S, bi, W, t, h, U, R, RESIDUAL)
                    N.counts[bi, 2] += 1
                    N.counts[bi, 5] += 1
                    # (NaN where any entry is not finite; summed per lane, so the loop needs
                    # no reassociation to vectorize; phi is the merit's accumulator, zeroed
                    # after)
                    for lane in range(W):
                        phi[lane] = 0.0
                    for d in range(R.shape[0]):
                        for lane in range(W):
                            phi[lane] += R[d, lane] * 0.0 * active[lane]
                    finite = 0.0
                    for lane in range(W):
                        finite += phi[lane]
                    if not np.isfinite(finite):
                        status = 1
                        break
                    for lane in range(W):
                        phi[lane] = 0.0
                    merit(S, bi, W, h, R, phi)
                    for lane in range(W):
                        phi[lane] *= 0.5
                    retrying, failed = judge_lanes(
                        U, N.U_watch[bi], N.dU_watch[bi], phi, N.phi_watch[bi], active,
                        N.searching[bi], N.watch[bi], N.exact_watch[bi], N.backtracks[bi],
                        N.relaxed[bi], refresh, prev, fresh_lanes, N.retry[bi],
                        MAX_LINE_SEARCH, RELAXED_STEPS)
                    if failed:
                        break
                    if guard:
                        mark_rough(N.rough[bi], N.retry[bi], W)
                    waiting = 0
                    for lane in range(W):
                        waiting += active[lane]
                    if retrying == waiting:     # every lane moved back along its line
                        continue
                    fresh = 0
                    for lane in range(W):
                        fresh += fresh_lanes[lane]
                    if corotate:
                        node_rotations(S, bi, W)
                    bad = -1
                    if fresh > 0:
                        # -- the Jacobian of the fresh lanes; R holds the residual at U
                        if corotate:
                            keep_frames(S, bi, W, fresh_lanes)
                        perturbation(S, bi, W, h, U, eps, delta)
                        # @splice fd_lanes
                        differences = 0         # lanes taking new differences
                        for lane in range(W):
                            differences += lanes[lane]
                        # (every fresh lane starts from zero; those renewing their
                        # analytic entries alone then take their kept differences back:
                        # add_entries)
                        if fresh == W:              # (every lane: one flat loop)
                            flat = vals.reshape(vals.size)
                            for p in range(flat.shape[0]):
                                flat[p] = 0.0
                        else:
                            for p in range(vals.shape[0]):
                                for lane in range(W):
                                    vals[p, lane] = (0.0 if fresh_lanes[lane] != 0
                                                     else vals[p, lane])
                        # @splice fd_base
                        for d in range(U.shape[0]):
                            for lane in range(W):
                                Up[d, lane] = U[d, lane]
                        for c in range(n_colors if differences > 0 else 0):
                            for q in range(N.color_ptr[c], N.color_ptr[c + 1]):
                                j = N.color_dofs[q]
                                for lane in range(W):
                                    if lanes[lane] != 0:
                                        Up[j, lane] = U[j, lane] + eps[j, lane]
                            evaluate(T, S, bi, W, t, h, Up, Rp, DIFFERENCES)
                            for q in range(N.color_ptr[c], N.color_ptr[c + 1]):
                                j = N.color_dofs[q]
                                for lane in range(W):
                                    Up[j, lane] = U[j, lane]
                                for e in range(N.col_ptr[j], N.col_ptr[j + 1]):
                                    entry = N.col_entries[e]
                                    r = N.coupling_rows[entry]
                                    pos = N.entry_pos[entry]
                                    for lane in range(W):
                                        if lanes[lane] != 0:
                                            vals[pos, lane] = (Rp[r, lane] - R0[r, lane]) \
                                                / eps[j, lane]
                        # @splice add_entries
                        if differences > 0:
                            N.counts[bi, 2] += n_colors
                        N.counts[bi, 3] += 1
                        if W == LANES_EIGHT:
                            bad = lu_factor_eight(N.lptr, N.uptr, N.rows, vals, N.work[bi],
                                                  fresh_lanes)
                        else:
                            bad = lu_factor(N.lptr, N.uptr, N.rows, vals, N.work[bi],
                                            fresh_lanes)
                        if SOLVE_SINGLE:
                            single_factor(vals, N.single[bi], fresh_lanes)
                        for lane in range(W):
                            if lanes[lane] != 0:
                                N.age[bi, lane] = 0
                            if fresh_lanes[lane] != 0:
                                N.refresh[bi, lane] = 0
                    if bad >= 0:
                        status = 4
                        break
                    for d in range(R.shape[0]):
                        for lane in range(W):
                            dU[d, lane] = R[d, lane]
                    if corotate:        # D A^-1 D^T R (softmech.kernels.corotation)
                        rotate_dofs(S, bi, W, dU, True)
                    for i in range(b.shape[0]):
                        for lane in range(W):
                            b[i, lane] = dU[N.perm[i], lane]
                    if SOLVE_SINGLE:
                        lu_solve_block(N.lptr, N.uptr, N.rows, N.single[bi], b)
                    else:
                        lu_solve_block(N.lptr, N.uptr, N.rows, N.values[bi], b)
                    N.counts[bi, 1] += 1
                    for i in range(b.shape[0]):
                        for lane in range(W):
                            dU[N.perm[i], lane] = b[i, lane] * active[lane]
                    if corotate:
                        rotate_dofs(S, bi, W, dU, False)
                    for lane in range(W):
                        norm[lane] = 0.0
                    correction(S, bi, W, h, dU, norm)
                    remaining, failed = update_lanes(
                        U, dU, N.U_watch[bi], N.dU_watch[bi], norm, phi, N.phi_watch[bi], prev,
                        active, N.searching[bi], N.watch[bi], N.exact_watch[bi], N.retry[bi],
                        fresh_lanes, N.iterations[bi], refresh, tol, refresh_rate,
                        max_iterations, 2 if corotate else max_iterations)
                    if failed:
                        break
                    if remaining == 0:
                        status = 0
                        break
                if status == 0:
                    take_violations(S, bi)
                    evaluate(T, S, bi, W, t, h, U, R, CONSTRAIN)
                    if take_violations(S, bi) > 0:
                        status = 2
                # -- the step's Newton iteration done
                if status != 0:
                    break
            if status == 0:
                break
            copy_states(S, bi, False, False, True)
            N.history[bi] = 0
            N.counts[bi, 4] += 1
            for lane in range(W):
                N.refresh[bi, lane] = 1
            depth += 1
            if depth > max_halvings:
                return status
        if depth > 0:       # U_old is a substep's: no extrapolation from it
            N.history[bi] = 0
        else:               # steps whose end velocities U_old, U_old2 hold
            N.history[bi] = min(N.history[bi] + 1, 2)
        for lane in range(W):
            N.age[bi, lane] += 1
        N.counts[bi, 0] += 1
    return 0
'''
"""The implicit integrator's compiled entry points, completed per scene by implicit_source
(the term hooks of softmech.integrators.driver and the body kinds' implicit hooks)."""


def implicit_source(calls, kinds, corotate=False, single=False, eight=True):
    """Source text of the implicit step module of a scene: the explicit step module's hooks
    (softmech.integrators.driver.step_source), the body kinds' implicit hooks (entry j of S:
    kind j's ImplicitKindArgs; entry j of the first member of T: its motion tuple),
    IMPLICIT_SOURCE and the code of the calls with analytic Jacobians (analytic_hooks: a
    hook, and snippets spliced into IMPLICIT_SOURCE).
    Without corotate (ImplicitOptions.corotate) the corotation hooks are empty: a scene that
    does not use them does not compile their calls. single (ImplicitOptions.solve_precision
    "single"): the solves read the factor's single-precision copy (SOLVE_SINGLE, a constant:
    numba compiles the other branch away). eight: blocks of eight lanes exist (Lanes.W == 8);
    without them the names of the eight-lane kernels are the generic ones', so that a scene
    without such blocks (one world; a batch of fewer than 15 worlds on two threads,
    softmech.blocks.Lanes) does not compile lu_factor_eight and lu_solve_eight (both of its LU
    paths were linked before, the batch width being a value the code tests at run time: ~5.6 s
    of falling_rod's cold start, docs/benchmarks_log.md)."""
    from softmech.kernels import corotation as co
    from softmech.kernels import implicit_motion as im
    from softmech.kernels.implicit_newton import judge_lanes, mark_rough, predict, update_lanes
    from softmech.kernels.sparse_lu import EIGHT, lu_factor, lu_solve, single_factor
    from softmech.kernels.sparse_lu_eight import lu_factor_eight, lu_solve_block

    lines = ["", "", "import numpy as np"]
    name = kernel_importer(lines)
    lines.append(f"lu_factor = {name(lu_factor)}")
    lines.append(f"lu_factor_eight = {name(lu_factor_eight if eight else lu_factor)}")
    lines.append(f"LANES_EIGHT = {EIGHT}")
    lines.append(f"lu_solve_block = {name(lu_solve_block if eight else lu_solve)}")
    lines.append(f"single_factor = {name(single_factor)}")
    lines.append(f"SOLVE_SINGLE = {int(single)}")
    lines.append(f"predict = {name(predict)}")
    lines.append(f"mark_rough = {name(mark_rough)}")
    lines.append(f"judge_lanes = {name(judge_lanes)}")
    lines.append(f"update_lanes = {name(update_lanes)}")
    lines.append(f"MAX_LINE_SEARCH = {MAX_LINE_SEARCH}")
    lines.append(f"RELAXED_STEPS = {RELAXED_STEPS}")
    n = len(kinds)

    def hook(signature, body):
        return ["", "", '@kernel(inline="always")', f"def {signature}:", *(body or ["    pass"])]

    hooks = []
    hooks += hook("place(S, bi, W, h, U)",
                  [f"    {name(kind.implicit_place or im.place_kind)}(S[{j}], bi, W, h, U)"
                   for j, (kind, _) in enumerate(kinds)])
    hooks += hook("accelerations(T, bi, W)",
                  [f"    {name(kind.accelerations)}(T[0][{j}].kick, bi, W)"
                   for j, (kind, _) in enumerate(kinds)])
    hooks += hook("residual(S, bi, W, h, U, R)",
                  [f"    {name(im.residual_kind)}(S[{j}], bi, W, h, U, R)" for j in range(n)])
    hooks += hook("gather(S, bi, W, U)",
                  [f"    {name(im.gather_kind)}(S[{j}], bi, W, U)" for j in range(n)])
    hooks += hook("copy_states(S, bi, to_base, to_save, from_save)",
                  [f"    {name(kind.implicit_copy or im.copy_state)}(S[{j}], bi, to_base, "
                   "to_save, from_save)" for j, (kind, _) in enumerate(kinds)])
    hooks += hook("correction(S, bi, W, h, dU, out)",
                  [f"    {name(im.correction_norm)}(S[{j}], bi, W, h, dU, out)" for j in range(n)])
    hooks += hook("merit(S, bi, W, h, R, out)",
                  [f"    {name(im.merit_kind)}(S[{j}], bi, W, h, R, out)" for j in range(n)])
    hooks += hook("perturbation(S, bi, W, h, U, eps, delta)",
                  [f"    {name(im.perturbation_kind)}(S[{j}], bi, W, h, U, eps, delta)"
                   for j in range(n)])
    for fn, args in ((co.node_rotations, "S, bi, W"), (co.keep_frames, "S, bi, W, lanes"),
                     (co.rotate_dofs, "S, bi, W, X, transpose")):
        hooks += hook(f"{fn.__name__}({args})",
                      [f"    {name(fn)}(S[{j}]{args[1:]})" for j in range(n) if corotate])
    hooks += hook("take_violations(S, bi)",
                  ["    total = 0"]
                  + [f"    total += S[{j}].violations[bi]\n    S[{j}].violations[bi] = 0"
                     for j in range(n)] + ["    return total"])
    analytic, snippets = analytic_hooks(calls, name)
    return step_source(calls, kinds) + "\n".join(lines + hooks + analytic) + "\n" \
        + splice(IMPLICIT_SOURCE, snippets) + "\n"


def analytic_hooks(calls, name):
    """The code of the analytic Jacobians (softmech.integrators.analytic): forces_fd (the
    forces hook with each such call's `without` kernel in its place: a hook function) and the
    snippets that implicit_source splices into implicit_block (SPLICE): renew_analytic (at a
    step's start: every lane renews its analytic entries, if N.renew_every:
    AnalyticJacobian.every_step, ImplicitIntegrator.renewing_every_step), fd_lanes (lanes <-
    the fresh lanes that take new differences: not those renewing their analytic entries
    alone, which reuse their last differences, N.fd_values), fd_base (R0 <- the residual to
    difference against, after the base evaluation of the finite differences and the analytic
    entries' values of the fresh lanes) and add_entries (those values into the factor's).
    Without such calls R0 is R (N.R's block), lanes the fresh lanes, and the others are
    empty. Returns (hook lines, {snippet name: lines})."""
    from softmech.kernels.analytic_jacobian import (add_analytic, add_analytic_lanes,
                                                    keep_differences)

    own = [(i, c) for i, c in enumerate(calls, start=1) if c.jacobian is not None]
    if not own:
        return [], {"forces": ["forces(T, bi, W, t)"],
                    "renew_analytic": [], "fd_lanes": ["lanes = fresh_lanes"],
                    "fd_base": ["R0 = R"], "add_entries": []}
    forces = [f"    {name(c.jacobian.without if c.jacobian else c.kernel)}(T[{i}], bi, W, t)"
              for i, c in enumerate(calls, start=1) if c.stage == "forces"]
    # every step renews the analytic entries of every lane (N.partial: only those; a lane
    # whose Jacobian is due for another reason, or renewed again within the step, takes new
    # differences too), if a term asks for it (AnalyticJacobian.every_step) or the static
    # solve does (N.renew_every)
    renew = ["if N.renew_every[0] != 0:", "    for lane in range(W):",
             "        N.partial[bi, lane] = 1 - refresh[lane]",
             "        refresh[lane] = 1"]
    lanes = ["lanes = N.fd_mask[bi]", "for lane in range(W):",
             "    lanes[lane] = fresh_lanes[lane] * (1 - N.partial[bi, lane])",
             "    N.partial[bi, lane] = N.partial[bi, lane] * (1 - fresh_lanes[lane])"]
    base = ["R0 = N.Rfd[bi]", "if differences > 0:",
            "    evaluate(T, S, bi, W, t, h, U, R0, DIFFERENCES)", "    N.counts[bi, 2] += 1"]
    per_lane = [f"        {name(c.jacobian.kernel)}(T[{i}], bi, W, t, h, lane, "
                f"N.analytic[{k}].values[bi, lane])" for k, (i, c) in enumerate(own)
                if c.jacobian.lanes_kernel is None]
    if per_lane:
        base += ["for lane in range(W):", "    if fresh_lanes[lane] != 0:"] + per_lane
    # (a term whose lanes run together: every fresh lane at once)
    base += [f"{name(c.jacobian.lanes_kernel)}(T[{i}], bi, W, t, h, fresh_lanes, "
             f"N.analytic[{k}].values[bi])" for k, (i, c) in enumerate(own)
             if c.jacobian.lanes_kernel is not None]
    add = [f"{name(keep_differences)}(N.values[bi], N.fd_values[bi], N.entry_pos, lanes, "
           "fresh_lanes)"]
    add += [f"{name(add_analytic if c.jacobian.lanes_kernel is None else add_analytic_lanes)}"
            f"(N.analytic[{k}], bi, W, h, N.values[bi], fresh_lanes)"
            for k, (_, c) in enumerate(own)]
    return (["", "", '@kernel(inline="always")', "def forces_fd(T, bi, W, t):"] + forces,
            {"forces": ["if mode == DIFFERENCES:", "    forces_fd(T, bi, W, t)", "else:",
                        "    forces(T, bi, W, t)"],
             "renew_analytic": renew, "fd_lanes": lanes, "fd_base": base, "add_entries": add})


SPLICE = "# @splice "
"""A line of IMPLICIT_SOURCE that implicit_source replaces by a snippet of the scene's code,
indented as the line: code written into implicit_block, not a function numba inlines (each
inlined function that reads the scene's tuples T, S or N in more than one block keeps its own
copies of them, which LLVM splits into thousands of scalars: docs/benchmarks.md)."""


def splice(source, snippets):
    """source with each SPLICE line replaced by its snippet's lines at its indentation (every
    snippet used once; an empty one leaves nothing)."""
    out, used = [], set()
    for line in source.split("\n"):
        head, _, key = line.partition(SPLICE)
        if key and not head.strip():
            out += [head + code for code in snippets[key]]
            used.add(key)
        else:
            out.append(line)
    if used != set(snippets):
        raise AssertionError(f"snippets not spliced: {sorted(set(snippets) - used)}")
    return "\n".join(out)
