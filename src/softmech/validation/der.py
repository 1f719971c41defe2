"""Discrete elastic rod reference problems shared by tests/validation/test_der_rod.py and
benchmarks/der_vs_cosserat.py: the self-weight cantilever of MAT-DiSMech's validation (ref. 004
sec. 7.2, Fig. 8) and its exact references.

The cantilever: L = 1 m, r = 10 mm, rho = 1000 kg/m^3, nu = 0.5, n = 50 free edges, clamped by
fixing nodes 0, 1 and the twist of edge 0 with the clamped section at the middle of edge 0
(x = 0): the bending spring at node 1 spans the Voronoi cell from mid-edge 0, so that is where
the rod's slope is held. (Fixing the first two nodes of a rod that starts at x = 0 instead
clamps at x = l/2 and gives the first-order excess ~ +2/n in tip deflection: +4.0 % at n = 50,
+2.0 % at n = 100, measured.)
"""
import math

import numpy as np
from scipy.integrate import solve_bvp

import softmech as sm
from softmech.implicit.newton import NewtonOptions

L, R, RHO, N = 1.0, 0.01, 1000.0, 50
A, I = math.pi * R**2, math.pi * R**4 / 4
Q = RHO * A * 9.81                               # weight per length [N/m]
FULL_STEPS = NewtonOptions(line_search=False)    # DisMech's default for rods (see newton.py)


def cantilever(E, *, n=N, gravity=(0.0, 0.0, -9.81), edges=None, **rod):
    """Scene and rod of the clamped DER cantilever along +x (clamp at x = 0, tip at x = L);
    edges: the network form of the same polyline (edge (0, 1) is clamped wherever it is)."""
    l = L / (n + 0.5)
    x = np.zeros((n + 2, 3))
    x[:, 0] = (np.arange(n + 2) - 0.5) * l
    scene = sm.Scene()
    if edges is not None:
        rod["edges"] = edges
    body = scene.add_der_rod(name="rod", centerline=x, radius=R, density=RHO,
                             youngs_modulus=E, normal=(0.0, 1.0, 0.0), **rod)
    first = 0 if edges is None else int(np.flatnonzero(np.sort(edges, axis=1)[:, 1] == 1)[0])
    scene.add(sm.FixNodes(body, [0, 1], angles=[first]))
    scene.add(sm.Gravity(gravity))
    return scene, body


def static_tip(E, **kw):
    scene, _ = cantilever(E, **kw)
    sim = scene.compile(dt=1e-3, newton=FULL_STEPS)
    sim.solve_static()
    return sim.get_state("rod")["positions"][0, -1], sim


def elastica_tip(E, q=Q, length=L):
    """Tip (x, z) [m] of the exact planar cantilever under its own weight q [N/m], extensible:
    with theta(s) the slope and s the rest arc length (Antman, Nonlinear Problems of
    Elasticity, ch. 4; statics of a Kirchhoff rod with n = (0, -q (L - s))):
        EI theta'' = q (L - s) (1 + eps) cos(theta),  eps = -q (L - s) sin(theta) / (E A),
        x' = (1 + eps) cos(theta),  z' = (1 + eps) sin(theta),
        theta(0) = x(0) = z(0) = 0,  theta'(L) = 0.
    Solved with scipy's solve_bvp by continuation in the load."""
    EI, EA = E * I, E * A
    s = np.linspace(0.0, length, 201)
    y = np.zeros((4, s.size))
    y[2] = s

    def bc(ya, yb):
        return np.array([ya[0], ya[2], ya[3], yb[1]])

    for lam in np.linspace(0.0, 1.0, 11)[1:]:
        def fun(s, y, lam=lam):
            theta = y[0]
            eps = -lam * q * (length - s) * np.sin(theta) / EA
            return np.vstack([y[1], lam * q * (length - s) * (1 + eps) * np.cos(theta) / EI,
                              (1 + eps) * np.cos(theta), (1 + eps) * np.sin(theta)])
        sol = solve_bvp(fun, bc, s, y, tol=1e-10, max_nodes=100000)
        if not sol.success:
            raise RuntimeError(f"elastica: solve_bvp failed: {sol.message}")
        s, y = sol.x, sol.y
    return y[2, -1], y[3, -1]


def stability_limit(sim):
    """Largest stable step [s] of an explicit (central difference / symplectic Euler) scheme
    for the rod linearized at its current state: h = 2 / omega_max, omega_max^2 the largest
    eigenvalue of K v = omega^2 M v over the free DOFs (e.g. Hughes, The Finite Element
    Method, sec. 9.3)."""
    st = sim.stepper
    q = sim.q[0]
    _, J = st.forces(0, q, np.zeros_like(q), 0.0, np.inf)
    rows = np.concatenate([bd.rows for bd in st.bindings])
    cols = np.concatenate([bd.cols for bd in st.bindings])
    K = np.zeros((st.n_dof, st.n_dof))
    np.add.at(K, (rows, cols), -J)
    f = st.free
    m = np.sqrt(st.mass[f])
    w2 = np.linalg.eigvalsh(K[np.ix_(f, f)] / np.outer(m, m))
    return 2.0 / math.sqrt(w2.max())


def polygon_tip(kappa, n=N):
    """Tip (x, z) of the clamped polyline whose every spring has the discrete curvature
    2 tan(phi / 2) = kappa l (Bergou 2008 eq. 1 with DisMech's kappa l): edge j turns by j phi
    (the rest shape of a uniform natural curvature: zero force, the exact equilibrium)."""
    l = L / (n + 0.5)
    phi = 2 * math.atan(0.5 * kappa * l)
    j = np.arange(n + 1)
    return -0.5 * l + l * np.cos(j * phi).sum(), l * np.sin(j * phi).sum()
