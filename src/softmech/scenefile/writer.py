"""Scenario -> TOML: the builder calls that made the scene, the run settings and the template's
parameters, as an editable file (plus a side .npz for large arrays)."""
import os

import numpy as np

from softmech.io import atomic_save_npz, atomic_write_text
from softmech.scenefile.schema import (MATERIAL_FIELDS, SCHEMA_VERSION, TERM_SECTIONS,
                                       TERM_TYPES, term_fields)
from softmech.scenefile.toml_text import dumps as toml_dumps
from softmech.scenefile.values import to_toml

HEADER = """\
# softmech scenario file (schema_version {version}); SI units throughout: m, kg, s, N, Pa, rad.
# Edit and run it with `softmech run {file}`. Each [[rods]] table is a call of
# Scene.add_cosserat_rod (kind = "cosserat_rod") or Scene.add_cosserat_ring, each [[bodies]]
# table one of Scene.add_sphere, add_cylinder, add_box, add_rigid_body, each term table a
# term constructor (type = "GroundContact" is sm.GroundContact(...)); see docs/scenario_files.md.
"""


def scenario_dict(scenario, side_arrays=None):
    """The scenario as a TOML-ready dict (see schema.py); large arrays go to side_arrays."""
    unknown = [t for t in scenario.scene.terms if t.section not in TERM_SECTIONS
               or type(t).__name__ not in TERM_TYPES]
    if unknown:
        raise ValueError(f"term {unknown[0].name!r} ({type(unknown[0]).__name__}) cannot be written "
                         "to a scenario file: not a built-in term type")
    doc = {"schema_version": SCHEMA_VERSION,
           "scene": {"name": scenario.name, "description": scenario.description,
                     "template": scenario.template},
           "run": {k: to_toml(v, f"run.{k}") for k, v in vars(scenario.run).items()
                   # TOML has no null: scheme None is the default; allow_large only when set
                   if v is not None and not (k == "allow_large" and v is False)}}
    if scenario.record is not None:
        doc["record"] = {"every": float(scenario.record.seconds),
                         "fields": list(scenario.record.fields)}
    materials, rods = {}, []
    for rod in scenario.scene.rods:
        rods.append(_rod_table(rod, materials, side_arrays))
    if materials:
        doc["materials"] = materials
    if rods:
        doc["rods"] = rods
    bodies = [_body_table(b, side_arrays)
              for b in scenario.scene.rigid_bodies + scenario.scene.implicit_bodies]
    if bodies:
        doc["bodies"] = bodies
    for section in TERM_SECTIONS:
        tables = [_term_table(t, side_arrays) for t in scenario.scene.terms if t.section == section]
        if tables:
            doc[section] = tables
    if scenario.report:
        doc["report"] = {k: to_toml(v, f"report.{k}") for k, v in scenario.report.items()}
    if scenario.optimize:
        doc["optimize"] = _campaign_table(scenario.optimize, "optimize")
    return doc


def _rod_table(rod, materials, side_arrays):
    """[[rods]] entry of one rod; its material fields become a shared [materials.NAME] table."""
    if rod.builder is None:
        raise ValueError(f"rod {rod.name!r} cannot be written to a scenario file: it was not made "
                         "by Scene.add_cosserat_rod or Scene.add_cosserat_ring")
    kind, call = rod.builder
    table = {"kind": kind}
    material = {}
    for key, value in call.items():
        if value is None:
            continue                                   # TOML has no null: None is the default
        entry = to_toml(value, f"rods.{rod.name}.{key}", side_arrays)
        if key in MATERIAL_FIELDS:
            material[key] = entry
        else:
            table[key] = entry
    if material:
        same = [n for n, m in materials.items() if m == material]
        name = same[0] if same else _free_name(rod.name, materials)
        materials[name] = material
        table["material"] = name
    return table


def _body_table(body, side_arrays):
    """[[bodies]] entry of one rigid body: kind, then its builder's arguments."""
    kind, call = body.builder
    table = {"kind": kind}
    for key, value in call.items():
        if value is not None:
            table[key] = to_toml(value, f"bodies.{body.name}.{key}", side_arrays)
    return table


def _term_table(term, side_arrays):
    """[[section]] entry of one term: type, name, then its constructor arguments."""
    table = {"type": type(term).__name__, "name": term.name}
    defaults = term_fields(type(term))
    for key, value in term.arguments().items():
        if key == "name":
            continue
        if value is None:
            if defaults.get(key) is not None:
                raise ValueError(f"{term.name}.{key} = None cannot be written to a scenario file "
                                 f"(its default is {defaults[key]!r})")
            continue
        table[key] = to_toml(value, f"{term.section}.{term.name}.{key}", side_arrays)
    return table


def _campaign_table(value, key):
    """The [optimize] table as TOML values (its arrays of tables kept as lists of tables)."""
    if isinstance(value, dict):
        return {k: _campaign_table(v, f"{key}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
        return [_campaign_table(v, f"{key}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (list, tuple)) and any(isinstance(v, str) for v in value):
        return [str(v) for v in value]
    return to_toml(value, key)


def _free_name(base, taken):
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


def dumps(scenario):
    """The scenario as TOML text, every array inline (self-contained: results files embed it)."""
    return toml_dumps(scenario_dict(scenario), HEADER.format(version=SCHEMA_VERSION,
                                                             file=f"{scenario.name}.toml"))


def save_scenario(scenario, path):
    """Write the scenario to `path` (.toml), arrays over INLINE_LIMIT numbers to
    `<stem>.arrays.npz` beside it; both atomically. Returns the list of files written."""
    path = os.fspath(path)
    side_arrays = {}
    doc = scenario_dict(scenario, side_arrays)
    files = [path]
    if side_arrays:
        side = os.path.splitext(path)[0] + ".arrays.npz"
        _point_references(doc, os.path.basename(side))
        atomic_save_npz(side, **{k: np.asarray(v) for k, v in side_arrays.items()})
        files.append(side)
    atomic_write_text(path, toml_dumps(doc, HEADER.format(version=SCHEMA_VERSION,
                                                          file=os.path.basename(path))))
    return files


def _point_references(value, side_name):
    """Fill in the side file's name in every {file, key} reference left by to_toml."""
    if isinstance(value, dict):
        if "file" in value and value.get("file") is None:
            value["file"] = side_name
        for v in value.values():
            _point_references(v, side_name)
    elif isinstance(value, list):
        for v in value:
            _point_references(v, side_name)
