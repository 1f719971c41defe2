"""Discrete shells with hinge bending as nodes of the unified engine's discrete kind
(softmech.shell_packing, softmech.terms.der_shell): DisMech's shell (stretching springs on the
edges, ref. 004 eqs. 9-10; bending hinges on the inner edges, eq. 17; lumped node masses
rho h A_i) stepped by the unified engine's schemes beside its rods. Checked against the
discrete engine, which steps the same model with analytic Jacobians, and against the
conservation laws and the explicit stability bound."""
import os
import tempfile

import numpy as np
import pytest

import softmech as sm
from softmech.implicit.newton import NewtonOptions

NX, NY, LX, LY = 8, 3, 0.1, 0.03
H, E, RHO = 1e-3, 1e7, 1000.0

TIGHT = {"unified": sm.ImplicitOptions(tol=1e-12, max_iterations=25),
         "discrete": NewtonOptions(rtol=1e-13)}
"""Newton tolerances far below the defaults, so that the engines differ by the model, not by
where each Newton stops (as in test_der_kind_fluids.py)."""


def plate_mesh():
    """A 0.1 x 0.03 m plate of 8 x 3 squares, two triangles each, in the plane z = 0."""
    xs, ys = np.linspace(0.0, LX, NX + 1), np.linspace(0.0, LY, NY + 1)
    vertices = np.array([[x, y, 0.0] for y in ys for x in xs])
    triangles = []
    for j in range(NY):
        for i in range(NX):
            a = j * (NX + 1) + i
            triangles += [[a, a + 1, a + NX + 2], [a, a + NX + 2, a + NX + 1]]
    return vertices, np.array(triangles)


def plate(scene, **kw):
    vertices, triangles = plate_mesh()
    return scene.add_shell(name="plate", vertices=vertices, triangles=triangles, thickness=H,
                           youngs_modulus=E, density=RHO, **kw)


def clamped_plate(scene):
    """The plate clamped along its first two columns of nodes (x = 0 and x = LX / NX), under
    gravity: a cantilever sagging ~6 cm in 0.1 s."""
    shell = plate(scene)
    x = shell.vertices[:, 0]
    scene.add(sm.FixNodes(shell, nodes=np.flatnonzero(x < LX / NX + 1e-9), name="clamp"))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return shell


def test_a_sagging_plate_moves_as_in_the_discrete_engine():
    """100 implicit Euler steps of 1 ms of the clamped plate falling under gravity: every node
    equal to the discrete engine's within 1e-10 m (measured 2026-11-30: 1.3e-13 m, the free
    edge 5.9 cm down): the same stretching and hinge forces (the discrete engine's kernels,
    called per world, softmech.kernels.der_shell), the same lumped masses and the same
    backward Euler equations; the unified engine's Jacobian is its probed finite-difference
    one, the discrete engine's analytic."""
    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        clamped_plate(scene)
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.step(100)
        final[engine] = sim.get_state("plate")["positions"][0]
    assert final["discrete"][:, 2].min() < -0.03
    assert np.abs(final["unified"] - final["discrete"]).max() < 1e-10


def test_a_rod_hanging_from_a_shell_moves_as_in_the_discrete_engine():
    """A discrete rod joined (sm.JoinNodes) to the clamped plate's free corner, both under
    gravity, 100 implicit Euler steps of 1 ms: the rod's and the plate's nodes equal to the
    discrete engine's within 1e-10 m (measured 2026-11-30: 6.7e-14 m; a rod-shell joint through
    a shared node, ref. 004 sec. 2: the joined node is one slot of the kind with both bodies'
    masses)."""
    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        shell = clamped_plate(scene)
        corner = int(np.argmax(shell.vertices[:, 0] + shell.vertices[:, 1]))
        rod = scene.add_der_rod(name="rope", start=shell.vertices[corner],
                                direction=(0.0, 0.0, -1.0), length=0.05, n_elems=5,
                                radius=1e-3, density=RHO, youngs_modulus=1e8)
        scene.add(sm.JoinNodes(shell, corner, rod, 0, tolerance=1e-12))
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.step(100)
        final[engine] = (sim.get_state("plate")["positions"][0],
                         sim.get_state("rope")["positions"][0])
    for got, want in zip(final["unified"], final["discrete"]):
        assert np.abs(got - want).max() < 1e-10
    assert np.array_equal(final["unified"][0][corner], final["unified"][1][0])


