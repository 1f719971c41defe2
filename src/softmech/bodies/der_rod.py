"""Discrete elastic rods (Bergou et al. 2008; DisMech / MAT-DiSMech, ref. 004 secs. 2-3.2),
integrated implicitly (softmech.implicit).

A rod is a set of nodes joined by edges: a single rod is a polyline (edges (i, i+1)); a rod
network (`edges=` given) may share a node between several edges, and every pair of edges meeting
at a node forms a bending-twisting spring with DisMech's edge-orientation bookkeeping (ref. 004
sec. 3.2, Fig. 2g: an edge pointing the wrong way for the spring is used negated, sign -1).

DOFs (softmech.implicit.layout): 3 per node [m] and one twist angle [rad] per edge, placed right
after the edge's first node, so a single rod's Jacobian is banded (DisMech's 4N - 1 layout).
Lumped masses: a node carries half the mass rho A l^ of each adjacent edge; an edge's twist
carries the polar mass moment of its cylinder rho A l^ r^2 / 2 [kg m^2].

Material, for a solid circular section of radius r (ref. 004 secs. 3.1-3.2 defaults):
EA = E pi r^2 per edge, EI = E pi r^4 / 4 and GJ = G pi r^4 / 2 per spring (the mean of its
two edges'), G = E / (2 (1 + nu)). Any other section (softmech.bodies.sections, axes 1, 2 along
the material directors m1, m2): EA = E A; kappa1 = kb . m2 is a rotation about m2, so
EI1 = E I2 (int y1^2 dA) and EI2 = E I1 (int y2^2 dA); GJ = G J (Saint-Venant's constant); the
twist inertia is rho l^ (I1 + I2), the polar moment (rho A l^ r^2 / 2 for a circle).

Natural curvature and twist are given per spring in physical units, kappa^ [1/m] (two material
components) and tau^ [rad/m], and used as DisMech's discrete, dimensionless values
kappa^ l_i and tau^ l_i with l_i the spring's Voronoi length (ref. 004 sec. 7.1:
"discrete curvature = kappa * Delta l"); "initial" takes them from the initial shape (exactly:
the initial shape is then the rest shape).
"""
import numpy as np

from softmech import _checks
from softmech.bodies.schedules import Schedule, is_schedule
from softmech.bodies.sections import circle, section_constants
from softmech.implicit.body import ImplicitBody


def polyline_frames(positions, normal):
    """First reference directors a1 (n, 3) of a polyline's edges, space-parallel transported
    from `normal` (3,) (projected orthogonal to the first edge); the initial reference twist is
    then zero (Bergou 2008 sec. 4.2)."""
    from softmech.bodies.cosserat_rod import frames_along
    return frames_along(positions, normal)[:, 0, :].copy()


def _default_normal(t0):
    """A unit vector orthogonal to t0: the coordinate axis least aligned with it, projected."""
    axis = np.eye(3)[np.argmin(np.abs(t0))]
    n = axis - np.dot(axis, t0) * t0
    return n / np.linalg.norm(n)


def build_springs(n_nodes, edges):
    """Bending-twisting springs of a rod network: every pair of edges sharing a node.

    edges: (m, 2) int node indices. Returns nodes (s, 3) (x_a, centre x_b, x_c), spring_edges
    (s, 2) (edge e entering the centre, edge f leaving it) and signs (s, 3): for e and f +1
    where the stored edge already points that way (e = (a, b), f = (b, c)), -1 where it is used
    negated (ref. 004 sec. 3.2), then the frame factor c_e = +1 (DerRod sets -1 where the frames
    face opposite ways, softmech.kernels.der_frames). A polyline gives the n - 1 springs
    (i-1, i, i+1) with all signs +1.
    """
    at_node = [[] for _ in range(n_nodes)]
    for j, (i0, i1) in enumerate(edges):
        at_node[i0].append(j)
        at_node[i1].append(j)
    nodes, pairs, signs = [], [], []
    for centre in range(n_nodes):
        incident = sorted(at_node[centre])
        for u in range(len(incident)):
            for w in range(u + 1, len(incident)):
                je, jf = incident[u], incident[w]
                se = 1.0 if edges[je][1] == centre else -1.0
                sf = 1.0 if edges[jf][0] == centre else -1.0
                a = edges[je][0] if se > 0 else edges[je][1]
                c = edges[jf][1] if sf > 0 else edges[jf][0]
                nodes.append((a, centre, c))
                pairs.append((je, jf))
                signs.append((se, sf, 1.0))
    return (np.array(nodes, dtype=np.int64).reshape(-1, 3),
            np.array(pairs, dtype=np.int64).reshape(-1, 2),
            np.array(signs, dtype=float).reshape(-1, 3))


