"""The shell's bending Poisson coupling (softmech.kernels.axisym_shell.bending_coupling) is
conservative: its loads are minus the gradient of its energy

    E = sum_j A_j D nu kappa_s,j dk_j,  kappa_s,j = -(theta_j - theta0_j) / D^_j,
    dk_j = (dk_j-1 + dk_j) / 2,  dk_e = (d3_e . a) / r_m,e - k0_e

(the kernel module's docstring), checked by central finite differences on a curved, perturbed
meridian for the axisymmetric virtual motions: node displacements in the meridian plane and
element rotations about the hoop direction. Relative tolerance 1e-6 of the largest load (the
differences' truncation error ~ h^2 with h = 1e-6 m / 1e-6 rad)."""
import numpy as np

import softmech as sm
from softmech.bodies.axisym_shell import meridian_rod
from softmech.kernels.axisym_shell import (
    SE_D,
    SE_K0,
    SE_L0,
    SE_NU,
    SE_R0,
    SE_TH0,
    bending_coupling,
)

AXIS = np.array([0.0, 0.0, 1.0])


def perturbed_shell():
    """A spherical zone (R = 50 mm, 8 elements, nu = 0.3), nodes moved in the meridian (x, z)
    plane and elements turned about the hoop direction y at random: (sim, its shell arguments)."""
    phi = np.linspace(0.3, 2.5, 9)
    r, z = 0.05 * np.sin(phi), 0.05 * np.cos(phi)
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(**meridian_rod("m", r, z, thickness=2e-3, density=1000.0,
                                                youngs_modulus=1e5, poisson_ratio=0.3))
    scene.add(sm.AxisymmetricShell(rod, thickness=2e-3, youngs_modulus=1e5, poisson_ratio=0.3))
    sim = scene.compile(dt=1e-6)
    rng = np.random.default_rng(5)
    state = sim.get_state("m")
    x = state["positions"][0].copy()
    x[:, [0, 2]] += rng.uniform(-2e-3, 2e-3, size=(len(x), 2))
    Q = np.array([q @ turn_y(a).T for q, a in zip(state["directors"][0],
                                                   rng.uniform(-0.2, 0.2, len(x) - 1))])
    sim.set_state("m", positions=x, directors=Q)
    return sim, sim._engine().call_args("axisym_shells")


def turn_y(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def coupling_energy(x, Q, table):
    """E of the module docstring [J] from node positions x (n + 1, 3), directors Q (n, 3, 3)."""
    r = np.linalg.norm(x - np.outer(x @ AXIS, AXIS), axis=1)
    rm = 0.5 * (r[1:] + r[:-1])
    dk = Q[:, 2] @ AXIS / rm - table[:, SE_K0]
    energy = 0.0
    for j in range(1, len(Q)):
        d2 = Q[j - 1, 1] + Q[j, 1]
        d2 /= np.linalg.norm(d2)
        theta = np.arctan2(np.cross(Q[j - 1, 2], Q[j, 2]) @ d2, Q[j - 1, 2] @ Q[j, 2])
        lv = 0.5 * (table[j - 1, SE_L0] + table[j, SE_L0])
        area = 2 * np.pi * 0.5 * (table[j - 1, SE_R0] + table[j, SE_R0]) * lv
        kappa_s = -(theta - table[j, SE_TH0]) / lv
        energy += area * table[j, SE_D] * table[j, SE_NU] * kappa_s * 0.5 * (dk[j - 1] + dk[j])
    return energy


def test_bending_coupling_loads_are_minus_its_energy_gradient():
    sim, a = perturbed_shell()
    W, n_e = sim.lanes.W, a.sh_e0[1]
    nodes = (a.sh_node0[0] + np.arange(n_e + 1)) * W
    elems = (a.sh_elem0[0] + np.arange(n_e)) * W
    a.node_force[...] = 0.0
    a.elem_couple[...] = 0.0
    for j in range(1, n_e):
        bending_coupling(a, 0, W, 0, 0, j, (0.0, 0.0, 0.0), tuple(AXIS), (0.0, 0.0, 0.0),
                         (0.0, 0.0, 0.0), 0.0)
    force = a.node_force[0][:, nodes].T                                   # (n + 1, 3)
    Q = np.stack([a.Q[0][:, k].reshape(3, 3) for k in elems])
    couple = np.einsum("kji,kj->ki", Q, a.elem_couple[0][:, elems].T)     # lab frame
    x = a.x[0][:, nodes].T.copy()
    table = a.sh_elem[:n_e]
    assert np.abs(table[:, SE_NU] - 0.3).max() == 0 and np.abs(force).max() > 0

    h = 1e-6
    fd_force = np.zeros_like(force)
    for i in range(n_e + 1):
        for d in (0, 2):                                  # in the meridian plane
            up, down = x.copy(), x.copy()
            up[i, d] += h
            down[i, d] -= h
            fd_force[i, d] = -(coupling_energy(up, Q, table)
                               - coupling_energy(down, Q, table)) / (2 * h)
    fd_couple = np.zeros(n_e)
    for k in range(n_e):                                  # about the hoop direction y
        up, down = Q.copy(), Q.copy()
        up[k] = Q[k] @ turn_y(h).T
        down[k] = Q[k] @ turn_y(-h).T
        fd_couple[k] = -(coupling_energy(x, up, table) - coupling_energy(x, down, table)) / (2 * h)
    scale_f, scale_c = np.abs(fd_force).max(), np.abs(fd_couple).max()
    assert scale_f > 0 and scale_c > 0
    np.testing.assert_allclose(force[:, [0, 2]], fd_force[:, [0, 2]], rtol=0, atol=1e-6 * scale_f)
    np.testing.assert_allclose(couple[:, 1], fd_couple, rtol=0, atol=1e-6 * scale_c)
    np.testing.assert_allclose(force[:, 1], 0.0, atol=1e-12 * scale_f)   # axisymmetric loads
    np.testing.assert_allclose(couple[:, [0, 2]], 0.0, atol=1e-12 * scale_c)
