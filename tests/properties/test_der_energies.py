"""Discrete elastic rod energies (softmech.terms.der_elasticity): gradients and Hessians against
finite differences, rigid-motion invariance, rest shapes, batching, and closed-form energies.

The frames are "fresh" at the point q0 of each check (the binding's accepted step is q0, as at
the first Newton iterate of every step): there the analytic gradient is the exact gradient of
the energy and the analytic Hessian the exact Hessian (see softmech.kernels.der_bend_twist).
"""
import numpy as np
import pytest

from softmech.bodies.der_rod import DerRod
from softmech.implicit.binding import ImplicitContext
from softmech.implicit.layout import DofLayout


def bind(rod, worlds=1, params=None):
    """(layout, bindings) of one rod, built as the implicit simulation builds them."""
    layout = DofLayout()
    rod.place(layout)
    layout.finalize()
    p = {f"{rod.name}.{k}": v for k, v in rod.parameters().items()}
    p.update(params or {})
    ctx = ImplicitContext(layout, worlds, {rod.name: rod}, p)
    return layout, rod.bind_implicit(ctx)


def evaluate(binding, q, b=0):
    """Gradient dE/dq (n,) and Hessian (n, n) from the binding's forces and Jacobian."""
    n = len(q)
    F, J = np.zeros(n), np.full(len(binding.rows), 0.0)
    binding.forces(b, q, np.zeros(n), 0.0, 1e-3, F, J)
    H = np.zeros((n, n))
    np.add.at(H, (binding.rows, binding.cols), J)
    return -F, -H


def helix(n, turns=0.3):
    s = np.linspace(0.0, 1.0, n + 1)
    return np.stack([np.cos(2 * np.pi * turns * s), np.sin(2 * np.pi * turns * s), 0.3 * s], 1)


def star():
    """A network: three arms of two edges meeting at node 0 (edges stored in both directions)."""
    x = np.array([[0, 0, 0], [0.3, 0, 0], [0.6, 0.05, 0], [-0.2, 0.25, 0.02], [-0.4, 0.5, 0.0],
                  [-0.15, -0.3, 0.05], [-0.3, -0.55, 0.1]], float)
    edges = [[0, 1], [1, 2], [3, 0], [4, 3], [0, 5], [5, 6]]
    return x, edges


def rods():
    rng = np.random.default_rng(7)
    yield "helix", DerRod("r", centerline=helix(7), radius=0.02, density=1000.0,
                          youngs_modulus=1e6, natural_curvature=rng.normal(0, 2, (6, 2)),
                          natural_twist=rng.normal(0, 1, 6), twist=rng.normal(0, 0.3, 7))
    x, edges = star()
    yield "network", DerRod("net", centerline=x, edges=edges, radius=0.01, density=1000.0,
                            youngs_modulus=1e6, natural_curvature="initial",
                            natural_twist="initial")


CASES = [(label, rod, k) for label, rod in rods() for k in range(2)]
IDS = [f"{label}-{('stretch', 'bend_twist')[k]}" for label, _, k in CASES]


def deformed(layout, seed, scale=0.03):
    return layout.q0 + scale * np.random.default_rng(seed).normal(size=layout.n_dof)


@pytest.mark.parametrize("label, rod, k", CASES, ids=IDS)
def test_gradient_matches_finite_differences_of_energy(label, rod, k):
    layout, bindings = bind(rod)
    binding = bindings[k]
    for seed in range(3):
        q0 = deformed(layout, seed)
        binding.accept(0, q0)
        g, _ = evaluate(binding, q0)
        h = 1e-6
        fd = np.array([(binding.energy(0, q0 + h * e) - binding.energy(0, q0 - h * e)) / (2 * h)
                       for e in np.eye(len(q0))])
        # central differences: truncation ~h^2 |E'''| and round-off ~1e-16 E / h; 1e-6 of the
        # largest component covers both for these O(1) energies
        assert np.abs(g - fd).max() <= 1e-6 * np.abs(fd).max(), (label, seed)


