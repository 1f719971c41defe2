"""What a scenario file may contain (schema_version 1): its tables, the builder behind each
table, and the Scenario it loads into.

A scenario file is TOML. Every call of the scene builder has a table form:

    schema_version = 1
    [scene]        name, description, template ("generic", "snake", "cantilever": what
                   `softmech run` derives and plots)
    [run]          dt [s], duration [s], worlds, scheme ("verlet" | "pefrl" | "symplectic_euler" |
                   "implicit_euler"), engine
                   ("discrete" | "unified": discrete rods and shells), strict,
                   allow_large (run above softmech.run_cost's budgets)
    [record]       every [s], fields (as sm.Every); optional: the template's default otherwise
    [materials.NAME]  density, youngs_modulus, ... shared by rods that say material = "NAME"
    [[rods]]       kind = "cosserat_rod" (Scene.add_cosserat_rod) or "cosserat_ring"
                   (Scene.add_cosserat_ring), with that method's keyword arguments
    [[bodies]]     kind = "sphere", "cylinder", "box" or "rigid_body" (Scene.add_sphere, ...)
    [[environment]], [[boundary]], [[joints]], [[loads]], [[damping]], [[contact]], [[actuators]]
                   type = a term class (sm.Gravity, sm.Clamp, ...), with its arguments
    [report]       parameters of the template (e.g. the reference speed of the snake)
    [optimize]     an optimization campaign over the scene (`softmech optimize FILE`, and the
                   objectives of `softmech sweep FILE`): parameters by path, objectives,
                   goal, constraints (softmech.optimize.settings), or the template's own
                   campaign (softmech.scenarios.Template.campaign; the snake's gait campaign)

Arrays larger than INLINE_LIMIT numbers may live in side files: a value
{ file = "arrays.npz", key = "rods.snake.radius" } (also .npy, and .csv read with numpy.loadtxt),
with the path relative to the scenario file.
"""
import inspect
from dataclasses import dataclass, field

from softmech.scene import Scene
from softmech.terms import TERMS
from softmech.terms.base import TERM_SECTIONS
from softmech.terms.contact import AnisotropicFriction, IsotropicFriction, one_coefficient_law

SCHEMA_VERSION = 1

INLINE_LIMIT = 24
"""Arrays with more numbers than this go to the side file when a scenario is saved to disk."""

TERM_TYPES = dict(TERMS)
"""Term type name (the `type` field) -> class; each class says its table in `section`."""


@dataclass(frozen=True)
class TermAlias:
    """A term type name or fields of older scenario files, read as the term class `cls`
    (deprecated: files are written with cls's name and fields). fields: old field name -> cls's
    (e.g. rod -> body, viscosity -> coefficient); defaults: cls's field -> the old type's
    default where they differ (its default name, so that parameter paths stay the same);
    required: cls's fields that the old type required; extra: {old field: default} of fields
    that `convert` turns into cls's (e.g. friction coefficients into a friction law)."""
    cls: type
    fields: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    required: tuple = ()
    extra: dict = field(default_factory=dict)
    convert: object = None

    def rename(self, table):
        """A table of the old type with cls's field names; ValueError if a field is given
        under both names."""
        out = {}
        for key, value in table.items():
            new = self.fields.get(key, key)
            if new != key and new in table:
                raise ValueError(f"{key} = {value!r} is not allowed with {new}: {key} is the "
                                 f"older name of {new}; give {new} only")
            out[new] = value
        return out

    def table_fields(self):
        """{field: default (inspect.Parameter.empty if required)} of the renamed table."""
        return {**term_fields(self.cls), **self.defaults, **self.extra,
                **{k: inspect.Parameter.empty for k in self.required}}

    def arguments(self, kwargs):
        """cls's keywords: the renamed table's arguments, the old type's defaults filled in."""
        kwargs = {**self.defaults, **kwargs}
        return kwargs if self.convert is None else self.convert(kwargs)


