"""Validation cases of muscles (group `muscles` of `softmech validate`): the contractile cell
(softmech.ContractileCell) against beam theory and the active muscle rod
(softmech.terms.active_muscle) against its force-length curves (Zhang et al., Nat. Commun.
10:4825, 2019, Fig. 1c). tests/validation/test_contractile.py and test_active_muscle.py call the
same functions.
"""
import numpy as np
from scipy.optimize import brentq

import softmech as sm
from softmech.terms.active_muscle import ActiveMuscle
from softmech.validation.common import rel_error, result, validation_case

CELL_L, CELL_R, CELL_E, CELL_RHO = 0.2, 0.005, 1e6, 1000.0
"""The clamped rod the contractile cell bends [m, m, Pa, kg/m^3]."""


def cell_bent_rod(side="d1"):
    """(node positions (41, 3) [m], expected rotation beyond the cell [rad]) of the clamped rod
    (CELL_*: L = 0.2 m, r = 5 mm, E = 1 MPa, 40 elements) bent by a constant cell of F = 5 mN,
    cell radius 5 mm, from s = 0.05 m over a span of 0.05 m on `side` ("d1" or "-d1"), damped
    to rest over 3 s. The expected rotation is theta = F h l_c / (E I), h = r + cell radius, with
    the sign of the side."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 1, 0),
                                 length=CELL_L, n_elems=40, radius=CELL_R, density=CELL_RHO,
                                 youngs_modulus=CELL_E)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.LinearDamping(rod, 1.0, rotational_coefficient=1e-5))
    F, cell_radius, start, span = 5e-3, 0.005, 0.05, 0.05
    scene.add(sm.ContractileCell(rod, start, span, F, cell_radius=cell_radius, side=side))
    sim = scene.compile(dt=5e-5, strict=True)
    sim.run(3.0)
    h = CELL_R + cell_radius
    theta = F * h * span / (CELL_E * np.pi * CELL_R**4 / 4)
    return sim.get_state()["positions"][0], (1.0 if side == "d1" else -1.0) * theta


@validation_case("rotation of the free end [rad]", "Euler–Bernoulli: θ = F h l_c / (E I)",
                 fast=True)
def contractile_cell_bends_a_clamped_rod(side="d1"):
    """A contractile cell pulling with constant force F between two points of a clamped rod at
    distance h from its centreline bends the span between them with the moment M = F h and
    leaves the rest straight, so the free end turns by theta = F h l_c / (E I) (Euler-Bernoulli;
    l_c the cell's span, E I = E pi r^4 / 4); cell_bent_rod. Error relative; tolerance 1 %: the
    force line is the chord of the attachment points, up to l_c^2 kappa / 8 further from the
    bent centreline than h (+0.03 %), the shortening F / (E A) (1e-4) and the damping's
    residual motion after 30 decay times. Also required: every element beyond the cell turned
    by theta (1 %), the rod before it straight (1e-4 theta L)."""
    x, theta = cell_bent_rod(side)
    tip = x[-1] - x[-2]
    measured = float(np.arctan2(tip[1], tip[0]))
    d = np.diff(x[20:], axis=0)
    beyond = float(np.abs(np.arctan2(d[:, 1], d[:, 0]) / theta - 1).max())
    before = float(np.abs(x[:11, 1]).max())
    error = rel_error(measured, theta)
    return result("contractile_cell_bends_a_clamped_rod", measured, theta, error, 1e-2,
                  f"tip turned {measured:.6f} rad vs F h l_c/(E I) = {theta:.6f} rad; elements "
                  f"beyond the cell within {beyond:.1e}; before it |y| <= {before:.1e} m",
                  passed=(error <= 1e-2 and beyond <= 1e-2
                          and before <= 1e-4 * abs(theta) * CELL_L))


L0, RADIUS, N_ELEMS = 0.1, 0.005, 10
SIGMA_MAX, E_ROD = 1.0e5, 1.0e4          # [Pa]; the rod's own modulus a tenth of sigma_max
AREA = np.pi * RADIUS ** 2
F_MAX = SIGMA_MAX * AREA


def muscle_scene(muscle, forces, start):
    """B = len(forces) muscles along x, first node pinned, end force F_set [N] along +x (one per
    world), damped; the rod starts uniformly stretched to eta = start[b] (at rest)."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="m", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=L0, n_elems=N_ELEMS, radius=RADIUS, density=1060.0,
                                 youngs_modulus=E_ROD)
    scene.add(sm.Pin(rod, "first"))
    scene.add(sm.EndLoad(rod, force=(0.0, 0.0, 0.0), name="set"))
    scene.add(sm.LinearDamping(rod, 20.0))
    scene.add(muscle)
    sim = scene.compile(worlds=len(forces), dt=2e-5)
    sim.params["set.force"] = np.stack([forces, 0 * forces, 0 * forces], axis=1)
    x = sim.get_state("m")["positions"]
    sim.set_state("m", positions=x * np.asarray(start)[:, None, None])
    return sim


