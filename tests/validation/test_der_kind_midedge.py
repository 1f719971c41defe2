"""Discrete shells with mid-edge bending on the unified engine's discrete kind (softmech.terms.
der_shell.midedge_calls, softmech.kernels.der_shell_midedge): DisMech's mid-edge shell (ref. 004
sec. 3.3.2, eqs. 19-20: one angle xi per edge, the edge frames set from the positions at each
step's start) as nodes and edges of the kind. Checked against the discrete engine, which steps
the same model with analytic Jacobians (and is validated against Euler-Bernoulli in
test_dismech_cantilever.py), against the explicit stability bound and the order of position
Verlet."""
import numpy as np
import pytest

import softmech as sm

from test_der_kind_shells import (H, LX, NX, RHO, TIGHT, assert_restarts_bit_for_bit,
                                  assert_worlds_take_their_own_rest_shape,
                                  beside_a_rod_and_a_ball, checked_step, plate)


def clamped_midedge_plate(scene, hold_angles):
    """The 8 x 3 plate (0.1 x 0.03 m, h = 1 mm, E = 10 MPa) with mid-edge bending, clamped along
    its first two columns of nodes (and, with hold_angles, the angles xi of the edges between
    them: a clamp that also holds the mid-edge normals), under gravity."""
    shell = plate(scene, bending="midedge")
    nodes = np.flatnonzero(shell.vertices[:, 0] < LX / NX + 1e-9)
    angles = np.flatnonzero(np.isin(shell.edges, nodes).all(axis=1)) if hold_angles else ()
    scene.add(sm.FixNodes(shell, nodes=nodes, angles=angles, name="clamp"))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return shell


@pytest.mark.parametrize("hold_angles", [False, True])
def test_a_sagging_midedge_plate_moves_as_in_the_discrete_engine(hold_angles):
    """100 implicit Euler steps of 1 ms of the clamped plate falling under gravity: every node
    equal to the discrete engine's within 1e-10 m and every angle xi within 1e-9 (measured
    2026-12-01: 3.4e-14 m and 5.4e-13 with the nodes clamped, 7.1e-14 m and 5.9e-13 with the
    13 edges between them held too; the free edge 5.8 and 5.6 cm down): the same stretching
    and mid-edge kernels, masses and angle inertias, the frames set from the step's start
    positions (held edges: those of the built shape) and the same backward Euler equations;
    the unified engine's Jacobian is its probed finite-difference one."""
    final = {}
    for engine in ("unified", "discrete"):
        scene = sm.Scene()
        clamped_midedge_plate(scene, hold_angles)
        sim = scene.compile(dt=1e-3, engine=engine, newton=TIGHT[engine])
        sim.step(100)
        final[engine] = sim.get_state("plate")
    assert final["discrete"]["positions"][0, :, 2].min() < -0.03
    assert np.abs(final["unified"]["positions"] - final["discrete"]["positions"]).max() < 1e-10
    assert np.abs(final["unified"]["angles"] - final["discrete"]["angles"]).max() < 1e-9


def free_plate_sim(dt, worlds=1):
    """The mid-edge plate free in space with a natural curvature it does not have (a cylinder
    of radius 0.1 m about y), spinning at 2 rad/s about z and drifting, under position
    Verlet."""
    scene = sm.Scene()
    plate(scene, bending="midedge", natural_curvature=(10.0, 0.0, 0.0))
    sim = scene.compile(dt=dt, worlds=worlds, engine="unified", scheme="verlet")
    x = sim.get_state("plate")["positions"]
    sim.set_state("plate", velocities=np.cross([0.0, 0.0, 2.0], x) + [0.05, 0.0, 0.01])
    return sim


def test_a_free_curling_midedge_plate_under_verlet_is_second_order():
    """The free plate curls for 2 ms under position Verlet at dt = 8, 4, 2 and 1 us: the
    positions at dt against those at 1 us fall 4x from dt to dt / 2 (second order; within 20 %,
    measured 4.20), the linear momentum stays (1e-12 of its scale: the forces are internal;
    measured 7e-20 kg m/s) and the bending energy goes into motion. Neither energy nor
    angular momentum is conserved, in either engine: the frames (tau, n0) are reset to each
    step's start (ref. 004 sec. 3.3.2), which makes the bending forces non-conservative; the
    free plate gains energy (1.4e-4 to 9.8e-3 J in 0.1 s at dt = 10 us, and diverges within
    0.2 s, as the discrete engine's symplectic Euler does), which implicit Euler damps
    (docs/shells.md)."""
    final = {}
    for dt in (8e-6, 4e-6, 2e-6, 1e-6):
        sim = free_plate_sim(dt)
        d0 = sim.diagnostics("plate")
        sim.step(int(round(2e-3 / dt)))
        d1 = sim.diagnostics("plate")
        final[dt] = sim.get_state("plate")["positions"][0]
        p0 = d0["linear_momentum"][0]
        assert np.abs(d1["linear_momentum"][0] - p0).max() < 1e-12 * np.abs(p0).max()
        assert d1["bending_energy"][0] < 0.95 * d0["bending_energy"][0]
    errors = [np.abs(final[dt] - final[1e-6]).max() for dt in (8e-6, 4e-6)]
    assert 4.0 / 1.2 < errors[0] / errors[1] < 4.0 * 1.2, errors


