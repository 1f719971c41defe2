"""The authors' own walker (build_walker(model="paper"), softmech.scenarios.walker_paper): its
parts have the masses, stiffnesses and lengths of Zhang et al. 2019's public code
(mattialab/elastica, source/Walker.cpp; mm-g-s there), its muscles are buoyant and its rings
stay where the code keeps them, and it refuses the options of softmech's own walker.

The numbers below are recomputed here from the code's constants, independently of the module.
"""
import numpy as np
import pytest

from softmech.scenarios.walker import build_walker
from softmech.scenarios.walker_paper import DEFAULTS, paper_parameters

MM = 1e-3
RHO = 1.12e-3 * 1e-3 / MM ** 3      # their density 1.12e-3 g/mm^3 [kg/m^3]


def _rod_mass(rod):
    r = np.broadcast_to(rod.radius, (rod.n_elems,))
    rho = np.broadcast_to(rod.density, (rod.n_elems,))
    return float(np.sum(rho * np.pi * r ** 2 * rod.rest_lengths))


def _walker(**overrides):
    scene, info = build_walker(frequencies=(2.0,), model="paper", **overrides)
    rods = {r.name: r for r in scene.rods}
    bodies = {b.name: b for b in scene.rigid_bodies}
    return scene, info, rods, bodies


def test_the_authors_walker_has_the_masses_and_stiffnesses_of_their_code():
    """Walker.cpp: beams straightRod_v(n_B = 16, density * factorW (0.5), radius rB_v = 0.8786
    mm, L0_B = 14 mm); legs r_L = 1.75 mm, L0_L = 3.4 mm (LegL = 2.8 mm for the two at nodes 2);
    crosses r_C = 0.72 mm, L0_C = 3.5 mm (here shared by the legs they join); bending stiffness
    E pi requal^4 / 4 with requal = 0.5842 mm in the beams' eight middle elements, 0.8786 mm in
    the others; strips L0_M = 5.48 mm. Exact up to round-off (1e-9)."""
    scene, info, rods, bodies = _walker()
    beams = [rods["beam0_0"], rods["beam1_0"]]
    beam = 2 * 0.5 * RHO * np.pi * (0.8786 * MM) ** 2 * 14 * MM
    legs = 2 * RHO * np.pi * (1.75 * MM) ** 2 * (3.4 * MM + 2.8 * MM)
    crosses = 4 * RHO * np.pi * (0.72 * MM) ** 2 * 3.5 * MM
    skeleton = sum(_rod_mass(b) for b in beams) + sum(b.mass for b in bodies.values())
    assert skeleton == pytest.approx(beam + legs + crosses, rel=1e-9)
    assert skeleton == pytest.approx(197e-6, rel=0.01)       # 197 mg (docs/musculoskeletal.md)
    radii = np.broadcast_to(beams[0].radius, (16,))
    assert np.allclose(radii[4:12], 0.5842 * MM) and np.allclose(radii[[0, 3, 12, 15]], 0.8786 * MM)
    assert beams[0].youngs_modulus == pytest.approx(3.194e5)
    assert len(bodies) == 4
    # the legs hang from the beams' nodes 2 and 14, their tops at the beams' height
    for b in bodies.values():
        node = 2 if b.name.startswith("back") else 14
        beam_rod = beams[0] if "leg0" in b.name else beams[1]
        length = 3.4 * MM if b.name.startswith("back") else 2.8 * MM
        top = np.asarray(b.position) + (0, 0, 0.5 * length)
        assert np.allclose(top, beam_rod.positions[node], atol=1e-12)
    for i in range(4):
        strip = rods[f"strip{i}_0"]
        assert float(np.sum(strip.rest_lengths)) == pytest.approx(5.48 * MM, rel=1e-9)
    # the strips on the rings' nodes 13-16: across the walker at 3.38, 2.29, 1.21, 0.12 mm
    # (their x), symmetric about its midline (1.75 mm: the legs at 0 and 3.5 mm)
    across = sorted(rods[f"strip{i}_0"].positions[0, 1] for i in range(4))
    assert np.allclose(across, np.array([0.121, 1.207, 2.293, 3.379]) * MM, atol=1e-6)
    assert info.skeletons == ("beam0_0",)                  # their fitness: rod 0's velocity


def test_its_muscles_are_buoyant_and_its_rings_stay_on_the_legs():
    """Their muscle rods feel no gravity ("naturally buoyant") and their rings get no vertical
    force: after 0.2 s (the walker has landed, the muscles pull) every muscle node is within
    10 um of its starting height, each leg's lowest rim point within 20 um of the ground
    (the ground's penalty: ~0.5 mN / 1e3 N/m = 0.5 um, and the leg's tilt), the beams 0.3-0.4
    mm lower (the long legs start 0.1 mm up, the short ones 0.6 mm: the frame tilts forward)."""
    scene, info, rods, bodies = _walker()
    sim = scene.compile(dt=1e-5)
    start = {n: r.positions.copy() for n, r in rods.items()}
    sim.run(0.2)
    for name in rods:
        if "ring" in name or "strip" in name:
            z = sim.get_state(name)["positions"][0][:, 2]
            assert np.max(np.abs(z - start[name][:, 2])) < 10e-6, name
    for name, body in bodies.items():
        state = sim.get_state(name)
        centre, axis = state["positions"][0, 0], state["directors"][0, 0][2]
        length = 3.4 * MM if name.startswith("back") else 2.8 * MM
        bottom = centre - 0.5 * length * axis
        tilt = np.sqrt(max(0.0, 1.0 - axis[2] ** 2))
        lowest = bottom[2] - 1.75 * MM * tilt
        assert abs(lowest) < 20e-6, (name, lowest)
    drop = 3.5 * MM - sim.get_state("beam0_0")["positions"][0][:, 2].mean()
    assert 0.3 * MM < drop < 0.4 * MM


def test_the_authors_walker_refuses_softmech_walker_options():
    """build_walker(model="paper") has its own muscles and ground: softmech's walker options are
    refused by name, its own parameters by range."""
    with pytest.raises(ValueError, match="muscle = 'strip' is not allowed with model='paper'"):
        build_walker(frequencies=(1.0,), model="paper", muscle="strip")
    with pytest.raises(ValueError, match="bath_damping is not allowed with model='paper'"):
        build_walker(frequencies=(1.0,), model="paper", bath_damping=0.1)
    with pytest.raises(ValueError, match="short_pillar"):
        paper_parameters({"short_pillar": 4 * MM})
    with pytest.raises(ValueError, match="static_friction"):
        paper_parameters({"static_friction": 0.1})
    with pytest.raises(ValueError, match="model"):
        build_walker(frequencies=(1.0,), model="theirs")
    assert set(DEFAULTS) >= {"youngs_modulus", "short_pillar", "static_friction", "friction"}