def _rigid_friction(kwargs):
    """RigidGroundContact's static_friction, kinetic_friction, slip_velocity [m/s] (defaults 0,
    0, 1e-4) as GroundContact's friction law."""
    static, kinetic = kwargs.pop("static_friction", 0.0), kwargs.pop("kinetic_friction", 0.0)
    slip = kwargs.pop("slip_velocity", 1e-4)
    kwargs["friction"] = IsotropicFriction(kinetic, static, slip_velocity=slip)
    return kwargs


def _smooth_friction(kwargs):
    """SmoothGroundContact's friction mu and slip_tolerance [m/s] (defaults 0, 1e-3) as
    GroundContact's friction law."""
    mu, slip = kwargs.pop("friction", 0.0), kwargs.pop("slip_tolerance", 1e-3)
    kwargs["friction"] = one_coefficient_law(mu, slip)
    return kwargs


_ROD_TO_BODY = {"rod": "body"}
TERM_ALIASES = {
    "EndLoad": TermAlias(TERMS["EndLoad"], _ROD_TO_BODY),
    "RigidLoad": TermAlias(TERMS["EndLoad"], {"torque": "couple"}, {"name": "rigid_load"}),
    "GroundContact": TermAlias(TERMS["GroundContact"], _ROD_TO_BODY),
    "RigidGroundContact": TermAlias(
        TERMS["GroundContact"], defaults={"name": "rigid_ground_contact"},
        required=("stiffness",), convert=_rigid_friction,
        extra={"static_friction": 0.0, "kinetic_friction": 0.0, "slip_velocity": 1e-4}),
    "SmoothGroundContact": TermAlias(
        TERMS["GroundContact"], required=("stiffness", "distance"), convert=_smooth_friction,
        extra={"friction": 0.0, "slip_tolerance": 1e-3}),
    "LinearDamping": TermAlias(TERMS["LinearDamping"], _ROD_TO_BODY),
    "QuadraticDrag": TermAlias(TERMS["QuadraticDrag"], _ROD_TO_BODY),
    "AddedMass": TermAlias(TERMS["AddedMass"], _ROD_TO_BODY),
    "RigidDamping": TermAlias(TERMS["LinearDamping"], defaults={
        "name": "rigid_damping", "rotational_coefficient": 0.0}),
    "ViscousFriction": TermAlias(TERMS["LinearDamping"], {"viscosity": "coefficient"},
                                 {"name": "viscous_friction"}),
    "RigidQuadraticDrag": TermAlias(TERMS["QuadraticDrag"], defaults={
        "name": "rigid_quadratic_drag"}, required=("coefficient",)),
    "RigidAddedMass": TermAlias(TERMS["AddedMass"], defaults={
        "name": "rigid_added_mass", "coefficient": 0.5}),
}
"""Deprecated term types and fields of older scenario files (type or field name -> how it is
read now): the Rigid* and discrete-rod copies of a term are one term per idea since issue 27,
acting on any body kind (softmech.terms.base.BodyTerm), whose first field is `body` (it was
`rod`). The reader maps them; the writer writes the current names."""

MATERIAL_FIELDS = ("density", "youngs_modulus", "shear_modulus", "poisson_ratio",
                   "shear_coefficient", "law")
"""Fields that a [materials.NAME] table may hold (the rod's own fields override them)."""

_RING_MATERIAL = ("radius", "section") + MATERIAL_FIELDS + ("rest_strain",)


def _keywords(function):
    """{parameter: default (inspect.Parameter.empty if required)} of a builder function (self
    and **keywords left out)."""
    return {n: p.default for n, p in inspect.signature(function).parameters.items()
            if n != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD}


_ROD_FIELDS = _keywords(Scene.add_cosserat_rod)
ROD_KINDS = {
    "cosserat_rod": ("add_cosserat_rod", _ROD_FIELDS),
    "cosserat_ring": ("add_cosserat_ring", {**_keywords(Scene.add_cosserat_ring),
                                            **{k: _ROD_FIELDS[k] for k in _RING_MATERIAL}}),
}
"""Rod kind -> (Scene method, {field: default}); fields without a default are required."""

