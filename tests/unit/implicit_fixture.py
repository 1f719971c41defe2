"""A test-only implicit body: point masses joined by linear axial springs, with its energy,
forces and Hessian written in plain numpy (E = k/2 (|x_j - x_i| - l0)^2 per spring), to test
the implicit integrator (softmech.implicit) independently of the discrete rods and shells; and
step_jacobian_check, the finite-difference check of a binding's step Jacobian."""
import numpy as np

from softmech.implicit.binding import Binding
from softmech.implicit.body import ImplicitBody


class SpringChain(ImplicitBody):
    """Nodes at `positions` (n, 3) [m], each of mass `mass` [kg] (or, with line_density
    [kg/m], line_density times its Voronoi length), consecutive nodes joined by springs of
    stiffness `stiffness` [N/m] and rest length their initial distance; density [kg/m^3] for
    buoyancy."""

    kind = "spring chain"

    def __init__(self, name, positions, mass=None, stiffness=100.0, *, line_density=None,
                 density=1000.0):
        self.name = name
        self.positions = np.asarray(positions, dtype=float)
        self.mass = mass if line_density is None else line_density * self.node_lengths()
        self.stiffness = stiffness
        self.density = density
        self.scalars = np.zeros(0, np.int64)
        self.builder = ("spring_chain", {})

    def node_lengths(self):
        edges = np.linalg.norm(np.diff(self.positions, axis=0), axis=1)
        return 0.5 * (np.append(edges, 0.0) + np.insert(edges, 0, 0.0))

    @property
    def edges(self):
        n = len(self.positions)
        return np.stack([np.arange(n - 1), np.arange(1, n)], axis=1)

    def place(self, layout):
        self.nodes = layout.add_nodes(self.positions)
        layout.add_mass("node", self.nodes, self.mass)

    def parameters(self):
        return {"stiffness": np.array([self.stiffness], dtype=float)}

    def bind_implicit(self, ctx):
        dofs = ctx.layout.node_dof(self.nodes)
        pairs = np.stack([dofs[:-1], dofs[1:]], axis=1).reshape(-1, 6)        # (m, 6)
        rest = np.linalg.norm(np.diff(self.positions, axis=0), axis=1)
        return [Springs(f"{self.name}.springs", pairs, rest, ctx.params[f"{self.name}.stiffness"])]


class Springs(Binding):
    def __init__(self, name, pairs, rest, stiffness):
        self.name = name
        self.pairs = pairs
        self.rest = rest
        self.k = stiffness
        self.rows = np.repeat(pairs, 6, axis=1).reshape(-1)
        self.cols = np.tile(pairs, (1, 6)).reshape(-1)

    def _geometry(self, q):
        d = q[self.pairs[:, 3:]] - q[self.pairs[:, :3]]
        length = np.linalg.norm(d, axis=1)
        return d, length

    def energy(self, b, q):
        _, length = self._geometry(q)
        return 0.5 * self.k[b] * float(np.sum((length - self.rest) ** 2))

    def forces(self, b, q, v, t, h, F, J):
        k = self.k[b]
        d, length = self._geometry(q)
        u = d / length[:, None]
        f = k * (length - self.rest)[:, None] * u            # force on node i (pulls to j)
        np.add.at(F, self.pairs[:, :3], f)
        np.add.at(F, self.pairs[:, 3:], -f)
        # Hessian of E wrt x_j: k [u u^T + (1 - l0/l)(I - u u^T)]; dF/dq = -Hessian
        eye = np.eye(3)
        uu = u[:, :, None] * u[:, None, :]
        Kjj = k * (uu + (1 - self.rest / length)[:, None, None] * (eye - uu))
        block = np.zeros((len(self.rest), 6, 6))
        block[:, :3, :3] = -Kjj
        block[:, 3:, 3:] = -Kjj
        block[:, :3, 3:] = Kjj
        block[:, 3:, :3] = Kjj
        J += block.reshape(-1)


class SpringSheet(SpringChain):
    """A test-only triangle mesh: nodes `positions` (n, 3) [m], `triangles` (m, 3), a spring of
    stiffness `stiffness` on every edge of the triangles."""

    kind = "spring sheet"

    def __init__(self, name, positions, triangles, mass, stiffness):
        super().__init__(name, positions, mass, stiffness)
        self.triangles = np.asarray(triangles, dtype=np.int64)
        pairs = np.sort(self.triangles[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
        self._edges = np.unique(pairs, axis=0)

    @property
    def edges(self):
        return self._edges

    def bind_implicit(self, ctx):
        dofs = ctx.layout.node_dof(self.nodes)
        pairs = np.concatenate([dofs[self._edges[:, 0]], dofs[self._edges[:, 1]]], axis=1)
        rest = np.linalg.norm(np.diff(self.positions[self._edges], axis=1)[:, 0], axis=1)
        return [Springs(f"{self.name}.springs", pairs, rest, ctx.params[f"{self.name}.stiffness"])]


def step_jacobian_check(binding, q, q_n, h, eps):
    """A binding's step Jacobian dF/dq + dF/dv / h at q [m] (n_dof,), with v = (q - q_n) / h
    [m/s] the velocity of a backward-Euler step of size h [s] from q_n, as a dense (n_dof, n_dof)
    array [N/m], and the central differences of its force F(q, (q - q_n) / h) in q with steps
    eps [m] (n_dof, n_dof) [N/m]: the two the caller compares, at its own tolerance.
    World 0, time 0."""
    def force(qq):
        F = np.zeros_like(qq)
        binding.forces(0, qq, (qq - q_n) / h, 0.0, h, F, np.zeros(len(binding.rows)))
        return F

    J = np.zeros(len(binding.rows))
    binding.forces(0, q, (q - q_n) / h, 0.0, h, np.zeros_like(q), J)
    dense = np.zeros((q.size, q.size))
    np.add.at(dense, (binding.rows, binding.cols), J)
    fd = np.stack([(force(q + eps * e) - force(q - eps * e)) / (2 * eps)
                   for e in np.eye(q.size)], axis=1)
    return dense, fd
