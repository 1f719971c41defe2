"""Explicit time-step limit of discrete elastic rods (the unified engine's kind,
softmech.terms.der_kind), in the spirit of softmech.stability's estimate for Cosserat rods.

Position Verlet is stable for dt < 2 / omega_max. A Gershgorin bound on the highest natural
frequency of each DOF, omega^2 <= sum_j |K_ij| / M_i with the lumped masses (an upper bound on
the spectral radius of M^-1 K), for the three kinds of springs of the discrete model
(ref. 004 eqs. 9-16, small motion about the straight rod):

    stretching (eq. 9, k = EA / l^ per edge, on the relative axial motion of its two nodes):
      node i:  omega^2 = sum_{edges e at i} 2 EA_e / l^_e / m_i
      (a uniform rod: 4 E / (rho l^2), i.e. dt < l sqrt(rho / E))
    bending (eq. 14, E_b = 1/2 EI / dL (kappa)^2 with kappa ~ the turning angle, whose
      gradient on the transverse motion of nodes a, b, c is g = (1/l_e, -(1/l_e + 1/l_f), 1/l_f)):
      node i:  omega^2 = sum_{springs s at i} (EI_s / dL_s) |g_i| sum|g| / m_i
      (a uniform rod: 16 EI / (rho A l^4), exact for its zigzag mode: dt < l^2 sqrt(rho A / EI) / 2)
    twisting (eq. 16, k = GJ / dL on theta_f - theta_e):
      edge j:  omega^2 = sum_{springs s at j} 2 GJ_s / dL_s / I_j

The largest of a node's stretching and bending bounds is its omega. Viscous damping c_i =
eta dL_i on node i (sm.LinearDamping, ref. 004 eq. 27) damps it with ratio zeta = c_i /
(2 m_i omega), and an explicit step of a damped oscillator is stable for dt < (2 / omega)
(sqrt(1 + zeta^2) - zeta) (Belytschko, Liu, Moran, Nonlinear Finite Elements, eq. 6.3.29, as
softmech.stability applies to Kelvin-Voigt viscosity), which tends to 2 m_i / c_i, the limit
of dv/dt = -(c_i / m_i) v alone, as omega -> 0. softmech.stability applies the same safety
factor as to Cosserat rods (SAFETY) to these bounds. For a straight rod the bounds are nearly
exact (tests/unit/test_der_stability.py: 0.994-1.000 of the exact linearized limit).
"""
import numpy as np


def damped_limit(omega2, rate):
    """2 / (sqrt(omega^2 + d^2) + d) [s], d = c / (2 m) [1/s]: the explicit limit
    (2 / omega) (sqrt(1 + zeta^2) - zeta) of the module docstring, zeta = d / omega, written so
    that it holds at omega = 0 (2 m / c) and at c = 0 (2 / omega); omega2 and rate broadcast."""
    with np.errstate(divide="ignore"):      # omega = d = 0 (a free twist): no limit, inf
        return 2.0 / (np.sqrt(omega2 + rate**2) + rate)


def der_time_step_limit(rod, params, node_damping=None, node_mass=None, edge_damping=None):
    """Largest stable explicit dt [s] per world, (B,), of discrete rod `rod` (the bound of the
    module docstring, without a safety factor)
    (softmech.bodies.der_rod) with its per-world parameters (softmech.der_packing.der_parameters:
    youngs_modulus, shear_modulus (B,) [Pa]), the viscous coefficients c_i = eta dL_i
    [kg/s] of its nodes (B, n_nodes) (None: undamped) and their masses m_i [kg] (B, n_nodes)
    (None: the rod's lumped masses; softmech.packing.Assembly.der_node_mass adds sm.PointMass's),
    and the viscous coefficients [N m s] of its edges' twists (B, n_elems) (None: undamped;
    sm.SlenderBodyDrag's spin drag), which enter the edges' limits as c_i the nodes'."""
    m = rod.node_mass if node_mass is None else node_mass
    E = params["youngs_modulus"][:, None]                       # (B, 1)
    G = params["shear_modulus"][:, None]
    n = rod.n_nodes
    l = rod.rest_lengths                                        # (m,)
    a_, b_, c_ = rod.spring_nodes.T                             # (s,) each
    je, jf = rod.spring_edges.T
    dL = rod.voronoi_lengths                                    # (s,)
    k_stretch = 2.0 * E * np.asarray(rod.section_area) / l      # (B, m) [N/m], row-sum factor 2
    w2 = np.zeros((E.shape[0], n))
    for end in (0, 1):
        np.add.at(w2, (slice(None), rod.edge_nodes[:, end]), k_stretch)
    g = np.stack([1.0 / l[je], 1.0 / l[je] + 1.0 / l[jf], 1.0 / l[jf]])   # (3, s) [1/m]
    EI = np.max(rod.section_inertia, axis=1) * E / dL           # (B, s) [N m]
    bend = np.zeros_like(w2)
    for row, node in enumerate((a_, b_, c_)):
        np.add.at(bend, (slice(None), node), EI * g[row] * g.sum(axis=0))
    c = 0.0 if node_damping is None else node_damping
    dt_nodes = damped_limit(np.maximum(w2, bend) / m, c / (2.0 * m))           # (B, n) [s]
    k_twist = 2.0 * G * np.asarray(rod.section_polar) / dL       # (B, s) [N m]
    w2_twist = np.zeros((E.shape[0], rod.n_elems))
    for edge in (je, jf):
        np.add.at(w2_twist, (slice(None), edge), k_twist)
    c = 0.0 if edge_damping is None else edge_damping
    # (a rod of one edge has no twisting spring: inf, or 2 I / c with spin drag)
    dt_edges = damped_limit(w2_twist / rod.twist_inertia, c / (2.0 * rod.twist_inertia))
    return np.minimum(dt_nodes.min(axis=1), dt_edges.min(axis=1, initial=np.inf))