@pytest.mark.parametrize("label, rod, k", CASES, ids=IDS)
def test_hessian_matches_finite_differences(label, rod, k):
    layout, bindings = bind(rod)
    binding = bindings[k]
    rng = np.random.default_rng(3)
    for seed in range(3):
        q0 = deformed(layout, seed)
        binding.accept(0, q0)
        _, H = evaluate(binding, q0)
        assert np.abs(H - H.T).max() <= 1e-12 * np.abs(H).max()   # symmetric up to round-off
        h = 1e-6
        dg = np.array([(evaluate(binding, q0 + h * e)[0] - evaluate(binding, q0 - h * e)[0])
                       / (2 * h) for e in np.eye(len(q0))]).T
        # away from q0 the gradient uses frames transported from q0, whose holonomy makes its
        # derivative non-symmetric; the Hessian is its symmetric part (exact at q0)
        sym = 0.5 * (dg + dg.T)
        assert np.abs(H - sym).max() <= 1e-6 * np.abs(sym).max(), (label, seed)
        # and the true second derivative of the energy along random directions
        h2 = 1e-4
        e0 = binding.energy(0, q0)
        for _ in range(5):
            d = rng.normal(size=len(q0))
            fd2 = (binding.energy(0, q0 + h2 * d) - 2 * e0 + binding.energy(0, q0 - h2 * d)) / h2**2
            # second differences: truncation h^2 |E''''| / 12 and round-off 4e-16 E / h^2
            assert abs(d @ H @ d - fd2) <= 2e-5 * abs(d) @ np.abs(H) @ abs(d), (label, seed)


def rigid_rotation(rod, layout, binding, q, omega):
    """Generalized velocity dq (n,) of an infinitesimal rigid rotation omega (3,) about the
    origin: nodes move by omega x x; each twist angle by omega . t (the reference frame follows
    the tangent by parallel transport, so the material frame turns rigidly only if theta
    takes up the rotation about the tangent)."""
    nd = layout.node_dof(rod.nodes)
    tw = layout.scalar_dof(rod.scalars)
    dq = np.zeros(layout.n_dof)
    dq[nd] = np.cross(omega, q[nd])
    t, _, _, _ = binding.frames(0, q)
    dq[tw] = t @ omega
    return dq


@pytest.mark.parametrize("label, rod, k", CASES, ids=IDS)
def test_rigid_motions_do_no_work(label, rod, k):
    layout, bindings = bind(rod)
    binding = bindings[k]
    nd = layout.node_dof(rod.nodes)
    for seed in range(3):
        q0 = deformed(layout, seed)
        binding.accept(0, q0)
        g, _ = evaluate(binding, q0)
        scale = np.abs(g).max()
        # translation: the net force on the nodes vanishes
        assert np.abs(g[nd].sum(axis=0)).max() <= 1e-12 * scale * len(nd)
        for omega in np.eye(3):
            dq = rigid_rotation(rod, layout, bindings[1], q0, omega)
            assert abs(g @ dq) <= 1e-12 * scale * np.abs(dq).sum()


