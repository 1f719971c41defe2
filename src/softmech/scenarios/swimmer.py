"""The bio-hybrid swimmer of Zhang, Chan, Parthasarathy & Gazzola, Nat. Commun. 10:4825 (2019),
Fig. 2 (after Williams et al., Nat. Commun. 5:3081, 2014): a PDMS flagellum with a short wide
head and a long thin tail, bent by a beating cluster of cardiomyocytes, swimming in Stokes flow.

Fig. 2 caption (SI units here): flagellum L = 1.927 mm (head 424 um long, radius 20 um; tail
1503 um, radius 7 um), rho = 965 kg/m^3, E = 3.86 MPa; a contractile cell of radius 10 um and
length 100 um producing F = 12 uN at f = 3.6 Hz; fluid viscosity mu = 1.2e-3 Pa s. Modelled as
one Cosserat rod (radius per element: head, then tail), slender-body Stokes drag
(softmech.SlenderBodyDrag, the leading-order form of Gazzola et al. 2018 that the paper's solver
uses) and a softmech.ContractileCell on the rod's d1 side pulling with F (1 - cos 2 pi f t) / 2.

Choices the caption leaves open (docs/swimmer.md): the original cell location, which the caption
does not give, is at the head-tail junction (cell_location = arc length from the head's front
to the cell's near end = head length); the cell's force profile (a twitch per period); the
circular sections (the caption's E I = 2.427e-9 N mm^2 equals E pi r^4 / 12 of the 7 um tail,
a third of the circular E pi r^4 / 4 used here by default); no gravity (a neutrally buoyant
swimmer). PAPER_MODEL builds the cell and stiffness as the paper's text describes them: the
caption's E I and the cell as a soft contractile filament whose modulus is derived from the
original swimmer's measured speed (docs/swimmer.md).

Conventions: the flagellum starts straight along +x, head first at x = 0 (the first node), tail
towards +x; d1 = +y (the cell's side), bending in the xy plane. The swimmer swims head first,
towards -x: the reported speed is the mean centre-of-mass velocity along -x.

Time step: the explicit step is limited by the rotation of the thin tail's elements against
shear, omega = sqrt(8 alpha G / rho) / r (softmech.stability): 7e-8 s for r = 7 um, 4e6 steps
per beat. Inertia hardly matters at this Reynolds number, so the scene scales the rotary
inertia (`rotary_inertia`, softmech.RotaryInertiaScaling; default 10: dt x 3.2) and can scale
the density (`density_scale`: mass and rotary inertia; nothing else depends on it without
gravity). The speed converges only well below the stability limit (`dt_fraction`, default
0.225). docs/swimmer.md measures all three.
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm

FIG2 = dict(length=1.927e-3, head_length=424e-6, head_radius=20e-6, tail_radius=7e-6,
            density=965.0, youngs_modulus=3.86e6, cell_radius=10e-6, cell_length=100e-6,
            cell_force=12e-6, frequency=3.6, viscosity=1.2e-3)
"""The Fig. 2 caption's original swimmer (SI units)."""

PAPER_OPTIMUM = dict(head_length=190e-6, head_radius=32.3e-6, tail_radius=4.3e-6,
                     cell_location=190e-6, speedup=2.44)
"""The caption's optimized swimmer and its speed-up over the original."""

ROTARY_INERTIA = 10.0
"""Default rotary-inertia scaling (softmech.RotaryInertiaScaling): dt x 3.2, speed -7 % (docs/swimmer.md)."""

DT_FRACTION = 0.225
"""Default dt / stability estimate: the swimmer's speed converges only well below the explicit
limit (docs/swimmer.md: with rotary_inertia 100, against 0.09 of the limit, the distance per
beat is +123 % at 0.9, +15 % at 0.45 and +4 % at 0.225 of it)."""

BENDING = ("circular", "caption")
"""Section of the flagellum: "circular" (E pi r^4 / 4, the default) or "caption" (E pi r^4 / 12,
i.e. I = A r^2 / 12 on every element: the caption's E I = 2.427e-9 N mm^2 for the 7 um tail,
whatever the radius; its torsion constant A r^2 / 6, the polar moment, matters only out of
plane)."""

CELL_MODULUS_EXPERIMENT = 3.44e5
"""Young's modulus E_c [Pa] of the soft contractile cell (ContractileCell(modulus=...)) at which
the original swimmer, with the caption's bending stiffness and no force-length curve
(PAPER_MODEL), swims at 7.5 um/s, the middle of the 5-10 um/s Williams et al. (Nat. Commun.
5:3081, 2014) measured and Zhang et al.'s Fig. 2b reproduces. Neither paper gives the cell's
modulus; `python benchmarks/swimmer_soft_cell.py` derives it (7.5 um/s at 3.44e5 Pa; 10 and
5 um/s bound it to 2.90e5-4.36e5 Pa) and shows what the speed-up depends on."""

