"""Elbow: the human elbow of Zhang, Chan, Parthasarathy, Gazzola, Nat. Commun. 10:4825 (2019),
Fig. 1 -- bones, tendons and a biceps of active muscle rods.

Assembly (x anterior, z up, y lateral; the paper's joints, Methods eqs. 5-6):
  * humerus: stiff tapered rod from the shoulder (0, 0, 0.34) down to the elbow (0, 0, 0), its
    top clamped (default), or, shoulder="spherical", on the paper's spherical shoulder joint
    with the elbow resting on the dynamometer's arm pad (SHOULDERS);
  * radius and ulna: stiff tapered rods from the elbow, at the initial flexion `start_angle`
    (0: the forearm in line with the upper arm, as in the paper's code);
    hinge joint humerus-radius about y with stops at full extension and at FLEXION_RANGE's
    largest flexion, fixed joint ulna-radius (both at the elbow); the forearm's soft tissue is lumped into the two bones' density (forearm mass ~1 kg);
  * biceps, two heads (long, short) side by side in y, each: a tapered proximal tendon of
    0.085 m from its origin (0.0315, +-0.0125, 0.34), a bundle of `fibers` parallel active
    muscle rods 0.238 m long (1 + 6 + rest in two rings) between two aponeurosis plates (thin
    rigid discs) and a tapered distal tendon to the insertion on the radius 5.1 cm below the
    elbow (PAPER_CODE_GEOMETRY: the dimensions of the paper's own code); spherical joints at every
    muscle-plate and tendon-plate and tendon-bone connection (paper: "spherical joints for the
    muscle-tendon, bone-tendon ... connections");
  * rod-rod contact (eq. 7) among all muscle rods of both heads; gravity; linear damping;
    the bones' and tendons' rotary inertia scaled x10 (SPIN_SCALING); dt = 2.5e-6 s (the
    fibres' viscous limit at Hill's damping, 3.3e-6 s, HILL_DAMPING; the cortical bones' axial
    waves alone allow 5.7e-6 s).

Muscles (softmech.terms.active_muscle): sigma_max = 0.4 MPa, default force-length fits,
incompressible (A = A^ / eta), strain-rate damping zeta = 1.43e5 Pa s (HILL_DAMPING: fitted to
Hill's force-velocity law on the isokinetic experiment; the paper's fitted values of Fig. 1d
are not in the sources), activation ramped 0 -> 1 (MVC) over 0.1 s.

Report: (1) the isometric force-length map (Fig. 1c): one muscle rod per world under end
forces F_set, its equilibrium stretch eta against the curves' prediction; (2) a flexion: the
elbow angle over time and the biceps' cross-section growth (sum of the fibers' current areas
A^ / eta over the middle third of the belly) when the elbow passes 90 degrees (paper: ~28 %,
experiments 30-34 %).
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.terms.active_muscle import ActiveMuscle

HILL_DAMPING = 1.43e5
"""The muscle rods' strain-rate damping zeta [Pa s] fitted to Hill's force-velocity law on the
isokinetic experiment (Fig. 1d; softmech.scenarios.elbow_isokinetic, benchmarks/
elbow_isokinetic.py; docs/musculoskeletal.md): the default (1.01e5 before the paper code's
geometry: the fit follows the fibres' strain rates, which the longer belly lowers). It sets the
explicit step: the fibres' viscous limit dt < rho l^2 / (2 zeta) = 1060 (0.238 m / 8)^2 /
(2 1.43e5) = 3.3e-6 s; dt = 2.5 us agrees with 1.25 us (docs/musculoskeletal.md)."""
FORMER_SETTINGS = {"muscle_damping": 1.0e3, "dt": 5.0e-6}
"""The settings before Hill's damping: zeta = 1e3 Pa s (practically no force-velocity
dependence) at the bones' limit dt = 5 us, half the steps; build_elbow(**FORMER_SETTINGS)."""
DEFAULTS = {"fibers": 18, "n_elems": 8, "fiber_radius": 0.002, "max_stress": 4.0e5,
            "muscle_damping": HILL_DAMPING, "start_angle": 0.0, "dt": 2.5e-6, "duration": 0.4,
            "ramp_time": 0.1, "incompressible": False}

