"""Damaged and crafted state files (save_state / load_state, both engines): every member is
checked before it is read, the refusal is a ValueError naming the file and the member, and the
simulation is left exactly as it was (softmech.io.read_state_npz)."""
import io
import zipfile

import numpy as np
import pytest

import softmech as sm
from fuzz_states import discrete_sim as discrete


def explicit():
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=1.0, n_elems=5, radius=0.01, density=1000.0,
                           youngs_modulus=1e6)
    return scene.compile(dt=1e-4)


def written(build, tmp_path):
    sim = build()
    sim.step(3)
    path = tmp_path / "good.npz"
    sim.save_state(path)
    with np.load(path) as data:
        return path, {k: data[k] for k in data.files}


def variant(tmp_path, base, name, **changes):
    arrays = dict(base)
    for key, value in changes.items():
        if value is None:
            arrays.pop(key)
        else:
            arrays[key] = value
    path = tmp_path / f"{name}.npz"
    np.savez(path, **arrays)
    return path


def assert_refused(build, path, message):
    sim = build()
    before = [a.copy() for a in sim.get_state("rod").values()]
    time = sim.time
    with pytest.raises(ValueError, match=message):
        sim.load_state(path)
    assert all(np.array_equal(a, b) for a, b in zip(before, sim.get_state("rod").values()))
    assert sim.time == time


EXPLICIT_CASES = {
    "complex": ({"rod.positions": lambda b: b["rod.positions"].astype(complex)},
                r"member 'rod.positions' has dtype complex128: not allowed"),
    "bytes": ({"clock_steps": lambda b: np.array(b"12")},
              r"member 'clock_steps' has dtype \|S2: not allowed"),
    "missing time": ({"time": lambda b: None}, r"missing \['time'\]"),
    "text time": ({"time": lambda b: np.array("abc")}, r"member 'time' has dtype <U3"),
    "shape": ({"rod.positions": lambda b: b["rod.positions"][:, :3]},
              r"member 'rod.positions' has shape \(1, 3, 3\), this scene's is \(1, 6, 3\)"),
    "nan": ({"rod.velocities": lambda b: b["rod.velocities"] * np.nan},
            r"member 'rod.velocities' holds NaN or inf"),
    "negative steps": ({"clock_steps": lambda b: np.array(-3)},
                       r"member 'clock_steps' = -3 is not allowed"),
    "vector time": ({"time": lambda b: np.zeros((101, 3))},
                    r"member 'time' has shape \(101, 3\), this scene's is \(\)"),
    "not rotations": ({"rod.directors": lambda b: 2 * b["rod.directors"]},
                      r"rod.directors is not allowed: frames must be orthonormal"),
}


@pytest.mark.parametrize("case", sorted(EXPLICIT_CASES))
def test_a_damaged_explicit_state_is_refused_naming_the_member(case, tmp_path):
    _, base = written(explicit, tmp_path)
    changes, message = EXPLICIT_CASES[case]
    path = variant(tmp_path, base, "bad", **{k: f(base) for k, f in changes.items()})
    assert_refused(explicit, path, message)


@pytest.mark.parametrize("build", [explicit, discrete])
def test_a_giant_header_is_refused_before_it_is_read(build, tmp_path):
    """A member whose .npy header claims 10^9 float64 (8 GB) in a file of a few kB."""
    good, base = written(build, tmp_path)
    target = next(k for k in base if k.endswith("positions") or k == "q")
    path = tmp_path / "giant.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for key, value in base.items():
            buffer = io.BytesIO()
            if key == target:
                np.lib.format.write_array_header_1_0(buffer, {
                    "descr": "<f8", "fortran_order": False, "shape": (10**9,)})
            else:
                np.save(buffer, value)
            archive.writestr(key + ".npy", buffer.getvalue())
    assert_refused(build, path, rf"member '{target}' declares an array of shape \(1000000000,\)")


@pytest.mark.parametrize("build", [explicit, discrete])
def test_a_file_that_is_not_a_state_is_refused(build, tmp_path):
    path = tmp_path / "junk.npz"
    path.write_bytes(b"not a zip file")
    assert_refused(build, path, r"not a state file written by save_state")


def test_a_damaged_discrete_state_is_refused_naming_the_member(tmp_path):
    good, base = written(discrete, tmp_path)
    for changes, message in (
            ({"q": base["q"].astype(complex)}, r"member 'q' has dtype complex128"),
            ({"steps": np.array(b"7")}, r"member 'steps' has dtype \|S1"),
            ({"steps": np.array(2.5)}, r"member 'steps' = 2.5 is not allowed"),
            ({"time_origin": None}, r"missing \['time_origin'\]"),
            ({"dt": np.array(-1.0)}, r"member 'dt' = -1.0 is not allowed")):
        assert_refused(discrete, variant(tmp_path, base, "bad", **changes), message)
    sim = discrete()                              # the good file still loads
    sim.load_state(good)
    assert sim.time == pytest.approx(3e-3)


@pytest.mark.parametrize("build", [explicit, discrete])
def test_absurd_run_lengths_are_refused_before_the_run(build):
    """Issue 32: duration = 1e30 s ran until killed, and so would dt = 1e-300 s; more than
    _checks.MAX_STEPS (1e9) steps or MAX_SAMPLES (1e7) samples is refused naming the field, and
    the simulation has not moved."""
    sim = build()
    with pytest.raises(ValueError, match=r"duration = 1e\+30 s is not allowed at dt = .* at "
                                         r"most 1e\+09"):
        sim.run(1e30)
    with pytest.raises(ValueError, match=r"every = 1e-05 s is not allowed .* at most 1e\+07"):
        sim.run(1e3 * sim.dt * 1e5, record=sm.Every(1e-5, ("positions",)))
    assert sim.time == 0.0


@pytest.mark.parametrize("build", [explicit, discrete])
def test_a_member_claiming_an_unknown_compression_is_refused(build, tmp_path):
    """A flipped byte in the zip's central directory (found by the state-file fuzz): the
    member claims compression method 99, and zipfile raised NotImplementedError."""
    good, _ = written(build, tmp_path)
    data = bytearray(good.read_bytes())
    entry = data.index(b"PK\x01\x02")               # the first member's central directory entry
    data[entry + 10:entry + 12] = (99).to_bytes(2, "little")
    path = tmp_path / "method.npz"
    path.write_bytes(bytes(data))
    assert_refused(build, path, r"method.npz: .*compression method is not supported")
