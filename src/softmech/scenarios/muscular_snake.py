"""Muscular snake: the slithering snake of Zhang, Chan, Parthasarathy, Gazzola, Nat. Commun.
10:4825 (2019), Fig. 3 -- an elastic body actuated by n antagonistic muscle-tendon pairs under
eq. 2, instead of the continuous muscle-torque wave.

The body, ground and friction are the Table 2 snake's (softmech.scenarios.snake: L = 1 m,
r = 25 mm, rho = 1000 kg/m^3, E = 10 MPa -- the paper's Fig. 3 values -- anisotropic Coulomb
friction, Froude 0.1); the body is uniform (the paper's taper profile is not in the sources).
The pairs are MusclePairs (softmech.terms.muscles): eq. 2's right and left muscles at the lever
arm r/2, as equal and opposite bending couples at each span's ends. Pair i: (start, length,
force, phase) with start >= 5, start + length <= 95 [vertebrae], 0 <= force <= 3500 N, phase in
[0, 1]. The default layout (`initial_layout`) is n non-overlapping equal spans over vertebrae
5-95 at 1500 N with the phases of a head-to-tail wave of wavelength 0.97 L -- a starting point
for `softmech optimize muscular_snake --pairs N` (softmech.optimize.muscular_snake), which
finds each n's fastest layout with CMA-ES.

muscles="rods" replaces the couples by the paper's muscle rods (`add_muscle_rods`): per pair a
right and a left muscle rod (ActiveMuscle, eq. 2's "wave" activation with the pair's phase,
side +1 / -1: half a period apart) spanning the pair's vertebrae at +-r/2 from the midline
(along the body's lateral director d2), glued node by node to the body (softmech.scenarios.
muscle_rods). The tendons are the end glue joints: the muscle runs over the whole span, and its
two end joints carry its tension into the body at the span's ends (no separate tendon rods).
The muscle's force does not depend on its length (flat force-length curve, no passive curve,
rest section): its tension is F_i a(t) exactly, a(t) eq. 2's activation, so the pair's peak
force is F_i (0..3500 N) as for the couples, with max_stress = F_i / A_m on the section A_m.
"""
import numpy as np

import softmech as sm
from softmech import _checks
from softmech.scenarios.muscle_rods import glue_muscle
from softmech.scenarios.snake import OPTIMAL_GAIT, TABLE2, build_snake
from softmech.terms.muscles import PAIR_START_RANGE, validate_pairs

MAX_FORCE = 3500.0
"""Largest peak force of a pair [N] (Zhang et al. 2019: 0 <= F <= 3500 N)."""


def initial_layout(pairs, force=1500.0, wavelength=OPTIMAL_GAIT["wavelength"]):
    """n non-overlapping equal spans over PAIR_START_RANGE, each at `force` [N], phased as a
    head-to-tail wave of `wavelength` [m] at its centre: rows (start, length, force, phase)."""
    pairs = _checks.integer("pairs", pairs, 1)
    lo, hi = PAIR_START_RANGE
    span = (hi - lo) / pairs
    return tuple((lo + i * span, span, float(force),
                  (lo + (i + 0.5) * span) * TABLE2["length"] / 100.0 / wavelength % 1.0)
                 for i in range(pairs))


def feasible_groups(raw):
    """Search variables (..., 4) rows (start, length, force, phase) -> rows within eq. 2's
    ranges: start clipped to [5, 95], length to [0, 95 - start], force to [0, 3500], phase to
    [0, 1] (so that any CMA-ES sample is a layout)."""
    g = np.array(raw, dtype=float)
    lo, hi = PAIR_START_RANGE
    g[..., 0] = np.clip(g[..., 0], lo, hi)
    g[..., 1] = np.clip(g[..., 1], 0.0, hi - g[..., 0])
    g[..., 2] = np.clip(g[..., 2], 0.0, MAX_FORCE)
    g[..., 3] = np.clip(g[..., 3], 0.0, 1.0)
    return g


def non_overlapping_groups(raw):
    """feasible_groups, then spans made disjoint (the paper's non-overlapping layouts, Fig. 3 and
    Supplementary Note 4): the pairs taken in order of their start, each start moved to at least
    the previous span's end and its length clipped to end by vertebra 95, so a pair squeezed out
    at the tail has length 0. Rows keep their order (pair i stays pair i)."""
    g = feasible_groups(raw)
    flat = g.reshape(-1, g.shape[-2], 4)
    _, hi = PAIR_START_RANGE
    for layout in flat:
        end = -np.inf
        for i in np.argsort(layout[:, 0], kind="stable"):
            layout[i, 0] = min(max(layout[i, 0], end), hi)
            layout[i, 1] = min(layout[i, 1], hi - layout[i, 0])
            end = layout[i, 0] + layout[i, 1]
    return flat.reshape(g.shape)


