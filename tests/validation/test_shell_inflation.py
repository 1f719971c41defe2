"""A closed spherical shell under uniform internal pressure, built twice -- as softmech's
axisymmetric Cosserat shell (a meridian rod + AxisymmetricShell, Renda et al. 2018) and as a 3D
discrete shell on an icosphere (DisMech's model, ref. 004: edge springs + hinge or mid-edge
bending, ShellPressure, static solve) -- against thin-shell theory and against each other
(issue 15's validation: "axisymmetric and 3D discrete shell agree on the static inflation
within 5 %").

Thin-shell (membrane) theory of a sphere of radius R, thickness h under internal pressure p:
the membrane stress is p R / (2 h) in every direction, so the radial expansion is
    w = p R^2 (1 - nu) / (2 E h)
(Timoshenko & Woinowsky-Krieger, Theory of Plates and Shells, 2nd ed., sec. 105 (membrane
theory, spherical shell under uniform pressure); Roark's Formulas for Stress and Strain, table
13.1 case 1a / thin-walled sphere). Bending adds a relative D / (C R^2) = h^2 / (12 R^2) ~ 3e-5.

Like with like: the discrete shell's edge springs (k_s = sqrt(3)/2 E h l^2, ref. 004 eq. 10)
have the in-plane Poisson ratio nu = 1/3 of the equilateral spring lattice whatever the
shell's poisson_ratio (which sets its bending only; docs/shells.md), so both models and the
theory use nu = 1/3 here. With the axisymmetric shell at nu = 0.3 instead the theory alone would
differ by (1 - 0.3) / (1 - 1/3) - 1 = +5 %, the whole tolerance.

Measured values (docs/underwater.md): axisymmetric shell, 80 elements: +0.06 % (equivalent
radius), +0.01 % (equator), poles +3.4 % (the pole's discretization error, +13 % at 40
elements, +1.4 % at 160); discrete shell on the level-3 icosphere (1,280 triangles): +1.8 %
(hinge), +1.9 % (mid-edge); its refinement gives +2.5 % (level 4), +2.7 % (level 5), both
models.
"""
import functools

import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from softmech.bodies.axisym_shell import cavity_volume, meridian_rod
from softmech.implicit.newton import NewtonOptions
from softmech.terms.axisym_shell import shell_outputs

R, H, E, P, NU = 0.05, 1e-3, 1e6, 20.0, 1.0 / 3.0
W_THEORY = P * R ** 2 * (1 - NU) / (2 * E * H)        # 3.3e-4 R: linear (strain ~ 3e-4)


def equivalent_radius_change(volume, volume0):
    """The radius change [m] of the sphere whose volume grows as the shell's, R ((V/V0)^(1/3) -
    1): by the principle of virtual work the pressure's work p dV weighs every node's expansion
    by its share of the area, so this is the robust mean of a discrete shell's expansion."""
    return R * ((volume / volume0) ** (1.0 / 3.0) - 1.0)


def _closed_volume(x, triangles):
    """Volume [m^3] enclosed by a closed triangle mesh with outward normals (divergence theorem)."""
    p = x[triangles]
    return np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0


