"""The PoseiDRONE robot of Renda, Giorgio-Serchi, Boyer, Laschi, Dai & Zheng, IJRR 2018
("A unified multi-soft-body dynamic model for underwater soft robots"), section 6: a rigid
root body (four bars, Table 2), a soft mantle (axisymmetric Cosserat shell, Table 1) pulsed by
cables at 1.26, 1.51 or 1.89 pulsations per second, and four tapered soft arms (Table 1), in
still water; it swims along the mantle's axis by pulsed jetting (eq. 15).

Model (docs/underwater.md): root body free in SE(3), QuadraticDrag C_r = 0.02 m^2, B_r = 0
(Table 2). Mantle: the meridian of a half sphere T_s = 31 mm truncated at pi/4 by the rigid cup,
then a 94 mm cylinder (L_s = 118 mm), thickness 2 h_s = 2 mm, E = 40 kPa, nu = 0, eta = 500 Pa s,
rho_s = 7415 kg/m^3; MantleDrag C_d = 1.7, MantleAddedMass B_s = 1.1, PulsedJet C_f = 1, A_no = 491
mm^2, A_ni = 1400 mm^2; radial actuation f_r = -F(t) / int 2 pi r* dX over [X_s1, X_s2] = [25,
110] mm (section 6.1). Arms: cones 245 mm, radius 10 -> 2 mm, E = 110 kPa, nu = 0, eta = 300 Pa s
(Kelvin-Voigt retardation 3 eta / E, eq. 6's bending/stretching ratio), rho_b = 1080 kg/m^3,
QuadraticDrag C_n = 2.5, C_t = 0.01 (eq. 11), AddedMass B_b = 1.5 (eq. 13), fixed to the root
by g_rb (FixedJoint). The robot is neutrally buoyant (its buoyancy module, section 6), so
gravity and buoyancy cancel and are left out. The experiment let the robot "translate along the
surge direction only" and the model "controlled" pitch and lift (section 6.1): HoldMotion holds
the root's lift (lab z) and its orientation (pitch; yaw and roll stay below 1e-3 deg without it,
the robot being mirror-symmetric about its x-z plane). The robot is not symmetric about its
axis: the arms' drag acts about 40 mm below the mantle's thrust line (which passes 5 mm below
the root's centre of mass), so without the hold it pitches nose-down by about 1.3 deg/s and
sinks (`hold=False`).

Choices the paper leaves open: the cable tension F(t) (Fig. 9, measured at 2 pps, not given as
numbers) is a half-sine contraction of peak `peak_tension` over the first half of each period and
zero during relaxation; g_rs, g_rb and g_rr are read from the PDF (some entries garbled) and
replaced by their nearest rotations: the mantle axis is the root's e1 (swimming direction +x),
its cup ring centred at (90, 0, -50) mm, the arm bases at (+-76, +-76, -90) mm pointing out along
(0.70, 0.70, 0.09) (normalized) turned by pi/2 about e3.
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech.bodies.axisym_shell import mantle_profile, meridian_rod

TABLE1_SHELL = dict(youngs_modulus=40e3, poisson_ratio=0.0, viscosity=500.0, density=7415.0,
                    drag_coefficient=1.7, added_mass=1.1, flow_coefficient=1.0,
                    thickness=2e-3, outflow_area=491e-6, inflow_area=1400e-6,
                    actuation_interval=(0.025, 0.110))
TABLE1_ARM = dict(youngs_modulus=110e3, viscosity=300.0, density=1080.0, tangential=0.01,
                  normal=2.5, added_mass=1.5, length=0.245, radius_max=0.010, radius_min=0.002)
TABLE2_ROOT = dict(bar_mass=0.051, drag=0.02, added_mass=0.0, bar_length=0.141, bar_width=0.005)
FREQUENCIES = (1.26, 1.51, 1.89)
"""Motor frequencies of Fig. 10 [pulsations per second]."""
PAPER_ERRORS = {1.89: 0.155, 1.51: 0.184, 1.26: 0.229}
"""Model-experiment errors of the paper's mean surge velocity (section 6.1), per frequency."""
G_RS = (np.eye(3)[[2, 1, 0]] * [[1], [1], [-1]], np.array([90.0, 0.0, -50.0]) * 1e-3)
"""Mantle frame in the root frame (rotation, translation [m]): its E3 (the axis) is the root's e1."""
G_RB1 = (np.array([[0.70, -0.71, 0.06], [0.70, 0.71, -0.06], [0.09, 0.0, 0.99]]),
         np.array([76.0, 76.0, -90.0]) * 1e-3)
