"""Shared pieces of the fuzz tests (tests/reliability/test_fuzz_*.py): valid base scenarios that
together hold every body kind and every term type, hypothesis strategies that break them (bad
values, wrong orders of magnitude, missing, misspelt or unknown fields, references to bodies that
do not exist), and the one property every case must satisfy:

    it loads, compiles and advances a few steps with a finite state, or it raises a clear
    error -- a ValueError (ScenarioError from a file) whose message names the field and says
    what is allowed -- before any work starts; or, if the values are legal but the run is
    unstable (dt far above the stable step, a huge force), it stops with SimulationDiverged
    naming a suggested time step and keeping a finite state.

Anything else -- a crash inside a kernel, an IndexError / ZeroDivisionError / MemoryError, a
hang (a per-case alarm), a silent NaN -- fails the test.

Cost: the base scenes reuse one compiled kernel set each (mutating values never changes the
set of terms, so no case compiles a new step specialization); cases whose legal sizes would
make them slow (more than MAX_ITEMS elements or MAX_WORLDS worlds) are skipped with
hypothesis.assume -- they are valid input, measured by the benchmarks, not bad input.

Counts: SOFTMECH_FUZZ_EXAMPLES sets the examples per test (default DEFAULT_EXAMPLES; the slow
variants use SLOW_EXAMPLES); each test prints the number of cases it ran and how they ended.
"""
import importlib.util
import math
import os
import re
import signal
import warnings
from collections import Counter
from contextlib import contextmanager

import numpy as np
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st

from slow_scale import scaled
from softmech.scenefile.schema import RunSettings, Scenario
from softmech.scenefile.writer import scenario_dict
from softmech.simulation import SimulationDiverged

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_EXAMPLES = int(os.environ.get("SOFTMECH_FUZZ_EXAMPLES", "150"))
"""Cases per fuzz test in the default run."""
SLOW_EXAMPLES = int(os.environ.get("SOFTMECH_FUZZ_SLOW_EXAMPLES", str(scaled(20000, 500))))
"""Cases per fuzz test in the slow variants (two slow tests: 40,000 cases together, ~1.5 min
on 2 shared cores with the kernels cached; a quarter in CI: slow_scale)."""
CASE_SECONDS = 120
"""A case still running after this long counts as a hang."""
MAX_ITEMS = 5000
MAX_WORLDS = 16
EXPLICIT_STEPS = 20
IMPLICIT_STEPS = 2


RANDOM = os.environ.get("SOFTMECH_FUZZ_RANDOM", "") not in ("", "0")
"""SOFTMECH_FUZZ_RANDOM=1: the slow variants draw new cases each run (exploring; a failure
prints its reproduction). Without it every run, CI's slow step included, draws the same cases:
a red CI then means a change broke something, not that a new random case was drawn."""


def fuzz_settings(n, *, slow=False):
    """Hypothesis settings of a fuzz test: n examples, no deadline (the first case of a base
    scene may load its compiled kernels), derandomized (the same cases every run) unless the
    slow variant runs with SOFTMECH_FUZZ_RANDOM=1."""
    return settings(max_examples=n, deadline=None, derandomize=not (slow and RANDOM),
                    database=None, suppress_health_check=list(HealthCheck), print_blob=True)


