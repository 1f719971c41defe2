"""The elbow's isokinetic experiment (Zhang et al. 2019, Fig. 1d): a dynamometer turns the
forearm at a constant angular velocity while the biceps contracts at MVC, and the flexion torque
it measures falls with the speed of shortening. softmech drives the radius's elbow end
(sm.DrivenEnd, about the hinge axis) through the elbow scene (softmech.scenarios.elbow), reads
the biceps' torque about the hinge from the insertion joints' forces, and fits the muscle rods'
strain-rate damping zeta (sigma_c = sigma_max (a f_a + f_p) + zeta d(eta)/dt, softmech.kernels.
active_muscle) to Hill's force-velocity law.

Hill (1938), with Zajac's (1989) generic constants for mammalian muscle: at a shortening rate
u = -d(eta)/dt / u_max (u_max = 10 optimal lengths per second, HILL_VMAX), the active force is
    F / F_0 = (1 - u) / (1 + u / kappa),   kappa = a / F_0 = 0.25 (HILL_KAPPA).
The model's damping is linear in d(eta)/dt, so its torque is T(w; zeta) = T_0(w) + zeta g(w), with
g(w) the torque per unit zeta: two worlds of one run (zeta = 0 and zeta_ref) give T_0 and g at
every speed, and the least-squares zeta over the speeds is closed-form (fit_damping). The
paper's fitted zeta and its experimental torques are in its supplement, which is not in our
sources; Hill's law is the estimate beside which the fit is shown (docs/musculoskeletal.md).
"""
import numpy as np

import softmech as sm
from softmech import _checks
from softmech.contributions import contributions
from softmech.packing import from_blocks
from softmech.scenarios.elbow import (DEFAULTS, FORMER_SETTINGS, INSERTION, build_elbow,
                                      flexion_angle, insertion_node_of)

HILL_KAPPA = 0.25
"""Hill's a / F_0 (Zajac 1989: 0.25 for mammalian muscle)."""
HILL_VMAX = 10.0
"""Largest shortening rate [optimal lengths / s] (Zajac 1989)."""
HOLD = 0.2
"""Isometric hold [s] before the drive starts: the activation ramps to MVC over 0.1 s
(DEFAULTS["ramp_time"]), then the muscle settles."""
SWEEP = 120.0 - DEFAULTS["start_angle"]
"""Degrees of flexion driven, from the scene's start angle (0 deg: the arm straight) to 120 deg."""


def hill_ratio(u, kappa=HILL_KAPPA):
    """F / F_0 of Hill's hyperbola at shortening rate u = v / v_max in [0, 1] (array-like)."""
    u = np.asarray(u, dtype=float)
    return (1.0 - u) / (1.0 + u / kappa)


def _drive(speed):
    """DrivenEnd tables: rotation about -y (flexion) at `speed` [rad/s] after HOLD, then held."""
    sweep = np.radians(SWEEP)
    t_end = HOLD + sweep / speed
    times = np.array([0.0, HOLD, t_end, t_end + 1.0])
    angle = np.array([0.0, 0.0, sweep, sweep])
    return times, np.outer(angle, (0.0, -1.0, 0.0)), t_end


