"""MAT-DiSMech's cantilever validation (ref. 004 sec. 7.2, Fig. 8) on DisMech's own setup.

A strip L0 = 0.1 m long, w = 20 mm wide and h = 1 mm thick (rho = 1200 kg/m^3, nu = 0.5) sags
under gravity (9.81 m/s^2) with every node at x <= 0.01 m fixed, so the free length is
L = 0.09 m. The figure compares the tip deflection at twelve Young's moduli with Euler-Bernoulli,
delta = q L^4 / (8 E I) = 1.5 rho g L^4 / (E h^2) (q = rho g w h, I = w h^3 / 12), for three
models on DisMech's own meshes (MAT-DiSMech's repository, experiments/rodCantilever and
experiments/shellCantilever):

* a discrete elastic rod of 51 equally spaced nodes on [0, 0.1] m (horizontal_rod_n51) with a
  w x h rectangular section (A = w h, EI = E w h^3 / 12 for the sag), planar (every twist
  fixed), nodes 0-5 and the edges between them fixed;
* hinge and mid-edge shells (h = 1 mm) on DisMech's equilateral strip meshes (`MESHES`,
  `strip_mesh`), 0.0217 m wide, nodes at x <= 0.01 m fixed and, for the mid-edge model, the
  edge normals between them; the tip is the node at (0.1, 0, 0).

`PUBLISHED` holds the tip deflections plotted in the paper's Fig. 8, as listed in the figure's
script in MAT-DiSMech's repository (experiments/rodCantilever/Figure2_final.m): numbers from
DisMech's own runs of these three models, with DisMech's static solver.
"""
import numpy as np

import softmech as sm
from softmech.implicit.newton import NewtonOptions

L0, FIXED_X, WIDTH, THICKNESS, RHO, NU, GRAVITY = 0.1, 0.01, 0.02, 1e-3, 1200.0, 0.5, 9.81
FREE_LENGTH = L0 - FIXED_X
ROD_NODES = 51
MESH_SIDE = 0.005
MESH_COLUMNS = 41

MODULI = np.array([5e10, 2e10, 1e10, 5e9, 2e9, 1e9, 5e8, 2e8, 1e8, 5e7, 2e7, 1e7])
"""Young's moduli [Pa] of the paper's Fig. 8."""

PUBLISHED = {
    "euler_bernoulli": np.array([
        -2.3168e-05, -5.7927e-05, -1.15854e-04, -2.3168e-04, -5.7927e-04, -1.15854e-03,
        -2.3168e-03, -5.7927e-03, -1.15854e-02, -2.3168e-02, -5.7927e-02, -1.15854e-01]),
    "rod": np.array([
        -2.42058367749720e-05, -6.04328744925992e-05, -0.000120289749447809,
        -0.000241338392831631, -0.000605282120736377, -0.00121043266921659,
        -0.00241991366010611, -0.00603288242166888, -0.0119409873965692,
        -0.0229619918537874, -0.0470216654246606, -0.0650566454123579]),
    "hinge": np.array([
        -2.69481298263220e-05, -6.72146641962215e-05, -0.000133342437734674,
        -0.000269598118893999, -0.000673966240792355, -0.00134775042991742,
        -0.00269364804959303, -0.00670313445175469, -0.0131944425898442,
        -0.0249180671121231, -0.0490601968314501, -0.0661457144074156]),
    "midedge": np.array([
        -2.31474158046839e-05, -5.73277207529104e-05, -0.000115433482038402,
        -0.000229692214897193, -0.000574282627507370, -0.00114870764793202,
        -0.00230575581158783, -0.00578028148162771, -0.0111705068594518,
        -0.0209680914084091, -0.0435961409251513, -0.0610367680461612]),
}
"""Tip z [m] per modulus in MODULI (DisMech's runs, Fig. 8 of ref. 004)."""


def euler_bernoulli(E):
    """delta = q L^4 / (8 E I) [m] downwards with q = rho g w h, I = w h^3 / 12, L = 0.09 m
    (Gere & Timoshenko, Mechanics of Materials, cantilever under uniform load); the width
    cancels."""
    return 1.5 * RHO * GRAVITY * FREE_LENGTH**4 / (np.asarray(E, float) * THICKNESS**2)


def rod_nodes(clamp="dismech"):
    """Nodes (51, 3) [m] and fixed node indices of the rod. clamp "dismech": DisMech's rod,
    equally spaced on [0, 0.1] m with the nodes at x <= 0.01 m (0-5) fixed, which holds the
    slope at the middle of the last fixed edge, x = 0.009 m (softmech.validation.der), so the
    rod's free length is 0.091 m; "mid_edge": the same six nodes fixed, the nodes spaced so that
    the last fixed edge's middle lies at x = 0.01 m and the tip at 0.1 m (free length 0.09 m,
    Euler-Bernoulli's)."""
    x = np.zeros((ROD_NODES, 3))
    if clamp == "dismech":
        x[:, 0] = np.linspace(0.0, L0, ROD_NODES)
        fixed = np.flatnonzero(x[:, 0] <= FIXED_X + 1e-12)
    else:
        fixed = np.arange(6)
        spacing = FREE_LENGTH / (ROD_NODES - fixed[-1] - 0.5)
        x[:, 0] = FIXED_X + (np.arange(ROD_NODES) - fixed[-1] + 0.5) * spacing
    return x, fixed