@functools.lru_cache(maxsize=None)
def axisymmetric_sphere(n_elems=80):
    """(equivalent-radius change, equator radius change, pole displacement) [m] of the
    axisymmetric sphere: the meridian from pole (r = 0, z = R) to pole, nodes evenly spaced in
    polar angle, static state reached through a linear damper (~0.2 of critical for the
    breathing mode, 0.15 s of ~40 periods of the slowest axisymmetric mode)."""
    phi = np.linspace(0.0, np.pi, n_elems + 1)
    r, z = R * np.sin(phi), R * np.cos(phi)
    r[[0, -1]] = 0.0                                   # the poles on the axis
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(**meridian_rod("sphere", r, z, thickness=H, density=1000.0,
                                                youngs_modulus=E, poisson_ratio=NU))
    scene.add(sm.AxisymmetricShell(rod, thickness=H, youngs_modulus=E, poisson_ratio=NU,
                                   pressure=P))
    scene.add(sm.LinearDamping(rod, 100.0))
    sim = scene.compile(dt=5e-6)
    U0 = cavity_volume(rod.positions, (0, 0, 0), (0, 0, 1))
    sim.run(0.15)
    U, U_dot, _, _ = shell_outputs(sim)
    assert abs(U_dot[0]) < 1e-5 * U[0]                 # static: U changes by < 1e-5 per second
    x = sim.get_state("sphere")["positions"][0]
    equator = np.hypot(x[n_elems // 2, 0], x[n_elems // 2, 1]) - R
    return (equivalent_radius_change(U[0], U0), equator, 0.5 * (x[0, 2] - x[-1, 2]) - R)


@functools.lru_cache(maxsize=None)
def discrete_sphere(bending, subdivisions=3):
    """(equivalent-radius change [m], node radius changes (n_nodes,) [m], the restrained
    nodes' final positions) of the icosphere shell. Rigid motions are removed by six fixed
    coordinates that a uniform inflation leaves unchanged: x and y of both poles (they slide
    along z), y and z of the equator node on +x (it slides along x)."""
    mesh = meshes.icosphere(R, subdivisions)
    v = mesh.vertices
    poles = [int(np.argmax(v[:, 2])), int(np.argmin(v[:, 2]))]
    equator = int(np.argmax(np.where(np.abs(v[:, 2]) < 1e-12 * R, v[:, 0], -np.inf)))
    assert np.allclose(v[poles, :2], 0.0, atol=1e-15) and abs(v[equator, 2]) < 1e-15
    scene = sm.Scene()
    scene.add_shell(name="sphere", mesh=mesh, thickness=H, youngs_modulus=E, poisson_ratio=NU,
                    density=1000.0, bending=bending)
    scene.add(sm.FixNodes("sphere", poles, axes="xy", name="poles"))
    scene.add(sm.FixNodes("sphere", [equator], axes="yz", name="equator"))
    scene.add(sm.ShellPressure("sphere", P))
    # residual target 1e-9 of the pressure on R^2 (docs/shells.md: the stiff membrane's round-off)
    sim = scene.compile(dt=1e-3, newton=NewtonOptions(atol=1e-9 * P * R * R))
    sim.solve_static()
    x = sim.get_state("sphere")["positions"][0]
    dR = equivalent_radius_change(_closed_volume(x, mesh.triangles),
                                  _closed_volume(v, mesh.triangles))
    return dR, np.linalg.norm(x, axis=1) - R, x[poles + [equator]]


def test_axisymmetric_sphere_inflates_as_membrane_theory():
    """Equivalent radius and equator within 1 % of w (measured +0.06 %, +0.01 % at 80
    elements: the linear theory's own error is of the order of the strain, 3e-4); the poles,
    where the meridian meets the axis, within 5 % (measured +3.4 %; it converges, +13 % / +1.4 %
    at 40 / 160 elements). Without the hoop part of the law the sphere would not hold the
    pressure at all."""
    dR, equator, pole = axisymmetric_sphere()
    assert dR == pytest.approx(W_THEORY, rel=0.01)
    assert equator == pytest.approx(W_THEORY, rel=0.01)
    assert pole == pytest.approx(W_THEORY, rel=0.05)


@pytest.mark.parametrize("bending", ["hinge", "midedge"])
def test_discrete_sphere_agrees_with_the_axisymmetric_shell(bending):
    """Issue 15: the 3D discrete shell's inflation within 5 % of the axisymmetric shell's
    (measured +1.8 % hinge, +1.9 % mid-edge on the level-3 icosphere) and of the theory
    (the same numbers: the axisymmetric shell is within 0.1 % of it).

    The discrete shell is softer on average than the continuum because its spring lattice
    is not uniform on the icosphere (edge lengths vary by up to 1.19x): the inflation is
    not affine, the nodes of the 12 five-valent vertices bulge to ~1.75 w, those around them
    lag to ~0.8 w (per-node range checked below, so that a change in the mesh or the membrane
    shows). The affine expansion alone (the Rayleigh-Ritz bound of the lattice, 2 sqrt(3) p V0
    R / (E h sum l^2)) is 1.5 % stiffer than theory, by the triangles' departure from
    equilateral (Weitzenboeck's a^2 + b^2 + c^2 >= 4 sqrt(3) A) and the flat triangles' smaller
    volume; the true response is softer than any such bound (minimum of the potential energy),
    and converges under refinement to +2.7 % (level 5), docs/underwater.md."""
    dR, w, held = discrete_sphere(bending)
    dR_axi = axisymmetric_sphere()[0]
    assert dR == pytest.approx(dR_axi, rel=0.05)
    assert dR == pytest.approx(W_THEORY, rel=0.05)
    assert 0.7 < w.min() / W_THEORY < 0.9 and 1.5 < w.max() / W_THEORY < 2.0
    # the restraints do not hold the inflation back: the poles moved along z by ~w, the
    # equator node along x, the held coordinates stayed zero
    np.testing.assert_allclose(held[:2, :2], 0.0, atol=1e-15)
    np.testing.assert_allclose(held[2, 1:], 0.0, atol=1e-15)
    assert np.abs(held[:2, 2]).min() - R > 0.5 * W_THEORY and held[2, 0] - R > 0.5 * W_THEORY


def test_affine_bound_of_the_spring_lattice():
    """The virtual-work statement behind the mean: for this linear problem p dV = f . u is at
    least the value of the best affine (uniform-scaling) trial field, dV_affine = 3 V0 dR_a / R
    with dR_a = 2 sqrt(3) p V0 R / (E h sum l_e^2) (edge strain dR_a / R on every spring, k_s =
    sqrt(3)/2 E h l^2, against the work p 3 V0 / R). Checked for the hinge shell: measured
    dR_a = 0.985 w, the shell 1.018 w. With k_s off by a factor (or the pressure applied to a
    wrong area) the shell would fall below its own bound or far above it."""
    mesh = meshes.icosphere(R, 3)
    e = meshes.edge_list(mesh.triangles)
    sum_l2 = (np.linalg.norm(mesh.vertices[e[:, 1]] - mesh.vertices[e[:, 0]], axis=1) ** 2).sum()
    V0 = _closed_volume(mesh.vertices, mesh.triangles)
    dR_affine = 2 * np.sqrt(3) * P * V0 * R / (E * H * sum_l2)
    dR = discrete_sphere("hinge")[0]
    assert dR_affine < dR < 1.05 * dR_affine
    assert dR_affine == pytest.approx(W_THEORY, rel=0.02)
