"""Discrete shells on triangle meshes, integrated implicitly (DisMech's model: ref. 004 sections
2, 3.1 and 3.3).

Elastic energy = stretching springs on every edge + bending, per shell either

- "hinge": Grinspun et al. 2003 / ref. 004 eq. 17, E = 1/2 k_e (theta_e - theta_bar_e)^2 per
  interior edge (softmech.kernels.shell_hinge), or
- "midedge": the mid-edge normal shape operator of Grinspun et al. 2006 / ref. 004 eqs. 19-20,
  with one scalar DOF xi per edge (softmech.kernels.shell_midedge).

Stiffnesses from Young's modulus E [Pa], Poisson's ratio nu and thickness h [m]:

- stretching (ref. 004 section 3.1, after its ref. [37]): E_s = 1/2 k_s eps^2 with
  k_s = sqrt(3)/2 E h l0^2 [J]. Derivation: an equilateral mesh of side l under a uniform
  in-plane strain eps stores 6/(sqrt(3) l^2) springs per unit area x 1/2 k_s eps^2 = 3/2 E h eps^2,
  which is the plane-stress energy E h eps^2 / (1 - nu) of an isotropic sheet with nu = 1/3 (the
  spring lattice's own Poisson ratio; the membrane ignores the shell's nu).
- hinge bending, two conventions (`hinge_convention`):
  "plate": k_e = D l0_e^2 / (A1 + A2) [J], D = E h^3 / (12 (1 - nu^2)), A1, A2 the rest areas
  of the edge's two triangles: Grinspun 2003's weight |e|^2 / (3 h_e) with h_e a third of the
  triangles' mean height, scaled so that an equilateral mesh has k_b = 2 D / sqrt(3), the hinge
  stiffness whose energy matches the plate's D/2 kappa^2 per unit area in cylindrical bending
  (Seung & Nelson 1988; checked by tests/properties/test_shell_energies.py);
  "dismech": k_b = 2 / sqrt(3) E h^3 / 12, the same on every hinge, as MAT-DiSMech computes it
  (ref. 004 eq. 17 names E and h only; its code: kb = 2/sqrt(3) * Y * h^3 / 12): no Poisson
  factor and no mesh weight, so on an equilateral mesh it is (1 - nu^2) x "plate" (0.75 at
  nu = 0.5) and matches a plate of nu = 0 in cylindrical bending.
- mid-edge bending: E = D/2 A [(1 - nu) tr(dS^2) + nu tr(dS)^2] per triangle (ref. 004 eq. 20),
  exact for any smooth bending of a fine mesh.

Mass is lumped (ref. 004 eq. 3): each triangle gives a third of rho h A to each of its nodes; a
mid-edge DOF xi (an angle-like tilt) gets the mass moment rho h A_e l_e^2 / 12 [kg m^2] of the
strip of area A_e (a third of its triangles' areas) turning about the edge.
"""
import copy
import os

import numpy as np

from softmech import _checks
from softmech.bodies import meshes
from softmech.implicit.binding import Binding
from softmech.implicit.body import ImplicitBody
from softmech.kernels import shell_hinge, shell_midedge, shell_stretch


HINGE_CONVENTIONS = ("plate", "dismech")
"""Hinge bending stiffnesses (module docstring): the plate's D with Grinspun's mesh weight, or
MAT-DiSMech's uniform 2 / sqrt(3) E h^3 / 12."""


