"""Timoshenko cantilever of the ME498 handout (section 2.2.3, Table 1), and its analytic curves.

A straight rod along x, clamped at s = 0 (node position and first frame fixed), with a downward
tip force F (-y) ramped up from zero, settles to a static deflection y(s). For small deflections
Timoshenko beam theory gives (handout section 2.2.3, written with the shear coefficient alpha_c;
the handout's 3 / 4 is 1 / alpha_c with alpha_c = 4 / 3):

    y(s) = -F s / (alpha_c A G) - F L s^2 / (2 E I) + F s^3 / (6 E I)

and without shear compliance (G -> infinity) the Euler-Bernoulli curve

    y(s) = -F L s^2 / (2 E I) + F s^3 / (6 E I).

Table 1: rho = 5e3 kg/m^3, E = 1e6 Pa, G = 1e4 Pa, F = 15 N, L = 3 m, r = 0.25 m,
gamma = 0.1 kg/(m s), T = 5e3 s, n = 100, dt = 3e-4 s.
"""
from dataclasses import dataclass

import numpy as np

from softmech import _checks
from softmech.scene import Scene
from softmech.stability import rod_time_step_limit
from softmech.terms.boundary import Clamp
from softmech.terms.damping import LinearDamping
from softmech.terms.loads import EndLoad

TABLE1 = {"density": 5e3, "youngs_modulus": 1e6, "shear_modulus": 1e4, "force": 15.0,
          "length": 3.0, "radius": 0.25, "damping": 0.1, "duration": 5e3, "n_elems": 100,
          "dt": 3e-4}
"""ME498 handout Table 1 (SI units)."""

# Table 1's gamma = 0.1 kg/(m s) damps every mode at the rate gamma / (2 rho A) ~ 5e-5 1/s: the
# beam rings for thousands of seconds (hence T = 5e3 s). Viscous damping does not change the static
# state, so we damp close to critically instead: the first bending mode of this beam has
# omega_1 ~ 0.55 rad/s (measured period 11.5 s; Euler-Bernoulli's 1.875^2 sqrt(EI / (rho A L^4))
# = 0.69 rad/s, lowered by the soft shear), and critical mass-proportional damping is
# gamma_c = 2 omega_1 rho A ~ 1.07e3 kg/(m s). With gamma = 1e3 the tip is within 1e-4 of its
# static value after ~20 s.
FAST_DAMPING = 1.0e3
DURATION = 20.0
RAMP_TIME = 1.0


@dataclass(frozen=True)
class CantileverInfo:
    """What build_cantilever built, with the values needed to run it and check it (SI units)."""
    rod: str                  # name of the rod in the scene
    worlds: int               # worlds to compile (scene.compile(worlds=info.worlds, dt=info.dt))
    dt: float                 # time step [s]
    duration: float           # simulated time to reach the static state [s]
    n_elems: int
    length: float             # L [m]
    force: float              # F [N], magnitude of the downward (-y) tip force
    density: float            # rho [kg/m^3]
    youngs_modulus: float     # E [Pa]
    shear_modulus: float      # G [Pa]
    area: float               # A = pi r^2 [m^2]
    second_moment: float      # I = pi r^4 / 4 [m^4]
    shear_coefficient: float  # alpha_c [-]
    damping: float            # gamma [kg/(m s)]
    rotational_damping: float  # gamma_r [kg m/s]
    ramp_time: float          # the tip force grows linearly from 0 to F over this time [s]

    def deflection(self, s, theory="timoshenko"):
        """Static deflection y(s) [m] at arc lengths s [m] (any shape): "timoshenko" or
        "euler_bernoulli"."""
        _checks.choice("theory", theory, {"timoshenko", "euler_bernoulli"})
        if theory == "euler_bernoulli":
            return euler_bernoulli_deflection(s, self.force, self.length, self.youngs_modulus,
                                              self.second_moment)
        return timoshenko_deflection(s, self.force, self.length, self.youngs_modulus,
                                     self.shear_modulus, self.area, self.second_moment,
                                     self.shear_coefficient)


    def settle_time(self, tolerance=None):
        """Time [s] by which the tip has settled: the ramp time plus the time in which the
        slowest decaying motion, the first bending mode, falls to tolerance / 10 of its amplitude
        (default SETTLE_TOLERANCE; a tenth, because the settle check measures the tip's drift,
        not the amplitude). The mode obeys x'' + c x' + w^2 x = 0 with c = gamma / (rho A) (mass
        proportional damping) and Euler-Bernoulli's w = 1.875^2 sqrt(E I / (rho A L^4)); its
        slowest root decays at c / 2 - sqrt(max(c^2 / 4 - w^2, 0)) per second (c / 2 when
        underdamped, ~w^2 / c when overdamped). inf without damping."""
        tolerance = SETTLE_TOLERANCE if tolerance is None else float(
            _checks.positive("tolerance", tolerance))
        mass = self.density * self.area                                  # rho A [kg/m]
        c = self.damping / mass                                           # [1/s]
        w = 1.875**2 * np.sqrt(self.youngs_modulus * self.second_moment / (mass * self.length**4))
        rate = c / 2.0 - np.sqrt(max(c * c / 4.0 - w * w, 0.0))
        return self.ramp_time + np.log(10.0 / tolerance) / rate if rate > 0 else np.inf


