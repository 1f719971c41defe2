"""Two crossing ropes (issue 30), softmech.validation.crossing_ropes: two pinned Cosserat rods
crossing at right angles, the upper one 4x denser, pressed onto the lower one by gravity through
frictionless RodContact, damped to rest. The case's three builds (the lower rope added first,
its node order reversed, the upper rope added first) run once, in one test.

* Mirror symmetry x -> -x and y -> -y to round-off through the run (bound 1e-12 m, 1000x the
  measured round-off level of these damped, stable modes; the issue saw 3.5 mm).
* The builds agree to round-off: the contact pairs' order does not matter.
* At rest: kinetic energy below 1e-15 J (a vibration of 1.6e-9 m at the centre).
* Lift P against simply supported small-deflection beams with shear (Timoshenko & Gere, App. G)
  meeting through the penalty's overlap P / k_eff, k_eff = 2 k: tolerance 2e-3 (O(h^2)
  discretization, -8.0e-4 by convergence; membrane tension <= (delta / r)^2 = 6.7e-4).
* Momentum: the contact forces on the two ropes are equal and opposite, with zero net torque.
"""
import numpy as np
import pytest

from softmech.validation import crossing_ropes as C


def test_two_crossing_ropes_stay_symmetric_settle_and_lift(monkeypatch):
    """One test for the three builds' runs (a module fixture would run them once per xdist
    worker); each check names itself."""
    runs = C.measure()
    summary = C.summary(runs)
    base = runs["lower_first"]
    # mirror symmetry: lower midpoint's y, upper rope's x (its midpoint's included), both
    # configurations against their mirror images, at every millisecond of every build
    mid_y = np.max(np.abs(base["lower_path"][:, C.N_LOWER // 2, 1]))
    mid_x = np.max(np.abs(base["upper_path"][:, :, 0]))
    assert mid_y <= C.SYMMETRY_BOUND and mid_x <= C.SYMMETRY_BOUND, ("midpoints", mid_y, mid_x)
    assert summary["asymmetry"] <= C.SYMMETRY_BOUND, ("asymmetry", summary["asymmetry"])
    # ... while the ropes did move: the upper one sank by far more than the bound
    assert 2 * C.RADIUS - base["upper"][C.N_UPPER // 2, 2] > 1e-5
    # the order of the rods and of one rope's nodes does not matter
    assert summary["variant_positions"] <= C.SYMMETRY_BOUND, ("builds", summary)
    assert summary["variant_lift"] <= C.VARIANT_LIFT_BOUND, ("builds' lifts", summary)
    # at rest
    assert summary["kinetic_energy"] <= C.ENERGY_BOUND, ("kinetic energy", summary)
    # the lift: beams through the penalty, the two element pairs derived carrying it
    assert summary["pairs"] == [C.contact_pairs(C.N_LOWER, C.N_UPPER)] * len(C.VARIANTS) \
        == [2] * 3, ("pairs in contact", summary["pairs"])
    assert summary["lift"] == pytest.approx(summary["reference"], rel=C.LIFT_TOLERANCE)
    # the overlap term matters: without it the reference is off by far more than the tolerance
    assert abs(summary["without_overlap"] / summary["lift"] - 1) > 5 * C.LIFT_TOLERANCE
    # small deflection: membrane tension (delta / r)^2 < 1e-3
    assert summary["deflection"] < 0.03 * C.RADIUS
    # momentum: equal and opposite contact forces on the two ropes, no net torque
    assert summary["net_force"] <= C.MOMENTUM_BOUND, ("net force", summary["net_force"])
    assert summary["net_torque"] <= C.MOMENTUM_BOUND, ("net torque", summary["net_torque"])
    lower, upper = base["lower_force"].sum(axis=0), base["upper_force"].sum(axis=0)
    assert lower[2] == pytest.approx(-summary["lift"], rel=1e-12) and upper[2] > 0.0
    # the validation case's record from the same runs
    monkeypatch.setattr(C, "measure", lambda: runs)
    record = C.crossing_ropes_stay_symmetric_and_lift()
    assert record["passed"], record["detail"]


def test_the_symmetry_measure_sees_a_sideways_midpoint():
    """asymmetry() is not blind: a 1e-9 m sideways step of the lower rope's midpoint, or a 1e-9
    m slide of the upper rope along its length, is seen."""
    lower = np.zeros((C.N_LOWER + 1, 3))
    lower[:, 0] = np.linspace(-0.1, 0.1, C.N_LOWER + 1)
    upper = np.zeros((C.N_UPPER + 1, 3))
    upper[:, 1] = np.linspace(-0.1, 0.1, C.N_UPPER + 1)
    assert C.asymmetry(lower, upper) < 1e-16
    moved = lower.copy()
    moved[C.N_LOWER // 2, 1] += 1e-9
    assert C.asymmetry(moved, upper) == pytest.approx(1e-9, rel=1e-6)
    slid = upper.copy()
    slid[1:-1, 1] += 1e-9
    assert C.asymmetry(lower, slid) == pytest.approx(2e-9, rel=1e-6)


def test_an_unknown_variant_is_refused_naming_the_allowed_ones():
    with pytest.raises(ValueError, match="variant = 'sideways'.*lower_first"):
        C.crossing_scene("sideways")
