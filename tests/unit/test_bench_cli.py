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
    (["--cases", "snake"], "--cases"),
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
