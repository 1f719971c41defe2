"""Active muscle rods: a Cosserat rod whose elements carry a contractile axial stress (kernel and
equations: softmech.kernels.active_muscle).

    ActiveMuscle(rod, max_stress=2.8e5, activation=1.0)               # maximal contraction
    ActiveMuscle(rod, 2.8e5, activation=lambda t: min(t / 0.1, 1.0), times=np.linspace(0, 1, 101))
    ActiveMuscle(rod, 2.8e5, activation=[0, 1, 1, 0], times=[0, 0.1, 0.5, 0.6])
    ActiveMuscle.walker(rod, stress=1.2e3, active_fraction=0.45, frequency=2.0)   # eq. 1, 2 Hz
    ActiveMuscle(rod, 1e5, activation="wave", frequency=1.0, phase=0.25, side=-1)  # eq. 2

Every element of the rod pulls its two nodes together with the tension

    T = A^ eta^-p [sigma_max (a(t, s) f_a(eta) + f_p(eta)) + zeta d(eta)/dt]            [N]

eta = l / l^ the element's stretch (the dilatation e of Zhang et al. 2019, eqs. 3-4), A^ = pi r^2
its rest section; p = 1 (incompressible=True, Poisson ratio 0.5: A = A^ / eta, the section grows
as the muscle shortens) or 0 (the curves are force curves on the rest section). The rod keeps
its own elasticity (the rod's "gazzola2018" law already writes its stretch force on the current
section, n = E A^ (eta - 1) / eta), so a muscle rod's total tension is T + E A^ (eta - 1) / eta:
give the rod a small Young's modulus when f_p is the muscle's passive response.

Force-length curves (Zhang et al. 2019, Fig. 1c and Supplementary Note 2: polynomial fits of the
normalized active (MVC) and passive forces against eta). The Supplementary Note's coefficients
are not in the sources this code was written from, so the defaults are, and say so:

* active f_a(eta) = 3.06 eta^3 - 13.64 eta^2 + 18.01 eta - 6.44, positive on (0.5773, 1.5960),
  peak 0.990 at eta = 0.990: the cubic active force-length fit of the same group's muscular-rod
  code (COOMM, Chang et al., `force_length_weight_poly`), a fit of the classic skeletal-muscle
  curve with its optimum at the rest length;
* passive f_p(eta) = 2.19349 eps^2 - 6.74100 eps^3 + 12.80985 eps^4, eps = eta - 1 > 0: the
  least-squares fit (no constant or linear term, so f_p(1) = f_p'(1) = 0) of Thelen's passive
  curve (exp(k eps / eps0) - 1) / (exp(k) - 1) with k = 4, eps0 = 0.6 (Thelen, J. Biomech. Eng.
  125:70, 2003, eq. 2) on eps in [0, 0.6], within 0.0063 of it (tests/validation).

Pass `active_coefficients` / `passive_coefficients` (ascending powers of eta, resp. eps = eta - 1;
at most 8 each) to use other fits. `active_range` = (eta_lo, eta_hi): f_a is 0 outside it
(default: the interval around eta = 1 where the active polynomial is positive).

Activation a in [0, 1]: a number (constant); values at `times` [s] (a table, interpolated
linearly, held outside); a function of time sampled at `times` once (scenario files keep the
table); "abs_sin": |sin(2 pi f t + phase)| (phase [rad]; the walker's stimulation, f half the
stimulation frequency: ActiveMuscle.walker); "wave":
eq. 2 of Zhang et al. 2019, 0.5 + 0.5 side sin(2 pi (f t - phase) - 2 pi s / wavelength) for
t >= phase / f and 0 before (phase in periods, in [0, 1]; side +1 right, -1 left muscle; s the
arc length from the rod's first node; wavelength 0: no travel, eq. 2 itself), ramped up
linearly over its first `ramp_time` [s] when that is > 0 (default 0: eq. 2's switch-on).

Sign convention: T > 0 is tension (the muscle pulls its ends together); eta > 1 stretched.

Per-world parameters (an optimizer may change them): `<name>.max_stress` [Pa],
`<name>.damping` zeta [Pa s], `<name>.frequency` [Hz], `<name>.phase`.
"""
import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.active_muscle import (ACT_ABS_SIN, ACT_TABLE, ACT_WAVE, MAX_COEFFICIENTS,
                                            N_MUSCLE_PARAMS, ActiveMusclesArgs, active_muscles)
