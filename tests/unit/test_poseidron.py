"""The PoseiDRONE scene (softmech.scenarios.poseidron): its parameters from Tables 1-2,
`softmech run poseidron` writing its plots and video, and the shell terms' argument checks."""
import argparse
import json
import os

import numpy as np
import pytest

import softmech as sm
from softmech.bodies.axisym_shell import mantle_profile, meridian_rod
from softmech.commands import run
from softmech.scenarios.poseidron import TABLE1_SHELL, TABLE2_ROOT, build_poseidron, root_inertia
from softmech.scenarios.quadropus import build_monopus, cone_inertia


def test_geometry_and_masses_follow_tables_1_and_2():
    """Mantle: L_s = T_s pi/4 + 94 mm = 118 mm (section 6.1, 1e-3 m: the paper rounds), its
    ring mass 2 pi r rho h per length summed (1e-12: the meridian rod's section carries it);
    root: four 51 g bars (204 g); arms 245 mm."""
    r, z = mantle_profile(n_elems=40)
    L = np.sum(np.hypot(np.diff(r), np.diff(z)))
    assert L == pytest.approx(0.031 * np.pi / 4 + 0.094, rel=1e-3)
    assert L == pytest.approx(0.118, abs=1e-3)
    scene, info = build_poseidron(n_elems=20, duration=0.1)
    mantle = next(rod for rod in scene.rods if rod.name == "mantle")
    mass = np.sum(mantle.density * mantle.section["area"] * mantle.rest_lengths)
    rr = np.linalg.norm(np.cross(mantle.positions - np.array(info.origin), info.axis), axis=1)
    ring = np.sum(2 * np.pi * 0.5 * (rr[1:] + rr[:-1]) * TABLE1_SHELL["density"]
                  * TABLE1_SHELL["thickness"] * mantle.rest_lengths)
    assert mantle.n_elems == 20 and mass == pytest.approx(ring, rel=1e-12)
    assert np.all(mantle.density == TABLE1_SHELL["density"])   # the material's, not an effective one
    root = scene.rigid_bodies[0]
    assert root.mass == pytest.approx(4 * TABLE2_ROOT["bar_mass"])
    _, inertia = root_inertia()
    assert np.allclose(inertia, inertia.T) and np.all(np.linalg.eigvalsh(inertia) > 0)
    arms = [rod for rod in scene.rods if rod.name.startswith("arm")]
    assert len(arms) == 4 and all(arm.length == pytest.approx(0.245) for arm in arms)