class Shell(ImplicitBody):
    """A discrete shell (DisMech's model), added with scene.add_shell(name=..., **options).

    Geometry: `mesh` (a softmech.bodies.meshes.TriangleMesh, or a file path: DisMech's .txt,
    .obj, .stl) or `vertices` (n_nodes, 3) [m] with `triangles` (n_tris, 3) 0-based node
    indices. thickness h [m], youngs_modulus E [Pa], poisson_ratio nu in (-1, 0.5], density rho
    [kg/m^3]. bending: "hinge" or "midedge". rest_shape: the natural (stress-free) curvature --
    "initial" (the mesh as given), "flat" (zero natural curvature), or node positions (n_nodes, 3)
    [m] of a curved rest shape (e.g. the sheet wrapped onto a cylinder) whose hinge angles /
    mid-edge shape operators are the natural ones; rest lengths and areas always come from the
    initial mesh. natural_curvature: (k_xx, k_yy, k_xy) [1/m], a uniform natural curvature tensor
    of a flat mesh lying in a plane z = const (with rest_shape "initial" or "flat"): the sheet
    wants to curl into the surface z = 1/2 (k_xx x^2 + 2 k_xy x y + k_yy y^2) locally (e.g.
    (1/R, 0, 0): a cylinder of radius R about an axis along y). Per-world parameters (sim.params): "<name>.rest_angle" (hinge, (B, n_hinges)
    [rad]) or "<name>.rest_curvature" (midedge, (B, n_tris, 3) [1/m]: a_bar of
    softmech.kernels.shell_midedge), written to actuate by natural curvature.
    hinge_convention (bending "hinge"): "plate" (D = E h^3 / (12 (1 - nu^2)) with Grinspun's
    mesh weight) or "dismech" (MAT-DiSMech's uniform 2 / sqrt(3) E h^3 / 12, no Poisson
    factor); None: "dismech" for a mesh read from DisMech's .txt format, else "plate".
    """

    kind = "shell"

    def __init__(self, name="shell", *, mesh=None, vertices=None, triangles=None, thickness,
                 youngs_modulus, density, poisson_ratio=0.3, bending="hinge", rest_shape="initial",
                 natural_curvature=None, hinge_convention=None):
        self.name = name
        owner = f"shell {name!r}"
        if hinge_convention is not None:
            _checks.choice(f"{owner}.hinge_convention", hinge_convention, set(HINGE_CONVENTIONS))
        from_dismech = False
        if mesh is not None:
            if vertices is not None or triangles is not None:
                raise ValueError(f"{owner}: give either mesh or vertices + triangles, not both")
            from_dismech = isinstance(mesh, (str, os.PathLike)) and \
                os.fspath(mesh).lower().endswith(".txt")
            if isinstance(mesh, (str, os.PathLike)):
                mesh = meshes.load_mesh(mesh)
            if not isinstance(mesh, meshes.TriangleMesh):
                raise ValueError(f"{owner}.mesh = {mesh!r} is not allowed: must be a TriangleMesh "
                                 "(softmech.bodies.meshes) or a mesh file path")
            vertices, triangles = mesh.vertices, mesh.triangles
        elif vertices is None or triangles is None:
            raise ValueError(f"{owner}: give a mesh, or vertices (n, 3) and triangles (m, 3)")
        self.vertices, self.triangles = meshes.validate(vertices, triangles, owner=owner)
        self.thickness = float(_checks.physical(f"{owner}.thickness", thickness, _checks.LENGTH,
                                                shape=()))
        self.youngs_modulus = float(_checks.physical(f"{owner}.youngs_modulus", youngs_modulus,
                                                     _checks.MODULUS, shape=()))
        self.density = float(_checks.physical(f"{owner}.density", density, _checks.DENSITY,
                                              shape=()))
        nu = _checks.poisson_ratio(f"{owner}.poisson_ratio", poisson_ratio)
        self.poisson_ratio = nu
        with np.errstate(over="ignore", under="ignore"):
            derived = {"bending rigidity E h^3 / (12 (1 - nu^2))": np.float64(self.youngs_modulus)
                       * np.float64(self.thickness) ** 3 / (12 * (1 - nu ** 2)),
                       "mass per area rho h": np.float64(self.density) * self.thickness}
        for what, value in derived.items():
            if not 0.0 < value < np.inf:
                raise ValueError(f"{owner}.thickness = {thickness!r} is not allowed with "
                                 f"youngs_modulus = {youngs_modulus!r}, density = {density!r}: "
                                 f"the {what} = {value:g} must be a finite positive number")
        self.bending = _checks.choice(f"{owner}.bending", bending, {"hinge", "midedge"})
        if hinge_convention is None:        # a DisMech model file: reproduce DisMech
            hinge_convention = "dismech" if from_dismech else "plate"
        self.hinge_convention = _checks.choice(f"{owner}.hinge_convention", hinge_convention,
                                               set(HINGE_CONVENTIONS))
        if isinstance(rest_shape, str):
            _checks.choice(f"{owner}.rest_shape", rest_shape, {"initial", "flat"})
            self.rest_shape = rest_shape
        else:
            self.rest_shape = _checks.finite(f"{owner}.rest_shape", rest_shape,
                                             shape=(len(self.vertices), 3))
        self.natural_curvature_tensor = None
        if natural_curvature is not None:
            k = _checks.finite(f"{owner}.natural_curvature", natural_curvature, shape=(3,))
            if not isinstance(self.rest_shape, str) or np.ptp(self.vertices[:, 2]) > 0:
                raise ValueError(f"{owner}.natural_curvature is not allowed with this mesh: it "
                                 "needs a flat mesh in a plane z = const and rest_shape 'initial' "
                                 "or 'flat' (give a curved rest shape as rest_shape instead)")
            self.natural_curvature_tensor = np.array([[k[0], k[2]], [k[2], k[1]]])
        self._topology()
        self._stiffness()
        self.nodes = None

    # -- geometry and material --------------------------------------------------------------
    def _topology(self):
        tri = self.triangles
        self.edges, self.tri_edges, self.tri_edge_sign = meshes._edges(tri)
        self.hinges, self.hinge_edges = meshes.hinges(tri)
        p = self.vertices[tri]
        self.tri_area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
        self.edge_length = np.linalg.norm(self.vertices[self.edges[:, 1]]
                                          - self.vertices[self.edges[:, 0]], axis=1)

    @property
    def bending_rigidity(self):
        """Plate bending rigidity D = E h^3 / (12 (1 - nu^2)) [N m]."""
        return self.youngs_modulus * self.thickness ** 3 / (12 * (1 - self.poisson_ratio ** 2))

    @property
    def mass(self):
        """Total mass rho h sum(A) [kg]."""
        return self.density * self.thickness * float(self.tri_area.sum())

    def _stiffness(self):
        E, h, D, nu = self.youngs_modulus, self.thickness, self.bending_rigidity, self.poisson_ratio
        self.stretch_stiffness = np.sqrt(3) / 2 * E * h * self.edge_length ** 2
        _, edge_tris = meshes.edge_triangles(self.triangles)
        self.edge_tris = edge_tris
        inner = edge_tris[self.hinge_edges]
        areas = self.tri_area[inner[:, 0]] + self.tri_area[inner[:, 1]]
        self.hinge_stiffness = D * self.edge_length[self.hinge_edges] ** 2 / areas
        if self.hinge_convention == "dismech":      # ref. 004 eq. 17 as MAT-DiSMech codes it
            self.hinge_stiffness = np.full(len(self.hinge_edges), 2 / np.sqrt(3) * E * h ** 3 / 12)
        # mid-edge: l_i / A and K_ij = D A ((1 - nu)(t_i . t_j)^2 + nu) from the rest triangle
        p = self.vertices[self.triangles]
        n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
        n /= np.linalg.norm(n, axis=1)[:, None]
        t = np.empty((len(p), 3, 3))
        lengths = np.empty((len(p), 3))
        for i in range(3):
            e = p[:, (i + 2) % 3] - p[:, (i + 1) % 3]      # edge opposite node i, along the triangle
            lengths[:, i] = np.linalg.norm(e, axis=1)
            t[:, i] = np.cross(e, n) / lengths[:, i, None]  # outward in-plane unit normal
        self.length_over_area = lengths / self.tri_area[:, None]
        G = np.einsum("tik,tjk->tij", t, t) ** 2
        self.midedge_stiffness = (D * self.tri_area[:, None, None]
                                  * ((1 - nu) * G + nu)).reshape(-1, 9)

    def natural_curvature(self):
        """Natural curvature from rest_shape: hinge angles theta_bar (n_hinges,) [rad] or mid-edge
        a_bar (n_tris, 3) [1/m] (xi = 0: the mid-edge normals along their faces' mean normal)."""
        if self.natural_curvature_tensor is not None:
            return self._curvature_from_tensor(self.natural_curvature_tensor)
        if isinstance(self.rest_shape, str) and self.rest_shape == "flat":
            n = len(self.hinges) if self.bending == "hinge" else len(self.triangles)
            return np.zeros(n) if self.bending == "hinge" else np.zeros((n, 3))
        x = self.vertices if isinstance(self.rest_shape, str) else self.rest_shape
        if self.bending == "hinge":
            out = np.zeros(len(self.hinges))
            shell_hinge.hinge_angles(x.ravel(), _node_dofs(self.hinges), out)
            return out
        tau, nrm0 = edge_frames(x, self.triangles, self.edges, self.edge_tris)
        return midedge_shape(x, self.triangles, self.tri_edges, self.tri_edge_sign, tau, nrm0,
                             self.length_over_area)

    def _curvature_from_tensor(self, K):
        """Hinge: the angle of each hinge's four nodes lifted onto z = 1/2 d^T K d, d the offset
        from the hinge edge's midpoint (the interpolant of the natural surface, taken locally).
        Mid-edge: a_bar per triangle with sum_i a_bar_i t_i t_i^T = K (the discrete shape
        operator of eq. 19 equal to the natural one), a 3 x 3 solve per triangle."""
        v = self.vertices
        if self.bending == "hinge":
            out = np.zeros(len(self.hinges))
            x = v[self.hinges].copy()                                  # (n_h, 4, 3)
            d = x[:, :, :2] - 0.5 * (x[:, :1, :2] + x[:, 1:2, :2])
            x[:, :, 2] += 0.5 * np.einsum("hni,ij,hnj->hn", d, K, d)
            shell_hinge.hinge_angles(x.ravel(), np.arange(x.size).reshape(len(x), 12), out)
            return out
        p = v[self.triangles]
        sgn = np.sign(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])[:, 2])[:, None]
        A = np.empty((len(p), 3, 3))
        for i in range(3):
            e = p[:, (i + 2) % 3, :2] - p[:, (i + 1) % 3, :2]
            t = np.stack([e[:, 1], -e[:, 0]], axis=1) * sgn          # in-plane normal to the edge
            t /= np.linalg.norm(t, axis=1)[:, None]
            A[:, :, i] = np.stack([t[:, 0] ** 2, t[:, 1] ** 2, t[:, 0] * t[:, 1]], axis=1)
        rhs = np.broadcast_to(np.array([K[0, 0], K[1, 1], K[0, 1]]), (len(p), 3))
        # sign: a_i is the tilt of the mid-edge normal outwards, dn/ds = -S for a surface bulging
        # towards +n, hence the minus (checked by the rolled-strip validation)
        return -sgn * np.linalg.solve(A, rhs[..., None])[..., 0]

    def parameters(self):
        key = "rest_angle" if self.bending == "hinge" else "rest_curvature"
        return {key: self.natural_curvature()[None]}

    # -- implicit body protocol -------------------------------------------------------------
    def place(self, layout):
        """Add the nodes, their lumped mass and (midedge) one xi per edge after its first node."""
        self.nodes = layout.add_nodes(self.vertices, surface=True)
        self.scalars = np.zeros(0, dtype=np.int64)
        layout.add_mass("node", self.nodes, self.density * self.thickness * self.node_areas())
        if self.bending == "midedge":
            # xi_e = m . tau_e with tau_e = e_hat x n0_e, e_hat from edges[e, 0] to edges[e, 1]
            # (edge_frames): a rigid rotation omega turns m by omega x m, so xi changes by
            # omega . (n0 x tau) = omega . e_hat, an angle about the edge
            self.xi = self.scalars = layout.add_scalars(after=self.nodes[self.edges[:, 0]],
                                                        initial=0.0,
                                                        axis_to=self.nodes[self.edges[:, 1]])
            strip = np.zeros(len(self.edges))       # a third of the edge's triangles' areas
            np.add.at(strip, self.tri_edges.ravel(), np.repeat(self.tri_area / 3.0, 3))
            layout.add_mass("scalar", self.xi,
                            self.density * self.thickness * strip * self.edge_length ** 2 / 12)

    def node_areas(self):
        """A third of the rest areas of each node's triangles, (n_nodes,) [m^2]."""
        out = np.zeros(len(self.vertices))
        np.add.at(out, self.triangles.ravel(), np.repeat(self.tri_area / 3.0, 3))
        return out

    def node_dofs(self, layout):
        """DOF indices (n_nodes, 3) of this shell's nodes."""
        return layout.node_dof(self.nodes)

    def bind_implicit(self, ctx):
        nd = self.node_dofs(ctx.layout)
        out = [_StretchBinding(self.name, nd[self.edges].reshape(-1, 6), self.edge_length,
                               self.stretch_stiffness)]
        if self.bending == "hinge":
            rest = ctx.params[f"{self.name}.rest_angle"]
            out.append(_HingeBinding(self.name, nd[self.hinges].reshape(len(self.hinges), 12),
                                     self.hinge_stiffness, rest))
        else:
            rest = ctx.params[f"{self.name}.rest_curvature"]
            xi = ctx.layout.scalar_dof(self.xi)
            dofs = np.concatenate([nd[self.triangles].reshape(-1, 9), xi[self.tri_edges]], axis=1)
            # edges whose xi a boundary condition holds (FixNodes(..., angles=...)) keep their
            # initial frame: xi = const then holds the mid-edge normal itself (a clamp), not its
            # tilt from the faces' mean normal, which follows the free face once the frames are
            # set from the deformed shape
            held = np.zeros(len(self.edges), dtype=bool)
            for term in getattr(ctx, "terms", ()):
                if getattr(term, "implicit_body", None) == self.name and hasattr(term, "angles"):
                    angles = np.asarray(term.angles, dtype=np.int64)
                    if angles.size and angles.max() >= len(held):
                        raise ValueError(f"{term.name}.angles = {angles.tolist()} is not allowed: "
                                         f"shell {self.name!r} has {len(held)} angles (indices "
                                         f"0..{len(held) - 1})")
                    held[angles] = True
            out.append(_MidedgeBinding(self, dofs, nd, rest, ctx.worlds, held))
        return out


