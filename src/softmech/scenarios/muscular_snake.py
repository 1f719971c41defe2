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
"""
import numpy as np

from softmech import _checks
from softmech.scenarios.snake import OPTIMAL_GAIT, TABLE2, build_snake
from softmech.terms.muscles import PAIR_START_RANGE

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


def build_muscular_snake(n_elems=TABLE2["n_elems"], worlds=1, *, pairs=4, groups=None,
                         duration=6.0, dt=TABLE2["dt"]):
    """The muscular snake (module docstring): `pairs` pairs in the initial layout, or `groups`
    rows (start, length, force, phase); returns (scene, SnakeInfo) of the snake template."""
    layout = initial_layout(pairs) if groups is None else tuple(map(tuple, np.asarray(groups, dtype=float)))
    return build_snake(n_elems, worlds, muscle_pairs=layout, duration=duration, dt=dt)
