"""TOML text of a scenario dict, laid out for people to edit: plain [tables] and [[arrays of
tables]] in the order given, short arrays on one line, one row per line for 2-D arrays, and the
unit of each known field as a comment. (tomllib reads it back; tomli_w's layout puts every number
of a vector on its own line and some tables inline.)"""
import json
import math
import re

UNITS = {
    "dt": "s", "duration": "s", "every": "s", "length": "m", "radius": "m", "ring_radius": "m",
    "start": "m", "center": "m", "centerline": "m", "density": "kg/m^3", "youngs_modulus": "Pa",
    "shear_modulus": "Pa", "acceleration": "m/s^2", "force": "N", "couple": "N m",
    "force_per_length": "N/m", "couple_per_length": "N m/m", "ramp_time": "s", "frequency": "Hz",
    "phase": "rad", "displacement": "m", "retardation_time": "s", "stiffness": "N/m",
    "plane_point": "m", "surface_tolerance": "m", "slip_velocity": "m/s", "wavelength": "m",
    "period": "s", "lever_arm": "m", "rest_curvature": "1/m",
    "rest_lengths": "m", "reference_speed": "m/s",
    "velocities": "m/s", "angular_velocities": "rad/s", "beta_bound": "N m",
    "wavelength_range": "m", "window": "muscle periods", "figure_periods": "muscle periods",
}
"""Field name -> unit written as a comment (fields whose unit depends on the table are below)."""

TABLE_UNITS = {
    ("LinearDamping", "coefficient"): "kg/(m s) on a rod, N s/m on a rigid body",
    ("LinearDamping", "rotational_coefficient"): "kg m/s on a rod, N m s on a rigid body",
    ("GroundContact", "damping"): "kg/s", ("RodContact", "damping"): "kg/s",
    ("MuscleTorqueWave", "coefficients"): "N m",
    ("MuscleTorqueWave", "phase"): "rad", ("MusclePairs", "groups"):
    "rows (start, length [vertebrae], force [N], phase [periods])",
    ("objective", "window"): "s", ("objective", "every"): "s",
}

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_LINE = 96


def dumps(doc, header=""):
    """TOML text of `doc`: top-level values, then tables and arrays of tables."""
    lines = [header.rstrip("\n"), ""] if header else []
    lines += [_assignment(k, v, None) for k, v in doc.items() if not _is_table(v)
              and not _is_table_array(v)]
    for key, value in doc.items():
        if _is_table(value):
            _table(lines, [key], value, array=False)
        elif _is_table_array(value):
            for entry in value:
                _table(lines, [key], entry, array=True)
    return "\n".join(lines) + "\n"


def _is_table(v):
    return isinstance(v, dict)


def _is_table_array(v):
    return isinstance(v, list) and bool(v) and all(isinstance(e, dict) for e in v)


def _table(lines, path, table, array):
    scalars = {k: v for k, v in table.items() if not _is_table(v) or _is_reference(v)}
    if scalars or array:
        name = ".".join(_key(p) for p in path)
        lines += ["", f"[[{name}]]" if array else f"[{name}]"]
        kind = table.get("type") or ("objective" if "quantity" in table else None)
        lines += [_assignment(k, v, kind) for k, v in scalars.items()]
    for key, value in table.items():
        if _is_table(value) and not _is_reference(value):
            _table(lines, path + [key], value, array=False)


def _is_reference(v):
    """Side-file references {file, key} are written inline."""
    return isinstance(v, dict) and "file" in v and set(v) <= {"file", "key"}


def _assignment(key, value, kind):
    text = f"{_key(key)} = {_value(value, len(_key(key)) + 3)}"
    unit = field_unit(kind, key)
    if not unit or isinstance(value, (str, bool)):
        return text
    if "\n" in text:
        return f"# {key} [{unit}]\n{text}"
    return f"{text}  # [{unit}]"


def field_unit(kind, key):
    """Unit of field `key` of a table of type `kind` (a term's class name; None for a rod or a
    body), as the scenario files' unit comments give it; "" when not known."""
    return TABLE_UNITS.get((kind, key), UNITS.get(key)) or ""


def _key(key):
    return key if _BARE_KEY.match(key) else json.dumps(key)


def _value(v, indent=0):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=True).replace("\x7f", "\\u007f")
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        items = [_value(x) for x in v]
        one_line = "[" + ", ".join(items) + "]"
        if any(isinstance(x, list) for x in v):          # 2-D: one row per line
            return "[\n" + "".join(f"    {item},\n" for item in items) + "]"
        if indent + len(one_line) <= _LINE:
            return one_line
        rows, row = [], ""
        for item in items:                                 # long 1-D: wrapped
            if row and len(row) + len(item) + 2 > _LINE - 4:
                rows.append(row)
                row = ""
            row += item + ", "
        rows.append(row)
        return "[\n" + "".join(f"    {r.rstrip()}\n" for r in rows) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")
