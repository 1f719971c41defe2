"""Cold compile time of every kernel of a scene's step (developer tool).

    python benchmarks/compile_times.py                 # the README demo's snake, B = 1
    python benchmarks/compile_times.py --scene cantilever
    python benchmarks/compile_times.py --scene rod_contact   # two rods with sm.RodContact
    python benchmarks/compile_times.py --scene rod_sticking  # the same with sm.StickingFriction
    python benchmarks/compile_times.py --scene rod_body_contact   # rods, bodies, DrivenEnd
    python benchmarks/compile_times.py --scene rod_mesh_contact   # a rod on a fixed mesh
    python benchmarks/compile_times.py --scene rod_mesh_sticking  # the same with sm.StickingFriction
    python benchmarks/compile_times.py --scene plectoneme    # DrivenEnd and self contact
    python benchmarks/compile_times.py --scene swimmer       # slender-body drag, contractile cell
    python benchmarks/compile_times.py --scene fluids        # buoyancy, quadratic drag, added mass
    python benchmarks/compile_times.py --scene damping       # linear and relative damping
    python benchmarks/compile_times.py --scene elbow         # active muscles, joints, contact
    python benchmarks/compile_times.py --scene poseidron     # axisymmetric shell, jet, joints, fluids
    python benchmarks/compile_times.py --scene quadropus     # the same with recruited bending (eq. 25)
    python benchmarks/compile_times.py --scene poseidron --implicit   # + its implicit Newton loop
    python benchmarks/compile_times.py --scene contacts      # surface plane contact, sticking friction
    python benchmarks/compile_times.py --scene surface_sticking   # a rod's surface on the ground,
                                                             # sticking friction
    python benchmarks/compile_times.py --scene surface_mollified   # the surface contact's
                                                             # kinetic and mollified friction
    python benchmarks/compile_times.py --scene der_rod --implicit   # a discrete rod as a kind
                                                             # of the unified engine (issue 27)
    python benchmarks/compile_times.py --scene der_terms     # the same with its other terms
    python benchmarks/compile_times.py --scene der_shell     # a hinge shell on the kind (with
                                                             # pressure, drag), a rod joined
    python benchmarks/compile_times.py --scene der_midedge   # the same with mid-edge bending
    python benchmarks/compile_times.py --scene contacts --remarks 2> remarks.txt   # + LLVM's
                                                             # vectorization remarks (stderr)

Runs with empty, temporary numba and softmech caches (set before numba is imported), builds the
scene and compiles, one at a time and in the order a first run would: every term kernel of the
scene's table (softmech.packing.Engine.calls; the small ones, inlined into the step, are also
compiled alone here because diagnostics call them from Python), the integrator's rod kernels
(softmech.kernels.rod_motion), then the scene's generated step (step_block: the only function
compiled per term set; it links the big kernels and inlines the small ones). Prints wall
seconds per function; the budget for a new term is 10 s (docs/architecture.md). Numbers are
recorded in docs/benchmarks_log.md with the machine.
"""
import argparse
import os
import sys
import tempfile
import time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scene", default="snake", choices=(
        "snake", "cantilever", "plectoneme", "swimmer", "rod_contact", "rod_sticking",
        "rod_body_contact", "rod_mesh_contact", "rod_mesh_sticking", "fluids", "elbow",
        "poseidron", "quadropus", "contacts", "surface_sticking", "surface_mollified",
        "der_rod", "der_terms",
        "der_shell", "der_midedge", "damping"))
    parser.add_argument("--implicit", action="store_true",
                        help="also compile the scene's implicit Newton loop (scheme "
                             "'implicit_euler': its kernels, the generated module, the sparsity "
                             "probe) after the explicit step")
    parser.add_argument("--remarks", action="store_true",
                        help="also print LLVM's loop-vectorization remarks to stderr (with debug "
                             "line numbers: kernel_passes.py's switch; compiles take longer)")
    args = parser.parse_args(argv)
    if args.remarks:
        from kernel_passes import _enable_remarks     # sets its own empty caches
        _enable_remarks()
        folder = os.environ["NUMBA_CACHE_DIR"]
    else:
        folder = tempfile.mkdtemp(prefix="softmech-compile-")
        os.environ.update(NUMBA_CACHE_DIR=folder, SOFTMECH_CACHE_DIR=folder)
    t_start = time.perf_counter()
    import numpy as np
    from numba import typeof

    import softmech as sm  # noqa: F401  (imports numba and the kernels' modules)
    from softmech.kernels import rod_motion
    from softmech.scenarios import SCENES
    t_import = time.perf_counter() - t_start

    if args.scene in ("rod_contact", "rod_sticking"):
        scene, dt = _rod_contact_scene(sm, sticking=args.scene == "rod_sticking")
    elif args.scene == "rod_body_contact":
        scene, dt = _rod_body_contact_scene(sm)
    elif args.scene in ("rod_mesh_contact", "rod_mesh_sticking"):
        scene, dt = _rod_mesh_contact_scene(sm, sticking=args.scene == "rod_mesh_sticking")
    elif args.scene == "fluids":
        scene, dt = _fluids_scene(sm)
    elif args.scene == "damping":
        scene, dt = _damping_scene(sm)
    elif args.scene == "contacts":
        scene, dt = _contacts_scene(sm)
    elif args.scene == "surface_sticking":
        scene, dt = _surface_sticking_scene(sm)
    elif args.scene == "surface_mollified":
        scene, dt = _surface_mollified_scene(sm)
    elif args.scene in ("der_rod", "der_terms"):
        scene, dt = _der_rod_scene(sm, terms=args.scene == "der_terms")
    elif args.scene in ("der_shell", "der_midedge"):
        scene, dt = _der_shell_scene(sm, "hinge" if args.scene == "der_shell" else "midedge")
    else:
        scene, info = SCENES[args.scene].build()
        dt = info.dt
    unified = {"engine": "unified"} if args.scene.startswith("der_") else {}
    sim = scene.compile(worlds=1, dt=dt, **unified, scheme="verlet")
    engine = sim._engine()
    W = sim.lanes.W
    rows = [("import softmech", t_import)]
    i64, f64 = typeof(0), typeof(0.0)
    for call in engine.calls:
        t0 = time.perf_counter()
        call.kernel.compile((typeof(call.args), i64, i64, f64))
        rows.append((f"{call.stage}: {call.name}", time.perf_counter() - t0))
    rods = engine.motions[0]            # the rods' motion tuples (rods are the first kind)
    drift, kick = typeof(rods.drift), typeof(rods.kick)
    kick_drift = typeof(rods.kick_drift)
    for name, sig in () if not engine.rods else (("rod_kick", (kick, i64, i64, f64)),
                      ("rod_kick_drift", (kick_drift, i64, i64, f64, f64, f64)),
                      ("rod_drift", (drift, i64, i64, f64)),
                      ("rod_drift_twice", (drift, i64, i64, f64, f64)),
                      ("rod_status", (drift, i64)),
                      ("rod_accelerations", (kick, i64, i64))):
        t0 = time.perf_counter()
        getattr(rod_motion, name).compile(sig)
        rows.append((f"integrator: {name}", time.perf_counter() - t0))
    t0 = time.perf_counter()
    sim.step(0)
    rows.append(("generated step (step_block)", time.perf_counter() - t0))
    if args.implicit:
        t0 = time.perf_counter()
        scene.compile(worlds=1, dt=dt, scheme="implicit_euler", **unified).step(1)
        rows.append(("implicit Newton loop (first step)", time.perf_counter() - t0))
    total = time.perf_counter() - t_start
    print(f"cold compile, scene {args.scene!r} (W = {W}), empty caches in {folder}")
    for name, seconds in rows:
        print(f"  {name:42s} {seconds:6.2f} s")
    print(f"  {'total (process, from the start)':42s} {total:6.2f} s")
    return int(not np.isfinite(total))


