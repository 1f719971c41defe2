"""The feathered wing (softmech.scenarios.wing; Zhang et al. 2019, Fig. 4): rod counts, the vane
drag against a flat plate's, the muscles' action on the three joint angles, a short stable run,
and the CLI from a scenario file. Small wings (a few hundred barbs) keep it fast: the barbs'
stiffness, mass and drag per unit vane area do not depend on their number (barb_properties)."""
import functools
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
    with pytest.raises(ValueError, match="samples = 0"):               # before any work
        W.run_wingbeat(SMALL, samples=0)


@pytest.mark.parametrize("spacing", [0.0007, 0.00145, 0.0029])
def test_a_vane_of_barbs_has_a_flat_plates_drag(spacing):
    """n parallel barbs (barb_properties: the strip each stands for, w = spacing sin(50 deg))
    moving normal to their plane at v feel 1/2 rho C_D (n w L) v^2 (flat plate, C_D =
    PLATE_DRAG; QuadraticDrag = Renda et al. 2018 eq. 11 with C_n r = C_D w / 2), edgewise
    the plate's skin friction 1/2 rho C_f (n w L) v^2 (C_f = SKIN_FRICTION, both faces) and
    nothing along their axis (tangential = 0): per unit vane area, whatever the spacing. Exact
    up to round-off (uniform motion of straight rods)."""
    barb = barb_properties(spacing)
    n, L, v = 6, 0.02, 7.0
    w = spacing * np.sin(W.BARB_ANGLE)
    material = {k: barb[k] for k in ("radius", "density", "youngs_modulus", "shear_modulus")}
    scene = sm.Scene()
    for i in range(n):
        rod = scene.add_cosserat_rod(name=f"b{i}", start=(0.0, i * w, 0.0), direction=(1, 0, 0),
                                     normal=(0, 0, 1), length=L, n_elems=4, **material)
        scene.add(sm.QuadraticDrag(rod, normal=barb["normal"], binormal=barb["edge"],
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
    edge = 0.5 * W.AIR_DENSITY * W.SKIN_FRICTION * n * w * L * v ** 2
    np.testing.assert_allclose(total_force((0.0, v, 0.0)), (0.0, -edge, 0.0), rtol=1e-12,
                               atol=1e-12 * edge)
    np.testing.assert_allclose(total_force((v, 0.0, 0.0)), 0.0, atol=1e-12 * plate)


@pytest.mark.parametrize("pairs", [4, 16, 31, 32, 74])
def test_each_barb_pair_sits_at_its_strips_middle_on_a_resolved_rachis(pairs):
    """rachis_nodes: the vane (past the bare calamus, VANE_START of the rachis) in `pairs`
    strips of equal width, each strip's barb pair at its middle, where the strip's drag and mass
    act (midpoint rule: the strip's moment about the root exact to O(spacing^2); at the strip's
    outer end, as before, a feather bent as if loaded half a strip further out). Few pairs
    (< RACHIS_ELEMENTS): at least RACHIS_ELEMENTS elements along the vane, none longer than
    half a strip, the calamus no coarser. Many pairs: one element per strip, none shorter (the
    wing's dt), the last pair at the tip. Exact up to round-off."""
    length = 0.15
    s, nodes = W.rachis_nodes(length, pairs)
    calamus = W.VANE_START * length
    spacing = (length - calamus) / pairs
    middles = calamus + spacing * (np.arange(pairs) + 0.5)
    assert s[0] == 0.0 and s[-1] == pytest.approx(length, rel=1e-12) and np.all(np.diff(s) > 0)
    if pairs < W.RACHIS_ELEMENTS:
        np.testing.assert_allclose(s[nodes], middles, rtol=1e-12)
        vane = np.diff(s[s >= calamus - 1e-12])
        assert len(vane) >= W.RACHIS_ELEMENTS
        assert np.diff(s).max() <= spacing / 2 * (1 + 1e-12)
    else:
        np.testing.assert_allclose(s[nodes], np.append(middles[:-1], length), rtol=1e-12)
        assert np.diff(s).min() >= spacing * (1 - 1e-12)


def test_the_barbs_add_the_same_spin_inertia_per_vane_area_at_any_spacing():
    """barb_properties' `spin` (RotaryInertiaScaling's factor) times the barb's own rotary
    inertia per unit length, rho pi r^4 / 4, per unit vane width w = spacing sin(BARB_ANGLE):
    the same for any barb spacing (= BARB_SPIN VANE_MASS SPIN_RADIUS^2 / 4), so the scaling that
    lets the wing step at microseconds does not change with the barb count (a constant factor
    added 4x more spin inertia per area at 152 barbs than at 2,800). Exact up to round-off."""
    per_area = []
    for spacing in (0.0007, 0.00145, 0.0029, 0.03):
        b = barb_properties(spacing)
        inertia = b["spin"] * b["density"] * np.pi * b["radius"] ** 4 / 4.0
        per_area.append(inertia / (spacing * np.sin(W.BARB_ANGLE)))
    np.testing.assert_allclose(per_area, W.BARB_SPIN * W.VANE_MASS * W.SPIN_RADIUS ** 2 / 4.0,
                               rtol=1e-12)


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


def _angles_after(monkeypatch, windows, duration):
    """Joint angles [deg] after `duration` [s] of a small wing whose muscles are fully on over
    windows[muscle] [(on, off)] and at their tone otherwise (no window: tone throughout)."""
    monkeypatch.setattr(W, "activation_windows",
                        lambda t0, f: {m: windows.get(m, [(1.0, 2.0)]) for m in W.MUSCLES})
    scene, info = build_wing(barbs=SMALL)
    sim = scene.compile(dt=info.dt)
    sim.run(duration)
    angles = joint_angles(sim.get_state("humerus")["directors"][0, 0],
                          sim.get_state("forearm")["directors"][0, 0])
    return np.array(angles)


@pytest.mark.parametrize("muscle, joint, sign", [("pectoralis", 0, -1), ("supracoracoideus", 0, 1),
                                                 ("biceps", 2, -1)])
def test_each_muscle_turns_its_joint_its_way(monkeypatch, muscle, joint, sign):
    """Paper: the supracoracoideus-pectoralis pair sets the dorsoventral angle (elevation,
    depression), biceps-scapulotriceps the elbow (flexion, extension). Each alone moves its
    joint by more than 5 deg its way from the straight, flat start (dorsoventral 0, elbow
    START_ELBOW = 180) in 15 ms (the wing hangs under gravity meanwhile)."""
    angles = _angles_after(monkeypatch, {muscle: [(0.0, 1.0)]}, 0.015)
    rest = np.array([0.0, 0.0, W.START_ELBOW])
    assert np.all(np.isfinite(angles))
    assert sign * (angles[joint] - rest[joint]) > 5.0, angles


def test_the_scapulotriceps_extends_a_flexed_elbow(monkeypatch):
    """The elbow starts straight, against its stop, so the scapulotriceps is tested on an
    elbow the biceps has flexed (biceps on over the first 15 ms): with the scapulotriceps on
    from 20 ms the elbow is more than 5 deg more extended at 45 ms than without it (same run
    otherwise), and the biceps alone has flexed it by more than 5 deg."""
    biceps = {"biceps": [(0.0, 0.015)]}
    flexed = _angles_after(monkeypatch, biceps, 0.045)[2]
    extended = _angles_after(monkeypatch, dict(biceps, scapulotriceps=[(0.02, 1.0)]), 0.045)[2]
    assert flexed < W.START_ELBOW - 5.0 and extended - flexed > 5.0, (flexed, extended)


def test_the_wing_is_a_pigeons_and_ten_newton_cannot_swing_it():
    """Why the shoulder muscles are not the paper's ~10 N (docs/musculoskeletal.md).
    (1) The wing's moment of inertia about the flapping axis (flapping_inertia) is a
    pigeon's: van den Berg & Rayner 1995 (J. Exp. Biol. 198:1655, Table 3, birds) I =
    0.00194 m_b^1.953 = 3.2e-4 kg m^2 at m_b = 0.4 kg; their birds scatter about that
    regression by up to ~1.6x (their Fig. 6, underwater fliers aside): ours within 1.5x.
    (2) Turning it through the bird's dorsoventral range (BIRD_RANGES, 105 deg) within our
    downstroke (55 % of 1/8 s) from rest to rest needs at least tau = 4 I phi / T^2
    (stroke_torque; inertia only) ~0.5 N m: 10 N at the pectoralis's largest moment arm over
    that range (17 mm) gives a third of it, the default force more than it."""
    scene, info = build_wing(barbs=SMALL)
    inertia = W.flapping_inertia(scene)
    pigeon = 0.00194 * 0.4 ** 1.953
    assert pigeon / 1.5 < inertia < 1.5 * pigeon, (inertia, pigeon)
    low, high = W.BIRD_RANGES["dorsoventral"]
    need = W.stroke_torque(inertia, high - low, 0.55 / info.frequency)
    arm = max(abs(W.moment_arm("pectoralis", e)) for e in np.linspace(low, high, 106))
    assert 0.015 < arm < 0.020                              # a pigeon's deltopectoral crest
    assert 10.0 * arm < 0.4 * need
    assert W.DEFAULTS["shoulder_force"] * arm > need


def test_flapping_inertia_by_hand():
    """flapping_inertia about x: a uniform rod along y from 0.1 to 0.2 m has rho A (y2^3 -
    y1^3) / 3 (its elements' midpoints: the midpoint rule's error rho A L h^2 / 12, 4e-5
    relative at 100 elements: rtol 1e-4); a cylinder of mass m, length L, radius r along y
    centred at (0, b, c) has m (L^2 / 12 + r^2 / 4) + m (b^2 + c^2) (exact); fixed bodies
    count nothing."""
    rho, radius = 800.0, 0.002
    scene = sm.Scene()
    scene.add_cosserat_rod(name="r", start=(0.0, 0.1, 0.0), direction=(0, 1, 0), normal=(0, 0, 1),
                           length=0.1, n_elems=100, radius=radius, density=rho,
                           youngs_modulus=1e6, shear_modulus=1e6 / 3)
    rod = rho * np.pi * radius ** 2 * (0.2 ** 3 - 0.1 ** 3) / 3.0
    assert W.flapping_inertia(scene) == pytest.approx(rod, rel=1e-4)
    m, L, r, b, c = 0.01, 0.05, 0.004, 0.05, 0.02
    scene.add_cylinder(name="bone", position=(0.0, b, c), direction=(0, 1, 0), normal=(1, 0, 0),
                       radius=r, length=L, mass=m)
    scene.add_box(name="body", position=(0.0, -0.5, 0.0), lengths=(0.1, 0.1, 0.1), mass=1.0,
                  fixed=True)
    bone = m * (L ** 2 / 12 + r ** 2 / 4) + m * (b ** 2 + c ** 2)
    assert W.flapping_inertia(scene) == pytest.approx(rod + bone, rel=1e-4)


def test_moment_arm_and_stroke_torque_by_hand():
    """moment_arm: a muscle from (0, 0, -h) to (0, d, 0) (a vertical line d off the shoulder
    axis at elevation 0) has arm d (depressing: negative), and d cos(a) at elevation a with
    the origin far below (the line stays vertical); stroke_torque: 4 I phi / T^2."""
    saved = W.MUSCLES
    try:
        W.MUSCLES = dict(saved, pectoralis=(("thorax", (0.0, 0.0, -1e6)), ("humerus", (0.0, 0.01, 0.0))))
        assert W.moment_arm("pectoralis", 0.0) == pytest.approx(-0.01, rel=1e-12)
        assert W.moment_arm("pectoralis", 60.0) == pytest.approx(-0.005, rel=1e-6)
    finally:
        W.MUSCLES = saved
    assert W.stroke_torque(2.0, np.degrees(3.0), 0.5) == pytest.approx(4 * 2.0 * 3.0 / 0.25)


def test_bird_deviation_of_known_ranges():
    """bird_deviation: the largest distance of each range's ends from BIRD_RANGES."""
    dv = np.array([-30.0, 0.0, 80.0])          # ends off by 10 and 5
    ap = np.array([0.0, 40.0])                 # excursion 40: off by 15
    elbow = np.array([100.0, 150.0])           # min 10 above 90, max 30 above 120
    assert W.bird_deviation(dv, ap, elbow) == pytest.approx(
        {"dorsoventral": 10.0, "anteroposterior": 15.0, "elbow": 30.0})
    assert W.bird_deviation(np.array([-20.0, 85.0]), np.array([0.0, 25.0]),
                            np.array([60.0, 120.0])) == pytest.approx(
        {"dorsoventral": 0.0, "anteroposterior": 0.0, "elbow": 0.0})


@functools.lru_cache(maxsize=None)
def _wingbeat(barbs, samples=100):
    """Joint angles [deg] (dorsoventral, anteroposterior, elbow), each (n,), of the default
    wing with `barbs` barbs over its wingbeat (after the initiation), and the dorsoventral
    angle's largest value in the initiation (W.run_wingbeat)."""
    time, angles, info = W.run_wingbeat(barbs, samples)
    return angles[time >= info.initiation].T, angles[time < info.initiation, 0].max()


def test_a_small_wing_makes_a_wingbeat():
    """The default wing, small (152 barbs), from the paper's straight, flat start: the
    initiation lifts it above +45 deg, the downstroke carries it below the horizontal, the
    upstroke back above +60 deg by the cycle's end, and the elbow flexes by more than 45 deg
    in the upstroke (the paper's qualitative account of Fig. 4e; measured 2026-12-04 at 152 /
    304 / 608 barbs in docs/musculoskeletal.md: initiation top 69 deg at each, bottom -22 at
    each, end +92 / +94 / +93, elbow down to 86 / 84 / 85). The elbow's stop holds: the
    scapulotriceps extends it onto its 180 deg stop through the downstroke, and it goes at
    most 1 deg past (ELBOW_STOP; measured 0.3 deg; 6.5 deg with the former soft stop)."""
    (dv, ap, elbow), top = _wingbeat(SMALL)
    assert top > 45.0 and dv.min() < 0.0 and dv[-1] > 60.0, (top, dv.min(), dv[-1])
    assert elbow.min() < W.START_ELBOW - 45.0, elbow.min()
    assert W.ELBOW_RANGE[1] - 1.0 < elbow.max() < W.ELBOW_RANGE[1] + 1.0, elbow.max()


def test_with_the_papers_own_activation_the_elbow_flexes_in_the_downstroke():
    """The paper's code pairs the biceps with the pectoralis (wing_paper_activation): driven
    by it, the small wing's elbow leaves its straight start and is below 150 deg when the
    stroke reaches its bottom (measured 2026-12-04: 143.0 deg at 152 barbs), where the default
    EMG schedule (scapulotriceps through the downstroke) has held it on its 180 deg stop and
    is above 170 deg (measured 176.3, the biceps just on); the code's schedule also strokes
    (bottom below +10 deg, the upstroke back above
    +60: measured -0.4 and +79.9) and swings the passive anteroposterior angle within 5 deg of
    the bird's excursion (measured 25.6 against 25)."""
    def elbow_at_bottom(activation):
        time, angles, info = W.run_wingbeat(SMALL, 100, activation=activation)
        dv, ap, elbow = angles[time >= info.initiation].T
        return elbow[np.argmin(dv)], dv, ap

    paper, dv, ap = elbow_at_bottom("paper_code")
    emg, _, _ = elbow_at_bottom("emg")
    assert paper < 150.0 and emg > 170.0, (paper, emg)
    assert dv.min() < 10.0 and dv[-1] > 60.0, (dv.min(), dv[-1])
    assert abs(np.ptp(ap) - W.BIRD_RANGES["anteroposterior"]) < 5.0, np.ptp(ap)


def test_the_wingbeat_is_converged_in_the_barb_count():
    """Halving the barb spacing (152 -> 304 barbs; each barb then stands for half as many real
    ones, barb_properties) moves no end of the three joint angles' ranges over the wingbeat, nor
    the initiation's top, by more than 4 deg (measured 2026-12-04: 2.6 deg at most, the
    elbow's smallest angle; the shoulder's within 1.6 deg, and the 608- and 2,796-barb wings
    within as much of both). Before the barbs sat at their strips'
    middles on a resolved rachis, with skin friction edgewise and the same spin inertia per
    vane area, the stroke's bottom moved by 10 deg (-9.8 to -19.9) and reached -38 at 2,796
    barbs: the tolerance catches that, and allows the ~1-3 deg that the different rounding of
    barbs per feather and the rachis's element lengths leave."""
    (dv1, ap1, el1), top1 = _wingbeat(SMALL)
    (dv2, ap2, el2), top2 = _wingbeat(2 * SMALL)
    ends = lambda dv, ap, el, top: np.array([dv.min(), dv.max(), np.ptp(ap), el.min(),
                                             el.max(), top])
    np.testing.assert_allclose(ends(dv1, ap1, el1, top1), ends(dv2, ap2, el2, top2), atol=4.0)


@pytest.mark.slow
def test_one_wingbeat_against_the_birds_joint_ranges():
    """A 608-barb wing (~20 s), the default otherwise, against a bird's ranges over a
    wingbeat (BIRD_RANGES, Dial et al. 1991: a starling; the pigeon's Fig. 4e curves are not
    in our sources). The paper claims a maximum deviation of ~10 deg, "comparable with
    measurement variations"; asserted with the margin the source allows: dorsoventral ends
    within 15 deg (the source gives the top as "80-90 deg" and the bottom as "about 20 deg":
    5 deg of reading on top of the paper's 10; measured 2026-12-04 -22.0 and +93.4, deviation
    8.4; converged in the barb count, test_the_wingbeat_is_converged_in_the_barb_count), the
    anteroposterior excursion within 10 deg (measured 34.4 against 25). SUPRA_ON was chosen by this comparison (a one-parameter
    fit, its docstring), so this checks the fit, not a prediction. The elbow does not match
    (docs/musculoskeletal.md: the scapulotriceps holds it on its 180 deg stop through the
    downstroke, the starling's is at most 120 deg): asserted is that it flexes past the bird's
    downstroke-start angle (90) in the upstroke (measured 84.5) and extends past its
    mid-downstroke one (120)."""
    (dv, ap, elbow), _ = _wingbeat(608)
    deviation = W.bird_deviation(dv, ap, elbow)
    assert deviation["dorsoventral"] < 15.0, (dv.min(), dv.max(), deviation)
    assert deviation["anteroposterior"] < 10.0, (np.ptp(ap), deviation)
    low, high = W.BIRD_RANGES["elbow"]
    assert elbow.min() < low and elbow.max() > high, (elbow.min(), elbow.max())


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
