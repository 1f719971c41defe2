"""Rod-shell joints with bending and twisting springs (MAT-DiSMech, ref. 004 section 3.4).

A rod-shell joint is a node shared by the edges of a discrete rod at one of its nodes (the end
edge at an end, both edges at an interior node) and the triangles of a discrete shell (the
"joint node"). Sharing the node alone (`sm.JoinNodes`) transmits force but no moment: the rod
turns freely about the node, a hinge. Section 3.4 makes the joint carry
moment: "we treat the edges ... that form the triangles sharing the joint node as if they are
also rod-edges, augmenting them with material and reference frames and associated twist angles.
... bending and twisting springs are then associated with every possible three-node, two-edge
combination" of those edges and the rod's edge.

`RodShellJoint` builds exactly that: a small rod network (softmech.bodies.der_rod.DerRod with
`edges`) whose edges are the rod's edges at the joint node and the shell edges there, whose
nodes are the rod's and shell's own node slots, and whose springs are every pair of those edges
(rod-shell pairs and shell-shell pairs; build_springs, with DisMech's edge-negation bookkeeping:
an interior rod node's edges are stored one into and one out of the joint node, and each is
used negated where a spring needs it the other way) except the pair of the rod's own two edges
at an interior node, which is the rod's own spring (counting it twice would double the rod's
bending stiffness there).
Its energy is the discrete elastic rod bending-twisting energy (ref. 004 eqs. 11-16) of those
springs, evaluated by the rod's own binding (softmech.terms.der_elasticity.DerBendTwist): the
analytic gradient and Hessian are the rod's (tested against finite differences).

- The rod's edges keep their own twist DOFs and reference frames (the same initial directors,
  parallel transported in time by the same kernel, so the joint sees the rod's material frames).
- Each shell edge at the joint node gets a new twist angle DOF (placed after the joint node),
  its reference director starting along the shell's normal at the joint; its mass moment is that
  of a rod edge of the rod's section, 1/2 rho A l r^2 ("as if they are also rod-edges").
  The shell-shell springs tie these frames to the shell's surface (a shell edge's frame cannot
  spin about the edge without bending its springs with its neighbours), so the joint transmits
  torsion about the rod's axis as well as bending.
- Stiffness: the rod's EI = E pi r^4 / 4 and GJ = G pi r^4 / 2 (r the rod's edge radius at the
  joint, the mean of its two edges' at an interior node; E and G the rod's per-world moduli),
  times the joint's per-world factor `stiffness` [-].
- Rest shape: the joint as built (natural curvature and twist "initial"): the initial shape
  carries no joint force.
"""
import numpy as np

from softmech import _checks
from softmech.bodies.der_rod import DerRod
from softmech.terms.nodes import _ImplicitTerm, _body_name, _in_range, der_body, node_join


class _JointNetwork(DerRod):
    """The joint's rod network: local node 0 is the joint node, 1..n_rod the rod's neighbour
    nodes, then the shell's neighbours; edges 0..n_rod-1 are the rod's edges at the joint node
    (oriented as the rod stores them), the next ones go from the joint node to each shell
    neighbour. a1 (m, 3): initial reference directors of the edges (the rod's own for its
    edges). The spring between two rod edges (an interior rod node) is left out: it is the
    rod's own bending-twisting spring, already in the rod's energy."""

    def __init__(self, name, positions, edges, a1, twist, radius, density, youngs_modulus,
                 shear_modulus, n_rod_edges):
        self._a1_given = np.asarray(a1, dtype=float)
        self.n_rod_edges = n_rod_edges
        """Edges 0..n_rod_edges-1 are the rod's (1 or 2)."""
        super().__init__(name, centerline=positions, edges=edges, normal=a1[0], twist=twist,
                         radius=radius, density=density, youngs_modulus=youngs_modulus,
                         shear_modulus=shear_modulus, natural_curvature="initial",
                         natural_twist="initial")

    def _set_geometry(self, centerline, start, direction, length, n_elems, edges):
        super()._set_geometry(centerline, start, direction, length, n_elems, edges)
        keep = ~np.all(self.spring_edges < self.n_rod_edges, axis=1)
        self.spring_nodes = self.spring_nodes[keep]
        self.spring_edges = self.spring_edges[keep]
        self.spring_signs = self.spring_signs[keep]
        self.voronoi_lengths = self.voronoi_lengths[keep]

    def _initial_frames(self):
        return self._a1_given.copy()