def _friction(sm, sticking):
    """The contact scenes' friction: sticking (k_t = 1e4 N/m) or regularized, mu 0.5 / 0.4."""
    return (sm.StickingFriction(0.5, 0.4, tangential_stiffness=1e4) if sticking
            else sm.CoulombFriction(0.5, 0.4))


def _rod_contact_scene(sm, sticking=False):
    """Two crossing rods with rod-rod contact and friction (regularized, or sticking), and
    gravity."""
    scene = sm.Scene()
    common = dict(n_elems=20, normal=(0, 0, 1), radius=0.01, density=1000.0, youngs_modulus=1e6)
    scene.add_cosserat_rod(name="a", start=(-0.2, 0, 0), direction=(1, 0, 0), length=0.4, **common)
    scene.add_cosserat_rod(name="b", start=(0, -0.2, 0.03), direction=(0, 1, 0), length=0.4,
                           **common)
    scene.add(sm.Gravity())
    friction = _friction(sm, sticking)
    scene.add(sm.RodContact(stiffness=1e4, friction=friction))
    return scene, 1e-5


def _rod_body_contact_scene(sm):
    """A rod resting across a sphere and a box, with friction; the sphere turned by a DrivenEnd."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="a", start=(-0.2, 0, 0.06), direction=(1, 0, 0), n_elems=20,
                           normal=(0, 0, 1), length=0.4, radius=0.01, density=1000.0,
                           youngs_modulus=1e6)
    ball = scene.add_sphere(name="ball", position=(-0.1, 0, 0), radius=0.05, density=1000.0)
    scene.add_box(name="brick", position=(0.1, 0, 0), lengths=(0.1, 0.1, 0.1), density=1000.0,
                  fixed=True)
    scene.add(sm.Gravity())
    scene.add(sm.DrivenEnd(ball, times=[0.0, 1.0], rotation=[[0, 0, 0], [0, 1, 0]]))
    scene.add(sm.RodBodyContact(stiffness=1e4, friction=sm.CoulombFriction(0.5, 0.4)))
    return scene, 1e-5


def _rod_mesh_contact_scene(sm, sticking=False):
    """A rod resting on a fixed 12-triangle box mesh, with friction (sm.RodBodyContact's mesh
    kernels only): regularized, or sticking (sm.StickingFriction)."""
    from softmech.validation.mesh_contact import box_mesh
    scene = sm.Scene()
    scene.add_cosserat_rod(name="a", start=(-0.2, 0, 0.06), direction=(1, 0, 0), n_elems=20,
                           normal=(0, 0, 1), length=0.4, radius=0.01, density=1000.0,
                           youngs_modulus=1e6)
    v, f = box_mesh((0.5, 0.5, 0.1))
    scene.add_rigid_body(name="table", position=(0, 0, 0), vertices=v, faces=f, fixed=True)
    scene.add(sm.Gravity())
    friction = _friction(sm, sticking)
    scene.add(sm.RodBodyContact(stiffness=1e4, friction=friction))
    return scene, 1e-5


def _damping_scene(sm):
    """A rod and a ring under gravity, damped linearly and relative to their rigid motion
    together (sm.LinearDamping, sm.RelativeDamping)."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=0.5, n_elems=20, radius=0.01, density=1000.0,
                                 youngs_modulus=1e6)
    ring = scene.add_cosserat_ring(name="ring", center=(0, 1, 0), ring_radius=0.1, n_elems=16,
                                   radius=0.01, density=1000.0, youngs_modulus=1e6)
    scene.add(sm.Gravity())
    scene.add(sm.LinearDamping(rod, 0.01))
    scene.add(sm.RelativeDamping([rod, ring], 0.1))
    return scene, 1e-5


