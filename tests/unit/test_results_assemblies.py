"""Results files of assemblies (layout version 2): rigid bodies' description and time series
under /bodies, joints under /joints, rigid-body state in checkpoints (resume bit for bit, also
for a general body whose engine frame is not its user frame), rigid-body ground-contact force
and rod-rod contact force per node as recorded fields."""
import h5py
import numpy as np
import pytest

import softmech as sm
from softmech.resultsfile import load_results, record_to_file
from softmech.resultsfile.description import read_bodies, read_joints
from softmech.terms.rod_contact import contact_stats, node_forces

DOWN = np.array([0.5, 0.0, -np.sqrt(0.75)])
VERTICES = np.array([[x, y, z] for x in (-.02, .02) for y in (-.01, .01) for z in (-.015, .015)])
FACES = np.array([[0, 1, 2], [1, 3, 2], [4, 6, 5], [5, 6, 7], [0, 4, 1], [1, 4, 5], [2, 3, 6],
                  [3, 7, 6], [0, 2, 4], [2, 6, 4], [1, 5, 3], [3, 5, 7]])
INERTIA = [[2e-5, 3e-6, 0.0], [3e-6, 3e-5, 1e-6], [0.0, 1e-6, 4e-5]]
FIELDS = ("com", "positions", "directors", "angular_velocities", "total_energy")
RUN = dict(duration=0.02, every=0.002, fields=FIELDS, checkpoint_every=0.006)


def assembly(worlds=2):
    """A rod hanging from a fixed sphere, a general body (mesh, non-diagonal inertia) on its
    end, and a box hinged to the general body; spun so that the frames turn."""
    scene = sm.Scene()
    anchor = scene.add_sphere(name="anchor", position=(0, 0, 0.05), radius=0.05,
                              density=7800.0, fixed=True)
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=DOWN, normal=(0, 1, 0),
                                 length=0.2, n_elems=8, radius=0.005, density=1000.0,
                                 youngs_modulus=1e7)
    bob = scene.add_rigid_body(name="bob", position=0.22 * DOWN, mass=0.1, inertia=INERTIA,
                               vertices=VERTICES, faces=FACES, angular_velocity=(3.0, 1.0, 2.0))
    scene.add_box(name="crate", position=0.22 * DOWN + (0.05, 0, 0), lengths=(0.04, 0.02, 0.02),
                  density=500.0)
    scene.add(sm.Gravity())
    scene.add(sm.SphericalJoint((rod, "first"), (anchor, (0, 0, -0.05)), stiffness=1e5))
    scene.add(sm.SphericalJoint((rod, "last"), (bob, "attach"), stiffness=1e4, name="hook"))
    scene.add(sm.HingeJoint(("bob", (0.025, 0, 0)), ("crate", "attach"), axis=(0, 1, 0),
                            stiffness=1e4, rotational_stiffness=1.0, name="hinge"))
    return scene.compile(worlds=worlds, dt=2e-5)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("assembly") / "ref.h5"
    out = record_to_file(assembly(), path, **RUN)
    plain = assembly().run(RUN["duration"], record=sm.Every(RUN["every"], FIELDS))
    return path, out, plain


def test_bodies_and_joints_are_described_and_recorded(reference):
    path, out, plain = reference
    with h5py.File(path, "r") as f:              # plain h5py
        assert f.attrs["format_version"] == 2
        assert sorted(f["rods"]) == ["rod"] and sorted(f["bodies"]) == ["anchor", "bob", "crate"]
        bob = f["bodies/bob"]
        assert bob.attrs["shape"] == "general" and not bob.attrs["fixed"]
        np.testing.assert_allclose(bob["inertia"][()], INERTIA, rtol=1e-12, atol=1e-20)
        np.testing.assert_array_equal(bob["vertices"][()], VERTICES)
        np.testing.assert_array_equal(bob["faces"][()], FACES)
        assert bob["mass"][()] == 0.1 and bob["positions"].attrs["units"] == "m"
        assert f["bodies/anchor"].attrs["fixed"] and f["bodies/anchor/radius"][()] == 0.05
        np.testing.assert_array_equal(f["bodies/crate/lengths"][()], [0.04, 0.02, 0.02])
        n = len(f["time"])
        assert bob["positions"].shape == (2, n, 1, 3) and bob["directors"].shape == (2, n, 1, 3, 3)
        assert f["joints/hook"].attrs["kind"] == "spherical"
        assert f["joints/hinge"].attrs["kind"] == "hinge"
        assert f["checkpoint/bob"].attrs["frame"] == "principal"
        bodies, joints = read_bodies(f), read_joints(f)
    hook = joints["hook"]
    assert (hook["a"]["body"], hook["a"]["node"], hook["b"]["body"], hook["b"]["node"]) == \
        ("rod", 8, "bob", -1)
    # 'attach': the rod's last node, 0.2 m down, in the bob's frame about its centre (0.22 m down)
    np.testing.assert_allclose(hook["b"]["point"], -0.02 * DOWN, atol=1e-15)
    np.testing.assert_allclose(joints["hinge"]["a"]["point"], [0.025, 0, 0])
    np.testing.assert_allclose(joints["hinge"]["b"]["point"], [-0.025, 0, 0], atol=1e-15)
    assert bodies["crate"]["shape"] == "box" and "vertices" not in bodies["crate"]
    back = load_results(path)
    assert back.rods == ("rod",) and back.rigid_bodies == ("anchor", "bob", "crate")
    for key in plain:
        np.testing.assert_array_equal(back[key], plain[key], err_msg=key)
    assert not np.allclose(back["bob.directors"][0, -1], back["bob.directors"][0, 0])


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()])
                     if isinstance(obj, h5py.Dataset) else None)
    return out