G_RR1 = (np.array([[0.45, -0.71, -0.54], [0.45, 0.71, -0.54], [-0.77, 0.0, 0.64]]),
         np.array([38.0, 38.0, -45.0]) * 1e-3)
"""First arm's base and first bar's centre (rotation as printed, translation [m]); the third
row's sign of G_RR1 is taken negative, the only reading with orthonormal columns."""
ROTARY_INERTIA = 100.0
"""Rotary inertia scaling of the mantle and arms (softmech.RotaryInertiaScaling) under an
explicit scheme: the Kelvin-Voigt viscosity of the thin sections' shear-rotation mode limits
the explicit step to 2.5e-6 s otherwise (tau omega^2 dt < 2, omega = sqrt(8 G / rho) / a);
x100 gives 3.5e-5 s. The default scheme, implicit Euler (softmech.integrators.implicit), needs
no scaling: its step is set by the motion (IMPLICIT_DT)."""
IMPLICIT_DT = 5e-4
"""Default time step of the underwater robots [s] with implicit Euler (25 x the explicit 2e-5
s, unscaled inertia): the mean surge of the PoseiDRONE over 2 s is 0.03044 m/s at 5e-4 s,
0.03038 at 1e-3 s, 0.03048 at 2e-4 s and 0.03050 with explicit Verlet at 2e-6 s (no scaling,
root free, 30 mantle and 16 arm elements; benchmarks/implicit_cosserat.py,
docs/benchmarks_log.md)."""
EXPLICIT_FRACTION = 0.9
"""Default time step of the explicit schemes (rotary inertia x ROTARY_INERTIA) as a fraction of
the scene's explicit stability estimate (Scene.time_step_limit): the step follows the grid
(Table 1's 118 mantle / 4 x 49 arm elements: 0.9 x 2.24e-6 s; a fixed 2e-5 s, right for the
former coarse grids, diverged on it in the first 0.01 s)."""
DEFAULTS = dict(frequency=1.51, peak_tension=4.0, cycles=8, n_shell=118, n_arm=49)
"""n_shell, n_arm: Table 1's grids, 1 mm along the mantle's 118 mm meridian and 5 mm along
the 245 mm arms. The mean surge at 1.51 pps over 2 s is converged in them: 2.950 cm/s, against
2.926 at twice as many elements (0.8 %), 3.018 at 30 / 16 (the grid before); the arms' grid
alone moves it by 0.03 % (docs/underwater.md)."""


def nearest_rotation(R):
    """The rotation closest to R (3, 3) in the Frobenius norm (polar decomposition)."""
    u, _, vt = np.linalg.svd(R)
    return u @ np.diag([1, 1, np.linalg.det(u @ vt)]) @ vt


def turn_z(k):
    c, s = np.cos(k * np.pi / 2), np.sin(k * np.pi / 2)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def root_inertia():
    """(centre of mass (3,) [m], inertia tensor (3, 3) [kg m^2] about it) of the four bars."""
    p = TABLE2_ROOT
    m, L, h = p["bar_mass"], p["bar_length"], p["bar_width"]
    R1 = nearest_rotation(G_RR1[0])
    centres = [turn_z(k) @ G_RR1[1] for k in range(4)]
    com = np.mean(centres, axis=0)
    inertia = np.zeros((3, 3))
    for k, c in enumerate(centres):
        R = turn_z(k) @ R1
        local = np.diag([m * h * h / 6, m * (L * L + h * h) / 12, m * (L * L + h * h) / 12])
        d = c - com
        inertia += R @ local @ R.T + m * (d @ d * np.eye(3) - np.outer(d, d))
    return com, inertia


def root_mesh():
    """Display mesh of the root (what softmech's pictures draw; the dynamics use only
    root_inertia): the four bars as boxes (bar_length x bar_width x bar_width, long side along
    their frame's first axis), vertices (32, 3) [m] about the centre of mass in the lab frame
    of the start pose, faces (48, 3)."""
    from softmech.viz.geometry import box_mesh

    p = TABLE2_ROOT
    half = 0.5 * np.array([p["bar_length"], p["bar_width"], p["bar_width"]])
    com = root_inertia()[0]
    corners, faces = box_mesh(-half, half)
    R1 = nearest_rotation(G_RR1[0])
    vertices = [turn_z(k) @ G_RR1[1] - com + corners @ (turn_z(k) @ R1).T for k in range(4)]
    return np.concatenate(vertices), np.concatenate([faces + 8 * k for k in range(4)])