MUSCLE_ROD = dict(radius=TABLE2["radius"] / 4, youngs_modulus=1e6, density=TABLE2["density"],
                  glue_stiffness=1e6, glue_damping=10.0, rotational_damping=1e-3)
"""The snake's muscle rods (muscles="rods"): radius [m] (r / 4: both muscles of a pair fit in
the body's half-width), Young's modulus [Pa] (1/10 of the body's: the two muscles add ~1% to
its bending and axial stiffness), density [kg/m^3] (the body's; the muscles add their mass,
0.012 kg per 10 vertebrae each), glue stiffness [N/m] and damping [N s/m] (an end joint
stretches F / k: 1.5 mm at 1500 N; sqrt(m_node / k) = 35 us > dt), rotational damping of the
muscle elements [kg m/s] (their frames are held by the muscle's shear stiffness only)."""

MUSCLE_KINDS = ("couples", "rods")
"""The muscular snake's actuators: MusclePairs couples, or glued muscle rods."""


def build_muscular_snake(n_elems=TABLE2["n_elems"], worlds=1, *, pairs=4, groups=None,
                         duration=6.0, dt=TABLE2["dt"], muscles="couples"):
    """The muscular snake (module docstring): `pairs` pairs in the initial layout, or `groups`
    rows (start, length, force, phase); muscles "couples" (MusclePairs) or "rods" (glued muscle
    rods, `add_muscle_rods`). Returns (scene, SnakeInfo) of the snake template."""
    muscles = _checks.choice("muscles", muscles, set(MUSCLE_KINDS))
    layout = initial_layout(pairs) if groups is None else tuple(map(tuple, np.asarray(groups, dtype=float)))
    if muscles == "couples":
        return build_snake(n_elems, worlds, muscle_pairs=layout, duration=duration, dt=dt)
    g = validate_pairs("groups", _checks.finite("groups", layout))
    scene, info = build_snake(n_elems, worlds, duration=duration, dt=dt, actuated=False)
    names = add_muscle_rods(scene, scene.rods[0], g, frequency=1.0 / info.period)
    if not names:
        raise ValueError(f"groups = {g.tolist()} is not allowed with muscles = 'rods': no pair "
                         f"spans an interior node of the {n_elems}-element body")
    info.muscle = names[0]
    return scene, info


def pair_nodes(body, start, length):
    """Body nodes (first, last) of a muscle over vertebrae [start, start + length] (head = the
    last node): the nodes just outside the interior nodes that MusclePairs' rule puts inside
    the span, so that the muscle bends the elements the couples bend; None if
    no interior node is inside."""
    from_head = body.length - np.cumsum(body.rest_lengths)[:-1]     # nodes 1..n-1 [m]
    vertebra = 100.0 * from_head / body.length
    inside = np.flatnonzero((vertebra >= start) & (vertebra <= start + length)) + 1
    return (int(inside.min()) - 1, int(inside.max()) + 1) if len(inside) else None


def add_muscle_rods(scene, body, groups, *, frequency, muscle=MUSCLE_ROD):
    """Per pair i of `groups` (n, 4) rows (start, length, force, phase): a right and a left
    muscle rod `right<i>`, `left<i>` at r/2 from the midline along -d2 = d1 x d3, resp. +d2
    (so that right > left bends the body as MusclePairs' positive moment about d1 does: +y for
    the snake along +x with d1 = +z), glued to the body over `pair_nodes`, each pulled by an ActiveMuscle
    `muscle_right<i>` / `muscle_left<i>` (eq. 2 wave, side +1 / -1, phase_i, `frequency` [Hz],
    max_stress F_i / A_m). Pairs that span no interior node get none. Returns the ActiveMuscle
    names."""
    names = []
    half = 0.5 * float(np.max(body.radius))
    area = np.pi * muscle["radius"] ** 2
    for i, (start, length, force, phase) in enumerate(groups):
        span = pair_nodes(body, start, length)
        if span is None:
            continue
        for side, label in ((1, "right"), (-1, "left")):
            rod = glue_muscle(scene, body, *span, (0.0, -side * half, 0.0), radius=muscle["radius"],
                              youngs_modulus=muscle["youngs_modulus"], density=muscle["density"],
                              stiffness=muscle["glue_stiffness"], damping=muscle["glue_damping"],
                              name=f"{label}{i}")
            scene.add(sm.LinearDamping(rod, 0.0, rotational_coefficient=muscle["rotational_damping"],
                                       name=f"{label}{i}_damping"))
            names.append(f"muscle_{label}{i}")
            scene.add(sm.ActiveMuscle(rod, force / area, activation="wave", frequency=frequency,
                                      phase=phase, side=side, active_coefficients=(1.0,),
                                      passive_coefficients=(), incompressible=False,
                                      name=names[-1]))
    return names
