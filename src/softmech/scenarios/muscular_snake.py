"""Muscular snake: the slithering snake of Zhang, Chan, Parthasarathy, Gazzola, Nat. Commun.
10:4825 (2019), Fig. 3 -- an elastic body actuated by n antagonistic muscle-tendon pairs under
eq. 2, instead of the continuous muscle-torque wave.

The body, ground and friction are the Table 2 snake's (softmech.scenarios.snake: L = 1 m,
r = 25 mm, rho = 1000 kg/m^3, E = 10 MPa -- the paper's Fig. 3 values -- anisotropic Coulomb
friction, Froude 0.1); the body is uniform (the paper's taper profile is not in the sources).
The pairs are MusclePairs (softmech.terms.muscles): eq. 2's right and left muscles at the lever
arm r/2, as equal and opposite bending couples at each span's ends. Pair i: (start, length,
force, phase) with start >= 5, start + length <= 95 [vertebrae], 0 <= force <= 3500 N, phase in
[0, 1]. The default layout (`projected_layout`) is the continuous optimal gait projected onto
the n pairs: the spans, forces and phases whose moments best approximate the continuous torque
wave in space and time (least squares; four pairs: 96 % of the continuous snake's speed). The
other starting layout (`initial_layout`, layout="uniform") is n non-overlapping equal spans over
vertebrae 5-95 at 1500 N with the phases of a head-to-tail wave of wavelength 0.97 L. `softmech
optimize muscular_snake --pairs N` (softmech.optimize.muscular_snake) refines either with
CMA-ES.

muscles="rods" replaces the couples by the paper's muscle rods (`add_muscle_rods`): per pair a
right and a left muscle rod (ActiveMuscle, eq. 2's "wave" activation with the pair's phase,
side +1 / -1: half a period apart) spanning the pair's vertebrae at +-r/2 from the midline
(along the body's lateral director d2), glued node by node to the body (softmech.scenarios.
muscle_rods). The tendons are the end glue joints: the muscle runs over the whole span, and its
two end joints carry its tension into the body at the span's ends (no separate tendon rods).
The muscle's force does not depend on its length (flat force-length curve, no passive curve,
rest section): its tension is F_i a(t) exactly, a(t) eq. 2's activation, so the pair's peak
force is F_i (0..3500 N) as for the couples, with max_stress = F_i / A_m on the section A_m.
muscles="paper_rods" glues the same rods the way the paper's own code does (muscle_rods,
reaction="couple"): the body feels only the end anchors' moments, as couples, so the rods bend
it without compressing it or carrying the muscles' weight.
"""
import numpy as np

import softmech as sm
from softmech import _checks
from softmech.scenarios.muscle_rods import glue_muscle
from softmech.scenarios.snake import CONTINUOUS_SNAKE, OPTIMAL_GAIT, TABLE2, build_snake
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


PAPER_CODE_PAIRS = dict(start=(5.0, 33.0, 23.0, 61.0), length=(38.0, 39.0, 33.0, 33.0),
                        torque=(22.96, 20.95, 9.51, 13.7), element=(4, 33, 23, 61),
                        wave_speed=101.76)
"""The four pairs of the paper's own code: the repository its text links (mattialab/elastica,
source/MuscularSnake.cpp and the FLAGMUSCULARSNAKE part of source/ExternalContact.h, read,
not copied). Muscles from body elements 4 and 33 (13 muscle elements over 3 body elements
each: 39 vertebrae) and 23 and 61 (11: 33), the head at node 0; each muscle pulls with
A / (r / 2) (its "factor" 80 = 1 / 0.0125 m) times eq. 2's activation, left and right in
antiphase, so the pair's net moment is A sin(2 pi (t - element / wave_speed)) with the torque
amplitudes A [N m] and the delays element / 101.76 s [s] listed here. The first pair's start,
body element 4, is moved to vertebra 5 (eq. 2's lower bound), its end kept at 43; its delay
stays the code's."""

