"""The elastic energies of a discrete elastic rod (softmech.bodies.der_rod.DerRod) as bindings
of the implicit integrator (softmech.implicit.binding): stretching (ref. 004 sec. 3.1) and
bending-twisting (sec. 3.2), with the rod's reference frames as restart state.

Each binding precomputes its DOF tables and Jacobian (rows, cols) once, in the order its
kernel writes J, and allocates its scratch once, all in one argument tuple: `forces` is one
call of its compiled kernel (softmech.kernels.implicit_bindings), the same call the compiled
Newton loop makes (`compiled`, softmech.implicit.compiled).
"""
import numpy as np

from softmech.implicit.binding import Binding
from softmech.implicit.compiled import CompiledForm
from softmech.kernels.der_bend_twist import der_strains
from softmech.kernels.der_bend_twist_lanes import der_bend_twist_lanes_binding, lanes_scratch
from softmech.kernels.der_frames_lanes import der_bend_twist_accept_lanes
from softmech.kernels.implicit_bindings import (
    DerBendTwistArgs, DerStretchArgs, der_bend_twist_accept, der_bend_twist_binding,
    der_bend_twist_energy, der_frames_binding, der_natural_binding, der_stretch_binding,
    der_stretch_energy)


def _block_entries(dofs):
    """rows, cols (k * n * n,) of dense n x n blocks over each row of dofs (k, n), row-major."""
    n = dofs.shape[1]
    rows = np.repeat(dofs, n, axis=1).reshape(-1)
    cols = np.tile(dofs, (1, n)).reshape(-1)
    return rows.astype(np.int64), cols.astype(np.int64)


class DerStretch(Binding):
    """Stretching springs of the rod's edges: E = sum 1/2 EA l^ (|e|/l^ - 1)^2 (ref. 004 eq. 10),
    EA = A E with E the per-world "<rod>.youngs_modulus"."""

    def __init__(self, rod, ctx):
        self.name = f"{rod.name}.stretch"
        self.body = rod.name
        self.edge_dofs, _, _ = rod.dofs(ctx.layout)
        self.rows, self.cols = _block_entries(self.edge_dofs)
        self.args = DerStretchArgs(
            edge_dofs=self.edge_dofs, rest_len=rod.rest_lengths.copy(),
            area=np.ascontiguousarray(rod.section_area, dtype=float),
            youngs=ctx.params[f"{rod.name}.youngs_modulus"], EA=np.empty(rod.n_elems))
        self._F = np.zeros(ctx.layout.n_dof)
        self._J = np.zeros(0)

    def forces(self, b, q, v, t, h, F, J):
        der_stretch_binding(self.args, b, q, v, t, h, F, J)

    def compiled(self):
        return CompiledForm(self.name, self.args, forces=der_stretch_binding)

    def energy(self, b, q):
        return der_stretch_energy(self.args, b, q, self._F, self._J)

    def energy_parts(self, b, q):
        return {"stretch_energy": self.energy(b, q)}


