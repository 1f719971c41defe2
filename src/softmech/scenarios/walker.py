"""Walker: the bio-hybrid walker of Pagan-Diaz et al. (2018) as modelled by Zhang, Chan,
Parthasarathy, Gazzola, Nat. Commun. 10:4825 (2019), Fig. 2e-i -- an asymmetric hydrogel
skeleton walked by a muscle strip under |sin| stimulation (eq. 1).

Skeleton: one rod along its centreline (stress-free rest shape, rest_curvature="initial"): a
foot (1 mm, on the ground), the long pillar (4 mm), a bridge of 12 mm sloping down to the short
pillar (`short_pillar`, default 2.9 mm; the paper's range 2.4-3.4 mm) and its foot: 14 mm
from toe to toe (the paper's target length); radius 0.5 mm, E = 300 kPa (`youngs_modulus`, the
paper's range 250-350 kPa), rho = 1100 kg/m^3. Muscle: a strip (radius 0.5 mm, E_m = 10 kPa)
between the pillars at height `strip_height` (default 1.5 mm; range 0.5-3 mm), its ends on the
pillars' centrelines by spherical joints -- the two muscle rings of the paper, which wrap the
pillars and carry the strip's pull to them, are represented by these joints.
Eq. 1: F_m = A gamma sigma_m |sin(2 pi f t)| + E_m A eps / (1 + eps)
(softmech.terms.active_muscle.ActiveMuscle.walker) with sigma_m = 5 kPa, gamma = 0.5 (ours: the
paper's sigma_m and gamma, from Pagan-Diaz et al., are not in the sources). Ground: isotropic
Coulomb friction (kinetic 0.5, static 0.6; ours), gravity, light linear damping for the bath.

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

MM = 1e-3
DEFAULTS = {"frequencies": (0.5, 1.0, 2.0), "short_pillar": 2.9 * MM, "long_pillar": 4.0 * MM,
            "bridge": 12.0 * MM, "foot": 1.0 * MM, "strip_height": 1.5 * MM, "radius": 0.5 * MM,
            "youngs_modulus": 3e5, "muscle_stress": 5e3, "active_fraction": 0.5,
            "friction": 0.5, "element": 0.5 * MM, "dt": 1e-5, "duration": 5.0}
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


def skeleton_centerline(p):
    """Nodes (n + 1, 3) [m] of the skeleton: foot, long pillar, bridge, short pillar, foot (x
    forward from the long pillar's foot to the short one's), with a node at the strip's height
    on each pillar; and the indices of those two nodes."""
    r, h = p["radius"], p["strip_height"]
    corners = [(-p["foot"], 0, r), (0, 0, r), (0, 0, h), (0, 0, p["long_pillar"]),
               (p["bridge"], 0, p["short_pillar"]), (p["bridge"], 0, h), (p["bridge"], 0, r),
               (p["bridge"] + p["foot"], 0, r)]
    nodes = [np.array(corners[0], dtype=float)]
    marks = []
    for a, b in zip(corners[:-1], corners[1:]):
        n = max(1, int(round(np.linalg.norm(np.subtract(b, a)) / p["element"])))
        nodes.extend(np.linspace(a, b, n + 1)[1:])
        if b[2] == h and b[0] in (0.0, p["bridge"]):
            marks.append(len(nodes) - 1)
    return np.array(nodes), tuple(marks)


def walker_parameters(overrides):
    """DEFAULTS with `overrides` (geometry and material, SI units), checked."""
    unknown = sorted(set(overrides) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"{unknown[0]} is not allowed: not a walker parameter ({sorted(DEFAULTS)})")
    p = dict(DEFAULTS, **overrides)
    for k in ("short_pillar", "long_pillar", "bridge", "foot", "strip_height", "radius",
              "youngs_modulus", "element"):
        _checks.positive(k, p[k])
    _checks.nonnegative("muscle_stress", p["muscle_stress"])
    if not p["radius"] < p["strip_height"] < p["short_pillar"] - p["radius"]:
        raise ValueError(f"strip_height = {p['strip_height']!r} is not allowed: must be in "
                         f"(radius, short_pillar - radius) = ({p['radius']:g}, "
                         f"{p['short_pillar'] - p['radius']:g}) m")
    return p


def build_walker(n_elems=None, worlds=1, *, frequencies=DEFAULTS["frequencies"],
                 duration=DEFAULTS["duration"], dt=DEFAULTS["dt"], designs=None, **overrides):
    """The walker scene (module docstring); returns (scene, WalkerInfo). One walker per
    frequency [Hz]; overrides: any of DEFAULTS' geometry and material values (SI units) for
    every walker; designs: a list of such dicts, one per walker (a population of designs side
    by side, softmech.optimize.walker; one frequency for all, or one each). n_elems: elements
    of each muscle strip (default 12)."""
    freqs = _checks.positive("frequencies", frequencies)
    if designs is not None:
        freqs = np.broadcast_to(freqs, (len(designs),)) if freqs.size == 1 else freqs
        if len(freqs) != len(designs):
            raise ValueError(f"frequencies has {freqs.size} values for {len(designs)} designs: "
                             f"give one, or one per design")
    if freqs.ndim != 1 or not 1 <= len(freqs) <= 64:
        raise ValueError(f"frequencies = {frequencies!r} is not allowed: 1 to 64 frequencies [Hz]")
    designs = [{}] * len(freqs) if designs is None else designs
    params = [walker_parameters({**overrides, **d}) for d in designs]
    n_strip = 12 if n_elems is None else _checks.integer("n_elems", n_elems, 2)
    scene = sm.Scene()
    skeletons = []
    for k, (f, p) in enumerate(zip(freqs, params)):
        centerline, (ia, ib) = skeleton_centerline(p)
        mu = p["friction"]
        shift = np.array([0.0, k * SPACING, 0.0])
        skeleton = scene.add_cosserat_rod(name=f"skeleton_{k}", centerline=centerline + shift,
                                          normal=(0, 1, 0), radius=p["radius"], density=1100.0,
                                          youngs_modulus=p["youngs_modulus"],
                                          rest_curvature="initial")
        strip = scene.add_cosserat_rod(name=f"strip_{k}", start=centerline[ia] + shift,
                                       direction=(1, 0, 0), normal=(0, 0, 1), length=p["bridge"],
                                       n_elems=n_strip, radius=p["radius"], density=1060.0,
                                       youngs_modulus=1e4)
        # the muscle rings: the strip's pull carried to the pillars at the strip's height
        scene.add(sm.SphericalJoint((strip, "first"), (skeleton, ia), stiffness=50.0,
                                    damping=1e-3, name=f"ring_long_{k}"))
        scene.add(sm.SphericalJoint((strip, "last"), (skeleton, ib), stiffness=50.0,
                                    damping=1e-3, name=f"ring_short_{k}"))
        scene.add(ActiveMuscle.walker(strip, p["muscle_stress"], frequency=float(f),
                                      active_fraction=p["active_fraction"], name=f"muscle_{k}"))
        scene.add(sm.GroundContact(skeleton, stiffness=10.0, damping=1e-3, name=f"ground_{k}",
                                   friction=sm.IsotropicFriction(mu, 1.2 * mu, slip_velocity=1e-6)))
        scene.add(sm.LinearDamping(skeleton, 0.05, name=f"bath_{k}"))
        scene.add(sm.LinearDamping(strip, 0.05, name=f"strip_bath_{k}"))
        skeletons.append(skeleton.name)
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene, WalkerInfo(rod=skeletons[0], worlds=worlds, dt=dt, duration=duration,
                             n_elems=sum(r.n_elems for r in scene.rods),
                             frequencies=tuple(float(f) for f in freqs), skeletons=tuple(skeletons))


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
        freqs.append(muscles[f"muscle_{k}"].frequency)
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


def mean_speeds(time, com_x, frequencies, settle=SETTLE_TIME):
    """Mean speed [m/s] of each walker along x: displacement over the whole periods that fit
    after `settle` [s]. time (n,) [s], com_x (n_walkers, n) [m], frequencies (n_walkers,) [Hz]
    -> (n_walkers,); NaN where not one whole period fits."""
    out = np.full(len(frequencies), np.nan)
    for b, f in enumerate(frequencies):
        periods = np.floor((time[-1] - settle) * f)
        if periods < 1:
            continue
        t1 = settle + periods / f
        x0, x1 = np.interp([settle, t1], time, com_x[b])
        out[b] = (x1 - x0) / (t1 - settle)
    return out
