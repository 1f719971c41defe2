"""Discrete shells as nodes (and, with mid-edge bending, edges) of the unified engine's discrete
kind (softmech.der_packing: their nodes are slots after the discrete rods', in der_x, der_v and
der_force; a mid-edge shell's angles xi are edge slots after the rods' edges, in der_theta,
der_w and der_torque; their frames tau, n0 are not state: the mid-edge kernel sets them from the
positions at each step's start, softmech.kernels.der_shell_midedge): their per-world
parameters, masses, state access and explicit time-step limit. Their diagnostics:
softmech.diagnostics.shell_diagnostics; their forces: softmech.terms.der_shell.

A shell on the kind is DisMech's (softmech.bodies.shell): nodes with lumped masses rho h A_i / 3
summed over each node's triangles, stretching springs on its edges and either bending hinges on
its inner edges (ref. 004 secs. 3.1, 3.4) or mid-edge bending (sec. 3.3.2, eqs. 19-20: one
angle xi per edge, inertia rho h (A_strip) l^2 / 12, as the discrete engine's DofLayout).
"""
import numpy as np

from softmech import _checks
from softmech.blocks import broadcast_worlds, from_blocks, write_slots

SHELL_STATE_FIELDS = ("positions", "velocities")
"""What Simulation.get_state returns for a hinge shell of the kind: node positions [m] and
velocities [m/s], (B, n_nodes, 3)."""

MIDEDGE_STATE_FIELDS = SHELL_STATE_FIELDS + ("angles", "angular_velocities")
"""A mid-edge shell's: also its edges' angles xi [-] and their rates [1/s], (B, n_edges), the
discrete engine's keys."""

_FIELD = {"positions": "der_x", "velocities": "der_v", "angles": "der_theta",
          "angular_velocities": "der_w"}


def state_fields(shell):
    """The state fields of a shell of the kind (SHELL_STATE_FIELDS or MIDEDGE_STATE_FIELDS)."""
    return MIDEDGE_STATE_FIELDS if shell.bending == "midedge" else SHELL_STATE_FIELDS


def rest_key(shell):
    """The per-world parameter of a shell's natural curvature: "rest_angle" (hinges, (n_hinges,)
    [rad]) or "rest_curvature" (mid-edge a_bar, (n_tris, 3) [1/m])."""
    return "rest_angle" if shell.bending == "hinge" else "rest_curvature"


def shell_parameters(shells, params, worlds):
    """{shell: {rest_key(shell): (B, ...)}}: each shell's natural hinge angles (B, n_hinges) [rad]
    or mid-edge curvatures (B, n_tris, 3) [1/m] per world, broadcast and checked (finite)."""
    out = {}
    for s in shells:
        name = rest_key(s)
        key = f"{s.name}.{name}"
        shape = (len(s.hinges),) if s.bending == "hinge" else (len(s.triangles), 3)
        out[s.name] = {name: broadcast_worlds(key, params[key], worlds, shape)}
        _checks.finite(f"params['{key}']", out[s.name][name])
    return out


def shell_edge_inertia(shell):
    """Rotary inertia of each mid-edge angle xi, (n_edges,) [kg m^2]: rho h (a third of its
    triangles' areas) l^2 / 12, as the discrete engine's (softmech.bodies.shell.Shell.place)."""
    strip = np.zeros(len(shell.edges))
    np.add.at(strip, shell.tri_edges.ravel(), np.repeat(shell.tri_area / 3.0, 3))
    return shell.density * shell.thickness * strip * shell.edge_length ** 2 / 12


def held_edges(shell, held):
    """int64 (n_edges,) 1 where a mid-edge shell's angle xi is held (held: the (body, nodes,
    axes, angles) entries of sm.FixNodes on the kind, softmech.terms.der_kind.DerFixedNodes):
    those edges keep their frames of the built shape (the discrete engine's _MidedgeBinding), so
    that xi = const holds the mid-edge normal itself (a clamp)."""
    out = np.zeros(len(shell.edges), dtype=np.int64)
    for body, _, _, angles in held:
        if body.name == shell.name:
            out[angles] = 1
    return out


def midedge_dofs(tri_nodes, tri_edges, n_nodes):
    """DOF table (t, 12) int64 of softmech.kernels.shell_midedge in a vector of n_nodes nodes
    (node i at 3 i .. 3 i + 2) followed by the angles (edge j at 3 n_nodes + j): each
    triangle's three nodes (tri_nodes (t, 3)) then the angles of its edges (tri_edges (t, 3))."""
    from softmech.bodies.shell import _node_dofs
    return np.ascontiguousarray(np.concatenate(
        [_node_dofs(tri_nodes), 3 * n_nodes + np.asarray(tri_edges)], axis=1), dtype=np.int64)


def shell_edge_frames(shell, x):
    """A mid-edge shell's edge frames (tau, n0), (n_edges, 3) each, at node positions x (n, 3)
    (softmech.bodies.shell.edge_frames)."""
    from softmech.bodies.shell import edge_frames
    return edge_frames(x, shell.triangles, shell.edges, shell.edge_tris)


def shell_node_mass(shell, worlds):
    """Lumped node masses rho h A_i [kg], (B, n_nodes) (A_i: a third of the rest areas of the
    node's triangles, as the discrete engine's DofLayout)."""
    return np.tile(shell.density * shell.thickness * shell.node_areas(), (worlds, 1))