def rod_tips(moduli=MODULI, clamp="dismech"):
    """Tip z [m] of DisMech's rod cantilever for each modulus, one batched static solve (world k
    has E = moduli[k], G = E / (2 (1 + nu))); clamp as in `rod_nodes`."""
    moduli = np.asarray(moduli, dtype=float)
    x, fixed = rod_nodes(clamp)
    scene = sm.Scene()
    # the thickness along m1 = z, the sag's direction (softmech.bodies.sections)
    rod = scene.add_der_rod(name="rod", centerline=x, normal=(0.0, 0.0, 1.0),
                            section=sm.sections.rectangle(THICKNESS, WIDTH), density=RHO,
                            youngs_modulus=moduli[0], poisson_ratio=NU)
    # DisMech's planar run fixes every twist (TwoDsim); the sag does not twist the strip anyway
    scene.add(sm.FixNodes(rod, fixed, angles=np.arange(ROD_NODES - 1)))
    scene.add(sm.Gravity((0.0, 0.0, -GRAVITY)))
    sim = scene.compile(worlds=len(moduli), dt=1e-2, newton=NewtonOptions(line_search=False))
    sim.params["rod.youngs_modulus"] = moduli
    sim.params["rod.shear_modulus"] = moduli / (2.0 * (1.0 + NU))
    sim.solve_static()
    return sim.get_state("rod")["positions"][:, -1, 2]


MESHES = {"equilateral_mesh_20": (0.005, 41, 5), "figure_8": (0.0025, 82, 10)}
"""DisMech's equilateral strip meshes -> (triangle side [m], columns, levels): nodes at
x = k side / 2 (k < columns) and y = j side sqrt(3) / 2 (j <= levels, j + k even).
"equilateral_mesh_20": the mesh its shell-cantilever example reads today (5 mm triangles,
123 nodes, 199 triangles, x <= 0.1 m). "figure_8": the file equilateral_mesh_40.txt as it was
when the figure's data were committed (December 2024; replaced in February 2025), which that
example read then (mesh_dense = 5): 2.5 mm triangles, 451 nodes, 809 triangles, x <= 0.10125 m.
Both are the Delaunay triangulations of their lattices (checked against the files)."""


def strip_mesh(mesh="equilateral_mesh_20"):
    """Vertices (N, 3) [m], in the file's order (each pair of columns bottom to top), and
    triangles (T, 3), counter-clockwise seen from +z, of one of DisMech's MESHES."""
    from scipy.spatial import Delaunay
    side, columns, levels = MESHES[mesh]
    dy = side * np.sqrt(3.0) / 2.0
    points = [(k, j) for k in range(columns) for j in range(levels + 1) if (j + k) % 2 == 0]
    points.sort(key=lambda p: (p[0] // 2, p[1]))
    xy = np.array([(k * side / 2.0, j * dy) for k, j in points])
    triangles = Delaunay(xy).simplices.astype(np.int64)
    a, b, c = (xy[triangles[:, i]] for i in range(3))
    cw = (b - a)[:, 0] * (c - a)[:, 1] - (b - a)[:, 1] * (c - a)[:, 0] < 0
    triangles[cw] = triangles[cw][:, ::-1]
    return np.column_stack([xy, np.zeros(len(xy))]), triangles


def shell_tip(bending, E, mesh="equilateral_mesh_20"):
    """Tip z [m] (the node at (0.1, 0, 0)) of DisMech's shell cantilever on one of its MESHES
    (hinge with DisMech's k_b, or mid-edge), static solve with the residual target 1e-9 of
    the weight."""
    vertices, triangles = strip_mesh(mesh)
    scene = sm.Scene()
    shell = scene.add_shell(name="strip", vertices=vertices, triangles=triangles,
                            thickness=THICKNESS, youngs_modulus=E, poisson_ratio=NU,
                            density=RHO, bending=bending, hinge_convention="dismech")
    fixed = np.flatnonzero(vertices[:, 0] <= FIXED_X + 1e-12)
    angles = ()
    if bending == "midedge":
        angles = np.flatnonzero(np.all(np.isin(shell.edges, fixed), axis=1))
    scene.add(sm.FixNodes(shell, fixed, angles=angles))
    scene.add(sm.Gravity((0.0, 0.0, -GRAVITY)))
    weight = RHO * GRAVITY * THICKNESS * L0 * vertices[:, 1].max()
    sim = scene.compile(dt=1e-2, newton=NewtonOptions(atol=1e-9 * weight))
    sim.solve_static()
    tip = np.flatnonzero(np.isclose(vertices[:, 0], L0) & np.isclose(vertices[:, 1], 0.0))
    return float(sim.get_state("strip")["positions"][0, tip[0], 2])
