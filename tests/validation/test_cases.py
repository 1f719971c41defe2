"""Validation cases of the Cosserat rod engine (softmech.validation): each case must pass.

Every case's docstring (src/softmech/validation/statics.py, dynamics.py, rings.py, contact.py)
derives its formula, cites its source and justifies its tolerance; CASE_NOTES below summarizes
them so that a failure message says what was checked. Each case takes < 5 s after numba
compilation on one core (friction_standing_wave, the longest, ~4 s), so none is marked slow.
"""
import json
import math

import pytest

from softmech.validation import CASES, RECORD_KEYS
from softmech.validation.statics import CONVERGENCE_N, cantilever_convergence

CASE_NOTES = {
    "ring_breathing_mode":
        "omega = sqrt(E/rho)/R (Love sec. 293; exact for the discrete polygon too); tol 1e-3",
    "ring_flexural_mode":
        "Hoppe omega_2^2 = 7.2 E I/(rho A R^4), 60 elements (0.18 % low, measured); tol 1 %",
    "axial_stretch_gazzola2018":
        "dL = L (1/(1 - F/EA) - 1) (n = EA(e-1)/e; ME498 handout case 1, Gazzola 2018 law); "
        "tol 1e-6 rel: uniform stretch is an exact discrete equilibrium",
    "axial_stretch_hyperelastic":
        "dL = F L / (E A) (n = EA(e-1)); tol 1e-6 rel: exact discrete equilibrium",
    "timoshenko_cantilever":
        "y(L) = -F L/(alpha_c A G) - F L^3/(3 E I), ME498 Table 1, n = 100; tol 1 % "
        "(boundary clamp: second-order discretization error 3.5e-5)",
    "timoshenko_euler_bernoulli":
        "E = 1.5 G = 1e5 Pa, F = 15 N: large deflection (14 % of L), reference = geometrically "
        "exact planar continuum (scipy solve_bvp); tol 1 %",
    "timoshenko_euler_bernoulli_small_load":
        "E = 1.5 G = 1e5 Pa, F = 0.15 N: Timoshenko formula; tol 1 %",
    "timoshenko_convergence":
        "second-order convergence in 1/n against the exact continuum (orders in [1.8, 2.5]), "
        "n = 100 error < 1e-3",
    "precurved_rest":
        "rest_curvature='initial' arc is an exact equilibrium: max displacement < 1e-10 L, "
        "speed < 1e-8 m/s (round-off only)",
    "precurved_return":
        "straight rod with an arc's rest curvature curls into the arc: chord 2 R sin(theta/2) and "
        "Kabsch shape distance; tol 1e-6 (exact discrete equilibrium)",
    "cantilever_first_mode":
        "f1 = (1.8751)^2/(2 pi L^2) sqrt(EI/(rho A)) (Euler-Bernoulli clamped-free); tol 1 % "
        "(discretization ~1/n = 0.5 %, Timoshenko corrections ~1e-4)",
    "energy_conservation_hyperelastic":
        "hyperelastic law is exactly conservative: |dE/E| <= 1e-3 over 1e5 Verlet steps and no "
        "secular growth (last tenth <= 1.5 x first tenth)",
    "energy_conservation_planar_hyperelastic":
        "as above, in-plane motion only (no gyroscopic term)",
    "energy_conservation_gazzola2018":
        "non-variational law: |dE/E| <= 1e-2 ~ max strain x elastic energy share",
    "linear_momentum_conservation":
        "internal forces telescope: |dP|/|P| <= 1e-10 (round-off)",
    "angular_momentum_conservation":
        "continuum conserves L; a second-order scheme conserves it to O(dt^2): <= 1e-3 at 0.5 x "
        "the stability estimate and >= 3x smaller at half dt",
    "dt_convergence_verlet":
        "position Verlet is second order: observed order in [1.8, 2.2]",
    "dt_convergence_verlet_3d":
        "same with bend + twist + spin: order in [1.8, 2.2]",
    "dt_convergence_pefrl":
        "PEFRL (Omelyan et al. 2002) is fourth order: observed order in [3.5, 4.5]",
    "dt_convergence_pefrl_axial":
        "PEFRL fourth order on pure axial vibration (position-only forces): order in [3.5, 4.5]",
    "wall_rest_under_gravity":
        "ME498 sec. 2.2.4 check 1: rod at rest on the ground, total wall force = M g (each node "
        "its weight), stays at rest 0.5 s; tol 1e-9 rel (exact)",
    "wall_interpenetration":
        "ME498 sec. 2.2.4 check 2: no gravity, penetration eps: k_w eps per element, n k_w eps "
        "in total; tol 1e-9 rel (exact)",
    "wall_tangential_velocity":
        "ME498 sec. 2.2.4 check 3: in-plane velocity: wall response -gamma_w v.u = 0; tol 1e-9 "
        "of n gamma_w |v|",
    "wall_normal_velocity":
        "ME498 sec. 2.2.4 check 4: velocity v into the ground: gamma_w v per element; tol 1e-9 "
        "rel (exact)",
    "friction_slope_stick":
        "Amontons-Coulomb: block rod on a slope with mu_k < tan(alpha) = 0.9 mu_s sticks: drift "
        "< v_eps t = 5e-9 m",
    "friction_slope_slide":
        "tan(alpha) = 1.1 mu_s: a = g (sin(alpha) - mu_k cos(alpha)); tol 1e-6 rel (rigid "
        "sliding, exact under Verlet)",
    "friction_axial_push":
        "rod pulled axially: sticks at 0.9 mu_s M g forward and backward (anisotropic mu_s), "
        "slides at 1.1 with a = (F - mu_k M g)/M (tol 1e-6 rel) and growing kinetic energy",
    "friction_standing_wave":
        "symmetric standing-wave actuation, isotropic friction (no rolling): |mean com velocity| "
        "over periods 3-6 < 1e-3 x body speed (mirror + half-period symmetry); anisotropic "
        "friction and a travelling wave drift > 20x that",
}