PAPER_MODEL = dict(bending="caption", cell_modulus=CELL_MODULUS_EXPERIMENT, force_length=None)
"""build_swimmer options of Zhang et al.'s model as far as the text gives it: the caption's
bending stiffness and the cell as a soft contractile filament (its pull F a(t) less its own
elastic resistance E_c pi r_c^2 (l_n - |D|) / l_n) instead of a force line with a muscle's
force-length curve (the default)."""

CELL_MODELS = {"force_line": {}, "paper": PAPER_MODEL}
"""Named build_swimmer option sets: "force_line" (the defaults: circular sections, a force line
with a muscle's force-length curve) and "paper" (PAPER_MODEL)."""

RANGES = dict(head_length=(0.0, FIG2["length"]), head_radius=(4e-6, 40e-6),
              tail_radius=(4e-6, 6.5e-6), cell_location=(0.0, FIG2["length"]))
"""The caption's manufacturability ranges [m] (cell location: anywhere on the tail)."""


@dataclass
class SwimmerInfo:
    """What `softmech run` and the campaign need of a built swimmer scene."""
    rod: str
    cell: str
    worlds: int
    dt: float
    duration: float
    period: float
    n_elems: int
    length: float = FIG2["length"]
    radius: float = FIG2["head_radius"]
    elem_radius: tuple = None
    """Radius per element [m], n_elems values (the pictures)."""


def radius_profile(n_elems, head_length, head_radius, tail_radius, length=FIG2["length"]):
    """Per-element radius [m], (n_elems,) or (B, n_elems) for arrays of designs: an element is
    head when its midpoint lies within head_length of the front."""
    mid = (np.arange(n_elems) + 0.5) * length / n_elems
    head = mid < np.asarray(head_length, dtype=float)[..., None]
    return np.where(head, np.asarray(head_radius, dtype=float)[..., None],
                    np.asarray(tail_radius, dtype=float)[..., None])


MODELS = ("discrete", "cosserat")
"""The flagellum's rod model: "discrete" (a discrete elastic rod, implicit Euler; the default)
or "cosserat" (a Cosserat rod, explicit; docs/swimmer.md compares them)."""

DISCRETE_N_ELEMS = 100
"""Default edges of the discrete flagellum: the distance per beat is converged to 0.6 % from
100 to 200 edges (docs/swimmer.md)."""

STEPS_PER_BEAT = 800
"""Default implicit steps per beat of the discrete flagellum: implicit Euler is first order, the
distance per beat is 4.6 % above its dt -> 0 limit at 400 steps and 2.3 % at 800
(docs/swimmer.md; the campaign extrapolates, softmech.optimize.swimmer)."""


def build_swimmer(n_elems=None, worlds=1, *, model="discrete", head_length=FIG2["head_length"],
                  head_radius=FIG2["head_radius"], tail_radius=FIG2["tail_radius"],
                  cell_location=None, cycles=20.0, density_scale=1.0,
                  rotary_inertia=ROTARY_INERTIA, dt=None, dt_fraction=DT_FRACTION,
                  steps_per_beat=STEPS_PER_BEAT, duration=None, bending="circular",
                  cell_modulus=0.0, force_length="muscle"):
    """The Fig. 2 swimmer (module docstring); returns (scene, SwimmerInfo).

    model: "discrete" (default; n_elems default 100, dt = period / steps_per_beat) or
    "cosserat" (n_elems default 50; rotary_inertia, density_scale: inertia scalings,
    softmech.RotaryInertiaScaling; dt: default dt_fraction x the stability estimate, rounded
    down to a divisor of the period). cell_location [m]: arc length from the head's front to
    the cell's near end (default: the head length, the junction). cycles: duration in beats
    (duration [s], if given, instead). bending: BENDING ("circular" or the caption's "caption").
    cell_modulus [Pa]: the cell's own Young's modulus (0: a force line), force_length: the
    cell's force-length curve ("muscle" or None); PAPER_MODEL sets the three as Zhang et al.'s
    text describes them."""
    f = FIG2
    model = sm._checks.choice("model", model, set(MODELS))
    sm._checks.nonnegative("head_length", head_length)
    for key, value in (("head_radius", head_radius),
                       ("tail_radius", tail_radius), ("cycles", cycles),
                       ("density_scale", density_scale)):
        sm._checks.positive(key, value)
    bending = sm._checks.choice("bending", bending, set(BENDING))
    discrete = model == "discrete"
    n_elems = sm._checks.integer("n_elems", (DISCRETE_N_ELEMS if discrete else 50)
                                 if n_elems is None else n_elems, 2)
    steps_per_beat = sm._checks.integer("steps_per_beat", steps_per_beat, 1)
    cell_location = head_length if cell_location is None else float(
        sm._checks.nonnegative("cell_location", cell_location))
    if cell_location + f["cell_length"] > f["length"]:
        raise ValueError(f"cell_location = {cell_location:g} m is not allowed: the cell "
                         f"({f['cell_length']:g} m) must end on the flagellum (length {f['length']:g} m)")
    scene = sm.Scene()
    add = scene.add_der_rod if discrete else scene.add_cosserat_rod
    radius = radius_profile(n_elems, head_length, head_radius, tail_radius)
    shape = dict(radius=radius)
    if bending == "caption":
        area = np.pi * radius**2
        shape = dict(section=sm.sections.general(area, area * radius**2 / 12, area * radius**2 / 12,
                                                 area * radius**2 / 6, radius))
    rod = add(name="flagellum", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
              normal=(0.0, 1.0, 0.0), length=f["length"], n_elems=n_elems,
              density=f["density"] * density_scale, youngs_modulus=f["youngs_modulus"], **shape)
    if rotary_inertia != 1.0 and not discrete:
        scene.add(sm.RotaryInertiaScaling(rod, rotary_inertia, name="rotary_inertia"))
    scene.add(sm.SlenderBodyDrag(rod, f["viscosity"], form="gazzola2018", name="stokes"))
    scene.add(sm.ContractileCell(rod, cell_location, f["cell_length"], f["cell_force"],
                                 frequency=f["frequency"], cell_radius=f["cell_radius"],
                                 side="d1", force_length=force_length, modulus=cell_modulus,
                                 name="cell"))
    period = 1.0 / f["frequency"]
    if dt is None:
        dt = period / steps_per_beat if discrete else stable_dt(scene, period, dt_fraction)
    return scene, SwimmerInfo(rod="flagellum", cell="cell", worlds=worlds, dt=float(dt),
                              duration=float(cycles) * period if duration is None else float(
                                  sm._checks.positive("duration", duration)),
                              period=period, n_elems=n_elems,
                              radius=float(max(head_radius, tail_radius)),
                              elem_radius=tuple(np.asarray(rod.radius, dtype=float).tolist()))