def test_the_explicit_limit_bounds_the_highest_frequency_with_the_angles():
    """The explicit limit (softmech.shell_packing.shell_time_step_limit: a Gershgorin bound on
    the mass-weighted stiffness of the stretching springs and the mid-edge triangles, whose
    angles xi weigh with their inertias rho h A_strip l^2 / 12) is below the exact 2 / omega_max
    of the flat plate (the eigenvalues of M^-1/2 K M^-1/2 over nodes and angles, K from the
    kernels' Jacobian blocks) and not far below it (> 0.5; measured 2026-12-01: 0.87);
    position Verlet at 0.9 of the checked limit stays bounded over 2,000 steps (0.1 s; not
    longer: the model's own energy gain, above, ends a free run within ~1 s at any step)."""
    from softmech.bodies.shell import _node_dofs
    from softmech.kernels.shell_midedge import midedge_forces
    from softmech.kernels.shell_stretch import stretch_forces
    from softmech.shell_packing import midedge_dofs, shell_edge_frames, shell_edge_inertia

    sim = free_plate_sim(1e-6)
    shell = sim.der_shells[0]
    q = np.concatenate([shell.vertices.ravel(), np.zeros(len(shell.edges))])
    K = np.zeros((q.size, q.size))
    F = np.zeros_like(q)
    edges = _node_dofs(shell.edges)
    J = np.zeros(36 * len(edges))
    stretch_forces(q, edges, shell.edge_length, shell.stretch_stiffness, True, F, J)
    for row, block in zip(edges, J.reshape(-1, 6, 6)):
        K[np.ix_(row, row)] -= block
    stencils = midedge_dofs(shell.triangles, shell.tri_edges, len(shell.vertices))
    tau, n0 = shell_edge_frames(shell, shell.vertices)
    J = np.zeros(144 * len(stencils))
    midedge_forces(q, stencils, shell.tri_edges, shell.tri_edge_sign.astype(float), tau, n0,
                   shell.length_over_area, shell.midedge_stiffness,
                   np.ascontiguousarray(sim.params["plate.rest_curvature"][0]), np.zeros(160),
                   True, F, J)
    for row, block in zip(stencils, J.reshape(-1, 12, 12)):
        K[np.ix_(row, row)] -= block
    m = np.concatenate([np.repeat(RHO * H * shell.node_areas(), 3), shell_edge_inertia(shell)])
    fast = free_plate_sim(checked_step(sim, K, m))
    fast.step(2000)
    state = fast.get_state("plate")
    assert np.abs(state["positions"]).max() < 1.0 and np.abs(state["angles"]).max() < 10.0


def mixed_sim():
    """The clamped mid-edge plate beside a Cosserat rod and a rigid sphere, compiled with
    defaults."""
    scene = sm.Scene()
    clamped_midedge_plate(scene, hold_angles=True)
    return beside_a_rod_and_a_ball(scene)


def test_a_midedge_shell_beside_cosserat_rods_compiles_unified_and_restarts():
    """A scene mixing the mid-edge plate with a Cosserat rod and a rigid body compiles to the
    unified engine by default; a run split in two with a state file saved and loaded between
    equals the unsplit run bit for bit (its state: positions, velocities, the angles and their
    rates; the frames are a function of it)."""
    whole = assert_restarts_bit_for_bit(mixed_sim)
    assert whole.scheme == "implicit_euler" and [s.name for s in whole.der_shells] == ["plate"]
    assert np.abs(whole.get_state("plate")["angular_velocities"]).max() > 0.0


def test_worlds_of_a_batch_take_their_own_natural_curvatures():
    """Two worlds of the curling plate, the second given a flat natural curvature through its
    per-world parameter '<shell>.rest_curvature' (B, n_tris, 3): the first equals a single
    world's run bit for bit, the second stays flat (its heights equal to 1e-12 m while it
    drifts and spins: nothing bends it)."""
    assert_worlds_take_their_own_rest_shape(lambda worlds: free_plate_sim(2e-6, worlds),
                                            "plate.rest_curvature", 300, 1e-12)


def test_state_fields_of_a_midedge_shell():
    """get_state gives the discrete engine's keys (positions, velocities (B, n, 3); angles,
    angular_velocities (B, n_edges)); set_state writes them, checked before any is written,
    and refuses an unknown field by name."""
    sim = free_plate_sim(1e-6)
    state = sim.get_state("plate")
    shell = sim.der_shells[0]
    assert set(state) == {"positions", "velocities", "angles", "angular_velocities"}
    assert state["angles"].shape == (1, len(shell.edges))
    angles = np.linspace(0.0, 0.01, len(shell.edges))
    sim.set_state("plate", angles=angles)
    np.testing.assert_array_equal(sim.get_state("plate")["angles"][0], angles)
    with pytest.raises(ValueError, match="twist"):
        sim.set_state("plate", twist=angles)
    with pytest.raises(ValueError, match="angles"):
        sim.set_state("plate", angles=np.zeros(3))
    np.testing.assert_array_equal(sim.get_state("plate")["angles"][0], angles)
