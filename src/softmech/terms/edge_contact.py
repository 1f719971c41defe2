"""Implicit contact between the edges of discrete rods and shells (IMC, ref. 004 section 4):

    EdgeContact(bodies, stiffness, distance, friction=0.0, slip_tolerance=1e-3)

Every pair of edges of the listed bodies (self contact and contact between them) that share no
node. Candidate pairs are found at the start of each step among edges whose bounding spheres
come within distance + margin; the Newton iterations then treat those pairs. Energy, forces,
friction and the Jacobian: softmech.kernels.edge_contact.
"""
import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.kernels.edge_contact import candidate_pairs, edge_contact_forces
from softmech.terms.nodes import _ImplicitTerm, _body_name


class EdgeContact(_ImplicitTerm):
    """EdgeContact(bodies, stiffness, distance, *, friction=0, slip_tolerance=1e-3,
    sharpness=None, margin=None).

    bodies: a discrete rod or shell (or its name), or a list of them; stiffness k [N/m];
    distance delta [m]: edges closer than this touch (two rods of radius r: 2 r); friction
    mu [-]; slip_tolerance [m/s] (sticking below it, regularized); sharpness K [1/m] (default
    15/delta); margin [m] added to delta when candidate pairs are collected at the start of a
    step (default delta: choose dt so that nodes move less than this per step). Per-world
    parameters `<name>.stiffness`, `<name>.friction` (B,)."""

    section = "contact"

    def __init__(self, bodies, stiffness, distance, *, friction=0.0, slip_tolerance=1e-3,
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
        self.friction = float(_checks.nonnegative(f"{name}.friction", friction, shape=()))
        self.slip_tolerance = float(_checks.positive(f"{name}.slip_tolerance", slip_tolerance, shape=()))
        self.sharpness = (15.0 / self.distance if sharpness is None
                          else float(_checks.positive(f"{name}.sharpness", sharpness, shape=())))
        self.margin = (self.distance if margin is None
                       else float(_checks.nonnegative(f"{name}.margin", margin, shape=())))

    def implicit_bodies(self):
        return tuple(self.body_names)

    def parameters(self):
        return {"stiffness": np.array([self.stiffness]), "friction": np.array([self.friction])}

    def bind_implicit(self, ctx):
        edge_dofs = []
        for body_name in self.body_names:
            body = ctx.body(self.name, body_name)
            edges = np.asarray(body.edges, dtype=np.int64)
            edge_dofs.append(ctx.layout.node_dof(body.nodes[edges]).reshape(-1, 6))
        return [_EdgeContactBinding(self, np.concatenate(edge_dofs), ctx.params)]


class _EdgeContactBinding(Binding):
    dynamic = True

    def __init__(self, term, edge_dofs, params):
        self.name = term.name
        self.term = term
        self.edge_dofs = np.ascontiguousarray(edge_dofs)
        self.edge_nodes = np.ascontiguousarray(self.edge_dofs[:, [0, 3]])   # first DOF: node id
        self.k = params[f"{term.name}.stiffness"]
        self.mu = params[f"{term.name}.friction"]
        m = len(self.edge_dofs)
        self._buffer = np.empty((min(m * (m - 1) // 2, 1 << 16) + 1, 2), dtype=np.int64)
        self._scratch = np.empty(51)
        self.pair_dofs = np.zeros((0, 12), dtype=np.int64)

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
            self.pair_dofs = np.ascontiguousarray(pair_dofs)
            self.rows = np.repeat(self.pair_dofs, 12, axis=1).reshape(-1)
            self.cols = np.tile(self.pair_dofs, (1, 12)).reshape(-1)
            self.pattern_version += 1

    def _evaluate(self, b, q, v, h, F, J):
        tm = self.term
        inv_h = 0.0 if np.isinf(h) else 1.0 / h
        return edge_contact_forces(q, v, self.pair_dofs, self.k[b], tm.distance, tm.sharpness,
                                   self.mu[b], 15.0 / tm.slip_tolerance, inv_h,
                                   1e-6 * tm.distance, F, J, self._scratch)

    def forces(self, b, q, v, t, h, F, J):
        self._evaluate(b, q, v, h, F, J)

    def energy(self, b, q):
        return self._evaluate(b, q, np.zeros_like(q), np.inf, np.zeros_like(q),
                              np.zeros(144 * len(self.pair_dofs)))
