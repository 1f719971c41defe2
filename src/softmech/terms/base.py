"""Common pieces of terms: the time profile of loads and the rod-end lookup.

A term validates its arguments in its constructor (before any work starts), declares per-world
parameters through `parameters()` (name -> array with a leading dimension of 1; the simulation
may replace it with one of leading dimension B), and writes its contribution in
`contribute(ctx, p)` where p holds its parameters broadcast to B worlds: either a body-level
field of the rods (ctx.body_acc, ctx.kv_tau) or, through `ctx.part(SomePart)`, the part that
compiles terms of its kind into one kernel call (a Part: docs/architecture.md, "Adding a term").
"""
import inspect

import numpy as np

from softmech import _checks


TERM_SECTIONS = ("environment", "boundary", "joints", "loads", "damping", "contact", "actuators")
"""The sections of terms (`Term.section`): the tables of a scenario file, in the order they are
written and added to the scene. The implicit simulation also sums forces in this order, so that
a scene and its scenario file sum them alike, bit for bit."""

TERMS = {}
"""Public term classes by class name, registered when their module is imported (softmech.terms
imports every module of the package): the types of scenario files and the names in softmech."""


class Term:
    """Base class of all terms. Subclasses set `self.name` and implement `contribute`.

    A term remembers the arguments it was constructed with (`arguments()`), so that a scene can
    be written back as a scenario file (softmech.scenefile) exactly as it was built.
    """

    name = "term"
    section = "terms"
    """Table of a scenario file that holds terms of this type (softmech.scenefile)."""
    modifies_bodies = False
    """Whether `contribute` changes a body's model (RotaryInertiaScaling: its rotary inertia).
    Such terms contribute before every other term, whatever the scene's order, since the
    others' stability limits read the bodies (a joint added before the scaling read the
    unscaled inertia: the elbow's stop, 2026-12-04)."""

    def __init_subclass__(cls, register=True, **kwargs):
        super().__init_subclass__(**kwargs)
        if register and not cls.__name__.startswith("_"):   # (register=False: a base class)
            other = TERMS.get(cls.__name__)
            if other is not None and other.__module__ != cls.__module__:
                # scenario files and sm.<Name> find terms by class name: two would clash
                raise TypeError(f"term class name {cls.__name__!r} is taken by "
                                f"{other.__module__}.{other.__name__}")
            TERMS[cls.__name__] = cls

    def __new__(cls, *args, **kwargs):
        term = super().__new__(cls)
        term._call = (args, kwargs)
        return term

    def arguments(self):
        """The constructor call as {parameter: value}, defaults filled in, in signature order."""
        bound = inspect.signature(type(self).__init__).bind(self, *self._call[0], **self._call[1])
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop("self")
        return arguments

    def parameters(self):
        return {}

    def contribute(self, ctx, p):  # pragma: no cover - interface
        raise NotImplementedError


def time_profile(owner, ramp_time, frequency, phase):
    """Validated (ramp_time [s], frequency [Hz], phase [rad]) of p(t) = ramp(t) sin(2 pi f t + phase)
    (see softmech.kernels.profiles). ramp_time = 0: no ramp; frequency = 0: constant."""
    return np.array([float(_checks.nonnegative(f"{owner}.ramp_time", ramp_time, shape=())),
                     float(_checks.nonnegative(f"{owner}.frequency", frequency, shape=())),
                     float(_checks.finite(f"{owner}.phase", phase, shape=()))])


def end_index(owner, end, n):
    """'first' / 'last' (also 0 / -1) -> index among n items."""
    if end in ("first", 0):
        return 0
    if end in ("last", -1):
        return n - 1
    raise ValueError(f"{owner}.end = {end!r} is not allowed: must be 'first' or 'last'")


def rod_name(owner, rod):
    name = getattr(rod, "name", rod)
    if not isinstance(name, str):
        raise ValueError(f"{owner}.rod = {rod!r} is not allowed: must be a rod or a rod's name")
    return name


ROD, RIGID, DISCRETE = "cosserat_rod", "rigid_body", "discrete"
"""Body kinds a term may act on: Cosserat rods (explicit engine), rigid bodies (explicit
engine) and discrete rods and shells (implicit engine)."""

