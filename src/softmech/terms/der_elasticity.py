"""The elastic energies of a discrete elastic rod (softmech.bodies.der_rod.DerRod) as bindings
of the implicit integrator (softmech.implicit.binding): stretching (ref. 004 sec. 3.1) and
bending-twisting (sec. 3.2), with the rod's reference frames as restart state.

Each binding precomputes its DOF tables and Jacobian (rows, cols) once, in the order its
kernel writes J, and allocates its scratch once: `forces` calls compiled kernels only.
"""
import numpy as np

from softmech.implicit.binding import Binding
from softmech.kernels.der_bend_twist import der_bend_twist_forces, der_strains
from softmech.kernels.der_frames import der_frames
from softmech.kernels.der_stretch import der_stretch_forces


def _block_entries(dofs):
    """rows, cols (k * n * n,) of dense n x n blocks over each row of dofs (k, n), row-major."""
    n = dofs.shape[1]
    rows = np.repeat(dofs, n, axis=1).reshape(-1)
    cols = np.tile(dofs, (1, n)).reshape(-1)
    return rows.astype(np.int64), cols.astype(np.int64)


class _Stiffness:
    """A stiffness array (n, ...): a section constant (n, ...) [m^2 or m^4] times the
    per-world modulus params row b [Pa] (times further per-world factors, e.g. a joint's
    stiffness scale), written into a buffer allocated once."""

    def __init__(self, section, param, *factors):
        self.unit = np.ascontiguousarray(section, dtype=float)
        self.param = param
        self.factors = factors
        self.out = np.empty_like(self.unit)

    def __call__(self, b):
        np.multiply(self.unit, self.param[b % len(self.param)], out=self.out)
        for factor in self.factors:
            self.out *= factor[b % len(factor)]
        return self.out


class DerStretch(Binding):
    """Stretching springs of the rod's edges: E = sum 1/2 EA l^ (|e|/l^ - 1)^2 (ref. 004 eq. 10),
    EA from the per-world "<rod>.youngs_modulus"."""

    def __init__(self, rod, ctx):
        self.name = f"{rod.name}.stretch"
        self.body = rod.name
        self.edge_dofs, _, _ = rod.dofs(ctx.layout)
        self.rows, self.cols = _block_entries(self.edge_dofs)
        self.rest_len = rod.rest_lengths.copy()
        self.EA = _Stiffness(rod.section_area, ctx.params[f"{rod.name}.youngs_modulus"])
        self._F = np.zeros(ctx.layout.n_dof)
        self._J = np.zeros(0)

    def forces(self, b, q, v, t, h, F, J):
        der_stretch_forces(q, self.edge_dofs, self.rest_len, self.EA(b), True, F, J)

    def energy(self, b, q):
        return der_stretch_forces(q, self.edge_dofs, self.rest_len, self.EA(b), False, self._F,
                                  self._J)

    def energy_parts(self, b, q):
        return {"stretch_energy": self.energy(b, q)}


