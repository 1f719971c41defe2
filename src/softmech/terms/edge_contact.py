"""Implicit contact between the edges of discrete rods and shells (IMC, ref. 004 section 4):

    EdgeContact(bodies, stiffness, distance,
                friction=sm.IsotropicFriction(kinetic, static, slip_velocity=...))

Every pair of edges of the listed bodies (self contact and contact between them) that share no
node. Candidate pairs are found at the start of each step among edges whose bounding spheres
come within distance + margin; the Newton iterations then treat those pairs. Energy, forces,
friction (static and kinetic, the lagged static excess of the discrete ground contact) and the
Jacobian: softmech.kernels.edge_contact.
"""
import warnings

import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.kernels.edge_contact import candidate_pairs, edge_contact_forces, edge_slip_accept
from softmech.terms.contact import implicit_coefficients, one_coefficient_law
from softmech.terms.nodes import _ImplicitTerm, _body_name


class EdgeContact(_ImplicitTerm):
    """EdgeContact(bodies, stiffness, distance, *, friction=None, sharpness=None, margin=None).

    bodies: a discrete rod or shell (or its name), or a list of them; stiffness k [N/m];
    distance delta [m]: edges closer than this touch (two rods of radius r: 2 r); friction:
    None (none) or sm.IsotropicFriction(kinetic, static, slip_velocity=...): kinetic mu_k [-],
    static mu_s [-] (0: the paper's one coefficient mu = mu_k; else >= mu_k: a pair at rest
    holds up to mu_s |F_n| and slides at mu_k), slip_velocity [m/s] the slip tolerance below
    which friction is regularized (sticking); sharpness K [1/m] (default 15/delta); margin [m]
    added to delta when candidate pairs are collected at the start of a step (default delta:
    choose dt so that nodes move less than this per step). Per-world parameters
    `<name>.stiffness`, `<name>.static`, `<name>.kinetic` (B,) (`<name>.friction` is read as
    `<name>.kinetic` and written to both with a DeprecationWarning).

    Deprecated: friction=mu (a number) and slip_tolerance=... [m/s] (default 1e-3), the older
    one-coefficient arguments, are read as sm.IsotropicFriction(mu, slip_velocity=
    slip_tolerance) (mu_s = mu_k = mu, the same law) with a DeprecationWarning; scenario files
    are written with the law."""

    section = "contact"

    def __init__(self, bodies, stiffness, distance, *, friction=None, slip_tolerance=None,
                 sharpness=None, margin=None, name="edge_contact"):
        self.name = name
        listed = bodies if isinstance(bodies, (list, tuple)) else [bodies]
        if not listed:
            raise ValueError(f"{name}.bodies is empty: give at least one discrete rod or shell")
        self.body_names = [_body_name(name, b, "bodies") for b in listed]
        if len(set(self.body_names)) != len(self.body_names):
            raise ValueError(f"{name}.bodies = {self.body_names} is not allowed: a body is listed twice")
        self.stiffness = float(_checks.positive(f"{name}.stiffness", stiffness, shape=()))
        self.distance = float(_checks.positive(f"{name}.distance", distance, shape=()))
        self.friction = _friction_law(name, friction, slip_tolerance)
        self.kinetic, self.static, self.slip_tolerance = implicit_coefficients(
            name, self.friction, "discrete rods' and shells' edges")
        self.sharpness = (15.0 / self.distance if sharpness is None
                          else float(_checks.positive(f"{name}.sharpness", sharpness, shape=())))
        self.margin = (self.distance if margin is None
                       else float(_checks.nonnegative(f"{name}.margin", margin, shape=())))

    def arguments(self):
        """The constructor call, the deprecated friction=mu, slip_tolerance as the law they
        stand for (what scenario files are written with)."""
        arguments = super().arguments()
        arguments["friction"], arguments["slip_tolerance"] = self.friction, None
        return arguments

    def implicit_bodies(self):
        return tuple(self.body_names)

    def contribute(self, ctx, p):
        """Discrete rods and hinge shells of the unified engine (softmech.terms.
        der_edge_contact); anything else is refused as the other discrete-engine terms are."""
        kind = {**getattr(ctx, "der_index", {}), **getattr(ctx, "der_shell_index", {})}
        if not all(name in kind for name in self.body_names):
            return super().contribute(ctx, p)
        from softmech.terms.der_edge_contact import DerEdgeContacts
        ctx.part(DerEdgeContacts).add(self, [kind[name] for name in self.body_names], p)

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in ("stiffness", "static", "kinetic")}

    def bind_implicit(self, ctx):
        edge_dofs = []
        for body_name in self.body_names:
            body = ctx.body(self.name, body_name)
            edges = np.asarray(body.edges, dtype=np.int64)
            edge_dofs.append(ctx.layout.node_dof(body.nodes[edges]).reshape(-1, 6))
        return [_EdgeContactBinding(self, np.concatenate(edge_dofs), ctx)]


def _friction_law(name, friction, slip_tolerance):
    """The friction law of EdgeContact's arguments: friction None or a law, or the deprecated
    friction=mu (a number >= 0) and slip_tolerance [m/s] (> 0) as the law they stand for."""
    if slip_tolerance is None and (friction is None or not _is_number(friction)):
        return friction
    if friction is not None and not _is_number(friction):
        raise ValueError(f"{name}.slip_tolerance = {slip_tolerance!r} is not allowed with "
                         f"{name}.friction = {friction!r}: give the slip tolerance as the "
                         "law's slip_velocity")
    mu = 0.0 if friction is None else float(_checks.nonnegative(f"{name}.friction", friction,
                                                                shape=()))
    if slip_tolerance is not None:
        slip_tolerance = float(_checks.positive(f"{name}.slip_tolerance", slip_tolerance,
                                                shape=()))
    law = one_coefficient_law(mu, slip_tolerance)
    warnings.warn(f"{name}: friction = {friction!r} and slip_tolerance = {slip_tolerance!r} are "
                  f"deprecated: give friction=sm.IsotropicFriction(kinetic, static, "
                  f"slip_velocity=...) (read as {law!r})", DeprecationWarning, stacklevel=3)
    return law