KIND_FIELDS = {ROD: "rod", RIGID: "body", DISCRETE: "implicit_body"}
"""The attribute that names a term's body, per kind, as the engines and Scene.add read it."""

_KIND_WORDS = {ROD: "a Cosserat rod", RIGID: "a rigid body", DISCRETE: "a discrete rod or shell"}


def optional(owner, key, value, check=_checks.nonnegative):
    """None, or the number `value` checked by `check` (a softmech._checks function) as a float;
    a boolean is refused (a scenario file's `true` is not a number)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{owner}.{key} = {value!r} is not allowed: must be a number, not a "
                         "boolean")
    return float(check(f"{owner}.{key}", value, shape=()))


class BodyTerm(Term, register=False):
    """A term of one physical idea that acts on one body of any kind it has a part for
    (`kinds`), e.g. one linear damping for Cosserat rods, rigid bodies and discrete rods.

    The body is given by object or name when the term is made; its kind is known once the term
    is added to a scene: Scene.add calls `resolve_body`, which checks the kind, lets the
    subclass check and complete its kind-specific arguments (`check_kind(kind)`: ValueError
    naming the field) and sets `kind` and the attribute the engines read (KIND_FIELDS: `rod`,
    `body` or `implicit_body`). `contribute` (explicit engine) and `bind_implicit` (implicit
    engine) then hand the term to its kind's part: the methods `contribute_<kind>` and
    `bind_<kind>` of the subclass (a discrete rod in the unified engine: `contribute_discrete`,
    where the term has one)."""

    kinds = ()
    """The body kinds this term acts on (ROD, RIGID, DISCRETE)."""
    kind = None

    def _set_target(self, body):
        name = getattr(body, "name", body)
        if not isinstance(name, str):
            raise ValueError(f"{self.name}.body = {body!r} is not allowed: must be a body "
                             f"({self._kind_list()}) or its name")
        self.target = name

    def _kind_list(self):
        return " or ".join(_KIND_WORDS[k] for k in self.kinds)

    def resolve_body(self, rods, rigid, implicit):
        """Find the body's kind among the scene's rods, rigid bodies and implicit bodies
        (collections of names) and check it; ValueError names the field."""
        name = self.target
        kind = ROD if name in rods else RIGID if name in rigid else \
            DISCRETE if name in implicit else None
        if kind is None:
            raise ValueError(f"{self.name}.body = {name!r} is not allowed: no such body in the "
                             f"scene (bodies: {sorted(set(rods) | set(rigid) | set(implicit))})")
        if kind not in self.kinds:
            raise ValueError(f"{self.name}.body = {name!r} is not allowed: it is "
                             f"{_KIND_WORDS[kind]}; {type(self).__name__} acts on "
                             f"{self._kind_list()}")
        self.check_kind(kind)
        for field in KIND_FIELDS.values():
            self.__dict__.pop(field, None)
        setattr(self, KIND_FIELDS[kind], name)
        self.kind = kind

    def check_kind(self, kind):
        """Check (and complete, e.g. kind-dependent defaults) the arguments for a body of this
        kind; called once the kind is known. Nothing to check by default."""

    def _resolved(self):
        if self.kind is None:
            raise ValueError(f"{self.name}: the kind of body {self.target!r} is not known: add "
                             "the term with scene.add")
        return self.kind

    def contribute(self, ctx, p):
        kind = self._resolved()
        if kind == DISCRETE and not hasattr(self, "contribute_discrete"):
            raise ValueError(f"{self.name} ({type(self).__name__}) on {_KIND_WORDS[kind]} is "
                             "integrated implicitly (a scene of discrete rods and shells)")
        getattr(self, f"contribute_{kind}")(ctx, p)


class Part:
    """The compiled side of a kind of term: collects what the scene's terms of that kind
    contribute (methods of the subclass, called from Term.contribute) and turns it into kernel
    calls with their arrays.

    `calls(engine)` returns a list of softmech.integrators.driver.Call: the stage of the step
    ("forces", "positions" or "rates"), the order within it, the module-level kernel
    kernel(args, bi, W, t) and its argument tuple, built with engine.args(ArgsType, **own_arrays)
    (arrays not given are taken from the rods' model, the state and the workspace)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def calls(self, engine):  # pragma: no cover - interface
        raise NotImplementedError