def _node_dofs(stencils):
    """DOFs (n, 3 k) of stencils of k nodes when node i's DOFs are 3 i .. 3 i + 2."""
    s = np.asarray(stencils, dtype=np.int64)
    return (3 * s[:, :, None] + np.arange(3)).reshape(len(s), 3 * s.shape[1])


def _block_rows_cols(dofs):
    """Jacobian (rows, cols) of per-element dense blocks, row-major, for dofs (n, d)."""
    d = dofs.shape[1]
    return np.repeat(dofs, d, axis=1).ravel(), np.tile(dofs, (1, d)).ravel()


def edge_frames(x, triangles, edges, edge_tris):
    """Mid-edge frames at node positions x (n, 3): n0_e the unit sum of the edge's face normals and
    tau_e = e_hat x n0_e (in the surface, perpendicular to the edge), (n_edges, 3) each."""
    p = x[triangles]
    fn = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    fn /= np.linalg.norm(fn, axis=1)[:, None]
    n0 = fn[edge_tris[:, 0]] + np.where(edge_tris[:, 1:] >= 0, fn[edge_tris[:, 1]], 0.0)
    n0 /= np.linalg.norm(n0, axis=1)[:, None]
    e = x[edges[:, 1]] - x[edges[:, 0]]
    tau = np.cross(e / np.linalg.norm(e, axis=1)[:, None], n0)
    return tau / np.linalg.norm(tau, axis=1)[:, None], n0


