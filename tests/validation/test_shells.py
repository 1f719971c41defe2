"""Validation of the discrete shells (softmech.bodies.shell, ref. 004) against plate and beam
theory, for both bending models:

* cantilever plate under its own weight vs Euler-Bernoulli delta = q L^4 / (8 E I) (small
  deflection, E = 1e9..1e11 Pa) and the exact heavy elastica (E = 1e7, 1e8 Pa), as ref. 004
  Fig. 8;
* clamped square plate under uniform pressure vs Kirchhoff plate theory;
* a flat strip with a natural curvature rolls into a cylinder of the natural radius.

Measured errors are in docs/shells.md; tolerances are stated with each test.
"""
import functools

import numpy as np
import pytest
from scipy.integrate import solve_bvp

import softmech as sm
from softmech.bodies import meshes
from softmech.implicit.newton import NewtonOptions

RHO, G, H = 1200.0, 9.81, 1e-3
L, W = 0.1, 0.02


def _clamp(shell, fixed):
    """FixNodes holding `fixed` nodes and, for the mid-edge model, the normals of the edges
    between them (DisMech's clamp: nodes and edge DOFs of the clamped region)."""
    angles = ()
    if shell.bending == "midedge":
        angles = np.flatnonzero(np.all(np.isin(shell.edges, fixed), axis=1))
    return sm.FixNodes(shell.name, fixed, angles=angles)


@functools.lru_cache(maxsize=None)
def cantilever_tip(bending, E, n_w=6, newton="atol"):
    """Tip deflection [m] of a clamped strip L x W x H (nu = 0) under gravity, static solve.

    Equilateral mesh with its rows across the strip (n_w triangles across), so the clamp is a
    straight row of nodes: rows 0 and 1 (y <= dy) are fixed and the free length is L."""
    dy = W / n_w * np.sqrt(3) / 2
    n_rows = int(round(L / dy))
    dy = L / n_rows
    mesh = meshes.rectangle(W, L + dy, n_w, n_y=n_rows + 1)
    scene = sm.Scene()
    shell = scene.add_shell(name="plate", mesh=mesh, thickness=H, youngs_modulus=E,
                            poisson_ratio=0.0, density=RHO, bending=bending)
    y = mesh.vertices[:, 1]
    scene.add(_clamp(shell, np.flatnonzero(y <= dy * 1.0001)))
    scene.add(sm.Gravity((0, 0, -G)))
    # residual target 1e-6 of the weight: Newton's default relative target (1e-9 of the
    # initial residual) is below the round-off of the stiff membrane forces at E >= 1e9 Pa
    if newton == "atol":
        newton = NewtonOptions(atol=1e-6 * RHO * G * H * W * L)
    sim = scene.compile(dt=1e-3, newton=newton)
    sim.solve_static()
    tip = np.isclose(y, L + dy)
    return -float(sim.get_state("plate")["positions"][0, tip, 2].mean())


def euler_bernoulli(E):
    """delta = q L^4 / (8 E I), q = rho g h W, I = W h^3 / 12 (Gere & Timoshenko, Mechanics of
    materials, cantilever under a uniform load); with nu = 0 the plate's D W = E I."""
    return RHO * G * H * W * L ** 4 / (8 * E * W * H ** 3 / 12)


def heavy_elastica(E):
    """Exact tip deflection of a cantilever under its own weight q per length: E I theta'' =
    -q (L - s) cos(theta), theta(0) = 0, theta'(L) = 0, delta = int sin(theta) ds (the
    moment of the load beyond s; the small-slope limit is q L^4 / (8 E I))."""
    k = RHO * G * H * W / (E * W * H ** 3 / 12)
    s = np.linspace(0, L, 200)

    def f(s, y):
        return np.vstack([y[1], -k * (L - s) * np.cos(y[0]), np.sin(y[0])])

    guess = np.vstack([np.minimum(k * (L ** 3 - (L - s) ** 3) / 6, 1.5), k * (L - s) ** 2 / 2, 0 * s])
    sol = solve_bvp(f, lambda a, b: np.array([a[0], b[1], a[2]]), s, guess, tol=1e-10,
                    max_nodes=100000)
    assert sol.success, sol.message
    return float(sol.sol(L)[2])


