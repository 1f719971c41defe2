"""The Quadropus of Renda et al., IJRR 2018 section 7.1: the PoseiDRONE's mantle and arms
(Table 1) on a solid-cone root body (112 mm long, base radius 20 mm, 204 g, C_r = 0.02 m^2), the
four arms stacked at the back of the mantle, pulsed jetting at 1.51 pps and one sculling stroke
of the arms (eq. 25: a bending moment recruited from base to tip over 1 s, then released) --
the octopus's escape manoeuvre.

Choices the paper leaves open (docs/underwater.md): the cone's base is at the root frame's
origin, its apex 112 mm ahead (+x, the swimming direction), so its centre of mass is 28 mm ahead
(a solid cone's, h/4 from the base); the mantle's cup ring sits at the origin (g_rs), the arms'
bases at (-112, 0, -10) mm turned by pi/2 about e1 (g_rb1), pointing out radially; the sculling
moment bends each arm in the plane of the swimming axis (about its hoop direction d2), forwards
during recruitment (the arms open), and its release lets them close; the jet's "triangular
force from 0 to -15/r*" is read as a radial actuation pressure -15 N / r* tri(t) over [X_s1,
X_s2], r* = T_s = 31 mm there; recruitment from t = 1 s to 2 s (the arm expansion of Fig. 14).
"""
import numpy as np

import softmech as sm
from softmech.bodies.axisym_shell import mantle_profile
from softmech.scenarios.poseidron import (DEFAULTS, TABLE1_ARM, TABLE2_ROOT, PoseidronInfo,
                                          add_arm, add_mantle, default_dt, rotary_inertia)

QUADROPUS = dict(cone_length=0.112, cone_radius=0.020, mass=0.204, arm_base=(-0.112, 0.0, -0.010),
                 jet_peak=15.0 / 0.031, frequency=1.51, moment=5e-3, start=1.0, recruitment=1.0)
"""Section 7.1 (SI units): root cone, arm base (g_rb1), jet pressure peak [Pa] (15 N / r*),
frequency [pps], sculling moment m_baz [N m] (0, 5 or 7 mN m in Fig. 12), its start and
recruitment time Delta t [s]."""
G_RS = (np.eye(3)[[2, 1, 0]] * [[1], [1], [-1]], np.zeros(3))
"""The mantle frame: its axis E3 along the root's e1, cup ring at the origin (section 7)."""


def cone_inertia(mass, length, radius):
    """(centre of mass (3,) [m], inertia tensor (3, 3) [kg m^2]) of a solid cone with its base
    at the origin and its apex at (length, 0, 0): I_axis = 3/10 m R^2, I_transverse = m (3/20
    R^2 + 3/80 h^2) about the centre of mass, h/4 from the base."""
    axial = 0.3 * mass * radius ** 2
    transverse = mass * (0.15 * radius ** 2 + 3.0 / 80.0 * length ** 2)
    return np.array([length / 4, 0.0, 0.0]), np.diag([axial, transverse, transverse])


def cone_mesh(length, radius, sides=32):
    """Display mesh of the solid cone of cone_inertia (base at the origin, apex at (length, 0,
    0) [m]): vertices (sides + 2, 3) [m] about its centre of mass (h/4 from the base), faces
    (2 sides, 3), outward counter-clockwise. The pictures draw it; the dynamics use only
    cone_inertia."""
    phi = 2.0 * np.pi * np.arange(sides) / sides
    rim = np.stack([np.zeros(sides), radius * np.cos(phi), radius * np.sin(phi)], -1)
    vertices = np.concatenate([rim, [[length, 0.0, 0.0], [0.0, 0.0, 0.0]]])
    k0, k1 = np.arange(sides), (np.arange(sides) + 1) % sides
    faces = np.concatenate([np.stack([k0, k1, np.full(sides, sides)], -1),          # side
                            np.stack([k1, k0, np.full(sides, sides + 1)], -1)])      # base
    return vertices - [length / 4, 0.0, 0.0], faces


def turn_x(k):
    c, s = np.cos(k * np.pi / 2), np.sin(k * np.pi / 2)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def triangle(t, frequency):
    """0 -> 1 -> 0 over each period."""
    return 1.0 - np.abs(2.0 * np.mod(np.asarray(t) * frequency, 1.0) - 1.0)


