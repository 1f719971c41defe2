"""Validation cases of the discrete shells (group `shells` of `softmech validate`;
softmech.bodies.shell, ref. 004): a cantilever plate under its own weight against
Euler-Bernoulli and the exact heavy elastica (as ref. 004 Fig. 8), and a clamped square plate
under pressure against Kirchhoff plate theory, with the mid-edge bending model (the hinge
model's mesh dependence is in tests/validation/test_shells.py and docs/shells.md).
tests/validation/test_shells.py calls the same functions.
"""
import functools

import numpy as np
from scipy.integrate import solve_bvp

import softmech as sm
from softmech.bodies import meshes
from softmech.implicit.newton import NewtonOptions
from softmech.validation.common import rel_error, result, validation_case

RHO, G, H = 1200.0, 9.81, 1e-3
L, W = 0.1, 0.02
"""The strip: density [kg/m^3], gravity [m/s^2], thickness, free length and width [m]."""


def clamp(shell, fixed):
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
    scene.add(clamp(shell, np.flatnonzero(y <= dy * 1.0001)))
    scene.add(sm.Gravity((0, 0, -G)))
    # residual target 1e-6 of the weight: Newton's default relative target (1e-9 of the
    # initial residual) is below the round-off of the stiff membrane forces at E >= 1e9 Pa
    if newton == "atol":
        newton = NewtonOptions(atol=1e-6 * RHO * G * H * W * L)
    # (the discrete engine's Newton, whose options these are; the unified engine's static
    # solve of the same strip: tests/validation/test_static_solve_unified.py)
    sim = scene.compile(dt=1e-3, newton=newton, engine="discrete")
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
    if not sol.success:
        raise RuntimeError(f"heavy elastica: solve_bvp failed: {sol.message}")
    return float(sol.sol(L)[2])


TOLERANCE = {"midedge": 0.01, "hinge": 0.16}
"""Relative tolerance of the cantilever against beam theory per bending model. Measured with
n_w = 6 (about 35 rows along the length): mid-edge +0.09 % at E >= 1e9 Pa (converging: +0.21 /
+0.09 / +0.03 % for n_w = 4 / 6 / 10), hinge +13.7 % (the hinge model is mesh-dependent, ref.
004 section 3.3: bending across the rows of an equilateral mesh is softer; +10.9 % at n_w = 12,
docs/shells.md)."""


@validation_case("tip deflection δ [m]", "Euler–Bernoulli δ = q L⁴ / (8 E I); MAT-DiSMech "
                 "§7.2, Fig. 8", fast=True)
def shell_cantilever_euler_bernoulli(bending="midedge", E=1e10):
    """A strip 0.1 x 0.02 x 0.001 m (nu = 0, rho = 1200 kg/m^3), clamped along one short edge,
    sags under its own weight (static solve; cantilever_tip) at E = 1e10 Pa (delta / L = 8e-4)
    against Euler-Bernoulli delta = q L^4 / (8 E I) (Gere & Timoshenko, Mechanics of Materials;
    the test of ref. 004 Fig. 8). Mid-edge bending. Error relative; tolerance 1 % (measured
    +0.09 %, converging with the mesh; TOLERANCE). Also required: the mesh is too soft, not
    too stiff (delta > Euler-Bernoulli: a discretization of a stiff plate)."""
    delta, expected = cantilever_tip(bending, E), euler_bernoulli(E)
    error = rel_error(delta, expected)
    return result("shell_cantilever_euler_bernoulli", delta, expected, error, TOLERANCE[bending],
                  f"{bending}, E = {E:g} Pa: sag {delta:.6e} m vs q L^4/(8 E I) = "
                  f"{expected:.6e} m ({delta / expected - 1:+.3%})",
                  passed=error <= TOLERANCE[bending] and delta > expected)


@validation_case("tip deflection δ [m]", "heavy elastica (exact, scipy `solve_bvp`); ref. 004 "
                 "Fig. 8", fast=True)
def shell_cantilever_elastica(bending="midedge", E=1e7):
    """The same strip at E = 1e7 Pa, where q L^4 / (8 E I) is 1.8 L and the strip hangs far
    from the linear theory (-56 %), against the exact heavy elastica E I theta'' = -q (L - s)
    cos(theta) (heavy_elastica). Mid-edge bending. Error relative; tolerance 1 % (measured
    -0.00 %; TOLERANCE). Also required: below half of Euler-Bernoulli's (the large deflection
    is real)."""
    delta, expected = cantilever_tip(bending, E), heavy_elastica(E)
    error = rel_error(delta, expected)
    return result("shell_cantilever_elastica", delta, expected, error, TOLERANCE[bending],
                  f"{bending}, E = {E:g} Pa: sag {delta:.6e} m vs elastica {expected:.6e} m; "
                  f"Euler-Bernoulli {euler_bernoulli(E):.3e} m",
                  passed=error <= TOLERANCE[bending] and delta < 0.5 * euler_bernoulli(E))


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
    scene.add(clamp(shell, fixed))
    scene.add(sm.ShellPressure("plate", p))
    sim = scene.compile(dt=1e-3, newton=NewtonOptions(atol=1e-8 * p * a * a))
    sim.solve_static()
    w = sim.get_state("plate")["positions"][0, :, 2].max()
    D = E * H ** 3 / (12 * (1 - nu ** 2))
    return w / (0.00126 * p * a ** 4 / D)


@validation_case("w_max / Kirchhoff's [-]", "Timoshenko & Woinowsky-Krieger §44, table 35: "
                 "w = 0.00126 p a⁴ / D")
def shell_clamped_plate_kirchhoff(n=32):
    """A clamped square plate (a = 0.1 m, h = 1 mm, E = 1 GPa, nu = 0.3) under a uniform
    pressure of 10 Pa, mid-edge bending, 32 triangles across (2,405 triangles), static solve:
    the largest deflection over Kirchhoff's w_max = 0.00126 p a^4 / D (Timoshenko &
    Woinowsky-Krieger, Theory of Plates and Shells, 2nd ed., sec. 44, table 35);
    clamped_plate_ratio. Reference 1; error absolute [-] (a ratio); tolerance 3 %: measured
    +1.7 %, converging with the mesh (+5.4 % at 16 across, +1.0 % at 48)."""
    ratio = clamped_plate_ratio("midedge", n)
    return result("shell_clamped_plate_kirchhoff", ratio, 1.0, abs(ratio - 1.0), 0.03,
                  f"{n} triangles across: w_max {ratio - 1:+.2%} from Kirchhoff")


CASES = {f.__name__: f for f in (shell_cantilever_euler_bernoulli, shell_cantilever_elastica,
                                 shell_clamped_plate_kirchhoff)}
"""Case name -> function returning its record."""