class DerBendTwist(Binding):
    """Bending and twisting springs (ref. 004 eqs. 11-16) with time-parallel transported
    reference frames. Restart state (B, ...): `a1`, `tangent` (B, m, 3) and `ref_twist` (B, s)
    [rad] of the last accepted step, committed by `accept`.

    Reads the per-world parameters "<rod>.youngs_modulus", "<rod>.shear_modulus" (B,) [Pa],
    "<rod>.natural_curvature" (B, s, 2) [1/m] and
    "<rod>.natural_twist" (B, s) [rad/m] at every call (row b % rows), so actuation may change
    them between steps; they are used as DisMech's discrete values times the Voronoi length,
    and the stiffnesses as EI = I E, GJ = J G (section constants times moduli).
    A rod given a schedule for either writes world b's row from it at the time t of every
    `forces` call (the end of the step being solved, implicit Euler): a table in the compiled
    kernel, a function of the user's from Python (the scene then runs the Python Newton loop).

    `params` overrides where those four come from ({key: array (B or 1, ...)}, keys without
    the rod's name) and `factor` multiplies both stiffnesses by a further per-world array
    (B or 1,): a rod-shell joint's springs (softmech.terms.rod_shell_joint) take the moduli of
    the rod they join. `body`: the body whose energy this is (default the rod's name).
    """

    def __init__(self, rod, ctx, *, params=None, factor=None, body=None):
        self.name = f"{rod.name}.bend_twist"
        self.body = rod.name if body is None else body
        params = params or {}

        def param(key):
            return params[key] if key in params else ctx.params[f"{rod.name}.{key}"]

        self.edge_dofs, _, self.spring_dofs = rod.dofs(ctx.layout)
        self.rows, self.cols = _block_entries(self.spring_dofs)
        B, m, s = ctx.worlds, rod.n_elems, rod.n_springs
        t0 = rod.positions[rod.edge_nodes[:, 1]] - rod.positions[rod.edge_nodes[:, 0]]
        t0 /= np.linalg.norm(t0, axis=1, keepdims=True)
        curv, twist = param("natural_curvature"), param("natural_twist")
        tables = {}
        self._functions = []    # schedules given as functions: written from Python
        for key, target, shape in (("natural_curvature", curv, (-1, 2 * s)),
                                   ("natural_twist", twist, (-1, s))):
            schedule = getattr(rod, "schedules", {}).get(key)
            if schedule is not None and target is not ctx.params.get(f"{rod.name}.{key}"):
                raise ValueError(f"{self.name}: a schedule of {key} needs the rod's own "
                                 "per-world parameter (params overrides it)")
            if schedule is not None and schedule.function is None:
                tables[key] = (schedule.times, np.ascontiguousarray(
                    schedule.values.reshape(shape), dtype=float))
            elif schedule is not None:
                self._functions.append((schedule, target))
            tables.setdefault(key, (np.zeros(0), np.zeros((0, shape[1]))))
        self.args = DerBendTwistArgs(
            edge_dofs=self.edge_dofs, spring_dofs=self.spring_dofs,
            spring_edges=np.ascontiguousarray(rod.spring_edges, dtype=np.int64),
            spring_signs=np.ascontiguousarray(rod.spring_signs, dtype=float),
            voronoi=np.ascontiguousarray(rod.voronoi_lengths, dtype=float),
            inv_vor=1.0 / rod.voronoi_lengths,
            inertia=np.ascontiguousarray(rod.section_inertia, dtype=float),
            polar=np.ascontiguousarray(rod.section_polar, dtype=float),
            youngs=param("youngs_modulus"), shear=param("shear_modulus"),
            factor=np.ones(1) if factor is None else factor, curv=curv, twist=twist,
            acc_a1=np.repeat(rod.a1_0[None], B, axis=0),
            acc_tangent=np.repeat(t0[None], B, axis=0),
            acc_ref=np.repeat(rod.ref_twist0[None], B, axis=0),
            curv_times=tables["natural_curvature"][0], curv_values=tables["natural_curvature"][1],
            twist_times=tables["natural_twist"][0], twist_values=tables["natural_twist"][1],
            t=np.empty((m, 3)), a1=np.empty((m, 3)), a2=np.empty((m, 3)), ref=np.empty(s),
            kbar=np.empty((s, 2)), tbar=np.empty(s), EI=np.empty((s, 2)), GJ=np.empty(s),
            g=np.empty((3, 11)), H=np.empty((11, 11)), blk=np.empty((3, 3, 3)))
        self._F = np.zeros(ctx.layout.n_dof)
        self._J = np.zeros(0)

    # restart state: the accepted frames (B, ...), updated in place
    @property
    def a1(self):
        return self.args.acc_a1

    @property
    def tangent(self):
        return self.args.acc_tangent

    @property
    def ref_twist(self):
        return self.args.acc_ref

    def frames(self, b, q):
        """Reference frames t, a1, a2 (m, 3) and reference twist (s,) [rad] at q, transported
        from world b's accepted step (views of scratch arrays, overwritten by the next call)."""
        der_frames_binding(self.args, b, q)
        return self.args.t, self.args.a1, self.args.a2, self.args.ref

    def forces(self, b, q, v, t, h, F, J):
        for schedule, target in self._functions:
            schedule.write(t, b, target)
        der_bend_twist_binding(self.args, b, q, v, t, h, F, J)

    def compiled(self):
        if self._functions:     # a user's Python function: only the Python loop can call it
            return None
        return CompiledForm(self.name, self.args, forces=der_bend_twist_binding,
                            accept=der_bend_twist_accept, lanes=der_bend_twist_lanes_binding,
                            lanes_scratch=lanes_scratch,
                            lanes_accept=der_bend_twist_accept_lanes)

    def energy(self, b, q):
        return der_bend_twist_energy(self.args, b, q, self._F, self._J)

    def strains(self, b, q):
        """Discrete curvatures (s, 2) [-] and twists (s,) [rad] at q (world b)."""
        a = self.args
        self.frames(b, q)
        kappa, tw = np.empty((len(a.inv_vor), 2)), np.empty(len(a.inv_vor))
        der_strains(q, a.spring_dofs, a.spring_edges, a.spring_signs, a.a1, a.a2, a.ref,
                    kappa, tw)
        return kappa, tw

    def energy_parts(self, b, q):
        """Bending 1/2 sum EI_k (kappa_k - kappa_bar_k)^2 / dL and twisting 1/2 sum GJ
        (tau - tau_bar)^2 / dL [J] (ref. 004 eqs. 14, 16; their sum is `energy`)."""
        a = self.args
        kappa, tw = self.strains(b, q)
        der_natural_binding(a, b, 0.0, False)
        bend = 0.5 * np.sum(a.EI * (kappa - a.kbar) ** 2 * a.inv_vor[:, None])
        twist = 0.5 * np.sum(a.GJ * (tw - a.tbar) ** 2 * a.inv_vor)
        return {"bending_energy": float(bend), "twisting_energy": float(twist)}

    def accept(self, b, q):
        der_bend_twist_accept(self.args, b, q)

    def state(self):
        return {"a1": self.args.acc_a1, "tangent": self.args.acc_tangent,
                "ref_twist": self.args.acc_ref}
