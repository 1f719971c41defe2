"""`softmech bench`: output structure, option errors, and that softmech's benchmark problems are
the same discrete rods as the PyElastica peer harness (benchmarks/peer_pyelastica.py).

No timing is asserted (machines are noisy); only structure and problem definitions.
"""
import json
import math

import numpy as np
import pytest

from softmech import bench
from softmech.cli import COMMANDS
from softmech.scenarios.snake import OPTIMAL_GAIT, TABLE2

ROW_KEYS = {"case", "n", "B", "us_per_rod_step", "peer_us_per_rod_step", "ratio"}


def test_cli_maps_bench_command_to_module():
    assert COMMANDS["bench"][0] == "softmech.bench"


def test_quick_json_run_has_documented_row_structure(capsys):
    rc = bench.main(["--cases", "free_rod", "--sizes", "50", "--worlds", "1", "--quick",
                     "--no-peer", "--json", "--seconds", "0.05"])
    out = capsys.readouterr().out
    assert rc == 0
    rows = json.loads(out)  # stdout must be pure JSON (progress goes to stderr)
    assert isinstance(rows, list) and len(rows) == 1
    row = rows[0]
    assert set(row) == ROW_KEYS
    assert (row["case"], row["n"], row["B"]) == ("free_rod", 50, 1)
    assert isinstance(row["us_per_rod_step"], float)
    assert math.isfinite(row["us_per_rod_step"]) and row["us_per_rod_step"] > 0
    assert row["peer_us_per_rod_step"] is None and row["ratio"] is None


def test_one_row_per_case_size_and_batch_in_order(capsys):
    rc = bench.main(["--cases", "free_rod,cantilever", "--sizes", "4,6", "--worlds", "1,2",
                     "--no-peer", "--json", "--seconds", "0.01", "--repeats", "1"])
    assert rc == 0
    rows = json.loads(capsys.readouterr().out)
    got = [(r["case"], r["n"], r["B"]) for r in rows]
    want = [(c, n, b) for c in ("free_rod", "cantilever") for n in (4, 6) for b in (1, 2)]
    assert got == want


@pytest.mark.parametrize("argv, field", [
    (["--cases", "worm"], "--cases"),
    (["--sizes", "50,x"], "--sizes"),
    (["--sizes", "1"], "--sizes"),
    (["--worlds", "0"], "--worlds"),
    (["--seconds", "-1"], "--seconds"),
    (["--repeats", "0"], "--repeats"),
])
def test_bad_options_exit_2_naming_the_option(argv, field, capsys):
    assert bench.main(argv + ["--no-peer", "--json"]) == 2
    captured = capsys.readouterr()
    assert field in captured.err and "not allowed" in captured.err
    assert captured.out == ""  # rejected before any timing


def test_snake_defaults_to_table2_resolution_only(capsys):
    """Without --sizes the snake is timed at Table 2's n = 50 only (its dt is Table 2's)."""
    rc = bench.main(["--cases", "snake", "--worlds", "1", "--no-peer", "--json", "--seconds",
                     "0.01", "--repeats", "1"])
    assert rc == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["case"], r["n"], r["B"]) for r in rows] == [("snake", 50, 1)]
    assert math.isfinite(rows[0]["us_per_rod_step"]) and rows[0]["us_per_rod_step"] > 0
    assert bench.case_dt("snake", 50) == TABLE2["dt"]


