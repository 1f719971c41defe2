"""Parsed scenario document (a dict, as tomllib returns it) -> Scenario: check every table and
field, build the scene. Every error is a ScenarioError naming the file, the table, the field,
the value and what is allowed.

DocumentReader reads everything but the [optimize] table, whose checks build a campaign (a layer
above this one): softmech.scenefile.reader (load_scenario, loads_scenario, scenario_from_dict)
reads whole files, [optimize] included; softmech.optimize.study rebuilds the scenes of its
candidates from documents without one, through `read_document`."""
import difflib
import inspect

from softmech import _checks
from softmech.scene import Scene
from softmech.scenefile.schema import (FRICTION_FIELDS, MATERIAL_FIELDS, RECORD_FIELDS,
                                       BODY_KINDS, ENGINES, ROD_KINDS, RUN_FIELDS, SCHEMES,
                                       SCENE_FIELDS, SCHEMA_VERSION,
                                       TERM_ALIASES, TERM_SECTIONS, TERM_TYPES, TOP_LEVEL,
                                       RunSettings,
                                       Scenario, term_fields)
from softmech.scenefile.values import ScenarioError, resolve, side_file_path
from softmech.terms.contact import AnisotropicFriction
from softmech.terms.friction import StickingFriction

REQUIRED = inspect.Parameter.empty

PATH_FIELDS = {"mesh"}
"""Builder fields that may hold a file name (a shell's mesh): resolved against the scenario
file's folder, under the same rules as side files (values.side_file_path)."""


def read_document(doc, *, source="<dict>", base_dir=".", allow_outside_files=False):
    """Scenario of a parsed scenario document without an [optimize] table (ScenarioError if it
    has one), checked like a file."""
    return DocumentReader(source, base_dir, allow_outside_files).scenario(doc)


