"""Rod-shell joint springs (softmech.terms.rod_shell_joint, ref. 004 section 3.4): gradient and
Hessian against finite differences of the joint's energy, no work in rigid motions, no force in
the joint's as-built shape, at both ends of a rod, at an interior rod node (the rod passing
through the plate), and on both shell bending models.

As in test_der_energies, the frames are "fresh" at the point q0 of each check (accepted there).
"""
import numpy as np
import pytest

import softmech as sm
from softmech.bodies import meshes
from test_der_energies import evaluate, rigid_rotation


def joint_scene(rod_node, bending):
    """A tilted rod (4 edges) whose node `rod_node` (an end: 0 or 4; interior: 2, the rod
    passing through the plate) sits on an interior node of a free plate."""
    scene = sm.Scene()
    plate = scene.add_shell(name="plate", mesh=meshes.rectangle(0.6, 0.4, 4), thickness=0.01,
                            youngs_modulus=1e6, density=1000.0, bending=bending)
    centre = plate.vertices.mean(axis=0)
    c = int(np.argmin(np.linalg.norm(plate.vertices - centre, axis=1)))
    direction = np.array([0.3, -0.2, 1.0]) / np.linalg.norm([0.3, -0.2, 1.0])
    s = np.linspace(0.0, 0.5, 5)
    s = s - s[rod_node] if rod_node in (0, 2) else s[::-1]
    x = plate.vertices[c] + np.outer(s, direction)
    rod = scene.add_der_rod(name="rod", centerline=x, radius=0.02, density=1000.0,
                            youngs_modulus=1e6, twist=0.2)
    joint = scene.add(sm.RodShellJoint(rod, rod_node, plate, c, name="joint"))
    sim = scene.compile(dt=1e-3, engine="discrete")   # (its bindings are what is tested)
    binding = next(bd for bd in sim.stepper.bindings if bd.name == "joint.bend_twist")
    return sim, joint, binding


CASES = [(node, bending) for node in (0, 4, 2) for bending in ("hinge", "midedge")]


def deformed(sim, seed, scale=0.01):
    return sim.layout.q0 + scale * np.random.default_rng(seed).normal(size=sim.layout.n_dof)


@pytest.mark.parametrize("rod_node, bending", CASES)
def test_joint_gradient_and_hessian_match_finite_differences(rod_node, bending):
    sim, joint, binding = joint_scene(rod_node, bending)
    # the joint's springs: every pair of its edges (the rod's and the plate's six at an
    # interior node): 7 choose 2 at a rod's end; at an interior rod node 8 choose 2 less the
    # rod's own spring between its two edges (in the rod's energy already): 27
    assert len(binding.spring_dofs) == (27 if rod_node == 2 else 21)
    dofs = np.unique(binding.spring_dofs)
    rng = np.random.default_rng(1)
    for seed in range(2):
        q0 = deformed(sim, seed)
        binding.accept(0, q0)
        g, H = evaluate(binding, q0)
        h = 1e-6
        fd = np.zeros_like(g)
        for i in dofs:
            e = np.zeros_like(q0)
            e[i] = h
            fd[i] = (binding.energy(0, q0 + e) - binding.energy(0, q0 - e)) / (2 * h)
        # central differences: truncation ~h^2 |E'''|, round-off ~1e-16 E / h (as the rod's)
        assert np.abs(g - fd).max() <= 1e-6 * np.abs(fd).max(), seed
        assert np.abs(H - H.T).max() <= 1e-12 * np.abs(H).max()
        h2, e0 = 1e-4, binding.energy(0, q0)
        for _ in range(5):
            d = np.zeros_like(q0)
            d[dofs] = rng.normal(size=len(dofs))
            fd2 = (binding.energy(0, q0 + h2 * d) - 2 * e0 + binding.energy(0, q0 - h2 * d)) / h2**2
            # second differences: truncation h^2 |E''''| / 12, round-off 4e-16 E / h^2
            assert abs(d @ H @ d - fd2) <= 2e-5 * abs(d) @ np.abs(H) @ abs(d), seed


@pytest.mark.parametrize("rod_node, bending", CASES)
def test_joint_rigid_motions_do_no_work_and_the_built_shape_is_at_rest(rod_node, bending):
    sim, joint, binding = joint_scene(rod_node, bending)
    g0, _ = evaluate(binding, sim.layout.q0)
    EI = 1e6 * np.pi * 0.02 ** 4 / 4
    # as built: no joint force (round-off of forces of size EI / l ~ 1e-1 N m)
    assert np.abs(g0).max() <= 1e-12
    net = joint.network
    nd = sim.layout.node_dof(net.nodes)
    for seed in range(3):
        q0 = deformed(sim, seed)
        binding.accept(0, q0)
        g, _ = evaluate(binding, q0)
        scale = np.abs(g).max()
        assert scale > 1e-3 * EI                 # deformed: the check below can fail
        assert np.abs(g[nd].sum(axis=0)).max() <= 1e-12 * scale * len(nd)
        for omega in np.eye(3):
            dq = rigid_rotation(net, sim.layout, binding, q0, omega)
            assert abs(g @ dq) <= 1e-12 * scale * np.abs(dq).sum()