def free_plate_sim(dt, worlds=1):
    """The plate free in space with a natural curvature it does not have (a cylinder of radius
    0.1 m about y): it curls and rings, under position Verlet."""
    scene = sm.Scene()
    plate(scene, natural_curvature=(10.0, 0.0, 0.0))
    return scene.compile(dt=dt, worlds=worlds, engine="unified", scheme="verlet")


def test_a_free_curling_plate_conserves_momentum_and_energy_under_verlet():
    """The free plate curls from flat under its natural curvature, and drifts: linear and
    angular momentum conserved to round-off (1e-12 of their scale: the stretching and hinge
    forces are internal; measured 3.6e-16), and the energy error of position Verlet below 1e-6
    of the initial bending energy (measured 2.5e-12 J at dt = 2 us, 2e-8 of it), second order:
    it falls 4x from dt to dt / 2, within 20 % (measured 4.000)."""
    errors = []
    for dt in (2e-6, 1e-6):
        sim = free_plate_sim(dt)
        x = sim.get_state("plate")["positions"][0]
        sim.set_state("plate", velocities=np.cross([0.0, 0.0, 2.0], x) + [0.05, 0.0, 0.01])
        d0 = sim.diagnostics("plate")
        energies = []
        for _ in range(10):
            sim.step(int(round(2e-4 / dt)))
            energies.append(sim.diagnostics("plate")["total_energy"][0])
        d1 = sim.diagnostics("plate")
        p0 = d0["linear_momentum"][0]
        assert np.abs(d1["linear_momentum"][0] - p0).max() < 1e-12 * np.abs(p0).max()
        h0 = d0["angular_momentum"][0]
        assert np.abs(d1["angular_momentum"][0] - h0).max() < 1e-12 * np.abs(h0).max()
        # it curls: bending energy goes into motion (measured: 0.886 of it left after 2 ms)
        assert d1["bending_energy"][0] < 0.95 * d0["bending_energy"][0]
        errors.append(np.abs(np.array(energies) - d0["total_energy"][0]).max())
        assert errors[-1] < 1e-6 * d0["bending_energy"][0]
    assert 4.0 / 1.2 < errors[0] / errors[1] < 4.0 * 1.2


def checked_step(sim, K, m):
    """Assert that sim's explicit limit bound (time_step_limit() / 0.9, its SAFETY) is below
    the exact 2 / omega_max of stiffness K (n, n) with masses m (n,) (the eigenvalues of
    M^-1/2 K M^-1/2) and above half of it; returns 0.9 of the checked limit, the step to try."""
    omega = np.sqrt(np.linalg.eigvalsh(K / np.sqrt(np.outer(m, m))).max())
    limit = float(sim.time_step_limit()[0]) / 0.9
    assert limit <= 2.0 / omega
    assert limit > 0.5 * 2.0 / omega
    return 0.9 * limit * 0.9


