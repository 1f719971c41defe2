"""The rigid motions of the implicit DOFs (softmech.implicit.near_null.RigidModes), the
near-null space of the multigrid solver: at a body's rest shape (no force), its elastic
stiffness dF/dq maps each of the six modes to zero force -- node translations and rotations,
and for the angle DOFs (rod twists, mid-edge normal angles, a rod-shell joint's edge twists)
the rotation's component along their edge. A wrong sign or a missing angle part gives forces
~1e-5 of the stiffness's largest entry (checked too: the test can fail).

The mid-edge model is rotation invariant only up to its frames: tau_e and n0_e are fixed
during a step (ref. 004 section 3.3.2), and a triangle's a_i changes under a rotation omega by
terms in omega . e_hat (1 - n . n0) and omega . (n x n0), zero where the triangle's normal n is
its edge's n0 (a flat shell) and of the order of the dihedral angle elsewhere."""
import numpy as np
import pytest
import scipy.sparse

import softmech as sm
from softmech.bodies import meshes
from softmech.implicit.near_null import RigidModes


def curved_plate(bending, bump=0.02):
    """A free shell whose rest shape is a doubly curved cap of height `bump` [m] on a tilted
    plane (not axis-aligned; flat for bump = 0)."""
    mesh = meshes.rectangle(0.1, 0.08, 6)
    v = mesh.vertices.copy()
    v[:, 2] = bump * np.sin(np.pi * v[:, 0] / 0.1) * np.sin(np.pi * v[:, 1] / 0.08) + 0.3 * v[:, 0]
    scene = sm.Scene()
    scene.add_shell(name="plate", mesh=meshes.TriangleMesh(v, mesh.triangles), thickness=1e-3,
                    youngs_modulus=1e9, density=1000.0, bending=bending)
    return scene


def helix():
    """A free discrete rod along a helix (curved and twisted rest shape)."""
    s = np.linspace(0.0, 3.0, 25)
    x = np.stack([0.05 * np.cos(s), 0.05 * np.sin(s), 0.02 * s + 0.01 * s ** 2], axis=1)
    scene = sm.Scene()
    scene.add_der_rod(name="rod", centerline=x, radius=2e-3, density=1000.0,
                      youngs_modulus=1e9, natural_curvature="initial", natural_twist="initial")
    return scene


def rod_on_plate():
    """A rod standing on a (free) plate through a rod-shell joint."""
    scene = sm.Scene()
    plate = scene.add_shell(name="plate", mesh=meshes.rectangle(0.04, 0.04, 6,
                                                                origin=(-0.02, -0.02, 0.0)),
                            thickness=2e-3, youngs_modulus=1e10, density=1000.0)
    c = int(np.argmin(np.linalg.norm(plate.vertices, axis=1)))
    x = plate.vertices[c] + np.outer(np.arange(8) * 0.01, [0.2, 0.1, 1.0])
    rod = scene.add_der_rod(name="rod", centerline=x, radius=2e-3, density=1000.0,
                            youngs_modulus=1e9, normal=(1.0, 0.0, 0.0))
    scene.add(sm.RodShellJoint(rod, 0, plate, c, name="joint"))
    return scene


def stiffness_and_modes(scene):
    """dF/dq (n_dof, n_dof) at the compiled scene's initial (rest) state and its rigid modes
    (n_dof, 6) with the angle DOFs' part (mask of those DOFs)."""
    sim = scene.compile(dt=1e-3, engine="discrete")   # (the discrete engine's multigrid's)
    st = sim.stepper
    q = sim.q[0].copy()
    st._begin(0, q, 0.0)
    F, J = st.forces(0, q, np.zeros_like(q), 0.0, np.inf)
    assert np.abs(F).max() < 1e-9 * np.abs(J).max()               # the rest shape: no force
    rows = np.concatenate([bd.rows for bd in st.bindings])
    cols = np.concatenate([bd.cols for bd in st.bindings])
    K = scipy.sparse.coo_matrix((J, (rows, cols)), shape=(q.size, q.size)).tocsr()
    modes = RigidModes.from_layout(sim.layout)
    B = modes.modes(q, np.arange(q.size))
    return K, B, modes.axis_to >= 0


def worst_force(K, B):
    """The largest force of the modes' columns over K's largest entry."""
    return max(np.abs(K @ B[:, k]).max() for k in range(B.shape[1])) / abs(K).max()


@pytest.mark.parametrize("build", [lambda: curved_plate("hinge"),
                                   lambda: curved_plate("midedge", bump=0.0), helix, rod_on_plate],
                         ids=["hinge shell", "flat mid-edge shell", "rod", "rod-shell joint"])
def test_rigid_modes_give_no_elastic_force(build):
    K, B, angles = stiffness_and_modes(build())
    # exact to first order: round-off of K's entries (~1e-16 relative) summed over a row (the
    # bodies are ~0.1 m: |B| <= ~1); measured 1e-16 to 1e-18
    assert worst_force(K, B) <= 1e-13
    if angles.any():
        # the angles' part matters: without it, or with the wrong sign, the rotations load the
        # body (measured 2e-6 to 6e-5)
        for wrong in (0.0, -1.0):
            C = B.copy()
            C[angles, 3:] *= wrong
            assert worst_force(K, C[:, 3:]) > 1e-7


def test_a_curved_mid_edge_shell_is_rotation_invariant_up_to_its_frames():
    # the translations exactly; the rotations up to the frames' dihedral-angle terms (module
    # docstring): measured 1e-7 of K's largest entry on this cap, 1/100 of the force without
    # the angles' part
    K, B, angles = stiffness_and_modes(curved_plate("midedge"))
    assert worst_force(K, B[:, :3]) <= 1e-13
    C = B.copy()
    C[angles, 3:] = 0.0
    assert worst_force(K, B[:, 3:]) <= 0.03 * worst_force(K, C[:, 3:])


def test_modes_of_the_free_dofs_only():
    # a constrained DOF is not in the solve: the modes are rows of the free DOFs, the rotation
    # centre the free nodes' centroid, the translations unit entries of their own component
    sim = curved_plate("midedge").compile(dt=1e-3, engine="discrete")
    modes = RigidModes.from_layout(sim.layout)
    q = sim.q[0]
    free = np.arange(5, q.size, 2)
    B = modes.modes(q, free)
    assert B.shape == (free.size, 6)
    comp = modes.component[free]
    np.testing.assert_array_equal(B[comp >= 0, :3], np.eye(3)[comp[comp >= 0]])
    assert np.all(B[comp < 0, :3] == 0)
    # the angles' rotation part is a unit vector (their edge's direction)
    np.testing.assert_allclose(np.linalg.norm(B[comp < 0, 3:], axis=1), 1.0, rtol=1e-12)
    owner = modes.owners(free)
    assert owner.max() + 1 == np.unique(modes.node[free]).size == modes.n_nodes(free)
    # a shell's nodes are surface nodes (DofLayout.add_nodes(surface=True))
    assert modes.surface.all() and modes.n_nodes(free, surface=True) == modes.n_nodes(free)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="one entry per DOF"):
        RigidModes([0, 1, 2], [0, 0], [-1, -1, -1])
    with pytest.raises(ValueError, match="one entry per DOF"):
        RigidModes([0, 1, 2], [0, 0, 0], [-1, -1, -1], surface=[True])
    with pytest.raises(ValueError, match="component"):
        RigidModes([0, 1, 3], [0, 0, 0], [-1, -1, -1])