PAPER_CODE_GEOMETRY = {"humerus": 0.34, "forearm": 0.255, "insertion": 0.051, "origin_x": 0.0315,
                       "proximal_tendon": 0.085, "belly": 0.238}
"""The biceps' geometry [m] of the paper's own code (Elbow.cpp and ExternalContact.h's
FLAGELBOW section of mattialab/elastica, the repository Zhang et al. 2019 link; read, not
copied; Supplementary Table 1 itself is not in our sources): humerus 0.34 m (20 elements of
17 mm), radius and ulna 0.255 m (15 of 17 mm); the insertion on the radius's node 4, i.e. 3
elements = 5.1 cm below the hinge at its node 1 (the code's own lever, `TorqArm = 0.017 * 3`);
each head's origin 3 humerus radii (3 x 10.5 mm) in front of the humerus's axis at its top,
its fibres 14 x 17 mm = 0.238 m, starting 5 x 17 mm = 0.085 m down the proximal tendon; the arm
straight at the start (every bone along -z) with the fibres at rest (DEFAULTS' start_angle 0).
What is not taken: the code's origin-to-hinge 0.357 m (its hinge one element below the
humerus's end; the excursion 0 -> 90 deg differs by < 0.1 mm), its short head's origin 6.3 cm
lateral (ours: the heads side by side, HEAD_Y), its fibres' 4 mm radius and 43.38 N (ours:
2 mm, sigma_max = 0.4 MPa) and its kinked distal tendon (ours straight). The cross-section
growth at 90 deg follows from the belly and the excursion (geometric_growth;
docs/musculoskeletal.md)."""
SHOULDER, ELBOW = np.array([0.0, 0.0, PAPER_CODE_GEOMETRY["humerus"]]), np.zeros(3)
FOREARM_LENGTH, FOREARM_ELEMS = PAPER_CODE_GEOMETRY["forearm"], 10
# (the code's 15 elements of 17 mm: 10 of 25.5 mm keep the insertion on a node, the stop's end
# elements as long as before, and the step)
INSERTION = PAPER_CODE_GEOMETRY["insertion"]     # [m] from the elbow: a node of the radius
ORIGIN_X, HEAD_Y = PAPER_CODE_GEOMETRY["origin_x"], 0.0125              # [m]
PROXIMAL_TENDON, BELLY = PAPER_CODE_GEOMETRY["proximal_tendon"], PAPER_CODE_GEOMETRY["belly"]
BONE = dict(density=1900.0, youngs_modulus=1.7e10, shear_modulus=1.7e10 / 1.5)
"""Cortical bone: E = 17 GPa (human cortical bone, longitudinal: 17-18 GPa, Reilly & Burstein,
J. Biomech. 8:393, 1975). As solid rods of the bones' outer radii their bending stiffness
(humerus E I ~ 110 N m^2) is that of the real, tubular bones within a factor of 2. The former
0.5 GPa let the bones' end elements bend by 25-50 deg under the joint's loads, so the hinge
stop, which acts between the two end elements' frames, did not hold the bones (a 60 deg stop
was passed by 39 deg at any stop stiffness); at 17 GPa it holds to ~1 deg."""
FOREARM_DENSITY = 1.2e4                          # bone + lumped soft tissue [kg/m^3]
TENDON = dict(density=1100.0, youngs_modulus=2e8, shear_modulus=2e8 / 1.5)
SPIN_SCALING = 10.0
"""Rotary inertia of bones and tendons x this (RotaryInertiaScaling): their spin about their own
cross-sections, negligible here, would otherwise set dt ~3e-6 s (thin stiff rods)."""
FIBER = dict(density=1060.0, youngs_modulus=2e4, shear_modulus=2e4 / 1.5)
JOINT_K, CONTACT_K = 2e5, 2e3                    # [N/m]
FLEXION_RANGE = (0.0, 150.0)
"""The elbow's range of flexion [deg]: full extension to the usual clinical end of active flexion
(normal range of motion 0-150 deg; e.g. American Academy of Orthopaedic Surgeons, Joint Motion:
Method of Measuring and Recording, 1965). Stops (HingeJoint limits) hold the hinge inside it."""
SHOULDERS = {
    "clamp": "the humerus's top clamped (position and rotation held)",
    "spherical": "Zhang et al. 2019: a spherical joint for the upper arm-shoulder connection "
                 "(sm.Pin: the top node held, rotations free), the upper arm held as in the "
                 "isometric and isokinetic protocols, its elbow end resting on the "
                 "dynamometer's arm pad (sm.Pin of the humerus's last node)"}