def _spring_dofs(node_dofs, twist_dofs, spring_nodes, spring_edges):
    """(s, 11) DOFs of each spring (x_a, theta_e, x_b, theta_f, x_c) from node DOFs (N, 3)
    and edge twist DOFs (m,)."""
    a, b, c = spring_nodes.T
    je, jf = spring_edges.T
    return np.ascontiguousarray(np.concatenate(
        [node_dofs[a], twist_dofs[je, None], node_dofs[b], twist_dofs[jf, None], node_dofs[c]],
        axis=1), dtype=np.int64)


class DerRod(ImplicitBody):
    """A discrete elastic rod (or rod network) as built; every argument is checked here.

    Geometry: centerline (N, 3) [m] (a polyline: edges (i, i+1)), or start (3,) [m],
    direction (3,), length [m], n_elems (a straight rod); for a network, centerline holds the
    N nodes and edges (m, 2) the node indices of each edge. normal (3,): the first reference
    director of the first edge (parallel-transported along a polyline; projected on each edge
    of a network), default the coordinate axis least aligned with the first edge. twist: initial
    twist angles [rad], scalar or (m,).
    Material: radius [m] (scalar or per edge (m,)) for solid circles, or section (a
    softmech.sections shape: rectangle, ellipse, tube, general; its circumscribed circle is the
    radius contacts and drawings see unless radius is also given); density [kg/m^3],
    youngs_modulus [Pa], and poisson_ratio (default 0.5, in (-1, 0.5]) or shear_modulus [Pa]
    (not both).
    Rest shape: rest_lengths None (the initial edge lengths) or (m,) [m] > 0 per edge, the
    unstretched lengths (a cable started on an arc whose rest length is the arc's; the edges'
    masses and the springs' Voronoi lengths follow them); natural_curvature None (straight),
    "initial" or (s, 2) [1/m] (kappa1, kappa2 per spring, material components); natural_twist
    None (untwisted), "initial" or (s,) [rad/m]. For a network None means "initial" (a
    junction has no straight rest shape, and its initial reference twists depend on how the
    edges are stored). Springs are numbered as `build_springs` does
    (a polyline's spring i - 1 sits at node i). Actuation: either may also vary in time, given
    as a function of t or a table (softmech.bodies.schedules); the bindings then write the
    per-world parameters "<rod>.natural_curvature" / "<rod>.natural_twist" from it at every
    force evaluation (at the time the implicit step is solved for).
    """

    kind = "der_rod"
    closed = False
    """A discrete rod is open (results files describe its polyline as a rod's)."""

    def __init__(self, name="rod", *, centerline=None, start=None, direction=None, length=None,
                 n_elems=None, edges=None, normal=None, twist=0.0, radius=None, density,
                 youngs_modulus, poisson_ratio=None, shear_modulus=None,
                 natural_curvature=None, natural_twist=None, section=None, rest_lengths=None):
        self.name = name
        self._f = f"der_rod '{name}'."
        self._set_geometry(centerline, start, direction, length, n_elems, edges)
        if rest_lengths is not None:
            self._set_rest_lengths(rest_lengths)
        self._set_material(radius, section, density, youngs_modulus, poisson_ratio,
                           shear_modulus)
        f, m, s = self._f, self.n_elems, self.n_springs
        t0 = self.positions[self.edge_nodes[0, 1]] - self.positions[self.edge_nodes[0, 0]]
        t0 = t0 / self.rest_lengths[0]
        normal = _default_normal(t0) if normal is None else _checks.unit_vector(f + "normal", normal)
        if np.linalg.norm(normal - np.dot(normal, t0) * t0) < 1e-8:
            raise ValueError(f"{f}normal = {normal.tolist()} is not allowed: parallel to the "
                             "first edge (it must have a component across the rod)")
        self.normal = normal
        self.twist0 = _checks.per_element(f + "twist", twist, m, positive_values=False)
        self.a1_0 = self._initial_frames()
        _, _, ref = self.strains(self.positions, self.twist0)
        # half-turn the entering edge's frame of springs whose frames face opposite ways
        self.spring_signs[np.abs(ref) > 0.5 * np.pi, 2] = -1.0
        kappa0, twist0, self.ref_twist0 = self.strains(self.positions, self.twist0)
        self.schedules = {}
        if not self.polyline:
            # a junction has no straight, untwisted rest shape: a network rests as built
            natural_curvature = "initial" if natural_curvature is None else natural_curvature
            natural_twist = "initial" if natural_twist is None else natural_twist
        self.natural_curvature = self._rest_value(
            f + "natural_curvature", natural_curvature, kappa0, (s, 2))
        self.natural_twist = self._rest_value(f + "natural_twist", natural_twist, twist0, (s,))

    def _set_geometry(self, centerline, start, direction, length, n_elems, edges):
        """Nodes, edges (polyline or network), rest lengths, springs and Voronoi lengths."""
        f, name = self._f, self.name
        if centerline is None:
            missing = [k for k, v in (("start", start), ("direction", direction),
                                      ("length", length), ("n_elems", n_elems)) if v is None]
            if missing:
                raise ValueError(f"der_rod '{name}': give centerline=(N, 3) or all of start, "
                                 f"direction, length, n_elems (missing: {', '.join(missing)})")
            from softmech.bodies.cosserat_rod import straight_centerline
            _checks.integer(f + "n_elems", n_elems, 2, _checks.MAX_ELEMENTS)
            _checks.positive(f + "length", length)
            centerline = straight_centerline(start, direction, length, n_elems)
            source = "start/length"
        elif any(v is not None for v in (start, direction, length, n_elems)):
            raise ValueError(f"der_rod '{name}': give centerline or start/direction/length/"
                             "n_elems, not both")
        else:
            source = "centerline"
        x = _checks.coordinates(f + "centerline", centerline, shape=(None, 3))
        if len(x) < 3:
            raise ValueError(f"{f}centerline has {len(x)} nodes: a discrete rod needs >= 3 "
                             "(two edges, one bending-twisting spring)")
        self.polyline = edges is None
        if edges is None:
            edges = np.stack([np.arange(len(x) - 1), np.arange(1, len(x))], axis=1)
        else:
            edges = np.asarray(_checks.finite(f + "edges", edges, shape=(None, 2)))
            if (len(edges) < 2 or np.any(edges != np.round(edges)) or edges.min() < 0
                    or edges.max() >= len(x)):
                raise ValueError(f"{f}edges must hold two or more edges of node indices in "
                                 f"0..{len(x) - 1}")
            edges = edges.astype(np.int64)
            if np.any(edges[:, 0] == edges[:, 1]):
                raise ValueError(f"{f}edges: an edge joins a node to itself")
        self.positions = x
        self.edge_nodes = edges
        # what sets the number of edges, named when a per-edge array does not fit it
        self._edges_from = (f"{f}edges ({len(edges)} edges)" if not self.polyline else
                            f"{f}n_elems = {len(edges)}" if source == "start/length" else
                            f"{f}centerline ({len(x)} nodes)")
        rest_len = np.linalg.norm(x[edges[:, 1]] - x[edges[:, 0]], axis=1)
        scale = max(1.0, np.abs(x).max())
        if np.any(rest_len <= 1e-12 * scale):
            # relative to the coordinates: far from the origin round-off swamps the geometry
            j = int(np.argmin(rest_len))
            raise ValueError(f"{f}{source}: edge {j} has length {rest_len[j]:.3g} m, not allowed: "
                             f"must be > 1e-12 x the largest coordinate ({scale:.3g} m) -- nodes "
                             "must be distinct and the rod not so far from the origin")
        self.rest_lengths = rest_len
        self.spring_nodes, self.spring_edges, self.spring_signs = build_springs(len(x), edges)
        if len(self.spring_nodes) == 0:
            raise ValueError(f"{f}edges: no two edges share a node (no bending-twisting spring)")
        self.voronoi_lengths = 0.5 * rest_len[self.spring_edges].sum(axis=1)

    def _set_rest_lengths(self, rest_lengths):
        """Rest lengths (m,) [m] given apart from the initial shape, and the springs' Voronoi
        lengths from them (the rest shape's, as Bergou et al. 2008's l_i-bar)."""
        self.rest_lengths = _checks.per_element(self._f + "rest_lengths", rest_lengths,
                                                self.n_elems, bounds=_checks.LENGTH,
                                                of=self._edges_from)
        self.voronoi_lengths = 0.5 * self.rest_lengths[self.spring_edges].sum(axis=1)

    def _set_material(self, radius, section, density, youngs_modulus, poisson_ratio,
                      shear_modulus):
        """Moduli, section constants, stiffnesses and lumped masses (module docstring)."""
        f = self._f
        if section is None and radius is None:
            raise ValueError(f"der_rod '{self.name}': give radius (solid circles) or section "
                             "(softmech.sections.rectangle, ellipse, tube, ...)")
        if radius is not None:
            given, radius = radius, _checks.per_element(f + "radius", radius, self.n_elems,
                                                        bounds=_checks.LENGTH)
            if section is None and not np.all(np.isfinite(radius**4) & (radius**4 > 0)):
                raise ValueError(f"{f}radius = {_checks._show(given)} is not allowed: its "
                                 "area or second moment (r^4) is 0 or inf in float64")
        constants = section_constants(f + "section", circle(radius) if section is None
                                      else section, self.n_elems)
        self.radius = constants["radius"] if radius is None else radius
        self.density = float(_checks.physical(f + "density", density, _checks.DENSITY, shape=()))
        self.youngs_modulus = float(_checks.physical(f + "youngs_modulus", youngs_modulus,
                                                     _checks.MODULUS, shape=()))
        if poisson_ratio is not None and shear_modulus is not None:
            raise ValueError(f"der_rod '{self.name}': give poisson_ratio or shear_modulus, "
                             "not both")
        if shear_modulus is not None:
            self.shear_modulus = float(_checks.physical(f + "shear_modulus", shear_modulus,
                                                        _checks.MODULUS, shape=()))
        else:
            nu = 0.5 if poisson_ratio is None else _checks.poisson_ratio(f + "poisson_ratio",
                                                                         poisson_ratio)
            self.shear_modulus = self.youngs_modulus / (2.0 * (1.0 + nu))
        # section constants: A (m,) [m^2]; I (s, 2) in the order of (kappa1, kappa2) (module
        # docstring: I2 then I1) and J (s,) [m^4], the mean of a spring's two edges; the
        # stiffnesses are the moduli times these
        self.section_area = constants["area"]
        i_edge = constants["second_moments"][:, ::-1]
        self.section_inertia = i_edge[self.spring_edges].mean(axis=1)
        self.section_polar = constants["torsion_constant"][self.spring_edges].mean(axis=1)
        self.EA = self.youngs_modulus * self.section_area                           # (m,) [N]
        self.EI = self.youngs_modulus * self.section_inertia                     # (s, 2) [N m^2]
        self.GJ = self.shear_modulus * self.section_polar                        # (s,) [N m^2]
        edge_mass = self.density * self.section_area * self.rest_lengths
        self.node_mass = np.zeros(len(self.positions))
        np.add.at(self.node_mass, self.edge_nodes[:, 0], 0.5 * edge_mass)
        np.add.at(self.node_mass, self.edge_nodes[:, 1], 0.5 * edge_mass)
        polar = constants["second_moments"].sum(axis=1)                          # I1 + I2
        self.twist_inertia = self.density * polar * self.rest_lengths           # (m,) [kg m^2]

    def _initial_frames(self):
        if self.polyline:
            return polyline_frames(self.positions, self.normal)
        t = self.positions[self.edge_nodes[:, 1]] - self.positions[self.edge_nodes[:, 0]]
        t /= np.linalg.norm(t, axis=1, keepdims=True)
        a1 = self.normal - (t @ self.normal)[:, None] * t
        bad = np.linalg.norm(a1, axis=1) < 1e-8
        for j in np.flatnonzero(bad):
            a1[j] = _default_normal(t[j])
        return a1 / np.linalg.norm(a1, axis=1, keepdims=True)

    def _local_dofs(self):
        """DOF tables of a private layout q = (x_0, ..., x_{N-1}, theta_0, ..., theta_{m-1})."""
        nd = np.arange(3 * self.n_nodes).reshape(-1, 3)
        tw = 3 * self.n_nodes + np.arange(self.n_elems)
        edge_dofs = np.concatenate([nd[self.edge_nodes[:, 0]], nd[self.edge_nodes[:, 1]]], axis=1)
        return edge_dofs, tw, _spring_dofs(nd, tw, self.spring_nodes, self.spring_edges)

    def strains(self, positions, twist):
        """Material curvatures kappa (s, 2) [1/m], twist tau (s,) [rad/m] and reference twist
        (s,) [rad] of the configuration positions (N, 3) [m], twist angles (m,) [rad], with the
        reference frames parallel-transported in time from the initial ones (valid for shapes
        reached from the initial one without a half turn of an edge)."""
        from softmech.kernels.der_bend_twist import der_strains
        from softmech.kernels.der_frames import der_frames
        edge_dofs, _, spring_dofs = self._local_dofs()
        q = np.concatenate([np.asarray(positions, float).ravel(), np.asarray(twist, float)])
        m, s = self.n_elems, self.n_springs
        t0 = self.positions[self.edge_nodes[:, 1]] - self.positions[self.edge_nodes[:, 0]]
        t0 /= np.linalg.norm(t0, axis=1, keepdims=True)
        t, a1, a2 = np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 3))
        ref = np.empty(s)
        der_frames(q, edge_dofs, self.a1_0, t0, np.zeros(s), self.spring_edges, self.spring_signs,
                   t, a1, a2, ref)
        kappa, tau = np.empty((s, 2)), np.empty(s)
        der_strains(q, spring_dofs, self.spring_edges, self.spring_signs, a1, a2, ref,
                    kappa, tau)
        return kappa / self.voronoi_lengths[:, None], tau / self.voronoi_lengths, ref

    def _rest_value(self, field, value, initial, shape):
        if is_schedule(value):
            schedule = Schedule(field, value, shape)
            self.schedules[field.rsplit(".", 1)[1]] = schedule
            start = np.asarray(schedule(0.0), dtype=float)
            return (start if start.shape == shape else start[0]).copy()
        if value is None:
            return np.zeros(shape)
        if isinstance(value, str):
            _checks.choice(field, value, {"initial"})
            return initial
        return _checks.finite(field, value, shape=shape).astype(float).copy()

    # -- sizes ------------------------------------------------------------------------------
    @property
    def n_nodes(self):
        return len(self.positions)

    @property
    def n_elems(self):
        return len(self.edge_nodes)

    @property
    def n_springs(self):
        return len(self.spring_nodes)

    @property
    def edges(self):
        """Node indices (m, 2) of every edge (the implicit bodies' edge attribute, as a
        shell's: softmech.terms.edge_contact, results files)."""
        return self.edge_nodes

    def drawn_radius(self, worlds):
        """The radius each edge is drawn and described with, (worlds, n_elems) [m] (a results
        file's /rods/<rod>/radius, in either engine)."""
        return np.broadcast_to(np.asarray(self.radius, float), (worlds, self.n_elems)).copy()

    def node_lengths(self):
        """Voronoi length of every node (n_nodes,) [m]: half of each adjacent rest edge."""
        out = np.zeros(self.n_nodes)
        np.add.at(out, self.edge_nodes[:, 0], 0.5 * self.rest_lengths)
        np.add.at(out, self.edge_nodes[:, 1], 0.5 * self.rest_lengths)
        return out

    # -- implicit body protocol -------------------------------------------------------------
    def parameters(self):
        """Per-world parameters: natural_curvature (1, s, 2) [1/m] and natural_twist (1, s)
        [rad/m] (actuation writes these); youngs_modulus and shear_modulus (1,) [Pa] (a sweep
        over stiffness without recompiling: EA, EI scale with E and GJ with G, each set on its
        own -- writing E does not change G)."""
        return {"natural_curvature": self.natural_curvature[None].copy(),
                "natural_twist": self.natural_twist[None].copy(),
                "youngs_modulus": np.array([self.youngs_modulus]),
                "shear_modulus": np.array([self.shear_modulus])}

    def place(self, layout):
        """Add the nodes, one twist DOF per edge after its first node, and the lumped masses."""
        self.nodes = layout.add_nodes(self.positions)
        # the twist of edge (i, j) is an angle about its tangent, from node i to node j
        self.scalars = layout.add_scalars(after=self.nodes[self.edge_nodes[:, 0]],
                                          initial=self.twist0,
                                          axis_to=self.nodes[self.edge_nodes[:, 1]])
        layout.add_mass("node", self.nodes, self.node_mass)
        layout.add_mass("scalar", self.scalars, self.twist_inertia)

    def dofs(self, layout):
        """DOF tables: edge_dofs (m, 6) (x, y, z of both nodes), twist_dofs (m,) and
        spring_dofs (s, 11) (x_a, theta_e, x_b, theta_f, x_c) of the finalized layout."""
        nd = layout.node_dof(self.nodes)                       # (N, 3)
        tw = layout.scalar_dof(self.scalars)                   # (m,)
        edge_dofs = np.concatenate([nd[self.edge_nodes[:, 0]], nd[self.edge_nodes[:, 1]]], axis=1)
        return (np.ascontiguousarray(edge_dofs, dtype=np.int64), tw,
                _spring_dofs(nd, tw, self.spring_nodes, self.spring_edges))

    def bind_implicit(self, ctx):
        from softmech.terms.der_elasticity import DerBendTwist, DerStretch
        return [DerStretch(self, ctx), DerBendTwist(self, ctx)]