def test_run_poseidron_swims_forward_and_writes_plots_and_video(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    run.add_arguments(parser)
    args = parser.parse_args(["poseidron", "--output", str(tmp_path), "--json", "--quiet",
                              "--duration", "0.8", "--n-elems", "20"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["mean_surge_velocity"] > 0           # jetting pushes it forward (+x)
    assert summary["volume_change"] > 1e-6               # the mantle pulses (> 1 cm^3)
    # pitch and lift held as in the paper's experiment (section 6.1): the heading stays
    assert summary["heading_change_deg"] < 1e-9
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "surge.png", "energy.png"} <= names
    assert any(n.endswith((".mp4", ".gif")) for n in names)
    # the still and video draw the mantle as its surface of revolution about the axis the root
    # carries, from what the results file holds (its /rods/mantle revolution_* attributes): at
    # every sample each ring of the drawn surface has its meridian node's radius and height
    # (round-off), and the meridian itself is not drawn as a tube
    from softmech.viz.source import bodies_at, read_results
    from softmech.viz.underwater import axis_track, revolve_shells

    info = build_poseidron(n_elems=20, duration=0.8)[1]
    data = read_results(tmp_path / "results.h5")
    assert set(data.revolutions) == {"mantle"} and data.revolutions["mantle"]["body"] == "root"
    shown = revolve_shells(data)
    assert revolve_shells(shown).rods == shown.rods            # drawn once, not twice
    sample = len(data.time) // 2
    drawn = {b.name: b for b in bodies_at(shown, sample)}
    assert "mantle" not in drawn and "mantle_surface" in drawn
    surface = drawn["mantle_surface"].description["vertices"].reshape(24, 21, 3)
    root_x = data.results["root.positions"][0, :, 0]
    root_Q = data.results["root.directors"][0, :, 0]
    a, o = axis_track(root_x, root_Q, info.axis, root_Q[0] @ (np.array(info.origin) - root_x[0]))
    a, o = a[sample], o[sample]

    def radius_height(x):
        rel = x - o
        return np.linalg.norm(rel - np.multiply.outer(rel @ a, a), axis=-1), rel @ a

    r, z = radius_height(data.results["mantle.positions"][0, sample])
    assert np.ptp(r) > 0.005                     # a profile (cap 22 -> 31 mm), not a cylinder
    rs, zs = radius_height(surface)
    np.testing.assert_allclose(rs, np.broadcast_to(r, rs.shape), rtol=1e-12)
    np.testing.assert_allclose(zs, np.broadcast_to(z, zs.shape), rtol=0, atol=1e-12)
    # `softmech render results.h5` draws the same surface: its still differs from the
    # meridian-only picture of the same sample (the tube of the rod, as before the fix)
    import imageio.v3 as iio

    from softmech.commands import render
    from softmech.viz.geometry import View

    parser = argparse.ArgumentParser()
    render.add_arguments(parser)
    out = tmp_path / "render"
    assert render.execute(parser.parse_args([str(tmp_path / "results.h5"), "--output", str(out),
                                             "--json", "--quiet", "--floor", "none"])) == 0
    still = json.loads(capsys.readouterr().out)["files"][0]
    pictures = []
    for folder, drawn_data in (("meridian", data), ("revolved", shown)):
        os.makedirs(tmp_path / folder)
        pictures.append(render.render_still(drawn_data, str(tmp_path / folder), "tubes", 0, None,
                                            View(), None, render.STILL_SIZE + (9, 0.3)))
    meridian_only, revolved = pictures
    a, b, c = (iio.imread(f).astype(float) for f in (still, meridian_only, revolved))
    assert a.shape == b.shape and np.abs(a - b).mean() > 1.0     # the mantle is drawn differently
    assert np.array_equal(a, c)                                   # and as revolve_shells draws it


def test_free_poseidron_pitches_under_its_arms_but_neither_yaws_nor_rolls():
    """Without the paper's hold (hold=False) the root is free in SE(3). The robot is
    mirror-symmetric about its x-z plane (arms 1 and 4, 2 and 3 mirror images; the mantle on
    y = 0), which forbids yaw (about z), roll (about x) and sway (y): they must stay at
    round-off, far below the 0.5 deg of issue 29 (here 1e-3 deg over 1 s; measured ~1e-4 deg
    per second). Pitch is allowed: the arms' drag acts below the thrust line and pitches the
    robot nose-down (about +y), the yaw of 7.1 deg that issue 29 reported (measured 1.3 deg/s
    over 5 s at 1.51 pps; here > 0.2 deg after 1 s)."""
    from scipy.spatial.transform import Rotation

    scene, info = build_poseidron(n_elems=20, duration=1.0, hold=False)
    sim = scene.compile(dt=info.dt, scheme=info.scheme)
    sim.run(info.duration)
    state = sim.get_state("root")
    roll, pitch, yaw = Rotation.from_matrix(state["directors"][0, 0].T).as_rotvec(degrees=True)
    assert abs(roll) < 1e-3 and abs(yaw) < 1e-3
    assert pitch > 0.2
    assert abs(state["positions"][0, 0, 1] - scene.rigid_bodies[0].position[1]) < 1e-6


def test_run_quadropus_writes_plots_video_and_its_power_budget(tmp_path, capsys):
    """The Quadropus (section 7.1) runs through `softmech run` with the same report, which
    records eqs. 26-27's powers and the loads on the root (sm.Recorder) and derives the
    quasi-propulsive efficiency over the whole pulsations after the sculling stroke (from
    t = 3 s: one pulsation, 3.31-3.97 s, in a 4 s run). The efficiency equals the one computed
    from the recorded powers (the report's own arithmetic, checked against the function)."""
    from softmech.resultsfile import load_results
    from softmech.scenarios.underwater_power import quasi_propulsive_efficiency

    parser = argparse.ArgumentParser()
    run.add_arguments(parser)
    args = parser.parse_args(["quadropus", "--output", str(tmp_path), "--json", "--quiet",
                              "--duration", "4.0", "--n-elems", "20"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["mean_surge_velocity"] > 0 and summary["volume_change"] > 1e-6
    names = {os.path.basename(f) for f in summary["files"]}
    assert {"results.h5", "surge.png", "power.png"} <= names
    eta = summary["quasi_propulsive_efficiency"]
    assert 0 < eta < 1 and summary["steady_from"] == pytest.approx(5 / 1.51)
    data = load_results(tmp_path / "results.h5")
    window = (5 / 1.51, 6 / 1.51)
    assert eta == pytest.approx(quasi_propulsive_efficiency(
        data["time"], data["power_out"][0], data["power_in"][0], window), rel=1e-12)
    assert np.all(data["power_out"][0] >= 0)          # drag never drives the robot


def test_monopus_turns_only_when_its_arm_steers(tmp_path, capsys):
    """Section 7.2: bending the rear arm (eq. 28) turns the jetting Monopus; with m_baz = 0 the
    robot is symmetric about its axis and keeps its heading (round-off: < 1e-6 deg)."""
    parser = argparse.ArgumentParser()
    run.add_arguments(parser)
    args = parser.parse_args(["monopus", "--output", str(tmp_path), "--json", "--quiet",
                              "--duration", "2.0", "--n-elems", "20"])
    assert run.execute(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["heading_change_deg"] > 1.0
    # eq. 29 in the report: a turning rate while the arm bends, a finite turning radius
    # (the full run gives median 0.52, smallest 0.14; docs/underwater.md)
    assert summary["length"] == pytest.approx(0.118 + 0.245, abs=1e-3)
    assert summary["peak_turn_rate"] > 0.05 and 0 < summary["turning_radius_min"] < 5
    assert "turning.png" in {os.path.basename(f) for f in summary["files"]}
    scene, info = build_monopus(n_elems=20, duration=2.0, moment=0.0)
    sim = scene.compile(dt=info.dt, scheme=info.scheme)
    sim.run(info.duration)
    Q = sim.get_state("root")["directors"][0, 0]
    a0 = scene.rigid_bodies[0].directors @ np.asarray(info.axis)
    assert np.degrees(np.arccos(min(1.0, Q.T @ a0 @ np.asarray(info.axis)))) < 1e-6


def test_a_shell_without_root_body_revolves_about_its_fixed_axis():
    """revolve_shells on a shell whose axis is fixed in the lab (AxisymmetricShell without a
    body): every ring of the surface keeps its node's radius and height about that axis."""
    from softmech.viz.source import from_results
    from softmech.viz.underwater import revolve_shells

    r, z = np.array([0.01, 0.02, 0.015]), np.array([0.0, 0.01, 0.03])
    axis, origin = np.array([0.0, 1.0, 0.0]), np.array([0.1, 0.0, 0.0])
    x = origin + r[:, None] * np.array([0.0, 0.0, 1.0]) + z[:, None] * axis
    results = sm.Results({"time": np.array([0.0, 1.0]), "m.positions": np.stack([x, x])[None]})
    data = from_results(results, {"m": np.full((1, 2), 1e-3)},
                        revolutions={"m": {"body": None, "axis": axis, "origin": origin}})
    shown = revolve_shells(data, sides=6)
    assert shown.rods == () and shown.meshes["m_surface"]["faces"].shape == (2 * 2 * 6, 3)
    v = shown.results["m_surface.positions"][0, 1].reshape(6, 3, 3) - origin
    np.testing.assert_allclose(v @ axis, np.broadcast_to(z, (6, 3)), atol=1e-15)
    np.testing.assert_allclose(np.linalg.norm(v - np.multiply.outer(v @ axis, axis), axis=-1),
                               np.broadcast_to(r, (6, 3)), rtol=1e-12)


def test_turning_radius_and_rate_of_eq_29():
    """Screw parameters (Murray, Li & Sastry 1994, section 2.3): a body whose reference point
    moves at speed V on a circle of radius rho about the z axis has w = V / rho along z, so
    m = V / rho and r = rho / L; adding a velocity along w (a helix) leaves both unchanged
    (|w x v| takes the part of v normal to w); w = 0 gives r = inf. Round-off tolerance."""
    from softmech.scenarios.poseidron import turning, turning_summary

    V, rho, L = 0.05, 0.12, 0.36
    phase = np.linspace(0, 2 * np.pi, 9)
    v = V * np.stack([-np.sin(phase), np.cos(phase), 0 * phase], axis=1)
    w = np.tile([0.0, 0.0, V / rho], (len(phase), 1))
    for lift in (0.0, 0.03):
        r, m = turning(v + [0.0, 0.0, lift], w, L)
        np.testing.assert_allclose(m, V / rho, rtol=1e-12)
        np.testing.assert_allclose(r, rho / L, rtol=1e-12)
    r, m = turning(v, 0 * w, L)
    assert np.all(np.isinf(r)) and np.all(m == 0)
    assert turning_summary(r, m) == (0.0, np.inf, np.inf)
    m = np.array([0.0, 0.1, 1.0, 0.5, 0.2])
    assert turning_summary(np.array([9.0, 5.0, 1.0, 3.0, 2.0]), m) == (1.0, 2.0, 1.0)   # m >= 1/4
    with pytest.raises(ValueError, match="length"):
        turning(v, w, 0.0)


def test_surface_of_revolution_keeps_each_node_on_its_circle():
    """Each of the `sides` copies of the meridian is turned by 2 pi k / sides about the axis
    (any axis, any point of it): radius from the axis and height along it are the node's,
    consecutive copies are the chord 2 r sin(pi / sides) apart, there are 2 (n - 1) sides
    triangles, their normals point away from the axis whichever way the meridian runs, and
    the triangles tile the surface: the swept area is the sum of frustum side areas of the
    regular polygon (tolerance round-off)."""
    from softmech.viz.underwater import surface_of_revolution

    rng = np.random.default_rng(1)
    a = rng.normal(size=3)
    a /= np.linalg.norm(a)
    e = np.cross(a, [1.0, 0.0, 0.0])
    e /= np.linalg.norm(e)
    o = np.array([0.1, -0.2, 0.3])
    r = np.array([0.02, 0.03, 0.035, 0.03, 0.01])
    z = np.array([0.0, -0.01, -0.03, -0.05, -0.06])
    sides = 12
    for order in (slice(None), slice(None, None, -1)):
        meridian = o + np.outer(r[order], e) + np.outer(z[order], a)
        vertices, faces = surface_of_revolution(meridian, o, a, sides)
        assert vertices.shape == (sides * 5, 3) and faces.shape == (2 * 4 * sides, 3)
        rel = vertices.reshape(sides, 5, 3) - o
        height = rel @ a
        radius = np.linalg.norm(rel - height[..., None] * a, axis=-1)
        np.testing.assert_allclose(radius, np.broadcast_to(r[order], (sides, 5)), rtol=1e-12)
        np.testing.assert_allclose(height, np.broadcast_to(z[order], (sides, 5)), atol=1e-15)
        chord = np.linalg.norm(rel[1] - rel[0], axis=-1)
        np.testing.assert_allclose(chord, 2 * r[order] * np.sin(np.pi / sides), rtol=1e-12)
        p = vertices[faces]
        normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
        c = p.mean(axis=1) - o
        assert np.all(np.sum(normal * (c - np.outer(c @ a, a)), axis=1) > 0)
    area = 0.5 * np.linalg.norm(normal, axis=1).sum()
    # the quads are planar trapezoids: sides x (w1 + w2)/2 x slant height
    w = 2 * r * np.sin(np.pi / sides)
    apothem = r * np.cos(np.pi / sides)
    slant = np.hypot(np.diff(apothem), np.diff(z))
    assert area == pytest.approx(sides * np.sum(0.5 * (w[1:] + w[:-1]) * slant), rel=1e-12)
    with pytest.raises(ValueError, match="sides"):
        surface_of_revolution(meridian, o, a, 2)


def test_cone_inertia_is_the_solid_cone_formula():
    """Solid cone about its centre of mass: I_axis = 3/10 m R^2, I_t = m (3/20 R^2 + 3/80
    h^2) (e.g. Meriam & Kraige, Dynamics, table D/4); check against a Monte-Carlo integral of
    the solid (2e5 points: 1 % statistical tolerance)."""
    m, h, R = 0.204, 0.112, 0.02
    com, inertia = cone_inertia(m, h, R)
    rng = np.random.default_rng(0)
    p = rng.uniform([0, -R, -R], [h, R, R], size=(200_000, 3))
    inside = np.hypot(p[:, 1], p[:, 2]) < R * (1 - p[:, 0] / h)
    q = p[inside] - p[inside].mean(axis=0)
    assert p[inside].mean(axis=0)[0] == pytest.approx(com[0], rel=0.01)
    mc = m * np.array([np.mean(q[:, 1] ** 2 + q[:, 2] ** 2), np.mean(q[:, 0] ** 2 + q[:, 2] ** 2)])
    assert mc == pytest.approx([inertia[0, 0], inertia[1, 1]], rel=0.01)


def test_shell_terms_reject_bad_arguments():
    r, z = mantle_profile(n_elems=10)
    kw = dict(thickness=2e-3, density=1000.0, youngs_modulus=4e4)
    with pytest.raises(ValueError, match="poisson_ratio"):
        meridian_rod("m", r, z, poisson_ratio=0.5, **kw)
    with pytest.raises(ValueError, match="thickness"):
        meridian_rod("m", r, z, **{**kw, "thickness": 0.0})
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(**meridian_rod("m", r, z, **kw))
    shell = dict(thickness=2e-3, youngs_modulus=4e4)
    for bad, match in (({"viscosity": -1.0}, "viscosity"),
                       ({"times": [0.0, 0.0]}, "increasing"),
                       ({"times": [0.0, 1.0], "pressure": [1.0, 2.0, 3.0]}, "pressure"),
                       ({"actuation_interval": (0.05, 0.01)}, "actuation_interval"),
                       ({"clamp_stiffness": -1.0}, "clamp_stiffness")):
        with pytest.raises(ValueError, match=match):
            sm.AxisymmetricShell(rod, **shell, **bad)
    with pytest.raises(ValueError, match="flow_coefficient"):
        sm.PulsedJet(rod, outflow_area=1e-4, inflow_area=1e-4, flow_coefficient=1.5)
    with pytest.raises(ValueError, match="outflow_area"):
        sm.PulsedJet(rod, outflow_area=0.0, inflow_area=1e-4)
    with pytest.raises(ValueError, match="drag_coefficient"):
        sm.MantleDrag(rod, -1.0)
    with pytest.raises(ValueError, match="coefficient"):
        sm.MantleAddedMass(rod, -0.1)
    # a shell whose section does not match its rod's, and a jet without a shell
    scene.add(sm.AxisymmetricShell(rod, thickness=1e-3, youngs_modulus=4e4))
    with pytest.raises(ValueError, match="does not match"):
        scene.compile(dt=1e-5)
    other = sm.Scene()
    bare = other.add_cosserat_rod(**meridian_rod("m", r, z, **kw))
    other.add(sm.PulsedJet(bare, outflow_area=1e-4, inflow_area=1e-4))
    with pytest.raises(ValueError, match="no AxisymmetricShell"):
        other.compile(dt=1e-5)
    other.add(sm.AxisymmetricShell(bare, thickness=2e-3, youngs_modulus=4e4))
    with pytest.raises(ValueError, match="no root body"):   # the thrust would have nowhere to go
        other.compile(dt=1e-5)


@pytest.mark.parametrize("builder", ["poseidron", "quadropus", "monopus"])
def test_the_explicit_default_step_follows_the_grid_and_runs(builder):
    """With an explicit scheme the robots' default dt is EXPLICIT_FRACTION (0.9) of the scene's
    own stability estimate (Scene.time_step_limit), so it follows the grid: a fixed 2e-5 s,
    right for the former coarse grids, diverged on Table 1's (118 / 4 x 49 elements, estimate
    2.24e-6 s with the x100 rotary inertia) in the first 0.01 s. Checked on Table 1's grid
    (the estimate's ratio exactly, a run of 2,000 steps without divergence) and on a coarse one
    (a larger step)."""
    from softmech.scenarios.poseidron import EXPLICIT_FRACTION
    from softmech.scenarios.quadropus import build_quadropus
    build = {"poseidron": build_poseidron, "quadropus": build_quadropus,
             "monopus": build_monopus}[builder]
    scene, info = build(scheme="verlet", duration=0.004)
    limit = float(scene.time_step_limit().min())
    assert info.dt == pytest.approx(EXPLICIT_FRACTION * limit, rel=1e-12)
    sim = scene.compile(dt=info.dt, scheme="verlet")
    sim.step(2000)           # raises SimulationDiverged if the step is unstable
    assert np.isfinite(sim.time) and sim.time == pytest.approx(2000 * info.dt)
    coarse, coarse_info = build(scheme="verlet", duration=0.004, n_elems=30, arm_elems=12)
    assert coarse_info.dt > 5 * info.dt
    assert build(scheme="verlet", dt=1e-6, duration=0.004)[1].dt == 1e-6