"""How the upper arm is held (build_elbow(shoulder=...)). The protocols of Fig. 1c-d strap the
upper arm to the dynamometer. A free ball joint alone (measured on the reduced scene, not
offered) lets the biceps, whose origin lies 3 cm in front of the shoulder, flex the shoulder by
10 deg, and nothing holds the humerus's spin about its own axis: it reached 16 deg by 0.8 s,
turning the hinge's plane (docs/musculoskeletal.md, "The shoulder")."""
HINGE_ALIGNMENT = 50.0
"""Rotational stiffness [N m/rad] holding the hinge's axis (the joint's other rotations)."""
RADIOULNAR_STIFFNESS = 2000.0
"""Rotational stiffness [N m/rad] of the ulna-radius fixed joint (the paper's "fixed joint (no
relative motion)"). The two bones meet only at the elbow here, so this spring alone makes the
ulna (half the forearm's mass) turn with the radius: at the former 50 N m/rad the ulna swung
on past the radius's stop, to 167.4 deg in the full run (w0 sqrt(I_ulna / k) ~ 0.3 rad at the
forearm's 26 rad/s); at 2000 N m/rad it follows the radius to 0.4 deg (157.6 vs 157.3 deg)."""
STOP_STIFFNESS, STOP_DAMPING = 2000.0, 0.5       # [N m/rad], [N m s/rad]
"""The flexion stop: the biceps' MVC torque (~20 N m here) presses it by ~0.01 rad. With zeta fitted
to Hill's law (the default) the flexion ends at 131 deg, short of it. At the former zeta = 1e3 Pa s
(no force-velocity relation) the forearm, flexed ballistically by the unloaded biceps, met it
at ~27 rad/s: the hinge passed it by w0 sqrt(I / k_s) ~ 1.5 deg (I ~ 0.02 kg m^2) and the
radius, stopped at its elbow end, whipped ~5 deg further (w0 / omega_1, its first bending mode
~230 rad/s) (docs/musculoskeletal.md, "The flexion stop")."""


@dataclass(frozen=True)
class ElbowInfo:
    """What `softmech run elbow` needs: the rods, run settings and the biceps' fibers
    (names, rest areas [m^2])."""
    rod: str
    worlds: int
    dt: float
    duration: float
    n_elems: int
    humerus: str
    radius_bone: str
    fibers: tuple
    fiber_area: float
    fiber_rest_length: float   # of a fiber's elements [m]
    max_stress: float


def ring_offsets(n, spacing):
    """(n, 2) in-plane offsets [m] of a bundle: 1 centre, 6 at `spacing`, the rest at 2 spacing."""
    pts = [(0.0, 0.0)]
    for count, rho in ((6, spacing), (max(n - 7, 0), 2 * spacing)):
        for k in range(count):
            a = 2 * np.pi * k / count
            pts.append((rho * np.cos(a), rho * np.sin(a)))
    return np.array(pts[:n])


def insertion_node_of(insertion):
    """The radius's node [-] at `insertion` [m] from the elbow (refused unless it is a node)."""
    node = int(round(insertion / (FOREARM_LENGTH / FOREARM_ELEMS)))
    if abs(node * FOREARM_LENGTH / FOREARM_ELEMS - insertion) > 1e-9:
        raise ValueError(f"insertion = {insertion!r} m is not allowed: must be a node of the "
                         f"radius, a multiple of {FOREARM_LENGTH / FOREARM_ELEMS:.4g} m")
    return node


def _frame(direction):
    """Two unit vectors perpendicular to `direction` (the second along y where possible)."""
    d = direction / np.linalg.norm(direction)
    e1 = np.cross((0.0, 1.0, 0.0), d)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(d, e1)


