"""Energies, momenta and centre of mass of Cosserat rods and rigid bodies, from user-shaped state arrays.

Energies (Gazzola et al. 2018, and PyElastica's definitions):

    translational  sum_i m_i |v_i|^2 / 2
    rotational     sum_i w_i . (J_i w_i) / (2 e_i)
    bending        sum_j D^_j/2 sum_{a=1,2} B_aa (kappa - kappa0)_a^2,  twisting: the a = 3 term
    shear          sum_i l^_i/2 sum_{a=1,2} S_aa (sigma - sigma0)_a^2,  stretch: the a = 3 term

The elastic terms are exactly the potential of the "hyperelastic" law; for Gazzola's law (n / e,
m / eps^3) they agree with it to first order in the strains.
"""
import numpy as np

from softmech.bodies.cosserat_rod import (curvature_of, discrete_properties, edge_vectors,
                                          shear_strain_of)


def rod_diagnostics(rod, p, state, discrete=None):
    """Diagnostics of one rod in B worlds.

    rod: CosseratRod; p: its parameters broadcast to B worlds; discrete: its
    discrete_properties if already computed (softmech.packing.Assembly.discrete); state: dict
    with positions
    (B, n+1, 3), velocities, directors (B, n, 3, 3), angular_velocities (B, n, 3).
    Returns a dict of (B,) energies [J], and com (B, 3) [m], com_velocity (B, 3) [m/s],
    linear_momentum (B, 3) [kg m/s], angular_momentum (B, 3) [kg m^2/s] about the origin.
    """
    d = discrete_properties(rod.rest_lengths, p, rod.closed) if discrete is None else discrete
    x, v, Q, w = (state[k] for k in ("positions", "velocities", "directors", "angular_velocities"))
    m = d["node_mass"]
    e = np.linalg.norm(edge_vectors(x, rod.closed), axis=2) / rod.rest_lengths
    kappa = curvature_of(Q, rod.voronoi_rest_lengths, rod.closed) - p["rest_curvature"]
    sigma = shear_strain_of(Q, x, rod.rest_lengths, rod.closed) - p["rest_strain"]
    bend = 0.5 * rod.voronoi_rest_lengths[:, None] * d["vor_B"] * kappa**2
    shear = 0.5 * rod.rest_lengths[:, None] * d["elem_S"] * sigma**2
    Jw = d["elem_J"] * w / e[..., None]
    total_mass = m.sum(axis=1)
    # angular momentum: orbital sum m x x v plus spin sum Q^T (J w / e) (lab frame)
    spin = np.einsum("bnji,bnj->bi", Q, Jw)
    return {
        "translational_energy": 0.5 * np.einsum("bn,bnk->b", m, v * v),
        "rotational_energy": 0.5 * np.einsum("bnk,bnk->b", w, Jw),
        "bending_energy": bend[..., :2].sum(axis=(1, 2)),
        "twisting_energy": bend[..., 2].sum(axis=1),
        "shear_energy": shear[..., :2].sum(axis=(1, 2)),
        "stretch_energy": shear[..., 2].sum(axis=1),
        "com": np.einsum("bn,bnk->bk", m, x) / total_mass[:, None],
        "com_velocity": np.einsum("bn,bnk->bk", m, v) / total_mass[:, None],
        "linear_momentum": np.einsum("bn,bnk->bk", m, v),
        "angular_momentum": np.einsum("bn,bnk->bk", m, np.cross(x, v)) + spin,
    }


def rigid_diagnostics(body, p, state):
    """Diagnostics of one rigid body in B worlds, with the keys of rod_diagnostics (its elastic
    energies are zero). p: mass (B,) [kg] and principal inertia (B, 3) [kg m^2]; state: the
    body's user-facing state (Simulation.get_state: (B, 1, ...) arrays, its own frame)."""
    from softmech.bodies.rigid_body import to_engine_frame

    m = p["mass"]
    x, v = state["positions"][:, 0], state["velocities"][:, 0]
    Q, w = to_engine_frame(body, state["directors"][:, 0], state["angular_velocities"][:, 0])
    Jw = p["inertia"] * w
    zero = np.zeros(len(m))
    return {
        "translational_energy": 0.5 * m * np.einsum("bk,bk->b", v, v),
        "rotational_energy": 0.5 * np.einsum("bk,bk->b", w, Jw),
        "bending_energy": zero, "twisting_energy": zero, "shear_energy": zero,
        "stretch_energy": zero.copy(),
        "com": x.copy(), "com_velocity": v.copy(), "linear_momentum": m[:, None] * v,
        # orbital m x x v plus spin Q^T (J w) (lab frame)
        "angular_momentum": m[:, None] * np.cross(x, v) + np.einsum("bji,bj->bi", Q, Jw),
    }


ENERGY_KEYS = ("translational_energy", "rotational_energy", "bending_energy", "twisting_energy",
               "shear_energy", "stretch_energy")


def total_energy(diag):
    """Sum of the six energies, (B,) [J]."""
    return sum(diag[k] for k in ENERGY_KEYS)