def cable_tension(t, frequency, peak):
    """F(t) [N]: a half-sine pull over the first half of each period, zero during relaxation."""
    phase = np.mod(np.asarray(t) * frequency, 1.0)
    return np.where(phase < 0.5, peak * np.sin(2 * np.pi * phase), 0.0)


@dataclass(frozen=True)
class PoseidronInfo:
    """What `softmech run poseidron` needs."""
    rod: str
    body: str
    worlds: int
    dt: float
    duration: float
    frequency: float
    axis: tuple
    n_elems: int
    origin: tuple = tuple(G_RS[1])
    shell: str = "mantle_shell"
    title: str = "PoseiDRONE"
    scheme: str = None
    """Integrator scheme of the run (Scene.compile; None: the scene's default)."""
    length: float = 0.0
    """Total length L_s + L_b [m] scaling eq. 29's turning radius (the Monopus); 0: the
    turning radius and rate are not reported."""
    steady_start: float = 0.0
    """Time [s] from which the swimming counts as steady for the quasi-propulsive efficiency
    (whole pulsations from there to the end; the Quadropus: after its sculling stroke); 0:
    after the first two pulsations."""


def actuated_area(n_elems):
    """int 2 pi r* dX over [X_s1, X_s2] of the mantle's rest meridian [m^2] (section 6.1)."""
    r, z = mantle_profile(n_elems=n_elems)
    X = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(r), np.diff(z)))])
    Xs = np.linspace(*TABLE1_SHELL["actuation_interval"], 201)
    return np.trapezoid(2 * np.pi * np.interp(Xs, X, r), Xs)


def rotary_inertia(scheme):
    """The rotary inertia scaling of the underwater robots' rods under `scheme`: 1 for
    implicit Euler, ROTARY_INERTIA for the explicit schemes."""
    from softmech import _checks

    _checks.choice("scheme", scheme, {"implicit_euler", "verlet", "pefrl"})
    return 1.0 if scheme == "implicit_euler" else ROTARY_INERTIA


def default_dt(scheme, dt, scene):
    """dt [s] if given, else the scheme's default for the built `scene`: IMPLICIT_DT, or
    EXPLICIT_FRACTION x its explicit stability estimate."""
    if dt is not None:
        return dt
    if scheme == "implicit_euler":
        return IMPLICIT_DT
    return EXPLICIT_FRACTION * float(scene.time_step_limit().min())


def add_scaling(scene, rod, scaling, name):
    """RotaryInertiaScaling of `rod` by `scaling`, unless it is 1."""
    if scaling != 1.0:
        scene.add(sm.RotaryInertiaScaling(rod, scaling, name=name))


def add_mantle(scene, root, times, actuation, n_elems, frame, scaling=ROTARY_INERTIA):
    """The mantle (Table 1) on `root` with its fluid loads, pulsed by the radial actuation
    pressure `actuation` (n,) [Pa] at `times` (n,) [s] over [X_s1, X_s2]; frame = (rotation,
    translation) of the mantle in the lab (its third column the forward axis); scaling: its
    rotary inertia scaling (rotary_inertia). Returns the meridian rod."""
    s = TABLE1_SHELL
    R, origin = frame
    axis = R[:, 2]
    r, z = mantle_profile(n_elems=n_elems)
    rod = scene.add_cosserat_rod(**meridian_rod("mantle", r, z, thickness=s["thickness"],
                                                density=s["density"],
                                                youngs_modulus=s["youngs_modulus"],
                                                poisson_ratio=s["poisson_ratio"], axis=axis,
                                                origin=origin, radial=R[:, 0]))
    first_node_mass = np.pi * (r[0] + r[1]) / 2 * s["density"] * s["thickness"] * rod.rest_lengths[0]
    k = 4e3      # the clamp: about the mantle's own membrane stiffness per element
    scene.add(sm.AxisymmetricShell(
        rod, root, thickness=s["thickness"], youngs_modulus=s["youngs_modulus"],
        poisson_ratio=s["poisson_ratio"], viscosity=s["viscosity"], axis=axis, origin=origin,
        times=times, actuation=actuation, actuation_interval=s["actuation_interval"],
        clamp_stiffness=k, clamp_damping=2 * np.sqrt(k * first_node_mass), name="mantle_shell"))
    add_scaling(scene, rod, scaling, "mantle_rotary_inertia")
    scene.add(sm.MantleDrag(rod, s["drag_coefficient"]))
    scene.add(sm.MantleAddedMass(rod, s["added_mass"]))
    scene.add(sm.PulsedJet(rod, outflow_area=s["outflow_area"], inflow_area=s["inflow_area"],
                           flow_coefficient=s["flow_coefficient"]))
    return rod