def swimmer_info(scene, run, report):
    """SwimmerInfo of a swimmer scenario (template "swimmer"). [report]: rod (default
    "flagellum") and cell (the ContractileCell, default "cell"); the period is the cell's."""
    from softmech.scenarios.templates import find_rod, find_term, report_parameters

    p = report_parameters(report, {"rod": "flagellum", "cell": "cell"})
    rod = next((b for b in scene.implicit_bodies if b.name == p["rod"] and b.kind == "der_rod"),
               None) or find_rod(scene, p["rod"])
    cell = find_term(scene, p["cell"], (sm.ContractileCell,), "cell")
    if cell.frequency <= 0:
        raise ValueError(f"cell = {cell.name!r} is not allowed: its frequency is 0 (no beat)")
    return SwimmerInfo(rod=rod.name, cell=cell.name, worlds=run.worlds, dt=run.dt,
                       duration=run.duration, period=1.0 / cell.frequency, n_elems=rod.n_elems,
                       length=float(np.sum(rod.rest_lengths)), radius=float(rod.radius.max()),
                       elem_radius=tuple(np.asarray(rod.radius, dtype=float).tolist()))


def swimmer_report(info):
    """The [report] table of a swimmer scenario."""
    return {"rod": info.rod, "cell": info.cell}


def stable_dt(scene, period, fraction=DT_FRACTION):
    """fraction x the explicit stability estimate (softmech.stability), rounded down so that a
    whole number of steps makes one period."""
    limit = float(scene.time_step_limit().min())
    return period / np.ceil(period / (fraction * limit))


def beat_distances(time, com, period):
    """Distances [m] the centre of mass covers in each whole beat from t = 0, (beats,), from
    com (n, 3) [m] sampled at `time` (n,) [s] (each beat's ends at the nearest sample)."""
    beats = int(np.floor(time[-1] / period + 1e-9))
    index = [int(np.argmin(np.abs(time - b * period))) for b in range(beats + 1)]
    return np.linalg.norm(np.diff(com[index], axis=0), axis=1)


def centre_track(time, com, period):
    """Centre-of-mass track of one swimmer, com (n, 3) [m] sampled at `time` (n,) [s]: returns
    (net displacement |com - com(0)| (n,) [m], displacement along the initial axis, head first
    (-x) (n,) [m], speed [m/s]: the distance covered from beat to beat, averaged over the whole
    beats after the first (the start-up), divided by the period; the whole run if shorter)."""
    rel = com - com[0]
    net, forward = np.linalg.norm(rel, axis=1), -rel[:, 0]
    steps = beat_distances(time, com, period)[1:]
    if len(steps) == 0:
        return net, forward, float(net[-1] / time[-1])
    return net, forward, float(steps.mean() / period)