def der_time_step_limits(ctx):
    """The limits (B,) of every discrete rod and shell of an assembled scene
    (softmech.packing.Assembly; shells: softmech.shell_packing.shell_time_step_limit), with
    the damping of sm.LinearDamping and sm.SlenderBodyDrag (softmech.terms.der_loads:
    DerDampers, DerSlenderDrags; their node coefficients add, a Gershgorin bound)."""
    from softmech.terms.der_loads import DerDampers, DerSlenderDrags
    nodes, edges = {}, {}
    for part in (DerDampers, DerSlenderDrags):
        for name, c in getattr(ctx.parts.get(part), "node_damping", {}).items():
            nodes[name] = nodes.get(name, 0.0) + c
        for name, c in getattr(ctx.parts.get(part), "edge_damping", {}).items():
            edges[name] = edges.get(name, 0.0) + c
    from softmech.shell_packing import shell_time_step_limit
    return [der_time_step_limit(r, ctx.der_params[r.name], nodes.get(r.name),
                                ctx.der_node_mass[r.name], edges.get(r.name))
            for r in ctx.der_rods] + [
        shell_time_step_limit(s, ctx.der_shell_params[s.name], ctx.der_node_mass[s.name])
        for s in ctx.der_shells] + [_joint_limit(net, ctx) for net in ctx.der_networks]


def _joint_limit(net, ctx):
    """The limit (B,) of a rod-shell joint's springs (sm.RodShellJoint's network on the kind):
    2 / omega_max with the Gershgorin bound of the shells' limit (shell_packing) on the
    mass-weighted Hessian of its springs at the built shape (der_bend_twist_forces' Jacobian,
    with the rod's moduli times the joint's stiffness factor). Its springs join edges at an
    angle (rod against shell: a rest curvature ~2), so bending reaches the edges' twists,
    which the straight-rod bounds of der_time_step_limit leave out. Masses: the nodes' in
    their rod or shell (the joint node's the rod's alone: a smaller mass, the safe side), the
    edges' own twist inertias."""
    from softmech.kernels.der_bend_twist import der_bend_twist_forces
    from softmech.kernels.der_frames import der_frames
    from softmech.shell_packing import gershgorin_limit

    factor = ctx.der_joint_stiffness[net.stiffness_key]
    p = ctx.der_params[net.rod_name]
    mass = np.stack([ctx.der_node_mass[body][:, i] for body, i in net.node_refs], axis=1)
    edge_dofs, _, spring_dofs = net._local_dofs()
    q = np.concatenate([net.positions.ravel(), net.twist0])
    m, s = net.n_elems, net.n_springs
    ends = net.positions[net.edge_nodes]
    t0 = (ends[:, 1] - ends[:, 0]) / net.rest_lengths[:, None]
    t, a1, a2, ref = np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 3)), np.empty(s)
    der_frames(q, edge_dofs, net.a1_0, t0, net.ref_twist0, net.spring_edges, net.spring_signs,
               t, a1, a2, ref)
    vor = net.voronoi_lengths
    out = np.empty(len(mass))
    for b in range(len(mass)):
        E, G = p["youngs_modulus"][b] * factor[b], p["shear_modulus"][b] * factor[b]
        J = np.zeros(121 * s)
        der_bend_twist_forces(q, spring_dofs, net.spring_edges, net.spring_signs, a1, a2, ref,
                              net.natural_curvature * vor[:, None], net.natural_twist * vor,
                              1.0 / vor, net.section_inertia * E, net.section_polar * G, True,
                              np.zeros((3, 11)), np.zeros((11, 11)), np.zeros((3, 3, 3)),
                              np.zeros_like(q), J)
        inv = 1.0 / np.sqrt(np.concatenate([np.repeat(mass[b], 3), net.twist_inertia]))
        out[b] = gershgorin_limit(len(q), inv, ((spring_dofs, J),))
    return out

