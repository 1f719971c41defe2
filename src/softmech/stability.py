"""Explicit time-step limit of Cosserat rods.

Position Verlet is stable for dt < 2 / omega_max, with omega_max the highest natural frequency of
the discrete rod. A Gershgorin bound per element, from the stiffness/inertia of each mode:

    stretch/shear of an element between two nodes of mass m = rho A l^ (shared):
      omega^2 = 4 S_aa / (rho A l^^2)                       (a = 1, 2, 3)
    rotation of an element (inertia J_a = rho I_a l^) restrained by shear (S l^, both shear
    components couple to it) and by bending/twist of the two Voronoi domains (B / D^ each, doubled
    by the Gershgorin off-diagonal terms):
      omega^2 = (2 S_bb l^ + 4 B_aa / D^) / J_a

dt_max = safety * min 2 / omega, and below 2 m / c for a linear damping's dashpot c on the
element's mass or rotary inertia m (its heavily damped limit). Kelvin-Voigt viscosity with
retardation time tau damps each mode with ratio zeta = tau omega / 2, and an explicit step of a
damped oscillator is stable for
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


def damping_factor(zeta):
    """sqrt(1 + zeta^2) - zeta [-]: how much a damping ratio zeta [-] lowers an explicit step's
    stability limit (Belytschko, Liu & Moran, Nonlinear Finite Elements, eq. 6.3.29)."""
    return np.sqrt(1.0 + zeta**2) - zeta


def damped_time_step(omega, zeta):
    """Largest stable explicit dt [s] of an oscillator of natural frequency omega [rad/s] and
    damping ratio zeta [-] (arrays broadcast): (2 / omega) damping_factor(zeta); 2 / omega
    undamped, 2 m / c for a dashpot alone."""
    return 2.0 / omega * damping_factor(zeta)


def spring_time_step(mass, stiffness, damping=0.0, own_stiffness=0.0):
    """Explicit limit [s] of a stiff term's spring k [N/m or N m/rad] with a dashpot c [N s/m
    or N m s/rad] in parallel acting on an end of mass m [kg] (or moment of inertia
    [kg m^2]) (arrays broadcast): sqrt(m / k), half the undamped bound 2 sqrt(m / k) (the
    stiff terms' convention), times the dashpot's damping_factor(zeta) for the mode it damps,
    zeta = c / (2 sqrt((k + K) m)), where K is the
    end's own restoring stiffness (a rod element's bending and shear, a node's stretch:
    element_rotational_stiffness; 0 for a rigid body). With K = 0 this is half the damped
    oscillator's limit: 0.41 sqrt(m / k) at c = 2 sqrt(k m), and m / c for a dashpot
    c >> sqrt(k m) on a free light end (the bound the undamped estimate missed: a light
    feather root's rotational damping, 2026-12-04). A stiff rod's K keeps its stiff mode
    lightly damped (an elbow stop's dashpot on a bone's end element)."""
    mass, stiffness = np.asarray(mass, float), np.asarray(stiffness, float)
    zeta = np.asarray(damping, float) / (2.0 * np.sqrt((stiffness + own_stiffness) * mass))
    return np.sqrt(mass / stiffness) * damping_factor(zeta)


def assembly_time_step_limit(ctx):
    """Largest stable explicit dt [s] per world, (B,), of an assembled scene
    (softmech.packing.Assembly): every rod's limit (rod_time_step_limit, with its Kelvin-Voigt
    times and frame anchors) and the stiff terms' limits (joints, contacts, damping); inf for a
    scene with neither. The one estimate of Simulation.time_step_limit and
    Scene.time_step_limit. Discrete rods of the unified engine: softmech.der_stability."""
    return np.min([np.full(ctx.worlds, np.inf)] + [
        SAFETY * dt for dt in der_time_step_limits(ctx)] + [
        rod_time_step_limit(r, ctx.all_rod_params[r.name], ctx.kv_tau[r.name],
                            ctx.anchor_stiffness[r.name], ctx.discrete[r.name],
                            ctx.axial_tau[r.name], ctx.axial_modulus[r.name],
                            (ctx.damping_rate[r.name], ctx.rotational_damping_rate[r.name]))
        for r in ctx.rods] + list(ctx.time_step_limits), axis=0)


def element_rotational_stiffness(rod, discrete):
    """Gershgorin bound of the stiffness [N m/rad] (B, n, 3) restraining each element's rotation
    about its d1, d2, d3 (module docstring): shear 2 S_bb l^ and the bending/twist of its
    Voronoi domains, 4 B_aa / D^ each. discrete: the rod's discrete_properties."""
    l = rod.rest_lengths
    bend = np.zeros_like(discrete["elem_J"])
    k_vor = 4.0 * discrete["vor_B"] / rod.voronoi_rest_lengths[:, None]  # on elements j, j + 1
    bend[:, :rod.n_vor] += k_vor
    if rod.closed:
        bend += np.roll(k_vor, 1, axis=1)
    else:
        bend[:, 1:] += k_vor
    S = discrete["elem_S"]
    shear = np.stack([2 * S[..., 1] * l, 2 * S[..., 0] * l, np.zeros_like(l * S[..., 0])], axis=-1)
    return shear + bend


