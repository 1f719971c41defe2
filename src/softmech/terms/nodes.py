"""Boundary conditions and loads on the nodes of discrete rods and shells (implicit bodies):

    FixNodes(body, nodes, angles=(), axes="xyz")   nodes (their axes) and scalar DOFs held where they start
    NodeForce(body, node, force)                   a constant force [N] on one node

(sm.Gravity works on implicit bodies too: softmech.terms.gravity.) A discrete rod is clamped
by fixing its first two nodes and its first edge's twist angle (DisMech's clamp).
"""
import numpy as np

from softmech import _checks
from softmech.der_packing import edge_count, initial_nodes, node_count
from softmech.implicit.loads import FixedDofs, NodeLoads
from softmech.terms.base import Term


def _body_name(owner, body, field="body"):
    name = getattr(body, "name", body)
    if not isinstance(name, str):
        raise ValueError(f"{owner}.{field} = {body!r} is not allowed: must be a discrete rod or "
                         "shell, or its name")
    return name


def _indices(field, value):
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):     # a ragged list
        raise ValueError(f"{field} = {_checks._show(value)} is not allowed: must be a list of "
                         "integer indices >= 0") from None
    if arr.dtype.kind not in "iu" and arr.size:
        raise ValueError(f"{field} = {value!r} is not allowed: must be integer indices >= 0")
    arr = arr.astype(np.int64).reshape(-1)
    if np.any(arr < 0):
        raise ValueError(f"{field} = {value!r} is not allowed: must be integer indices >= 0")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{field} = {value!r} is not allowed: an index is repeated")
    return arr


def _node_count(body):
    """Nodes of a discrete rod (positions) or shell (vertices), before compile."""
    return len(body.positions if hasattr(body, "positions") else body.vertices)


def _in_range(owner, field, idx, n, what, body):
    """ValueError naming owner.field if an index of idx is >= n, the count of `what` of `body`
    (named in the message with its kind)."""
    if idx.size and idx.max() >= n:
        kind = {"shell": "shell", "der_rod": "discrete rod"}.get(getattr(body, "kind", ""), "body")
        raise ValueError(f"{owner}.{field} = {idx.tolist()} is not allowed: {kind} "
                         f"{body.name!r} has {n} {what} (indices 0..{n - 1})")


def der_body(ctx, name):
    """The discrete rod or shell `name` of the unified engine's kind (ctx: its Assembly), or
    None."""
    body = getattr(ctx, "der_index", {}).get(name)
    return body if body is not None else getattr(ctx, "der_shell_index", {}).get(name)


def node_join(owner, tolerance, a, b, bodies):
    """(body_a, node_a, body_b, node_b): nodes a = (field, body name, node) and b of discrete
    rods or shells of the unified engine's kind (bodies: {name: body}) that share one slot
    (softmech.der_packing.DerSlots), or None if a body is not on the kind. Checks the node
    indices (an error names `owner`.field) and that the nodes start within `tolerance` [m] of
    each other."""
    if a[1] not in bodies or b[1] not in bodies:
        return None
    at = []
    for field, body_name, node in (a, b):
        body = bodies[body_name]
        _in_range(owner, field, np.array([node]), node_count(body), "nodes", body)
        at.append(initial_nodes(body)[node])
    gap = float(np.linalg.norm(at[0] - at[1]))
    if gap > tolerance:
        raise ValueError(f"{owner}: the joined nodes are {gap:.3g} m apart, more than the "
                         f"tolerance {tolerance:.3g} m (they must coincide)")
    return (a[1], a[2], b[1], b[2])


class _ImplicitTerm(Term):
    implicit_only = True
    """Works on discrete rods and shells only (softmech.implicit), not on Cosserat rods."""

    def contribute(self, ctx, p):
        # the bodies a term names, by the convention Scene.add checks: implicit_body, or
        # implicit_bodies() (JoinNodes, RodShellJoint, EdgeContact, ParameterWave)
        named = (getattr(self, "implicit_body", None),) + tuple(
            getattr(self, "implicit_bodies", lambda: ())())
        if set(named) & (set(getattr(ctx, "der_index", {})) |
                         set(getattr(ctx, "der_shell_index", {}))):
            raise ValueError(f"{self.name} ({type(self).__name__}) is not supported on a discrete "
                             "rod or shell of the unified engine yet: compile with "
                             "engine='discrete' (docs/discrete_rods.md and docs/shells.md list "
                             "what the unified engine supports)")
        raise ValueError(f"{self.name} ({type(self).__name__}) works on discrete rods and shells "
                         "only; for Cosserat rods use sm.Clamp, sm.Pin or sm.EndLoad")