def test_every_case_is_documented_here():
    assert set(CASE_NOTES) == set(CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_validation_case_passes(name):
    record = CASES[name]()
    assert record["case"] == name
    assert set(record) == set(RECORD_KEYS) | {"detail"}
    assert all(isinstance(record[k], float) for k in ("measured", "reference", "error", "tolerance"))
    assert record["passed"], f"{name} failed [{CASE_NOTES[name]}]: {record['detail']}"


def test_timoshenko_error_decreases_with_n():
    # Tip deflection error of the ME498 Table 1 cantilever against the geometrically exact planar
    # continuum of the same model, n = 12, 25, 50, 100. With the boundary clamp (rotation held at
    # s = 0 by a half Voronoi domain) the discretization is second order: |error| must decrease
    # strictly and each observed order log(e_k/e_k+1)/log(n_k+1/n_k) must lie in [1.8, 2.5]
    # (measured 2.12, 2.01, 2.01).
    _, errors, orders, converged = cantilever_convergence()
    assert converged
    assert all(b < a for a, b in zip(errors, errors[1:])), errors
    assert all(1.8 <= o <= 2.5 for o in orders), orders


def test_element_frame_clamp_is_first_order():
    # PyElastica's clamp (the first element's frame held) acts at s = l/2: first order, with
    # n * error ~ (3/2)(bending share 0.72) = 1.08 (measured 1.10 at n = 100); tolerance 10 %.
    _, errors, orders, converged = cantilever_convergence("element")
    assert converged
    assert all(0.8 < o < 1.2 for o in orders[1:]), orders
    assert math.isclose(CONVERGENCE_N[-1] * abs(errors[-1]), 1.08, rel_tol=0.1), errors[-1]


# ------------------------------------------------------------------------------ command
def _parse(argv):
    import argparse

    from softmech.validation.command import add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_command_json_has_exactly_the_record_keys(capsys):
    from softmech.validation.command import execute

    code = execute(_parse(["--case", "axial_stretch_hyperelastic", "--json"]))
    records = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [r["case"] for r in records] == ["axial_stretch_hyperelastic"]
    assert set(records[0]) == {"group", "case", "measured", "reference", "error", "tolerance",
                               "passed"}
    assert records[0]["group"] == "rods"
    assert records[0]["passed"] is True


def test_command_exit_code_and_table_report_a_failure(capsys, monkeypatch):
    from softmech.validation import command

    def failing():
        return {"case": "failing", "measured": 2.0, "reference": 1.0, "error": 1.0,
                "tolerance": 0.1, "passed": False, "detail": "synthetic"}

    def passing():
        return {"case": "passing", "measured": 1.0, "reference": 1.0, "error": 0.0,
                "tolerance": 0.1, "passed": True, "detail": "synthetic"}

    monkeypatch.setattr(command, "select", lambda groups, fast: [("rods", "failing", failing),
                                                                 ("rods", "passing", passing)])
    assert command.execute(_parse(["--case", "passing"])) == 0
    assert command.execute(_parse(["--case", "passing", "--case", "failing"])) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "PASS" in out and "failed: failing" in out


def test_command_list_names_every_case(capsys):
    from softmech.validation.command import execute

    assert execute(_parse(["--list"])) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in CASES)


def test_command_rejects_unknown_case():
    from softmech.validation.command import execute

    with pytest.raises(ValueError, match="no_such_case"):
        execute(_parse(["--case", "no_such_case"]))


def test_cli_validate_json(capsys):
    from softmech.cli import main

    assert main(["validate", "--case", "precurved_rest", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["case"] == "precurved_rest" and records[0]["passed"] is True