def rod_time_step_limit(rod, p, kv_tau=None, anchor_stiffness=None, discrete=None,
                        axial_tau=None, axial_modulus=None, damping_rates=None):
    """Largest stable explicit dt [s] for rod with parameters p (broadcast to B worlds),
    Kelvin-Voigt retardation times kv_tau (B, n) [s] (None: no viscosity) and frame-anchor
    stiffnesses K / D (B, n, 3) [N m] (clamps; None: none): (B,). discrete: the rod's
    discrete_properties if already computed (softmech.packing.Assembly.discrete). axial_tau
    (B, n) [s]: a viscosity on the stretch alone (an ActiveMuscle's strain-rate damping zeta
    / E), added to kv_tau on the stretch mode only; heavily damped, that mode needs dt <
    rho l^2 / (2 zeta) whatever its stiffness (the elbow's fibres: 3.3 us). axial_modulus
    (B, n) [Pa]: a modulus added to the stretch (an ActiveMuscle's force-length slope: its
    tension's stiffness, which the rod's own Young's modulus does not hold). damping_rates:
    (translational (B, n), rotational (B, n, 3)) [1/s], a linear damping's coefficient over the
    inertia it acts on (softmech.terms.damping.LinearDamping: gamma / (rho A) and gamma_r l^ /
    J_a): an explicit dashpot needs dt < 2 / rate whatever the stiffness, which binds where
    the rate exceeds the modes' frequencies: a thin element under the ME498 snake's rotational
    coefficient (gamma_r = gamma numerically, so rate ~ 1 / r^4; a tapered snake's tail,
    2 J / (gamma_r l^) = 23 us against the 25 us step)."""
    d = discrete_properties(rod.rest_lengths, p, rod.closed) if discrete is None else discrete
    area = rod_section(p)[0]
    l = rod.rest_lengths
    rho_a = p["density"] * area
    w2_trans = 4.0 * d["elem_S"] / (rho_a * l**2)[..., None]
    if axial_modulus is not None:
        w2_trans[..., 2] += 4.0 * axial_modulus * area / (rho_a * l**2)
    k_rot = element_rotational_stiffness(rod, d)
    if anchor_stiffness is not None:
        # a one-sided spring to a fixed frame: diagonal only, half the Voronoi domains' factor
        k_rot = k_rot + 2.0 * anchor_stiffness
    w2_rot = k_rot / d["elem_J"]
    omega = np.sqrt(np.maximum(w2_trans, w2_rot))  # (B, n, 3)
    zeta = 0.0 if kv_tau is None else 0.5 * kv_tau[..., None] * omega
    dt = damped_time_step(omega, zeta).min(axis=(1, 2))
    if damping_rates is not None:
        # an explicit step of dv/dt = -(c / m) v is stable for dt < 2 m / c: the heavily
        # damped limit of the damped oscillator's step, which the modes above reach when c / m
        # >> omega (a rate below them leaves their limit as it was, bit for bit)
        rate = np.maximum(damping_rates[0].max(axis=1), damping_rates[1].max(axis=(1, 2)))
        with np.errstate(divide="ignore"):
            dt = np.minimum(dt, 2.0 / rate)
    if axial_tau is not None and np.any(axial_tau > 0):
        stretch = np.sqrt(w2_trans[..., 2])                                    # (B, n)
        tau = axial_tau + (0.0 if kv_tau is None else kv_tau)
        if axial_modulus is not None:   # the viscosities' times are over the rod's E alone
            tau = tau * d["elem_S"][..., 2] / (d["elem_S"][..., 2] + axial_modulus * area)
        dt = np.minimum(dt, damped_time_step(stretch, 0.5 * tau * stretch).min(axis=1))
    return SAFETY * dt