def _view(key, shell, slots):
    """(slots, user trailing shape) of a state field of a shell: nodes (3,) or edges ()."""
    if key in ("positions", "velocities"):
        return slots.nodes[shell.name], (3,)
    return slots.index("edge", shell), ()


def shell_get_state(state, slots, lanes, shell):
    """A shell's state_fields (users' shapes (B, n_nodes, 3) and (B, n_edges), copies) from the
    State."""
    out = {}
    for key in state_fields(shell):
        where, trailing = _view(key, shell, slots)
        full = from_blocks(getattr(state, _FIELD[key]), lanes, trailing or (1,))
        out[key] = full[:, where].reshape((lanes.worlds, len(where)) + trailing)
    return out


def shell_set_state(state, slots, lanes, shell, fields):
    """Write a shell's positions, velocities (n, 3) or (B, n, 3) and, mid-edge, angles and
    angular velocities (n_edges,) or (B, n_edges) into the State; every field is checked before
    any is written."""
    checked = {}
    allowed = state_fields(shell)
    for key, value in fields.items():
        if key not in allowed:
            raise ValueError(f"set_state field {key!r} is not allowed for shell {shell.name!r}: "
                             f"must be one of {list(allowed)}")
        where, trailing = _view(key, shell, slots)
        shape = (len(where),) + trailing
        arr = _checks.finite(f"{shell.name}.{key}", value)
        if arr.shape == shape:
            arr = np.broadcast_to(arr, (lanes.worlds,) + shape)
        checked[key] = _checks.finite(f"{shell.name}.{key}", arr, shape=(lanes.worlds,) + shape)
    for key, arr in checked.items():
        where, trailing = _view(key, shell, slots)
        write_slots(getattr(state, _FIELD[key]), where, arr if trailing else arr[..., None], lanes)


def shell_time_step_limit(shell, params, node_mass):
    """Largest stable explicit dt [s] per world, (B,), of a shell: 2 / omega_max with a
    Gershgorin bound omega^2 <= max_i sum_j |K_ij| / sqrt(m_i m_j) on the mass-weighted
    stiffness of its stretching springs and hinges or mid-edge triangles (their 9 node and 3
    angle DOFs, the angles' inertias shell_edge_inertia) at the initial shape (the discrete
    engine's Jacobian blocks, -K; an upper bound on the spectral radius of M^-1/2 K M^-1/2, as
    softmech.der_stability bounds the rods'). node_mass (B, n) [kg]: its own lumped masses and
    sm.PointMass's."""
    from softmech.bodies.shell import _node_dofs
    from softmech.kernels.shell_hinge import hinge_forces
    from softmech.kernels.shell_midedge import midedge_forces
    from softmech.kernels.shell_stretch import stretch_forces

    midedge = shell.bending == "midedge"
    q = np.concatenate([shell.vertices.ravel(), np.zeros(len(shell.edges) if midedge else 0)])
    F = np.zeros_like(q)
    edges = _node_dofs(shell.edges)
    if midedge:
        bending = midedge_dofs(shell.triangles, shell.tri_edges, len(shell.vertices))
        tau, n0 = shell_edge_frames(shell, shell.vertices)
        inertia = shell_edge_inertia(shell)
    else:
        bending = _node_dofs(shell.hinges)
        inertia = np.zeros(0)
    out = np.empty(len(node_mass))
    # (writeable copies of the per-world rows, which may be read-only views: the kernels then
    # see the array types of the force pass and are compiled once, not again for these)
    for b in range(len(node_mass)):
        inv = 1.0 / np.sqrt(np.concatenate([np.repeat(node_mass[b], 3), inertia]))
        Js = np.zeros(36 * len(edges))
        stretch_forces(q, edges, shell.edge_length, shell.stretch_stiffness, True, F, Js)
        Jb = np.zeros(144 * len(bending))
        if midedge:
            midedge_forces(q, bending, shell.tri_edges, shell.tri_edge_sign.astype(float), tau,
                           n0, shell.length_over_area, shell.midedge_stiffness,
                           np.array(params["rest_curvature"][b]), np.zeros(160),
                           True, F, Jb)
        else:
            hinge_forces(q, bending, np.array(params["rest_angle"][b]),
                         shell.hinge_stiffness, True, F, Jb)
        out[b] = gershgorin_limit(len(q), inv, ((edges, Js), (bending, Jb)))
    return out


def gershgorin_limit(n, inv_sqrt_mass, pieces):
    """2 / omega [s] with omega^2 <= max_i sum_j |K_ij| / sqrt(m_i m_j) (Gershgorin's bound
    on the spectral radius of M^-1/2 K M^-1/2), inf without stiffness. n: DOFs;
    inv_sqrt_mass (n,) [kg^-1/2 or (kg m^2)^-1/2]; pieces: (dofs (k, d) int64, Jacobian
    blocks (k d d,) row-major [N/m, N, N m]) each, the blocks of -K on those DOFs."""
    row = np.zeros(n)
    for dofs, J in pieces:
        d = dofs.shape[1]
        inv = inv_sqrt_mass[dofs]
        blocks = np.abs(J.reshape(-1, d, d)) * inv[:, :, None] * inv[:, None, :]
        np.add.at(row, dofs.ravel(), blocks.sum(axis=2).ravel())
    omega = np.sqrt(row.max()) if row.size else 0.0
    return 2.0 / omega if omega > 0 else np.inf
