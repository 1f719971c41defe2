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
