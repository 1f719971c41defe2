"""Every term of the table (softmech.packing.Engine.calls, docs/architecture.md) held to the same
contract, on random states of a scene that uses every term type:

* the force pass writes every entry of the accumulators, and no kernel reads its scratch before
  writing it (accumulators and every term's scratch pre-filled with NaN, integer scratch with
  a huge negative index);
* dissipative terms (damping, drag) never add energy: their power sum F.v + C.w <= 0;
* B batched worlds with different parameters equal B single runs, bit for bit;
* a term absent from a scene is absent from its step (the generated module calls only the
  scene's kernels).
Forces as minus the energy gradient and rigid-motion invariance of the elastic term are in
test_rod_properties.py.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import softmech as sm
from softmech.bodies.axisym_shell import cylinder_profile, meridian_rod
from softmech.integrators.driver import step_source
from softmech.packing import from_blocks
from softmech.terms import TERMS

N = 12


def contract_scene():
    """Three open rods and a ring with every term type (wave muscle on one rod, pairs on the
    other; rod and ring rest on the ground, a short bar lies across the rod)."""
    scene = sm.Scene()
    common = dict(radius=0.02, density=1000.0, youngs_modulus=1e5, shear_modulus=1e5 / 1.5)
    rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0.02), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=1.0, n_elems=N, **common)
    scene.add_cosserat_rod(name="arm", start=(0, 1, 0.5), direction=(0, 0, 1), normal=(1, 0, 0),
                           length=0.5, n_elems=N, **common)
    scene.add_cosserat_ring(name="ring", center=(0, -1, 0.02), ring_radius=0.2, n_elems=N,
                            radius=0.02, density=1000.0, youngs_modulus=1e5)
    scene.add_cosserat_rod(name="bar", start=(0.5, -0.1, 0.06), direction=(0, 1, 0),
                           normal=(0, 0, 1), length=0.2, n_elems=4, **common)   # touches "rod"
    scene.add(sm.Gravity((0, 0, -9.81)))
    scene.add(sm.Clamp("arm", "first"))
    scene.add(sm.Clamp(rod, "last", frame="element", name="tail_clamp"))
    scene.add(sm.PrescribedMotion("arm", (0.01, 0, 0), end="last", frequency=2.0, name="shaker"))
    scene.add(sm.Pin(rod, "first"))
    scene.add(sm.EndLoad(rod, force=(0, 0.1, 0), couple=(0.01, 0, 0), ramp_time=0.1, name="tip"))
    scene.add(sm.UniformLoad("ring", force_per_length=(0, 0.1, 0), name="push"))
    scene.add(sm.LinearDamping(rod, 0.5))
    scene.add(sm.KelvinVoigt("arm", 1e-3))
    scene.add(sm.RelativeDamping(["ring", "bar"], 0.3, name="relative"))
    scene.add(sm.ViscousDrag("ring", normal=0.4, tangential=0.2))
    scene.add(sm.SlenderBodyDrag("bar", 0.5))
    scene.add(sm.RotaryInertiaScaling("bar", 2.0))
    scene.add(sm.Buoyancy(500.0))
    scene.add(sm.QuadraticDrag(rod, 2.5, 0.01, binormal=1.0))
    scene.add(sm.AddedMass("arm", 1.0))
    scene.add(sm.ContractileCell(rod, 0.2, 0.3, 0.01, frequency=2.0, cell_radius=0.01))
    scene.add(sm.GroundContact(rod, friction=sm.AnisotropicFriction(1.0, 1.5, 2.0)))
    scene.add(sm.GroundContact("ring", friction=sm.IsotropicFriction(0.4, 0.6), name="ring_ground"))
    scene.add(sm.MuscleTorqueWave(rod, (0, 1e-3, 2e-3, 1e-3, 0), wavelength=0.8, period=1.0))
    scene.add(sm.MusclePairs("arm", [(10, 30, 0.5, 0.0)], frequency=2.0, name="pairs"))
    scene.add(sm.ActiveMuscle("ring", 20.0, activation="wave", frequency=2.0, phase=0.1,
                              wavelength=0.5, damping=1.0, name="ring_muscle"))
    scene.add(sm.ActiveMuscle("arm", 50.0, activation=[0.0, 1.0], times=[0.0, 0.5],
                              name="arm_muscle"))
    scene.add(sm.RodContact(("rod", "bar"), stiffness=1e3, damping=0.1,
                            friction=sm.CoulombFriction(0.5, 0.4)))
    scene.add(sm.RodContact(("ring",), stiffness=1e3, self_contact=True, name="ring_self"))
    ball = scene.add_sphere(name="ball", position=(0.5, 0.5, 0.05), radius=0.05, density=500.0)
    crate = scene.add_box(name="crate", position=(-0.5, 0.5, 0.05), lengths=(0.1, 0.1, 0.1),
                          density=500.0)
    scene.add(sm.EndLoad(ball, force=(0.1, 0, 0), couple=(0, 0, 0.01), name="ball_push"))
    scene.add(sm.LinearDamping(crate, 0.1, rotational_coefficient=0.01, name="rigid_damping"))
    scene.add(sm.QuadraticDrag(ball, coefficient=0.01, name="rigid_quadratic_drag"))
    scene.add(sm.AddedMass(crate, 0.5, name="rigid_added_mass"))
    scene.add(sm.GroundContact(ball, stiffness=1e3, damping=1.0,
                               friction=sm.IsotropicFriction(0.4, 0.5, slip_velocity=1e-4),
                               name="rigid_ground_contact"))
    scene.add(sm.GroundContact(crate, stiffness=1e3, damping=1.0,
                               friction=sm.IsotropicFriction(0.4, slip_velocity=1e-4),
                               name="crate_ground"))
    # a rod standing on the ball (spherical joint) carrying a lid (fixed joint); the crate
    # hinged to the ring
    scene.add_cosserat_rod(name="link", start=(0.5, 0.5, 0.1), direction=(0, 0, 1),
                           normal=(1, 0, 0), length=0.3, n_elems=N, **common)
    scene.add_box(name="lid", position=(0.5, 0.5, 0.4), lengths=(0.05, 0.05, 0.02), density=500.0)
    scene.add(sm.SphericalJoint(("link", "first"), (ball, (0, 0, 0.05)), stiffness=1e3,
                                damping=0.1))
    scene.add(sm.FixedJoint(("link", "last"), ("lid", "attach"), stiffness=1e3,
                            rotational_stiffness=1e-3, rotational_damping=1e-5))
    scene.add(sm.HingeJoint(("ring", 0), (crate, "attach"), axis=(0, 0, 1), stiffness=1e3,
                            rotational_stiffness=1e-3, limits=(-0.5, 0.0), limit_stiffness=1e-3,
                            limit_damping=1e-5))
    scene.add_sphere(name="pebble", position=(0.25, 0, 0.07), radius=0.03, density=500.0)
    scene.add(sm.HoldMotion("pebble", translation=(True, False, False), name="pebble_rail"))
    scene.add(sm.RodBodyContact(["rod"], ["pebble", "crate"], stiffness=1e3, damping=0.1,
                                friction=sm.CoulombFriction(0.5, 0.4)))
    # driven ends: the bar's far end turned and sliding along its axis, a paddle waved
    times = np.linspace(0.0, 1.0, 5)
    scene.add(sm.DrivenEnd("bar", "last", times=times, rotation=lambda t: (0, 2.0 * t, 0),
                           slide=(0, 1, 0), name="bar_twist"))
    scene.add_box(name="paddle", position=(-0.5, -0.5, 0.3), lengths=(0.1, 0.02, 0.1), density=500.0)
    scene.add(sm.DrivenEnd("paddle", times=times, displacement=lambda t: (0.1 * t, 0, 0),
                           rotation=lambda t: (0, 0, np.sin(3 * t)), name="paddle_wave"))
    # an axisymmetric mantle behind the ball, with its jet, drag and added mass
    r, z = cylinder_profile(0.05, 0.1, 6)
    mantle = scene.add_cosserat_rod(**meridian_rod(
        "mantle", r, -0.06 - z, thickness=2e-3, density=1000.0, youngs_modulus=1e5,
        poisson_ratio=0.3, axis=(0, 1, 0), origin=(0.5, 0.5, 0.05), radial=(1, 0, 0)))
    scene.add(sm.AxisymmetricShell(mantle, ball, thickness=2e-3, youngs_modulus=1e5,
                                   poisson_ratio=0.3, viscosity=0.1, axis=(0, 1, 0),
                                   origin=(0.5, 0.5, 0.05), times=times, pressure=10 * times,
                                   actuation=-5 * times, actuation_interval=(0.01, 0.08),
                                   clamp_stiffness=1e3, clamp_damping=0.1))
    scene.add(sm.PulsedJet(mantle, outflow_area=5e-4, inflow_area=1e-3))
    scene.add(sm.MantleDrag(mantle, 1.7))
    scene.add(sm.MantleAddedMass(mantle, 1.1))
    scene.add(sm.RecruitedBending("link", 1e-3, start=0.2, duration=0.5, body=ball))
    return scene


def randomize(sim, rng, scale=0.01):
    """Random positions (noise ~ scale), frames (rotations ~ 5 scale rad) and velocities."""
    for r in sim.rods + sim.rigid_bodies:
        s = sim.get_state(r.name)
        B = s["positions"].shape[0]
        rot = Rotation.from_rotvec(rng.normal(scale=5 * scale, size=(B * r.n_elems, 3)))
        Q = np.einsum("nij,njk->nik", s["directors"].reshape(-1, 3, 3), rot.as_matrix())
        sim.set_state(r.name, positions=s["positions"] + rng.normal(scale=scale, size=s["positions"].shape),
                      velocities=rng.normal(scale=0.1, size=s["velocities"].shape),
                      directors=Q.reshape(s["directors"].shape),
                      angular_velocities=rng.normal(scale=1.0, size=s["angular_velocities"].shape))


def test_the_contract_scene_uses_every_term_type():
    used = {type(t).__name__ for t in contract_scene().terms}
    # terms of discrete rods and shells only (implicit_only) are held to their own contract
    # (tests/unit/test_implicit_integrator.py and the discrete rods' and shells' tests)
    assert used == {n for n, c in TERMS.items() if not getattr(c, "implicit_only", False)}


@pytest.mark.parametrize("worlds", [1, 3])
def test_force_pass_writes_every_entry_and_reads_no_stale_scratch(worlds):
    sim = contract_scene().compile(worlds=worlds, dt=1e-5)
    randomize(sim, np.random.default_rng(worlds))
    engine = sim._engine()
    ws = engine.workspace
    for array in (ws.node_force, ws.elem_couple, ws.elem_len, ws.rb_force, ws.rb_torque,
                  *engine.scratch):
        # integer scratch (rod contact's grid) gets garbage indices: a stale read goes astray
        array[...] = np.nan if array.dtype.kind == "f" else np.iinfo(array.dtype).min // 3
    sim.time = 0.37
    sim._evaluate(engine)
    for name in ("node_force", "elem_couple", "elem_len", "rb_force", "rb_torque"):
        assert np.all(np.isfinite(getattr(ws, name))), name


@pytest.mark.parametrize("call", ["linear_damping", "relative_damping", "viscous_drag",
                                  "quadratic_drag"])
def test_dissipative_terms_never_add_energy(call):
    """Power of one dissipative term on random states: over nodes m (a_with - a_without) . v,
    over elements (J / e) (alpha_with - alpha_without) . w (the local couple C = J alpha / e);
    it must be <= 0. (A scene without contact: the wall response depends on the total force.)"""
    scene = sm.Scene()
    for name, closed in (("rod", False), ("ring", True)):
        common = dict(name=name, radius=0.02, density=1000.0, youngs_modulus=1e5)
        if closed:
            scene.add_cosserat_ring(center=(0, 1, 0), ring_radius=0.3, n_elems=N, **common)
        else:
            scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                   length=1.0, n_elems=N, **common)
        scene.add(sm.LinearDamping(name, 0.5, name=f"{name}_damping"))
        scene.add(sm.ViscousDrag(name, normal=0.4, tangential=0.2, name=f"{name}_drag"))
        scene.add(sm.QuadraticDrag(name, 2.5, 0.5, name=f"{name}_quadratic_drag"))
    scene.add(sm.RelativeDamping(["rod", "ring"], 0.5))
    scene.add(sm.Gravity())
    sim = scene.compile(worlds=4, dt=1e-5)
    rng = np.random.default_rng(7)
    engine, lanes = sim._engine(), sim.lanes
    mass = from_blocks(engine.bodies.node_mass, lanes)
    J = from_blocks(engine.bodies.elem_J, lanes, (3,))
    for _ in range(3):
        randomize(sim, rng)
        sim._evaluate(engine)
        with_term = (engine.workspace.node_force.copy(), engine.workspace.elem_couple.copy())
        sim._evaluate(engine, leave_out=(call,))
        da = from_blocks(with_term[0] - engine.workspace.node_force, lanes, (3,))
        dalpha = from_blocks(with_term[1] - engine.workspace.elem_couple, lanes, (3,))
        e = from_blocks(engine.workspace.elem_len * engine.bodies.elem_inv_rest_len, lanes)
        v = from_blocks(engine.state.v, lanes, (3,))
        w = from_blocks(engine.state.w, lanes, (3,))
        power = (np.einsum("bn,bnk,bnk->b", mass, da, v)
                 + np.einsum("bnk,bnk,bnk->b", J / e[..., None], dalpha, w))
        assert np.any(np.abs(da) > 0)          # the term acts
        assert np.all(power < 0), power


def test_batched_worlds_equal_single_runs_for_every_term():
    B = 3
    rng = np.random.default_rng(3)
    values = {"gravity.acceleration": rng.normal(scale=1.0, size=(B, 3)) + [0, 0, -9.81],
              "damping.coefficient": rng.uniform(0.1, 1.0, size=B),
              "relative.coefficient": rng.uniform(0.1, 0.5, size=B),
              "drag.normal": rng.uniform(0.1, 1.0, size=B),
              "buoyancy.fluid_density": rng.uniform(500.0, 1500.0, size=B),
              "cell.start": rng.uniform(0.1, 0.4, size=B),
              "quadratic_drag.normal": rng.uniform(1.0, 3.0, size=B),
              "added_mass.coefficient": rng.uniform(0.5, 1.5, size=B),
              "rigid_quadratic_drag.coefficient": rng.uniform(0.005, 0.02, size=B),
              "rigid_added_mass.coefficient": rng.uniform(0.3, 0.7, size=B),
              "ground.kinetic": rng.uniform(0.5, 2.0, size=(B, 3)),
              "tip.force": rng.normal(scale=0.1, size=(B, 3)),
              "muscle.coefficients": rng.uniform(0, 2e-3, size=(B, 5)),
              "ball_push.force": rng.normal(scale=0.1, size=(B, 3)),
              "ball.mass": rng.uniform(0.2, 0.4, size=B),
              "fixed_joint.rotational_stiffness": rng.uniform(1e-3, 2e-3, size=B),
              "rod_contact.stiffness": rng.uniform(5e2, 2e3, size=B),
              "arm_muscle.max_stress": rng.uniform(20.0, 80.0, size=B),
              "pulsed_jet.outflow_area": rng.uniform(3e-4, 6e-4, size=B),
              "recruited_bending.moment": rng.uniform(5e-4, 2e-3, size=B),
              "axisymmetric_shell.clamp_stiffness": rng.uniform(5e2, 2e3, size=B)}
    scene = contract_scene()
    batched = scene.compile(worlds=B, dt=1e-5)
    for k, v in values.items():
        batched.params[k] = v
    batched.step(300)
    for b in range(B):
        single = scene.compile(worlds=1, dt=1e-5)
        for k, v in values.items():
            single.params[k] = v[b:b + 1]
        single.step(300)
        for r in scene.rods + scene.rigid_bodies:
            got, want = batched.get_state(r.name), single.get_state(r.name)
            for field in want:
                np.testing.assert_array_equal(got[field][b], want[field][0], err_msg=f"{r.name}.{field}")


def test_a_term_absent_from_a_scene_is_absent_from_its_step():
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=1.0, n_elems=5, radius=0.01, density=1000.0,
                                 youngs_modulus=1e6)
    scene.add(sm.Gravity())
    engine = scene.compile(dt=1e-5)._engine()
    calls = engine.calls
    assert [c.name for c in calls] == ["rod_elasticity"]
    source = step_source(calls, engine.kinds)
    scene.add(sm.ViscousDrag(rod, normal=0.1))
    calls2 = scene.compile(dt=1e-5)._engine().calls
    assert [c.name for c in calls2] == ["rod_elasticity", "viscous_drag"]
    source2 = step_source(calls2, engine.kinds)
    added = set(source2.splitlines()) - set(source.splitlines())
    # only the drag's import and its call in the force hook
    assert added == {"from softmech.kernels.drag import viscous_drag as drag__viscous_drag",
                     "    drag__viscous_drag(T[2], bi, W, t)"}, added
    for kernel in ("ground_contacts", "muscle_waves", "linear_damping", "point_loads",
                   "frame_anchors", "constrain_positions", "rod_refresh", "rigid"):
        assert kernel not in source2
