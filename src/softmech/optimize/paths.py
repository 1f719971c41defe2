"""Parameter paths: which field of a scenario a campaign or a sweep changes.

    rods.snake.youngs_modulus       every entry of the rod's per-element Young's modulus
    snake.youngs_modulus            the same (the name of Simulation.params)
    muscle.coefficients[1:5]        entries 1..4 of a term's parameter: four search dimensions
    muscle.wavelength               a term's scalar parameter
    rods.snake.length               a construction argument: the scene is rebuilt per candidate
    rods.snake.n_elems              (integer: the value is rounded)

A path names an owner (a rod, optionally written ``rods.NAME``, or a term by its name) and a
field. Fields that are per-world parameters of the compiled simulation (``Simulation.params``
``'<owner>.<field>'``: materials, radius, rest curvature, muscle and contact parameters, ...) are
written into the parameter arrays of one batched simulation. Any other field of the owner's
table in the scenario file (length, n_elems, start, a term constructor argument that is not a
per-world parameter, ...) is a *construction* field: each candidate's scene is rebuilt from the
scenario with the value substituted, and simulated in a simulation of its own.

An index ``[i]`` or slice ``[a:b]`` (no step; negative indices allowed) selects entries of the
field's flattened per-world array, one search dimension each; without an index every entry is
set to the one value.
"""
import re
from dataclasses import dataclass

import numpy as np

_PATH = re.compile(r"^(?:(?P<rods>rods)\.)?(?P<owner>[A-Za-z_]\w*)\.(?P<field>[A-Za-z_]\w*)"
                   r"(?:\[(?P<index>[^\]]*)\])?$")


@dataclass(frozen=True)
class ParameterPath:
    """A resolved path. key: 'owner.field'; kind: 'world' (per-world parameter) or 'build'
    (construction field); index: None, or the flat entry indices it selects (tuple of ints);
    section: for 'build', the scenario table holding the owner ('rods' or a term section)."""
    text: str
    owner: str
    field: str
    kind: str
    index: tuple = None
    section: str = None

    @property
    def key(self):
        return f"{self.owner}.{self.field}"

    @property
    def size(self):
        """Number of search dimensions: one per selected entry (1 without an index)."""
        return 1 if self.index is None else len(self.index)

    def dimension_names(self):
        """Names of the search dimensions, e.g. ('muscle.coefficients[1]', ...)."""
        if self.index is None:
            return (self.text.split("[")[0],)
        return tuple(f"{self.key}[{i}]" for i in self.index)


def split_path(text, field="path"):
    """(owner, field, index text or None, explicit 'rods.' prefix) of a path; ValueError naming
    `field` when the text is not a path."""
    m = _PATH.match(text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"{field} = {text!r} is not allowed: a parameter path is OWNER.FIELD "
                         "or rods.ROD.FIELD, optionally with [i] or [a:b] (e.g. "
                         "'rods.snake.youngs_modulus', 'muscle.coefficients[1:5]')")
    return m["owner"], m["field"], m["index"], bool(m["rods"])


def resolve_path(text, params, doc, field="path"):
    """ParameterPath of `text` in a scenario: params is Simulation.params of its compiled scene
    ({'owner.field': (1, ...)}), doc the scenario's TOML dict (construction fields). ValueError
    naming the field, the path and what exists."""
    owner, name, index_text, rods_prefix = split_path(text, field)
    rods = {t.get("name", "rod") for t in doc.get("rods", [])}
    if rods_prefix and owner not in rods:
        raise ValueError(f"{field} = {text!r} is not allowed: no rod {owner!r} (rods: "
                         f"{sorted(rods)})")
    key = f"{owner}.{name}"
    if key in params:
        values = np.asarray(params[key])
        index = _index(text, index_text, int(np.prod(values.shape[1:])), field)
        return ParameterPath(text, owner, name, "world", index)
    section, table = _owner_table(doc, owner)
    if table is None:
        owners = sorted({k.split(".")[0] for k in params})
        raise ValueError(f"{field} = {text!r} is not allowed: no rod or term named {owner!r} "
                         f"(rods and terms: {owners})")
    if name in ("name", "type", "kind", "rod", "material") or name not in _construction(section,
                                                                                      table):
        known = sorted(k.split(".", 1)[1] for k in params if k.startswith(owner + "."))
        build = sorted(f for f in _construction(section, table) if f not in
                       ("name", "type", "kind", "rod", "material") and f not in known)
        raise ValueError(f"{field} = {text!r} is not allowed: {owner!r} has no field {name!r} "
                         f"(per-world parameters: {', '.join(known) or 'none'}; construction "
                         f"fields, rebuilt per candidate: {', '.join(build) or 'none'})")
    current = table.get(name)
    size = int(np.size(current)) if current is not None and not isinstance(current, dict) else 1
    index = _index(text, index_text, size, field)
    return ParameterPath(text, owner, name, "build", index, section)