# ----------------------------------------------------------------------------- base scenes
def _test_module(relpath, name):
    """A scene builder of another test module (the contract scene of every term type, the
    discrete-rod scene), imported by path so the fuzzer breaks the very scenes those tests hold
    correct instead of copies of them."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "..", relpath))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shell_scenario():
    """A sheet and a flap (shells), a mast (discrete rod) joined to the sheet, with the
    shell-only terms (pressure, drag, rod-shell joint)."""
    return _test_module("unit/test_implicit_scenefile.py", "_fuzz_shell").shell_scene()


def _explicit_scenario():
    scene = _test_module("properties/test_term_contract.py", "_fuzz_contract").contract_scene()
    return Scenario(scene=scene, run=RunSettings(dt=1e-5, duration=1e-3), name="contract")


def _discrete_scenario():
    return _test_module("unit/test_implicit_scenefile.py", "_fuzz_der").der_scene()


BASES = {"explicit": _explicit_scenario, "discrete": _discrete_scenario, "shell": _shell_scenario}
"""Base scenarios: every explicit term type with Cosserat rods, a ring, an axisymmetric mantle
and every rigid body kind; discrete rods with the implicit-only terms; shells with theirs."""
_DOCS = {}
BASE_KERNEL_SETS = set()
"""kernel_set of every base scenario loaded so far (base_doc registers them)."""


def kernel_set(sim):
    """The generated step source of an explicit simulation (its compiled kernel set: a new
    one costs minutes of compiling), None for discrete rods and shells (no generated step)."""
    if hasattr(sim, "stepper"):
        return None
    from softmech.integrators.driver import step_source

    engine = sim._engine()
    return step_source(engine.calls, engine.kinds)


def base_doc(name):
    """A fresh deep copy of base scenario `name` as a scenario dict (what tomllib returns);
    the first call also registers the base's kernel set."""
    import copy

    from softmech.scenefile.reader import scenario_from_dict

    if name not in _DOCS:
        _DOCS[name] = scenario_dict(BASES[name]())
        sim = warm_up(lambda: scenario_from_dict(_DOCS[name]))
        BASE_KERNEL_SETS.add(kernel_set(sim))
    return copy.deepcopy(_DOCS[name])