def midedge_shape(x, triangles, tri_edges, sign, tau, nrm0, length_over_area, xi=None):
    """a_i (n_tris, 3) [1/m] of softmech.kernels.shell_midedge at positions x (n, 3) and edge DOFs
    xi (n_edges,) (default 0)."""
    xi = np.zeros(len(tau)) if xi is None else xi
    p = x[triangles]
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    n /= np.linalg.norm(n, axis=1)[:, None]
    c = sign[:, :, None] * tau[tri_edges]
    r = sign * xi[tri_edges] - np.einsum("tk,tik->ti", n, c)
    return length_over_area * r / np.einsum("tk,tik->ti", n, nrm0[tri_edges])


class _ShellElasticity(Binding):
    """A shell's elastic binding: its energy [J] is the shell's `energy_kind` (what
    softmech.diagnostics records for the body: stretching, or bending for both bending
    models)."""

    energy_kind = "bending_energy"
    pure = True         # its kernels write only F and J

    def energy_parts(self, b, q):
        return {self.energy_kind: float(self.energy(b, q))}


class _StretchBinding(_ShellElasticity):
    energy_kind = "stretch_energy"

    def __init__(self, name, dofs, rest_length, stiffness):
        self.name, self.body = f"{name}.stretching", name
        self.dofs, self.rest_length, self.stiffness = dofs, rest_length, stiffness
        self.rows, self.cols = _block_rows_cols(dofs)

    def forces(self, b, q, v, t, h, F, J):
        shell_stretch.stretch_forces(q, self.dofs, self.rest_length, self.stiffness, True, F, J)

    def energy(self, b, q):
        return shell_stretch.stretch_energy(q, self.dofs, self.rest_length, self.stiffness)


