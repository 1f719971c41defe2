"""Walker: the bio-hybrid walker of Pagan-Diaz et al. (2018) as modelled by Zhang, Chan,
Parthasarathy, Gazzola, Nat. Commun. 10:4825 (2019), Fig. 2e-i -- an asymmetric hydrogel
skeleton walked by muscle under |sin| stimulation (eq. 1): two muscle rings around the legs
joined by a strip (muscle="rings", the default, the paper's topology) or the strip alone.

Skeleton: one rod along its centreline (stress-free rest shape, rest_curvature="initial"): a
foot (1 mm, on the ground), the long pillar (4 mm), a bridge of 12 mm sloping down to the short
pillar (`short_pillar`, default 2.9 mm; the paper's range 2.4-3.4 mm) and its foot: 14 mm
from toe to toe (the paper's target length); radius 0.5 mm, E = 300 kPa (`youngs_modulus`, the
paper's range 250-350 kPa), rho = 1100 kg/m^3. Muscle: a strip (radius 0.5 mm, E_m = 10 kPa)
between the pillars at height `strip_height` (default 1.5 mm; range 0.5-3 mm), its ends on the
pillars' centrelines by spherical joints with muscle="strip" (the paper's muscle rings, which
wrap the pillars and carry the strip's pull to them, represented by these joints).
Eq. 1: F_m = A gamma sigma_m |sin(pi f t)| + E_m A eps / (1 + eps), one contraction per
stimulus at the stimulation frequency f (softmech.terms.active_muscle.ActiveMuscle.walker),
with sigma_m = 5 kPa, gamma = 0.5 (ours: the paper's sigma_m and gamma, from Pagan-Diaz et al.,
are not in the sources). Until 2026-12-03 the muscle contracted twice per stimulation period
(|sin(2 pi f t)|), so every speed measured before at "f Hz" is the speed at 2f Hz now (the same
simulation); the numbers below are relabelled so. Ground: isotropic
Coulomb friction (kinetic 0.5, static 0.6; ours), gravity, light linear damping for the bath
(`bath_damping`, 0.05 kg/(m s) on every rod; ours: the authors' code has no fluid loads but
damps its skeleton's rods with 0.13 kg/(m s) and its muscles' with 0.05: scenarios.walker_paper);
`internal_damping` c > 0 [kg/(m s)] adds sm.RelativeDamping(c) over each walker's rods together,
a damping of their deformation alone (none by default; with the medium's Stokes drag,
bath_damping 4.11e-3, and c = 0.046 the walker is converged in dt at 1 and 2 Hz and bistable
at 0.5 Hz: docs/musculoskeletal.md, "The bath split").
The ground's friction sticks (`tangential_stiffness` k_t [N/m], default 10 N/m since
2026-12-07: sm.StickingFriction(static, kinetic, k_t, c_t) on every ground contact, c_t =
2 sqrt(k_t m_e) critical on a skeleton element of mass m_e = 0.43 mg): a foot element that
does not slide is held by a tangential spring to where it stopped, until that spring's force
reaches mu_s N, so it holds without creep and needs no slip velocity; k_t is the ground's
normal stiffness, a foot element's stick stretch mu_s N_e / k_t ~ 1 um, its period
2 pi sqrt(m_e / k_t) = 1.3 ms, 130 steps. Held in its plane (`planar`, below) the original
walker on it is converged in dt at the paper's three frequencies: 976.4/979.0, 587.6/596.6,
136.8/140.7 um/s at 0.5/1/2 Hz with dt = 1e-5/5e-6 s (2 Hz: 141.5 and 144.8 at dt/4 and
dt/8; tested), every period's step the same to 1e-10. Free in 3D it was not at 2 Hz (each
contraction's net step ~9.5 or ~1.2 um, decided by when a foot held by one sticking element
broke loose, the short ones taking over as dt fell: 41.7 ... 5.4 um/s; the walker leaned out
of its plane, below).
tangential_stiffness=0 gives the regularized law of before (Gazzola et al. 2018: static below
the slip velocity v_s, `slip_velocity`, 1e-6 m/s), which the explicit step does not resolve:
a foot element (m_e = 0.43 mg, N_e ~ 18 uN)
changes speed by mu_k N_e dt / m_e ~ 2e-4 m/s per step of 1e-5 s under kinetic friction, so a
sticking foot overshoots the static band and chatters; the speeds then move by 10-20 % between
dt = 1e-5 and 5e-6 s (measured at 4 Hz: 172 and 138 um/s; with the old contact band below,
214/103/109 and 190/94/112 um/s at 1/2/4 Hz). A v_s large
enough to be resolved (2e-4 m/s: 0.5-1 % between the two steps) lets a "static" foot coast at
up to v_s, since the static force also cancels the bath's damping: with the muscles off the
walker then drifts at 220 um/s. The authors' code resolves v_s = 1e-7 m/s with dt = 7.5e-8 s
(mattialab/elastica, ExternalContact.h); here that would cost 130x (docs/musculoskeletal.md).
`ground="paper"` puts the authors' values on the ground (GROUNDS: their regularized law,
tangential_stiffness 0 unless given; implicit Euler does not step them usefully either,
measured).
A smooth ground for implicit steps (`penalty_stiffness` k > 0 [N/m]; 0, the default: the
element-centre contact above): every ground contact is the rod's surface contact (penalty k per
element, damping 1e-3 kg/s) with the mollified friction of coefficient `friction` over
`slip_velocity` (sm.IsotropicFriction(..., regularization="mollified"): continuous and
monotone in the slip velocity, creep <= slip_velocity under a load below mu N; no static
coefficient; tangential_stiffness then 0 unless given, and refused if > 0).
Implicit Euler steps it at 10x the explicit step: with k = 10 N/m and slip_velocity 1e-5 m/s
the original walks +135.7, +81.0, -89.6 um/s at 1/2/4 Hz with dt = 1e-4 s and +136.1, +82.4,
-88.1 with 5e-5 s (converged to ~2 %; ~1 min of one core per simulated second): forward at the
paper's 1 and 2 Hz. Not the default: the campaign at that cost is out of reach here
(docs/musculoskeletal.md, section 5).
The ground's surface tolerance (`surface_tolerance`, 1e-5 m): an element whose surface is within
it of the ground is in contact, its normal load balanced (Gazzola et al. 2018, eq. 4.8), so it
neither falls nor is pushed back inside that band. GroundContact's default, 1e-4 m, is 0.4 %
of the snake's radius it was set for but 20 % of these feet's: the feet drifted up through the
band and hovered 40-50 um above the ground with their friction switching on and off, which
gave the original's 4 Hz gait a 3.5 s transient and some designs sliding "gaits" of 1-3 mm/s.
With 1e-5 m the feet come back to the ground each cycle and every gait is periodic from its
second period; 1e-6 m chatters at dt = 1e-5 s (the strip walker, muscles off, bounced at up to
3 mm/s and crept at 55 um/s). The authors' walker uses 1e-4 mm = 1e-7 m, at dt = 7.5e-8 s.

muscle="rings" (the paper's topology, Fig. 2e): the strip's ends are joined by spherical joints
to the nodes of two closed muscle rods (rings, section radius `ring_radius`, default 0.3 mm,
16 elements, E_m = 10 kPa, the same eq. 1 and stimulation as the strip) wrapped around the
pillars at the strip's height, each ring's plane normal to its pillar; the pull reaches the
pillars only through ring-pillar contact (softmech.RodContact, no friction). What keeps a ring
at its height: a groove -- the pillar's two elements at the ring (h - g to h + g, g = one
element, 0.5 mm) are thinned to `groove_radius` (default 0.35 mm) and the ring sits on the
groove's bottom; sliding up or down it meets the thicker elements above or below (ours: the
sources do not say how the tissue stays on the legs; Coulomb friction would, but its
regularized stick law needs dt < 2 m v_s / (mu_s N), ~3e-9 s for these ring nodes of 0.08 mg
at N ~ 0.1 mN and the ground's v_s = 1 um/s). The ring must clear the foot and the bridge:
2 r + ring_radius <= strip_height <= short_pillar - r - ring_radius (checked). Cross feet
(`foot_width`, 4 mm by default with rings, 0 with the strip): a rod across each foot, fixed to
it, on the ground -- a skeleton one rod wide stands on two lines and topples sideways once the
rings break its mirror symmetry (at round-off), which the strip alone never does.

Held in its plane (`planar`, True by default since 2026-12-07): every node of the skeleton, the
strip and the cross feet keeps its y (sm.HoldMotion), the rings stay free. The paper fixes "the
overall length and width of the walker" and its skeleton (two beams and four legs in the
authors' code) is a few mm wide; a skeleton one rod wide on cross feet is not stable out of its
plane under the muscle's pull: every rings walker leaned 2-3 degrees sideways at each
contraction, to the side a lateral gravity of 1e-3 g chooses (so an instability, not a bias),
and with the rings at the top of a 3.4 mm pillar it turned ~100 degrees in 2 s, which its speed
along x read as sliding backwards at 2-3 mm/s (docs/musculoskeletal.md). With the strip and no
cross feet every force lies in the plane and the hold changes nothing.

One walker per stimulation frequency (default 0.5, 1 and 2 Hz, the paper's), side by side 10 mm
apart in y in one world (they do not interact; a scenario file then holds each one's frequency):
the report is the mean speed of each skeleton's centre of mass along x against frequency,
measured over the whole periods after a settling time of 1 s (the skeleton first settles on
the ground).
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.terms.active_muscle import ActiveMuscle
from softmech.terms.contact import sticking_or_regularized

MM = 1e-3
DEFAULTS = {"frequencies": (0.5, 1.0, 2.0), "short_pillar": 2.9 * MM, "long_pillar": 4.0 * MM,
            "bridge": 12.0 * MM, "foot": 1.0 * MM, "strip_height": 1.5 * MM, "radius": 0.5 * MM,
            "youngs_modulus": 3e5, "muscle_stress": 5e3, "active_fraction": 0.5,
            "friction": 0.5, "static_friction": None, "slip_velocity": 1e-6,
            "surface_tolerance": 1e-5,
            "element": 0.5 * MM, "dt": 1e-5, "duration": 5.0,
            "ring_radius": 0.3 * MM, "groove_radius": 0.35 * MM, "foot_width": None,
            "tangential_stiffness": None, "penalty_stiffness": 0.0, "bath_damping": 0.05,
            "internal_damping": 0.0, "planar": True}
MUSCLES = ("strip", "rings")
"""The muscle topologies of build_walker (module docstring)."""
MODELS = ("softmech", "paper")
"""build_walker(model=...): softmech's walker (this module) or the authors' (walker_paper)."""
GROUNDS = {"softmech": {},
           "paper": {"friction": 0.3, "static_friction": 0.42, "slip_velocity": 1e-7,
                     "surface_tolerance": 1e-7, "tangential_stiffness": 0.0}}
"""build_walker(ground=...): the ground's friction law and contact band. "softmech" (the
default): DEFAULTS (kinetic 0.5, static 1.2x that, friction that sticks with k_t = 10 N/m
or, with tangential_stiffness=0, static below the slip velocity 1e-6 m/s; band 1e-5 m; ours,
module docstring). "paper": the authors' own values (Zhang et al. 2019's code,
mattialab/elastica, source/ExternalContact.h, FLAGWALKER block, mm-g-s units: muKinetic = 0.3,
muStaticF = 0.42, vStatic = 1e-4 mm/s, contact while CheckPoint[2] < 1e-4 mm): kinetic 0.3,
static 0.42, static below v_s = 1e-7 m/s, contact band 1e-7 m. Their slip function falls
from static to kinetic between v_s and 1.5 v_s, softmech's (softmech.kernels.contact) between
v_s and 2 v_s: the static threshold is theirs, the ramp 2x as wide. Neither the explicit step
(it resolves v_s only below ~1e-8 s; the authors ran 7.5e-8 s) nor, today, implicit Euler
(measured at dt = 1e-4 s: ~200 Newton iterations and ~4 step halvings per step, and the
accepted steps lift the feet 1.5 mm off the ground within 0.05 s; with the rings' contact
couplings in the Jacobian since, Newton fails within 0.01 s; docs/musculoskeletal.md)
runs this law usefully: an option for studies, not a converged model. Given overrides (friction=...,
...) win over the preset."""
RING_ELEMENTS = 16
"""Elements of each muscle ring (a multiple of 4: a node faces the other pillar)."""
FOOT_WIDTH = 4.0 * MM
"""[m] default foot_width with muscle="rings" (ours: the sources give no width)."""
CROSS_FOOT_JOINT = dict(stiffness=50.0, damping=1e-3, rotational_stiffness=2e-6,
                        rotational_damping=1e-9)
"""Fixed joint of a cross foot to its foot: stiffness [N/m] and damping [N s/m] as the strip's
joints; rotational stiffness [N m/rad] 2e-6, 4x the skeleton's toppling stiffness m g h_com
(19 mg, centre of mass ~2.5 mm up: 5e-7 N m/rad) per foot; 1e-5 diverged at dt = 1e-5 s
(measured; the stability estimate does not see it), 3e-6 ran."""
RING_CONTACT = dict(stiffness=100.0, damping=1e-3)
"""Ring-pillar contact: k [N/m] (overlap ~10 um under the strip's ~2 mN pull, two pillar
elements sharing the ring's node), gamma [kg/s] (as the joints)."""
STICKING_STIFFNESS = 10.0
"""[N/m] the default tangential_stiffness of the ground's friction (friction that sticks, the
default since 2026-12-07: module docstring), the ground's normal stiffness."""
SETTLE_TIME = 1.0
"""[s] before the speed is measured: the skeleton settles on the ground."""


@dataclass(frozen=True)
class WalkerInfo:
    """What `softmech run walker` needs: the first skeleton rod (energies), run settings, each
    walker's skeleton and stimulation frequency [Hz]."""
    rod: str
    worlds: int
    dt: float
    duration: float
    n_elems: int
    frequencies: tuple
    skeletons: tuple


SPACING = 10 * MM
"""[m] between the walkers in y."""


def skeleton_centerline(p, groove=0.0):
    """Nodes (n + 1, 3) [m] of the skeleton: foot, long pillar, bridge, short pillar, foot (x
    forward from the long pillar's foot to the short one's), with a node at the strip's height
    on each pillar; and the indices of those two nodes. groove > 0 [m]: also a node at
    strip_height +- groove on each pillar (the rings' grooves, module docstring)."""
    r, h, g = p["radius"], p["strip_height"], groove
    around = [(h - g, h, h + g)] if g > 0 else [(h,)]
    long_marks = [(0, 0, z) for z in around[0]]
    short_marks = [(p["bridge"], 0, z) for z in around[0][::-1]]
    corners = [(-p["foot"], 0, r), (0, 0, r), *long_marks, (0, 0, p["long_pillar"]),
               (p["bridge"], 0, p["short_pillar"]), *short_marks, (p["bridge"], 0, r),
               (p["bridge"] + p["foot"], 0, r)]
    nodes = [np.array(corners[0], dtype=float)]
    marks = []
    for a, b in zip(corners[:-1], corners[1:]):
        n = max(1, int(round(np.linalg.norm(np.subtract(b, a)) / p["element"])))
        nodes.extend(np.linspace(a, b, n + 1)[1:])
        if b[2] == h and b[0] in (0.0, p["bridge"]):
            marks.append(len(nodes) - 1)
    return np.array(nodes), tuple(marks)


def groove_radii(p, nodes, groove):
    """Per-element skeleton radius (n,) [m]: `radius`, and `groove_radius` on the pillar
    elements within `groove` [m] of the strip's height (the rings' grooves)."""
    mid = 0.5 * (nodes[1:] + nodes[:-1])
    on_pillar = np.isclose(mid[:, 0], 0.0) | np.isclose(mid[:, 0], p["bridge"])
    in_groove = on_pillar & (np.abs(mid[:, 2] - p["strip_height"]) < groove)
    return np.where(in_groove, p["groove_radius"], p["radius"])


def walker_parameters(overrides, muscle="strip"):
    """DEFAULTS with `overrides` (geometry and material, SI units), checked (muscle="rings":
    also the rings' radii and the strip height's range that keeps the rings clear of the feet
    and the bridge)."""
    unknown = sorted(set(overrides) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"{unknown[0]} is not allowed: not a walker parameter ({sorted(DEFAULTS)})")
    p = dict(DEFAULTS, **overrides)
    if p["static_friction"] is None:
        p["static_friction"] = 1.2 * p["friction"]
    for k in ("short_pillar", "long_pillar", "bridge", "foot", "strip_height", "radius",
              "youngs_modulus", "element", "slip_velocity", "surface_tolerance"):
        _checks.positive(k, p[k])
    _checks.nonnegative("friction", p["friction"])
    _checks.nonnegative("static_friction", p["static_friction"])
    if p["static_friction"] < p["friction"]:
        raise ValueError(f"static_friction = {p['static_friction']!r} is not allowed: must be >= "
                         f"friction (the kinetic coefficient) = {p['friction']!r}")
    _checks.nonnegative("penalty_stiffness", p["penalty_stiffness"])
    if p["tangential_stiffness"] is None:      # sticking, except on the penalty surface contact
        p["tangential_stiffness"] = STICKING_STIFFNESS if p["penalty_stiffness"] == 0 else 0.0
    _checks.nonnegative("tangential_stiffness", p["tangential_stiffness"])
    if p["penalty_stiffness"] > 0 and p["tangential_stiffness"] > 0:
        raise ValueError(f"tangential_stiffness = {p['tangential_stiffness']!r} is not allowed "
                         f"with penalty_stiffness = {p['penalty_stiffness']!r} > 0: the surface "
                         "contact's friction is the mollified law (give one of the two)")
    _checks.nonnegative("muscle_stress", p["muscle_stress"])
    _checks.nonnegative("bath_damping", p["bath_damping"])
    _checks.nonnegative("internal_damping", p["internal_damping"])
    p["planar"] = _checks.boolean("planar", p["planar"])
    if p["foot_width"] is None:
        p["foot_width"] = FOOT_WIDTH if muscle == "rings" else 0.0
    _checks.nonnegative("foot_width", p["foot_width"])
    if muscle == "rings" and p["foot_width"] <= 2 * p["radius"]:
        raise ValueError(f"foot_width = {p['foot_width']!r} is not allowed with muscle='rings': "
                         f"must be > 2 radius = {2 * p['radius']:g} m (a skeleton one rod wide "
                         f"topples sideways once the rings break its mirror symmetry)")
    if not p["radius"] < p["strip_height"] < p["short_pillar"] - p["radius"]:
        raise ValueError(f"strip_height = {p['strip_height']!r} is not allowed: must be in "
                         f"(radius, short_pillar - radius) = ({p['radius']:g}, "
                         f"{p['short_pillar'] - p['radius']:g}) m")
    if muscle == "rings":
        _checks.positive("ring_radius", p["ring_radius"])
        if not 0 < p["groove_radius"] < p["radius"]:
            raise ValueError(f"groove_radius = {p['groove_radius']!r} is not allowed: must be in "
                             f"(0, radius) = (0, {p['radius']:g}) m")
        lo, hi = ring_height_range(p)
        if not lo <= p["strip_height"] <= hi:
            raise ValueError(f"strip_height = {p['strip_height']!r} is not allowed with "
                             f"muscle='rings': must be in [2 radius + ring_radius, short_pillar - "
                             f"radius - ring_radius] = [{lo:g}, {hi:g}] m (the rings clear the "
                             f"feet and the bridge)")
    return p


def ring_height_range(p):
    """[m] (lowest, highest) strip height with rings: a ring (section ring_radius) clears the
    feet (top at 2 radius) and the bridge (bottom at short_pillar - radius)."""
    return (2 * p["radius"] + p["ring_radius"], p["short_pillar"] - p["radius"] - p["ring_radius"])


def build_walker(n_elems=None, worlds=1, *, frequencies=DEFAULTS["frequencies"],
                 duration=DEFAULTS["duration"], dt=DEFAULTS["dt"], designs=None, muscle="rings",
                 ground="softmech", model="softmech", **overrides):
    """The walker scene (module docstring); returns (scene, WalkerInfo). One walker per
    frequency [Hz]; overrides: any of DEFAULTS' geometry and material values (SI units) for
    every walker; designs: a list of such dicts, one per walker (a population of designs side
    by side, softmech.optimize.walker; one frequency for all, or one each). n_elems: elements
    of each muscle strip (default 12). muscle: "strip" (the strip jointed to the pillars) or
    "rings" (the strip between two muscle rings around the pillars). ground: the ground's
    friction law and contact band, "softmech" or "paper" (the authors' values: GROUNDS; each
    override given wins over it). model: "softmech" (this module's walker) or "paper" (the
    authors' own walker, softmech.scenarios.walker_paper: overrides and designs from its
    DEFAULTS; n_elems, muscle and ground do not apply to it)."""
    _checks.choice("model", model, set(MODELS))
    _checks.choice("muscle", muscle, set(MUSCLES))
    _checks.choice("ground", ground, set(GROUNDS))
    freqs = _checks.positive("frequencies", frequencies)
    if designs is not None:
        freqs = np.broadcast_to(freqs, (len(designs),)) if freqs.size == 1 else freqs
        if len(freqs) != len(designs):
            raise ValueError(f"frequencies has {freqs.size} values for {len(designs)} designs: "
                             f"give one, or one per design")
    if freqs.ndim != 1 or not 1 <= len(freqs) <= 64:
        raise ValueError(f"frequencies = {frequencies!r} is not allowed: 1 to 64 frequencies [Hz]")
    if model == "paper":
        return paper_walker(n_elems, worlds, freqs, duration, dt, designs, muscle, ground,
                            overrides)
    designs = [{}] * len(freqs) if designs is None else designs
    params = [walker_parameters({**GROUNDS[ground], **overrides, **d}, muscle) for d in designs]
    n_strip = 12 if n_elems is None else _checks.integer("n_elems", n_elems, 2)
    scene = sm.Scene()
    skeletons = []
    for k, (f, p) in enumerate(zip(freqs, params)):
        groove = p["element"] if muscle == "rings" else 0.0
        centerline, (ia, ib) = skeleton_centerline(p, groove)
        shift = np.array([0.0, k * SPACING, 0.0])
        skeleton = scene.add_cosserat_rod(
            name=f"skeleton_{k}", centerline=centerline + shift, normal=(0, 1, 0),
            radius=groove_radii(p, centerline, groove) if groove else p["radius"],
            density=1100.0, youngs_modulus=p["youngs_modulus"], rest_curvature="initial")
        if muscle == "rings":
            *ends, reach = add_rings(scene, k, p, skeleton,
                                     (centerline[ia] + shift, centerline[ib] + shift), float(f))
            start, length = ends[0][0].positions[ends[0][1]], p["bridge"] - 2 * reach
        else:
            ends = ((skeleton, ia), (skeleton, ib))
            start, length = centerline[ia] + shift, p["bridge"]
        strip = scene.add_cosserat_rod(name=f"strip_{k}", start=start,
                                       direction=(1, 0, 0), normal=(0, 0, 1), length=length,
                                       n_elems=n_strip, radius=p["radius"], density=1060.0,
                                       youngs_modulus=1e4)
        # the strip's pull carried to the pillars (muscle="strip": the rings' joints) or to
        # the rings at their nodes facing the other pillar
        scene.add(sm.SphericalJoint((strip, "first"), ends[0], stiffness=50.0, damping=1e-3,
                                    name=f"ring_long_{k}"))
        scene.add(sm.SphericalJoint((strip, "last"), ends[1],
                                    stiffness=50.0, damping=1e-3, name=f"ring_short_{k}"))
        scene.add(ActiveMuscle.walker(strip, p["muscle_stress"], frequency=float(f),
                                      active_fraction=p["active_fraction"], name=f"muscle_{k}"))
        scene.add(ground_contact(skeleton, p, f"ground_{k}"))
        scene.add(sm.LinearDamping(skeleton, p["bath_damping"], name=f"bath_{k}"))
        feet = add_cross_feet(scene, k, p, skeleton, centerline, shift) \
            if p["foot_width"] > 0 else []
        scene.add(sm.LinearDamping(strip, p["bath_damping"], name=f"strip_bath_{k}"))
        if p["internal_damping"] > 0:      # the deformation of the walker's rods together
            rings = [end[0] for end in ends] if muscle == "rings" else []
            scene.add(sm.RelativeDamping([skeleton, strip, *feet, *rings], p["internal_damping"],
                                         name=f"internal_{k}"))
        if p["planar"]:
            hold_in_plane(scene, [skeleton, strip, *feet])
        skeletons.append(skeleton.name)
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene, WalkerInfo(rod=skeletons[0], worlds=worlds, dt=dt, duration=duration,
                             n_elems=sum(r.n_elems for r in scene.rods),
                             frequencies=tuple(float(f) for f in freqs), skeletons=tuple(skeletons))


def paper_walker(n_elems, worlds, freqs, duration, dt, designs, muscle, ground, overrides):
    """build_walker(model="paper"): the authors' walker (softmech.scenarios.walker_paper), after
    refusing the options that belong to softmech's walker."""
    from softmech.scenarios.walker_paper import build_paper_walker

    given = {"n_elems": (n_elems, None), "muscle": (muscle, "rings"),
             "ground": (ground, "softmech")}
    for field, (value, default) in given.items():
        if value != default:
            raise ValueError(f"{field} = {value!r} is not allowed with model='paper': the "
                             f"authors' walker has its own muscles and ground (leave it out)")
    scene, skeletons = build_paper_walker(freqs, designs, **overrides)
    return scene, WalkerInfo(rod=skeletons[0], worlds=worlds, dt=dt, duration=duration,
                             n_elems=sum(r.n_elems for r in scene.rods),
                             frequencies=tuple(float(f) for f in freqs), skeletons=skeletons)


def ground_contact(rod, p, name):
    """The ground contact of a walker's rod with parameters p: penalty_stiffness 0 (default):
    the element-centre contact (stiffness 10 N/m, damping 1e-3 kg/s, the contact band
    surface_tolerance) with ground_friction(p); > 0: the rod's surface against the ground with
    that penalty stiffness [N/m] per element and the mollified friction of coefficient
    `friction` over `slip_velocity` (module docstring)."""
    k = p["penalty_stiffness"]
    if k > 0:
        friction = sm.IsotropicFriction(p["friction"], slip_velocity=p["slip_velocity"],
                                        rolling=False, regularization="mollified")
        return sm.GroundContact(rod, stiffness=k, damping=1e-3, surface=True, name=name,
                                friction=friction)
    return sm.GroundContact(rod, stiffness=10.0, damping=1e-3, name=name,
                            friction=ground_friction(p), surface_tolerance=p["surface_tolerance"])


def ground_friction(p):
    """The ground's isotropic Coulomb friction of a walker with parameters p: kinetic
    `friction`, static `static_friction` (default 1.2x the kinetic), below `slip_velocity`
    [m/s] (module docstring)."""
    # with friction that sticks, critically damped on a skeleton element (rho = 1100 kg/m^3)
    m_e = 1100.0 * np.pi * p["radius"] ** 2 * p["element"]
    return sticking_or_regularized(p["static_friction"], p["friction"], mass=m_e,
                                   tangential_stiffness=p["tangential_stiffness"],
                                   slip_velocity=p["slip_velocity"])


def hold_in_plane(scene, rods):
    """Hold a walker's rods (its skeleton, strip and cross feet; the rings stay free around the
    pillars) in their plane: sm.HoldMotion on every node's y (`planar`, module docstring)."""
    for rod in rods:
        scene.add(sm.HoldMotion(rod, translation=(False, True, False), name=f"{rod.name}_plane"))


def add_cross_feet(scene, k, p, skeleton, centerline, shift):
    """Two cross feet of walker k: rods of foot_width [m] along y through the middle nodes of
    the skeleton's feet, fixed to them (CROSS_FOOT_JOINT), on the ground with the skeleton's
    friction -- the skeleton's width, without which a walker one rod wide stands on two lines
    and topples sideways at the first asymmetry (module docstring).

    Each cross foot has an odd number of elements and is fixed at its middle element's centre
    (node n // 2 with an offset of half an element along d3), so that the walker stays mirror
    symmetric about its plane: a joint at a rod's node carries the frame of the element after
    that node (softmech.terms.joints), so a cross foot fixed at its middle node turned only its
    +y half with the skeleton's foot. Until 2026-12-07 it was so, and every rings walker rolled
    2-3 degrees towards -y at each contraction and yawed (test_walker_rings.py; issue 28).
    Returns the two cross feet."""
    n = 2 * int(round(0.5 * p["foot_width"] / p["element"])) + 1
    feet = []
    for side, node in (("long", int(np.argmin(np.abs(centerline[:, 0] + 0.5 * p["foot"])))),
                       ("short", int(np.argmin(np.abs(centerline[:, 0] - p["bridge"]
                                                       - 0.5 * p["foot"]))))):
        centre = centerline[node] + shift
        foot = scene.add_cosserat_rod(name=f"{side}_cross_foot_{k}",
                                      start=centre - (0, 0.5 * p["foot_width"], 0),
                                      direction=(0, 1, 0), normal=(0, 0, 1),
                                      length=p["foot_width"], n_elems=n, radius=p["radius"],
                                      density=1100.0, youngs_modulus=p["youngs_modulus"])
        middle = (foot, n // 2, (0.0, 0.0, 0.5 * p["foot_width"] / n))
        scene.add(sm.FixedJoint(middle, (skeleton, node), **CROSS_FOOT_JOINT,
                                name=f"{side}_cross_foot_joint_{k}"))
        scene.add(ground_contact(foot, p, f"{side}_cross_foot_ground_{k}"))
        scene.add(sm.LinearDamping(foot, p["bath_damping"], name=f"{side}_cross_foot_bath_{k}"))
        feet.append(foot)
    return feet


def add_rings(scene, k, p, skeleton, centres, frequency):
    """The two muscle rings of walker k around the pillars at centres ((3,), (3,)) [m] (the
    pillars' nodes at the strip's height), with their eq. 1 muscles, bath damping and contact
    with the skeleton (module docstring). Returns ((long ring, its node facing +x), (short
    ring, its node facing -x), reach [m]: distance from a pillar's axis to those nodes)."""
    n = RING_ELEMENTS
    # element midpoints on the groove's surface: the nodes at (r_g + r_m) / cos(pi / n)
    reach = (p["groove_radius"] + p["ring_radius"]) / np.cos(np.pi / n)
    rings = []
    for side, centre, facing in (("long", centres[0], 1.0), ("short", centres[1], -1.0)):
        ring = scene.add_cosserat_ring(name=f"{side}_ring_{k}", center=centre,
                                       axis=(0, 0, 1), ring_radius=reach, n_elems=n,
                                       radius=p["ring_radius"], density=1060.0,
                                       youngs_modulus=1e4)
        node = int(np.argmax((ring.positions - centre) @ np.array([facing, 0.0, 0.0])))
        scene.add(ActiveMuscle.walker(ring, p["muscle_stress"], frequency=frequency,
                                      active_fraction=p["active_fraction"],
                                      name=f"{side}_ring_muscle_{k}"))
        scene.add(sm.LinearDamping(ring, p["bath_damping"], name=f"{side}_ring_bath_{k}"))
        rings.append((ring, node))
    scene.add(sm.RodContact([skeleton, rings[0][0], rings[1][0]], **RING_CONTACT,
                            name=f"ring_contact_{k}"))
    return rings[0], rings[1], reach


def walker_info(scene, run, report):
    """WalkerInfo of a walker scenario (template "walker"): each skeleton is the rod the
    strip of an ActiveMuscle is jointed to ... found by name: skeleton_k with muscle_k."""
    from softmech.scenarios.templates import find_rod, report_parameters

    report_parameters(report, {})
    muscles = {t.name: t for t in scene.terms if isinstance(t, ActiveMuscle)}
    skeletons, freqs = [], []
    k = 0
    while f"muscle_{k}" in muscles:
        skeletons.append(find_rod(scene, f"skeleton_{k}").name)
        freqs.append(2.0 * muscles[f"muscle_{k}"].frequency)    # ActiveMuscle.walker: f / 2
        k += 1
    if not skeletons:
        raise ValueError("a walker scenario needs rods skeleton_0, ... with ActiveMuscle terms "
                         "muscle_0, ... (the walkers)")
    return WalkerInfo(rod=skeletons[0], worlds=run.worlds, dt=run.dt, duration=run.duration,
                      n_elems=sum(r.n_elems for r in scene.rods), frequencies=tuple(freqs),
                      skeletons=tuple(skeletons))


def walker_report(info):
    """The [report] table of a walker scenario (empty: everything is read from the scene)."""
    return {}


PERIOD_TOLERANCE = 1e-3
"""[periods] by which a record may end short of a whole period and still count it: a run ends
on a whole step, up to one step short of its duration (4 s at dt = 9.64e-6 s ends at
3.9999977 s), which is ~1e-5 of a period of the walker's stimulation."""


def mean_speeds(time, com_x, frequencies, settle=SETTLE_TIME):
    """Mean speed [m/s] of each walker along x: displacement over the whole periods that fit
    after `settle` [s], a period that the record misses by less than PERIOD_TOLERANCE counted
    (up to the record's end). time (n,) [s], com_x (n_walkers, n) [m], frequencies (n_walkers,)
    [Hz] -> (n_walkers,); NaN where not one whole period fits. (Until 2026-12-07 the shortfall
    cost a period: the campaign's 2 Hz fitness over 2-4 s read 2-3.5 s, its report at 0.5 Hz
    over 2-6 s read 2-4 s, and a run of 4 s had no whole period at 0.5 Hz.)"""
    out = np.full(len(frequencies), np.nan)
    for b, f in enumerate(frequencies):
        periods = np.floor((time[-1] - settle) * f + PERIOD_TOLERANCE)
        if periods < 1:
            continue
        t1 = min(settle + periods / f, time[-1])
        x0, x1 = np.interp([settle, t1], time, com_x[b])
        out[b] = (x1 - x0) / (t1 - settle)
    return out