def test_default_sizes_are_per_case(monkeypatch, capsys):
    """No --sizes: every rod case at n = 50, 100, 500 and the snake at n = 50 only, B = 1, 16 (the
    timing itself is replaced by a stub: this checks which configurations are run)."""
    calls = []

    def fake_time(case, n, b, **kwargs):
        calls.append((case, n, b))
        return 1.0

    monkeypatch.setattr(bench, "time_softmech", fake_time)
    assert bench.main(["--no-peer", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    want = [(c, n, b) for c in ("cantilever", "free_rod") for n in (50, 100, 500) for b in (1, 16)]
    want += [("snake", 50, 1), ("snake", 50, 16)]
    assert calls == want
    assert [(r["case"], r["n"], r["B"]) for r in rows] == want


def test_missing_peer_harness_is_reported_not_raised(tmp_path):
    peer, reason = bench.load_peer(tmp_path / "no_such_file.py")
    assert peer is None and "not found" in reason


@pytest.mark.parametrize("case", bench.CASES)
def test_problems_match_the_peer_harness(case):
    """Same dt, node positions, frames, radius, density and stiffness as PyElastica's rods.

    PyElastica stores S = diag(alpha_c G A, alpha_c G A, E A) per element (shear_matrix,
    (3, 3, n)) and director_collection as (3, 3, n) with rows d1, d2, d3; tolerance 1e-9
    relative: both sides compute the same closed-form values in float64 (PyElastica's
    E A / A differs from E by ~1e-14 relative from rounding).
    """
    pytest.importorskip("elastica")
    peer, reason = bench.load_peer()
    if peer is None:
        pytest.skip(reason)
    n = 12
    _, peer_rods, peer_dt = peer.build_simulator(case, n, 1)
    theirs = peer_rods[0]
    ours = bench.build_scene(case, n).rods[0]
    assert bench.case_dt(case, n) == peer_dt
    for size in (50, 100, 500):
        assert bench.case_dt(case, size) == peer.case_dt(case, size)
    np.testing.assert_allclose(ours.positions, theirs.position_collection.T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.directors, np.moveaxis(theirs.director_collection, 2, 0),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.radius, theirs.radius, rtol=1e-12)
    np.testing.assert_allclose(ours.density, theirs.density, rtol=1e-12)
    area = np.pi * ours.radius**2
    s = theirs.shear_matrix
    np.testing.assert_allclose(ours.youngs_modulus * area, s[2, 2], rtol=1e-9)
    np.testing.assert_allclose(ours.shear_coefficient * ours.shear_modulus * area, s[0, 0], rtol=1e-9)
    np.testing.assert_allclose(ours.shear_coefficient * ours.shear_modulus * area, s[1, 1], rtol=1e-9)


# ------------------------------------------------------------------------------- the snake pair
def _peer_or_skip():
    pytest.importorskip("elastica")
    peer, reason = bench.load_peer()
    if peer is None:
        pytest.skip(reason)
    return peer


def test_peer_snake_uses_table2_and_the_optimal_gait():
    """The peer repeats Table 2 (it needs nothing but elastica): its numbers must be softmech's
    (softmech.scenarios.snake.TABLE2 / OPTIMAL_GAIT). Exact equality up to 1e-15 relative: the
    same decimal constants and products in float64."""
    peer = _peer_or_skip()
    c = peer.SNAKE
    for key in ("length", "radius", "density", "youngs_modulus", "shear_modulus", "gravity",
                "wall_stiffness", "wall_damping", "slip_velocity", "period", "damping"):
        assert c[key] == pytest.approx(TABLE2[key], rel=1e-15), key
    np.testing.assert_allclose(c["kinetic"], TABLE2["kinetic"], rtol=1e-15)
    np.testing.assert_allclose(c["static"], TABLE2["static"], rtol=1e-15)
    np.testing.assert_allclose(c["coefficients"], OPTIMAL_GAIT["coefficients"], rtol=0)
    assert c["wavelength"] == OPTIMAL_GAIT["wavelength"]


def test_snake_muscle_torques_equal_pyelastica_muscle_torques():
    """softmech's MuscleTorqueWave and PyElastica's MuscleTorques (with_spline=True) apply the
    same couples: A(s, t) = beta(s) sin(2 pi t / T - 2 pi s / lambda) about d1 at the interior
    nodes, s from the head (last node), +A on the element after the node and -A before it
    (Gazzola et al. 2018 eq. 4.11 with the handout's corrected sign). PyElastica's couples are
    read from its external_torques (local frame) at t = 0.37 s after the ramp (ramp_up_time
    1e-12 s); softmech's from the element angular accelerations times J = rho I1 l_hat of the
    straight rod at rest (no other load; angular velocity 0, so no gyroscopic term), with the
    time entering through the phase 2 pi t / T at t = 0 and no ramp. Tolerance 1e-9 relative to
    the largest couple: float64 rounding of sin and of the B-spline (both scipy) only."""
    peer = _peer_or_skip()
    import elastica as ea

    import softmech as sm
    from softmech.bodies.cosserat_rod import section_properties

    n, t = 12, 0.37
    gait = OPTIMAL_GAIT
    _, rods, _ = peer.build_simulator("snake", n, 1)
    theirs = rods[0]
    muscle = ea.MuscleTorques(
        base_length=TABLE2["length"], b_coeff=np.array(gait["coefficients"]),
        period=TABLE2["period"], wave_number=2 * np.pi / gait["wavelength"], phase_shift=0.0,
        direction=np.array([0.0, 0.0, 1.0]), rest_lengths=theirs.rest_lengths,
        ramp_up_time=1e-12, with_spline=True)
    theirs.external_torques[:] = 0.0
    muscle.apply_torques(theirs, np.float64(t))

    scene = sm.Scene()
    rod = scene.add_cosserat_rod(
        name="snake", start=(0, 0, TABLE2["radius"]), direction=(1, 0, 0), normal=(0, 0, 1),
        length=TABLE2["length"], n_elems=n, radius=TABLE2["radius"], density=TABLE2["density"],
        youngs_modulus=TABLE2["youngs_modulus"], shear_modulus=TABLE2["shear_modulus"])
    scene.add(sm.MuscleTorqueWave(rod, gait["coefficients"], wavelength=gait["wavelength"],
                                  period=TABLE2["period"], phase=2 * np.pi * t / TABLE2["period"],
                                  ramp_time=0.0))
    _, alpha = scene.compile(worlds=1, dt=TABLE2["dt"]).accelerations()
    inertia = section_properties(np.full(n, TABLE2["radius"]))[1]
    ours = alpha[0] * (TABLE2["density"] * inertia * rod.rest_lengths[:, None])
    scale = np.abs(theirs.external_torques).max()
    assert scale > 1.0  # the wave is on (couples of order N m)
    np.testing.assert_allclose(ours, theirs.external_torques.T, rtol=0, atol=1e-9 * scale)


def test_snake_damping_rates_equal_pyelastica_damper_rates():
    """The peer's AnalyticalLinearDamper (benchmarks/peer_pyelastica.py, snake_damping_kwargs)
    decays node and element velocities at the rates of softmech's LinearDamping(gamma,
    rotational_coefficient=gamma): softmech's accelerations are a = -gamma dl v / (rho A dl)
    and alpha = -gamma l_hat w / (rho I l_hat) (handout, damping per unit length), PyElastica
    multiplies v by exp(-rate dt) per step, so rate = -log(factor) / dt must equal -a / v and
    -alpha / w (straight rod at rest, w along d1: no gyroscopic term). Tolerance 1e-9 relative:
    the log of a factor 1 - 6e-5 loses ~1e-12 relative."""
    peer = _peer_or_skip()
    import elastica as ea

    n, gamma = 12, TABLE2["damping"]
    _, rods, dt = peer.build_simulator("snake", n, 1)
    damper = ea.AnalyticalLinearDamper(time_step=dt, _system=rods[0],
                                       **peer.snake_damping_kwargs(rods[0]))
    rate_v = -np.log(damper._translational_damping_coefficient) / dt          # (n+1,)
    rate_w = -np.log(damper._rotational_damping_coefficient[0]) / dt          # about d1, (n,)

    import softmech as sm
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(
        name="snake", start=(0, 0, TABLE2["radius"]), direction=(1, 0, 0), normal=(0, 0, 1),
        length=TABLE2["length"], n_elems=n, radius=TABLE2["radius"], density=TABLE2["density"],
        youngs_modulus=TABLE2["youngs_modulus"], shear_modulus=TABLE2["shear_modulus"])
    scene.add(sm.LinearDamping(rod, gamma, rotational_coefficient=gamma))
    sim = scene.compile(worlds=1, dt=dt)
    v0, w0 = 0.1, 0.2
    velocities = np.zeros((1, n + 1, 3))
    velocities[..., 1] = v0
    omegas = np.zeros((1, n, 3))
    omegas[..., 0] = w0
    sim.set_state(velocities=velocities, angular_velocities=omegas)
    acc, alpha = sim.accelerations()
    np.testing.assert_allclose(rate_v, -acc[0, :, 1] / v0, rtol=1e-9)
    np.testing.assert_allclose(rate_w, -alpha[0, :, 0] / w0, rtol=1e-9)


def test_peer_steps_a_batch_of_snakes_on_the_ground():
    """The peer harness runs B = 2 snakes in one simulator (one shared plane) and they stay on
    the ground: after 2000 steps (50 ms) every node's height is within 1 % of r of the resting
    height r (gravity is balanced by the wall's -F_perp response; the muscles are still ramping
    up; in free fall the rod would have dropped g t^2 / 2 = 12 mm, half its radius), and the
    timing is a positive number."""
    peer = _peer_or_skip()
    us = peer.time_pyelastica("snake", 10, 2, 100, warmup_steps=100)
    assert math.isfinite(us) and us > 0
    import elastica as ea

    sim, rods, dt = peer.build_simulator("snake", 10, 2)
    stepper, t = ea.PositionVerlet(), np.float64(0.0)
    for _ in range(2000):
        t = stepper.step(sim, t, np.float64(dt))
    for rod in rods:
        np.testing.assert_allclose(rod.position_collection[2], TABLE2["radius"], rtol=1e-2)