def warm_up(load):
    """Load (a callable returning a valid Scenario), compile and step it as run_case would, but
    outside its time limit: the first case of a base scene would otherwise spend the limit
    compiling its kernels in a cold cache (minutes for the every-term scene on a fresh CI
    machine), which is not a hang. Returns the compiled simulation."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = load().compile()
        sim.step(IMPLICIT_STEPS if hasattr(sim, "stepper") else EXPLICIT_STEPS)
    return sim


# ----------------------------------------------------------------------------- mutations
REFERENCE_KEYS = ("rod", "body", "shell", "a", "b", "rods", "bodies", "body_a", "body_b",
                  "material", "parameter")
"""Fields that name another body, term parameter or material."""

BAD_SCALARS = [math.nan, math.inf, -math.inf, 0, 0.0, -0.0, -1, -1.0, 1e-300, 1e300, -1e300,
               10**9, -10**9, 2**63 - 1, True, False, "", "text", "1e7", "nan", [], {}]
"""Values that are wrong for most fields (TOML can hold each of them)."""


def _leaves(doc):
    """(path, value) of every field of the scenario dict, a path being the keys and indices
    from the top (["rods", 0, "radius"], ["contact", 1, "friction", "forward"], ...)."""
    out = []

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, dict) or (isinstance(v, list) and v and isinstance(v[0], dict)):
                    walk(v, path + [k])
                else:
                    out.append((path + [k], v))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + [i])
    walk(doc, [])
    return out


def _typo(key, draw):
    """A misspelling of `key`: a letter dropped, doubled, or two letters swapped."""
    i = draw(st.integers(0, max(len(key) - 2, 0)))
    how = draw(st.sampled_from(["drop", "double", "swap", "case"]))
    if how == "drop" and len(key) > 1:
        return key[:i] + key[i + 1:]
    if how == "swap" and len(key) > 1 and key[i] != key[i + 1]:
        return key[:i] + key[i + 1] + key[i] + key[i + 2:]
    if how == "case" and key.upper() != key:
        return key.upper()
    return key[:i] + key[i] + key[i:]


def bad_value(draw, old):
    """A replacement for a field whose valid value is `old`: a bad scalar, the old value off by
    orders of magnitude (wrong units), an array with one bad entry, of the wrong shape or
    length, or of text."""
    if isinstance(old, bool):
        # another bool is legal and switches a kernel flag (a new compiled specialization per
        # case: minutes each): only non-booleans here
        return draw(st.sampled_from([v for v in BAD_SCALARS if not isinstance(v, bool)]))
    kind = draw(st.sampled_from(["scalar", "scale", "entry", "shape", "huge_list"]))
    if kind == "scale" and isinstance(old, (int, float)) and not isinstance(old, bool):
        factor = 10.0 ** draw(st.integers(-12, 12))
        sign = draw(st.sampled_from([1, 1, -1]))
        return type(old)(old * factor * sign) if isinstance(old, float) else int(old * factor) * sign
    if kind == "entry" and isinstance(old, list) and old:
        new = list(old)
        i = draw(st.integers(0, len(new) - 1))
        new[i] = draw(st.sampled_from(BAD_SCALARS + [[1.0, 2.0]]))
        return new
    if kind == "shape" and isinstance(old, list):
        return draw(st.sampled_from([[], [[]], old[:-1], old + old[-1:], [old, old],
                                     [str(v) for v in old]]))
    if kind == "huge_list":
        return draw(st.sampled_from([[0.0] * 257, [[0.0, 0.0, 0.0]] * 64, [10**9] * 3]))
    return draw(st.sampled_from(BAD_SCALARS))


@st.composite
def broken_scenario(draw, base):
    """(doc, mutated field names): base scenario `base` with 1 to 3 fields broken."""
    doc = base_doc(base)
    leaves = _leaves(doc)
    touched = []
    for _ in range(draw(st.integers(1, 3))):
        path, old = draw(st.sampled_from(leaves))
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        key = path[-1]
        if key not in parent:        # removed or renamed by an earlier mutation
            continue
        op = draw(st.sampled_from(["value", "value", "value", "delete", "typo", "unknown",
                                   "reference"]))
        if key in ("kind", "type") and op in ("delete", "typo"):
            # a rod table without kind is a (legal) open rod: a ring so changed would compile
            # another kernel set; kind and type only get bad values
            op = "value"
        if key in ("kind", "type"):
            touched.append("*")      # the table is read as another builder: any field may be named
        if op == "delete":
            del parent[key]
        elif op == "typo":
            new_key = _typo(key, draw)
            parent[new_key] = parent.pop(key)
            touched.append(str(key))     # the message may name the misspelling or the field
            key = new_key
        elif op == "unknown":
            key = draw(st.sampled_from(["colour", "youngs_modulus_pa", "n_element", "dt_s"]))
            parent[key] = 1.0
        elif op == "reference" and key in REFERENCE_KEYS:
            parent[key] = ["nobody", "nothing"] if isinstance(old, list) else "nobody"
        else:
            parent[key] = bad_value(draw, old)
        touched.append(str(key))
    return doc, touched


def large_but_legal(doc):
    """True if a scenario dict asks for a size that is legal but slow to build: an n_elems
    above MAX_ITEMS or worlds above MAX_WORLDS that still fits in memory (a 10^6-element rod
    takes a minute to build; sizes beyond memory are refused at once and are kept)."""
    from softmech import _checks
    from softmech.bodies.cosserat_rod import BYTES_PER_ELEMENT

    memory = _checks.MEMORY_FRACTION * _checks.memory_bytes() / BYTES_PER_ELEMENT
    sizes = [(v, MAX_ITEMS) for path, v in _leaves(doc) if path and path[-1] == "n_elems"]
    sizes.append((doc.get("run", {}).get("worlds") if isinstance(doc.get("run"), dict)
                  else None, MAX_WORLDS))
    return any(isinstance(n, int) and not isinstance(n, bool) and bound < n <= memory
               for n, bound in sizes)


# --------------------------------------------------------------------------- the property
@contextmanager
def alarm(seconds):
    """TimeoutError if the block runs longer than `seconds` (a hang)."""
    def expire(signum, frame):
        raise TimeoutError(f"a fuzz case ran longer than {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


EXPLAINS = re.compile(r"allowed|must|expected|missing|unknown|did you mean|give |needs|only|"
                      r"cannot|no such|does not broadcast|at least|duplicate|required|does not match|outside|more than", re.I)


def check_clear_error(err, fields):
    """The message of a refused case names one of the broken fields and says what is
    allowed."""
    message = str(err)
    assert EXPLAINS.search(message), f"unclear message: {message!r}"
    names = {f.split(".")[-1] for f in fields}
    if "*" in names:
        return
    assert any(n in message for n in names), \
        f"the message does not name the broken field {sorted(names)}: {message!r}"


def scene_names(scenario):
    """Names of the bodies and terms of a loaded scenario."""
    scene = scenario.scene
    return [b.name for b in scene.rods + scene.rigid_bodies + scene.implicit_bodies + scene.terms]


def scene_size(scenario):
    """(items, worlds) of a loaded scenario: elements, rigid bodies and implicit nodes."""
    scene = scenario.scene
    items = (sum(r.n_elems for r in scene.rods) + len(scene.rigid_bodies)
             + sum(len(b.positions if hasattr(b, "positions") else b.vertices)
                   for b in scene.implicit_bodies))
    return items, scenario.run.worlds


def finite_state(sim):
    """True if every body's state is finite."""
    names = [b.name for b in getattr(sim, "rods", [])] + \
        [b.name for b in getattr(sim, "rigid_bodies", [])]
    names += list(getattr(sim, "bodies", {}) or ())
    return all(np.all(np.isfinite(v)) for n in dict.fromkeys(names)
               for v in sim.get_state(n).values())