# Measured with n_w = 6 (about 35 rows along the length): mid-edge +0.09 % at E >= 1e9 Pa
# (converging: +0.21 / +0.09 / +0.03 % for n_w = 4 / 6 / 10, see the convergence test), hinge
# +13.7 % (the hinge model is mesh-dependent, ref. 004 section 3.3: bending across the rows of
# an equilateral mesh is softer, tests/properties' cylindrical-bending energy -4.9 %; the error
# shrinks slowly with refinement, +10.9 % at n_w = 12, docs/shells.md).
TOLERANCE = {"midedge": 0.01, "hinge": 0.16}


@pytest.mark.parametrize("bending", ["midedge", "hinge"])
@pytest.mark.parametrize("E", [1e9, 1e10, 1e11])
def test_cantilever_small_deflection_matches_euler_bernoulli(bending, E):
    delta = cantilever_tip(bending, E)
    assert euler_bernoulli(E) / L < 0.02                       # small deflection
    assert abs(delta / euler_bernoulli(E) - 1) < TOLERANCE[bending]
    assert delta > euler_bernoulli(E)                          # discretization: too soft


@pytest.mark.parametrize("bending", ["midedge", "hinge"])
@pytest.mark.parametrize("E", [1e7, 1e8])
def test_cantilever_large_deflection_follows_the_elastica(bending, E):
    """At low E the deflection departs from Euler-Bernoulli (-56 % at 1e7 Pa, where q L^4/8EI
    is 1.8 L) and follows the exact elastica; measured vs the elastica: mid-edge -0.00 % (1e7),
    +0.08 % (1e8), hinge +2.9 %, +12.3 %; tolerances as the small-deflection test."""
    delta = cantilever_tip(bending, E)
    assert abs(delta / heavy_elastica(E) - 1) < TOLERANCE[bending]
    if E == 1e7:
        assert delta < 0.5 * euler_bernoulli(E)               # far from the linear theory


def test_cantilever_midedge_converges_to_euler_bernoulli():
    """Refining the mesh (n_w = 4 -> 10, rows along the length 23 -> 58) shrinks the mid-edge
    error at least twofold (measured +0.21 % -> +0.03 %)."""
    e = [cantilever_tip("midedge", 1e10, n)/euler_bernoulli(1e10) - 1 for n in (4, 10)]
    assert 0 < e[1] < e[0] / 2


@functools.lru_cache(maxsize=None)
@pytest.mark.parametrize("bending", ["midedge", "hinge"])
def test_static_solve_with_default_options_reaches_the_same_plate(bending):
    """The default NewtonOptions (no atol): the stiff membrane's residual cannot reach rtol of
    the initial one (round-off of EA l), so the static solve ends in the pseudo-transient
    continuation's exit on a static Newton update below xtol; it must reach the same shape as
    with an explicit atol (to 1e-6 of the tip deflection)."""
    E = 1e8
    assert cantilever_tip(bending, E, newton=None) == pytest.approx(cantilever_tip(bending, E),
                                                                     rel=1e-6)


def clamped_plate_ratio(bending, n, a=0.1, E=1e9, nu=0.3, p=10.0):
    """w_max of a clamped square plate (side a, thickness H) under uniform pressure p over
    Kirchhoff's w_max = 0.00126 p a^4 / D, D = E h^3 / (12 (1 - nu^2)) (Timoshenko &
    Woinowsky-Krieger, Theory of plates and shells, 2nd ed., section 44, table 35, nu = 0.3).
    w_max / h ~ 0.01: linear. Mid-edge: the a x a mesh, boundary nodes and boundary edges'
    mid-edge normals fixed. Hinge (no edge DOF): a margin of one cell around the square fixed
    (the clamp line of an equilateral mesh then zigzags by dx/2 on two sides)."""
    margin = a / n if bending == "hinge" else 0.0
    mesh = meshes.rectangle(a + 2 * margin, a + 2 * margin, n + (2 if margin else 0),
                            origin=(-margin, -margin, 0.0))
    v = mesh.vertices
    tol = 1e-9
    fixed = np.flatnonzero((v[:, 0] <= tol) | (v[:, 0] >= a - tol)
                           | (v[:, 1] <= tol) | (v[:, 1] >= a - tol))
    scene = sm.Scene()
    shell = scene.add_shell(name="plate", mesh=mesh, thickness=H, youngs_modulus=E,
                            poisson_ratio=nu, density=1000.0, bending=bending)
    scene.add(_clamp(shell, fixed))
    scene.add(sm.ShellPressure("plate", p))
    sim = scene.compile(dt=1e-3, newton=NewtonOptions(atol=1e-8 * p * a * a))
    sim.solve_static()
    w = sim.get_state("plate")["positions"][0, :, 2].max()
    D = E * H ** 3 / (12 * (1 - nu ** 2))
    return w / (0.00126 * p * a ** 4 / D)