def _fluids_scene(sm):
    """A rod and a sphere under gravity in water: buoyancy, quadratic drag, added mass."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                                 length=0.5, n_elems=20, radius=0.01, density=2000.0,
                                 youngs_modulus=1e6)
    ball = scene.add_sphere(name="ball", position=(1, 0, 0), radius=0.02, density=3000.0)
    scene.add(sm.Gravity())
    scene.add(sm.Buoyancy(1000.0))
    scene.add(sm.QuadraticDrag(rod, 2.5, 0.01))
    scene.add(sm.AddedMass(rod, 1.0))
    scene.add(sm.QuadraticDrag(ball, coefficient=6e-4, name="rigid_quadratic_drag"))
    scene.add(sm.AddedMass(ball, 0.5, name="rigid_added_mass"))
    return scene, 1e-4


def _der_rod_scene(sm, terms=False):
    """A clamped discrete elastic rod under gravity (falling_rod's size: 0.2 m, 30 edges), a body
    kind of the unified engine (Scene.compile(engine="unified"), issue 27); terms: also the
    kind's other terms (a natural curvature table, LinearDamping, NodeForce, GroundContact with
    static friction, SlenderBodyDrag, Buoyancy, QuadraticDrag, EdgeContact among its edges, a
    NodeUserForce)."""
    import numpy as np

    scene = sm.Scene()
    table = {"times": [0.0, 1.0], "values": [np.zeros((29, 2)), np.tile([1.0, 0.0], (29, 1))]}
    rod = scene.add_der_rod(name="rod", start=(0, 0, 0.003), direction=(1, 0, 0), length=0.2,
                            n_elems=30, radius=2e-3, density=1200.0, youngs_modulus=1e6,
                            natural_curvature=table if terms else None)
    scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
    scene.add(sm.Gravity())
    if terms:
        scene.add(sm.LinearDamping(rod, 0.01))
        scene.add(sm.NodeForce(rod, 30, (0.0, 0.0, 1e-3)))
        scene.add(sm.GroundContact(rod, stiffness=100.0, distance=2e-3,
                                   friction=sm.IsotropicFriction(0.3, 0.5, slip_velocity=1e-3)))
        scene.add(sm.SlenderBodyDrag(rod, 1e-3))
        scene.add(sm.Buoyancy(1000.0))
        scene.add(sm.QuadraticDrag(rod, 2.5, 0.01))
        scene.add(sm.EdgeContact(rod, stiffness=100.0, distance=4e-3,
                                 friction=sm.IsotropicFriction(0.3, slip_velocity=1e-3)))
        scene.add(sm.NodeUserForce(rod, lambda t, x, v: -0.1 * v))
    return scene, 1e-5


def _der_shell_scene(sm, bending):
    """A hinge or mid-edge shell (`bending`) on the unified engine's kind (a 0.1 m square of 8 x 8
    squares clamped along one side, under gravity, pressure and drag, its natural angles or
    curvatures waved) with a discrete rod hanging from a corner (sm.JoinNodes)."""
    from softmech.bodies import meshes

    scene = sm.Scene()
    mesh = meshes.rectangle(0.1, 0.1, 8)
    shell = scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e7,
                            density=1000.0, bending=bending)
    v = mesh.vertices
    scene.add(sm.FixNodes(shell, [int(i) for i in (v[:, 0] <= 0).nonzero()[0]]))
    corner = int((v[:, 0] + v[:, 1]).argmax())
    rod = scene.add_der_rod(name="rope", start=v[corner], direction=(0, 0, -1), length=0.05,
                            n_elems=5, radius=1e-3, density=1000.0, youngs_modulus=1e8)
    scene.add(sm.JoinNodes(shell, corner, rod, 0, tolerance=1e-12))
    scene.add(sm.Gravity())
    scene.add(sm.ShellPressure(shell, 10.0))
    scene.add(sm.ShellDrag(shell, 1.0))
    # its natural angles waved (sm.ParameterWave on the kind: der_parameter_wave, 2026-12-04)
    name, amplitude = ("rest_angle", 0.1) if bending == "hinge" else ("rest_curvature",
                                                                      [1.0, 0.0, 0.0])
    scene.add(sm.ParameterWave(f"plate.{name}", amplitude, 2.0, name="flap"))
    return scene, 1e-6


def _contacts_scene(sm):
    """The plane and body contacts added for issue 30: a rod on the floor by its surface
    (GroundContact surface=True), a rod, a box and a rod on a box with StickingFriction."""
    scene = sm.Scene()
    common = dict(direction=(1, 0, 0), normal=(0, 0, 1), length=0.2, n_elems=8, radius=0.01,
                  density=1000.0, youngs_modulus=1e6)
    scene.add_cosserat_rod(name="surface", start=(0, 1, 0.01), **common)
    scene.add_cosserat_rod(name="lying", start=(2, 0, 0.01), **common)
    scene.add_cosserat_rod(name="on_table", start=(-0.1, 0, 0.06), **common)
    scene.add_box(name="table", position=(0, 0, 0), lengths=(1.0, 0.5, 0.1), density=1000.0,
                  fixed=True)
    scene.add_box(name="crate", position=(1.0, 0, 0.05), lengths=(0.1, 0.1, 0.1), density=500.0)
    scene.add(sm.Gravity((4.0, 1.0, -9.0)))
    sticking = sm.StickingFriction(0.5, 0.3, tangential_stiffness=1e4)
    scene.add(sm.GroundContact("surface", stiffness=1e3, damping=1.0, surface=True,
                               friction=sm.IsotropicFriction(0.4, rolling=False),
                               name="surface_ground"))
    scene.add(sm.GroundContact("lying", stiffness=1e3, damping=1.0, friction=sticking,
                               name="lying_ground"))
    scene.add(sm.GroundContact("crate", stiffness=1e5, damping=20.0, friction=sticking,
                               name="crate_ground"))
    scene.add(sm.RodBodyContact(["on_table"], ["table"], stiffness=1e4, damping=2.0,
                                friction=sticking))
    return scene, 1e-5


def _surface_mollified_scene(sm):
    """Two rods on the ground by their surface (GroundContact surface=True), one with the
    kinetic law, one with the mollified law (softmech.kernels.surface_contact): the two kernel
    variants compiled in one process, for their ratio."""
    scene = sm.Scene()
    for k, law in enumerate(("band", "mollified")):
        scene.add_cosserat_rod(name=f"rod_{law}", start=(0, k, 0.01), direction=(1, 0, 0),
                               n_elems=8, normal=(0, 0, 1), length=0.2, radius=0.01,
                               density=1000.0, youngs_modulus=1e6)
        scene.add(sm.GroundContact(f"rod_{law}", stiffness=1e3, damping=1.0, surface=True,
                                   friction=sm.IsotropicFriction(0.4, rolling=False,
                                                                 slip_velocity=1e-3,
                                                                 regularization=law),
                                   name=f"ground_{law}"))
    scene.add(sm.Gravity((4.0, 1.0, -9.0)))
    return scene, 1e-5


def _surface_sticking_scene(sm):
    """A rod on the ground by its surface (GroundContact surface=True) with StickingFriction,
    tilted gravity (softmech.kernels.surface_sticking)."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(0, 0, 0.01), direction=(1, 0, 0), n_elems=8,
                           normal=(0, 0, 1), length=0.2, radius=0.01, density=1000.0,
                           youngs_modulus=1e6)
    scene.add(sm.Gravity((4.0, 1.0, -9.0)))
    scene.add(sm.GroundContact("rod", stiffness=1e3, damping=1.0, surface=True,
                               friction=sm.StickingFriction(0.5, 0.3, tangential_stiffness=1e3)))
    return scene, 1e-5


if __name__ == "__main__":
    sys.exit(main())
