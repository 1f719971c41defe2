"""The protocol of an implicitly integrated body kind (discrete elastic rods, discrete shells).

A body is built by the Scene (validating every argument in its constructor, before any work
starts), then at compile:

1. `place(layout)`: adds its node slots, scalar DOFs (twist / mid-edge angles) and lumped mass
   to the scene's softmech.implicit.layout.DofLayout, and remembers their ids;
2. after the layout is finalized, `bind_implicit(ctx)` returns the bindings
   (softmech.implicit.binding.Binding) of its elastic energies.

Per-world parameters (natural curvature and twist for actuation, stiffness for a sweep) come from
`parameters()` like a term's: {name: array (1, ...)}; the simulation exposes them as
sim.params["<body>.<name>"] with B lanes.
"""


class ImplicitBody:
    """Base class of implicit body kinds. Subclasses set `name`, `density` [kg/m^3] (buoyancy
    uses each node's displaced volume m_i / density), `nodes` (the node slot ids of its nodes,
    (n_nodes,)) and `scalars` (its scalar DOF ids, possibly empty) in `place`, `edges` (m, 2)
    int64 (body-local node indices of its edges: a rod's, a mesh's unique edges; edge contact
    uses them), and implement `place` and `bind_implicit`; rods also `node_lengths()` (n_nodes,) [m] (Voronoi lengths:
    half the adjacent rest edge lengths), shells `node_areas()` (n_nodes,) [m^2] (a third of
    the adjacent rest triangle areas)."""

    name = "body"
    kind = "implicit body"
    density = None
    nodes = None
    scalars = None

    def place(self, layout):  # pragma: no cover - interface
        raise NotImplementedError

    def bind_implicit(self, ctx):  # pragma: no cover - interface
        raise NotImplementedError

    def parameters(self):
        return {}