def run_case(load, fields, outcomes, kernel_sets=None):
    """Load (a callable returning a Scenario), compile and step one case; record its outcome
    in the Counter `outcomes`; assert the property (module docstring). kernel_sets: if given,
    a legal case whose values select another kernel set than these (a coefficient set to 0
    can drop a term's kernel) is loaded and compiled but not stepped: stepping it would
    compile a new specialization, minutes per case."""
    with alarm(CASE_SECONDS), warnings.catch_warnings():
        warnings.simplefilter("ignore")     # dt above the estimated limit warns (strict=False)
        try:
            scenario = load()
        except ValueError as err:
            check_clear_error(err, fields)
            outcomes["refused on load"] += 1
            return
        items, worlds = scene_size(scenario)
        assume(items <= MAX_ITEMS and worlds <= MAX_WORLDS)
        try:
            sim = scenario.compile()
        except ValueError as err:
            # what compile refuses is an inconsistency between tables (joined nodes that do
            # not meet once a rod is longer, a wave's phase that no longer fits its
            # parameter): the message names the term or body involved, maybe not the field
            check_clear_error(err, fields + scene_names(scenario))
            outcomes["refused on compile"] += 1
            return
        implicit = hasattr(sim, "stepper")
        if kernel_sets is not None and not implicit and kernel_set(sim) not in kernel_sets:
            outcomes["legal, other kernel set (not stepped)"] += 1
            return
        try:
            sim.step(IMPLICIT_STEPS if implicit else EXPLICIT_STEPS)
        except SimulationDiverged as err:
            assert re.search(r"dt <= |smaller dt", str(err)), str(err)
            assert finite_state(sim), "the state kept after divergence is not finite"
            outcomes["diverged, stopped"] += 1
            return
        assert finite_state(sim), "silent NaN: the run went on with a non-finite state"
        outcomes["ran"] += 1


def report(name, outcomes, capsys):
    """Print the number of cases a test ran and how they ended (shown even under capture)."""
    with capsys.disabled():
        print(f"\n[fuzz] {name}: {sum(outcomes.values())} cases: {dict(outcomes)}")


def new_outcomes():
    return Counter()