def _cone_and_mantle(n_elems, duration, frequency, moment, scaling):
    """What the Quadropus and the Monopus share, after checking the arguments: the cone root
    body with its drag and the pulsed mantle; returns (scene, root, mantle rod, jet axis (3,))."""
    from softmech import _checks

    _checks.positive("frequency", frequency)
    _checks.positive("duration", duration)
    _checks.finite("moment", moment)
    q = QUADROPUS
    com, inertia = cone_inertia(q["mass"], q["cone_length"], q["cone_radius"])
    scene = sm.Scene()
    vertices, faces = cone_mesh(q["cone_length"], q["cone_radius"])
    root = scene.add_rigid_body(name="root", position=com, mass=q["mass"], inertia=inertia,
                                vertices=vertices, faces=faces)
    scene.add(sm.QuadraticDrag(root, coefficient=TABLE2_ROOT["drag"], name="root_drag"))
    times = np.arange(0.0, duration + 1e-3, 1e-3)
    rod = add_mantle(scene, root, times, -q["jet_peak"] * triangle(times, frequency), n_elems,
                     G_RS, scaling)
    return scene, root, rod, G_RS[0][:, 2]


def build_quadropus(n_elems=DEFAULTS["n_shell"], worlds=1, *, duration=6.0,
                    moment=QUADROPUS["moment"], frequency=QUADROPUS["frequency"],
                    scheme="implicit_euler", dt=None, arm_elems=DEFAULTS["n_arm"]):
    """The Quadropus scene (module docstring); returns (scene, PoseidronInfo). n_elems: mantle
    elements (default: Table 1's grid, as the PoseiDRONE's); arm_elems: elements per arm;
    moment m_baz [N m] of the sculling stroke; frequency [pps] > 0;
    duration [s] > 0; scheme and dt [s] as build_poseidron's."""
    q = QUADROPUS
    scaling = rotary_inertia(scheme)
    scene, root, rod, axis = _cone_and_mantle(n_elems, duration, frequency, moment, scaling)
    for k in range(4):
        base = turn_x(k) @ np.asarray(q["arm_base"])
        out = turn_x(k) @ np.array([0.0, 0.0, -1.0])            # g_rb1's first column, turned
        arm = add_arm(scene, root, f"arm{k + 1}", base, out, axis, arm_elems, scaling)
        scene.add(sm.RecruitedBending(arm, -moment, start=q["start"], duration=q["recruitment"],
                                      axis="d2", body=root, name=f"arm{k + 1}_sculling"))
    return scene, PoseidronInfo(rod=rod.name, body="root", worlds=worlds,
                                dt=default_dt(scheme, dt, scene),
                                duration=duration, frequency=frequency, axis=tuple(axis),
                                n_elems=n_elems, origin=tuple(G_RS[1]), title="Quadropus",
                                scheme=scheme, steady_start=q["start"] + q["recruitment"] + 1.0)



MONOPUS = dict(arm_base=(-0.110, 0.0, 0.0), moment=5e-3, first=(0.5, 1.0), second=(3.0, 1.0))
"""Section 7.2: the arm's base (g_rb) [m], m_baz [N m] (Fig. 16), and (start, recruitment
time) [s] of the bending about d1, then about d2 (eq. 28's Delta t_1, Delta t_2, Delta t_3,
which the paper does not give)."""


def build_monopus(n_elems=DEFAULTS["n_shell"], worlds=1, *, duration=6.0,
                  moment=MONOPUS["moment"], frequency=QUADROPUS["frequency"],
                  scheme="implicit_euler", dt=None, arm_elems=DEFAULTS["n_arm"]):
    """The Monopus of section 7.2: the Quadropus's cone and mantle with one rear-pointing arm
    bent from base to tip about its d1 axis and, after a pause, about d2 (eq. 28, each with
    eq. 25's recruited profile), steering the jetting robot; returns (scene, PoseidronInfo).
    g_rb's printed rotation would point the arm along -z; the text's "rear-pointing" arm is
    taken (along -x). scheme, dt [s] and arm_elems as build_quadropus's."""
    mo = MONOPUS
    scaling = rotary_inertia(scheme)
    scene, root, rod, axis = _cone_and_mantle(n_elems, duration, frequency, moment, scaling)
    arm = add_arm(scene, root, "arm", np.asarray(mo["arm_base"]), -axis, (0.0, 0.0, 1.0),
                  arm_elems, scaling)
    for which, (start, span) in (("d1", mo["first"]), ("d2", mo["second"])):
        scene.add(sm.RecruitedBending(arm, moment, start=start, duration=span, axis=which,
                                      body=root, name=f"steer_{which}"))
    r, z = mantle_profile(n_elems=n_elems)
    mantle_length = float(np.hypot(np.diff(r), np.diff(z)).sum())        # L_s = 118 mm
    return scene, PoseidronInfo(rod=rod.name, body="root", worlds=worlds,
                                dt=default_dt(scheme, dt, scene),
                                duration=duration, frequency=frequency, axis=tuple(axis),
                                n_elems=n_elems, origin=tuple(G_RS[1]), title="Monopus",
                                length=mantle_length + TABLE1_ARM["length"], scheme=scheme)