def isokinetic_run(speed, *, zeta=(0.0, 1e4), fibers=7, at=90.0, window=5.0):
    """Drive the elbow at `speed` [rad/s] > 0 from its start to 120 deg with the biceps at MVC, in
    one world per muscle damping of `zeta` [Pa s] (at the former step of 5 us, FORMER_SETTINGS:
    the fit needs only zeta = 0 and a reference well under the fibres' viscous limit there,
    ~9e4 Pa s; the torque is linear in zeta); returns {"torque": (B,) biceps torque about the
    hinge [N m] and "rate": (B,) mean fibre stretch rate d(eta)/dt [1/s], both averaged over
    the flexion angles at +- window deg, "stretch": (B,) mean fibre stretch there,
    "moment_arm": (B,) the biceps' moment arm [m], torque / |insertion force|}."""
    speed = float(_checks.positive("speed", speed, shape=()))
    zeta = _checks.nonnegative("zeta", zeta, shape=(None,))
    scene, info = build_elbow(fibers=fibers, **FORMER_SETTINGS)
    times, rotation, t_end = _drive(speed)
    radius = next(r for r in scene.rods if r.name == info.radius_bone)
    scene.add(sm.DrivenEnd(radius, "first", times=times, rotation=rotation, name="dynamometer"))
    sim = scene.compile(worlds=len(zeta), dt=info.dt)
    for f in info.fibers:
        sim.params[f"{f}_muscle.damping"] = np.asarray(zeta, dtype=float)
    insertion = insertion_node_of(INSERTION)
    samples = []
    sim.run(HOLD)
    every = max(1, int(round(0.002 / info.dt)))
    while sim.time < t_end - 1e-9:
        sim.step(every)
        h = sim.get_state("humerus")["positions"]
        r = sim.get_state("radius")["positions"]
        angle = flexion_angle(h, r)                                        # (B,)
        torque, force = _biceps_torque(sim, r, insertion)
        rate, stretch = _fibre_rates(sim, info)
        samples.append((angle, torque, rate, stretch, torque / force))
    angle, torque, rate, stretch, arm = (np.array(s) for s in zip(*samples))   # (n, B) each
    inside = np.abs(angle - at) <= window
    return {k: np.array([v[inside[:, b], b].mean() for b in range(len(zeta))])
            for k, v in (("torque", torque), ("rate", rate), ("stretch", stretch),
                         ("moment_arm", arm))}


def _biceps_torque(sim, radius_x, insertion):
    """(torque [N m] about the hinge axis, flexion positive; |force| [N]), (B,) each, of the
    joints' forces on the radius's insertion node: the two biceps heads' distal tendons are
    the only joints there."""
    loads = contributions(sim, ["joints"])["joints"]
    forces = from_blocks(loads.loads["node_force"], sim.lanes, (3,))
    node = sim._slices("radius")[0].start + insertion      # the node's engine slot
    arm = radius_x[:, insertion] - radius_x[:, 0]
    return -np.cross(arm, forces[:, node])[:, 1], np.linalg.norm(forces[:, node], axis=1)


def _fibre_rates(sim, info):
    """Mean over the fibres' middle elements of d(eta)/dt [1/s] and of eta, (B,) each."""
    rates, stretches = [], []
    for f in info.fibers:
        s = sim.get_state(f)
        dx = np.diff(s["positions"], axis=1)
        dv = np.diff(s["velocities"], axis=1)
        length = np.linalg.norm(dx, axis=-1)
        eta = length / info.fiber_rest_length
        rate = np.einsum("bij,bij->bi", dx, dv) / (length * info.fiber_rest_length)
        n = eta.shape[1]
        mid = slice(n // 3, n - n // 3)
        rates.append(rate[:, mid].mean(axis=1))
        stretches.append(eta[:, mid].mean(axis=1))
    return np.mean(rates, axis=0), np.mean(stretches, axis=0)


def fit_damping(speeds, torque0, torque_per_zeta, rates, isometric):
    """Least-squares zeta [Pa s] making T(w) = T_0(w) + zeta g(w) follow Hill: T_H(w) =
    isometric hill_ratio(u), u = -rate / HILL_VMAX, over the speeds. torque0, torque_per_zeta,
    rates: (n,) per speed (T_0 [N m], g [N m / (Pa s)], d(eta)/dt [1/s]); isometric: T at
    w -> 0 [N m]. Returns (zeta, Hill's torques (n,))."""
    g = np.asarray(torque_per_zeta, dtype=float)
    hill = isometric * hill_ratio(np.clip(-np.asarray(rates) / HILL_VMAX, 0.0, 1.0))
    zeta = float(np.dot(g, hill - np.asarray(torque0)) / np.dot(g, g))
    return zeta, hill