def _is_number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


class _EdgeContactBinding(Binding):
    """The pairs of world b's current step (collected in begin_step), and the state of the
    static excess: slip (B, n_nodes) [m/s], each edge node's slip speed at the last accepted
    step (softmech.kernels.edge_contact: why per node, not per pair)."""

    dynamic = True

    def __init__(self, term, edge_dofs, ctx):
        self.name = term.name
        self.term = term
        self.edge_dofs = np.ascontiguousarray(edge_dofs)
        self.edge_nodes = np.ascontiguousarray(self.edge_dofs[:, [0, 3]])   # first DOF: node id
        # the edges' nodes numbered 0..n_nodes-1: the index of each node's slip
        _, local = np.unique(self.edge_nodes, return_inverse=True)
        self.edge_local = np.ascontiguousarray(local.reshape(-1, 2).astype(np.int64))
        params = ctx.params
        self.k = params[f"{term.name}.stiffness"]
        self.kinetic = params[f"{term.name}.kinetic"]
        self.static = params[f"{term.name}.static"]
        # history: the nodes start at rest (no slip: the full static coefficient)
        self.slip = np.zeros((ctx.worlds, int(local.max()) + 1 if local.size else 0))
        self._total = np.zeros(self.slip.shape[1])
        m = len(self.edge_dofs)
        self._buffer = np.empty((min(m * (m - 1) // 2, 1 << 16) + 1, 2), dtype=np.int64)
        self._scratch = np.empty(51)
        self._set_pairs(np.zeros((0, 2), dtype=np.int64))

    def _set_pairs(self, pairs):
        self.pair_dofs = np.ascontiguousarray(
            np.concatenate([self.edge_dofs[pairs[:, 0]], self.edge_dofs[pairs[:, 1]]], axis=1))
        self.pair_nodes = np.ascontiguousarray(
            np.concatenate([self.edge_local[pairs[:, 0]], self.edge_local[pairs[:, 1]]], axis=1))
        # each pair's slip speed and its nodes' normal forces at the last evaluation
        self.speed = np.zeros(len(pairs))
        self.weight = np.zeros((len(pairs), 4))
        self.rows = np.repeat(self.pair_dofs, 12, axis=1).reshape(-1)
        self.cols = np.tile(self.pair_dofs, (1, 12)).reshape(-1)

    def begin_step(self, b, q, t):
        tm = self.term
        while True:
            n = candidate_pairs(q, self.edge_dofs, self.edge_nodes, tm.distance + tm.margin,
                                self._buffer)
            if n >= 0:
                break
            self._buffer = np.empty((2 * len(self._buffer), 2), dtype=np.int64)
        pairs = self._buffer[:n]
        pair_dofs = np.concatenate([self.edge_dofs[pairs[:, 0]], self.edge_dofs[pairs[:, 1]]],
                                   axis=1)
        if not np.array_equal(pair_dofs, self.pair_dofs):
            self._set_pairs(pairs)
            self.pattern_version += 1

    def _evaluate(self, b, q, v, h, F, J, speed, weight):
        tm = self.term
        inv_h = 0.0 if np.isinf(h) else 1.0 / h
        return edge_contact_forces(q, v, self.pair_dofs, self.pair_nodes, self.k[b], tm.distance,
                                   tm.sharpness, self.kinetic[b], self.static[b],
                                   15.0 / tm.slip_tolerance, inv_h, self._step(inv_h),
                                   self.slip[b], speed, weight, F, J, self._scratch)

    def _step(self, inv_h):
        """The Jacobian's central-difference step [m] (softmech.kernels.edge_contact): 1e-6
        of the contact distance (the penalty varies over distance / 15), and with friction at
        most what moves the velocities (v = (q - q_n) / h) by 1e-3 of the friction's
        regularization width v_s / 15: a velocity step comparable with that width (1e-5 m/s
        at dt = 1 ms and distance 1 cm) gave Newton a wrong slope across the sticking
        branch and the sticking root was missed (a rod at 0.98 mu_s slid at v_s = 1e-5 m/s).
        The step's round-off, ~1e-16 |q| / step relative, stays below 1e-5 down to
        v_s ~ 1e-8 m/s at dt = 1 ms."""
        step = 1e-6 * self.term.distance
        if self.term.friction is None or inv_h == 0.0:
            return step
        return min(step, 1e-3 * self.term.slip_tolerance / 15.0 / inv_h)

    def forces(self, b, q, v, t, h, F, J):
        self._evaluate(b, q, v, h, F, J, self.speed, self.weight)

    def accept(self, b, q):
        """World b's step accepted: the pairs' slip speeds at the last evaluation (the
        converged Newton iterate) become its nodes' slip, the next step's static excess."""
        edge_slip_accept(self.pair_nodes, self.speed, self.weight, self.slip[b], self._total)

    def state(self):
        return {"slip": self.slip}

    def energy(self, b, q):
        # its own speed scratch: an energy evaluation must not change the accepted slip
        n = len(self.pair_dofs)
        return self._evaluate(b, q, np.zeros_like(q), np.inf, np.zeros_like(q),
                              np.zeros(144 * n), np.zeros(n), np.zeros((n, 4)))
