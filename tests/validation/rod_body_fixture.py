"""A helper of the rod-rigid-body contact tests (test_rod_body_contact.py: convex bodies,
test_rod_mesh_contact.py: mesh bodies), on a scene of one world (B = 1, W = 1) holding one
Cosserat rod and one rigid body. Their momenta: softmech.validation.friction_point.momenta."""
import numpy as np


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
