"""Plectoneme: a rod clamped at both ends, one end turned and pushed in, coils onto itself.

A straight rod along x is clamped at s = 0; its other end is a DrivenEnd that turns about x by
`turns` full turns while moving `slack` x L towards the first end, both linearly over
`twist_time`, then holds. Past Greenhill's critical twist the rod buckles into a loop, the loop
rotates into a helix and, as twist keeps coming, into a plectoneme: two strands wound around
each other, held apart by self contact (softmech.terms.rod_contact with self_contact=True).
Without self contact the strands would pass through each other (the centrelines of a
plectoneme's strands cross where the rod would interpenetrate). The run records the centreline,
and the report measures the smallest distance between the centrelines of element pairs that
self contact covers, over every sample: it must stay a good fraction of 2r (no pass-through).

Parameters (SI; a soft rubber-like rod): L = 1 m, r = 1 cm, E = 1 MPa, G = E / 1.5, rho =
1000 kg/m^3, 100 elements, 6 turns and 30 % slack over 6 s, then 1 s at rest; linear damping
5 kg/(m s) and rotational 1e-3 kg m/s (quasi-static coiling instead of whipping snaps); contact
stiffness 1e4 N/m with damping 1 kg/s; dt = 2e-5 s.
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.kernels.rod_contact import initial_overlaps, self_excluded

DEFAULTS = {"length": 1.0, "radius": 0.01, "youngs_modulus": 1e6, "density": 1000.0,
            "n_elems": 100, "turns": 6.0, "slack": 0.3, "twist_time": 6.0, "rest_time": 1.0,
            "damping": 5.0, "rotational_damping": 1e-3, "contact_stiffness": 1e4,
            "contact_damping": 1.0, "dt": 2e-5}

NO_PASS_THROUGH = 0.8
"""The smallest allowed distance between self-contact centrelines, as a fraction of 2r (the
report flags a run below it; measured: ~0.96 with the default contact stiffness)."""


@dataclass(frozen=True)
class PlectonemeInfo:
    """What `softmech run plectoneme` needs: the rod, run settings, and the drive (turns, slack
    [m], twist time [s]) read from the scene."""
    rod: str
    drive: str
    worlds: int
    dt: float
    duration: float
    n_elems: int
    radius: float
    length: float
    turns: float
    slack: float
    twist_time: float
    rest_lengths: tuple   # of the rod's elements [m], n_elems entries


def build_plectoneme(n_elems=DEFAULTS["n_elems"], worlds=1, *, duration=None, turns=DEFAULTS["turns"],
                     slack=DEFAULTS["slack"], twist_time=DEFAULTS["twist_time"], dt=DEFAULTS["dt"]):
    """The plectoneme scene (module docstring); returns (scene, PlectonemeInfo)."""
    p = DEFAULTS
    L, r = p["length"], p["radius"]
    _checks.positive("turns", turns)
    _checks.nonnegative("slack", slack)
    if slack >= 0.9:
        raise ValueError(f"slack = {slack!r} is not allowed: must be in [0, 0.9) (a fraction of "
                         f"the rod's length)")
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                                 normal=(0.0, 0.0, 1.0), length=L, n_elems=n_elems, radius=r,
                                 density=p["density"], youngs_modulus=p["youngs_modulus"],
                                 shear_modulus=p["youngs_modulus"] / 1.5)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.DrivenEnd(rod, "last", times=[0.0, twist_time],
                           displacement=[[0, 0, 0], [-slack * L, 0, 0]],
                           rotation=[[0, 0, 0], [2 * np.pi * turns, 0, 0]], name="twist"))
    scene.add(sm.RodContact([rod], stiffness=p["contact_stiffness"],
                            damping=p["contact_damping"], self_contact=True, name="self_contact"))
    scene.add(sm.LinearDamping(rod, p["damping"], rotational_coefficient=p["rotational_damping"]))
    # a tiny lateral nudge, so that the buckled loop picks a side deterministically
    scene.add(sm.UniformLoad(rod, force_per_length=(0.0, 1e-4, 2e-4), ramp_time=0.0,
                             name="nudge"))
    duration = twist_time + p["rest_time"] if duration is None else duration
    return scene, PlectonemeInfo(rod="rod", drive="twist", worlds=worlds, dt=dt,
                                 duration=duration, n_elems=n_elems, radius=r, length=L,
                                 turns=turns, slack=slack * L, twist_time=twist_time,
                                 rest_lengths=tuple(rod.rest_lengths))


def plectoneme_info(scene, run, report):
    """PlectonemeInfo of a plectoneme scenario (template "plectoneme"). [report]: rod (default
    "rod") and drive (its DrivenEnd, default "twist"); turns, slack and twist time are read from
    the drive's table (its last sample), radius and length from the rod."""
    from softmech.scenarios.templates import find_rod, find_term, report_parameters

    p = report_parameters(report, {"rod": "rod", "drive": "twist"})
    rod = find_rod(scene, p["rod"])
    drive = find_term(scene, p["drive"], (sm.DrivenEnd,), "drive")
    return PlectonemeInfo(
        rod=rod.name, drive=drive.name, worlds=run.worlds, dt=run.dt, duration=run.duration,
        n_elems=rod.n_elems, radius=float(rod.radius.max()), length=float(rod.length),
        turns=float(np.linalg.norm(drive.rotation[-1]) / (2 * np.pi)),
        slack=float(np.linalg.norm(drive.displacement[-1])), twist_time=float(drive.times[-1]),
        rest_lengths=tuple(rod.rest_lengths))