def add_arm(scene, root, name, base, direction, normal, n_elems, scaling=ROTARY_INERTIA):
    """A tapered arm (Table 1) fixed to `root` at `base` (3,) [m], along `direction`, d1 =
    `normal`, rotary inertia scaled by `scaling`; returns the rod."""
    from softmech import _checks

    a = TABLE1_ARM
    n_elems = _checks.integer("arm_elems", n_elems, 2)
    radius = np.linspace(a["radius_max"], a["radius_min"], n_elems + 1)
    arm = scene.add_cosserat_rod(name=name, start=base, direction=direction, normal=normal,
                                 length=a["length"], n_elems=n_elems,
                                 radius=0.5 * (radius[1:] + radius[:-1]), density=a["density"],
                                 youngs_modulus=a["youngs_modulus"],
                                 shear_modulus=a["youngs_modulus"] / 2)      # nu = 0
    add_scaling(scene, arm, scaling, f"{name}_rotary_inertia")
    scene.add(sm.KelvinVoigt(arm, 3 * a["viscosity"] / a["youngs_modulus"], name=f"{name}_kv"))
    scene.add(sm.QuadraticDrag(arm, a["normal"], a["tangential"], name=f"{name}_drag"))
    scene.add(sm.AddedMass(arm, a["added_mass"], name=f"{name}_added_mass"))
    scene.add(sm.FixedJoint((root, "attach"), (arm, "first"), stiffness=2e4, damping=20.0,
                            rotational_stiffness=20.0, rotational_damping=0.05,
                            name=f"{name}_joint"))
    return arm


def build_poseidron(n_elems=DEFAULTS["n_shell"], worlds=1, *, duration=None,
                    frequency=DEFAULTS["frequency"], peak_tension=DEFAULTS["peak_tension"],
                    arms=True, scheme="implicit_euler", dt=None, hold=True,
                    arm_elems=DEFAULTS["n_arm"]):
    """The PoseiDRONE scene (module docstring); returns (scene, PoseidronInfo). n_elems: mantle
    elements (default 118: Table 1's 1 mm); frequency [pulsations/s] > 0; peak_tension [N] >= 0 of the cable
    pull; duration [s] (default 8 pulsations); scheme: "implicit_euler" (default: unscaled
    inertia, dt IMPLICIT_DT) or an explicit one (rotary inertia x ROTARY_INERTIA, dt
    EXPLICIT_FRACTION x the stability estimate); dt [s]: another step; hold: pitch and lift held as in the paper's experiment
    (HoldMotion "pitch_lift_hold"), False: the root is free in SE(3); arm_elems: elements per
    arm (default 49: Table 1's 5 mm)."""
    from softmech import _checks

    _checks.positive("frequency", frequency)
    hold = _checks.boolean("hold", hold)
    _checks.nonnegative("peak_tension", peak_tension)
    duration = DEFAULTS["cycles"] / frequency if duration is None else duration
    _checks.positive("duration", duration)
    scaling = rotary_inertia(scheme)
    com, inertia = root_inertia()
    scene = sm.Scene()
    root = scene.add_rigid_body(name="root", position=com, mass=4 * TABLE2_ROOT["bar_mass"],
                                inertia=inertia, vertices=root_mesh()[0], faces=root_mesh()[1])
    scene.add(sm.QuadraticDrag(root, coefficient=TABLE2_ROOT["drag"], name="root_drag"))
    if hold:
        scene.add(sm.HoldMotion(root, translation=(False, False, True), rotation=True,
                                name="pitch_lift_hold"))
    times = np.arange(0.0, duration + 1e-3, 1e-3)
    actuation = -cable_tension(times, frequency, peak_tension) / actuated_area(n_elems)
    rod = add_mantle(scene, root, times, actuation, n_elems, (G_RS[0], G_RS[1]), scaling)
    if arms:
        R1 = nearest_rotation(G_RB1[0])
        for k in range(4):
            R = turn_z(k) @ R1
            add_arm(scene, root, f"arm{k + 1}", turn_z(k) @ G_RB1[1], R[:, 0], R[:, 1],
                    arm_elems, scaling)
    return scene, PoseidronInfo(rod=rod.name, body="root", worlds=worlds,
                                dt=default_dt(scheme, dt, scene), duration=duration,
                                frequency=frequency,
                                axis=tuple(G_RS[0][:, 2]), n_elems=n_elems, scheme=scheme)