def der_diagnostics(rod, p, state, node_mass):
    """Diagnostics of one discrete elastic rod in B worlds, with the keys of rod_diagnostics.

    rod: softmech.bodies.der_rod.DerRod; p: its per-world parameters broadcast to B worlds
    (youngs_modulus, shear_modulus (B,) [Pa], natural_curvature (B, s, 2) [1/m],
    natural_twist (B, s) [rad/m]); state: Simulation.get_state of the rod (positions,
    velocities (B, N, 3), twist, twist_rates (B, m), reference_a1, reference_tangent (B, m, 3),
    reference_twist (B, s)); node_mass: (B, N) [kg] (softmech.packing.Assembly.der_node_mass:
    the rod's lumped masses and sm.PointMass's). Energies (ref. 004 eqs. 10,
    14, 16, as DerStretch and DerBendTwist.energy_parts): translational sum m_i |v_i|^2 / 2,
    rotational (the edges' twist) sum I_j w_j^2 / 2, stretch, bending and twisting; shear 0.
    angular_momentum is the nodes' orbital sum m x x v about the origin (the twist's spin
    about each tangent, sum I_j w_j t_j, is not added: DisMech's kinetic energy of the twist
    is I w^2 / 2 alone)."""
    from softmech.kernels.der_stretch import der_stretch_forces

    x, v = state["positions"], state["velocities"]
    B, m = len(x), rod.n_elems
    edge_dofs = rod._local_dofs()[0]
    stretch, bend, twist = np.zeros(B), np.zeros(B), np.zeros(B)
    F, J = np.zeros(3 * rod.n_nodes + m), np.zeros(0)
    for b in range(B):
        q = np.concatenate([x[b].ravel(), state["twist"][b]])
        EA = np.ascontiguousarray(rod.section_area * p["youngs_modulus"][b])
        stretch[b] = der_stretch_forces(q, edge_dofs, rod.rest_lengths, EA, False, F, J)
        bend[b], twist[b] = bending_twisting(
            rod, q, state["reference_a1"][b], state["reference_tangent"][b],
            state["reference_twist"][b], p["youngs_modulus"][b], p["shear_modulus"][b],
            p["natural_curvature"][b], p["natural_twist"][b])
    mass = node_mass
    total = mass.sum(axis=1)[:, None]
    w = state["twist_rates"]
    return {
        "translational_energy": 0.5 * np.einsum("bn,bnk->b", mass, v * v),
        "rotational_energy": 0.5 * np.einsum("n,bn->b", rod.twist_inertia, w * w),
        "bending_energy": bend, "twisting_energy": twist, "shear_energy": np.zeros(B),
        "stretch_energy": stretch,
        "com": np.einsum("bn,bnk->bk", mass, x) / total,
        "com_velocity": np.einsum("bn,bnk->bk", mass, v) / total,
        "linear_momentum": np.einsum("bn,bnk->bk", mass, v),
        "angular_momentum": np.einsum("bn,bnk->bk", mass, np.cross(x, v)),
    }


def bending_twisting(body, q, a1_old, t_old, ref_old, E, G, curvature, twist_rate):
    """(bending, twisting) energies [J] (ref. 004 eqs. 14, 16) of the springs of a discrete rod
    or a rod-shell joint's network (softmech.bodies.der_rod.DerRod) in one world: q (n_dof,)
    its local DOFs [m, rad]; its stored reference frames a1_old, t_old (m, 3) and twists
    ref_old (s,) [rad], transported to q (der_frames); moduli E, G [Pa]; natural curvature
    (s, 2) [1/m] and twist (s,) [rad/m]."""
    from softmech.kernels.der_bend_twist import der_strains
    from softmech.kernels.der_frames import der_frames

    m, s = body.n_elems, body.n_springs
    edge_dofs, _, spring_dofs = body._local_dofs()
    t, a1, a2, ref = np.empty((m, 3)), np.empty((m, 3)), np.empty((m, 3)), np.empty(s)
    kappa, tau = np.empty((s, 2)), np.empty(s)
    contiguous = np.ascontiguousarray
    der_frames(q, edge_dofs, contiguous(a1_old), contiguous(t_old), contiguous(ref_old),
               body.spring_edges, body.spring_signs, t, a1, a2, ref)
    der_strains(q, spring_dofs, body.spring_edges, body.spring_signs, a1, a2, ref, kappa, tau)
    vor = body.voronoi_lengths
    dk = kappa - curvature * vor[:, None]
    dt = tau - twist_rate * vor
    return (0.5 * np.sum(body.section_inertia * E * dk**2 / vor[:, None]),
            0.5 * np.sum(body.section_polar * G * dt**2 / vor))