TAPERED_SNAKE = dict(
    taper=0.75,
    gait=dict(coefficients=(0.0, -36.057424715584, -44.50890027484156, -5.394717189876083,
                            -9.10867015101504, 0.0), wavelength=1.0470651005763763),
    pairs=((17.25572690624748, 38.62448562649332, 773.8513462834911, 0.5167513946860368),
           (23.83265445937685, 38.36025260054162, 1435.5709929135314, 0.5488363181153157),
           (5.748848157543513, 28.158789945600198, 2191.2810873270637, 0.3049559547648272),
           (53.326288020310116, 41.673711979689884, 979.3222423493818, 0.7187041579230076)))
"""The muscular snake on a tapered body (docs/musculoskeletal.md, "A tapered body"; the paper's
"tapered, elastic skeleton" has no profile in our sources): taper 0.75 (build_snake's tail-to-
head radius ratio at the uniform body's mass), its continuous gait re-optimized by CMA-ES
(`python benchmarks/muscular_snake_taper.py --tapers 0.75 --optimize-gait DIR`: 45
generations, population 16, seed 1, fitness over periods 3-6 at dt 12.5 us, the snake problem's
box; the published gait's beta and wavelength optimize the uniform body), and the four pairs
CMA-ES found on it (`python
benchmarks/muscular_snake_campaigns.py --pairs 4 --window 3 6 --patience 40 --taper 0.75`: 40
generations from the published gait's projection onto the tapered body's levers). Campaign
outputs, kept as a case to check: tests/validation/test_muscular_snake.py runs both."""

LAYOUTS = ("projected", "uniform")
"""Starting layouts of the muscular snake: the continuous gait projected onto the pairs
(`projected_layout`), or n equal non-overlapping spans at 1500 N (`initial_layout`)."""


def paper_code_layout():
    """PAPER_CODE_PAIRS as rows (start, length, force [N], phase): force = A / (r / 2) (the
    couples' lever, r the Table 2 radius), phase = the delay over the Table 2 gait's period."""
    p = PAPER_CODE_PAIRS
    force = np.array(p["torque"]) / (TABLE2["radius"] / 2.0)
    phase = (np.array(p["element"]) / p["wave_speed"] / TABLE2["period"]) % 1.0
    return np.column_stack([p["start"], p["length"], force, phase])


def pair_moment_fit(spans, vertebra, target, lever, max_force=MAX_FORCE):
    """Best peak forces and phases of muscle pairs with the given spans for a target moment wave.

    spans (n, 2): (start, length) [vertebrae]; vertebra (n_vor,): each interior node's place
    (MusclePairs' rule: a node is in a span when start <= vertebra <= start + length);
    target (n_vor,) complex [N m]: the wave A(s) sin(w t - theta(s)) as A e^{i theta};
    lever (n_vor,) [m]: the pairs' lever arm h at each node.

    Pair i's moment F_i h sin(w t - 2 pi phase_i) is F_i e^{2 pi i phase_i} h as a phasor, and
    the mean over a period of the squared moment error at a node is half the squared modulus
    of the phasor difference, so linear least squares over the nodes in the complex amplitudes
    c_i = F_i e^{2 pi i phase_i} minimizes the space-time L2 error of the moment. A force above
    max_force [N] is scaled down to it (phase kept: then no longer the constrained optimum).
    Returns (forces (n,) [N], phases (n,) in [0, 1), residual: sum over nodes of |error|^2
    [N^2 m^2])."""
    spans = np.asarray(spans, dtype=float)
    inside = (vertebra[:, None] >= spans[:, 0]) & (vertebra[:, None] <= spans.sum(axis=1))
    columns = inside * lever[:, None]
    c = np.linalg.lstsq(columns, target, rcond=None)[0]
    force = np.minimum(np.abs(c), max_force)
    c = force * np.exp(1j * np.angle(c))
    residual = float(np.sum(np.abs(columns @ c - target) ** 2))
    return force, np.angle(c) / (2.0 * np.pi) % 1.0, residual