def build_elbow(n_elems=DEFAULTS["n_elems"], worlds=1, *, fibers=DEFAULTS["fibers"],
                duration=DEFAULTS["duration"], dt=DEFAULTS["dt"], contact=True, shoulder="clamp",
                muscle_damping=DEFAULTS["muscle_damping"]):
    """The elbow scene (module docstring); returns (scene, ElbowInfo). fibers: muscle rods per
    head (1 to 18); n_elems: elements per muscle rod; shoulder: "clamp" (the humerus's top
    clamped, default) or "spherical" (SHOULDERS: the paper's spherical upper arm-shoulder
    joint, the upper arm resting on the dynamometer's arm pad at the elbow); muscle_damping:
    the fibres' strain-rate damping zeta >= 0 [Pa s] (default HILL_DAMPING, which needs
    dt <= 2.5e-6 s explicit; build_elbow(**FORMER_SETTINGS): the former 1e3 Pa s at 5e-6 s)."""
    p = DEFAULTS
    shoulder = _checks.choice("shoulder", shoulder, set(SHOULDERS))
    muscle_damping = float(_checks.nonnegative("muscle_damping", muscle_damping, shape=()))
    fibers = _checks.integer("fibers", fibers, 1)
    if fibers > 18:
        raise ValueError(f"fibers = {fibers} is not allowed: must be in [1, 18] (rods per head)")
    n_elems = _checks.integer("n_elems", n_elems, 2)
    scene = sm.Scene()
    taper = np.linspace
    humerus = scene.add_cosserat_rod(name="humerus", start=SHOULDER, direction=(0, 0, -1),
                                     normal=(1, 0, 0), length=SHOULDER[2], n_elems=6,
                                     radius=taper(0.011, 0.008, 6), **BONE)
    a = np.radians(p["start_angle"])
    forearm = np.array([np.sin(a), 0.0, -np.cos(a)])
    forearm_bone = dict(BONE, density=FOREARM_DENSITY)
    radius = scene.add_cosserat_rod(name="radius", start=ELBOW, direction=forearm, normal=(0, 1, 0),
                                    length=FOREARM_LENGTH, n_elems=FOREARM_ELEMS,
                                    radius=taper(0.008, 0.006, FOREARM_ELEMS), **forearm_bone)
    ulna_dir = forearm + (0.0, 0.06, 0.0)
    ulna = scene.add_cosserat_rod(name="ulna", start=ELBOW, direction=ulna_dir, normal=(0, 1, 0),
                                  length=FOREARM_LENGTH, n_elems=FOREARM_ELEMS,
                                  radius=taper(0.008, 0.005, FOREARM_ELEMS), **forearm_bone)
    if shoulder == "clamp":
        scene.add(sm.Clamp(humerus, "first"))
    else:
        scene.add(sm.Pin(humerus, "first", name="shoulder"))    # ball joint with the scapula
        scene.add(sm.Pin(humerus, "last", name="arm_pad"))      # the elbow rests on the pad
    # the hinge angle is the radius's turn about +y, zero at start_angle: flexion turns it by -1
    flexion_stops = (-np.radians(FLEXION_RANGE[1] - p["start_angle"]),
                     np.radians(p["start_angle"] - FLEXION_RANGE[0]))
    scene.add(sm.HingeJoint((humerus, "last"), (radius, "first"), axis=(0, 1, 0),
                            stiffness=1e6, rotational_stiffness=HINGE_ALIGNMENT, damping=10.0,
                            limits=flexion_stops, limit_stiffness=STOP_STIFFNESS,
                            limit_damping=STOP_DAMPING, name="elbow_hinge"))
    scene.add(sm.FixedJoint((ulna, "first"), (radius, "first"), stiffness=1e6,
                            rotational_stiffness=RADIOULNAR_STIFFNESS, damping=10.0, name="ulna_radius"))
    insertion_node = insertion_node_of(INSERTION)
    insertion = radius.positions[insertion_node]
    names, fiber_radius = [], p["fiber_radius"]
    offsets = ring_offsets(fibers, 2.25 * fiber_radius)
    for head, y in (("long", HEAD_Y), ("short", -HEAD_Y)):
        origin = np.array([ORIGIN_X, y, SHOULDER[2]])
        line = insertion + (0.0, y, 0.0) - origin      # the heads' bellies run side by side
        unit = line / np.linalg.norm(line)
        p1, p2 = origin + PROXIMAL_TENDON * unit, origin + (PROXIMAL_TENDON + BELLY) * unit
        prox = scene.add_cosserat_rod(name=f"{head}_tendon_proximal", centerline=np.linspace(origin, p1, 6),
                                      normal=(1, 0, 0), radius=taper(0.004, 0.003, 5), **TENDON)
        dist = scene.add_cosserat_rod(name=f"{head}_tendon_distal", centerline=np.linspace(p2, insertion, 4),
                                      normal=(1, 0, 0), radius=taper(0.003, 0.0025, 3), **TENDON)
        scene.add(sm.Clamp(prox, "first", name=f"{head}_origin"))   # origin on the scapula
        scene.add(sm.SphericalJoint((dist, "last"), (radius, insertion_node), stiffness=JOINT_K,
                                    name=f"{head}_insertion"))
        e1, e2 = _frame(line)
        plate_r = 2.25 * fiber_radius * (2 if fibers > 7 else 1) + fiber_radius
        plates = []
        for end, centre in (("top", p1), ("bottom", p2)):
            plates.append(scene.add_cylinder(name=f"{head}_plate_{end}", position=centre, direction=line,
                                             normal=e1, radius=plate_r, length=0.002, density=3000.0))
        scene.add(sm.SphericalJoint((prox, "last"), (plates[0], "attach"), stiffness=JOINT_K,
                                    name=f"{head}_tendon_top"))
        scene.add(sm.SphericalJoint((dist, "first"), (plates[1], "attach"), stiffness=JOINT_K,
                                    name=f"{head}_tendon_bottom"))
        for k, (u, w) in enumerate(offsets):
            shift = u * e1 + w * e2
            name = f"{head}_fiber_{k}"
            rod = scene.add_cosserat_rod(name=name, centerline=np.linspace(p1 + shift, p2 + shift, n_elems + 1),
                                         normal=e1, radius=fiber_radius, **FIBER)
            for end, plate in (("first", plates[0]), ("last", plates[1])):
                scene.add(sm.SphericalJoint((rod, end), (plate, "attach"), stiffness=JOINT_K,
                                            name=f"{name}_{end}"))
            scene.add(ActiveMuscle(rod, p["max_stress"], activation=[0.0, 1.0],
                                   times=[0.0, p["ramp_time"]], damping=muscle_damping,
                                   incompressible=p["incompressible"],
                                   name=f"{name}_muscle"))
            scene.add(sm.LinearDamping(rod, 0.5, name=f"{name}_damping"))
            names.append(name)
    if contact:
        scene.add(sm.RodContact(names, stiffness=CONTACT_K, damping=0.05, name="biceps_contact"))
    for rod in scene.rods[:3] + [r for r in scene.rods if "tendon" in r.name]:
        scene.add(sm.LinearDamping(rod, 5.0, name=f"{rod.name}_damping"))
        scene.add(sm.RotaryInertiaScaling(rod, SPIN_SCALING, name=f"{rod.name}_spin"))
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene, ElbowInfo(rod="radius", worlds=worlds, dt=dt, duration=duration,
                            n_elems=sum(r.n_elems for r in scene.rods), humerus="humerus",
                            radius_bone="radius", fibers=tuple(names),
                            fiber_area=float(np.pi * fiber_radius ** 2),
                            fiber_rest_length=float(scene.rods[-1].rest_lengths[0]),
                            max_stress=float(p["max_stress"]))


