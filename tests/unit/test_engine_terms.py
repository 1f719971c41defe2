"""The engine around the term table: restart bit for bit from save_state, the per-scene step
module and its cache, stale-kernel detection, and `softmech info --system`."""
import json
import os
import subprocess
import sys

import numpy as np

import softmech as sm
from softmech import cache
from softmech.cli import main
from softmech.scenarios.snake import build_snake


def test_save_and_load_state_continue_bit_for_bit(tmp_path):
    """A run of 2 x 150 steps with a save/load in a fresh simulation between them equals 300
    steps in one go, to the last bit (the clock's step count is saved with the state)."""
    scene, info = build_snake(8, dt=1e-4)
    one = scene.compile(worlds=2, dt=3e-5)
    one.time = 0.123  # an origin that is not a multiple of dt
    one.step(300)
    first = scene.compile(worlds=2, dt=3e-5)
    first.time = 0.123
    first.step(150)
    first.save_state(tmp_path / "state.npz")
    second = scene.compile(worlds=2, dt=3e-5)
    second.load_state(tmp_path / "state.npz")
    assert second.clock == first.clock
    second.step(150)
    assert second.time == one.time
    for field, value in one.get_state().items():
        np.testing.assert_array_equal(second.get_state()[field], value, err_msg=field)


def test_scenes_with_the_same_terms_share_one_step_module():
    def sim(n):
        scene, info = build_snake(n, dt=1e-4)
        return scene.compile(dt=1e-4)
    a, b = sim(6), sim(9)
    assert a._step(a._engine()) is b._step(b._engine())
    path = a._step(a._engine()).__file__
    assert os.path.dirname(path) == str(cache.cache_dir() / "steps")


def test_stale_kernel_cache_is_detected_and_dropped(tmp_path, monkeypatch):
    """A cache folder whose stamp differs from the current kernel fingerprint (an upgrade) loses
    its cached kernels; a current one keeps them."""
    folder = tmp_path / "numba"
    folder.mkdir()
    monkeypatch.setattr(cache, "numba_cache_folders", lambda: [folder])
    (folder / "contact.ground_contacts-1.py311.nbi").write_text("index")
    (folder / "contact.ground_contacts-1.py311.1.nbc").write_text("code")
    (folder / cache.STAMP).write_text("an older fingerprint")
    assert cache.check_kernel_cache() == 2
    assert sorted(p.name for p in folder.iterdir()) == [cache.STAMP]
    assert (folder / cache.STAMP).read_text() == cache.kernel_fingerprint()
    (folder / "x.nbi").write_text("index")
    assert cache.check_kernel_cache() == 0 and (folder / "x.nbi").exists()


def test_read_only_install_caches_in_the_user_cache(tmp_path):
    """With the package's own folders read-only, numba's locators fall back to the user-wide
    cache (NUMBA_CACHE_DIR unset): softmech.cache reports that folder, not the package."""
    code = ("import softmech.cache as c\n"
            "import numba.core.caching as nc\n"
            "orig = nc._CacheLocator.ensure_cache_path\n"
            "def ensure(self):\n"
            "    if '__pycache__' in self.get_cache_path() and 'site-packages' not in self.get_cache_path() "
            "and 'softmech' in self.get_cache_path(): raise OSError('read-only')\n"
            "    return orig(self)\n"
            "nc._CacheLocator.ensure_cache_path = ensure\n"
            "print([str(f) for f in c.numba_cache_folders()])")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    folders = eval(out)
    assert folders and all(f.startswith(str(tmp_path)) for f in folders), folders


def test_info_system_reports_versions_caches_and_cpu(capsys):
    assert main(["info", "--system", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["softmech"] == sm.__version__
    assert report["numba_threads"] >= 1 and report["cpu"]
    assert report["softmech_cache"] == str(cache.cache_dir())
    assert report["numba_kernel_caches"]
    assert main(["info", "--system"]) == 0
    text = capsys.readouterr().out
    assert "kernel cache" in text and "numba" in text


def test_info_without_file_or_system_exits_2(capsys):
    assert main(["info"]) == 2
    assert "FILE is required" in capsys.readouterr().err


def test_unwritable_cache_folder_falls_back_to_a_temporary_one(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("SOFTMECH_CACHE_DIR", str(blocked / "cache"))
    cache._writable.cache_clear()
    with __import__("pytest").warns(RuntimeWarning, match="not writable"):
        folder = cache.cache_dir()
    assert folder.is_dir() and os.access(folder, os.W_OK) and str(blocked) not in str(folder)
    cache._writable.cache_clear()


def test_contact_forces_are_the_contact_kernels_output():
    """Simulation.contact_forces (the contact kernels' element forces of both passes, split
    between the nodes) equals the difference of two force evaluations with and without the
    contact terms, times the node masses, to round-off; for an open rod, a ring with per-node
    friction, and two planes under one rod."""
    scene = sm.Scene()
    common = dict(radius=0.02, density=1000.0, youngs_modulus=1e5)
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0.015), direction=(1, 0, 0.02),
                                 normal=(0, 0, 1), length=1.0, n_elems=12, **common)
    scene.add_cosserat_ring(name="ring", center=(0, 1, 0.015), ring_radius=0.2, n_elems=12, **common)
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact(rod, friction=sm.AnisotropicFriction(1.0, 1.5, 2.0)))
    scene.add(sm.GroundContact(rod, plane_point=(0.5, 0, 0), plane_normal=(-1, 0, 0), name="wall"))
    scene.add(sm.GroundContact("ring", friction=sm.IsotropicFriction(0.4, 0.6, per_node=True),
                               name="ring_ground"))
    sim = scene.compile(worlds=3, dt=1e-5)
    rng = np.random.default_rng(5)
    for r in sim.rods:
        s = sim.get_state(r.name)
        sim.set_state(r.name, velocities=rng.normal(scale=0.05, size=s["velocities"].shape))
    sim.step(50)
    engine = sim._engine()
    for r in sim.rods:
        got = sim.contact_forces(r.name)
        sim._evaluate(engine)
        with_contact = engine.workspace.node_force.copy()
        sim._evaluate(engine, leave_out=("ground_contacts",))
        ns, _ = sim._slices(r.name)
        from softmech.packing import from_blocks
        diff = from_blocks(with_contact - engine.workspace.node_force, sim.lanes, (3,))[:, ns]
        expected = sim._node_mass(r.name)[..., None] * diff
        assert np.any(np.abs(expected) > 1e-3)               # contact acts
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * np.abs(expected).max())