def test_the_explicit_limit_bounds_the_highest_frequency():
    """The explicit stability limit (softmech.shell_packing.shell_time_step_limit, a Gershgorin
    bound on the mass-weighted stiffness) is below the exact 2 / omega_max of the flat plate
    (the eigenvalues of M^-1/2 K M^-1/2, K assembled from the same kernels' Jacobian blocks)
    and not far below it (> 0.5 of it; measured 2026-11-30: 0.87); position Verlet at 0.9
    of the checked limit (Simulation.check_time_step takes 0.9 of the bound) stays bounded
    over 20,000 steps."""
    from softmech.bodies.shell import _node_dofs
    from softmech.kernels.shell_hinge import hinge_forces
    from softmech.kernels.shell_stretch import stretch_forces

    sim = free_plate_sim(1e-6)
    shell = sim.der_shells[0]
    q = shell.vertices.ravel().copy()
    K = np.zeros((q.size, q.size))
    F = np.zeros_like(q)
    for dofs, kernel, args, d in (
            (_node_dofs(shell.edges), stretch_forces, (shell.edge_length, shell.stretch_stiffness), 6),
            (_node_dofs(shell.hinges), hinge_forces,
             (np.ascontiguousarray(sim.params["plate.rest_angle"][0]), shell.hinge_stiffness), 12)):
        J = np.zeros(d * d * len(dofs))
        kernel(q, dofs, *args, True, F, J)
        for row, block in zip(dofs, J.reshape(-1, d, d)):
            K[np.ix_(row, row)] -= block
    fast = free_plate_sim(checked_step(sim, K, np.repeat(RHO * H * shell.node_areas(), 3)))
    fast.step(20000)
    assert np.abs(fast.get_state("plate")["positions"]).max() < 1.0


def beside_a_rod_and_a_ball(scene):
    """Add a Cosserat rod and a rigid sphere to `scene` and compile it with defaults."""
    scene.add_cosserat_rod(name="rod", start=(0.0, 0.1, 0.0), direction=(1.0, 0.0, 0.0),
                           normal=(0.0, 0.0, 1.0), length=0.1, n_elems=5, radius=2e-3,
                           density=1000.0, youngs_modulus=1e6)
    scene.add_sphere(name="ball", radius=0.01, density=1000.0, position=(0.0, 0.3, 0.0))
    return scene.compile(dt=2e-4)


def mixed_sim():
    """The clamped plate beside a Cosserat rod and a rigid sphere, compiled with defaults."""
    scene = sm.Scene()
    clamped_plate(scene)
    return beside_a_rod_and_a_ball(scene)


def assert_restarts_bit_for_bit(make_sim):
    """make_sim() (a new simulation of one scene with a shell 'plate') run 20 steps equals 10
    steps, a state file saved, loaded into a new simulation and 10 steps more, bit for bit in
    every state field of the shell; the whole run's simulation is returned."""
    whole = make_sim()
    whole.step(20)
    first = make_sim()
    first.step(10)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "state.npz")
        first.save_state(path)
        second = make_sim()
        second.load_state(path)
    second.step(10)
    for key, value in whole.get_state("plate").items():
        np.testing.assert_array_equal(second.get_state("plate")[key], value)
    return whole


def test_a_shell_beside_cosserat_rods_and_rigid_bodies_compiles_unified_and_restarts():
    """A scene mixing the plate with a Cosserat rod and a rigid body compiles to the unified
    engine by default; a run split in two with a state file saved and loaded between equals
    the unsplit run bit for bit (its state: positions and velocities)."""
    whole = assert_restarts_bit_for_bit(mixed_sim)
    assert whole.scheme == "implicit_euler" and [s.name for s in whole.der_shells] == ["plate"]


def test_a_results_file_describes_the_shell_and_holds_its_series(tmp_path):
    """record_to_file on the mixed scene: the shell is described under /shells/<shell> (faces,
    thickness) with its recorded series there, as the discrete engine writes shells, and the
    file reads back with the positions the simulation had (bit for bit)."""
    import h5py

    from softmech.resultsfile.record import record_to_file

    sim = mixed_sim()
    results = record_to_file(sim, tmp_path / "run.h5", duration=0.002, every=0.001,
                             fields=("positions",))
    assert list(results.shells) == ["plate"]
    np.testing.assert_array_equal(results["plate.positions"][:, -1],
                                  sim.get_state("plate")["positions"])
    with h5py.File(tmp_path / "run.h5") as f:
        np.testing.assert_array_equal(f["shells/plate/faces"][()], sim.der_shells[0].triangles)


def test_what_the_shell_kind_does_not_have_is_refused():
    """A term the kind does not support on a shell is refused, naming it (mid-edge shells:
    test_der_kind_midedge.py)."""
    scene = sm.Scene()
    shell = plate(scene)
    scene.add(sm.LinearDamping(shell, 0.1))
    with pytest.raises(ValueError, match="on a shell: not yet"):
        scene.compile(dt=1e-3, engine="unified").step(1)