class _HingeBinding(_ShellElasticity):
    def __init__(self, name, dofs, stiffness, rest):
        self.name, self.body = f"{name}.hinge_bending", name
        self.dofs, self.stiffness, self.rest = dofs, stiffness, rest   # rest (B or 1, n_hinges)
        self.rows, self.cols = _block_rows_cols(dofs)

    def forces(self, b, q, v, t, h, F, J):
        rest = self.rest[b % self.rest.shape[0]]
        shell_hinge.hinge_forces(q, self.dofs, rest, self.stiffness, True, F, J)

    def energy(self, b, q):
        return shell_hinge.hinge_energy(q, self.dofs, self.rest[b % self.rest.shape[0]],
                                        self.stiffness)


class _MidedgeBinding(_ShellElasticity):
    """Mid-edge bending; keeps the edge frames (tau, n0) per world, set from the positions at the
    start of each step (ref. 004 section 3.3.2; except the edges whose xi is held by a boundary
    condition) and saved with the state for restarts."""

    pure = False        # `work` is its kernel's scratch (for_thread copies it)

    def __init__(self, shell, dofs, node_dofs, rest, worlds, held):
        self.name, self.body = f"{shell.name}.midedge_bending", shell.name
        self.free_frames = ~held
        self.shell, self.dofs, self.node_dofs, self.rest = shell, dofs, node_dofs, rest
        self.rows, self.cols = _block_rows_cols(dofs)
        tau, n0 = edge_frames(shell.vertices, shell.triangles, shell.edges, shell.edge_tris)
        self.tau = np.repeat(tau[None], worlds, axis=0)
        self.nrm0 = np.repeat(n0[None], worlds, axis=0)
        self.work = np.zeros(160)
        self.sign = shell.tri_edge_sign.astype(float)

    def _args(self, b):
        s = self.shell
        return (self.dofs, s.tri_edges, self.sign, self.tau[b], self.nrm0[b],
                s.length_over_area, s.midedge_stiffness, self.rest[b % self.rest.shape[0]])

    def begin_step(self, b, q, t):
        s = self.shell
        tau, n0 = edge_frames(q[self.node_dofs], s.triangles, s.edges, s.edge_tris)
        self.tau[b, self.free_frames] = tau[self.free_frames]
        self.nrm0[b, self.free_frames] = n0[self.free_frames]

    def forces(self, b, q, v, t, h, F, J):
        shell_midedge.midedge_forces(q, *self._args(b), self.work, True, F, J)

    def for_thread(self, worlds):
        # forces' `work` is scratch; begin_step writes world b's frames only
        twin = copy.copy(self)
        twin.work = np.zeros_like(self.work)
        return twin

    def energy(self, b, q):
        return shell_midedge.midedge_energy(q, *self._args(b))

    def state(self):
        return {"tau": self.tau, "nrm0": self.nrm0}
