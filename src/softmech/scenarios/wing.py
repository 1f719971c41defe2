"""Wing: the feathered pigeon wing of Zhang, Chan, Parthasarathy, Gazzola, Nat. Commun. 10:4825
(2019), Fig. 4 -- 19 remiges of Cosserat rods (a rachis with ~80-200 barbs each, ~3,000 rods),
three bones, four muscles and quadratic aerodynamic drag, through one flapping cycle.

The paper gives the architecture, not the numbers (its Supplementary Notes 5 and 7.4 are not in
the sources): 19 feathers, rachis with EI "consistent with" measurements, ~80-200 barbs per
feather, each standing for ~5 real ones with its radius set by their aggregate bending
stiffness, wing area from biological data, four muscles (supracoracoideus-pectoralis:
dorsoventral angle of the shoulder; biceps-scapulotriceps: elbow), muscle forces ~10 N, drag
quadratic in the local velocity, an initiation phase from a straight flat wing, then one
downstroke and upstroke. Everything else below is ours (round numbers for a pigeon, Columba
livia, of ~0.4 kg: semi-span 0.33 m, one wing's feather area ~0.025 m^2):

Frame: x anterior (forward), y lateral (along the span of this, the right, wing), z up; the
shoulder at the origin. Joint angles from the bones' axes: dorsoventral = elevation of the
humerus above the horizontal plane (+ up), anteroposterior = its sweep in the horizontal plane
(+ forward, protraction), elbow = the angle between humerus and forearm (180 deg straight).

  * thorax: a fixed rigid box (the muscles' origins, the shoulder);
  * humerus (45 mm, 12 g), forearm (ulna and radius, 55 mm, 6 g), hand (carpometacarpus and
    digits, 70 mm, 3 g): rigid cylinders along y (bones "effectively rigid" at these loads,
    the flesh lumped into them); shoulder: a hinge about x (the flap is free, sweep and the
    humerus's long-axis rotation are held by a rotational spring SHOULDER_SPRING: the
    anteroposterior angle arises from the drag against it, as in the paper); elbow: a hinge
    about the wing's normal (flexion folds the wrist forward) with a ligament spring about its
    start angle START_ELBOW (the paper's straight, flat start: 180 deg) and stops at the ends
    of ELBOW_RANGE; wrist: fixed (the
    paper's muscles do not act on it; a bird's wrist follows the elbow through the radius-ulna
    linkage, not modelled);
  * feathers: 9 secondaries along the forearm and 10 primaries along the hand, rachis pointing
    back (-x) and fanning out to the tip (feather_layout); each a tapered rachis (an effective
    solid rod with a foam-filled tube's EI and mass per length: E = 0.12 GPa, rho = 500 kg/m^3,
    radius 1.7 -> 0.5 mm), clamped to its bone by a fixed joint; its vane in strips of equal
    width, one barb on each side at each strip's middle (outer vane narrow, inner vane wide),
    at 50 deg to the rachis, 2 elements each, fixed to its rachis node (rachis_nodes: at least
    RACHIS_ELEMENTS along the vane for few barbs, one per strip and the last pair at the tip
    for many); a barb stands for the ~5 real barbs (r = 0.1 mm, every
    0.3 mm) on its ~1.5 mm of rachis: r = 0.15 mm (their aggregate EI), E = 2.5 GPa, its
    density giving the vane 0.1 kg/m^2 (barb_properties: the same per unit area for any barb
    count);
  * muscles: one ActiveMuscle rod each (sigma_max = 0.4 MPa, its radius giving F_max: 50 N for
    the shoulder's, 10 N -- the paper's "~10 N" -- for the elbow's: turning a pigeon's wing
    through the bird's stroke takes >= 0.54 N m (stroke_torque), 10 N at a pigeon's ~17 mm
    moment arm gives 0.17 N m, and a pigeon's pectoralis peaks at ~59 N (Usherwood et al.
    2005), docs/musculoskeletal.md;
    force-length fits and zeta of the elbow): pectoralis from the keel to the
    ventral humerus (depresses), supracoracoideus from a dorsomedial point (its pulley over the
    triosseal canal replaced by a straight line of action above the shoulder) to the dorsal
    humerus (elevates), biceps anterior and scapulotriceps posterior of the humerus, from its
    proximal end to the forearm in front of the elbow, resp. the olecranon behind it (both
    acting on the elbow alone; their shoulder moments are neglected); spherical joints at
    their ends;
  * air: QuadraticDrag on every barb with the vane's plate drag C_D = 1.5 on the strip a barb
    stands for (normal coefficient C_D s / (2 r), s the barb spacing normal to the barbs) and
    its skin friction edgewise (QuadraticDrag's binormal, SKIN_FRICTION); on the rachises
    C_n = 1.2;
    rho_air = 1.2 kg/m^3; gravity;
  * activation (EMG timing of pigeon take-off, Dial 1992; shapes ours, Supplementary Eqs. 6-10
    are not in the sources): an initiation phase (supracoracoideus and scapulotriceps raise and
    extend the wing) then one cycle at 8 Hz (activation_windows): pectoralis from late
    upstroke through mid downstroke, scapulotriceps through the downstroke, supracoracoideus
    and biceps through the upstroke; smooth on/off ramps of RAMP. Or (activation="paper_code")
    the schedule the paper's own code writes out (softmech.scenarios.wing_paper_activation:
    the biceps with the pectoralis, the scapulotriceps with the supracoracoideus).

Time step: barbs and rachis elements of a few mm set dt by their axial waves (l / c), and the
spin of their thin sections about the shear modes (~r / c) would set dt ~1e-7 s: their rotary
inertia is scaled (BARB_SPIN, RACHIS_SPIN; RotaryInertiaScaling). The barbs' scaling adds the
same spin inertia per unit vane area at any barb count (barb_properties), ~4 % of a vane's
inertia in pitch about its rachis (an estimate): a constant scaling of 1000 added 4.5x more of
it at 152 barbs than at 2,800 and moved the stroke's bottom by ~8 deg (docs/musculoskeletal.md,
"Converged in the barb count").
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.scenarios.wing_paper_activation import paper_code_initiation, paper_code_table
from softmech.terms.active_muscle import ActiveMuscle

DEFAULTS = {"barbs": 2800, "n_elems": 2, "dt": None, "frequency": 8.0, "initiation": 0.06,
            "shoulder_force": 50.0, "elbow_force": 10.0}
FULL_BARBS = DEFAULTS["barbs"]
"""Barbs of the documented wing (2,796 after rounding to pairs; with 19 rachises and 4 muscles:
2,819 rods)."""

AIR_DENSITY = 1.2                                  # [kg/m^3]
PLATE_DRAG, RACHIS_DRAG = 1.5, 1.2
SKIN_FRICTION = 0.023
"""Edgewise drag coefficient of a vane (flow in its plane, across the barbs) on its area:
laminar skin friction on both faces, 2 x 1.328 / sqrt(Re) (Blasius; Schlichting, Boundary-Layer
Theory, ch. 7) at Re = v c / nu = 10 m/s x 0.02 m / 1.5e-5 m^2/s = 1.3e4. The barbs of a
vane are hooked into one surface by their barbules, and in-plane flow passes them one behind
the other: not ~5 cylinders side by side (each computational barb as a cylinder of C = 1,
the rule before 2026-12-04, gave a vane an edgewise drag growing as barbs^(3/4))."""
BONES = (("humerus", 0.045, 0.012, 0.0045), ("forearm", 0.055, 0.006, 0.0035),
         ("hand", 0.070, 0.003, 0.003))            # name, length [m], mass [kg], radius [m]
SECONDARIES, PRIMARIES = 9, 10
RACHIS = dict(density=500.0, youngs_modulus=1.2e8, shear_modulus=1.2e8 / 3.0)
RACHIS_RADIUS = (1.7e-3, 0.5e-3)                   # base, tip [m]
BARB_E = 2.5e9                                     # keratin [Pa]
REAL_BARB_RADIUS, REAL_BARB_SPACING = 1.0e-4, 3.0e-4   # [m]: one real barb, along the rachis
VANE_MASS = 0.1                                    # [kg/m^2] of a vane
BARB_ANGLE, MIN_BARB = np.radians(50.0), 0.008     # to the rachis [rad]; shortest barb [m]
VANE_START = 0.12                                  # calamus: bare fraction of the rachis
MUSCLE = dict(density=1060.0, youngs_modulus=2e4, shear_modulus=2e4 / 1.5)
MAX_STRESS, MUSCLE_DAMPING, MUSCLE_ELEMS = 4.0e5, 1.0e3, 6
BARB_SPIN, SPIN_RADIUS, RACHIS_SPIN = 1000.0, 1.5e-4, 100.0   # [-], [m], [-]
RACHIS_ELEMENTS = 32                               # a rachis's vane has at least this many
SHOULDER_SPRING, ELBOW_SPRING = 0.3, 2.0           # [N m/rad] off-axis springs of the hinges
START_ELBOW, ELBOW_LIGAMENT = 180.0, 0.02          # [deg], [N m/rad]
"""The wing starts straight and flat (the paper: "a straight, flat configuration", Fig. 4d):
elbow at START_ELBOW = 180 deg, every bone and feather in z = 0. A rotational spring
ELBOW_LIGAMENT (ligaments and joint capsule) about the elbow's hinge holds its start angle,
so its rest angle is now straight: the biceps (~0.045 N m at 10 N) flexes the elbow against
it, and the scapulotriceps extends it back onto the stop at 180 deg. With the former 0.2
N m/rad (about a 150 deg rest angle) the biceps would flex a straight elbow by 0.045 / 0.2
rad = 13 deg only; a bird's elbow works at ~60-120 deg (BIRD_RANGES), hence 0.02 (ours: the
paper gives no elbow ligament). Stops (HingeJoint limits, ELBOW_RANGE) keep the elbow between
folded and straight: the triceps cannot hyperextend it past 180 deg."""
ELBOW_REST = START_ELBOW
"""Rest angle [deg] of the elbow's ligament (FixedJoint's rest turn). A bird's elbow works
flexed (the forearm "often about a right angle" to the humerus: Pennycuick 1967), but a flexed
rest alone does not keep the straight-started elbow off its 180 deg stop in the downstroke:
at 0.02 N m/rad, 90 and 120 deg leave the elbow at 180.3 deg (the scapulotriceps's ~0.05 N m
outweighs the 0.03 N m the ligament gives there) and widen the stroke (+104 deg top); at 0.1
and 0.2 N m/rad and 90 deg the elbow stays within 71-131 and 55-128 deg but the folded wing
strokes down to -89 and -92 deg (152 barbs, 2026-12-04). So the start angle stays the rest."""
ELBOW_RANGE, ELBOW_STOP = (30.0, 180.0), 20.0       # elbow angles [deg]; stop stiffness [N m/rad]
"""The elbow's range: straight (180 deg) to folded (30 deg, ours: the wing folds against the
body; pigeon joint ranges are not in the sources). The stops hold: the scapulotriceps (10 N at
~5 mm, ~0.05 N m) with the hand's and feathers' loads takes the elbow 0.3 deg past 180 at 20
N m/rad (measured, 152 barbs); the former 1 N m/rad let it 6.5 deg past, against the stop's
purpose. Its frequency sqrt(k / I) ~ 450 rad/s (I ~ 1e-4 kg m^2 of forearm, hand and
feathers about the elbow) leaves dt where it was."""
JOINT_K, MUSCLE_K, RACHIS_K, BARB_K = 1e5, 2e5, 2e4, 2e3      # [N/m]
DT = 2.5e-6
"""Time step [s] of the wing at most, less where its barbs' and rachises' shortest elements
need it (a rachis element per barb pair at the documented count, rachis_nodes: more barbs,
shorter elements; `wing_time_step`)."""
RACHIS_KR = 1.0                                    # [N m/rad]
BARB_ROOT = 4.0
"""A barb's root (its fixed joint to the rachis): rotational stiffness BARB_ROOT x the barb's
own EI / l (a firm root)."""
INITIATION_LIFT = 0.22
"""The supracoracoideus is on over the first INITIATION_LIFT of the initiation phase (the
paper sets this phase's activation "arbitrarily", to prepare the wing for the downstroke):
it lifts the straight wing to ~60 deg, where its straight line of action (no triosseal
pulley) still has ~6 mm of moment arm (moment_arm); 0.3 (the former value) lifts it to
~73 deg, where the pectoralis's arm has fallen from 17 to ~8 mm, and the downstroke then
stops at +34 deg (152 barbs, 50 N)."""
SUPRA_ON = 0.28
"""Onset of the supracoracoideus in the cycle [fraction of the period], in the downstroke
(the first 55 %), before the pectoralis turns off (0.35): the upstroke muscles "are
activated in late downstroke to decelerate and then reaccelerate the wing" (Dial, Goslow &
Jenkins 1991) and the two muscles' forces overlap (Tobalske & Biewener 2008, J. Exp. Biol.
211:170). Ours (the paper's Supplementary Eqs. 7-10 are not in our sources; its code's
schedule, activation="paper_code", comes on at 45 % of its cycle), chosen by the
joint angles of a 608-barb wing against BIRD_RANGES (the bird's -20 to +85 deg), a
one-parameter fit: -10 to +98 deg at 0.25, -18 to +97 at 0.28, -23 to +102 at 0.30, -28 to
+114 at 0.32, -36 to +116 at 0.35, -50 to +63 at 0.40 (2026-12-04, the wing converged in the
barb count: 2,796 barbs at 0.28 -19 to +96; 0.30 was chosen the same way on the unconverged
wing of before). With the elbow's stop made to hold (ELBOW_STOP 20, the same day): -17 to +92
at 0.26, -22 to +93 at 0.28, -27 to +100 at 0.30, the shoulder's largest deviation 9.3, 9.4,
14.8 deg: 0.28 kept."""
TONE = 0.05                                        # resting activation of every muscle
RAMP = 0.012                                       # [s] on/off ramps of the activation

# origin (on the thorax, or on the humerus: "humerus"), insertion (on the bone named) [m]
MUSCLES = {
    "pectoralis": (("thorax", (0.0, -0.015, -0.070)), ("humerus", (0.0, 0.015, -0.008))),
    "supracoracoideus": (("thorax", (0.0, -0.015, 0.060)), ("humerus", (0.0, 0.014, 0.007))),
    "biceps": (("humerus", (0.006, 0.008, 0.0)), ("forearm", (0.004, 0.053, 0.0))),
    "scapulotriceps": (("humerus", (-0.006, 0.008, 0.0)), ("forearm", (-0.005, 0.043, 0.0))),
}


@dataclass(frozen=True)
class WingInfo:
    """What `softmech run wing` needs: run settings and the bodies its report reads."""
    rod: str
    worlds: int
    dt: float
    duration: float
    n_elems: int
    humerus: str
    forearm: str
    barbs: int
    rods: int
    initiation: float
    frequency: float


def activation_windows(initiation, frequency):
    """{muscle: [(on, off) [s], ...]} of the run: the initiation phase [0, initiation] raises the
    extended wing, then one cycle of period 1 / frequency starting with the downstroke (55 %)."""
    T, t0 = 1.0 / frequency, initiation
    return {"supracoracoideus": [(0.0, INITIATION_LIFT * t0), (t0 + SUPRA_ON * T, t0 + 0.75 * T)],
            "scapulotriceps": [(0.0, t0 + 0.40 * T)],
            "pectoralis": [(t0 - 0.10 * T, t0 + 0.35 * T)],
            "biceps": [(t0 + 0.45 * T, t0 + 0.85 * T)]}


def activation_table(windows, duration, tone=TONE, ramp=RAMP):
    """(times (n,) [s], values (n,) [-]) of a muscle on during `windows` [(on, off)], `tone`
    otherwise, ramped linearly over `ramp` [s] at each switch (clipped to [0, duration])."""
    times, values = [0.0], [tone if all(on > 0 for on, _ in windows) else 1.0]
    for on, off in windows:
        for t, v in ((on, tone), (on + ramp, 1.0), (off, 1.0), (off + ramp, tone)):
            if 0.0 < t < duration and t > times[-1]:
                times.append(t)
                values.append(v)
    times.append(max(duration, times[-1] + ramp))
    values.append(values[-1])
    return np.array(times), np.array(values)


ELBOW = np.array([0.0, BONES[0][1], 0.0])


def flexed(vector, point=True):
    """A point (or, point=False, a direction) (3,) of the straight wing's forearm or hand, turned
    about the elbow's hinge (z) to the start angle START_ELBOW (the wrist forward; the
    identity at the paper's straight start)."""
    a = np.radians(180.0 - START_ELBOW)
    R = np.array([[np.cos(a), np.sin(a), 0.0], [-np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
    v = np.asarray(vector, dtype=float)
    return ELBOW + R @ (v - ELBOW) if point else R @ v


def feather_layout():
    """(bone, base (3,), direction (3,), length [m], outer vane, inner vane width [m]) of the 19
    remiges, proximal secondary first: secondaries along the forearm pointing back, primaries
    along the hand fanning out to the wing tip."""
    out = []
    y0 = BONES[0][1]                                         # elbow
    for k in range(SECONDARIES):
        y = y0 + 0.006 + k * (BONES[1][1] - 0.008) / SECONDARIES
        a = np.radians(4.0 + 2.0 * k)
        out.append(("forearm", flexed((-0.004, y, 0.0)), flexed((-np.cos(a), np.sin(a), 0.0), False),
                    0.105, 0.005, 0.020))
    y0 += BONES[1][1]                                        # wrist
    for k in range(PRIMARIES):
        y = y0 + 0.004 + k * (BONES[2][1] - 0.006) / PRIMARIES
        a = np.radians(24.0 + 6.0 * k)                      # fan: 24 -> 78 deg off -x
        length = 0.115 + 0.006 * k
        out.append(("hand", flexed((-0.003, y, 0.0)), flexed((-np.cos(a), np.sin(a), 0.0), False),
                    length, 0.005 - 0.0002 * k, 0.020 - 0.0006 * k))
    return out


def barbs_per_feather(total, lengths):
    """Barbs of each feather (even, >= 8), proportional to its vane length, summing to ~total."""
    lengths = np.asarray(lengths)
    share = total * lengths / lengths.sum() / 2.0
    return [max(4, int(round(s))) * 2 for s in share]


def barb_properties(spacing):
    """A computational barb standing for the real barbs on `spacing` [m] of rachis (~5 at the
    documented wing's ~1.5 mm): radius [m] giving their aggregate bending stiffness EI [N m^2]
    (the paper's rule: r = r_real (spacing / s_real)^(1/4)), density [kg/m^3] giving the vane
    its areal mass VANE_MASS, the normal drag coefficient that gives its strip of vane
    (width w = spacing sin(BARB_ANGLE) normal to the barb) a flat plate's drag 1/2 rho C_D w v^2
    per unit length (C_n r = C_D w / 2, QuadraticDrag's D = C_n r), the edgewise one giving
    it the plate's skin friction 1/2 rho SKIN_FRICTION w v^2 (C_b r = SKIN_FRICTION w / 2) and
    the rotary-inertia scaling `spin` that adds the same spin inertia per unit vane area
    (BARB_SPIN at radius SPIN_RADIUS, times (SPIN_RADIUS / r)^2). Halving or doubling the
    barbs thus keeps the vanes' stiffness, mass, drag and added spin inertia per unit area."""
    radius = REAL_BARB_RADIUS * (spacing / REAL_BARB_SPACING) ** 0.25
    across = spacing * np.sin(BARB_ANGLE)
    area = np.pi * radius ** 2
    return {"radius": radius, "density": VANE_MASS * across / area, "youngs_modulus": BARB_E,
            "shear_modulus": BARB_E / 3.0, "EI": BARB_E * area * radius ** 2 / 4.0,
            "normal": PLATE_DRAG * across / (2.0 * radius),
            "edge": SKIN_FRICTION * across / (2.0 * radius),
            "spin": BARB_SPIN * (SPIN_RADIUS / radius) ** 2}


def _vane_width(width, u):
    """Vane width [m] at the fraction u in [0, 1] of the vane (tapered over its last quarter
    to a rounded tip)."""
    return width * np.sqrt(np.clip((1.0 - u) / 0.25, 0.0, 1.0)) if u > 0.75 else width


def wing_time_step(scene):
    """DT, or less where a rod's shortest element needs it: 0.8 l / c with c = sqrt(E / rho)
    its axial wave speed (softmech.stability's axial mode: dt < 0.9 l / c)."""
    limit = min(float(np.min(r.rest_lengths / np.sqrt(r.youngs_modulus / r.density)))
                for r in scene.rods)
    return min(DT, 0.8 * limit)


def build_wing(n_elems=DEFAULTS["n_elems"], worlds=1, *, barbs=DEFAULTS["barbs"],
               duration=None, dt=DEFAULTS["dt"], frequency=DEFAULTS["frequency"],
               initiation=None, shoulder_force=DEFAULTS["shoulder_force"],
               elbow_force=DEFAULTS["elbow_force"], drag=True, activation="emg"):
    """The wing scene (module docstring); returns (scene, WingInfo). barbs: barbs over the 19
    feathers (>= 152; the documented wing: FULL_BARBS); n_elems: elements per barb (>= 2);
    frequency [Hz] of the flapping cycle after the initiation phase [s] (None: 0.06 s, or
    with activation "paper_code" the code's proportion, 0.11 / 0.38 of a period); duration:
    default the initiation and one cycle; shoulder_force, elbow_force: sigma_max A [N] of the
    shoulder's (pectoralis, supracoracoideus) and the elbow's muscles; drag: the air;
    activation: "emg" (activation_windows: EMG timing, ours) or "paper_code" (the paper's
    own code's schedule, softmech.scenarios.wing_paper_activation); dt [s]: default
    wing_time_step."""
    barbs = _checks.integer("barbs", barbs, 8 * (SECONDARIES + PRIMARIES))
    n_elems = _checks.integer("n_elems", n_elems, 2)
    frequency = float(_checks.positive("frequency", frequency))
    activation = _checks.choice("activation", activation, {"emg", "paper_code"})
    if initiation is None:
        initiation = (DEFAULTS["initiation"] if activation == "emg"
                      else paper_code_initiation(frequency))
    initiation = float(_checks.positive("initiation", initiation))
    forces = {m: float(_checks.positive(key, value)) for key, value, group in (
        ("shoulder_force", shoulder_force, ("pectoralis", "supracoracoideus")),
        ("elbow_force", elbow_force, ("biceps", "scapulotriceps"))) for m in group}
    duration = initiation + 1.0 / frequency if duration is None else float(
        _checks.positive("duration", duration))
    scene = sm.Scene()
    thorax = scene.add_box(name="thorax", position=(0.0, -0.04, -0.01), lengths=(0.08, 0.06, 0.06),
                           mass=0.3, fixed=True)
    y, bones = 0.0, {}
    for name, length, mass, radius in BONES:
        centre, axis, normal = (0.0, y + length / 2, 0.0), (0.0, 1.0, 0.0), (1.0, 0.0, 0.0)
        if name != "humerus":
            centre, axis, normal = flexed(centre), flexed(axis, False), flexed(normal, False)
        bones[name] = scene.add_cylinder(name=name, position=centre, direction=axis,
                                         normal=normal, radius=radius, length=length, mass=mass)
        y += length
    end = lambda name, sign: (name, (0.0, 0.0, sign * bones[name].size["length"] / 2))
    scene.add(sm.HingeJoint((thorax, "attach"), end("humerus", -1), axis=(1, 0, 0),
                            stiffness=JOINT_K, rotational_stiffness=SHOULDER_SPRING,
                            damping=5.0, rotational_damping=2e-3, name="shoulder"))
    # the hinge angle is the forearm's turn about +z from START_ELBOW: flexion turns it by -1
    stops = (-np.radians(START_ELBOW - ELBOW_RANGE[0]), np.radians(ELBOW_RANGE[1] - START_ELBOW))
    scene.add(sm.HingeJoint(end("humerus", 1), end("forearm", -1), axis=(0, 0, 1),
                            stiffness=JOINT_K, rotational_stiffness=ELBOW_SPRING, damping=5.0,
                            rotational_damping=2e-3, limits=stops, limit_stiffness=ELBOW_STOP,
                            limit_damping=2e-3, name="elbow"))
    scene.add(sm.FixedJoint(end("humerus", 1), end("forearm", -1), stiffness=JOINT_K,
                            rotational_stiffness=ELBOW_LIGAMENT, rotational_damping=1e-3,
                            rest_axis=(0, 0, 1), rest_angle=-np.radians(START_ELBOW - ELBOW_REST),
                            name="elbow_ligament"))
    scene.add(sm.FixedJoint(end("forearm", 1), end("hand", -1), stiffness=JOINT_K,
                            rotational_stiffness=ELBOW_SPRING, damping=5.0,
                            rotational_damping=2e-3, name="wrist"))
    _add_muscles(scene, bones, duration, initiation, frequency, forces, activation)
    layout = feather_layout()
    counts = barbs_per_feather(barbs, [f[3] for f in layout])
    for k, (feather, count) in enumerate(zip(layout, counts)):
        _add_feather(scene, bones, f"f{k}", *feather, count, n_elems, drag)
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    dt = wing_time_step(scene) if dt is None else float(_checks.positive("dt", dt))
    return scene, WingInfo(rod="f0_rachis", worlds=worlds, dt=dt, duration=duration,
                           n_elems=sum(r.n_elems for r in scene.rods), humerus="humerus",
                           forearm="forearm", barbs=int(sum(counts)), rods=len(scene.rods),
                           initiation=initiation, frequency=frequency)


def _add_muscles(scene, bones, duration, initiation, frequency, forces, activation):
    """The four muscle rods, F_max = forces[name] [N], with their activation tables
    (activation "emg": activation_windows; "paper_code": paper_code_table)."""
    windows = activation_windows(initiation, frequency)
    for name, ((a_body, a_point), (b_body, b_point)) in MUSCLES.items():
        radius = np.sqrt(forces[name] / MAX_STRESS / np.pi)
        a, b = np.array(a_point), np.array(b_point)
        if b_body == "forearm":
            b = flexed(b)
        rod = scene.add_cosserat_rod(name=name, centerline=np.linspace(a, b, MUSCLE_ELEMS + 1),
                                     normal=(0, 0, 1) if name in ("biceps", "scapulotriceps")
                                     else (1, 0, 0), radius=radius, **MUSCLE)
        for where, body in (("first", a_body), ("last", b_body)):
            scene.add(sm.SphericalJoint((rod, where), (body, "attach"), stiffness=MUSCLE_K,
                                        name=f"{name}_{where}"))
        times, values = (activation_table(windows[name], duration) if activation == "emg"
                         else paper_code_table(name, initiation, frequency, duration))
        scene.add(ActiveMuscle(rod, MAX_STRESS, activation=values, times=times,
                               damping=MUSCLE_DAMPING, incompressible=False,
                               name=f"{name}_muscle"))
        scene.add(sm.LinearDamping(rod, 0.05, name=f"{name}_damping"))


def rachis_nodes(length, pairs):
    """Arc lengths [m] of a rachis's nodes from its base, (n + 1,), and the node of each barb
    pair, (pairs,) int: the calamus (the bare VANE_START of the rachis), then the vane in
    `pairs` strips of equal width with a barb pair at each strip's middle, where the strip's
    drag and mass act (at its outer end, as before 2026-12-04, the feathers bent as if loaded
    half a strip further out, by more the fewer the barbs). Few pairs: each strip cut into k
    elements, k the least even number giving RACHIS_ELEMENTS or more over the vane, so the
    rachis's bending is resolved however few the barbs, and the calamus into elements no
    longer. Many pairs (k would be 1): one element per strip from middle to middle and the
    last pair at the tip (its half strip's shift is O(spacing^2) of the feather's load, as the
    midpoint rule's error), so that no element is shorter than a strip: a half-strip element
    would halve the wing's dt (the rachis's axial wave, wing_time_step)."""
    calamus = VANE_START * length
    spacing = (length - calamus) / pairs
    k = int(np.ceil(RACHIS_ELEMENTS / pairs))
    if k > 1:
        k += k % 2
        n_calamus = int(np.ceil(calamus / (spacing / k) - 1e-9))
        s = np.concatenate([calamus * np.arange(n_calamus) / n_calamus,
                            calamus + spacing / k * np.arange(k * pairs + 1)])
        return s, n_calamus + k // 2 + k * np.arange(pairs)
    n_calamus = max(1, int(calamus / spacing))
    middles = calamus + spacing * (np.arange(pairs - 1) + 0.5)
    s = np.concatenate([calamus * np.arange(n_calamus) / n_calamus, middles, [length]])
    return s, n_calamus + np.arange(pairs)


def _add_feather(scene, bones, name, bone, base, direction, length, outer, inner, count, n_elems,
                 drag):
    """A rachis from `base` along `direction` with count / 2 barb pairs (rachis_nodes); barbs in
    the wing plane (z = 0), d1 = z normal to the vane."""
    pairs = count // 2
    s, barb_nodes = rachis_nodes(length, pairs)
    spacing = (length - VANE_START * length) / pairs
    middle = 0.5 * (s[1:] + s[:-1]) / length              # the linear taper at element middles
    rachis = scene.add_cosserat_rod(
        name=f"{name}_rachis", centerline=base + s[:, None] * direction, normal=(0, 0, 1),
        radius=RACHIS_RADIUS[0] + (RACHIS_RADIUS[1] - RACHIS_RADIUS[0]) * middle, **RACHIS)
    # the spin scaling before the joints: their time-step limits read the scaled inertia
    scene.add(sm.RotaryInertiaScaling(rachis, RACHIS_SPIN, name=f"{name}_rachis_spin"))
    scene.add(sm.FixedJoint((rachis, "first"), (bones[bone], "attach"), stiffness=RACHIS_K,
                            rotational_stiffness=RACHIS_KR, damping=0.5, rotational_damping=1e-4,
                            name=f"{name}_root"))
    if drag:
        scene.add(sm.QuadraticDrag(rachis, normal=RACHIS_DRAG, tangential=0.0,
                                   fluid_density=AIR_DENSITY, name=f"{name}_rachis_drag"))
    side = np.cross((0.0, 0.0, 1.0), direction)            # in the plane, to the inner side
    barb = barb_properties(spacing)
    material = {k: barb[k] for k in ("radius", "density", "youngs_modulus", "shear_modulus")}
    for j, node in enumerate(barb_nodes, start=1):
        u = (j - 0.5) / pairs
        for vane, width, sign in (("o", outer, -1.0), ("i", inner, 1.0)):
            tilt = np.cos(BARB_ANGLE) * direction + sign * np.sin(BARB_ANGLE) * side
            blen = max(MIN_BARB, _vane_width(width, u) / np.sin(BARB_ANGLE))
            rod = scene.add_cosserat_rod(
                name=f"{name}_{vane}{j}", start=rachis.positions[node], direction=tilt,
                normal=(0, 0, 1), length=blen, n_elems=n_elems, **material)
            scene.add(sm.RotaryInertiaScaling(rod, barb["spin"], name=f"{name}_{vane}{j}_spin"))
            root = BARB_ROOT * barb["EI"] / (blen / n_elems)
            scene.add(sm.FixedJoint((rachis, int(node)), (rod, "first"), stiffness=BARB_K,
                                    rotational_stiffness=root, name=f"{name}_{vane}{j}_root"))
            if drag:
                scene.add(sm.QuadraticDrag(rod, normal=barb["normal"], binormal=barb["edge"],
                                           tangential=0.0, fluid_density=AIR_DENSITY,
                                           name=f"{name}_{vane}{j}_drag"))


# --------------------------------------------------------------------------- joint angles
def joint_angles(humerus_directors, forearm_directors):
    """(dorsoventral, anteroposterior, elbow) angles [deg] from the humerus's and forearm's
    frames (..., 3, 3) (rows d1, d2, d3; d3 along the bone, d1 anterior at the start): the
    humerus's rotation about the shoulder's flapping axis x (+ up), its sweep out of the
    flapping plane (+ forward, protraction) and the elbow's angle in the humerus's frame (180
    straight, less when flexed -- the wrist forward --, more when hyperextended)."""
    h = np.asarray(humerus_directors)
    u, w = h[..., 2, :], np.asarray(forearm_directors)[..., 2, :]
    dorsoventral = np.degrees(np.arctan2(u[..., 2], u[..., 1]))
    anteroposterior = np.degrees(np.arcsin(np.clip(u[..., 0], -1.0, 1.0)))
    flexion = np.arctan2(np.sum(w * h[..., 0, :], axis=-1), np.sum(w * u, axis=-1))
    return dorsoventral, anteroposterior, 180.0 - np.degrees(flexion)


BIRD_SOURCE = ("Dial, Goslow & Jenkins 1991, J. Morphol. 207:327-344 (cineradiography of "
               "European starlings, Sturnus vulgaris, in a wind tunnel at 9-20 m/s; abstract)")
BIRD_RANGES = {"dorsoventral": (-20.0, 85.0), "anteroposterior": 25.0, "elbow": (90.0, 120.0)}
"""A bird's joint angles over a wingbeat [deg] (BIRD_SOURCE), in joint_angles' conventions:
dorsoventral from "at the beginning of downstroke the humerus is elevated 80-90 deg above
horizontal" (85, the middle) to "humeral depression ceases at about 20 deg below horizontal"
(-20); anteroposterior: its excursion only (protraction 55 deg through the downstroke,
retraction "to within about 30 deg of the body axis" early in the upstroke: 25 deg; the
source's zero is not ours); elbow from "extended to 90 deg or less" at the start of the
downstroke to "maximally extended (120 deg)" at mid-downstroke (its flexion in the upstroke
is not given: 90 is an upper bound of the minimum). The pigeon's curves that the paper
compares with (Fig. 4e, its ref. 82) are images, in none of our sources; no pigeon
joint-angle numbers were found in text: these are the closest published ones."""


def run_wingbeat(barbs=DEFAULTS["barbs"], samples=100, dt=None, **options):
    """Run the default wing of `barbs` barbs (build_wing; dt [s], None: its own; options:
    build_wing's keywords) over its initiation and wingbeat; returns (time (samples,) [s],
    angles (samples, 3) [deg]: joint_angles' dorsoventral, anteroposterior and elbow at the
    ends of `samples` equal chunks of the run, WingInfo)."""
    samples = _checks.integer("samples", samples, 1)
    scene, info = build_wing(barbs=barbs, dt=dt, **options)
    sim = scene.compile(dt=info.dt)
    angles = []
    for _ in range(samples):
        sim.run(info.duration / samples)
        angles.append(joint_angles(sim.get_state(info.humerus)["directors"][0, 0],
                                   sim.get_state(info.forearm)["directors"][0, 0]))
    return info.duration * (np.arange(samples) + 1) / samples, np.array(angles), info


def bird_deviation(dorsoventral, anteroposterior, elbow):
    """Largest deviation [deg] of each angle's range over a wingbeat (arrays [deg], the cycle
    only) from BIRD_RANGES: {'dorsoventral': max(|min - bird min|, |max - bird max|),
    'anteroposterior': |excursion - bird excursion|, 'elbow': max(|max - 120|, min - 90 if
    above 90, else 0)}."""
    low, high = BIRD_RANGES["dorsoventral"]
    dv = max(abs(np.min(dorsoventral) - low), abs(np.max(dorsoventral) - high))
    ap = abs(np.ptp(anteroposterior) - BIRD_RANGES["anteroposterior"])
    low, high = BIRD_RANGES["elbow"]
    el = max(abs(np.max(elbow) - high), max(0.0, np.min(elbow) - low))
    return {"dorsoventral": float(dv), "anteroposterior": float(ap), "elbow": float(el)}


# --------------------------------------------------------------------------- torque budget
def flapping_inertia(scene):
    """Moment of inertia [kg m^2] of the wing (bones, rachises and barbs: circular sections;
    not the muscle rods, whose mass belongs to the body) about the flapping axis x through
    the shoulder, at the start pose: sum of m (y^2 + z^2) over the rods' elements (at their midpoints) and the bones'
    centres, plus the bones' own moments about axes parallel to x."""
    muscles = {t.rod for t in scene.terms if isinstance(t, ActiveMuscle)}
    total = 0.0
    for rod in scene.rods:
        if rod.name in muscles:
            continue
        mid = 0.5 * (rod.positions[1:] + rod.positions[:-1])
        mass = np.asarray(rod.density) * np.pi * np.asarray(rod.radius) ** 2 * rod.rest_lengths
        total += float(np.sum(mass * (mid[:, 1] ** 2 + mid[:, 2] ** 2)))
    for body in scene.rigid_bodies:
        if body.fixed:
            continue
        # the inertia tensor in the lab frame: Q^T (P^T diag(I) P) Q, Q = user frame rows
        own = body.directors.T @ body.P.T @ np.diag(body.inertia) @ body.P @ body.directors
        total += float(own[0, 0] + body.mass * (body.position[1] ** 2 + body.position[2] ** 2))
    return total


def moment_arm(muscle, elevation):
    """Moment arm [m] about the flapping axis x of `muscle` ('pectoralis' or
    'supracoracoideus'; + elevates) at the humerus's elevation [deg] (dorsoventral angle; the
    straight line from origin to insertion, MUSCLES): (p x u)_x, p the insertion turned
    about x, u the unit vector from it to the origin."""
    (_, origin), (_, insertion) = MUSCLES[muscle]
    a = np.radians(elevation)
    turn = np.array([[1.0, 0.0, 0.0], [0.0, np.cos(a), -np.sin(a)], [0.0, np.sin(a), np.cos(a)]])
    p = turn @ np.asarray(insertion, float)
    u = np.asarray(origin, float) - p
    return float(np.cross(p, u / np.linalg.norm(u))[0])


def stroke_torque(inertia, amplitude, duration):
    """The least constant torque [N m] that turns a body of moment of inertia [kg m^2] through
    amplitude [deg] in duration [s] from rest to rest (accelerate over the first half,
    brake over the second: amplitude = 2 * (1/2) (tau / I) (duration / 2)^2), i.e.
    tau = 4 I amplitude / duration^2: inertia alone, no drag, no gravity (a lower bound)."""
    return 4.0 * inertia * np.radians(amplitude) / duration ** 2


def wing_info(scene, run, report):
    """WingInfo of a wing scenario (template "wing"): humerus and forearm by name."""
    from softmech.scenarios.templates import report_parameters

    p = report_parameters(report, {"humerus": "humerus", "forearm": "forearm",
                                   "initiation": DEFAULTS["initiation"],
                                   "frequency": DEFAULTS["frequency"]})
    names = {b.name for b in scene.rigid_bodies}
    for key in ("humerus", "forearm"):
        if p[key] not in names:
            raise ValueError(f"{key} = {p[key]!r} is not allowed: no such rigid body (rigid "
                             f"bodies: {sorted(names)})")
    muscles = {t.rod for t in scene.terms if isinstance(t, ActiveMuscle)}
    barbs = sum(1 for r in scene.rods if not r.name.endswith("_rachis") and r.name not in muscles)
    return WingInfo(rod=scene.rods[0].name if scene.rods else p["humerus"], worlds=run.worlds,
                    dt=run.dt, duration=run.duration, n_elems=sum(r.n_elems for r in scene.rods),
                    humerus=p["humerus"], forearm=p["forearm"], barbs=barbs,
                    rods=len(scene.rods), initiation=float(p["initiation"]),
                    frequency=float(p["frequency"]))


def recorded_rods(scene, stride):
    """Names of the rods `softmech run wing` records: every rod but the barbs, and the barbs
    of every `stride`-th rachis node (both vanes)."""
    out = []
    for r in scene.rods:
        head, _, tail = r.name.rpartition("_")
        is_barb = tail[:1] in "oi" and tail[1:].isdigit() and head.startswith("f")
        if not is_barb or int(tail[1:]) % stride == 0:
            out.append(r.name)
    return out


def wing_report(info):
    """The [report] table of a wing scenario."""
    return {"humerus": info.humerus, "forearm": info.forearm, "initiation": info.initiation,
            "frequency": info.frequency}
