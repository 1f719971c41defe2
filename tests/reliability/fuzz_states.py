"""The state-file fuzz (tests/reliability/test_fuzz_state_files.py, benchmarks/
fuzz_results_files.py --kind state): real files of `sim.save_state` -- the explicit engine (a
Cosserat rod and a box, whose frame is stored twice) and the implicit one (a discrete rod) --
damaged at random and loaded by `load_state` (softmech.io.read_state_npz), with one property:

    the state is loaded and is then finite and of the scene's shapes, or it is refused by a
    one-line ValueError naming the file, and the simulation is left exactly as it was.

Anything else (a TypeError, a zipfile or NumPy error, a partly changed state) is a failure.
The damage, per member: shape (a row more or less, an axis more or less), dtype (complex,
float32, integers, booleans, bytes, text), values (NaN, inf, 1e300, negative, fractional
step counts), deleted, renamed, replaced by random bytes; or the whole file cut at a random
byte or 1 to 16 bytes flipped."""
import io
import os
import shutil
import traceback
import warnings
import zipfile

import numpy as np
from hypothesis import strategies as st

from fuzz_results import Outcomes, damage_bytes, fuzz_settings, reshaped  # noqa: F401 - shared

DTYPES = ["complex128", "float32", "int64", "bool", "S8", "U3", "uint8"]


def _explicit():
    import softmech as sm

    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=1.0, n_elems=5, radius=0.01, density=1000.0,
                           youngs_modulus=1e6)
    scene.add_box(name="box", position=(0, 1, 0), lengths=(0.1, 0.2, 0.3), density=500.0)
    scene.add(sm.Gravity())
    return scene.compile(dt=1e-4)


def discrete_sim():
    """A clamped discrete rod under gravity, compiled (implicit Euler, dt = 1 ms); also the
    implicit scene of test_state_files."""
    import softmech as sm

    scene = sm.Scene()
    rod = scene.add_der_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), length=0.2,
                            n_elems=4, radius=2e-3, density=1200.0, youngs_modulus=2e6)
    scene.add(sm.FixNodes(rod, nodes=[0, 1]))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene.compile(dt=1e-3)


class Base:
    """A compiled simulation, a state file it wrote after a few steps, and that file's
    members."""

    def __init__(self, name, build, folder):
        self.name, self.sim = name, build()
        self.sim.step(3)
        self.path = os.path.join(folder, f"{name}.npz")
        self.sim.save_state(self.path)
        with np.load(self.path) as data:
            self.members = {k: data[k] for k in data.files}


def make_bases(folder):
    return {"explicit": Base("explicit", _explicit, folder),
            "implicit": Base("implicit", discrete_sim, folder)}


def new_outcomes():
    return Outcomes()


@st.composite
def damage(draw, bases):
    """(base name, edits): the whole file cut or bytes flipped, or 1 to 3 member edits."""
    name = draw(st.sampled_from(sorted(bases)))
    members = sorted(bases[name].members)
    level = draw(st.integers(0, 9))
    if level == 0:
        return name, [("cut", None, draw(st.floats(0.0, 1.0)))]
    if level == 1:
        return name, [("flip", None, draw(st.lists(st.tuples(st.floats(0.0, 1.0),
                                                             st.integers(1, 255)),
                                                   min_size=1, max_size=16)))]
    edits = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["shape", "dtype", "value", "delete", "rename", "junk"]))
        member = draw(st.sampled_from(members))
        value = {"shape": st.tuples(st.sampled_from(["row+", "row-", "axis+", "axis-"]),
                                    st.integers(0, 3)),
                 "dtype": st.sampled_from(DTYPES),
                 "value": st.tuples(st.sampled_from([np.nan, np.inf, 1e300, -1.0, 2.5, -3.0]),
                                    st.floats(0.0, 1.0)),
                 "rename": st.sampled_from(["x", "rod.positionz", "time "]),
                 "junk": st.binary(min_size=0, max_size=64),
                 "delete": st.none()}[kind]
        edits.append((kind, member, draw(value)))
    return name, edits


def apply(base, edits, path):
    """Write base's file damaged by `edits` to `path`."""
    if edits[0][0] in ("cut", "flip"):
        damage_bytes(base.path, path, edits[0][0], edits[0][2])
        return
    arrays = {k: v for k, v in base.members.items()}
    raw = {}
    for kind, member, value in edits:
        if member in arrays:
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")     # complex to real, NaN to int
                    _edit(arrays, raw, kind, member, value)
            except (ValueError, TypeError, IndexError):
                pass            # an edit that does not apply to what earlier edits left
    with zipfile.ZipFile(path, "w") as archive:
        for key, value in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, value, allow_pickle=False)
            archive.writestr(key + ".npy", buffer.getvalue())
        for key, value in raw.items():
            archive.writestr(key + ".npy", value)


def _edit(arrays, raw, kind, member, value):
    """One edit of the members `arrays` (raw: members replaced by bytes)."""
    a = arrays[member]
    if kind == "shape":
        arrays[member] = reshaped(a, *value)
    elif kind == "dtype":
        arrays[member] = a.astype(value)
    elif kind == "value":
        v, where = value
        a = a.astype(float)
        if a.size:
            a.reshape(-1)[min(int(where * a.size), a.size - 1)] = v
        arrays[member] = a
    elif kind == "delete":
        del arrays[member]
    elif kind == "rename":
        arrays[value] = arrays.pop(member)
    else:
        raw[member] = value
        del arrays[member]


def _snapshot(sim):
    if hasattr(sim, "bodies"):          # the implicit engine
        bodies = list(sim.bodies)
    else:
        bodies = [b.name for b in sim.rods + sim.rigid_bodies]
    return sim.clock, {b: {k: v.copy() for k, v in sim.get_state(b).items()} for b in bodies}


def _same(a, b):
    (clock_a, states_a), (clock_b, states_b) = a, b
    return clock_a == clock_b and states_a.keys() == states_b.keys() and all(
        states_a[n].keys() == states_b[n].keys() and all(
            np.array_equal(states_a[n][k], states_b[n][k]) for k in states_a[n])
        for n in states_a)


def one_case(bases, drawn, folder, outcomes, *, strict=True):
    """Damage a copy of a base state file, load it into the base's simulation; counts into
    `outcomes` (a failure raises AssertionError with `strict`, else is counted)."""
    name, edits = drawn
    base = bases[name]
    path = os.path.join(folder, "case.npz")
    apply(base, edits, path)
    sim = base.sim
    before = _snapshot(sim)
    outcomes["cases"] += 1
    try:
        try:
            sim.load_state(path)
        except ValueError as err:
            message = str(err)
            assert "\n" not in message and path in message, f"unclear ValueError: {message}"
            assert _same(before, _snapshot(sim)), "misread: refused but the state changed"
            outcomes["refused"] += 1
            return
        except Exception:        # noqa: BLE001 - any other exception is the failure sought
            raise AssertionError(f"traceback:\n{traceback.format_exc()}") from None
        after = _snapshot(sim)
        for body, state in after[1].items():
            for key, value in state.items():
                assert value.shape == before[1][body][key].shape, f"misread: {body}.{key}"
                assert np.all(np.isfinite(value)), f"misread: {body}.{key} not finite"
        assert np.isfinite(sim.time), "misread: time"
        outcomes["accepted"] += 1
    except AssertionError as err:
        if strict:
            raise
        outcomes["misreads" if "misread" in str(err) else "tracebacks"] += 1
        outcomes.failures.append(f"{name} {edits}: {str(err)[-800:]}")
    finally:
        shutil.copyfile(base.path, path)
        sim.load_state(path)            # the next case starts from the base state