def moment_wave(n_elems=TABLE2["n_elems"], taper=1.0, gait=OPTIMAL_GAIT):
    """The continuous gait's bending moment at the interior nodes of the snake of `taper`, as
    projected_layout fits it: (vertebra (n_vor,) [0 = head .. 100], target (n_vor,) complex
    [N m], the wave A(s) e^{i k s} of `gait` (6 coefficients [N m], wavelength [m]), lever
    (n_vor,) [m], MusclePairs' lever arm, half the local radius)."""
    from softmech.terms.muscles import muscle_spline

    scene, _ = build_muscular_snake(n_elems, pairs=1, layout="uniform", taper=taper)
    body, term = scene.rods[0], next(t for t in scene.terms if t.name == "muscle")
    s = term.arc_from_head(body)                                    # (n_vor,) [m] from the head
    radius = np.broadcast_to(np.asarray(body.radius, dtype=float), (body.n_elems,))
    lever = term.lever_arms(body, radius[None])[0]
    k = 2.0 * np.pi / float(_checks.positive("gait.wavelength", gait["wavelength"], shape=()))
    coefficients = _checks.finite("gait.coefficients", gait["coefficients"], shape=(6,))
    target = muscle_spline(coefficients, body.length)(s) * np.exp(1j * k * s)
    return 100.0 * s / body.length, target, lever


def projected_layout(pairs, *, overlap=True, n_elems=TABLE2["n_elems"], seed=1, taper=1.0,
                     gait=OPTIMAL_GAIT):
    """The Table 2 snake's continuous optimal gait (OPTIMAL_GAIT's torque wave, the paper's
    'idealized continuous reference'; or `gait`, a dict of 6 coefficients [N m] and a
    wavelength [m]) projected onto `pairs` muscle pairs on the body of `taper` (build_snake's:
    a pair's moment is its force times half the local radius, so a tapered body takes other
    forces for the same moments): the spans that
    minimize the space-time L2 error of the bending moment (`pair_moment_fit` chooses each
    span set's forces and phases), found by scipy's differential evolution (seeded: the same
    layout every call; overlap=False searches the non-overlapping layouts of
    `non_overlapping_groups`). No simulation: the layout is the best piecewise approximation of
    the continuous actuation that eq. 2's pairs can express. Returns (rows (n, 4) of (start,
    length, force, phase), relative residual: the fit's squared error over the wave's)."""
    from scipy.optimize import differential_evolution

    pairs = _checks.integer("pairs", pairs, 1)
    if pairs > 6:       # the search grows with the pairs; the paper's n is 1-6
        raise ValueError(f"pairs = {pairs} is not allowed for the projected layout: must be in "
                         "[1, 6] (the paper's n); give `groups` for more pairs")
    if not isinstance(overlap, bool):
        raise ValueError(f"overlap = {overlap!r} is not allowed: must be True or False")
    vertebra, target, lever = moment_wave(n_elems, taper, gait)
    make = feasible_groups if overlap else non_overlapping_groups

    def spans(x):
        return make(np.column_stack([np.reshape(x, (pairs, 2)), np.zeros((pairs, 2))]))[:, :2]

    def error(x):
        return pair_moment_fit(spans(x), vertebra, target, lever)[2]

    lo, hi = PAIR_START_RANGE
    # the error is piecewise constant in the spans (nodes enter and leave them), so a
    # population search rather than a gradient one; polish=False for the same reason
    found = differential_evolution(error, [(lo, hi), (0.0, hi - lo)] * pairs, seed=seed,
                                   popsize=20, maxiter=300, tol=1e-8, polish=False)
    best = spans(found.x)
    force, phase, residual = pair_moment_fit(best, vertebra, target, lever)
    return np.column_stack([best, force, phase]), residual / float(np.sum(np.abs(target) ** 2))


MUSCLE_ROD = dict(radius=TABLE2["radius"] / 4, youngs_modulus=1e6, density=TABLE2["density"],
                  glue_stiffness=1e6, glue_damping=10.0, rotational_damping=1e-3,
                  lever_fraction=0.5, one_way_damping=5.0, one_way_ramp=1.0)