def rotation(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.cross(np.eye(3), axis)
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def test_rest_shape_and_its_rigid_motions_have_zero_force():
    # a curved, naturally twisted rest shape: natural curvature and twist "initial"
    rod = DerRod("r", centerline=helix(12, turns=0.6), radius=0.02, density=1000.0,
                 youngs_modulus=1e7, twist=np.linspace(0, 0.5, 12) ** 2,
                 natural_curvature="initial", natural_twist="initial")
    layout, (stretch, bend) = bind(rod)
    nd, tw = layout.node_dof(rod.nodes), layout.scalar_dof(rod.scalars)
    q0 = layout.q0
    # stiffness scale of a force: EI / l^2 (bending) and EA (stretching) times a 1e-3 strain
    unit = 1e-3 * max(rod.EA.max(), rod.EI.max() / rod.rest_lengths.min() ** 2)
    R = rotation((1.0, -2.0, 0.5), 2.0)
    q = q0.copy()
    q[nd] = q0[nd] @ R.T + np.array([0.3, -1.0, 2.0])
    # the material frames must turn with R: theta = angle from the transported a1 to R m1
    _, a1, a2, _ = bend.frames(0, q)
    t0 = np.diff(rod.positions, axis=0) / rod.rest_lengths[:, None]
    a2_0 = np.cross(t0, rod.a1_0)
    m1_old = np.cos(q0[tw])[:, None] * rod.a1_0 + np.sin(q0[tw])[:, None] * a2_0
    target = m1_old @ R.T
    q[tw] = np.arctan2(np.einsum("ij,ij->i", target, a2), np.einsum("ij,ij->i", target, a1))
    for state in (q0, q):
        for binding in (stretch, bend):
            g, _ = evaluate(binding, state)
            # round-off of O(1) coordinates in forces of size EA * 1 ... : 1e-9 of a 1e-3 strain
            assert np.abs(g).max() <= 1e-9 * unit, binding.name
    # a bent state has force of order `unit` (the check above can fail)
    bent = q0.copy()
    bent[nd[-1]] += 1e-3 * rod.rest_lengths.mean() * np.array([0.0, 0.0, 1.0])
    assert np.abs(evaluate(bend, bent)[0]).max() > 1e-3 * unit


def test_worlds_read_their_own_natural_curvature():
    rod = DerRod("r", centerline=helix(6), radius=0.02, density=1000.0, youngs_modulus=1e6)
    curv = np.random.default_rng(1).normal(size=(3, 5, 2))
    layout, (_, bend) = bind(rod, worlds=3, params={"r.natural_curvature": curv})
    for b in range(3):
        single = DerRod("r", centerline=helix(6), radius=0.02, density=1000.0,
                        youngs_modulus=1e6, natural_curvature=curv[b])
        _, (_, ref) = bind(single)
        assert bend.energy(b, layout.q0) == ref.energy(0, layout.q0)
    assert bend.energy(0, layout.q0) != bend.energy(1, layout.q0)


def test_closed_form_energies_of_an_arc_and_a_uniform_twist():
    """A regular polygon arc of turning angle phi per node has |kb| = 2 tan(phi / 2)
    (Bergou 2008 eq. 1), so E_b = (n - 1) EI / (2 l) (2 tan(phi / 2))^2; a straight rod with
    twist angles theta_j = j alpha has m = alpha at every spring: E_t = (n - 1) GJ alpha^2 / (2 l)
    (ref. 004 eqs. 14, 16)."""
    n, l, phi = 10, 0.05, 0.2
    ang = phi * np.arange(n + 1)
    arc = np.cumsum(np.stack([np.cos(ang), np.sin(ang), 0 * ang], 1) * l, axis=0)
    rod = DerRod("r", centerline=arc, radius=0.01, density=1000.0, youngs_modulus=1e7,
                 normal=(0, 0, 1))
    layout, (stretch, bend) = bind(rod)
    EI = rod.EI[0, 0]
    expected = (n - 1) * EI / (2 * l) * (2 * np.tan(phi / 2)) ** 2
    assert bend.energy(0, layout.q0) == pytest.approx(expected, rel=1e-12)
    assert stretch.energy(0, layout.q0) == 0.0

    alpha = 0.3
    rod = DerRod("r", start=(0, 0, 0), direction=(1, 1, 0), length=n * l, n_elems=n,
                 radius=0.01, density=1000.0, youngs_modulus=1e7, poisson_ratio=0.3)
    layout, (_, bend) = bind(rod)
    q = layout.q0.copy()
    q[layout.scalar_dof(rod.scalars)] = alpha * np.arange(n)
    GJ = 1e7 / 2.6 * np.pi * 0.01 ** 4 / 2
    assert bend.energy(0, q) == pytest.approx((n - 1) * GJ * alpha ** 2 / (2 * l), rel=1e-12)


def test_the_network_case_exercises_every_orientation_sign():
    # the checks above cover reversed edges (s = -1) and half-turned frames (c = -1) only if
    # the network has them
    _, net = list(rods())[1]
    assert (net.spring_signs[:, :2] < 0).any() and (net.spring_signs[:, 2] < 0).any()