def elbow_info(scene, run, report):
    """ElbowInfo of an elbow scenario (template "elbow"): the fibers are the rods carrying an
    ActiveMuscle; humerus and radius by name."""
    from softmech.scenarios.templates import find_rod, report_parameters

    p = report_parameters(report, {"humerus": "humerus", "radius": "radius"})
    find_rod(scene, p["humerus"], "humerus")
    find_rod(scene, p["radius"], "radius")
    muscles = [t for t in scene.terms if isinstance(t, ActiveMuscle)]
    if not muscles:
        raise ValueError("an elbow scenario needs ActiveMuscle terms (the biceps' fibers)")
    fibers = tuple(t.rod for t in muscles)
    fiber = find_rod(scene, fibers[0])
    return ElbowInfo(rod=p["radius"], worlds=run.worlds, dt=run.dt, duration=run.duration,
                     n_elems=sum(r.n_elems for r in scene.rods), humerus=p["humerus"],
                     radius_bone=p["radius"], fibers=fibers,
                     fiber_area=float(np.pi * fiber.radius[0] ** 2),
                     fiber_rest_length=float(fiber.rest_lengths[0]),
                     max_stress=float(muscles[0].max_stress))


def elbow_report(info):
    """The [report] table of an elbow scenario."""
    return {"humerus": info.humerus, "radius": info.radius_bone}