SETTLE_TOLERANCE = 1e-3
"""Largest tip drift (tip_drift) of a settled run: the tip moves by less than 0.1 % of its
deflection over the last tenth of the run. The run reports a static deflection and its error
against Timoshenko; a tip still moving by this much changes that error by about as much, an
order below the 1 % the comparison is read at (a 20-element beam is 0.07 % off, 10 elements
0.3 %). The default run (20 s) drifts by ~5e-5; a 2 s run by ~0.13 (71 % off)."""


def tip_drift(time, tip):
    """How far the tip still moves at the end of a run, relative to its final deflection: the
    largest |y(t) - y(T)| / |y(T)| over the last tenth of the run (at least the last two
    samples). time (n,) [s], tip (n,) [m] -> [-]. A tenth of the run, not a fixed time: a
    still ringing beam is caught whichever phase the run ends in once the run is a few of its
    periods long, and an overdamped creep moves measurably over it. inf for a tip at 0 that
    moved; 0 for a single sample."""
    time, tip = np.asarray(time, dtype=float), np.asarray(tip, dtype=float)
    if tip.size < 2:
        return 0.0
    last = tip[time >= time[-1] - 0.1 * (time[-1] - time[0])]
    last = last if last.size >= 2 else tip[-2:]
    moved = float(np.max(np.abs(last - tip[-1])))
    return moved / abs(tip[-1]) if tip[-1] != 0 else (np.inf if moved > 0 else 0.0)


def timoshenko_deflection(s, F, L, E, G, A, I, alpha_c=4.0 / 3.0):
    """Timoshenko static deflection of a cantilever clamped at s = 0 under a tip force F [N] in -y.

    y(s) = -F s / (alpha_c A G) - F L s^2 / (2 E I) + F s^3 / (6 E I)   (ME498 handout 2.2.3)
    s [m] (any shape), L [m], E, G [Pa], A [m^2], I [m^4], alpha_c [-]; returns y [m], shape of s.
    """
    s = np.asarray(s, dtype=float)
    return -F * s / (alpha_c * A * G) + euler_bernoulli_deflection(s, F, L, E, I)


def euler_bernoulli_deflection(s, F, L, E, I):
    """Euler-Bernoulli static deflection: y(s) = -F L s^2 / (2 E I) + F s^3 / (6 E I) [m]."""
    s = np.asarray(s, dtype=float)
    return -F * L * s**2 / (2.0 * E * I) + F * s**3 / (6.0 * E * I)


def build_cantilever(n_elems=100, worlds=1, *, law="gazzola2018", force=TABLE1["force"],
                     youngs_modulus=TABLE1["youngs_modulus"], shear_modulus=TABLE1["shear_modulus"],
                     damping=FAST_DAMPING, ramp_time=RAMP_TIME, duration=DURATION, dt=None):
    """Build the Table 1 cantilever; returns (scene, info: CantileverInfo).

    n_elems: elements (Table 1: 100). worlds: stored in info for scene.compile. law: constitutive
    law of the rod. force [N]: tip force magnitude (applied along -y). damping [kg/(m s)]: gamma
    of LinearDamping (default: near-critical, see FAST_DAMPING; Table 1 uses 0.1). dt [s]: default
    Table 1's 3e-4 s, reduced to a quarter of the stability estimate for fine meshes.

        scene, info = build_cantilever()
        sim = scene.compile(worlds=info.worlds, dt=info.dt)
        sim.run(info.duration)
        y_tip = sim.get_state()["positions"][0, -1, 1]      # compare with info.deflection(info.length)
    """
    n_elems = _checks.integer("n_elems", n_elems, 2)
    worlds = _checks.integer("worlds", worlds, 1)
    force = float(_checks.finite("force", force))
    damping = float(_checks.nonnegative("damping", damping))
    ramp_time = float(_checks.nonnegative("ramp_time", ramp_time))
    duration = float(_checks.positive("duration", duration))
    radius, length = TABLE1["radius"], TABLE1["length"]

    scene = Scene()
    rod = scene.add_cosserat_rod(
        name="beam", start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0),
        length=length, n_elems=n_elems, radius=radius, density=TABLE1["density"],
        youngs_modulus=youngs_modulus, shear_modulus=shear_modulus, shear_coefficient=4.0 / 3.0,
        law=law)
    scene.add(Clamp(rod, "first"))
    scene.add(EndLoad(rod, force=(0.0, -force, 0.0), end="last", ramp_time=ramp_time, name="tip"))
    # Rotational damping gamma_r = gamma I1 / A = gamma r^2 / 4 (units kg m/s) damps the rotation
    # of each element at the same rate gamma / (rho A) as its translation (this is also
    # LinearDamping's default; it is written out here because it matters): the PyElastica-style
    # gamma_r = gamma (numerically 64x larger here) overdamps the element rotations, which are
    # tied to the bending slope, and the tip then creeps to its static value several times slower.
    area = np.pi * radius**2
    second_moment = area * radius**2 / 4.0
    rotational_damping = damping * second_moment / area
    scene.add(LinearDamping(rod, damping, rotational_coefficient=rotational_damping, name="damping"))

    if dt is None:
        limit = float(rod_time_step_limit(rod, rod.parameters())[0])
        dt = min(TABLE1["dt"], 0.25 * limit)
    dt = float(_checks.positive("dt", dt))
    info = CantileverInfo(rod=rod.name, worlds=worlds, dt=dt, duration=duration, n_elems=n_elems,
                          length=length, force=force, density=TABLE1["density"],
                          youngs_modulus=float(youngs_modulus),
                          shear_modulus=float(shear_modulus), area=area,
                          second_moment=second_moment, shear_coefficient=4.0 / 3.0,
                          damping=damping, rotational_damping=rotational_damping,
                          ramp_time=ramp_time)
    return scene, info


