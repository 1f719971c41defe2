"""The shells' lanes kernels (softmech.kernels.shell_lanes): the unified engine's force pass of
a block of several worlds computes each world's stretching, hinge bending and pressure forces
bit for bit as the per-world kernels (shell_stretch.stretch_forces, shell_hinge.hinge_forces,
shell_loads.pressure_forces) do, so a batch equals its worlds run one by one, and a world's
forces do not depend on the others'."""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from softmech.bodies.shell import _node_dofs
from softmech.kernels import shell_lanes
from softmech.kernels.shell_hinge import hinge_forces
from softmech.kernels.shell_loads import pressure_forces
from softmech.kernels.shell_stretch import stretch_forces


def plate_stencils():
    """A 9 x 9-node hinge plate's (vertices (n, 3), edge DOFs (e, 6), hinge DOFs (h, 12),
    rest lengths (e,), stretching and hinge stiffnesses, triangle DOFs (t, 9)), nodes numbered
    as built."""
    mesh = meshes.rectangle(1.0, 1.0, 9)
    shell = sm.Scene().add_shell(name="p", mesh=mesh, thickness=1e-3, youngs_modulus=1e9,
                                 density=1000.0, bending="hinge")
    nodes = np.arange(len(mesh.vertices))
    return (mesh.vertices, _node_dofs(nodes[shell.edges]).astype(np.int64),
            _node_dofs(nodes[shell.hinges]).reshape(-1, 12).astype(np.int64),
            shell.edge_length, shell.stretch_stiffness, shell.hinge_stiffness,
            _node_dofs(nodes[shell.triangles]).astype(np.int64))


@pytest.mark.parametrize("W", [2, 3, 8])
def test_each_lane_gets_the_per_world_kernels_forces_bit_for_bit(W):
    """W worlds of one plate, each bent and stretched by its own random displacements (up to
    2 cm on a 12.5 cm mesh: hinge angles of tenths of a radian), with its own natural angles
    and pressure: the lanes kernels' forces of each lane equal the per-world kernels' (F
    zeroed, the edges, the hinges, then the triangles' pressure), every entry exactly."""
    vertices, edges, hinges, rest_len, k_s, k_h, triangles = plate_stencils()
    n = len(vertices)
    rng = np.random.default_rng(W)
    X = vertices[None] + 0.02 * rng.standard_normal((W, n, 3))
    rest = 0.3 * rng.standard_normal((W, len(hinges)))
    pressure = 1e3 * rng.standard_normal(W)
    x = np.ascontiguousarray(X.transpose(2, 1, 0)).reshape(-1)    # (3, n, W) block field
    F = np.zeros_like(x)
    scratch = np.zeros(shell_lanes.HINGE_ROWS * shell_lanes.L)
    shell_lanes.stretch_forces_lanes(x, F, edges, rest_len, k_s, W, scratch)
    shell_lanes.hinge_forces_lanes(x, F, hinges, rest, k_h, W, scratch)
    shell_lanes.pressure_forces_lanes(x, F, triangles, pressure, W, scratch)
    lanes = F.reshape(3, n, W)
    for w in range(W):
        one = np.zeros(3 * n)
        q = np.ascontiguousarray(X[w].reshape(-1))
        stretch_forces(q, edges, rest_len, k_s, False, one, np.zeros(0))
        hinge_forces(q, hinges, rest[w], k_h, False, one, np.zeros(0))
        pressure_forces(q, triangles, pressure[w], False, one, np.zeros(0))
        assert np.abs(one).max() > 1.0                 # (loaded: forces of newtons)
        np.testing.assert_array_equal(lanes[:, :, w], one.reshape(n, 3).T)


def pressed_plate(pressures):
    """A clamped 9 x 9-node plate under per-world pressures [Pa] on the unified engine, one
    world per pressure."""
    mesh = meshes.rectangle(1.0, 1.0, 9)
    v = mesh.vertices
    scene = sm.Scene()
    scene.add_shell(name="plate", mesh=mesh, thickness=1e-3, youngs_modulus=1e9,
                    density=1000.0, bending="hinge")
    scene.add(sm.FixNodes("plate", np.flatnonzero((v[:, 0] <= 0) | (v[:, 0] >= 1))))
    scene.add(sm.ShellPressure("plate", 10.0))
    sim = scene.compile(worlds=len(pressures), dt=1e-3, engine="unified")
    sim.params["pressure.pressure"] = pressures
    return sim


def test_a_batch_of_shells_equals_its_worlds_run_alone_bit_for_bit():
    """Three plates under 10, -30 and 60 Pa in blocks of several worlds (the lanes force pass)
    end 30 steps where each alone ends (one world: the per-world kernels), exactly."""
    pressures = [10.0, -30.0, 60.0]
    batch = pressed_plate(pressures)
    assert batch.implicit_integrator().lanes.W > 1          # (the lanes kernels run)
    out = batch.run(0.03, record=sm.Every(0.01, ("plate.positions",)))["plate.positions"]
    assert len({float(out[b, -1, :, 2].max()) for b in range(3)}) == 3    # worlds differ
    for b, p in enumerate(pressures):
        alone = pressed_plate([p]).run(0.03, record=sm.Every(0.01, ("plate.positions",)))
        np.testing.assert_array_equal(alone["plate.positions"][0], out[b])