from softmech.packing import lane_table
from softmech.terms.base import Part, Term, rod_name

ORDER = 40
"""Place in the force pass: with the muscles."""

ACTIVE_FIT = (-6.44, 18.01, -13.64, 3.06)
"""Default active force-length polynomial, ascending powers of eta (module docstring)."""
PASSIVE_FIT = (0.0, 0.0, 2.19349027, -6.74100142, 12.80985243)
"""Default passive polynomial, ascending powers of eps = eta - 1 (module docstring)."""
THELEN_PASSIVE = (4.0, 0.6)
"""(k_PE, eps0) of the passive curve PASSIVE_FIT was fitted to (Thelen 2003, eq. 2)."""

MAX_SAMPLES = 1_000_000
"""Largest activation table (samples)."""

KINDS = {"table": ACT_TABLE, "abs_sin": ACT_ABS_SIN, "wave": ACT_WAVE}


def positive_interval(coefficients, around=1.0):
    """(lo, hi): the largest interval containing `around` on which the polynomial (ascending
    coefficients) is > 0; +-inf where it stays positive. Raises if it is not positive there."""
    c = np.trim_zeros(np.asarray(coefficients, dtype=float), "b")
    if len(c) == 0 or np.polyval(c[::-1], around) <= 0:
        raise ValueError(f"the active force-length polynomial {list(coefficients)} must be > 0 at "
                         f"eta = {around:g}")
    roots = np.roots(c[::-1]) if len(c) > 1 else np.array([])
    real = np.sort(roots[np.abs(roots.imag) < 1e-12].real)
    lo, hi = real[real < around], real[real > around]
    return (float(lo[-1]) if len(lo) else -np.inf, float(hi[0]) if len(hi) else np.inf)


def _coefficients(field, value):
    c = _checks.finite(field, value, shape=(None,))
    if len(c) > MAX_COEFFICIENTS:
        raise ValueError(f"{field} has {len(c)} coefficients: at most {MAX_COEFFICIENTS} allowed "
                         f"(degree {MAX_COEFFICIENTS - 1})")
    out = np.zeros(MAX_COEFFICIENTS)
    out[:len(c)] = c
    return out


