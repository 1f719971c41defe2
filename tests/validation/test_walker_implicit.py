"""The walker with the authors' own ground friction (issue 28; softmech.scenarios.walker.GROUNDS;
docs/musculoskeletal.md, "The authors' friction, stepped implicitly: tried, not usable").

The authors' code (Zhang et al. 2019, mattialab/elastica, source/ExternalContact.h, FLAGWALKER)
uses the regularized Coulomb law of Gazzola et al. 2018 with mu_k = 0.3, mu_s = 0.42, static
below v_s = 1e-4 mm/s = 1e-7 m/s, and a contact band of 1e-4 mm = 1e-7 m, at dt = 7.5e-8 s. An
explicit step resolves the static band only if a foot element's velocity change per step under
kinetic friction, mu_k N_e dt / m_e, is below v_s: dt < 1e-7 x 0.43 mg / (0.3 x 18 uN) ~ 8e-9 s
here. Implicit Euler has no stability limit, but on this scene it neither converges at
larger steps nor costs less (measured, docs/musculoskeletal.md): only the builder option is
tested here.
"""
import pytest

import softmech as sm
from softmech.scenarios.walker import GROUNDS, build_walker


def grounds_of(scene):
    return [t for t in scene.terms if isinstance(t, sm.GroundContact)]


def test_paper_ground_sets_the_authors_friction_on_every_ground_contact():
    """build_walker(ground="paper"): mu_k 0.3, mu_s 0.42, v_s 1e-7 m/s, band 1e-7 m on the
    skeleton's and both cross feet's contacts (the authors' values, module docstring); the
    default ("softmech") is unchanged (mu_s = 1.2 mu_k exactly, as before the option existed);
    an override given wins over the preset."""
    scene, _ = build_walker(frequencies=(2.0,), ground="paper")
    grounds = grounds_of(scene)
    assert len(grounds) == 3
    for g in grounds:
        f = g.given_friction
        assert (f.forward, f.lateral, f.static_forward, f.static_lateral, f.slip_velocity) == (
            0.3, 0.3, 0.42, 0.42, 1e-7)
        assert g.surface_tolerance == 1e-7
    default, _ = build_walker(frequencies=(2.0,))
    f = grounds_of(default)[0].given_friction
    assert (f.forward, f.static_forward, f.slip_velocity) == (0.5, 1.2 * 0.5, 1e-6)
    assert grounds_of(default)[0].surface_tolerance == 1e-5
    mixed, _ = build_walker(frequencies=(2.0,), ground="paper", slip_velocity=2e-7)
    assert grounds_of(mixed)[0].given_friction.slip_velocity == 2e-7
    assert grounds_of(mixed)[0].given_friction.forward == 0.3
    assert set(GROUNDS) == {"softmech", "paper"}


def test_bad_ground_options_are_refused_by_name():
    with pytest.raises(ValueError, match=r"ground = 'authors' is not allowed.*paper"):
        build_walker(frequencies=(2.0,), ground="authors")
    with pytest.raises(ValueError, match=r"static_friction = 0.2 is not allowed: must be >= "
                                         r"friction"):
        build_walker(frequencies=(2.0,), ground="paper", static_friction=0.2)
    with pytest.raises(ValueError, match="static_friction"):
        build_walker(frequencies=(2.0,), static_friction=-1.0)
    # the preset's static coefficient (0.42) is below a kinetic override of 0.5: refused
    with pytest.raises(ValueError, match="static_friction = 0.42"):
        build_walker(frequencies=(2.0,), ground="paper", friction=0.5)