def assert_worlds_take_their_own_rest_shape(make_sim, key, steps, flat):
    """make_sim(worlds) (the curling plate 'plate') with the per-world natural curvature `key`
    (B, ...) of the second of two worlds set to 0: the first world equals a single world's run
    bit for bit and curls (its z spread above 1000 `flat`), the second stays flat (its z
    spread below `flat` [m]: nothing bends it)."""
    single = make_sim(1)
    single.step(steps)
    batch = make_sim(2)
    rest = np.repeat(batch.params[key], 2, axis=0)
    rest[1] = 0.0
    batch.params[key] = rest
    batch.step(steps)
    x = batch.get_state("plate")["positions"]
    np.testing.assert_array_equal(x[0], single.get_state("plate")["positions"][0])
    assert np.ptp(x[0][:, 2]) > 1e3 * flat
    assert np.ptp(x[1][:, 2]) < flat


def test_worlds_of_a_batch_take_their_own_natural_angles():
    """Two worlds of the curling plate, the second given flat natural angles through its
    per-world parameter '<shell>.rest_angle' (B, n_hinges): the first equals a single world's
    run bit for bit, the second stays flat (z = 0 to round-off)."""
    assert_worlds_take_their_own_rest_shape(lambda worlds: free_plate_sim(2e-6, worlds),
                                            "plate.rest_angle", 500, 1e-15)


@pytest.mark.parametrize("load", ["pressure", "drag"])
def test_pressure_and_drag_on_a_shell_act_as_in_the_discrete_engine(load):
    """sm.ShellPressure (a follower pressure p A n / 3 per node) on the plate clamped along its
    edges, and sm.ShellDrag (DisMech's -1/2 rho C_d A/3 (v.n)|v.n| n, ref. 004 sec. 5.4) on the
    free plate falling under a tilted gravity: 60 implicit Euler steps of 1 ms, every node equal
    to the discrete engine's within 1e-10 m (the same kernels, softmech.kernels.shell_loads,
    run per lane by softmech.kernels.der_shell; measured 2026-11-30: 2.5e-14 m under
    pressure, the plate bulging 0.35 mm)."""
    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        shell = plate(scene)
        v = shell.vertices
        if load == "pressure":
            edge = np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= LX) | (v[:, 1] <= 0) |
                                  (v[:, 1] >= LY))
            scene.add(sm.FixNodes(shell, nodes=edge, name="clamp"))
            scene.add(sm.ShellPressure(shell, 50.0))
        else:
            scene.add(sm.Gravity((0.0, -3.0, -9.81)))
            scene.add(sm.ShellDrag(shell, drag_coefficient=1.0, fluid_density=1.2))
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.step(60)
        final[engine] = sim.get_state("plate")
    displacement = final["unified"]["positions"][0] - plate_mesh()[0]
    if load == "pressure":
        assert np.abs(displacement).max() > 1e-4
    else:
        # without drag backward Euler translates the plate by g h^2 n (n + 1) / 2; the drag acts
        # on the normal (z) velocity only: in the plane the nodes move freely (to round-off),
        # across it they lag by ~ rho_f C_d g_z^2 t^4 / (24 rho h) (the drag 1/2 rho_f C_d v^2
        # per area on v = g_z t, over the mass rho h per area): 6.24e-5 m at t = 60 ms (measured
        # 6.62e-5 m: backward Euler's velocities lead; 10 % allowed)
        free = np.array([0.0, -3.0, -9.81]) * 1e-6 * 60 * 61 / 2
        lag = displacement - free
        assert np.abs(lag[:, :2]).max() < 1e-15
        expected = 1.2 * 1.0 * 9.81 ** 2 * 0.06 ** 4 / (24 * RHO * H)
        np.testing.assert_allclose(lag[:, 2], expected, rtol=0.1)
    assert np.abs(final["unified"]["positions"][0] - final["discrete"]["positions"][0]).max() < 1e-10
