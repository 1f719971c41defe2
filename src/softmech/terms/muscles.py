"""Muscle torque waves (kernel and equation: softmech.kernels.muscles).

    MuscleTorqueWave(rod, coefficients=(0, 17.4, 48.5, 5.4, 14.7, 0), wavelength=0.97, period=1.0)

beta(s) is the clamped cubic B-spline with the given coefficients [N m] on knots
(0, 0, 0, x_0 .. x_{N-3}, L, L, L), x equispaced on [0, L] (the ME498 handout's `snake_bspline`,
which PyElastica also uses): it starts at coefficients[0] at the head and ends at
coefficients[-1] at the tail. s is the arc length from the head (the rod's last node by default,
so that d3 points forward). Per-world parameters: `<name>.coefficients` (B, N),
`<name>.wavelength` [m], `<name>.period` [s], `<name>.phase` [rad], `<name>.ramp_time` [s].
"""
import numpy as np
from scipy.interpolate import BSpline

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.muscles import MuscleWavesArgs, muscle_waves
from softmech.packing import lane_table
from softmech.terms.base import Part, Term, rod_name

ORDER = 40
"""Place in the force pass: after damping, point loads and anchors, before contact."""


class MuscleWaves(Part):
    """All muscle waves and pairs of a scene in one kernel call: per entry the rod, the spatial
    rows beta cos(k s), beta sin(k s) (B, n_vor) [N m] and the wave (omega, phase, ramp) (B, 3)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def add(self, rod_index, beta_cos, beta_sin, wave):
        self.entries.append((rod_index, beta_cos, beta_sin, wave))

    def calls(self, engine):
        lanes, W = engine.lanes, engine.lanes.W
        width = max(e[1].shape[1] for e in self.entries)
        args = engine.args(
            MuscleWavesArgs, muscle_rod=np.array([e[0] for e in self.entries], dtype=np.int64),
            muscle_beta_cos=lane_table([e[1] for e in self.entries], lanes, width),
            muscle_beta_sin=lane_table([e[2] for e in self.entries], lanes, width),
            muscle_wave=lane_table([e[3] for e in self.entries], lanes, 3),
            muscle_phase=engine.zeros(2, W), muscle_moment=engine.zeros(engine.slots.n_elems * W))
        return [Call("forces", ORDER, muscle_waves, args, "muscle_waves")]


def muscle_spline(coefficients, length):
    """scipy BSpline beta(s) on [0, length] for the clamped cubic with these coefficients."""
    c = np.asarray(coefficients, dtype=float)
    inner = length * np.linspace(0.0, 1.0, len(c) - 2)
    knots = np.concatenate([[0.0] * 3, inner, [length] * 3])
    return BSpline(knots, c, 3, extrapolate=False)


class MuscleTorqueWave(Term):
    """Travelling torque wave A(s, t) = ramp(t) beta(s) sin(2 pi t / T - 2 pi s / lambda + phase),
    applied about each element's d1 at the interior nodes (+A after the node, -A before it).
    ramp_time [s]: linear ramp of the amplitude (default: one period; 0 for none)."""

    section = "actuators"

    def __init__(self, rod, coefficients, *, wavelength, period, phase=0.0, ramp_time=None,
                 head="last", name="muscle"):
        self.name = name
        self.rod = rod_name(name, rod)
        c = _checks.finite(f"{name}.coefficients", coefficients, shape=(None,))
        if len(c) < 4:
            raise ValueError(f"{name}.coefficients has {len(c)} values, expected at least 4 (cubic)")
        self.coefficients = c
        self.wavelength = float(_checks.positive(f"{name}.wavelength", wavelength, shape=()))
        self.period = float(_checks.positive(f"{name}.period", period, shape=()))
        self.phase = float(_checks.finite(f"{name}.phase", phase, shape=()))
        self.ramp_time = self.period if ramp_time is None else float(
            _checks.nonnegative(f"{name}.ramp_time", ramp_time, shape=()))
        self.head = _checks.choice(f"{name}.head", head, {"first", "last"})

    def parameters(self):
        return {"coefficients": self.coefficients[None].copy(),
                "wavelength": np.array([self.wavelength]), "period": np.array([self.period]),
                "phase": np.array([self.phase]), "ramp_time": np.array([self.ramp_time])}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        if np.any(p["wavelength"] <= 0) or np.any(p["period"] <= 0) or np.any(p["ramp_time"] < 0):
            raise ValueError(f"params of {self.name}: wavelength and period must be > 0, "
                             "ramp_time >= 0")
        s = self.arc_from_head(rod)
        length = rod.length
        beta = np.stack([muscle_spline(c, length)(s) for c in p["coefficients"]])  # (B, n_vor)
        k = 2.0 * np.pi / p["wavelength"][:, None]
        wave = np.stack([2.0 * np.pi / p["period"], p["phase"], p["ramp_time"]], axis=1)
        ctx.part(MuscleWaves).add(ctx.rod_index[self.rod], beta * np.cos(k * s), beta * np.sin(k * s), wave)

    def arc_from_head(self, rod):
        """Arc length [m] from the head of each Voronoi domain (interior node), (n_vor,)."""
        if rod.closed:
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: muscle waves need an "
                             "open rod (a head and a tail)")
        from_first = np.cumsum(rod.rest_lengths)[:-1]
        return rod.length - from_first if self.head == "last" else from_first


PAIR_START_RANGE = (5.0, 95.0)
"""Vertebra range [percent of body length from the head] that muscle pairs may span (Zhang et
al. 2019: 'any number of vertebrae between 5 and 95')."""


class MusclePairs(Term):
    """Antagonistic muscle-tendon pairs of the Nature Communications snake (Zhang, Chan,
    Parthasarathy, Gazzola, Nat. Commun. 10:4825, 2019, eq. 2): a second actuator of the
    muscle-torque family.

        MusclePairs(rod, groups=[(start, length, force, phase), ...], frequency=1.0)

    Body position is measured in vertebrae v = 100 s / L from 0 (head) to 100 (tail), s the arc
    length from the head (the rod's last node by default). Pair i spans [start_i, start_i +
    length_i] (5 <= start_i, start_i + length_i <= 95), pulls with peak force force_i [N] >= 0
    and has phase shift phase_i in [0, 1] (fraction of a period). Eq. 2 activates its right
    muscle with F_i (0.5 sin(2 pi f t - 2 pi phase_i) + 0.5) and its left one half a period out
    of phase; both act at the lever arm h from the midline (the tendons' anchors, 'half its
    radius away from the midline vertebra'), so the pair's net bending moment about d1 is

        M_i(t) = (right - left) h = F_i h sin(2 pi f t - 2 pi phase_i).

    M_i is applied at every interior node inside the span exactly like MuscleTorqueWave's moment
    (+M on the element after the node, -M on the one before): the couples on the span's
    interior elements cancel, so the pair bends the body through equal and opposite couples at
    the span's ends, where its tendons anchor, and puts no net couple on the body. Overlapping
    pairs add.

    lever_arm h [m]: a number, or None for half the local radius at each node (mean of its two
    elements' radii, re-read from the per-world rod radius). ramp_time [s]: linear ramp of the
    activity (default one period 1/f; 0 for none; eq. 2's 't > phase' start-up is replaced by
    this ramp, as for MuscleTorqueWave). Per-world parameters: `<name>.groups` (B, n_pairs, 4)
    rows (start, length, force, phase), `<name>.frequency` [Hz], `<name>.ramp_time` [s].
    """

    section = "actuators"

    def __init__(self, rod, groups, *, frequency, lever_arm=None, ramp_time=None, head="last",
                 name="muscle_pairs"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.groups = validate_pairs(f"{name}.groups", _checks.finite(f"{name}.groups", groups))
        self.frequency = float(_checks.positive(f"{name}.frequency", frequency, shape=()))
        self.lever_arm = None if lever_arm is None else float(
            _checks.positive(f"{name}.lever_arm", lever_arm, shape=()))
        self.ramp_time = 1.0 / self.frequency if ramp_time is None else float(
            _checks.nonnegative(f"{name}.ramp_time", ramp_time, shape=()))
        self.head = _checks.choice(f"{name}.head", head, {"first", "last"})

    def parameters(self):
        return {"groups": self.groups[None].copy(), "frequency": np.array([self.frequency]),
                "ramp_time": np.array([self.ramp_time])}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        if np.any(p["frequency"] <= 0) or np.any(p["ramp_time"] < 0):
            raise ValueError(f"params of {self.name}: frequency must be > 0, ramp_time >= 0")
        for b, g in enumerate(p["groups"]):
            validate_pairs(f"params['{self.name}.groups'][{b}]", g)
        vertebra = 100.0 * self.arc_from_head(rod) / rod.length                        # (n_vor,)
        lever = self.lever_arms(rod, ctx.rod_params(self.rod)["radius"])               # (B, n_vor)
        start = p["groups"][:, :, 0, None]                                             # (B, n, 1)
        end = start + p["groups"][:, :, 1, None]
        inside = (vertebra >= start) & (vertebra <= end)                               # (B, n, n_vor)
        amplitude = np.where(inside, p["groups"][:, :, 2, None], 0.0) * lever[:, None, :]
        # F h sin(w t - 2 pi phase) = sin(w t) F h cos(2 pi phase) - cos(w t) F h sin(2 pi phase):
        # the kernel's beta_cos / beta_sin rows (with its k s replaced by the pair's phase), so all
        # pairs fold into one entry: one sin/cos pair per world and step.
        angle = 2.0 * np.pi * p["groups"][:, :, 3, None]
        beta_cos = np.sum(amplitude * np.cos(angle), axis=1)
        beta_sin = np.sum(amplitude * np.sin(angle), axis=1)
        wave = np.stack([2.0 * np.pi * p["frequency"], np.zeros_like(p["frequency"]),
                         p["ramp_time"]], axis=1)
        ctx.part(MuscleWaves).add(ctx.rod_index[self.rod], beta_cos, beta_sin, wave)

    arc_from_head = MuscleTorqueWave.arc_from_head

    def lever_arms(self, rod, radius):
        """Lever arm h [m] at each interior node, (B, n_vor), from element radii (B, n_elems)."""
        if self.lever_arm is not None:
            return np.full((radius.shape[0], rod.n_vor), self.lever_arm)
        return 0.25 * (radius[:, :-1] + radius[:, 1:])        # half of the nodes' mean radius


def validate_pairs(field, groups):
    """Rows (start, length, force, phase) of MusclePairs within the ranges of Zhang et al. 2019:
    5 <= start, length >= 0, start + length <= 95 [vertebrae], force >= 0 [N], 0 <= phase <= 1,
    shape (n_pairs >= 1, 4). Returns them as a float array."""
    g = np.asarray(groups, dtype=float)
    if g.ndim != 2 or g.shape[1] != 4 or len(g) < 1:
        raise ValueError(f"{field} has shape {g.shape}, expected (n_pairs >= 1, 4): rows "
                         "(start, length, force, phase)")
    lo, hi = PAIR_START_RANGE
    for i, (start, length, force, phase) in enumerate(g):
        checks = ((start, "start", lo <= start <= hi, f"in [{lo:g}, {hi:g}]"),
                  (length, "length", 0.0 <= length and start + length <= hi,
                   f"in [0, {hi:g} - start] = [0, {hi - start:g}] (start + length <= {hi:g})"),
                  (force, "force", force >= 0.0, ">= 0"),
                  (phase, "phase", 0.0 <= phase <= 1.0, "in [0, 1]"))
        for value, what, ok, allowed in checks:
            if not ok:
                raise ValueError(f"{field}[{i}].{what} = {value:g} is not allowed: "
                                 f"must be {allowed}")
    return g