def joint_energies(net, slots, ctx, kind):
    """{bending_energy, twisting_energy, rotational_energy: (B,) [J]} of a rod-shell joint's
    network on the unified engine's kind (sm.RodShellJoint: its springs with the rod's moduli
    times the joint's stiffness, and the spin I w^2 / 2 of its shell edges' twists), which the
    discrete engine counts in its rod's energies. slots: softmech.der_packing.DerSlots; ctx:
    the Assembly; kind: the kind's State fields in users' shape ({der_x, der_theta, der_w,
    der_a1, der_tangent, der_ref}: (B, slots, ...))."""
    nodes, edges = slots.network_slots(net)
    springs = slots.network_spring[net.name] + np.arange(net.n_springs)
    new = edges[net.n_rod_edges:]
    p = ctx.der_params[net.rod_name]
    factor = ctx.der_joint_stiffness[net.stiffness_key]
    B = len(factor)
    bend, twist = np.zeros(B), np.zeros(B)
    for b in range(B):
        q = np.concatenate([kind["der_x"][b, nodes].ravel(), kind["der_theta"][b, edges]])
        bend[b], twist[b] = bending_twisting(
            net, q, kind["der_a1"][b, edges], kind["der_tangent"][b, edges],
            kind["der_ref"][b, springs], p["youngs_modulus"][b] * factor[b],
            p["shear_modulus"][b] * factor[b], net.natural_curvature, net.natural_twist)
    spin = 0.5 * (net.twist_inertia[net.n_rod_edges:] * kind["der_w"][:, new] ** 2).sum(axis=1)
    return {"bending_energy": bend, "twisting_energy": twist, "rotational_energy": spin}


def shell_diagnostics(shell, params, state, node_mass):
    """Diagnostics of one shell in B worlds, with the keys of softmech.diagnostics.rod_diagnostics:
    translational energy sum m_i |v_i|^2 / 2, stretching energy sum k eps^2 / 2, bending energy
    (hinges: sum k (theta - theta_bar)^2 / 2; mid-edge: eq. 20 with the edge frames of the
    current positions, as the next step sets them) (the discrete engine's kernels: ref. 004
    eqs. 10, 17, 20), rotational energy sum I_e xi_e'^2 / 2 of a mid-edge shell's angles
    (softmech.shell_packing.shell_edge_inertia; 0 for hinges), twisting and shear 0; centre of
    mass, momenta (orbital, about the origin). params: {"rest_angle": (B, n_hinges)} or
    {"rest_curvature": (B, n_tris, 3)}; state: shell_get_state's; node_mass (B, n) [kg]."""
    from softmech.bodies.shell import _node_dofs
    from softmech.kernels.shell_hinge import hinge_energy
    from softmech.kernels.shell_midedge import midedge_energy
    from softmech.kernels.shell_stretch import stretch_energy
    from softmech.shell_packing import midedge_dofs, shell_edge_frames, shell_edge_inertia

    x, v, m = state["positions"], state["velocities"], node_mass
    B = len(x)
    midedge = shell.bending == "midedge"
    edges, hinges = _node_dofs(shell.edges), _node_dofs(shell.hinges)
    stencils = midedge_dofs(shell.triangles, shell.tri_edges, len(shell.vertices)) \
        if midedge else None
    stretch, bend, rotation = np.zeros(B), np.zeros(B), np.zeros(B)
    for b in range(B):
        q = np.ascontiguousarray(x[b].ravel())
        stretch[b] = stretch_energy(q, edges, shell.edge_length, shell.stretch_stiffness)
        if midedge:
            tau, n0 = shell_edge_frames(shell, x[b])
            bend[b] = midedge_energy(np.concatenate([q, state["angles"][b]]), stencils,
                                     shell.tri_edges, shell.tri_edge_sign.astype(float), tau, n0,
                                     shell.length_over_area, shell.midedge_stiffness,
                                     np.ascontiguousarray(params["rest_curvature"][b]))
            rotation[b] = 0.5 * shell_edge_inertia(shell) @ state["angular_velocities"][b] ** 2
        else:
            bend[b] = hinge_energy(q, hinges, np.ascontiguousarray(params["rest_angle"][b]),
                                   shell.hinge_stiffness)
    total = m.sum(axis=1)[:, None]
    zero = np.zeros(B)
    return {
        "translational_energy": 0.5 * np.einsum("bn,bnk->b", m, v * v),
        "rotational_energy": rotation, "bending_energy": bend, "twisting_energy": zero,
        "shear_energy": zero, "stretch_energy": stretch,
        "com": np.einsum("bn,bnk->bk", m, x) / total,
        "com_velocity": np.einsum("bn,bnk->bk", m, v) / total,
        "linear_momentum": np.einsum("bn,bnk->bk", m, v),
        "angular_momentum": np.einsum("bn,bnk->bk", m, np.cross(x, v)),
    }


def kind_diagnostics(body, ctx, state):
    """Diagnostics of a discrete rod or shell of the unified engine's kind (der_diagnostics,
    shell_diagnostics) from its assembled parameters and masses (ctx: softmech.packing.
    Assembly) and its state (Simulation.get_state)."""
    if body.kind == "der_rod":
        return der_diagnostics(body, ctx.der_params[body.name], state,
                               ctx.der_node_mass[body.name])
    return shell_diagnostics(body, ctx.der_shell_params[body.name], state,
                             ctx.der_node_mass[body.name])