class FixNodes(_ImplicitTerm):
    """FixNodes(body, nodes, angles=(), axes="xyz"): hold nodes (indices into the body's nodes)
    and scalar DOFs (its `angles`: a rod's edge twists) at their values when the scene is
    compiled. axes: the lab coordinates of the nodes that are held, a non-empty subset of "xyz"
    (default all three; e.g. "xy" lets the nodes slide along z, as the poles of an inflating
    sphere must, tests/validation/test_shell_inflation.py)."""

    section = "boundary"

    def __init__(self, body, nodes, angles=(), *, axes="xyz", name="fix"):
        self.name = name
        self.implicit_body = _body_name(name, body)
        self.nodes = _indices(f"{name}.nodes", nodes)
        self.angles = _indices(f"{name}.angles", angles)
        if not self.nodes.size and not self.angles.size:
            raise ValueError(f"{name}: nodes and angles are both empty: fix at least one")
        if (not isinstance(axes, str) or not axes or set(axes) - set("xyz")
                or len(set(axes)) != len(axes)):
            raise ValueError(f"{name}.axes = {axes!r} is not allowed: must be a non-empty subset "
                             "of 'xyz' without repeats")
        self.axes = axes

    def check_body(self, body):
        """ValueError naming the range if a node, or a discrete rod's edge angle, is not one of
        `body` (Scene.add, before any compile). A shell's scalars exist only once joints have
        added them, so its `angles` are checked at compile (fixed_dofs)."""
        _in_range(self.name, "nodes", self.nodes, _node_count(body), "nodes", body)
        if hasattr(body, "edge_nodes"):
            _in_range(self.name, "angles", self.angles, len(body.edge_nodes), "angles", body)

    def fixed_dofs(self, ctx):
        """The DOFs (k,) this term holds, in the finalized layout of ctx."""
        body = ctx.body(self.name, self.implicit_body)
        _in_range(self.name, "nodes", self.nodes, len(body.nodes), "nodes", body)
        scalars = np.zeros(0, np.int64) if body.scalars is None else body.scalars
        _in_range(self.name, "angles", self.angles, len(scalars), "angles", body)
        held = ["xyz".index(c) for c in sorted(self.axes)]
        return np.concatenate([ctx.layout.node_dof(body.nodes[self.nodes])[:, held].reshape(-1),
                               ctx.layout.scalar_dof(scalars[self.angles])])

    def bind_implicit(self, ctx):
        dofs = self.fixed_dofs(ctx)
        return [FixedDofs(self.name, dofs, ctx.layout.q0[dofs])]

    def contribute(self, ctx, p):
        """A discrete rod or shell in the unified engine's Model/State (softmech.terms.der_kind):
        its nodes' coordinates and its edges' angles (a rod's twists, a mid-edge shell's xi)
        held by a positions and a rates constraint."""
        rod = der_body(ctx, self.implicit_body)
        if rod is None:
            super().contribute(ctx, p)
        from softmech.terms.der_kind import DerFixedNodes
        _in_range(self.name, "nodes", self.nodes, node_count(rod), "nodes", rod)
        _in_range(self.name, "angles", self.angles, edge_count(rod), "angles", rod)
        ctx.part(DerFixedNodes).hold(rod, self.nodes, ["xyz".index(c) for c in sorted(self.axes)],
                                     self.angles)


class NodeForce(_ImplicitTerm):
    """NodeForce(body, node, force): a constant force (3,) [N] on node `node` of a discrete rod
    or shell; per-world parameter `<name>.force` (B, 3)."""

    section = "loads"

    def __init__(self, body, node, force, *, name="node_force"):
        self.name = name
        self.implicit_body = _body_name(name, body)
        self.node = _checks.integer(f"{name}.node", node, 0)
        self.force = _checks.finite(f"{name}.force", force, shape=(3,))

    def parameters(self):
        return {"force": self.force[None].copy()}

    def check_body(self, body):
        """ValueError naming the node range if `node` is not a node of `body` (Scene.add)."""
        _in_range(self.name, "node", np.array([self.node]), _node_count(body), "nodes", body)

    def bind_implicit(self, ctx):
        body = ctx.body(self.name, self.implicit_body)
        _in_range(self.name, "node", np.array([self.node]), len(body.nodes), "nodes", body)
        dofs = ctx.layout.node_dof(body.nodes[[self.node]])
        return [NodeLoads(self.name, dofs, np.ones(1), ctx.params[f"{self.name}.force"])]

    def contribute(self, ctx, p):
        """A discrete rod in the unified engine (softmech.terms.der_loads): the force on its
        node, per world."""
        rod = der_body(ctx, self.implicit_body)
        if rod is None:
            super().contribute(ctx, p)
        from softmech.terms.der_loads import DerNodeForces
        _in_range(self.name, "node", np.array([self.node]), node_count(rod), "nodes", rod)
        ctx.part(DerNodeForces).add(rod, self.node, p["force"])


