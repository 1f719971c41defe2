"""The degrees of freedom of the implicitly integrated bodies of a scene: one global vector q.

Discrete elastic rods (softmech.bodies.der_rod) and discrete shells (softmech.bodies.shell)
share one node table, as in DisMech (ref. 004, section 2): a node is 3 DOFs (x, y, z) [m], and
a body may add scalar DOFs of its own (a rod edge's twist angle [rad], a shell edge's mid-edge
normal angle [rad]). Bodies join by sharing nodes (a rod network's junction, a rod-shell joint,
ref. 004 section 3.4): `merge` makes two node slots one node.

Order of q: the nodes in the order they were added (after merging), each node's x, y, z followed
by the scalars attached to it (`add_scalars(..., after=node)`). A scalar that is an angle of
rotation about an edge (`axis_to`: the edge's other node) is known as such, so that the rigid
motions of the scene's DOFs can be written down (`dof_geometry`, softmech.implicit.near_null).
A rod's twist of edge (i, i+1) attached after node i makes a single rod's Jacobian banded
(bandwidth 10, DisMech's layout advice); a mesh gets the band its node numbering gives
(softmech.implicit.linear picks a sparse factorization when the band is wide).
"""
import numpy as np


class DofLayout:
    """Node and scalar DOFs of a scene's implicit bodies, built in two phases.

    Building (bodies call, in order): `add_nodes`, `add_scalars`, `merge`, `add_mass`. Then
    `finalize()` numbers the DOFs; after it: `n_dof`, `node_dof(nodes)` (n, 3), `scalar_dof(ids)`
    (n,), `q0` (n_dof,) initial values, `mass` (n_dof,) lumped mass [kg] (node DOFs) or mass
    moment [kg m^2] (scalar DOFs), `dof_geometry()`.
    """

    def __init__(self):
        self._positions = []   # (n, 3) arrays, per add_nodes call
        self._scalars = []     # (after_node, initial value) per scalar
        self._axis_to = []     # per scalar: the node slot its rotation axis points to, or -1
        self._surface = []     # per node slot: added by a surface body (a shell)
        self._parent = []      # union-find over node slots (merge)
        self._mass = []        # (kind, ids, values) added before finalize
        self.n_dof = None

    # -- building -------------------------------------------------------------------------
    @property
    def n_slots(self):
        return len(self._parent)

    def add_nodes(self, positions, surface=False):
        """Add node slots at `positions` (n, 3) [m]; surface: True for the nodes of a surface
        (a shell's mesh; the multigrid solver is chosen by their number,
        softmech.implicit.linear). Returns their slot ids (n,) int64."""
        self._require_building()
        pos = np.array(positions, dtype=float).reshape(-1, 3)
        start = len(self._parent)
        self._positions.append(pos)
        self._parent.extend(range(start, start + len(pos)))
        self._surface.extend([bool(surface)] * len(pos))
        return np.arange(start, start + len(pos), dtype=np.int64)

    def add_scalars(self, after, initial=0.0, axis_to=None):
        """Add scalar DOFs, each placed in q right after the node slot `after` (n,); initial
        values (n,) or a scalar; axis_to: None, or node slots (n,) when each scalar is an angle
        [rad] of rotation about the edge from `after` to `axis_to` (a rod edge's twist, a shell
        edge's mid-edge normal angle): a rigid rotation by omega [rad] then changes it by
        omega . e_hat, e_hat the edge's unit vector (softmech.implicit.near_null). Returns their
        scalar ids (n,) int64."""
        self._require_building()
        after = np.asarray(after, dtype=np.int64).reshape(-1)
        if after.size and (after.min() < 0 or after.max() >= self.n_slots):
            raise ValueError("DofLayout.add_scalars: `after` names a node slot that does not exist")
        if axis_to is None:
            axis_to = np.full(after.shape, -1, dtype=np.int64)
        else:
            axis_to = np.asarray(axis_to, dtype=np.int64).reshape(-1)
            if axis_to.shape != after.shape or (axis_to.size and (
                    axis_to.min() < 0 or axis_to.max() >= self.n_slots)):
                raise ValueError("DofLayout.add_scalars: `axis_to` must name one existing node "
                                 "slot per scalar")
        init = np.broadcast_to(np.asarray(initial, dtype=float), after.shape)
        start = len(self._scalars)
        self._scalars.extend(zip(after.tolist(), init.tolist()))
        self._axis_to.extend(axis_to.tolist())
        return np.arange(start, start + after.size, dtype=np.int64)

    def _root(self, i):
        while self._parent[i] != i:
            self._parent[i] = self._parent[self._parent[i]]
            i = self._parent[i]
        return i

    def merge(self, a, b, *, tolerance, owner="join"):
        """Make node slots a and b one node (the earlier slot keeps its place in q). Their
        positions must agree within `tolerance` [m]."""
        self._require_building()
        pos = np.concatenate(self._positions)
        gap = float(np.linalg.norm(pos[a] - pos[b]))
        if gap > tolerance:
            raise ValueError(f"{owner}: the joined nodes are {gap:.3g} m apart, more than the "
                             f"tolerance {tolerance:.3g} m (they must coincide)")
        ra, rb = self._root(int(a)), self._root(int(b))
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)

    def add_mass(self, kind, ids, values):
        """Lumped mass: kind "node" (ids: node slots, values [kg], (n,)) or "scalar" (ids:
        scalar ids, values [kg m^2], (n,)). Added up where ids repeat or nodes merge."""
        self._require_building()
        if kind not in ("node", "scalar"):
            raise ValueError(f"DofLayout.add_mass: kind = {kind!r} must be 'node' or 'scalar'")
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        self._mass.append((kind, ids, np.broadcast_to(np.asarray(values, float), ids.shape).copy()))

    def _require_building(self):
        if self.n_dof is not None:
            raise RuntimeError("DofLayout is finalized: add bodies before the scene is compiled")

    # -- numbering ------------------------------------------------------------------------
    def finalize(self):
        """Number the DOFs: each kept node's x, y, z, then the scalars attached to it."""
        roots = np.array([self._root(i) for i in range(self.n_slots)], dtype=np.int64)
        kept = np.flatnonzero(roots == np.arange(self.n_slots))
        attached = [[] for _ in range(self.n_slots)]
        for sid, (after, _) in enumerate(self._scalars):
            attached[roots[after]].append(sid)
        slot_first = np.full(self.n_slots, -1, dtype=np.int64)
        scalar_dof = np.empty(len(self._scalars), dtype=np.int64)
        k = 0
        for node in kept:
            slot_first[node] = k
            k += 3
            for sid in attached[node]:
                scalar_dof[sid] = k
                k += 1
        self._slot_first = slot_first[roots]
        self._scalar_dof = scalar_dof
        self._scalar_after = np.array([self._slot_first[after] for after, _ in self._scalars],
                                      dtype=np.int64)
        axis_to = np.array(self._axis_to, dtype=np.int64)
        self._scalar_axis_to = np.where(axis_to >= 0, self._slot_first[np.maximum(axis_to, 0)],
                                        -1)
        # a node is a surface node if any of its merged slots is (a rod-shell joint's)
        surface_first = np.zeros(k, dtype=bool)
        surface_first[self._slot_first[np.flatnonzero(self._surface)]] = True
        self._surface_first = surface_first
        self.n_dof = k
        self.n_nodes = len(kept)
        positions = np.concatenate(self._positions) if self._positions else np.zeros((0, 3))
        q0 = np.zeros(k)
        q0[self.node_dof(kept)] = positions[kept]
        q0[scalar_dof] = [v for _, v in self._scalars]
        self.q0 = q0
        mass = np.zeros(k)
        for kind, ids, values in self._mass:
            if kind == "node":
                np.add.at(mass, self.node_dof(ids), values[:, None])
            else:
                np.add.at(mass, self.scalar_dof(ids), values)
        self.mass = mass
        return self

    def node_dof(self, slots):
        """DOF indices (n, 3) of node slots (n,) (merged slots give the same DOFs)."""
        first = self._slot_first[np.asarray(slots, dtype=np.int64)]
        return first[..., None] + np.arange(3)

    def scalar_dof(self, ids):
        """DOF indices (n,) of scalar ids (n,)."""
        return self._scalar_dof[np.asarray(ids, dtype=np.int64)]

    def dof_geometry(self):
        """Where each DOF sits, for the rigid motions of softmech.implicit.near_null:
        component (n_dof,) int64: 0, 1, 2 for a node's x, y, z, -1 for a scalar; node (n_dof,)
        int64: the index in q of the x of the DOF's node (a scalar's: the node it is attached
        to); axis_to (n_dof,) int64: for a scalar that is an angle about an edge, the index in q
        of the x of the edge's other node, else -1; surface (n_dof,) bool: the DOF's node is a
        surface node (add_nodes)."""
        first = np.empty(self.n_dof, dtype=np.int64)
        component = np.full(self.n_dof, -1, dtype=np.int64)
        axis_to = np.full(self.n_dof, -1, dtype=np.int64)
        starts = np.unique(self._slot_first)
        for k in range(3):
            first[starts + k] = starts
            component[starts + k] = k
        first[self._scalar_dof] = self._scalar_after
        axis_to[self._scalar_dof] = self._scalar_axis_to
        return component, first, axis_to, self._surface_first[first]

    def node_of_dof(self):
        """For each DOF, the index (0..n_nodes-1, in q order) of its node or of the node its
        scalar is attached to, (n_dof,): the structure used to order and band the Jacobian."""
        owner = np.empty(self.n_dof, dtype=np.int64)
        starts = np.unique(self._slot_first)
        bounds = np.append(starts, self.n_dof)
        for i in range(len(starts)):
            owner[bounds[i]:bounds[i + 1]] = i
        return owner
