"""Numbers and counts in the lines that commands print: "1 file" and "3 files", "8 cycles"
rather than "8.00001", "0 to 64 deg" rather than "-0 to 64 deg". One place for these rules, so
that every command writes them the same way."""
import math


def plural(n, noun, nouns=None):
    """'1 file', '3 files', '22,795 datasets': the count with thousands separators and the
    noun in the singular for exactly one (nouns: the plural when it is not noun + 's')."""
    return f"{n:,} {noun if n == 1 else (nouns or noun + 's')}"


def number(x, decimals=0):
    """x rounded to `decimals` decimals, as text without a negative zero ('-0' -> '0', '-0.0'
    -> '0.0'); NaN and inf as 'nan', 'inf', '-inf'."""
    x = float(x)
    if not math.isfinite(x):
        return str(x)
    text = f"{x:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def count(x, tolerance=1e-3):
    """A count measured as a float (cycles in a run: t_end * f): the whole number when x is
    within `tolerance` of it ('8' for 8.00001), else x with three significant digits ('7.5')."""
    x = float(x)
    if math.isfinite(x) and abs(x - round(x)) <= tolerance:
        return f"{round(x):d}"
    return f"{x:.3g}"


NOT_MEASURED = "not measured"
"""What a summary prints for a value a short run could not measure (NaN)."""


def measured(x, spec, unit="", missing=NOT_MEASURED):
    """x formatted with `spec` (e.g. '.4g', '+.1%') and followed by its unit, or `missing` when
    x is None, NaN or infinite: a summary of a run too short for a value says so instead of
    printing 'nan m/s'."""
    if x is None or not math.isfinite(float(x)):
        return missing
    return format(float(x), spec) + (f" {unit}" if unit else "")
