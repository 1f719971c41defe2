"""A continuous-torque swimmer in Stokes flow: a free Cosserat rod bent by the snake's travelling
muscle torque wave (softmech.MuscleTorqueWave, Gazzola et al. 2018 eq. 4.11) in a quiescent
viscous fluid (softmech.SlenderBodyDrag), no ground, no gravity. Its speed is compared with the
small-amplitude resistive-force result for a waving filament (Gray & Hancock, J. Exp. Biol.
32:802, 1955; Lighthill, Mathematical Biofluiddynamics, SIAM 1975; review: Lauga & Powers,
Rep. Prog. Phys. 72:096601, 2009, eq. 40):

    U = (c_n / c_t - 1) omega k A^2 / 2                      (taylor_speed; derivation there)

Conventions (as the snake): the filament starts straight along +x, d1 = +z (the muscle moments
about d1 bend it in the xy plane), d3 = +x from tail to head, head = last node; the torque wave
runs from head to tail (towards -x), so the swimmer moves head first, towards +x.

Parameters (PARAMS): a 1 m filament of radius 1 cm (L / r = 100) in a fluid of viscosity
1000 Pa s (a stiff silicone oil) beating at 1 Hz with three waves on the body (lambda = L / 3).
Inertia is negligible: rho A omega / c_n = 8e-4 (the body's momentum relaxes in 1e-4 of a
period), and the Reynolds number rho_f (A omega) L / mu is 0.14 on the fastest body velocity
(0.012 on the swimming speed). The bending stiffness (E = 3e8 Pa, E I = 2.36 N m^2) makes the
viscous-elastic ratio c_n omega / (E I k^4) = 0.05, so the shape follows the muscle moment
quasi-statically (curvature ~ beta(s) / E I): the default amplitude asks for k A = 0.4 on the
plateau of the envelope. The explicit step is limited by the rod's shear waves (1.2e-5 s, 86 000
steps per beat, ~0.25 s per beat on one core). docs/fluids.md ("A waving filament in Stokes
flow") has the measured numbers.

The analysis (used by `softmech run torque_swimmer` and tests/validation/test_torque_swimmer.py):
`curvature_wave` measures k and A(s) from the simulated midlines, `taylor_speed` is the formula,
`rft_velocity` the force-free velocity of a given shape sequence by quadrature.
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech.terms.drag import slender_body_coefficients

PARAMS = dict(length=1.0, radius=0.01, density=1000.0, youngs_modulus=3.0e8, viscosity=1000.0,
              fluid_density=1000.0, period=1.0, wavelength=1.0 / 3.0, wave_amplitude=0.4 / (6 * np.pi),
              n_elems=60, periods=4.0, form="spheroid", dt_fraction=0.9)
"""Default scene (SI units). wave_amplitude A [m]: the lateral amplitude asked of the plateau of
the torque envelope (k A = 0.4); fluid_density: used only to report the Reynolds number (the
Stokes model has no fluid inertia); dt_fraction: dt / explicit stability estimate."""

ENVELOPE = (0.0, 1.0, 1.0, 1.0, 1.0, 0.0)
"""B-spline control values of the torque envelope (times the plateau moment): zero at both free
ends, flat over the middle ~60 % of the body (softmech.terms.muscles.muscle_spline)."""


@dataclass
class TorqueSwimmerInfo:
    """What `softmech run` and the tests need of a built torque-swimmer scene."""
    rod: str
    muscle: str
    drag: str
    worlds: int
    dt: float
    duration: float
    period: float
    wavelength: float
    n_elems: int
    length: float
    radius: float
    density: float
    viscosity: float
    c_t: float
    c_n: float
    fluid_density: float = PARAMS["fluid_density"]

    @property
    def inertia_ratio(self):
        """rho A omega / c_n: the momentum relaxation time m / c_n over 1 / omega [-]."""
        return self.density * np.pi * self.radius**2 * 2 * np.pi / self.period / self.c_n


def plateau_moment(wave_amplitude, wavelength, youngs_modulus, radius):
    """Muscle moment [N m] whose quasi-static curvature beta / (E I) is the curvature amplitude
    A k^2 of a wave y = A sin(k x - omega t) (I = pi r^4 / 4, circular section)."""
    k = 2 * np.pi / wavelength
    return wave_amplitude * k**2 * youngs_modulus * np.pi * radius**4 / 4


def build_torque_swimmer(n_elems=PARAMS["n_elems"], worlds=1, *, length=PARAMS["length"],
                         wavelength=PARAMS["wavelength"], wave_amplitude=PARAMS["wave_amplitude"],
                         viscosity=PARAMS["viscosity"], form=PARAMS["form"],
                         periods=PARAMS["periods"], duration=None, dt=None,
                         dt_fraction=PARAMS["dt_fraction"]):
    """The torque swimmer (module docstring); returns (scene, TorqueSwimmerInfo).

    length [m] (radius, density, E and period as PARAMS), wavelength [m] of the torque wave,
    wave_amplitude [m]: lateral amplitude asked of the envelope's plateau (the muscle moment is
    plateau_moment x ENVELOPE), viscosity [Pa s], form: SlenderBodyDrag's ("spheroid" or
    "gazzola2018"), periods: duration in beats (duration [s] instead, if given), dt [s]
    (default: dt_fraction x the smaller of the elastic stability estimate and drag_time_scale,
    rounded down to a divisor of the period)."""
    p = PARAMS
    sm._checks.integer("n_elems", n_elems, 4)
    for key, value in (("length", length), ("wavelength", wavelength),
                       ("wave_amplitude", wave_amplitude), ("viscosity", viscosity),
                       ("periods", periods), ("dt_fraction", dt_fraction)):
        sm._checks.positive(key, value)
    if length / p["radius"] < 10.0:
        raise ValueError(f"length = {length!r} is not allowed: slender-body drag needs length >= "
                         f"10 x the radius ({10 * p['radius']:g} m)")
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(
        name="filament", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
        normal=(0.0, 0.0, 1.0), length=length, n_elems=n_elems, radius=p["radius"],
        density=p["density"], youngs_modulus=p["youngs_modulus"])
    scene.add(sm.SlenderBodyDrag(rod, viscosity, form=form, name="stokes"))
    beta = plateau_moment(wave_amplitude, wavelength, p["youngs_modulus"], p["radius"])
    scene.add(sm.MuscleTorqueWave(rod, tuple(beta * c for c in ENVELOPE), wavelength=wavelength,
                                  period=p["period"], name="muscle"))
    c_t, c_n = slender_body_coefficients(viscosity, length / p["radius"], form)
    if dt is None:
        from softmech.scenarios.swimmer import stable_dt
        drag = drag_time_scale(c_n, p["density"], p["radius"], length / n_elems)
        dt = min(stable_dt(scene, p["period"], dt_fraction),
                 p["period"] / np.ceil(p["period"] / (dt_fraction * drag)))
    return scene, TorqueSwimmerInfo(
        rod="filament", muscle="muscle", drag="stokes", worlds=worlds,
        dt=float(sm._checks.positive("dt", dt)),
        duration=float(periods * p["period"] if duration is None
                       else sm._checks.positive("duration", duration)),
        period=p["period"], wavelength=float(wavelength), n_elems=n_elems, length=float(length),
        radius=p["radius"], density=p["density"], viscosity=float(viscosity), c_t=float(c_t),
        c_n=float(c_n))


def drag_time_scale(c_n, density, radius, elem_length):
    """Shortest relaxation time [s] of the drag on a uniform rod's elements, which the explicit
    stability estimate (softmech.stability, elasticity only) does not see: an element's velocity
    relaxes at c_n / (rho A) and its rotation at (c_n l^3 / 12) / (rho I l) = c_n l^2 / (3 rho A
    r^2) (SlenderBodyDrag's couple over the rotary inertia, I = A r^2 / 4). An explicit kick
    decays a mode at rate lambda monotonically for dt < 1 / lambda (and is unstable beyond
    2 / lambda): 1 / max(rates). With coarse elements (l > 1.7 r) the rotation is the faster
    one: at 12 elements of this scene, 5.5e-6 s, below the elastic estimate."""
    area = np.pi * radius**2
    rate = c_n / (density * area) * max(1.0, elem_length**2 / (3 * radius**2))
    return 1.0 / rate


def torque_swimmer_info(scene, run, report):
    """TorqueSwimmerInfo of a torque-swimmer scenario (template "torque_swimmer"). [report]: rod
    (default "filament"), muscle (the MuscleTorqueWave, default "muscle"), drag (the
    SlenderBodyDrag, default "stokes"), fluid_density [kg/m^3] (only for the Reynolds number)."""
    from softmech.scenarios.templates import find_rod, find_term, report_parameters

    p = report_parameters(report, {"rod": "filament", "muscle": "muscle", "drag": "stokes",
                                   "fluid_density": PARAMS["fluid_density"]})
    rod = find_rod(scene, p["rod"])
    muscle = find_term(scene, p["muscle"], (sm.MuscleTorqueWave,), "muscle")
    drag = find_term(scene, p["drag"], (sm.SlenderBodyDrag,), "drag")
    radius = float(np.max(rod.radius))
    c_t, c_n = slender_body_coefficients(drag.viscosity, rod.length / radius, drag.form)
    return TorqueSwimmerInfo(
        rod=rod.name, muscle=muscle.name, drag=drag.name, worlds=run.worlds, dt=run.dt,
        duration=run.duration, period=muscle.period, wavelength=muscle.wavelength,
        n_elems=rod.n_elems, length=float(rod.length), radius=radius,
        density=float(np.max(rod.density)), viscosity=drag.viscosity, c_t=float(c_t),
        c_n=float(c_n),
        fluid_density=float(sm._checks.positive("fluid_density", p["fluid_density"])))


def torque_swimmer_report(info):
    """The [report] table of a torque-swimmer scenario."""
    return {"rod": info.rod, "muscle": info.muscle, "drag": info.drag,
            "fluid_density": info.fluid_density}


# ------------------------------------------------------------------------------------ analysis
def taylor_speed(c_t, c_n, omega, k, mean_square_amplitude):
    """Swimming speed [m/s] of a filament waving y = A sin(k x - omega t), to O(A^2) (resistive
    force theory; Gray & Hancock 1955, Lighthill 1975; Lauga & Powers 2009 eq. 40):

        U = (c_n / c_t - 1) omega k <A^2> / 2,   opposite to the wave (wave towards +x: U < 0)

    Derivation, force balance on one wavelength in the frame that moves with the body at
    velocity -U x (U > 0 against the wave): a point's velocity is u = (-U, y_t) with
    y_t = -A omega cos(k x - omega t); the tangent is t = (1, y_x) / sqrt(1 + y_x^2),
    y_x = A k cos(k x - omega t). The drag per unit length f = -c_n u + (c_n - c_t) (u . t) t has
    x-component c_n U + (c_n - c_t)(-U + y_t y_x) + O(A^4) = c_t U + (c_n - c_t) y_t y_x, and
    y_t y_x = -A^2 omega k cos^2(...) averages to -A^2 omega k / 2 over a wavelength. Zero net
    force: c_t U = (c_n - c_t) omega k A^2 / 2. With an amplitude A(s) that varies slowly along
    the body the local thrust is the same with A(s)^2 and the drag still c_t U per unit length,
    so A^2 is replaced by its mean over the length, mean_square_amplitude [m^2].
    Returns U > 0: the speed against the wave."""
    return (c_n / c_t - 1.0) * omega * k * mean_square_amplitude / 2.0


def curvature_wave(positions, time, period, arc_length):
    """Travelling curvature wave of planar midlines (xy), sampled over whole periods.

    positions (n, n_nodes, 3) [m] at times time (n,) [s]; arc_length (n_nodes - 2,) [m]: each
    interior node's rest arc length from the head. The signed curvature kappa(s, t) [1/m] (turning
    angle between neighbouring elements over the Voronoi length) is fitted at each interior node
    by least squares to a(s) cos(omega t) + b(s) sin(omega t) (its first harmonic, omega =
    2 pi / period), so the curvature amplitude is |kappa|(s) = hypot(a, b) and its phase
    phi(s) = atan2(b, a). For a wave y = A sin(k x - omega t), kappa = y_xx = -A k^2 sin(...):
    kappa = A k^2 (sin(omega t) cos(k x) - cos(omega t) sin(k x)), so phi = pi / 2 + k x: k is
    the slope of the phase against s (fitted where |kappa| exceeds half its maximum; > 0 for a
    wave running towards increasing s, from the head to the tail when s is measured from it), and
    A(s) = |kappa|(s) / k^2 (slowly varying amplitude).

    Returns dict: k [1/m] (> 0: head to tail), wavelength [m], kappa_amplitude (n_vor,) [1/m],
    amplitude A(s) (n_vor,) [m], mean_square_amplitude <A^2> [m^2] (mean over the rod length,
    the ends counted as zero amplitude), peak_amplitude [m]."""
    x = np.asarray(positions, dtype=float)
    edges = np.diff(x[..., :2], axis=1)
    angle = np.unwrap(np.arctan2(edges[..., 1], edges[..., 0]), axis=1)
    lengths = np.linalg.norm(edges, axis=2)
    kappa = np.diff(angle, axis=1) / (0.5 * (lengths[:, 1:] + lengths[:, :-1]))   # (n, n_vor)
    omega = 2 * np.pi / period
    basis = np.stack([np.cos(omega * time), np.sin(omega * time)], axis=1)        # (n, 2)
    (a, b), *_ = np.linalg.lstsq(basis, kappa, rcond=None)
    amp = np.hypot(a, b)
    phase = np.unwrap(np.arctan2(b, a))
    s = np.asarray(arc_length, dtype=float)
    strong = amp >= 0.5 * amp.max()
    slope = np.polyfit(s[strong], phase[strong], 1)[0]
    k = slope
    amplitude = amp / k**2
    # trapezoid over [0, L] with A = 0 at the two end nodes (no moment at a free end)
    s_all = np.concatenate([[0.0], np.sort(s), [s.max() + s.min()]])
    a2 = np.concatenate([[0.0], amplitude[np.argsort(s)] ** 2, [0.0]])
    mean_square = float(np.trapezoid(a2, s_all) / (s_all[-1] - s_all[0]))
    return {"k": float(k), "wavelength": float(2 * np.pi / abs(k)), "kappa_amplitude": amp,
            "amplitude": amplitude, "mean_square_amplitude": mean_square,
            "peak_amplitude": float(amplitude.max())}


def rft_velocity(positions, velocities, node_mass, c_t, c_n):
    """Force- and torque-free rigid velocity of planar (xy) midlines under resistive-force
    theory, by quadrature, given their shape changes.

    positions, velocities (..., n_nodes, 3) [m], [m/s] (lab frame); node_mass (n_nodes,) [kg]
    (weights of the centre); c_t, c_n [N s/m^2]. The deformation velocity is what remains of the
    velocities after the rigid motion of the Tisserand frame (centre velocity V_c = sum m v /
    sum m, angular velocity Omega_c = sum m r x v / sum m |r|^2, r = x - centre): w = v - V_c -
    Omega_c x r. The rigid velocity (V, Omega) is then solved from zero total drag force and
    torque about the centre for the velocity field V + Omega x r + w, linear along each element:
    force -l R_e u_e (u_e the element's mean velocity, R_e = c_t t t + c_n (I - t t)), torque
    r_e x that plus -c_n (l^2 / 12) t x (u_{i+1} - u_i), the exact integral of the linear
    variation along a straight element (for a rigid rotation: -c_n Omega l^3 / 12, the couple of
    softmech.SlenderBodyDrag). If the recorded motion is force-free, V = V_c: the difference
    measures inertia and any drag the simulation adds beyond RFT.

    Returns (V (..., 2) [m/s], Omega (...,) [rad/s], V_c (..., 2) [m/s], Omega_c (...,) [rad/s])."""
    x = np.asarray(positions, dtype=float)[..., :2]
    v = np.asarray(velocities, dtype=float)[..., :2]
    m = np.asarray(node_mass, dtype=float)
    centre = np.einsum("...ij,i->...j", x, m) / m.sum()
    r = x - centre[..., None, :]
    v_c = np.einsum("...ij,i->...j", v, m) / m.sum()
    omega_c = (np.einsum("...i,i->...", _cross(r, v), m)
               / np.einsum("...i,i->...", (r**2).sum(-1), m))
    w = v - v_c[..., None, :] - _perp(r) * omega_c[..., None, None]
    edge = np.diff(x, axis=-2)
    l = np.linalg.norm(edge, axis=-1)
    t = edge / l[..., None]
    r_e = 0.5 * (r[..., 1:, :] + r[..., :-1, :])

    def load(u):
        """Total force (..., 2) and torque (...) of a nodal velocity field u (..., n_nodes, 2)."""
        u_e = 0.5 * (u[..., 1:, :] + u[..., :-1, :])
        along = (u_e * t).sum(-1, keepdims=True) * t
        f = -l[..., None] * (c_t * along + c_n * (u_e - along))
        torque = _cross(r_e, f) - c_n * l**2 / 12.0 * _cross(t, np.diff(u, axis=-2))
        return f.sum(-2), torque.sum(-1)

    columns = [np.broadcast_to(np.array([1.0, 0.0]), r.shape), np.broadcast_to(
        np.array([0.0, 1.0]), r.shape), _perp(r)]                 # velocity fields of V_x, V_y, Omega
    matrix = np.stack([np.concatenate([f, tq[..., None]], axis=-1)
                       for f, tq in map(load, columns)], axis=-1)     # (..., 3, 3)
    f_w, tq_w = load(w)
    rhs = -np.concatenate([f_w, tq_w[..., None]], axis=-1)
    sol = np.linalg.solve(matrix, rhs[..., None])[..., 0]
    return sol[..., :2], sol[..., 2], v_c, omega_c


def rft_mean_velocity(positions, velocities, node_mass, c_t, c_n, sample_interval):
    """Mean swimming velocity (2,) [m/s] of a shape sequence sampled every sample_interval [s]
    over whole periods (positions, velocities (n, n_nodes, 3), in a frame that may itself move
    and turn): the force-free
    rigid velocity of each sample (rft_velocity), carried into a lab frame whose orientation
    psi advances at the difference between the force-free rotation and the given frame's own,
    d psi / dt = Omega - Omega_c (midpoint rule; psi's mean is taken as the lab's x axis), and
    averaged. For midlines recorded in the lab Omega = Omega_c and this is the mean of V."""
    v, omega, _, omega_c = rft_velocity(positions, velocities, node_mass, c_t, c_n)
    rate = omega - omega_c
    psi = sample_interval * (np.cumsum(rate) - 0.5 * rate)
    psi -= psi.mean()
    c, s = np.cos(psi), np.sin(psi)
    lab = np.stack([c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]], axis=1)
    return lab.mean(axis=0)


def _cross(a, b):
    """z-component of the cross product of planar vectors (..., 2)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _perp(r):
    """z x r for planar vectors (..., 2): the velocity of a unit rotation about z."""
    return np.stack([-r[..., 1], r[..., 0]], axis=-1)


def mean_speed(time, com, period, first, last):
    """Mean centre-of-mass velocity (2,) [m/s] in the xy plane between periods first and last
    (the samples nearest to those times): (com(t_last) - com(t_first)) / (t_last - t_first)."""
    i0 = int(np.argmin(np.abs(time - first * period)))
    i1 = int(np.argmin(np.abs(time - last * period)))
    return (com[i1, :2] - com[i0, :2]) / (time[i1] - time[i0])


def travelling_wave_midlines(length, wavelength, wave_amplitude, time, period, n_elems=400,
                             envelope=None):
    """Midlines of an inextensible filament of `length` [m] carrying the curvature wave of
    y = A sin(k x - omega t), kappa(s, t) = A k^2 envelope(s) sin(omega t - k s) (k = 2 pi /
    wavelength, omega = 2 pi / period, s the arc length), at times time (n,) [s]: positions and
    their exact time derivatives, (n, n_elems + 1, 3) [m], [m/s], in the frame of the mean
    tangent angle (the tangent angle theta(s, t) = integral of kappa, minus its mean over s).
    envelope: a function of s (array) -> [-], default 1 (uniform amplitude). The wave runs
    towards +x, so the filament swims towards -x. Used to check rft_mean_velocity against
    taylor_speed independently of the rod mechanics."""
    k, omega = 2 * np.pi / wavelength, 2 * np.pi / period
    s = np.linspace(0.0, length, n_elems + 1)
    mid = 0.5 * (s[1:] + s[:-1])
    env = np.ones_like(mid) if envelope is None else np.asarray(envelope(mid), dtype=float)
    t = np.asarray(time, dtype=float)[:, None]
    ds = length / n_elems
    # theta at the element midpoints (trapezoid from s = 0), its time derivative likewise
    kappa = wave_amplitude * k**2 * env * np.sin(omega * t - k * s[None, :-1] - k * ds / 2)
    rate = wave_amplitude * k**2 * env * omega * np.cos(omega * t - k * mid)
    theta = np.cumsum(kappa, axis=1) * ds - 0.5 * kappa * ds
    theta_t = np.cumsum(rate, axis=1) * ds - 0.5 * rate * ds
    theta -= theta.mean(axis=1, keepdims=True)
    theta_t -= theta_t.mean(axis=1, keepdims=True)
    edge = np.stack([np.cos(theta), np.sin(theta), np.zeros_like(theta)], axis=-1) * ds
    edge_t = np.stack([-np.sin(theta), np.cos(theta), np.zeros_like(theta)],
                      axis=-1) * (theta_t * ds)[..., None]
    zero = np.zeros((len(t), 1, 3))
    return (np.concatenate([zero, np.cumsum(edge, axis=1)], axis=1),
            np.concatenate([zero, np.cumsum(edge_t, axis=1)], axis=1))


def analyse(time, com, positions, velocities, info, first, last):
    """The torque swimmer's numbers from one world's records: time (n,) [s], com (n, 3) [m],
    positions and velocities (n, n_nodes, 3) [m], [m/s], sampled uniformly; the speed is
    averaged over periods first..last, the wave fitted over the last of them (the samples with
    last - 1 <= t / period < last) and the RFT quadrature taken over first <= t / period < last.

    Returns dict: speed [m/s] (mean centre velocity along +x, head first; > 0 against the
    wave), lateral_speed [m/s], k [1/m] (> 0: wave from head to tail), wavelength [m],
    peak_amplitude and effective_amplitude sqrt(<A^2>) [m], wave_speed omega / k [m/s],
    taylor_speed [m/s] (taylor_speed for the measured k and <A^2>), relative_difference
    (speed / taylor_speed - 1), rft_speed [m/s] (rft_mean_velocity along x of the recorded
    shapes), inertia_ratio rho A omega / c_n [-], reynolds rho_f (A_peak omega) L / mu [-] and
    swimming_reynolds rho_f |speed| L / mu [-]."""
    period, omega = info.period, 2 * np.pi / info.period
    l = np.full(info.n_elems, info.length / info.n_elems)
    phase = time / period
    tol = 1e-9
    last_beat = (phase >= last - 1 - tol) & (phase < last - tol)
    arc = info.length - np.cumsum(l)[:-1]                 # interior nodes, from the head (last)
    wave = curvature_wave(positions[last_beat], time[last_beat], period, arc)
    velocity = mean_speed(time, com, period, first, last)
    window = (phase >= first - tol) & (phase < last - tol)
    node_mass = np.concatenate([[0.0], l]) / 2 + np.concatenate([l, [0.0]]) / 2
    rft = rft_mean_velocity(positions[window], velocities[window], node_mass, info.c_t,
                            info.c_n, time[1] - time[0])
    predicted = taylor_speed(info.c_t, info.c_n, omega, wave["k"], wave["mean_square_amplitude"])
    rho_f_over_mu = info.fluid_density / info.viscosity
    return {"speed": float(velocity[0]), "lateral_speed": float(velocity[1]),
            "k": wave["k"], "wavelength": wave["wavelength"],
            "peak_amplitude": wave["peak_amplitude"],
            "effective_amplitude": float(np.sqrt(wave["mean_square_amplitude"])),
            "wave_speed": float(omega / wave["k"]), "taylor_speed": float(predicted),
            "relative_difference": float(velocity[0] / predicted - 1.0),
            "rft_speed": float(rft[0]), "inertia_ratio": float(info.inertia_ratio),
            "reynolds": float(rho_f_over_mu * wave["peak_amplitude"] * omega * info.length),
            "swimming_reynolds": float(rho_f_over_mu * abs(velocity[0]) * info.length),
            "amplitude_profile": wave["amplitude"], "arc_length": arc}


def analysis_window(duration, period):
    """Periods (first, last) of `analyse`: from the end of the second period (the muscle ramps
    up over the first) to the last whole period when the run lasts 3 periods or more, else the
    second half of the run."""
    from softmech.scenarios.snake import averaging_window

    return averaging_window(duration, period, first=2, last=max(3, int(duration / period + 1e-9)))