def poseidron_info(scene, run, report):
    """PoseidronInfo of a poseidron scenario (template "poseidron"). [report]: rod (the
    mantle's meridian, default "mantle"), body (the root, default "root"), shell (its
    AxisymmetricShell, default "mantle_shell": the axis), frequency [pulsations/s] of the
    actuation signal (default 1.51), title, length [m] (eq. 29) and steady_start [s] (the
    efficiency's window; PoseidronInfo)."""
    from softmech import _checks
    from softmech.scenarios.templates import find_rod, find_term, report_parameters

    p = report_parameters(report, {"rod": "mantle", "body": "root", "shell": "mantle_shell",
                                   "frequency": DEFAULTS["frequency"], "title": "PoseiDRONE",
                                   "length": 0.0, "steady_start": 0.0})
    rod = find_rod(scene, p["rod"])
    shell = find_term(scene, p["shell"], (sm.AxisymmetricShell,), "shell")
    if p["body"] not in {b.name for b in scene.rigid_bodies}:
        raise ValueError(f"[report] body = {p['body']!r} is not allowed: no such rigid body")
    return PoseidronInfo(rod=rod.name, body=p["body"], worlds=run.worlds, dt=run.dt,
                         duration=run.duration, scheme=run.scheme,
                         frequency=float(_checks.positive("[report] frequency", p["frequency"])),
                         axis=tuple(shell.axis), n_elems=rod.n_elems,
                         origin=tuple(shell.origin), shell=shell.name, title=str(p["title"]),
                         length=float(_checks.nonnegative("[report] length", p["length"])),
                         steady_start=float(_checks.nonnegative("[report] steady_start",
                                                                p["steady_start"])))


def poseidron_report(info):
    """The [report] table of a poseidron scenario."""
    return {"rod": info.rod, "body": info.body, "shell": info.shell, "frequency": info.frequency,
            "title": info.title, "length": info.length, "steady_start": info.steady_start}


def surge(time, root_velocity, axis, frequency, skip=2):
    """Surge velocity V(t) = v_root . axis [m/s] (n,) and its mean over the whole pulsations
    after the first `skip` (the start-up) [m/s]."""
    V = root_velocity @ np.asarray(axis)
    T = 1.0 / frequency
    n = int(np.floor(time[-1] / T + 1e-9))
    window = (time >= skip * T - 1e-12) & (time <= n * T + 1e-12)
    if n <= skip or window.sum() < 2:
        window = np.ones_like(time, dtype=bool)
    return V, float(np.trapezoid(V[window], time[window]) / (time[window][-1] - time[window][0]))


def turning(velocity, angular_velocity, length):
    """Renda et al. 2018 eq. 29, the screw parameters of the root body's twist (Murray, Li &
    Sastry 1994, section 2.3): the turning radius r = |w x v| / (L |w|^2) [-] -- the distance
    from the reference point to the instantaneous screw axis, over the robot's length L =
    L_s + L_b -- and the turning rate m = |w| [rad/s]. velocity v (n, 3) [m/s] of the reference
    point and angular velocity w (n, 3) [rad/s] in one frame (r and m do not depend on which);
    length L [m] > 0. r is inf where w = 0 (straight swimming). Returns (r (n,), m (n,))."""
    from softmech import _checks

    length = float(_checks.positive("length", length))
    v = np.asarray(velocity, dtype=float)
    w = np.asarray(angular_velocity, dtype=float)
    m = np.linalg.norm(w, axis=-1)
    arm = np.linalg.norm(np.cross(w, v), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(m > 0, arm / (length * np.where(m > 0, m, 1.0) ** 2), np.inf)
    return r, m


def turning_summary(r, m, share=0.25):
    """(peak turning rate max m [rad/s], median and smallest r [-] over the samples turning at
    least `share` of the peak rate) -- the windows of Fig. 17 where r is finite; (0, inf, inf)
    if the robot never turns."""
    peak = float(np.max(m)) if len(m) else 0.0
    if peak <= 0:
        return 0.0, np.inf, np.inf
    turning_now = m >= share * peak
    return peak, float(np.median(r[turning_now])), float(np.min(r[turning_now]))
