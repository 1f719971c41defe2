"""Explicit time-step limit of Cosserat rods.

Position Verlet is stable for dt < 2 / omega_max, with omega_max the highest natural frequency of
the discrete rod. A Gershgorin bound per element, from the stiffness/inertia of each mode:

    stretch/shear of an element between two nodes of mass m = rho A l^ (shared):
      omega^2 = 4 S_aa / (rho A l^^2)                       (a = 1, 2, 3)
    rotation of an element (inertia J_a = rho I_a l^) restrained by shear (S l^, both shear
    components couple to it) and by bending/twist of the two Voronoi domains (B / D^ each, doubled
    by the Gershgorin off-diagonal terms):
      omega^2 = (2 S_bb l^ + 4 B_aa / D^) / J_a

dt_max = safety * min 2 / omega. Kelvin-Voigt viscosity with retardation time tau damps each
mode with ratio zeta = tau omega / 2, and an explicit step of a damped oscillator is stable for
dt < (2 / omega) (sqrt(1 + zeta^2) - zeta) (Belytschko, Liu, Moran, Nonlinear Finite Elements
for Continua and Structures, eq. 6.3.29); this factor is applied to every mode. The safety factor was set from measured divergence thresholds
(tests/unit/test_stability.py checks that a run at the estimate is stable and one at 3x it
diverges). Measured critical dt / estimate (bisection, 4000 steps): free rod n=50 1.50, n=200 1.57;
free rod with Kelvin-Voigt 1e-4 s 1.79; Table 1 cantilever n=100 1.57, with Kelvin-Voigt 1e-2 s
2.22; ring n=60 1.57; stubby rod (L/r = 10) 1.54 -- conservative by 1.5-2.2x everywhere.
"""
import numpy as np

from softmech.bodies.cosserat_rod import discrete_properties, rod_section
from softmech.der_stability import der_time_step_limits

SAFETY = 0.9


def assembly_time_step_limit(ctx):
    """Largest stable explicit dt [s] per world, (B,), of an assembled scene
    (softmech.packing.Assembly): every rod's limit (rod_time_step_limit, with its Kelvin-Voigt
    times and frame anchors) and the stiff terms' limits (joints, contacts, damping); inf for a
    scene with neither. The one estimate of Simulation.time_step_limit and
    Scene.time_step_limit. Discrete rods of the unified engine: softmech.der_stability."""
    return np.min([np.full(ctx.worlds, np.inf)] + [
        SAFETY * dt for dt in der_time_step_limits(ctx)] + [
        rod_time_step_limit(r, ctx.all_rod_params[r.name], ctx.kv_tau[r.name],
                            ctx.anchor_stiffness[r.name], ctx.discrete[r.name])
        for r in ctx.rods] + list(ctx.time_step_limits), axis=0)


def rod_time_step_limit(rod, p, kv_tau=None, anchor_stiffness=None, discrete=None):
    """Largest stable explicit dt [s] for rod with parameters p (broadcast to B worlds),
    Kelvin-Voigt retardation times kv_tau (B, n) [s] (None: no viscosity) and frame-anchor
    stiffnesses K / D (B, n, 3) [N m] (clamps; None: none): (B,). discrete: the rod's
    discrete_properties if already computed (softmech.packing.Assembly.discrete)."""
    d = discrete_properties(rod.rest_lengths, p, rod.closed) if discrete is None else discrete
    area = rod_section(p)[0]
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
    if anchor_stiffness is not None:
        # a one-sided spring to a fixed frame: diagonal only, half the Voronoi domains' factor
        bend += 2.0 * anchor_stiffness
    S = d["elem_S"]
    shear_rot = np.stack([2 * (S[..., 1]) * l, 2 * (S[..., 0]) * l, np.zeros_like(l * S[..., 0])], axis=-1)
    w2_rot = (shear_rot + bend) / d["elem_J"]
    omega = np.sqrt(np.maximum(w2_trans, w2_rot))  # (B, n, 3)
    zeta = 0.0 if kv_tau is None else 0.5 * kv_tau[..., None] * omega
    dt = 2.0 / omega * (np.sqrt(1.0 + zeta**2) - zeta)
    return SAFETY * dt.min(axis=(1, 2))
