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
from softmech.terms.base import Term, rod_name


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

    def __init__(self, rod, coefficients, *, wavelength, period, phase=0.0, ramp_time=None,
                 head="last", name="muscle"):
        self.name = name
        self.rod = rod_name(name, rod)
        c = _checks.finite(f"{name}.coefficients", coefficients, shape=(None,))
        if len(c) < 4:
            raise ValueError(f"{name}.coefficients has {len(c)} values, expected at least 4 (cubic)")
        self.coefficients = c
        self.wavelength = float(_checks.positive(f"{name}.wavelength", wavelength))
        self.period = float(_checks.positive(f"{name}.period", period))
        self.phase = float(_checks.finite(f"{name}.phase", phase))
        self.ramp_time = self.period if ramp_time is None else float(
            _checks.nonnegative(f"{name}.ramp_time", ramp_time))
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
        ctx.muscles.append((ctx.rod_index[self.rod], beta * np.cos(k * s), beta * np.sin(k * s), wave))

    def arc_from_head(self, rod):
        """Arc length [m] from the head of each Voronoi domain (interior node), (n_vor,)."""
        if rod.closed:
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: muscle waves need an "
                             "open rod (a head and a tail)")
        from_first = np.cumsum(rod.rest_lengths)[:-1]
        return rod.length - from_first if self.head == "last" else from_first