def flexion_angle(humerus, radius):
    """Elbow flexion [deg] from the humerus's and radius's node positions (..., n, 3): 0 with
    the forearm in line with the upper arm, 90 with it at a right angle."""
    u = humerus[..., -1, :] - humerus[..., 0, :]
    v = radius[..., -1, :] - radius[..., 0, :]
    c = np.sum(u * v, axis=-1) / np.linalg.norm(u, axis=-1) / np.linalg.norm(v, axis=-1)
    return np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))


def belly_section(fiber_positions, rest_length, rest_area):
    """Biceps cross-section [m^2] per sample: sum over fibers of A^ / eta (incompressible
    muscle rods) averaged over each fiber's middle third. fiber_positions: list of (n_samples,
    n + 1, 3) [m]; rest_length: element rest length [m]; rest_area: A^ [m^2]."""
    total = 0.0
    for x in fiber_positions:
        eta = np.linalg.norm(np.diff(x, axis=-2), axis=-1) / rest_length   # (n_samples, n)
        n = eta.shape[-1]
        mid = slice(n // 3, n - n // 3)
        total = total + np.mean(rest_area / eta[..., mid], axis=-1)
    return total


def insertion_distance(angle, insertion=INSERTION):
    """Distance [m] from a biceps head's origin to its insertion at flexion `angle` [deg] (the
    straight line of the assembly: origin ORIGIN_X in front of the shoulder, insertion
    `insertion` [m] down the radius from the elbow)."""
    origin = np.array([ORIGIN_X, HEAD_Y, SHOULDER[2]])
    a = np.radians(angle)
    return float(np.linalg.norm(ELBOW + insertion * np.array([np.sin(a), 0.0, -np.cos(a)])
                                + (0.0, HEAD_Y, 0.0) - origin))


def geometric_growth(target=90.0, *, belly=BELLY, insertion=INSERTION, stretch=0.0,
                     start=DEFAULTS["start_angle"]):
    """The biceps' cross-section growth [-] at flexion `target` [deg] that the assembly's geometry
    implies: with stiff tendons the belly absorbs the shortening of the origin -> insertion
    distance d between the `start` angle [deg] (the fibres at rest) and `target` (plus
    `stretch` [m], what the tendons and joints lengthen under the pull), and an incompressible
    belly of rest length L_b = `belly` [m] grows its section by
    L_b / (L_b - (d(start) - d(target) + stretch)) - 1 (volume A L conserved). belly: in
    (0, d(start)) [m]; insertion: its distance from the elbow along the radius [m], in
    (0, FOREARM_LENGTH]."""
    target = float(_checks.finite("target", target, shape=()))
    start = float(_checks.finite("start", start, shape=()))
    length = float(_checks.positive("belly", belly, shape=()))
    insertion = float(_checks.positive("insertion", insertion, shape=()))
    stretch = float(_checks.nonnegative("stretch", stretch, shape=()))
    if insertion > FOREARM_LENGTH:
        raise ValueError(f"insertion = {insertion!r} m is not allowed: must be in "
                         f"(0, {FOREARM_LENGTH}] m (on the radius)")
    d0 = insertion_distance(start, insertion)
    if length >= d0:
        raise ValueError(f"belly = {belly!r} m is not allowed: must be in (0, {d0:.4g}) m (the "
                         f"origin -> insertion line at {start:g} deg)")
    shortening = d0 - insertion_distance(target, insertion) + stretch
    if shortening >= length:
        raise ValueError(f"belly = {belly!r} m is not allowed here: the belly would shorten by "
                         f"{shortening:.3g} m, to nothing")
    return length / (length - shortening) - 1.0


def first_crossing(angle, values, target=90.0):
    """`values` (n,) where the flexion angle (n,) [deg] first reaches `target` [deg] (linear
    interpolation between samples); NaN if it never does (or already does at the start)."""
    above = np.nonzero(angle >= target)[0]
    if not len(above) or above[0] == 0:
        return float("nan")
    k = above[0]
    w = (target - angle[k - 1]) / (angle[k] - angle[k - 1])
    return float(values[k - 1] + w * (values[k] - values[k - 1]))


def growth_at(angle, section, target=90.0):
    """Relative cross-section growth section / section[0] - 1 where the flexion angle first
    reaches `target` [deg] (first_crossing); NaN if it never does."""
    return first_crossing(angle, section, target) / float(section[0]) - 1.0


# ------------------------------------------------------------------ isometric map (Fig. 1c)
def isometric_map(forces, *, max_stress=DEFAULTS["max_stress"], youngs_modulus=FIBER["youngs_modulus"],
                  length=0.1, radius=0.002, n_elems=10, duration=0.6, start=None,
                  incompressible=DEFAULTS["incompressible"]):
    """Isometric test (Fig. 1c): one muscle rod per world, first node pinned, MVC (a = 1),
    end force forces[b] / F_max along its axis (F_max = sigma_max A^); returns (eta
    simulated (B,), ActiveMuscle used). start: initial stretch per world (default 1, the
    paper's eta = 1 start)."""
    frac = np.asarray(forces, dtype=float)
    start = np.ones_like(frac) if start is None else np.asarray(start, dtype=float)
    area = np.pi * radius ** 2
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="muscle_rod", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=length, n_elems=n_elems, radius=radius,
                                 density=FIBER["density"], youngs_modulus=youngs_modulus)
    scene.add(sm.Pin(rod, "first"))
    scene.add(sm.EndLoad(rod, name="set"))
    # damping rate gamma / (rho A) ~ 1500 / s: the rod settles within the run
    scene.add(sm.LinearDamping(rod, 1500.0 * FIBER["density"] * area))
    muscle = scene.add(ActiveMuscle(rod, max_stress, incompressible=incompressible, name="muscle"))
    sim = scene.compile(worlds=len(frac), dt=2e-5)
    sim.params["set.force"] = np.outer(frac * max_stress * area, (1.0, 0.0, 0.0))
    x = sim.get_state(rod.name)["positions"]
    sim.set_state(rod.name, positions=x * start[:, None, None])
    sim.run(duration=duration)
    x = sim.get_state(rod.name)["positions"]
    return np.linalg.norm(x[:, -1] - x[:, 0], axis=1) / length, muscle


