"""softmech.kernels.external_calls: a generated module calls a kernel through an address slot
instead of a linked copy of its code; compiled afresh, loaded from numba's cache in another
process, and with linked calls (SOFTMECH_EXTERNAL_CALLS=0, which never loads the slots' cached
module) it computes the same numbers bit for bit (tolerance: none), and a cached function with a
slot whose registry file is gone is compiled afresh instead of loaded."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

CHILD = textwrap.dedent('''
    import json, warnings
    import numpy as np
    from softmech.integrators.driver import load_generated
    from softmech.kernels import external_calls

    SOURCE = """
    from softmech.kernels import kernel
    from softmech.kernels.implicit_newton import predict as implicit_newton__predict


    @kernel
    def entry(U, U_old, U_old2, order, rough):
        implicit_newton__predict(U, U_old, U_old2, order, rough)
        total = 0.0
        for d in range(U.shape[0]):
            for lane in range(U.shape[1]):
                total += U[d, lane] * (d + 1) + U_old2[d, lane]
        return total
    """
    module = load_generated(SOURCE, "probe")
    rng = np.random.default_rng(7)
    U, U_old, U_old2 = (rng.standard_normal((5, 3)) for _ in range(3))
    rough = np.array([0, 1, 0])
    out = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out["total"] = module.entry(U, U_old, U_old2, 2, rough).hex()
        out["U"] = [float(x).hex() for x in U.ravel()]
    out["warnings"] = [str(w.message) for w in caught]
    out["cache_hits"] = sum(module.entry.stats.cache_hits.values())
    out["slots"] = sorted(external_calls._slots)
    if not out["cache_hits"]:
        llvm = next(iter(module.entry.inspect_llvm().values()))
        out["slot_in_ir"] = external_calls.SLOT_PREFIX in llvm
        out["predict_linked"] = any(line.startswith("define") and "7predict" in line
                                    for line in llvm.splitlines())
    print("RESULT", json.dumps(out))
''')


def run_child(cache, external=True):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "SOFTMECH_CACHE_DIR": str(cache),
           "SOFTMECH_EXTERNAL_CALLS": "1" if external else "0",
           "PYTHONPATH": os.path.abspath(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    line = [s for s in done.stdout.splitlines() if s.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def test_slots_compiled_cached_and_linked_compute_the_same(tmp_path):
    fresh = run_child(tmp_path / "a")
    assert fresh["cache_hits"] == 0
    assert fresh["slot_in_ir"] and not fresh["predict_linked"]     # called through its slot
    assert any("7predict" in name for name in fresh["slots"])
    assert list((tmp_path / "a" / "steps" / "external").glob("*.json"))

    cached = run_child(tmp_path / "a")          # another process: the entry from numba's cache
    assert cached["cache_hits"] == 1
    assert cached["slots"] == fresh["slots"]    # filled from the registry before loading
    assert not cached["warnings"]

    linked = run_child(tmp_path / "b", external=False)
    assert linked["predict_linked"] and not linked["slot_in_ir"] and not linked["slots"]
    # the setting is part of a generated module's name: linked calls in the folder of the
    # slots' cache compile their own module rather than load the one that needs slots
    beside = run_child(tmp_path / "a", external=False)
    assert beside["cache_hits"] == 0 and beside["predict_linked"]
    for result in (cached, linked, beside):
        assert (result["total"], result["U"]) == (fresh["total"], fresh["U"])


def test_a_cached_function_whose_slot_cannot_be_filled_is_compiled_afresh(tmp_path):
    fresh = run_child(tmp_path)
    shutil.rmtree(tmp_path / "steps" / "external")
    again = run_child(tmp_path)
    assert again["cache_hits"] == 0                   # numba's cached entry was not used
    assert again["slot_in_ir"] and not again["warnings"]
    assert (again["total"], again["U"]) == (fresh["total"], fresh["U"])
    assert run_child(tmp_path)["cache_hits"] == 1     # and the entry compiled again is cached
