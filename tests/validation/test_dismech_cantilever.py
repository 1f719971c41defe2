"""MAT-DiSMech's Fig. 8 (ref. 004 sec. 7.2): the strip cantilever under its own weight against
Euler-Bernoulli, for the discrete rod and the hinge and mid-edge shells, on DisMech's own setup
and meshes (softmech.validation.dismech_cantilever), against

* the figure's published tip deflections (PUBLISHED: the numbers its script plots), and
* DisMech itself, run on the same meshes (tests/data/dismech_cantilever.json: MAT-DiSMech at
  its latest stored commit, in GNU Octave, converged tightly; how it was run is in the file).

What the comparison shows (docs/reproductions.md, docs/discrete_rods.md, docs/shells.md):
softmech's discrete rod and hinge shell are DisMech's models to round-off; the published values
carry DisMech's loose Newton stopping rule (an update below dtol dt = 0.1 mm ends a step, the
size of the stiffest cases' whole deflection); the rod's "+4.5 %" over Euler-Bernoulli is the
position of DisMech's clamp, not an error of the rod; the hinge shell's "+16 %" belongs to the
mesh the figure used (the 2.5 mm mesh of December 2024), DisMech's example mesh today gives +18 %.
"""
import json
from pathlib import Path

import numpy as np
import pytest

from softmech.validation import dismech_cantilever as d

DATA = json.loads((Path(__file__).parents[1] / "data" / "dismech_cantilever.json").read_text())
EB = d.euler_bernoulli(d.MODULI)
SETTLED = (d.MODULI >= 1e9) & (d.MODULI <= 5e9)
"""Moduli where the deflection is small and the published curves are converged: at the three
stiffest moduli all three published curves fall off their own linear trend (deflection x E
constant to 1e-5 in both codes' converged runs), because DisMech's example ends a Newton step
after an update below dtol dt = 0.1 mm, the size of those deflections."""


def peer(name):
    """DisMech's converged tip z [m] of case `name` and the moduli [Pa] it was run at."""
    case = DATA["cases"][name]
    return np.array(case["tip_z"]), np.array(case["moduli"])


def index_of(moduli):
    return np.array([int(np.flatnonzero(np.isclose(d.MODULI, E))[0]) for E in moduli])


@pytest.fixture(scope="module")
def rod_tips():
    return d.rod_tips()


def test_the_generated_meshes_are_dismechs():
    """The meshes are rebuilt here, not copied: node counts, extents and triangle counts of
    DisMech's files (equilateral_mesh_20: 123 nodes, 199 triangles, x <= 0.1 m; the figure's
    mesh: 451, 809, x <= 0.10125 m); the full comparison of every node and triangle with the
    files was done when the module was written (docs/shells.md)."""
    for mesh, (nodes, triangles, x_max) in {"equilateral_mesh_20": (123, 199, 0.1),
                                            "figure_8": (451, 809, 0.10125)}.items():
        v, t = d.strip_mesh(mesh)
        assert (len(v), len(t)) == (nodes, triangles)
        assert v[:, 0].max() == pytest.approx(x_max, abs=1e-15)
        assert v[:, 1].max() == pytest.approx(0.1 * np.sqrt(3) / 8, rel=1e-12)   # 21.65 mm
        edge = np.linalg.norm(v[t[:, 1]] - v[t[:, 0]], axis=1)
        assert edge.min() > 0 and DATA["cases"]["hinge_" + mesh]["nodes"] == nodes


def test_discrete_rod_equals_dismech_on_its_own_cantilever(rod_tips):
    """The rectangular-section discrete rod (A = w h, EI = E w h^3 / 12 for the sag, DisMech's
    Axs / Ixs1) at all twelve moduli against DisMech on the same 51 nodes: 1e-9 (measured
    1.3e-14: the same discrete model and the same equilibrium)."""
    tips, moduli = peer("rod")
    np.testing.assert_allclose(rod_tips[index_of(moduli)], tips, rtol=1e-9)


def test_discrete_rod_reproduces_the_published_figure(rod_tips):
    """Against the published values: 0.64 % at most (E = 1e10 Pa), tolerance 0.7 %. The
    difference is DisMech's stopping rule, not the model: DisMech's converged run equals
    softmech (above), and the published values at 2e10 - 5e9 Pa fall off their own linear
    trend (deflection x E constant to 1e-5 in both codes' converged runs). The paper's "+4.5 %"
    over Euler-Bernoulli at the stiffest modulus: softmech +4.49 %, published +4.47 %."""
    rel = rod_tips / d.PUBLISHED["rod"] - 1
    assert np.abs(rel).max() < 7e-3
    excess = -rod_tips / EB - 1
    assert excess[0] == pytest.approx(-d.PUBLISHED["rod"][0] / EB[0] - 1, abs=5e-4)
    assert excess[0] == pytest.approx(0.045, abs=1e-3)


def test_the_rods_excess_over_euler_bernoulli_is_its_clamp(rod_tips):
    """DisMech fixes the nodes at x <= 0.01 m; a discrete rod's slope is then held at the
    middle of the last fixed edge (x = 0.009 m), so the free length is 0.091 m and the small-
    deflection tip is (0.091 / 0.09)^4 = 1.0452 times Euler-Bernoulli's: softmech 1.0449 at
    E >= 1e9 Pa (the 0.03 % rest is the discretization, second order). With the same six nodes
    fixed but spaced so that the last fixed edge's middle is at x = 0.01 m, the rod follows
    Euler-Bernoulli to -0.024 % (tolerance 0.05 %; at E < 1e9 Pa the deflection is no longer
    small and beam theory departs, as the figure shows)."""
    stiff = d.MODULI >= 1e9
    np.testing.assert_allclose(-rod_tips[stiff] / EB[stiff], (0.091 / 0.09) ** 4, rtol=1e-3)
    mid_edge = d.rod_tips(d.MODULI[stiff], clamp="mid_edge")
    np.testing.assert_allclose(-mid_edge / EB[stiff], 1.0, atol=5e-4)


