"""Counts and numbers in the lines the commands print (softmech.text; issue 31, item 12): no
"wrote 1 files", no "(8.00001 in all)", no "-0 to 64 deg"."""
import math

import pytest

from softmech.text import count, number, plural


@pytest.mark.parametrize("n", [0, 1, 2, 22795])
def test_plural_agrees_with_the_count(n):
    text = plural(n, "file")
    assert text.startswith(f"{n:,} ") and text.endswith("file" if n == 1 else "files")
    assert plural(n, "body", "bodies").endswith("body" if n == 1 else "bodies")


@pytest.mark.parametrize("x, decimals", [(-0.3, 0), (-0.04, 1), (-1e-12, 3), (0.0, 0),
                                         (-0.0, 2), (-0.6, 0), (63.7, 0), (-12.345, 2)])
def test_number_rounds_without_a_negative_zero(x, decimals):
    text = number(x, decimals)
    assert float(text) == round(x, decimals)
    assert not (text.startswith("-") and float(text) == 0.0), text
    assert text.count(".") == (decimals > 0)


def test_number_of_a_non_finite_value():
    assert [number(v) for v in (math.nan, math.inf, -math.inf)] == ["nan", "inf", "-inf"]


@pytest.mark.parametrize("x", [8.00001, 7.99999, 12.0, 7.5, 0.25, 1234.0])
def test_count_is_whole_when_a_float_count_is_one(x):
    text = count(x)
    if abs(x - round(x)) < 1e-3:
        assert text == str(round(x))
    else:
        assert float(text) == float(f"{x:.3g}") and "e" not in text


def test_report_lines_use_them():
    """The underwater robots' summary (cycles = t_end * f, a float) and the wing's angle
    ranges (a minimum just below zero)."""
    from softmech.commands.reports import _WingReport
    from softmech.commands.underwater_report import PoseidronReport

    cycles = 8.00001
    line = PoseidronReport.summary({"frequency": 1.51, "mean_surge_velocity": 0.01,
                                    "cycles": cycles, "volume_change": 1e-6,
                                    "heading_change_deg": 0.0})[0]
    assert f"({round(cycles)} in all)" in line and str(cycles) not in line
    lo, hi = -0.3, 63.8
    line = _WingReport.summary({"rods": 3, "barbs": 1, "dorsoventral_range_deg": [lo, hi],
                                "anteroposterior_range_deg": [lo, hi],
                                "elbow_range_deg": [lo, hi]})[0]
    assert f"dorsoventral 0 to {round(hi)} deg" in line and "-0" not in line


def test_measured_says_not_measured_instead_of_nan():
    import math

    from softmech.text import NOT_MEASURED, measured

    assert measured(0.123456, ".3g", "m/s") == "0.123 m/s"
    assert measured(0.357, "+.1%") == "+35.7%"
    assert measured(math.nan, ".3g", "m/s") == NOT_MEASURED
    assert measured(None, ".3g") == NOT_MEASURED
    assert measured(math.inf, ".3g", missing="not reached") == "not reached"
