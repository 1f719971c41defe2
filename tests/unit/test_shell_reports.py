"""The headline figures of `softmech run manta / parachute / pneunet`
(softmech.commands.discrete_reports): each measure checked on data whose answer is known, the
parachute's terminal speed against its closed form, and one short run through the CLI."""
import json

import numpy as np
import pytest

from softmech.commands.discrete_reports import MantaReport, ParachuteReport, PneunetReport
from softmech.scenarios.shells import PARACHUTE, ParachuteInfo, build_parachute, parachute_info
from softmech.scenarios.templates import GenericInfo


def test_manta_speed_and_flapping_of_a_known_motion():
    """A sheet translating at v along +y whose wingtips move as A sin(2 pi t) about its centre:
    forward speed v (second half), amplitude A, no sideways drift."""
    t = np.linspace(0.0, 4.0, 401)
    v, a = 0.03, 0.02
    x0 = np.array([[-0.15, 0.15, 0.0], [0.0, 0.0, 0.0], [0.15, 0.15, 0.0], [0.0, 0.3, 0.0]])
    pos = np.repeat(x0[None], len(t), axis=0)
    pos[:, :, 1] += v * t[:, None]
    pos[:, [0, 2], 2] = a * np.sin(2 * np.pi * t)[:, None]
    com = pos.mean(axis=1)
    data = {"time": t, "manta.positions": pos[None], "manta.com": com[None]}
    m = MantaReport.derive(data, GenericInfo("manta", 1, 0.01, 4.0, 4))
    assert m["forward_speed"] == pytest.approx(v, rel=1e-12)
    # the tips' height above the centre of mass: A sin - (2 A sin) / 4 = A/2 sin
    assert m["flapping_amplitude"] == pytest.approx(a / 2, rel=1e-3)
    assert m["sideways_drift"] == 0.0


def test_pneunet_curl_of_a_polygon_with_known_turning():
    """A polyline turning by the same angle at each of its 5 inner nodes: the angle between its
    first and last edges is 5 times that."""
    turn = np.radians(12.0)
    angles = turn * np.arange(6)
    x = np.concatenate([[[0.0, 0.0, 0.0]], np.cumsum(np.stack(
        [np.cos(angles), np.zeros(6), np.sin(angles)], axis=1), axis=0)])
    assert PneunetReport.curl(x[None])[0] == pytest.approx(60.0, abs=1e-9)


def test_parachute_terminal_speed_and_falling_mass():
    """parachute_info: the falling mass is the canopy's rho h A (regular hexagon, A = 3 sqrt(3)
    s^2 / 2) + six ropes' rho pi r^2 l (l from a corner to the payload) + the payload; the
    terminal speed sqrt(2 m g / (rho_air C_d A)) of the flat canopy."""
    p = PARACHUTE
    scene, info = build_parachute()
    run = info
    pi = parachute_info(scene, run, {"rod": "canopy"})
    area = 1.5 * np.sqrt(3.0) * p["side"] ** 2
    rope = np.hypot(p["side"], p["rope_length"])
    mass = (p["density"] * p["thickness"] * area + 6 * p["density"] * np.pi * p["rope_radius"] ** 2
            * rope + p["payload"])
    assert pi.falling_mass == pytest.approx(mass, rel=1e-12)
    assert pi.drag_area == pytest.approx(p["drag_coefficient"] * area, rel=1e-12)
    assert pi.terminal_speed == pytest.approx(
        np.sqrt(2 * mass * 9.81 / (p["air_density"] * p["drag_coefficient"] * area)), rel=1e-12)
    assert pi.payload == ("rope0", p["rope_elems"])
    t = np.linspace(0.0, 1.0, 101)
    z = 10.0 - 0.5 * 9.81 * t ** 2                      # free fall: g t exactly (quadratic z)
    x = np.zeros((1, len(t), p["rope_elems"] + 1, 3))
    x[0, :, -1, 2] = z
    m = ParachuteReport.derive({"time": t, "rope0.positions": x}, pi)
    assert m["fall_speed"] == pytest.approx(m["free_fall_speed"], rel=1e-9)
    sparse = ParachuteInfo(**{**vars(pi)})
    assert sparse == pi
    with pytest.raises(ValueError, match="template = 'parachute' is not allowed"):
        import softmech as sm
        bare = sm.Scene()
        bare.add_shell(name="s", mesh=__import__("softmech.bodies.meshes", fromlist=["x"]).hexagon(
            0.5, 1), thickness=1e-3, youngs_modulus=1e6, density=1000.0)
        parachute_info(bare, run, {})


def test_softmech_run_parachute_prints_its_fall_beside_free_fall(tmp_path, capsys):
    """A 1 s run through the CLI (the fall parts from free fall at ~0.35 s, fall_speed.png): the JSON has
    the fall speed, free fall's g t and the terminal speed; the fall-speed figure is written;
    the fall is much slower than free fall by then (measured 4.9 against 9.81 m/s; asserted:
    below 3/4 of it)."""
    from softmech import cli

    assert cli.main(["run", "parachute", "--duration", "1", "--output", str(tmp_path),
                     "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["free_fall_speed"] == pytest.approx(9.81, rel=1e-9)
    assert 0 < out["fall_speed"] < 0.75 * out["free_fall_speed"]
    assert out["terminal_speed"] == pytest.approx(3.466, rel=1e-3)
    assert (tmp_path / "fall_speed.png").exists()