class DerBendTwist(Binding):
    """Bending and twisting springs (ref. 004 eqs. 11-16) with time-parallel transported
    reference frames. Restart state (B, ...): `a1`, `tangent` (B, m, 3) and `ref_twist` (B, s)
    [rad] of the last accepted step, committed by `accept`.

    Reads the per-world parameters "<rod>.youngs_modulus", "<rod>.shear_modulus" (B,) [Pa],
    "<rod>.natural_curvature" (B, s, 2) [1/m] and
    "<rod>.natural_twist" (B, s) [rad/m] at every call (row b % rows), so actuation may change
    them between steps; they are used as DisMech's discrete values times the Voronoi length.
    A rod given a schedule for either writes world b's row from it at the time t of every
    `forces` call (the end of the step being solved, implicit Euler).

    `params` overrides where those four come from ({key: array (B or 1, ...)}, keys without
    the rod's name) and `factors` multiplies both stiffnesses by further per-world arrays
    (B or 1,): a rod-shell joint's springs (softmech.terms.rod_shell_joint) take the moduli of
    the rod they join. `body`: the body whose energy this is (default the rod's name).
    """

    def __init__(self, rod, ctx, *, params=None, factors=(), body=None):
        self.name = f"{rod.name}.bend_twist"
        self.body = rod.name if body is None else body
        params = params or {}

        def param(key):
            return params[key] if key in params else ctx.params[f"{rod.name}.{key}"]

        self.edge_dofs, _, self.spring_dofs = rod.dofs(ctx.layout)
        self.rows, self.cols = _block_entries(self.spring_dofs)
        self.spring_edges = rod.spring_edges
        self.spring_signs = rod.spring_signs
        self.voronoi = rod.voronoi_lengths
        self.inv_vor = 1.0 / rod.voronoi_lengths
        self.EI = _Stiffness(rod.section_inertia, param("youngs_modulus"), *factors)
        self.GJ = _Stiffness(rod.section_polar, param("shear_modulus"), *factors)
        B, m, s = ctx.worlds, rod.n_elems, rod.n_springs
        t0 = rod.positions[rod.edge_nodes[:, 1]] - rod.positions[rod.edge_nodes[:, 0]]
        t0 /= np.linalg.norm(t0, axis=1, keepdims=True)
        self.a1 = np.repeat(rod.a1_0[None], B, axis=0)
        self.tangent = np.repeat(t0[None], B, axis=0)
        self.ref_twist = np.repeat(rod.ref_twist0[None], B, axis=0)
        self._curv = param("natural_curvature")
        self._twist = param("natural_twist")
        self._schedules = [(rod.schedules[k], ctx.params[f"{rod.name}.{k}"])
                           for k in ("natural_curvature", "natural_twist") if k in rod.schedules]
        # scratch, allocated once
        self._t, self._a1, self._a2 = np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 3))
        self._ref = np.empty(s)
        self._kbar = np.empty((s, 2))
        self._tbar = np.empty(s)
        self._g, self._H, self._blk = np.empty((3, 11)), np.empty((11, 11)), np.empty((3, 3, 3))
        self._F = np.zeros(ctx.layout.n_dof)
        self._J = np.zeros(0)

    def frames(self, b, q):
        """Reference frames t, a1, a2 (m, 3) and reference twist (s,) [rad] at q, transported
        from world b's accepted step (views of scratch arrays, overwritten by the next call)."""
        der_frames(q, self.edge_dofs, self.a1[b], self.tangent[b], self.ref_twist[b],
                   self.spring_edges, self.spring_signs, self._t, self._a1, self._a2, self._ref)
        return self._t, self._a1, self._a2, self._ref

    def _natural(self, b, t=None):
        if t is not None:
            for schedule, target in self._schedules:
                schedule.write(t, b, target)
        np.multiply(self._curv[b % len(self._curv)], self.voronoi[:, None], out=self._kbar)
        np.multiply(self._twist[b % len(self._twist)], self.voronoi, out=self._tbar)

    def _call(self, b, q, want_jac, F, J, t=None):
        self.frames(b, q)
        self._natural(b, t)
        return der_bend_twist_forces(
            q, self.spring_dofs, self.spring_edges, self.spring_signs, self._a1, self._a2,
            self._ref, self._kbar, self._tbar, self.inv_vor, self.EI(b), self.GJ(b),
            want_jac, self._g, self._H, self._blk, F, J)

    def forces(self, b, q, v, t, h, F, J):
        self._call(b, q, True, F, J, t)

    def energy(self, b, q):
        return self._call(b, q, False, self._F, self._J)

    def strains(self, b, q):
        """Discrete curvatures (s, 2) [-] and twists (s,) [rad] at q (world b)."""
        self.frames(b, q)
        kappa, tw = np.empty((len(self.inv_vor), 2)), np.empty(len(self.inv_vor))
        der_strains(q, self.spring_dofs, self.spring_edges, self.spring_signs,
                    self._a1, self._a2, self._ref, kappa, tw)
        return kappa, tw

    def energy_parts(self, b, q):
        """Bending 1/2 sum EI_k (kappa_k - kappa_bar_k)^2 / dL and twisting 1/2 sum GJ
        (tau - tau_bar)^2 / dL [J] (ref. 004 eqs. 14, 16; their sum is `energy`)."""
        kappa, tw = self.strains(b, q)
        self._natural(b)
        bend = 0.5 * np.sum(self.EI(b) * (kappa - self._kbar) ** 2 * self.inv_vor[:, None])
        twist = 0.5 * np.sum(self.GJ(b) * (tw - self._tbar) ** 2 * self.inv_vor)
        return {"bending_energy": float(bend), "twisting_energy": float(twist)}

    def accept(self, b, q):
        t, a1, _, ref = self.frames(b, q)
        self.tangent[b] = t
        self.a1[b] = a1
        self.ref_twist[b] = ref

    def state(self):
        return {"a1": self.a1, "tangent": self.tangent, "ref_twist": self.ref_twist}