ISOMETRIC_POINTS = ((0.1, 1.0), (0.3, 1.0), (0.5, 1.0), (0.7, 1.0), (0.9, 1.0), (0.75, 1.7),
                    (0.9, 1.7), (1.2, 1.0), (1.6, 1.0))
"""(F_set / F_max, initial stretch) of the report's isometric map: from eta = 1 as in the paper,
and two loads started stretched, on the passive branch."""


def isometric_report(incompressible=DEFAULTS["incompressible"]):
    """The isometric map (Fig. 1c) with the elbow's muscle law: dict of F_set / F_max (B,),
    simulated eta (B,), the curve (eta grid, F / F_max on it) and the largest gap between a
    simulated point and the curve, |F_curve(eta_sim) - F_set| / F_max."""
    frac, start = map(np.array, zip(*ISOMETRIC_POINTS))
    eta, muscle = isometric_map(frac, start=start, incompressible=incompressible)
    area, E = np.pi * 0.002 ** 2, FIBER["youngs_modulus"]
    f_max = muscle.max_stress * area

    def curve(e):
        return (muscle.tension(e, rest_area=area) + E * area * (e - 1) / e) / f_max

    grid = np.linspace(0.55, 2.0, 300)
    return {"force": frac, "eta": eta, "eta_grid": grid, "force_curve": curve(grid),
            "largest_gap": float(np.max(np.abs(curve(eta) - frac)))}