def _implicit_kind(module, cls):
    """{field: default} of an implicit body kind: its class constructor's keywords."""
    import importlib

    return _keywords(getattr(importlib.import_module(module), cls).__init__)


BODY_KINDS = {kind: (method, _keywords(getattr(Scene, method))) for kind, method in (
    ("sphere", "add_sphere"), ("cylinder", "add_cylinder"), ("box", "add_box"),
    ("rigid_body", "add_rigid_body"))}
BODY_KINDS["der_rod"] = ("add_der_rod", _implicit_kind("softmech.bodies.der_rod", "DerRod"))
BODY_KINDS["shell"] = ("add_shell", _implicit_kind("softmech.bodies.shell", "Shell"))
"""Body kind ([[bodies]] kind = ...) -> (Scene method, {field: default}): rigid bodies and the
implicitly integrated discrete rods and shells."""

FRICTION_FIELDS = tuple(AnisotropicFriction.__dataclass_fields__)

SCENE_FIELDS = {"name": "scenario", "description": "", "template": "generic"}
RUN_FIELDS = {"dt": inspect.Parameter.empty, "duration": inspect.Parameter.empty, "worlds": 1,
              "scheme": None, "engine": None, "strict": False, "allow_large": False}
SCHEMES = ("verlet", "pefrl", "implicit_euler", "symplectic_euler")
"""Integrator schemes a [run] table may name (Scene.compile checks them against the bodies)."""
ENGINES = ("discrete", "unified")
"""Engines a [run] table may name for discrete rods and shells (Scene.compile's `engine`)."""
RECORD_FIELDS = {"every": inspect.Parameter.empty, "fields": inspect.Parameter.empty}

TOP_LEVEL = ("schema_version", "scene", "run", "record", "materials", "rods", "bodies") + TERM_SECTIONS + (
    "report", "optimize")


def term_fields(cls):
    """{field: default} of a term type's table (its constructor's arguments)."""
    return _keywords(cls.__init__)


@dataclass
class RunSettings:
    """How `softmech run` runs a scenario: time step dt [s], simulated duration [s], number of
    worlds, integrator scheme (None: the bodies' default, "verlet" for Cosserat rods and rigid
    bodies, "implicit_euler" for discrete rods and shells), the engine of discrete rods and
    shells (None: Scene.compile's default; "discrete" or "unified"), whether a dt above the
    stability estimate raises, and whether `softmech run` may exceed the budgets of
    softmech.run_cost (compute, memory, disk; refused before the first step otherwise)."""
    dt: float
    duration: float
    worlds: int = 1
    scheme: str = None
    engine: str = None
    strict: bool = False
    allow_large: bool = False


@dataclass
class Scenario:
    """A scene with everything needed to run it from the command line.

    scene: the built sm.Scene. template: which scene-specific analysis `softmech run` applies
    ("generic" records the centre of mass and the energies). report: the template's parameters.
    record: an sm.Every, or None for the template's default. optimize: the [optimize] table
    (campaign settings), or None. source: the file it was read from.
    """
    scene: Scene
    run: RunSettings
    name: str = "scenario"
    description: str = ""
    template: str = "generic"
    report: dict = field(default_factory=dict)
    record: object = None
    optimize: dict = None
    source: str = None

    def compile(self, **overrides):
        """scene.compile with the run settings (keywords override them)."""
        settings = dict(worlds=self.run.worlds, dt=self.run.dt, scheme=self.run.scheme)
        if not self.scene.implicit_bodies:          # the explicit engine's own option
            settings["strict"] = self.run.strict
        if self.run.engine is not None:
            settings["engine"] = self.run.engine
        settings.update(overrides)
        return self.scene.compile(**settings)

    def info(self):
        """The template's info object (rod name, dt, duration, ...) for `softmech run`."""
        from softmech.scenarios import TEMPLATES

        return TEMPLATES[self.template].info_from(self.scene, self.run, self.report)