def test_clamped_plate_midedge_matches_kirchhoff():
    """Mid-edge, 32 triangles across (2,405 triangles): measured +1.7 %, tolerance 3 %; it
    converges (+5.4 % at 16 across, +1.0 % at 48): the error falls at least 2.5-fold from 16 to
    32."""
    coarse, fine = clamped_plate_ratio("midedge", 16) - 1, clamped_plate_ratio("midedge", 32) - 1
    assert abs(fine) < 0.03
    assert abs(fine) < abs(coarse) / 2.5


def test_clamped_plate_hinge_matches_kirchhoff_within_its_mesh_dependence():
    """Hinge, 32 across: measured +13.1 % (+26.5 % at 16, +8.8 % at 48: first-order convergence
    from the zigzag clamp line), tolerance 16 %, and the error falls from 16 to 32 across."""
    coarse, fine = clamped_plate_ratio("hinge", 16) - 1, clamped_plate_ratio("hinge", 32) - 1
    assert abs(fine) < 0.16
    assert abs(fine) < abs(coarse)


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_strip_rolls_into_a_cylinder_of_the_natural_radius(bending):
    """A flat strip 0.1 x 0.02 m clamped at one end with natural curvature (1/R, 0, 0), R = 5 cm:
    it curls (30 implicit steps of 20 ms, frames updated per step, then a static solve) into a
    cylinder whose fitted radius is R within 0.5 % (measured hinge +0.08 %, mid-edge +0.07 %;
    the flat mesh's chords are shorter than the arcs by (l/R)^2/24 = 0.04 %), every node within
    0.1 % R of the fitted circle (measured hinge 0.003 %, mid-edge 0.003 %)."""
    R = 0.05
    mesh = meshes.rectangle(0.1, 0.02, 20)
    scene = sm.Scene()
    shell = scene.add_shell(name="strip", mesh=mesh, thickness=1e-3, youngs_modulus=1e7,
                            poisson_ratio=0.3, density=1000.0, bending=bending,
                            natural_curvature=(1.0 / R, 0.0, 0.0))
    scene.add(_clamp(shell, np.flatnonzero(mesh.vertices[:, 0] <= 0.1 / 20 * 0.51)))
    sim = scene.compile(dt=0.02, newton=NewtonOptions(atol=1e-9))
    sim.step(30)
    sim.solve_static()
    x = sim.get_state("strip")["positions"][0]
    A = np.column_stack([x[:, 0], x[:, 2], np.ones(len(x))])     # circle fit in the x-z plane
    c = np.linalg.lstsq(A, x[:, 0] ** 2 + x[:, 2] ** 2, rcond=None)[0]
    centre = c[:2] / 2
    radius = np.sqrt(c[2] + centre @ centre)
    assert abs(radius / R - 1) < 0.005
    assert np.abs(np.hypot(x[:, 0] - centre[0], x[:, 2] - centre[1]) - radius).max() < 1e-3 * R
    angle = np.ptp(np.arctan2(x[:, 0] - centre[0], centre[1] - x[:, 2]))
    assert angle == pytest.approx(0.1 / R, rel=0.01)            # it rolled through L/R = 115 deg


def test_falling_sheet_reaches_the_drag_terminal_speed():
    """A flat hexagonal sheet falling face-first under gravity with DisMech's aerodynamic drag
    (ref. 004 section 5.4) reaches the terminal speed where its weight equals the drag,
    rho_s h A g = 1/2 rho C_d A v^2, v_t = sqrt(2 rho_s h g / (rho C_d)) = 2.61 m/s here; implicit
    Euler's steady state solves exactly that balance, so within 0.1 % after 3 s (20 time
    constants v_t/g), and the sheet stays flat (uniform load)."""
    rho_s, h, rho, cd = 500.0, 1e-3, 1.2, 1.2
    scene = sm.Scene()
    scene.add_shell(name="sheet", mesh=meshes.hexagon(0.2, 3), thickness=h, youngs_modulus=1e8,
                    density=rho_s, bending="midedge")
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.ShellDrag("sheet", cd, rho))
    sim = scene.compile(dt=0.01)
    sim.run(3.0)
    state = sim.get_state("sheet")
    v_t = np.sqrt(2 * rho_s * h * G / (rho * cd))
    assert state["velocities"][0, :, 2].mean() == pytest.approx(-v_t, rel=1e-3)
    assert np.ptp(state["positions"][0, :, 2]) < 1e-9