def path_unit(path, doc):
    """Unit of the field a ParameterPath names in scenario dict `doc` (the unit comment of the
    scenario file's field, softmech.scenefile.toml_text), or "" when not known."""
    from softmech.scenefile.toml_text import field_unit

    _, table = _owner_table(doc, path.owner)
    return field_unit(None if table is None else table.get("type"), path.field)


def _owner_table(doc, owner):
    """(section, table) of the rod, body (rigid, discrete rod, shell) or term called `owner` in
    a scenario dict, or (None, None)."""
    from softmech.scenefile.schema import TERM_SECTIONS

    for section in ("rods", "bodies") + TERM_SECTIONS:
        for table in doc.get(section, []):
            if table.get("name") == owner:
                return section, table
    return None, None


def _construction(section, table):
    """Fields that the owner's table may hold (its builder's arguments)."""
    from softmech.scenefile.schema import BODY_KINDS, ROD_KINDS, TERM_TYPES, term_fields

    if section == "rods":
        return ROD_KINDS[table.get("kind", "cosserat_rod")][1]
    if section == "bodies":
        return BODY_KINDS[table["kind"]][1]
    return term_fields(TERM_TYPES[table["type"]])


def _index(text, index_text, size, field):
    """Flat entry indices selected by the text between brackets (None without brackets)."""
    if index_text is None:
        return None
    bad = ValueError(f"{field} = {text!r} is not allowed: the index must be [i] or [a:b] with "
                     f"integers inside the field's {size} entries")
    try:
        if ":" in index_text:
            parts = index_text.split(":")
            if len(parts) != 2:
                raise bad
            a, b = (int(p) if p.strip() else None for p in parts)
            chosen = tuple(range(size))[slice(a, b)]
        else:
            i = int(index_text)
            if not -size <= i < size:
                raise bad
            chosen = (i % size,)
    except ValueError:
        raise bad from None
    if not chosen:
        raise ValueError(f"{field} = {text!r} is not allowed: the index selects no entry (the "
                         f"field has {size})")
    return chosen


def write_world_values(arrays, path, values):
    """Write values (B, path.size) into the per-world array arrays[path.key] (B, ...) in place:
    the selected flat entries, or every entry when the path has no index."""
    arr = arrays[path.key]
    flat = arr.reshape(arr.shape[0], -1)
    if path.index is None:
        flat[:] = values[:, :1]
    else:
        flat[:, list(path.index)] = values
    arrays[path.key] = flat.reshape(arr.shape)


def substitute(doc, path, values):
    """Write one candidate's values (path.size,) into the construction field of the scenario
    dict `doc` (modified in place). Integer fields (n_elems) take the rounded value."""
    _, table = _owner_table(doc, path.owner)
    current = table.get(path.field)
    if path.index is None:
        value = float(values[0])
        if isinstance(current, list):
            value = np.full(np.shape(current), value).tolist()
        elif isinstance(current, int) or path.field == "n_elems":
            value = int(round(value))
        table[path.field] = value
        return
    arr = np.array(current, dtype=float)
    flat = arr.reshape(-1)
    flat[list(path.index)] = values
    table[path.field] = flat.reshape(arr.shape).tolist()
