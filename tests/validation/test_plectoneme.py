"""The plectoneme scene (softmech.scenarios.plectoneme): a rod clamped at both ends, one end turned
6 times and pushed in, coils into a plectoneme held apart by self contact (issue: "buckles into a
plectoneme with self contact and no pass-through").

* with self contact the closest approach of the centrelines of every element pair that self
  contact covers stays above NO_PASS_THROUGH = 0.8 of 2r at every millisecond, and the strands
  do touch (below 2r);
* the twist turns into writhe (Calugareanu-White), Wr > 1.5 at the end: strands wound around
  each other, not a single loop (|Wr| < 1);
* the same run without self contact passes through itself (closest approach below r): the
  bound is not met by accident;
* the writhe integral is 0 for a planar curve and changes sign with the mirror image.
"""
import numpy as np
import pytest

import softmech as sm
from softmech.scenarios.plectoneme import NO_PASS_THROUGH, build_plectoneme, self_gaps, writhe


def run_plectoneme(self_contact):
    scene, info = build_plectoneme()
    if not self_contact:
        scene.terms = [t for t in scene.terms if not isinstance(t, sm.RodContact)]
    sim = scene.compile(dt=info.dt)
    out = sim.run(info.duration, record=sm.Every(1e-3, ("rod.positions",)))
    x = out["rod.positions"][0]
    return x, self_gaps(info.rest_lengths, x, info.radius)


def test_plectoneme_forms_with_self_contact_and_never_passes_through():
    x, gaps = run_plectoneme(self_contact=True)
    assert gaps.min() >= NO_PASS_THROUGH          # measured 0.965
    assert gaps.min() < 1.0                        # the strands touch
    assert writhe(x[-1]) > 1.5                     # measured 2.2


def test_without_self_contact_the_rod_passes_through_itself():
    _, gaps = run_plectoneme(self_contact=False)
    assert gaps.min() < 0.5


def test_writhe_of_planar_and_mirrored_curves():
    s = np.linspace(0.0, 4 * np.pi, 200)
    planar = np.stack([np.cos(s) * (1 + 0.3 * s), np.sin(s) * (1 + 0.3 * s), 0 * s], axis=1)
    assert writhe(planar) == pytest.approx(0.0, abs=1e-12)
    helix = np.stack([np.cos(s), np.sin(s), 0.2 * s], axis=1)
    mirrored = helix * np.array([1.0, -1.0, 1.0])
    assert abs(writhe(helix)) > 0.1
    assert writhe(mirrored) == pytest.approx(-writhe(helix), rel=1e-12)