"""The snake's muscle rods (muscles="rods"): radius [m] (r / 4: both muscles of a pair fit in
the body's half-width), Young's modulus [Pa] (1/10 of the body's: the two muscles add ~1% to
its bending and axial stiffness), density [kg/m^3] (the body's; the muscles add their mass,
0.012 kg per 10 vertebrae each), glue stiffness [N/m] and damping [N s/m] (an end joint
stretches F / k: 1.5 mm at 1500 N; sqrt(m_node / k) = 35 us > dt), rotational damping of the
muscle elements [kg m/s] (their frames are held by the muscle's shear stiffness only), the
muscles' distance from the midline as a fraction of the body radius [-] (the paper: "half its
radius"; 3500 N for ~40 N m is a lever of 11.4 mm ~ r/2; the authors' public PyElastica
example puts them beside the body, (r + 3 mm) / r = 1.12), and for muscles glued one way
(muscles="paper_rods", as in the paper's code) their translational damping [kg/(m s)] (the
code's nu_m = 5, the body's value; the "rods" have none but the glue's) and their activation's
ramp time [s] (the code ramps each muscle linearly over the first second after its delay; the
"rods" keep eq. 2's switch-on, their measured results unchanged)."""

MUSCLE_KINDS = ("couples", "rods", "paper_rods")
"""The muscular snake's actuators: MusclePairs couples, glued muscle rods (Newton's third law
at every glue joint), or the same rods glued as in the paper's code (their end anchors' moments
as couples on the body, the interior glue one-way)."""

GLUE_OF = {"rods": "force", "paper_rods": "couple"}
"""Muscle kind -> the glue's reaction (softmech.scenarios.muscle_rods.glue_muscle)."""


def build_muscular_snake(n_elems=TABLE2["n_elems"], worlds=1, *, pairs=4, groups=None,
                         layout="projected", duration=6.0, dt=TABLE2["dt"], muscles="couples",
                         lever_fraction=MUSCLE_ROD["lever_fraction"], taper=1.0):
    """The muscular snake (module docstring): `groups` rows (start, length, force, phase), or
    without them `pairs` pairs in the starting `layout`: "projected" (the continuous gait
    projected onto the pairs, `projected_layout`) or "uniform" (`initial_layout`); muscles
    "couples" (MusclePairs), "rods" (glued muscle rods, `add_muscle_rods`, at `lever_fraction`
    body radii from the midline, in (0, 2]) or "paper_rods" (the same rods glued as in the
    paper's code: MUSCLE_KINDS). taper: the body's tail-to-head radius ratio (build_snake; 1, the
    uniform Table 2 body, the paper's code's for this comparison); couples only, since the rods'
    glue sits at one lever for the whole body. Returns (scene, SnakeInfo) of the snake template."""
    muscles = _checks.choice("muscles", muscles, set(MUSCLE_KINDS))
    check_taper(taper, muscles)
    lever_fraction = float(_checks.positive("lever_fraction", lever_fraction, shape=()))
    if lever_fraction > 2.0:
        raise ValueError(f"lever_fraction = {lever_fraction!r} is not allowed: must be in (0, 2] "
                         "body radii (a muscle glued farther out is not on the body)")
    if muscles == "couples" and lever_fraction != MUSCLE_ROD["lever_fraction"]:
        raise ValueError(f"lever_fraction = {lever_fraction!r} is not allowed with muscles = "
                         "'couples': the couples' lever is MusclePairs' r/2 (muscle rods only)")
    layout = _checks.choice("layout", layout, set(LAYOUTS))
    if groups is not None:
        layout = tuple(map(tuple, np.asarray(groups, dtype=float)))
    elif layout == "projected":
        layout = tuple(map(tuple, projected_layout(pairs, n_elems=n_elems, taper=taper)[0]))
    else:
        layout = initial_layout(pairs)
    if muscles == "couples":
        return build_snake(n_elems, worlds, muscle_pairs=layout, duration=duration, dt=dt,
                           taper=taper)
    g = validate_pairs("groups", _checks.finite("groups", layout))
    scene, info = build_snake(n_elems, worlds, duration=duration, dt=dt, actuated=False)
    names = add_muscle_rods(scene, scene.rods[0], g, frequency=1.0 / info.period,
                            muscle=dict(MUSCLE_ROD, lever_fraction=lever_fraction),
                            reaction=GLUE_OF[muscles])
    if not names:
        raise ValueError(f"groups = {g.tolist()} is not allowed with muscles = {muscles!r}: "
                         f"no pair spans an interior node of the {n_elems}-element body")
    info.muscle = names[0]
    info.reference_name = CONTINUOUS_SNAKE
    return scene, info