class RodShellJoint(_ImplicitTerm):
    """RodShellJoint(rod, rod_node, shell, shell_node, stiffness=1.0, tolerance=1e-9): node
    `rod_node` of a discrete rod (an end: one edge; or an interior node: two edges) and node
    `shell_node` of a discrete shell become one node, and the rod's edges at that node are held
    to the shell by bending-twisting springs with every shell edge at that node, and those shell
    edges with each other (ref. 004 section 3.4; module docstring). stiffness [-] (> 0)
    multiplies the rod's EI and GJ for the joint's springs (per-world parameter
    "<name>.stiffness" (B,)). The two nodes must start within `tolerance` [m]."""

    section = "joints"

    def __init__(self, rod, rod_node, shell, shell_node, *, stiffness=1.0, tolerance=1e-9,
                 name="rod_shell_joint"):
        self.name = name
        self.rod_name = _body_name(name, rod, "rod")
        self.shell_name = _body_name(name, shell, "shell")
        self.rod_node = _checks.integer(f"{name}.rod_node", rod_node, 0)
        self.shell_node = _checks.integer(f"{name}.shell_node", shell_node, 0)
        self.stiffness = float(_checks.positive(f"{name}.stiffness", stiffness, shape=()))
        self.tolerance = float(_checks.nonnegative(f"{name}.tolerance", tolerance, shape=()))
        self.network = None

    def implicit_bodies(self):
        return (self.rod_name, self.shell_name)

    def parameters(self):
        return {"stiffness": np.array([self.stiffness])}

    def _bodies(self, bodies):
        """(rod, shell, the rod's edges at rod_node (1 or 2,) int)."""
        rod, shell = bodies.get(self.rod_name), bodies.get(self.shell_name)
        if getattr(rod, "kind", None) != "der_rod":
            raise ValueError(f"{self.name}.rod = {self.rod_name!r} is not allowed: must be a "
                             f"discrete rod (der_rod) of the scene")
        if getattr(shell, "kind", None) != "shell":
            raise ValueError(f"{self.name}.shell = {self.shell_name!r} is not allowed: must be a "
                             f"discrete shell of the scene")
        _in_range(self.name, "rod_node", np.array([self.rod_node]), rod.n_nodes, "nodes", rod)
        _in_range(self.name, "shell_node", np.array([self.shell_node]), len(shell.vertices),
                  "nodes", shell)
        at_node = np.flatnonzero((rod.edge_nodes == self.rod_node).any(axis=1))
        if len(at_node) not in (1, 2):
            raise ValueError(f"{self.name}.rod_node = {self.rod_node} is not allowed: must be a "
                             f"node with one edge (an end) or two (an interior node of a "
                             f"polyline); it has {len(at_node)}")
        return rod, shell, at_node

    def build_network(self, rod, shell, rod_edges):
        """The joint's rod network (_JointNetwork) from the bodies as built: its nodes are the
        joint node, the rod's neighbours and the shell's (`node_refs`: (body name, node index)
        of each), its first `n_rod_edges` edges the rod's edges `rod_edges` at the joint node
        (`rod_edges`: their indices in the rod), the rest the shell edges there, whose
        reference directors start along the shell's normal. Used by both engines."""
        j = len(rod_edges)
        # the rod's other node of each of its edges at the joint; the network's rod edges keep
        # the rod's storage direction (DisMech's edge-negation bookkeeping, build_springs,
        # signs the springs of an edge stored towards or away from the joint node)
        pairs = rod.edge_nodes[rod_edges]
        into = pairs[:, 1] == self.rod_node
        others = np.where(into, pairs[:, 0], pairs[:, 1])
        rod_local = np.where(into[:, None], np.stack([1 + np.arange(j), np.zeros(j, np.int64)], 1),
                             np.stack([np.zeros(j, np.int64), 1 + np.arange(j)], 1))
        shell_edges = np.flatnonzero((shell.edges == self.shell_node).any(axis=1))
        neighbours = shell.edges[shell_edges].sum(axis=1) - self.shell_node
        x = np.concatenate([rod.positions[[self.rod_node]], rod.positions[others],
                            shell.vertices[neighbours]])
        k = len(neighbours)
        edges = np.concatenate([rod_local, np.stack([np.zeros(k, np.int64),
                                                     1 + j + np.arange(k)], axis=1)])
        # the shell's normal at the joint: the area-weighted mean of its triangles' normals
        tris = shell.vertices[shell.triangles[(shell.triangles == self.shell_node).any(axis=1)]]
        normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]).sum(axis=0)
        t = x[1 + j:] - x[0]
        t /= np.linalg.norm(t, axis=1, keepdims=True)
        a1 = normal - (t @ normal)[:, None] * t
        a1 /= np.linalg.norm(a1, axis=1, keepdims=True)
        # section of the shell edges' springs: the rod's at the joint (mean over its edges)
        radius = np.concatenate([rod.radius[rod_edges], np.full(k, rod.radius[rod_edges].mean())])
        net = _JointNetwork(
            self.name, x, edges, np.concatenate([rod.a1_0[rod_edges], a1]),
            np.concatenate([rod.twist0[rod_edges], np.zeros(k)]), radius, rod.density,
            rod.youngs_modulus, rod.shear_modulus, n_rod_edges=j)
        net.rod_name, net.rod_edges = rod.name, rod_edges
        net.node_refs = ([(rod.name, self.rod_node)] + [(rod.name, int(o)) for o in others]
                         + [(shell.name, int(n)) for n in neighbours])
        return net

    def place_implicit(self, layout, bodies):
        """Merge the joint nodes, build the joint's network and add the shell edges' twist
        DOFs (after the joint node) with their mass moments."""
        rod, shell, rod_edges = self._bodies(bodies)
        layout.merge(rod.nodes[self.rod_node], shell.nodes[self.shell_node],
                     tolerance=self.tolerance, owner=self.name)
        self.network = net = self.build_network(rod, shell, rod_edges)
        j = len(rod_edges)
        net.nodes = np.array([bodies[b].nodes[i] for b, i in net.node_refs], dtype=np.int64)
        # each new twist is an angle about its shell edge, from the joint node to its neighbour
        new = layout.add_scalars(after=np.repeat(shell.nodes[self.shell_node], net.n_elems - j),
                                 initial=0.0, axis_to=net.nodes[1 + j:])
        layout.add_mass("scalar", new, net.twist_inertia[j:])
        net.scalars = np.concatenate([rod.scalars[rod_edges], new])

    def der_join(self, bodies):
        """The shared node on the unified engine's kind (bodies: {name: DerRod or Shell}), as
        sm.JoinNodes.der_join gives it; None if a body is not on the kind."""
        if self.rod_name in bodies and self.shell_name in bodies:
            self._bodies(bodies)        # (which body is the rod and which the shell, first)
        return node_join(self.name, self.tolerance, ("rod_node", self.rod_name, self.rod_node),
                         ("shell_node", self.shell_name, self.shell_node), bodies)

    def der_network(self, bodies):
        """The joint's network on the unified engine's kind (bodies: {name: DerRod or Shell}):
        build_network's, its springs' stiffness the per-world parameter "<name>.stiffness"
        (`stiffness_key`); None if a body is not on the kind."""
        if self.rod_name not in bodies or self.shell_name not in bodies:
            return None
        net = self.build_network(*self._bodies(bodies))
        net.stiffness_key = f"{self.name}.stiffness"
        return net

    def contribute(self, ctx, p):
        """On the unified engine's kind the joint is a shared node slot (der_join) and the
        network's springs, which the kind's elasticity evaluates (softmech.der_packing.DerSlots,
        softmech.terms.der_kind.DerElasticity) with the per-world stiffness factor kept here."""
        if der_body(ctx, self.rod_name) is None or der_body(ctx, self.shell_name) is None:
            super().contribute(ctx, p)
        ctx.der_joint_stiffness[f"{self.name}.stiffness"] = p["stiffness"]

    def bind_implicit(self, ctx):
        from softmech.terms.der_elasticity import DerBendTwist

        if self.network is None:
            raise RuntimeError(f"{self.name}: place_implicit was not called")
        net = self.network
        rod = ctx.body(self.name, self.rod_name)
        params = {"youngs_modulus": ctx.params[f"{rod.name}.youngs_modulus"],
                  "shear_modulus": ctx.params[f"{rod.name}.shear_modulus"],
                  "natural_curvature": net.natural_curvature[None].copy(),
                  "natural_twist": net.natural_twist[None].copy()}
        # EI, GJ: the network's section constants (the rod's end-edge radius) times the rod's
        # per-world moduli times the joint's factor; the joint's energy is reported as part of
        # the rod's bending and twisting energies (ImplicitSimulation.energies)
        return [DerBendTwist(net, ctx, params=params, factor=ctx.params[f"{self.name}.stiffness"],
                             body=rod.name)]
