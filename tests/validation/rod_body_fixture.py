"""Helpers of the rod-rigid-body contact tests (test_rod_body_contact.py: convex bodies,
test_rod_mesh_contact.py: mesh bodies), on a scene of one world (B = 1, W = 1) holding a
Cosserat rod "rod" of 21 nodes and a free rigid body "body", no gravity or friction."""
import numpy as np

from softmech.terms.rod_body_contact import body_contact_stats
from softmech.validation.friction_point import momenta


def contact_balance(sim, call, kernel):
    """The contact kernel `kernel` of the step's call named `call` ("rod_body_contacts",
    "rod_mesh_contacts") alone at the current state: total force [N] and total torque about
    the origin [N m], each (3,), of what it puts on the rod nodes and on the body; the size of
    the rod's torque [N m]; the largest component of the body's force [N]."""
    a = sim._engine().call_args(call)
    for out in (a.node_force, a.rb_force, a.rb_torque):
        out[...] = 0.0          # the next force pass rewrites them
    kernel(a, 0, 1, sim.time)
    n = sim.rods[0].n_nodes
    x, f = a.x[0, :, :n], a.node_force[0, :, :n]           # (3, n): B = 1, W = 1
    Q = a.rb_Q[0, :, 0].reshape(3, 3)
    rod_torque = np.cross(x.T, f.T).sum(axis=0)
    force = f.sum(axis=1) + a.rb_force[0, :, 0]
    torque = rod_torque + np.cross(a.rb_x[0, :, 0], a.rb_force[0, :, 0]) + Q.T @ a.rb_torque[0, :, 0]
    return force, torque, np.linalg.norm(rod_torque), np.abs(a.rb_force).max()


def thrown_rod_balance(sim, call, kernel, *, samples, steps, checks, max_overlap):
    """Throw the rod at v = (0.02, 0, -0.5) m/s and step it `samples` x `steps` steps. At each
    of the first `checks` samples in contact, the contact kernel alone (contact_balance) must
    put no net force (<= 1e-12 of the body's largest force component) and no net torque
    (<= 1e-12 of the rod's torque) on rod and body; over the run the linear momentum
    [kg m/s] is conserved to 1e-9 |P0| and the angular momentum [kg m^2/s] to 1e-7 |L0|
    (softmech.validation.friction_point.momenta), the body must be hit (its momentum > 20 % of
    the rod's) and the largest overlap (body_contact_stats, at the samples) stay in
    (0, max_overlap) [fraction of the rod's radius]; more than 10 samples must be checked."""
    sim.set_state("rod", velocities=np.broadcast_to(np.array([0.02, 0.0, -0.5]), (1, 21, 3)))
    p0, l0 = momenta(sim, ("rod", "body"))
    worst, balanced = 0.0, 0
    for _ in range(samples):
        sim.step(steps)
        overlap, touching = body_contact_stats(sim)[0]
        worst = max(worst, overlap)
        if touching and balanced < checks:
            force, torque, scale, body_force = contact_balance(sim, call, kernel)
            assert np.abs(force).max() <= 1e-12 * body_force
            assert np.abs(torque).max() <= 1e-12 * scale
            balanced += 1
    p1, l1 = momenta(sim, ("rod", "body"))
    body = sim.diagnostics("body")["linear_momentum"][0]
    assert balanced > 10
    assert np.linalg.norm(body) > 0.2 * np.linalg.norm(p0)
    assert 0.0 < worst < max_overlap
    np.testing.assert_allclose(p1, p0, rtol=0, atol=1e-9 * np.linalg.norm(p0))
    np.testing.assert_allclose(l1, l0, rtol=0, atol=1e-7 * np.linalg.norm(l0))