class ActiveMuscles(Part):
    """All active muscle rods of a scene in one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (rod index, kind, params (B, N_MUSCLE_PARAMS), poly (2, C),
        #                      per element (B, n_elems, 2): A^, s; table times, values)

    def calls(self, engine):
        lanes = engine.lanes
        n_t = max(len(e[5]) for e in self.entries)
        table = np.zeros((len(self.entries), 2, n_t))
        for i, e in enumerate(self.entries):
            table[i, :, :len(e[5])] = e[5], e[6]
            table[i, :, len(e[5]):] = np.array([e[5][-1], e[6][-1]])[:, None]
        layer, elem = engine.elem_layers([(e[0], e[4]) for e in self.entries], 2)
        args = engine.args(
            ActiveMusclesArgs,
            muscle_rod=np.array([e[0] for e in self.entries], dtype=np.int64),
            muscle_kind=np.array([e[1] for e in self.entries], dtype=np.int64),
            muscle_param=lane_table([e[2] for e in self.entries], lanes, N_MUSCLE_PARAMS),
            muscle_poly=np.array([e[3] for e in self.entries]),
            muscle_layer=layer, muscle_elem=elem,
            muscle_table=table,
            muscle_count=np.array([len(e[5]) for e in self.entries], dtype=np.int64))
        return [Call("forces", ORDER, active_muscles, args, "active_muscles")]


class ActiveMuscle(Term):
    """An active muscle rod: contractile stress along a rod (module docstring)."""

    section = "actuators"
    FIELDS = ("max_stress", "damping", "frequency", "phase")

    def __init__(self, rod, max_stress, *, activation=1.0, times=None, frequency=0.0, phase=0.0,
                 side=1, wavelength=0.0, active_coefficients=ACTIVE_FIT, active_range=None,
                 passive_coefficients=PASSIVE_FIT, damping=0.0, incompressible=True,
                 ramp_time=0.0, name="active_muscle"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.max_stress = float(_checks.nonnegative(f"{name}.max_stress", max_stress, shape=()))
        self.damping = float(_checks.nonnegative(f"{name}.damping", damping, shape=()))
        self.frequency = float(_checks.nonnegative(f"{name}.frequency", frequency, shape=()))
        self.phase = float(_checks.finite(f"{name}.phase", phase, shape=()))
        self.side = _checks.choice(f"{name}.side", side, {1, -1})
        self.wavelength = float(_checks.nonnegative(f"{name}.wavelength", wavelength, shape=()))
        self.ramp_time = float(_checks.nonnegative(f"{name}.ramp_time", ramp_time, shape=()))
        if not isinstance(incompressible, bool):
            raise ValueError(f"{name}.incompressible = {incompressible!r} is not allowed: must be "
                             f"True or False")
        self.incompressible = incompressible
        self.active = _coefficients(f"{name}.active_coefficients", active_coefficients)
        self.passive = _coefficients(f"{name}.passive_coefficients", passive_coefficients)
        if active_range is None:
            try:
                self.active_range = positive_interval(self.active)
            except ValueError as err:
                raise ValueError(f"{name}.active_coefficients = {list(active_coefficients)} is not "
                                 f"allowed: {err}") from None
        else:
            lo, hi = _checks.finite(f"{name}.active_range", active_range, shape=(2,))
            if not 0 <= lo < 1 < hi:
                raise ValueError(f"{name}.active_range = {[lo, hi]} is not allowed: must be "
                                 f"(eta_lo, eta_hi) with 0 <= eta_lo < 1 < eta_hi")
            self.active_range = (float(lo), float(hi))
        self.kind, self.times, self.values = self._activation(name, activation, times)
        if self.kind != ACT_WAVE and self.ramp_time > 0:
            raise ValueError(f"{name}.ramp_time = {self.ramp_time!r} is not allowed with this "
                             f"activation: a ramp is for activation = 'wave' (use 0)")

    def _activation(self, name, activation, times):
        """(kind, times (n,), values (n,)) of the activation argument (module docstring)."""
        if isinstance(activation, str):
            _checks.choice(f"{name}.activation", activation, {"abs_sin", "wave"})
            if times is not None:
                raise ValueError(f"{name}.times is not allowed with activation = {activation!r}")
            if self.frequency <= 0:
                raise ValueError(f"{name}.frequency = {self.frequency!r} is not allowed with "
                                 f"activation = {activation!r}: must be > 0 [Hz]")
            if activation == "wave" and not 0.0 <= self.phase <= 1.0:
                raise ValueError(f"{name}.phase = {self.phase!r} is not allowed with activation = "
                                 f"'wave': must be in [0, 1] (periods, eq. 2)")
            return KINDS[activation], np.zeros(1), np.zeros(1)
        if times is None:
            if callable(activation) or np.ndim(activation) != 0:
                raise ValueError(f"{name}.times is required with a table or function activation "
                                 f"(the sample times [s])")
            times = [0.0]
        t = _checks.finite(f"{name}.times", times, shape=(None,))
        if not 1 <= len(t) <= MAX_SAMPLES or np.any(np.diff(t) <= 0):
            raise ValueError(f"{name}.times is not allowed: must be 1 to {MAX_SAMPLES} strictly "
                             f"increasing sample times [s]")
        if callable(activation):
            try:
                values = [float(activation(float(s))) for s in t]
            except Exception as err:  # the user's function failed: say where
                raise ValueError(f"{name}.activation: the function raised {type(err).__name__}: "
                                 f"{err} (it must map a time [s] to a number in [0, 1])") from err
        else:
            values = np.broadcast_to(_checks.finite(f"{name}.activation", activation), t.shape) \
                if np.ndim(activation) == 0 else activation
        if np.shape(values) != t.shape:
            raise ValueError(f"{name}.activation has {np.shape(values)} values for "
                             f"{name}.times of shape {t.shape}: they must pair up")
        values = _checks.finite(f"{name}.activation", values, shape=(len(t),))
        if np.any((values < 0) | (values > 1)):
            raise ValueError(f"{name}.activation has values outside [0, 1] (min {values.min():g}, "
                             f"max {values.max():g}): an activation is a fraction of the maximum")
        return ACT_TABLE, t, values.astype(float)

    @classmethod
    def walker(cls, rod, stress, *, active_fraction=1.0, frequency, name="muscle"):
        """The bio-hybrid walker's muscle (Zhang et al. 2019, eq. 1): an active tension
        A gamma sigma_m |sin(pi f t)| on the rest section A (gamma = A_act / A_m, the active
        fraction), no force-length dependence, no passive curve; with the rod's own elastic
        force E A (eta - 1) / eta (law "gazzola2018") the tension on the skeleton is

            F_m = A gamma sigma_m |sin(pi f t)| + E A eps / (1 + eps),   eps = eta - 1,

        eq. 1 with eps counted positive in extension (the paper's minus sign counts it in
        shortening: a shortened muscle's elastic response reduces its pull).

        `frequency` f [Hz] is the stimulation frequency, one contraction per stimulus: |sin(pi f
        t)| peaks f times a second. So the authors' code runs its "2 Hz" walker
        (mattialab/elastica, ExternalContact.h: T = 1 s, |sin(2 pi t / T)|; its Rod.cpp: "actuated
        at 2Hz (or T = 0.5s)"), and so a tissue twitches once per electrical pulse. The
        activation is therefore "abs_sin" at f / 2 (|sin| peaks twice per period)."""
        fraction = float(_checks.finite(f"{name}.active_fraction", active_fraction, shape=()))
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"{name}.active_fraction = {fraction!r} is not allowed: must be in "
                             f"(0, 1] (A_act / A_m)")
        return cls(rod, fraction * float(_checks.nonnegative(f"{name}.stress", stress, shape=())),
                   activation="abs_sin", frequency=0.5 * float(
                       _checks.positive(f"{name}.frequency", frequency, shape=())),
                   active_coefficients=(1.0,),
                   passive_coefficients=(), incompressible=False, name=name)

    def arguments(self):
        """The constructor call, with a sampled function replaced by its table."""
        args = super().arguments()
        if callable(args["activation"]):
            args["activation"] = self.values
        return args

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in self.FIELDS}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        for k in ("max_stress", "damping", "frequency"):
            if np.any(p[k] < 0):
                raise ValueError(f"params['{self.name}.{k}'] has entries < 0 (must be >= 0)")
        if self.kind != ACT_TABLE and np.any(p["frequency"] <= 0):
            raise ValueError(f"params['{self.name}.frequency'] has entries <= 0 (must be > 0)")
        if self.kind == ACT_WAVE and np.any((p["phase"] < 0) | (p["phase"] > 1)):
            raise ValueError(f"params['{self.name}.phase'] has entries outside [0, 1] (periods, "
                             f"eq. 2)")
        B = ctx.worlds
        k = 0.0 if self.wavelength == 0 else 2.0 * np.pi / self.wavelength
        params = np.zeros((B, N_MUSCLE_PARAMS))
        params[:, :4] = np.stack([p[f] for f in self.FIELDS], axis=1)
        params[:, 4:] = (self.side, k, float(self.incompressible), *self.active_range,
                         self.ramp_time)
        # the strain-rate damping as a viscosity on the stretch, zeta / E (explicit limit)
        modulus = ctx.rod_params(self.rod)["youngs_modulus"]
        ctx.axial_tau[self.rod] += p["damping"][:, None] / modulus
        # the tension's stiffness dT/d eta = A^ sigma_max slope (explicit limit)
        ctx.axial_modulus[self.rod] += p["max_stress"][:, None] * self.stiffness_slope()
        area = np.pi * ctx.rod_params(self.rod)["radius"] ** 2                  # (B, n) [m^2]
        mid = np.cumsum(rod.rest_lengths) - 0.5 * rod.rest_lengths              # (n,) [m]
        elem = np.stack([area, np.broadcast_to(mid, area.shape)], axis=-1)
        ctx.part(ActiveMuscles).entries.append(
            (ctx.rod_index[self.rod], self.kind, params, np.stack([self.active, self.passive]),
             elem, self.times, self.values))

    def tension(self, eta, activation=1.0, rest_area=1.0, rate=0.0):
        """T [N] of an element at stretch eta (numpy, broadcasting), activation a, rest section
        A^ [m^2] and stretch rate [1/s]: the formula of the kernel, for tests and reports."""
        return self.section_area(eta, rest_area) * (
            self.max_stress * self.force_length(eta, activation) + self.damping * rate)

    def force_length(self, eta, activation=1.0):
        """a f_a(eta) + f_p(eta) [-]: the stress per max_stress at stretch eta (numpy,
        broadcasting) and activation a (module docstring)."""
        eta = np.asarray(eta, dtype=float)
        lo, hi = self.active_range
        f_a = np.where((eta >= lo) & (eta <= hi),
                       np.maximum(0.0, np.polynomial.polynomial.polyval(eta, self.active)), 0.0)
        f_p = np.where(eta > 1.0, np.maximum(
            0.0, np.polynomial.polynomial.polyval(eta - 1.0, self.passive)), 0.0)
        return activation * f_a + f_p

    def stiffness_slope(self, samples=401):
        """The largest slope [-] of the tension per rest section and max_stress,
        d/d eta [eta^-p (a f_a(eta) + f_p(eta))] (module docstring), over the active range
        (at most 0 to 2) and the activations a between 0 and the largest this muscle reaches
        (the slope is linear in a: its ends bound it); 0 where it only falls (a descending
        limb is a negative stiffness: no explicit-step limit). Times max_stress it is a
        modulus on the stretch (softmech.stability.rod_time_step_limit), which a muscle rod's
        own Young's modulus does not hold (the wing's: E = 2e4 Pa, 6.2 x 0.4 MPa of slope).
        Beyond the range the passive curve is not bounded; a muscle stretched so far is
        outside its working one."""
        lo, hi = max(self.active_range[0], 0.0), min(self.active_range[1], 2.0)
        eta = np.linspace(max(lo, 1e-3), hi, samples)
        a_max = float(np.max(self.values)) if self.kind == ACT_TABLE else 1.0
        slope = [np.gradient(self.section_area(eta, 1.0) * self.force_length(eta, a),
                             eta[1] - eta[0]) for a in (0.0, a_max)]
        return max(0.0, float(np.max(slope)))

    def section_area(self, eta, rest_area):
        """Current cross-section [m^2] at stretch eta: A^ / eta (incompressible, Poisson 0.5:
        volume A l = A^ l^ kept) or A^; radius sqrt(A / pi)."""
        eta = np.asarray(eta, dtype=float)
        return rest_area / eta if self.incompressible else rest_area + 0.0 * eta