def test_resume_with_rigid_bodies_is_bit_for_bit(reference, tmp_path):
    path, calls = tmp_path / "r.h5", []

    def interrupt(sim):                    # Ctrl-C while taking sample 6 (0.012 s)
        calls.append(sim.time)
        if len(calls) == 7:
            raise KeyboardInterrupt
        return np.zeros(sim.worlds)

    with pytest.raises(KeyboardInterrupt):
        record_to_file(assembly(), path, recorders=[sm.Recorder("probe", interrupt)],
                       flush_seconds=0.0, **RUN)
    with h5py.File(path, "r") as f:        # samples 0-5 kept, checkpoint at sample 3
        assert len(f["time"]) == 6 and f["checkpoint"].attrs["n_samples"] == 4
    record_to_file(assembly(), path, recorders=[sm.Recorder("probe", lambda s: np.zeros(2))],
                   resume=True, **RUN)
    a, b = datasets(path), datasets(reference[0])
    del a["recorders/probe"]
    assert sorted(a) == sorted(b)
    for name in a:
        if isinstance(a[name], np.ndarray):
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_principal_state_round_trips_exactly():
    sim = assembly(1)
    sim.run(0.004)
    before = {b: sim.get_state(b, principal=True) for b in ("bob", "crate", "rod")}
    sim.set_state("rod", positions=before["rod"]["positions"])          # re-packs every body
    sim.set_state("bob", principal=True, **before["bob"])
    for name, state in before.items():
        for key, value in sim.get_state(name, principal=True).items():
            np.testing.assert_array_equal(value, state[key], err_msg=f"{name}.{key}")
    user = sim.get_state("bob")                  # the user frame: P^T times the principal one
    P = sim.rigid_bodies[1].P
    np.testing.assert_allclose(user["directors"], P.T @ before["bob"]["directors"], atol=1e-15)


def resting_ball():
    scene = sm.Scene()
    scene.add_sphere(name="ball", position=(0, 0, 0.05), radius=0.05, mass=2.0)
    scene.add(sm.Gravity())
    scene.add(sm.GroundContact("ball", stiffness=1e5, damping=400.0, name="rigid_ground_contact"))
    return scene.compile(dt=1e-4)


def test_rigid_body_contact_force_carries_its_weight():
    out = resting_ball().run(0.5, record=sm.Every(0.25, ("ball.contact_force", "ball.com")))
    f = out["ball.contact_force"]
    assert f.shape == (1, 3, 1, 3)
    # at rest the plane carries m g (the penalty spring settles at depth m g / k)
    np.testing.assert_allclose(f[0, -1, 0], [0.0, 0.0, 2.0 * 9.81], rtol=1e-4, atol=1e-9)
    assert out["ball.com"][0, -1, 2] == pytest.approx(0.05 - 2.0 * 9.81 / 1e5, rel=1e-4)


def crossing_rods():
    scene = sm.Scene()
    common = dict(radius=0.01, density=1000.0, youngs_modulus=1e7)
    scene.add_cosserat_rod(name="base", start=(-0.2, 0, 0), direction=(1, 0, 0),
                           normal=(0, 0, 1), length=0.4, n_elems=10, **common)
    scene.add_cosserat_rod(name="drop", start=(0, -0.1, 0.0199), direction=(0, 1, 0),
                           normal=(0, 0, 1), length=0.2, n_elems=10, **common)
    scene.add(sm.RodContact(stiffness=2e4, damping=1.0))
    return scene


def test_rod_contact_force_is_recorded_per_node():
    sim = crossing_rods().compile(dt=1e-5)
    out = sim.run(0.0, record=sm.Every(1e-5, ("rod_contact_force",)))
    f_drop, f_base = out["drop.rod_contact_force"][0, 0], out["base.rod_contact_force"][0, 0]
    assert f_drop.shape == (11, 3)
    # the rods cross at a node of each: 2 x 2 element pairs overlap by 0.1 mm, k eps = 2 N each
    assert contact_stats(sim)[0, 2] == 4
    assert f_drop[:, 2].sum() == pytest.approx(4 * 2e4 * 1e-4, rel=1e-6)
    np.testing.assert_allclose(f_drop.sum(axis=0), -f_base.sum(axis=0), atol=1e-12)
    np.testing.assert_array_equal(f_drop, node_forces(sim, "drop")[0])


def test_fields_the_scene_cannot_give_are_refused():
    scene = crossing_rods()
    scene.terms.clear()
    with pytest.raises(ValueError, match="rod_contact_force.*no sm.RodContact"):
        scene.compile(dt=1e-5).run(0.0, record=sm.Every(1e-5, ("rod_contact_force",)))
    with pytest.raises(ValueError, match="'ball' is a rigid body"):
        resting_ball().run(0.0, record=sm.Every(1e-4, ("ball.rod_contact_force",)))


def test_save_and_load_state_continue_a_general_body_bit_for_bit(tmp_path):
    a, b = assembly(1), assembly(1)
    a.run(0.004)
    a.save_state(tmp_path / "s.npz")
    b.load_state(tmp_path / "s.npz")
    a.run(0.004)
    b.run(0.004)
    for name in ("rod", "bob", "crate"):
        for key, value in a.get_state(name, principal=True).items():
            np.testing.assert_array_equal(b.get_state(name, principal=True)[key], value,
                                          err_msg=f"{name}.{key}")
    with np.load(tmp_path / "s.npz") as data:        # the user frame is there for readers
        assert data["bob.directors"].shape == (1, 1, 3, 3)