class JoinNodes(_ImplicitTerm):
    """JoinNodes(body_a, node_a, body_b, node_b, tolerance=1e-9): node node_a of body_a and
    node node_b of body_b become one node (DisMech's joints through shared nodes: a rod network's
    junction, a rod attached to a shell, ref. 004 sections 2 and 3.4). They must start within
    `tolerance` [m] of each other; their masses add up."""

    section = "joints"

    def __init__(self, body_a, node_a, body_b, node_b, *, tolerance=1e-9, name="join"):
        self.name = name
        self.body_a = _body_name(name, body_a, "body_a")
        self.body_b = _body_name(name, body_b, "body_b")
        self.node_a = _checks.integer(f"{name}.node_a", node_a, 0)
        self.node_b = _checks.integer(f"{name}.node_b", node_b, 0)
        self.tolerance = float(_checks.nonnegative(f"{name}.tolerance", tolerance, shape=()))
        if self.body_a == self.body_b and self.node_a == self.node_b:
            raise ValueError(f"{name}: joins node {self.node_a} of {self.body_a!r} to itself")

    def implicit_bodies(self):
        return (self.body_a, self.body_b)

    def place_implicit(self, layout, bodies):
        slots = []
        for field, body_name, node in (("a", self.body_a, self.node_a),
                                       ("b", self.body_b, self.node_b)):
            if body_name not in bodies:
                raise ValueError(f"{self.name}.body_{field} = {body_name!r} is not allowed: no "
                                 f"discrete rod or shell of that name (bodies: {sorted(bodies)})")
            body = bodies[body_name]
            _in_range(self.name, f"node_{field}", np.array([node]), len(body.nodes), "nodes",
                      body)
            slots.append(body.nodes[node])
        layout.merge(slots[0], slots[1], tolerance=self.tolerance, owner=self.name)

    def bind_implicit(self, ctx):
        return []

    def der_join(self, rods):
        """The join between two discrete rods or shells of the unified engine (rods: {name:
        body}), for softmech.der_packing.DerSlots (node_join)."""
        return node_join(self.name, self.tolerance, ("node_a", self.body_a, self.node_a),
                         ("node_b", self.body_b, self.node_b), rods)

    def contribute(self, ctx, p):
        """Between two discrete rods of the unified engine the join is their shared node slot
        (der_join); nothing to add here."""
        if der_body(ctx, self.body_a) is not None and der_body(ctx, self.body_b) is not None:
            return
        super().contribute(ctx, p)


class PointMass(_ImplicitTerm):
    """PointMass(body, node, mass): a point mass [kg] added to one node of a discrete rod or
    shell (a payload hanging from a parachute's ropes, ref. 004 section 7.1: "modeled simply
    by increasing the mass at the node"); gravity and buoyancy act on it with the node's mass
    (buoyancy takes the body's density for the whole node)."""

    section = "loads"

    def __init__(self, body, node, mass, *, name="point_mass"):
        self.name = name
        self.implicit_body = _body_name(name, body)
        self.node = _checks.integer(f"{name}.node", node, 0)
        self.mass = float(_checks.positive(f"{name}.mass", mass, shape=()))

    def place_implicit(self, layout, bodies):
        body = bodies[self.implicit_body]
        _in_range(self.name, "node", np.array([self.node]), len(body.nodes), "nodes", body)
        layout.add_mass("node", body.nodes[[self.node]], self.mass)

    def bind_implicit(self, ctx):
        return []

    def contribute(self, ctx, p):
        """A discrete rod in the unified engine: the node's mass in ctx.der_node_mass (the
        integrator's, the stability estimate's and the diagnostics'); gravity, an acceleration
        there, then acts on it with the node's mass."""
        rod = der_body(ctx, self.implicit_body)
        if rod is None:
            super().contribute(ctx, p)
        _in_range(self.name, "node", np.array([self.node]), node_count(rod), "nodes", rod)
        ctx.der_node_mass[rod.name][:, self.node] += self.mass