def check_taper(taper, muscles):
    """`taper` (build_snake's) if the `muscles` can drive a body of that taper, else ValueError:
    a tapered body takes couples only, since the muscle rods are glued at one lever (a fraction
    of the largest radius) along the whole body."""
    if muscles != "couples" and taper != 1.0:
        raise ValueError(f"taper = {taper!r} is not allowed with muscles = {muscles!r}: the muscle "
                         "rods are glued at one lever for the whole body (a tapered body takes "
                         "muscles = 'couples')")
    return taper


def pair_nodes(body, start, length):
    """Body nodes (first, last) of a muscle over vertebrae [start, start + length] (head = the
    last node): the nodes just outside the interior nodes that MusclePairs' rule puts inside
    the span, so that the muscle bends the elements the couples bend; None if
    no interior node is inside."""
    from_head = body.length - np.cumsum(body.rest_lengths)[:-1]     # nodes 1..n-1 [m]
    vertebra = 100.0 * from_head / body.length
    inside = np.flatnonzero((vertebra >= start) & (vertebra <= start + length)) + 1
    return (int(inside.min()) - 1, int(inside.max()) + 1) if len(inside) else None


def add_muscle_rods(scene, body, groups, *, frequency, muscle=MUSCLE_ROD, reaction="force"):
    """Per pair i of `groups` (n, 4) rows (start, length, force, phase): a right and a left
    muscle rod `right<i>`, `left<i>` at muscle["lever_fraction"] r (r/2) from the midline along
    -d2 = d1 x d3, resp. +d2
    (so that right > left bends the body as MusclePairs' positive moment about d1 does: +y for
    the snake along +x with d1 = +z), glued to the body over `pair_nodes`, each pulled by an ActiveMuscle
    `muscle_right<i>` / `muscle_left<i>` (eq. 2 wave, side +1 / -1, phase_i, `frequency` [Hz],
    max_stress F_i / A_m), glued with `reaction` ("force" or "couple": glue_muscle; "couple"
    also damps the muscles by muscle["one_way_damping"] and ramps their activation over
    muscle["one_way_ramp"], as the paper's code does). Pairs that span no interior node get
    none. Returns the ActiveMuscle names."""
    names = []
    ramp = 0.0 if reaction == "force" else muscle["one_way_ramp"]
    half = muscle["lever_fraction"] * float(np.max(body.radius))
    area = np.pi * muscle["radius"] ** 2
    for i, (start, length, force, phase) in enumerate(groups):
        span = pair_nodes(body, start, length)
        if span is None:
            continue
        for side, label in ((1, "right"), (-1, "left")):
            rod = glue_muscle(scene, body, *span, (0.0, -side * half, 0.0), radius=muscle["radius"],
                              youngs_modulus=muscle["youngs_modulus"], density=muscle["density"],
                              stiffness=muscle["glue_stiffness"], damping=muscle["glue_damping"],
                              reaction=reaction, name=f"{label}{i}")
            along = 0.0 if reaction == "force" else muscle["one_way_damping"]
            scene.add(sm.LinearDamping(rod, along,
                                       rotational_coefficient=muscle["rotational_damping"],
                                       name=f"{label}{i}_damping"))
            names.append(f"muscle_{label}{i}")
            scene.add(sm.ActiveMuscle(rod, force / area, activation="wave", frequency=frequency,
                                      phase=phase, side=side, active_coefficients=(1.0,),
                                      passive_coefficients=(), incompressible=False,
                                      ramp_time=ramp, name=names[-1]))
    return names