def cantilever_info(scene, run, report):
    """CantileverInfo of a cantilever scenario (template "cantilever"), read from the scene so
    that an edited file is compared with the beam theory of its own values. [report]: rod
    (default "beam"), load (its EndLoad at the free end, default "tip"), damping (its
    LinearDamping, default "damping"; absent: no damping). The rod must start straight along +x,
    clamped at its first end, with uniform material, and the tip force must point along -y."""
    from softmech.scenarios.templates import find_rod, find_term, report_parameters, uniform
    from softmech.terms.boundary import Clamp

    p = report_parameters(report, {"rod": "beam", "load": "tip", "damping": "damping"})
    rod = find_rod(scene, p["rod"])
    load = find_term(scene, p["load"], (EndLoad,), "load")
    x = rod.positions - rod.positions[0]
    if rod.closed or np.any(np.abs(x[:, 1:]) > 1e-12 * rod.length) or np.any(np.diff(x[:, 0]) <= 0):
        raise ValueError(f"rod = {rod.name!r} is not allowed: the cantilever template needs a "
                         "rod that starts straight along +x")
    if not any(isinstance(t, Clamp) and t.rod == rod.name and t.constrained_end[1] == "first"
               for t in scene.terms):
        raise ValueError(f"rod = {rod.name!r} is not allowed: the cantilever template needs a "
                         "Clamp at its first end")
    if load.force[0] != 0 or load.force[2] != 0 or np.any(load.couple != 0):
        raise ValueError(f"load = {load.name!r} is not allowed: the cantilever template compares "
                         f"with beam theory under a tip force along -y (force = "
                         f"{load.force.tolist()}, couple = {load.couple.tolist()})")
    radius = uniform(f"rod '{rod.name}'.radius", rod.radius)
    area = np.pi * radius**2
    gamma = gamma_r = 0.0
    if any(t.name == p["damping"] for t in scene.terms):
        damping = find_term(scene, p["damping"], (LinearDamping,), "damping")
        gamma = damping.coefficient
        # LinearDamping's default rotational coefficient is gamma I1 / A = gamma r^2 / 4
        gamma_r = (gamma * radius**2 / 4.0 if damping.rotational_coefficient is None
                   else damping.rotational_coefficient)
    return CantileverInfo(
        rod=rod.name, worlds=run.worlds, dt=run.dt, duration=run.duration, n_elems=rod.n_elems,
        length=float(rod.length), force=float(-load.force[1]),
        density=uniform(f"rod '{rod.name}'.density", rod.density),
        youngs_modulus=uniform(f"rod '{rod.name}'.youngs_modulus", rod.youngs_modulus),
        shear_modulus=uniform(f"rod '{rod.name}'.shear_modulus", rod.shear_modulus), area=area,
        second_moment=area * radius**2 / 4.0, shear_coefficient=float(rod.shear_coefficient),
        damping=gamma, rotational_damping=gamma_r, ramp_time=float(load.profile[0]))


def cantilever_report(info):
    """The [report] table of a cantilever scenario."""
    return {"rod": info.rod, "load": "tip", "damping": "damping"}
