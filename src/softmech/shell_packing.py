"""Discrete shells (hinge bending) as nodes of the unified engine's discrete kind
(softmech.der_packing: their nodes are slots after the discrete rods', in der_x, der_v and
der_force): their per-world parameters, node masses, state access and explicit time-step
limit. Their diagnostics: softmech.diagnostics.shell_diagnostics; their forces:
softmech.terms.der_shell.

A shell on the kind is DisMech's (softmech.bodies.shell): nodes with lumped masses rho h A_i / 3
summed over each node's triangles, stretching springs on its edges and bending hinges on its
inner edges (ref. 004 secs. 3.1, 3.4); the mid-edge bending model, whose per-edge angles need
DOFs of their own, is not on the kind (refused by Scene.compile).
"""
import numpy as np

from softmech import _checks
from softmech.blocks import broadcast_worlds, from_blocks, write_slots

SHELL_STATE_FIELDS = ("positions", "velocities")
"""What Simulation.get_state returns for a shell of the kind: node positions [m] and velocities
[m/s], (B, n_nodes, 3)."""

_FIELD = {"positions": "der_x", "velocities": "der_v"}


def shell_parameters(shells, params, worlds):
    """{shell: {"rest_angle": (B, n_hinges) [rad]}}: each shell's natural hinge angles per world,
    broadcast and checked (finite)."""
    out = {}
    for s in shells:
        key = f"{s.name}.rest_angle"
        out[s.name] = {"rest_angle": broadcast_worlds(key, params[key], worlds,
                                                      (len(s.hinges),))}
        _checks.finite(f"params['{key}']", out[s.name]["rest_angle"])
    return out


def shell_node_mass(shell, worlds):
    """Lumped node masses rho h A_i [kg], (B, n_nodes) (A_i: a third of the rest areas of the
    node's triangles, as the discrete engine's DofLayout)."""
    return np.tile(shell.density * shell.thickness * shell.node_areas(), (worlds, 1))


def shell_get_state(state, slots, lanes, shell):
    """A shell's SHELL_STATE_FIELDS (users' shapes (B, n_nodes, 3), copies) from the State."""
    return {key: from_blocks(getattr(state, field), lanes, (3,))[:, slots.nodes[shell.name]]
            for key, field in _FIELD.items()}


def shell_set_state(state, slots, lanes, shell, fields):
    """Write a shell's positions and/or velocities, (n, 3) or (B, n, 3), into the State; every
    field is checked before any is written."""
    checked = {}
    n = len(shell.vertices)
    for key, value in fields.items():
        if key not in SHELL_STATE_FIELDS:
            raise ValueError(f"set_state field {key!r} is not allowed for shell {shell.name!r}: "
                             f"must be one of {list(SHELL_STATE_FIELDS)}")
        arr = _checks.finite(f"{shell.name}.{key}", value)
        if arr.shape == (n, 3):
            arr = np.broadcast_to(arr, (lanes.worlds, n, 3))
        checked[key] = _checks.finite(f"{shell.name}.{key}", arr, shape=(lanes.worlds, n, 3))
    for key, arr in checked.items():
        write_slots(getattr(state, _FIELD[key]), slots.nodes[shell.name], arr, lanes)


def shell_time_step_limit(shell, params, node_mass):
    """Largest stable explicit dt [s] per world, (B,), of a shell: 2 / omega_max with a
    Gershgorin bound omega^2 <= max_i sum_j |K_ij| / sqrt(m_i m_j) on the mass-weighted
    stiffness of its stretching springs and hinges at the initial shape (the discrete engine's
    Jacobian blocks, -K; an upper bound on the spectral radius of M^-1/2 K M^-1/2, as
    softmech.der_stability bounds the rods'). node_mass (B, n) [kg]: its own lumped masses and
    sm.PointMass's."""
    from softmech.bodies.shell import _node_dofs
    from softmech.kernels.shell_hinge import hinge_forces
    from softmech.kernels.shell_stretch import stretch_forces

    q = np.ascontiguousarray(shell.vertices.ravel(), dtype=float)
    F = np.zeros_like(q)
    edges, hinges = _node_dofs(shell.edges), _node_dofs(shell.hinges)
    out = np.empty(len(node_mass))
    for b in range(len(node_mass)):
        row = np.zeros(len(q))
        inv = 1.0 / np.sqrt(np.repeat(node_mass[b], 3))
        Js = np.zeros(36 * len(edges))
        stretch_forces(q, edges, shell.edge_length, shell.stretch_stiffness, F, Js)
        Jh = np.zeros(144 * len(hinges))
        hinge_forces(q, hinges, np.ascontiguousarray(params["rest_angle"][b]),
                     shell.hinge_stiffness, F, Jh)
        for dofs, J, d in ((edges, Js, 6), (hinges, Jh, 12)):
            blocks = np.abs(J.reshape(-1, d, d)) * inv[dofs][:, :, None] * inv[dofs][:, None, :]
            np.add.at(row, dofs.ravel(), blocks.sum(axis=2).ravel())
        omega = np.sqrt(row.max()) if row.size else 0.0
        out[b] = 2.0 / omega if omega > 0 else np.inf
    return out