def plectoneme_report(info):
    """The [report] table of a plectoneme scenario."""
    return {"rod": info.rod, "drive": info.drive}


def self_gaps(rest_lengths, positions, radius):
    """Smallest centreline distance between element pairs of an open rod covered by self
    contact (the kernel's exclusion rule, softmech.kernels.rod_contact.SELF_GAP), over 2r:
    rest_lengths (n,) [m], positions (n_samples, n + 1, 3) [m], radius r [m] -> (n_samples,)
    [-] (1: just touching, < 0.5: the strands overlap by more than a radius)."""
    rest = np.asarray(rest_lengths, dtype=float)
    n = len(rest)
    arc = np.cumsum(rest) - 0.5 * rest
    r = float(radius)
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)
                      if not self_excluded(arc[i], arc[j], rest[i], rest[j], r, r, 0.0)],
                     dtype=np.int64).reshape(-1, 2)
    if not len(pairs):
        return np.full(len(positions), np.inf)
    rad, rods = np.full(n, r), np.zeros(n, dtype=np.int64)
    ratio = np.zeros(len(pairs))
    gaps = np.empty(len(positions))
    for k, x in enumerate(np.asarray(positions, dtype=float)):
        initial_overlaps(np.ascontiguousarray(x[:-1]), np.ascontiguousarray(x[1:]), rad, arc,
                         rest, rods, np.zeros(1), pairs, ratio)
        gaps[k] = 1.0 - ratio.max()           # ratio = (2r - d) / 2r of the closest pair
    return gaps


def writhe(positions):
    """Writhe of an open centreline, positions (..., n + 1, 3) [m] -> (...,) [-]: the Gauss
    double integral Wr = (1 / 4 pi) sum_{i != j} (t_i x t_j) . (m_i - m_j) / |m_i - m_j|^3 over
    the element tangents t and midpoints m (midpoint rule; Fuller 1971, Klenin & Langowski,
    Biopolymers 54:307, 2000). A straight or planar rod has Wr = 0; as a twisted rod coils, twist
    turns into writhe (Calugareanu-White: Lk = Tw + Wr), about one unit per crossing of the
    strands of a plectoneme."""
    x = np.asarray(positions, dtype=float)
    t = np.diff(x, axis=-2)
    m = 0.5 * (x[..., 1:, :] + x[..., :-1, :])
    d = m[..., :, None, :] - m[..., None, :, :]
    dist = np.linalg.norm(d, axis=-1)
    n = dist.shape[-1]
    dist[..., np.arange(n), np.arange(n)] = np.inf
    cross = np.cross(t[..., :, None, :], t[..., None, :, :])
    return np.einsum("...ijk,...ijk->...", cross, d / dist[..., None] ** 3) / (4.0 * np.pi)