def equilibrium(muscle, force, bracket):
    """eta* in bracket where the tension curve plus the rod's own stretch force equals force [N]:
    A^ eta^-p sigma_max (f_a + f_p) + E A^ (eta - 1) / eta = F_set (the gazzola2018 law,
    Gazzola et al. 2018 eq. 2.9 with A = A^ / e)."""
    def residual(eta):
        return muscle.tension(eta, rest_area=AREA) + E_ROD * AREA * (eta - 1) / eta - force
    return brentq(residual, *bracket, xtol=1e-12)


CONTRACTED, STRETCHED = (0.58, 0.88), (1.46, 2.5)
"""Brackets of the two stable branches (d T / d eta > 0) of both area laws with these
parameters: the ascending limb, and the passive branch beyond the tension's minimum (at eta =
1.45 (incompressible) and 1.43 (rest section), F / F_max = 0.50 and 0.71)."""
ISOMETRIC_POINTS = [  # (F_set / F_max, initial stretch, branch it settles on)
    (0.2, 1.0, CONTRACTED),    # below the stretched branch's minimum: unique, contracts from 1
    (0.4, 1.0, CONTRACTED),
    (0.75, 0.8, CONTRACTED),   # two stable branches: started on the contracted one
    (0.9, 1.7, STRETCHED),     # ... and on the stretched (passive) one
    (1.2, 1.0, STRETCHED),     # above the active peak: unique, stretches from 1
    (1.6, 1.0, STRETCHED),
]


def isometric_stretches(incompressible=True):
    """(muscle, rod stretches (6,), element stretches (6, N_ELEMS), equilibria (6,)) of the six
    ISOMETRIC_POINTS, one world each, after 0.6 s of maximal contraction (a = 1)."""
    muscle = ActiveMuscle("m", SIGMA_MAX, incompressible=incompressible, name="muscle")
    frac, start, brackets = zip(*ISOMETRIC_POINTS)
    frac = np.array(frac)
    sim = muscle_scene(muscle, frac * F_MAX, np.array(start))
    sim.run(duration=0.6)
    x = sim.get_state("m")["positions"]
    eta = np.linalg.norm(x[:, -1] - x[:, 0], axis=1) / L0
    eta_elem = np.linalg.norm(np.diff(x, axis=1), axis=2) / (L0 / N_ELEMS)
    want = np.array([equilibrium(muscle, f * F_MAX, b) for f, b in zip(frac, brackets)])
    return muscle, eta, eta_elem, want


@validation_case("stretch η* of the worst of 6 loads [-]", "Zhang et al. 2019 Fig. 1c: "
                 "isometric force–length curve", fast=True)
def active_muscle_isometric_lengths():
    """Isometric test of Zhang et al., Nat. Commun. 10:4825 (2019), Fig. 1c: a muscle rod
    (incompressible, sigma_max = 1e5 Pa), one end pinned, performs a maximal contraction (a = 1)
    against a constant end force F_set and settles at the stretch eta* where every element's
    tension equals F_set: A^ eta^-p sigma_max (f_a(eta) + f_p(eta)) + E A^ (eta - 1) / eta =
    F_set (the muscle's tension plus the rod's own stretch force; solved with brentq from the
    curves alone). Six loads on both stable branches (ISOMETRIC_POINTS), one world each;
    measured the worst one's rod stretch L / L^. Error relative; tolerance 1e-6: issue 14 asks
    for 2 %, but the damped run settles to round-off (measured 2e-13) and a 2 % band would hide
    a wrong factor such as the area law's 1 / eta near eta = 1. Also required: every element
    at eta* (uniform, 1e-6)."""
    _, eta, eta_elem, want = isometric_stretches(True)
    errors = np.abs(eta / want - 1)
    worst = int(np.argmax(errors))
    elements = float(np.abs(eta_elem / want[:, None] - 1).max())
    return result("active_muscle_isometric_lengths", eta[worst], want[worst], errors[worst], 1e-6,
                  f"F/F_max = {ISOMETRIC_POINTS[worst][0]}: eta = {eta[worst]:.9f} vs "
                  f"{want[worst]:.9f} (largest of 6 errors); elements within {elements:.1e}",
                  passed=errors[worst] <= 1e-6 and elements <= 1e-6)


CASES = {f.__name__: f for f in (contractile_cell_bends_a_clamped_rod,
                                 active_muscle_isometric_lengths)}
"""Case name -> function returning its record."""
