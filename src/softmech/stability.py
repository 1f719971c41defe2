"""Explicit time-step limit of Cosserat rods.

Position Verlet is stable for dt < 2 / omega_max, with omega_max the highest natural frequency of
the discrete rod. A Gershgorin bound per element, from the stiffness/inertia of each mode:
  stretch/shear of an element between two nodes of mass m = rho A l^ (shared):
      omega^2 = 4 S_aa / (rho A l^^2)                       (a = 1, 2, 3)
  rotation of an element (inertia J_a = rho I_a l^) restrained by shear (S l^, both shear
  components couple to it) and by bending/twist of the two Voronoi domains (B / D^ each, doubled
  by the Gershgorin off-diagonal terms):
      omega^2 = (2 S_bb l^ + 4 B_aa / D^) / J_a
dt_max = safety * min 2 / omega. The safety factor was set from measured divergence thresholds
(tests/unit/test_stability.py checks that a run at the estimate is stable and one at
several times it diverges).
"""
import numpy as np

from softmech.bodies.cosserat_rod import discrete_properties, section_properties

SAFETY = 0.9


def rod_time_step_limit(rod, p):
    """Largest stable explicit dt [s] for rod with parameters p (broadcast to B worlds): (B,)."""
    d = discrete_properties(rod.rest_lengths, p, rod.closed)
    area, _ = section_properties(p["radius"])
    l = rod.rest_lengths
    rho_a = p["density"] * area
    w2_trans = 4.0 * d["elem_S"] / (rho_a * l**2)[..., None]
    Bv = d["vor_B"]
    Dv = rod.voronoi_rest_lengths
    bend = np.zeros_like(d["elem_J"])
    k_vor = 4.0 * Bv / Dv[:, None]  # (B, n_vor, 3), acting on elements j and j + 1 (mod n)
    bend[:, :rod.n_vor] += k_vor
    if rod.closed:
        bend += np.roll(k_vor, 1, axis=1)
    else:
        bend[:, 1:] += k_vor
    S = d["elem_S"]
    shear_rot = np.stack([2 * (S[..., 1]) * l, 2 * (S[..., 0]) * l, np.zeros_like(l * S[..., 0])], axis=-1)
    w2_rot = (shear_rot + bend) / d["elem_J"]
    w2 = np.maximum(w2_trans.max(axis=(1, 2)), w2_rot.max(axis=(1, 2)))
    return SAFETY * 2.0 / np.sqrt(w2)