@pytest.mark.parametrize("mesh", ["equilateral_mesh_20", "figure_8"])
def test_hinge_shell_equals_dismech_on_the_same_mesh(mesh):
    """DisMech's hinge model (k_b = 2/sqrt(3) E h^3 / 12, hinge_convention "dismech") on
    DisMech's meshes against DisMech on the same mesh: 1e-7 (measured below 1e-9; the static
    solves' residual targets differ)."""
    tips, moduli = peer("hinge_" + mesh)
    ours = np.array([d.shell_tip("hinge", E, mesh) for E in moduli])
    np.testing.assert_allclose(ours, tips, rtol=1e-7)


def test_hinge_shell_reproduces_the_published_figure_on_the_figures_mesh():
    """On the mesh the figure was computed on, the hinge shell's tip is the published value
    within 0.3 % at every modulus but the three stiffest (0.04, 0.28, 1.1 %: there the
    published values fall off their own linear trend, +16.30, +16.03, +15.10 % over
    Euler-Bernoulli against a constant +16.35 % from 5e9 to 1e9 Pa; DisMech's stopping rule, as
    for the rod); tolerance 1.2 % everywhere and 0.3 % at E <= 5e9 Pa. The paper's "+16 %":
    softmech +16.35 %. On DisMech's example mesh of today the hinge shell gives +18.05 %
    (both codes): the number belongs to the mesh, whose hinge model converges slowly."""
    ours = np.array([d.shell_tip("hinge", E, "figure_8") for E in d.MODULI])
    rel = np.abs(ours / d.PUBLISHED["hinge"] - 1)
    assert rel.max() < 1.2e-2 and rel[d.MODULI <= 5e9].max() < 3e-3 and rel[SETTLED].max() < 1e-4
    assert -ours[3] / EB[3] - 1 == pytest.approx(0.1635, abs=5e-4)
    today = d.shell_tip("hinge", 5e9, "equilateral_mesh_20")
    assert -today / EB[3] - 1 == pytest.approx(0.1805, abs=5e-4)


def test_midedge_shell_matches_dismechs_one_step_equilibrium():
    """The mid-edge model against DisMech's static solve in one load step (its energy's
    equilibrium with the reference vectors tau_0 of the flat strip, which softmech's static
    solve uses). Small deflection (5e10 Pa): 1e-6 (measured 1.3e-7, DisMech's displacement
    tolerance). Larger deflections part at second order: 3.3e-4 at 1e9 Pa and 1.7 % at 1e8 Pa
    (tolerances 5e-4 and 2 %), mostly because DisMech's mid-edge code replaces the membrane
    stiffness by k_s = 2 E h l / (1 - nu^2) per edge (3.1 times the lattice springs softmech
    and DisMech's other shells use; its code marks the line as a trial): with that
    stiffness substituted the gaps are 7e-5 and 0.56 % (the rest is not located). DisMech's example
    takes ten load steps and re-bases every tau_0, the clamp's too, from the current shape, so
    its answer depends on the steps (tests/data/dismech_cantilever.json: +2.6 % over
    Euler-Bernoulli in ten steps against -1.75 % in one at 5e10 Pa); softmech keeps the frames
    of held edges, and its answer does not move when re-solved from its own equilibrium
    (1e-8 at 5e10 Pa)."""
    tips, moduli = peer("midedge_equilateral_mesh_20_one_step")
    ours = np.array([d.shell_tip("midedge", E) for E in moduli])
    assert list(moduli) == [5e10, 1e9, 1e8]
    assert np.all(np.abs(ours / tips - 1) <= [1e-6, 5e-4, 2e-2])
    assert -ours[0] / EB[0] - 1 == pytest.approx(-0.0175, abs=5e-4)
    ten, _ = peer("midedge_equilateral_mesh_20_10_steps")       # DisMech's example's steps
    assert -ten[0] / EB[0] - 1 == pytest.approx(0.026, abs=1e-3)


def test_midedge_shell_against_the_published_figure():
    """The published mid-edge curve (-0.85 % over Euler-Bernoulli at 5e9 - 1e9 Pa) came from
    DisMech's mid-edge code before two fixes to it (February and March 2025); softmech, on the
    figure's mesh, gives -1.68 %. Asserted: the softmech curve on that mesh stays within
    1 point of the published one where both are settled (SETTLED: 0.83 points measured), and
    within 3 % of every published value (2.8 % measured at 2e7 Pa), i.e. the figure's
    picture, not its digits."""
    ours = np.array([d.shell_tip("midedge", E, "figure_8") for E in d.MODULI])
    excess, published = -ours / EB - 1, -d.PUBLISHED["midedge"] / EB - 1
    assert np.abs(excess[SETTLED] - published[SETTLED]).max() < 0.01
    assert np.abs(ours / d.PUBLISHED["midedge"] - 1).max() < 0.03
    assert excess[SETTLED] == pytest.approx(-0.0168, abs=5e-4)
