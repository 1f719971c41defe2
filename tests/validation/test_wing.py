"""The feathered wing (softmech.scenarios.wing; Zhang et al. 2019, Fig. 4): rod counts, the vane
drag against a flat plate's, the muscles' action on the three joint angles, a short stable run,
and the CLI from a scenario file. Small wings (a few hundred barbs) keep it fast: the barbs'
stiffness, mass and drag per unit vane area do not depend on their number (barb_properties)."""
import json

import numpy as np
import pytest

import softmech as sm
from softmech.cli import main
from softmech.scenarios import wing as W
from softmech.scenarios.wing import (FULL_BARBS, PRIMARIES, SECONDARIES, barb_properties,
                                     barbs_per_feather, build_wing, feather_layout, joint_angles)
from softmech.scenefile import builtin_scenario, load_scenario, save_scenario

SMALL = 8 * (SECONDARIES + PRIMARIES)      # the fewest barbs a wing may have: 152


def test_the_wing_has_the_papers_rod_counts():
    """Paper: 19 feathers, ~80-200 barbs per rachis, ~3,000 rods per wing; halving and doubling
    the barbs halves and doubles the rod count."""
    lengths = [f[3] for f in feather_layout()]
    assert len(lengths) == 19
    full = barbs_per_feather(FULL_BARBS, lengths)
    assert 80 <= min(full) and max(full) <= 200
    for total in (FULL_BARBS // 2, FULL_BARBS, 2 * FULL_BARBS):
        assert abs(sum(barbs_per_feather(total, lengths)) - total) <= 2 * 19   # rounding to pairs
    scene, info = build_wing(barbs=SMALL)
    assert info.rods == len(scene.rods) == info.barbs + 19 + 4          # + rachises + muscles
    assert len(scene.rigid_bodies) == 4                                 # thorax and three bones
    drags = [t for t in scene.terms if isinstance(t, sm.QuadraticDrag)]
    assert len(drags) == info.barbs + 19
    with pytest.raises(ValueError, match="barbs"):
        build_wing(barbs=SMALL - 1)


@pytest.mark.parametrize("spacing", [0.0007, 0.00145, 0.0029])
def test_a_vane_of_barbs_has_a_flat_plates_drag(spacing):
    """n parallel barbs (barb_properties: the strip each stands for, w = spacing sin(50 deg))
    moving normal to their plane at v feel 1/2 rho C_D (n w L) v^2 (flat plate, C_D =
    PLATE_DRAG; QuadraticDrag = Renda et al. 2018 eq. 11 with C_n r = C_D w / 2), edgewise
    1/2 rho C_b (2 r) L v^2 per barb (a cylinder, C_b = BARB_EDGE_DRAG) and nothing along their
    axis (tangential = 0). Exact up to round-off (uniform motion of straight rods)."""
    barb = barb_properties(spacing)
    n, L, v = 6, 0.02, 7.0
    w = spacing * np.sin(W.BARB_ANGLE)
    material = {k: barb[k] for k in ("radius", "density", "youngs_modulus", "shear_modulus")}
    scene = sm.Scene()
    for i in range(n):
        rod = scene.add_cosserat_rod(name=f"b{i}", start=(0.0, i * w, 0.0), direction=(1, 0, 0),
                                     normal=(0, 0, 1), length=L, n_elems=4, **material)
        scene.add(sm.QuadraticDrag(rod, normal=barb["normal"], binormal=W.BARB_EDGE_DRAG,
                                   tangential=0.0, fluid_density=W.AIR_DENSITY, name=f"d{i}"))
    sim = scene.compile(dt=1e-8)                    # no steps: the forces at one state
    mass = barb["density"] * np.pi * barb["radius"] ** 2 * L

    def total_force(velocity):
        for i in range(n):
            sim.set_state(f"b{i}", velocities=np.tile(velocity, (5, 1)))
        return sum(mass * sim.accelerations(f"b{i}")[0][0].mean(axis=0) for i in range(n))

    plate = 0.5 * W.AIR_DENSITY * W.PLATE_DRAG * n * w * L * v ** 2
    np.testing.assert_allclose(total_force((0.0, 0.0, v)), (0.0, 0.0, -plate), rtol=1e-12,
                               atol=1e-12 * plate)
    edge = 0.5 * W.AIR_DENSITY * W.BARB_EDGE_DRAG * 2 * barb["radius"] * L * v ** 2 * n
    np.testing.assert_allclose(total_force((0.0, v, 0.0)), (0.0, -edge, 0.0), rtol=1e-12,
                               atol=1e-12 * edge)
    np.testing.assert_allclose(total_force((v, 0.0, 0.0)), 0.0, atol=1e-12 * plate)


def test_joint_angles_of_known_frames():
    """joint_angles: the flap about x, the sweep and the elbow (180 straight, less flexed)."""
    def frame(d3, d1):
        d3, d1 = np.asarray(d3, float), np.asarray(d1, float)
        return np.array([d1, np.cross(d3, d1), d3])

    a = np.radians(30.0)
    humerus = frame((0, np.cos(a), np.sin(a)), (1, 0, 0))               # raised 30 deg
    forearm = frame((np.sin(a), np.cos(a) ** 2, np.cos(a) * np.sin(a)), (1, 0, 0))
    forearm[0] = np.cross(forearm[1], forearm[2])
    dv, ap, elbow = joint_angles(humerus, humerus)
    np.testing.assert_allclose((dv, ap, elbow), (30.0, 0.0, 180.0), atol=1e-12)
    swept = frame((np.sin(a), np.cos(a), 0.0), (np.cos(a), -np.sin(a), 0.0))
    np.testing.assert_allclose(joint_angles(swept, swept)[:2], (0.0, 30.0), atol=1e-12)
    # forearm turned 30 deg toward the humerus's d1 (the wrist forward): elbow 150
    flexed = frame(np.cos(a) * humerus[2] + np.sin(a) * humerus[0], humerus[1])
    flexed[0] = np.cross(flexed[1], flexed[2])
    np.testing.assert_allclose(joint_angles(humerus, flexed)[2], 150.0, atol=1e-12)


def _one_muscle(monkeypatch, muscle, duration=0.015):
    """Joint angles after `duration` [s] of a small wing with `muscle` fully on from t = 0 and
    the others at their tone."""
    monkeypatch.setattr(W, "activation_windows",
                        lambda t0, f: {m: [(0.0, 1.0)] if m == muscle else [(1.0, 2.0)]
                                       for m in W.MUSCLES})
    scene, info = build_wing(barbs=SMALL)
    sim = scene.compile(dt=info.dt)
    sim.run(duration)
    angles = joint_angles(sim.get_state("humerus")["directors"][0, 0],
                          sim.get_state("forearm")["directors"][0, 0])
    return np.array(angles)


@pytest.mark.parametrize("muscle, joint, sign", [("pectoralis", 0, -1), ("supracoracoideus", 0, 1),
                                                 ("biceps", 2, -1), ("scapulotriceps", 2, 1)])
def test_each_muscle_turns_its_joint_its_way(monkeypatch, muscle, joint, sign):
    """Paper: the supracoracoideus-pectoralis pair sets the dorsoventral angle (elevation,
    depression), biceps-scapulotriceps the elbow (flexion, extension). Each alone moves its
    joint by more than 5 deg its way from the rest pose (dorsoventral 0, elbow REST_ELBOW) in
    15 ms, and the others by less (the wing hangs under gravity meanwhile)."""
    angles = _one_muscle(monkeypatch, muscle)
    rest = np.array([0.0, 0.0, W.REST_ELBOW])
    assert np.all(np.isfinite(angles))
    assert sign * (angles[joint] - rest[joint]) > 5.0, angles


def test_a_short_flapping_run_is_stable_and_its_cli_works_from_a_file(tmp_path, capsys,
                                                                     monkeypatch):
    """A small wing saved as a scenario file (template "wing") runs from the CLI: stable for
    5 ms of the initiation phase (the wing starts rising), with joint_angles.png, a still and a
    video (a few frames here: the report's slow motion shortened), and the wall time per
    simulated second in its JSON."""
    from softmech.commands.reports import REPORTS

    monkeypatch.setattr(REPORTS["wing"], "slow_motion_seconds", 0.2)
    scenario = builtin_scenario("wing", barbs=SMALL)
    path = save_scenario(scenario, tmp_path / "small_wing.toml")[0]
    loaded = load_scenario(path)
    assert loaded.template == "wing" and loaded.info() == scenario.info()
    assert main(["run", path, "--duration", "0.005", "--output", str(tmp_path / "out"),
                 "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = {p.split("/")[-1] for p in out["files"]}
    assert {"results.h5", "joint_angles.png"} <= names and any(n.endswith(".mp4") for n in names), names
    assert out["rods"] == scenario.info().rods and out["wall_time_per_simulated_second"] > 0
    assert out["dorsoventral_range_deg"][1] > 0.5          # the supracoracoideus lifts it