class DocumentReader:
    """Reads a parsed scenario document; source names it in errors, side files are looked up
    relative to base_dir (and must lie inside it unless allow_outside_files)."""

    def __init__(self, source, base_dir, allow_outside_files=False):
        self.source = source
        self.base_dir = base_dir
        self.allow_outside = bool(allow_outside_files)

    def fail(self, where, message):
        raise ScenarioError(f"{self.source}: {where}: {message}")

    # --------------------------------------------------------------------------- the file
    def scenario(self, doc):
        self.check_keys("the file's top level", doc, TOP_LEVEL, kind="table")
        version = doc.get("schema_version")
        if version is None:
            self.fail("the file's top level", f"schema_version is missing: add "
                      f"'schema_version = {SCHEMA_VERSION}' as the first line")
        if version != SCHEMA_VERSION or isinstance(version, bool):
            self.fail("schema_version", f"schema_version = {version!r} is not allowed: this "
                      f"softmech reads schema_version = {SCHEMA_VERSION}")
        head = self.table(doc, "scene", SCENE_FIELDS, required=False)
        for key in ("name", "description", "template"):
            if not isinstance(head[key], str):
                self.fail(f"[scene] {key}", f"{key} = {head[key]!r} is not allowed: must be a string")
        from softmech.scenarios import TEMPLATES

        if head["template"] not in TEMPLATES:
            self.fail("[scene] template", f"template = {head['template']!r} is not allowed: must "
                      f"be one of {sorted(TEMPLATES)}")
        run = self.run_settings(self.table(doc, "run", RUN_FIELDS))
        record = self.record(doc)
        scene = Scene()
        materials = self.materials(doc.get("materials", {}))
        rods = self.array_of_tables(doc, "rods")
        bodies = self.array_of_tables(doc, "bodies")
        if not rods and not bodies:
            self.fail("[[rods]]", "the scene has no bodies: add at least one [[rods]] or "
                      "[[bodies]] table")
        for i, table in enumerate(rods, 1):
            self.add_rod(scene, i, table, materials)
        for i, table in enumerate(bodies, 1):
            self.add_body(scene, i, table)
        for section in TERM_SECTIONS:
            for i, table in enumerate(self.array_of_tables(doc, section), 1):
                self.add_term(scene, section, i, table)
        report = doc.get("report", {})
        if not isinstance(report, dict):
            self.fail("[report]", "report must be a table")
        scenario = Scenario(scene=scene, run=run, name=head["name"], description=head["description"],
                            template=head["template"], report=dict(report), record=record,
                            source=self.source)
        try:
            scenario.info()            # the template's parameters are checked before any work
        except ValueError as err:
            self.fail(f"[report] (template {head['template']!r})", str(err))
        scenario.optimize = self.campaign(doc, head["template"], scenario)
        return scenario

    def campaign(self, doc, template, scenario):
        """The [optimize] table, checked: not read at this layer (softmech.scenefile.reader's
        reader checks it); a document that has one is refused rather than silently dropped."""
        if "optimize" in doc:
            self.fail("[optimize]", "this reader does not read campaigns: load the file with "
                      "softmech.scenefile.load_scenario")
        return None

    # ------------------------------------------------------------------------ plain tables
    def check_keys(self, where, table, allowed, kind="field"):
        for key in table:
            if key not in allowed:
                words = sorted(key.split("_"))      # 'lateral_static' -> 'static_lateral'
                close = [a for a in allowed if sorted(a.split("_")) == words] or \
                    difflib.get_close_matches(key, allowed, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                self.fail(where, f"unknown {kind} {key!r}{hint} (allowed: {', '.join(allowed)})")

    def table(self, doc, name, fields, required=True):
        """A plain table with known fields; missing optional fields get their defaults."""
        where = f"[{name}]"
        if name not in doc:
            if required:
                self.fail(where, f"the [{name}] table is missing (it needs "
                          f"{', '.join(k for k, v in fields.items() if v is REQUIRED)})")
            doc = {name: {}}
        table = doc[name]
        if not isinstance(table, dict):
            self.fail(where, f"{name} must be a table ([{name}]), not {type(table).__name__}")
        self.check_keys(where, table, tuple(fields))
        missing = [k for k, v in fields.items() if v is REQUIRED and k not in table]
        if missing:
            self.fail(where, f"required field {missing[0]!r} is missing")
        return {k: table.get(k, v) for k, v in fields.items()}

    def run_settings(self, t):
        dt, duration = self.number("[run] dt", t["dt"]), self.number("[run] duration", t["duration"])
        try:
            dt = float(_checks.positive("dt", dt, shape=()))
            duration = float(_checks.nonnegative("duration", duration, shape=()))
            worlds = _checks.integer("worlds", t["worlds"], 1, _checks.MAX_WORLDS)
            scheme = (None if t["scheme"] is None
                      else _checks.choice("scheme", t["scheme"], set(SCHEMES)))
            engine = (None if t["engine"] is None
                      else _checks.choice("engine", t["engine"], set(ENGINES)))
        except ValueError as err:
            self.fail("[run]", str(err))
        for flag in ("strict", "allow_large"):
            if not isinstance(t[flag], bool):
                self.fail("[run]", f"{flag} = {t[flag]!r} is not allowed: must be true or false")
        return RunSettings(dt=dt, duration=duration, worlds=worlds, scheme=scheme, engine=engine,
                           strict=t["strict"], allow_large=t["allow_large"])

    def number(self, where, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(where, f"{value!r} is not allowed: must be a number")
        return value

    def record(self, doc):
        if "record" not in doc:
            return None
        t = self.table(doc, "record", RECORD_FIELDS)
        from softmech.simulation import Every

        fields = t["fields"]
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            self.fail("[record] fields", f"fields = {fields!r} is not allowed: must be a list of "
                      "field names (strings)")
        every = self.number("[record] every", t["every"])
        try:
            return Every(seconds=float(every), fields=tuple(fields))
        except ValueError as err:
            self.fail("[record] every" if "Every.seconds" in str(err) else "[record] fields",
                      str(err))

    def materials(self, table):
        if not isinstance(table, dict):
            self.fail("[materials]", "materials must be a table of [materials.NAME] tables")
        for name, fields in table.items():
            if not isinstance(fields, dict):
                self.fail(f"[materials.{name}]", f"must be a table of {', '.join(MATERIAL_FIELDS)}")
            self.check_keys(f"[materials.{name}]", fields, MATERIAL_FIELDS)
        return table

    def array_of_tables(self, doc, name):
        entries = doc.get(name, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            self.fail(f"[[{name}]]", f"{name} must be an array of tables, written [[{name}]]")
        return entries

    # ------------------------------------------------------------------ builder calls
    def arguments(self, where, table, fields):
        """Check the fields of a builder table against the builder's signature; resolve side
        files. Returns the keyword arguments."""
        self.check_keys(where, table, tuple(fields))
        missing = [k for k, v in fields.items() if v is REQUIRED and k not in table]
        if missing:
            self.fail(where, f"required field {missing[0]!r} is missing")
        for key, value in table.items():
            default = fields[key]
            if isinstance(default, bool) and not isinstance(value, bool):
                self.fail(where, f"{key} = {value!r} is not allowed: must be true or false")
            if isinstance(value, bool) and not isinstance(default, bool) and default is not None:
                self.fail(where, f"{key} = {value!r} is not allowed: must be a "
                          f"{'string' if isinstance(default, str) else 'number or array'}, "
                          "not a boolean")
        kwargs = {k: resolve(v, self.base_dir, f"{self.source}: {where} field {k!r}",
                             self.allow_outside) for k, v in table.items()}
        for key in PATH_FIELDS.intersection(kwargs):      # a file name, read by the builder
            if isinstance(kwargs[key], str):
                kwargs[key] = side_file_path(kwargs[key], self.base_dir,
                                             f"{self.source}: {where} field {key!r}",
                                             self.allow_outside)
        return kwargs

    def add_rod(self, scene, i, table, materials):
        table = dict(table)
        kind = table.pop("kind", "cosserat_rod")
        where = f"[[rods]] #{i} (name = {table.get('name', 'rod')!r})"
        if not isinstance(kind, str) or kind not in ROD_KINDS:
            self.fail(where, f"kind = {kind!r} is not allowed: must be one of {sorted(ROD_KINDS)}")
        method, fields = ROD_KINDS[kind]
        material = table.pop("material", None)
        if material is not None:
            if not isinstance(material, str) or material not in materials:
                self.fail(where, f"material = {material!r} is not allowed: no [materials."
                          f"{material}] table (materials: {sorted(materials) or 'none'})")
            table = {**materials[material], **table}
        missing = [k for k, v in fields.items() if v is REQUIRED and k not in table]
        if missing and material is None and missing[0] in MATERIAL_FIELDS + ("radius",):
            self.fail(where, f"required field {missing[0]!r} is missing (give it, or a material "
                      f"= NAME of a [materials.NAME] table: {sorted(materials) or 'none'})")
        kwargs = self.arguments(where, table, fields)
        self.call(where, getattr(scene, method), kwargs)

    def add_body(self, scene, i, table):
        table = dict(table)
        kind = table.pop("kind", None)
        where = f"[[bodies]] #{i} (name = {table.get('name', kind)!r})"
        if kind is None:
            self.check_keys(where, table, ("kind",) + tuple(dict.fromkeys(
                k for _, f in BODY_KINDS.values() for k in f)))
            self.fail(where, f"required field 'kind' is missing: must be one of "
                      f"{sorted(BODY_KINDS)}")
        if not isinstance(kind, str) or kind not in BODY_KINDS:
            self.fail(where, f"kind = {kind!r} is not allowed: must be one of {sorted(BODY_KINDS)}")
        method, fields = BODY_KINDS[kind]
        self.call(where, getattr(scene, method), self.arguments(where, table, fields))

    def add_term(self, scene, section, i, table):
        table = dict(table)
        type_name = table.pop("type", None)
        if not isinstance(type_name, str):
            type_name = repr(type_name) if type_name is not None else None
        alias = TERM_ALIASES.get(type_name)                 # older type and field names
        cls = alias.cls if alias is not None else TERM_TYPES.get(type_name)
        fields = alias.table_fields() if alias is not None else \
            term_fields(cls) if cls is not None else {}
        where = f"[[{section}]] #{i} (type = {type_name!r}, name = " \
                f"{table.get('name', fields.get('name', '?'))!r})"
        allowed = sorted(n for n, c in TERM_TYPES.items() if c.section == section)
        if cls is None or cls.section != section:
            hint = f"; {type_name} belongs in [[{cls.section}]]" if cls is not None else ""
            self.fail(where, f"type = {type_name!r} is not allowed in [[{section}]]: must be one "
                      f"of {allowed}{hint}")
        if alias is not None:
            table = self.call(where, alias.rename, {"table": table})
        kwargs = self.arguments(where, table, fields)
        if alias is not None:
            kwargs = alias.arguments(kwargs)
        if isinstance(kwargs.get("friction"), dict):
            kwargs["friction"] = self.friction(f"{where} friction", kwargs["friction"],
                                               getattr(cls, "friction_type", AnisotropicFriction))
        term = self.call(where, cls, kwargs)
        self.call(where, scene.add, {"term": term})

    def friction(self, where, table, law=AnisotropicFriction):
        """The term's friction law (its class's friction_type; AnisotropicFriction by default)
        from a friction sub-table; a table with `tangential_stiffness` is a StickingFriction
        (softmech.terms.friction), which RodBodyContact and GroundContact also accept."""
        if "tangential_stiffness" in table:
            law = StickingFriction
        fields = FRICTION_FIELDS if law is AnisotropicFriction else tuple(law.__dataclass_fields__)
        self.check_keys(where, table, fields)
        return self.call(where, law, table)

    def call(self, where, builder, kwargs):
        """builder(**kwargs), its ValueError / TypeError reported at `where`."""
        try:
            return builder(**kwargs)
        except (ValueError, TypeError) as err:
            self.fail(where, str(err))
