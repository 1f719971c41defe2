"""Helpers shared by the validation cases: result records, stable time steps, settling to a static
equilibrium, rigid alignment of point sets.

A case returns the record built by `result`: {"case", "measured", "reference", "error",
"tolerance", "passed", "detail"} with plain Python floats, so that it can be written as JSON.
"""
import math

import numpy as np

import softmech as sm


def result(case, measured, reference, error, tolerance, detail, passed=None):
    """A validation record; `passed` defaults to error <= tolerance (False if anything is NaN)."""
    measured, reference, error, tolerance = (float(v) for v in (measured, reference, error, tolerance))
    if passed is None:
        passed = error <= tolerance
    finite = all(math.isfinite(v) for v in (measured, reference, error, tolerance))
    return {"case": case, "measured": measured, "reference": reference, "error": error,
            "tolerance": tolerance, "passed": bool(passed and finite), "detail": detail}


def validation_case(quantity, source, *, fast=False):
    """Decorator of a validation case function of the model groups (softmech.validation.registry):
    records what it measures (`quantity`, with its unit), where its reference comes from
    (`source`) for the report page, and whether it belongs to `softmech validate --fast`
    (`fast`: a few seconds once compiled)."""
    def mark(function):
        function.quantity, function.source, function.fast = quantity, source, bool(fast)
        return function
    return mark


def rel_error(measured, reference):
    """|measured - reference| / |reference| [-]."""
    return abs(float(measured) - float(reference)) / abs(float(reference))


def section(radius):
    """Area A [m^2] and second moment I = pi r^4 / 4 [m^4] of a solid circle of radius [m]."""
    area = math.pi * radius**2
    return area, area * radius**2 / 4.0


def compile_stable(scene, fraction, scheme="verlet"):
    """Compile `scene` with dt = fraction * (estimated stability limit) [s]; returns the Simulation.

    fraction < 1 keeps the run below the limit of softmech.stability (the limit itself has a
    safety factor of 0.9)."""
    limit = float(scene.time_step_limit().min())
    return scene.compile(dt=fraction * limit, scheme=scheme, strict=True)


def compile_dt(scene, dt, scheme="verlet"):
    """Compile with an exact dt [s], refusing a dt above the stability estimate."""
    return scene.compile(dt=dt, scheme=scheme, strict=True)


def damping_for(omega1, rho_a):
    """Translational damping coefficient gamma [kg/(m s)] that critically damps a mode of angular
    frequency omega1 [rad/s] under mass-proportional damping (c = gamma / (rho A) = 2 omega1).

    With mass-proportional damping every underdamped mode decays at the rate c / 2 = omega1, and
    the critically damped first mode at omega1 too: the fastest uniform approach to equilibrium."""
    return 2.0 * omega1 * rho_a


def settle(sim, probe, *, min_time, max_time, chunk, rtol):
    """Run `sim` in chunks of `chunk` [s] until the scalar `probe(sim)` changes by less than
    rtol * |probe| between chunks (after at least min_time [s]); at most max_time [s].

    Returns (value, converged, last_change) with last_change the last relative change [-]."""
    sim.run(min_time)
    value = probe(sim)
    change = math.inf
    while sim.time < max_time - 0.5 * chunk:
        sim.run(chunk)
        new = probe(sim)
        change = abs(new - value) / max(abs(new), 1e-300)
        value = new
        if change < rtol:
            return value, True, change
    return value, False, change


def kabsch_rmsd(points, reference):
    """Largest distance [m] between `points` (N, 3) and `reference` (N, 3) after the best rigid
    alignment (Kabsch 1976: optimal rotation from the SVD of the covariance matrix)."""
    p = points - points.mean(axis=0)
    q = reference - reference.mean(axis=0)
    u, _, vt = np.linalg.svd(p.T @ q)
    d = np.sign(np.linalg.det(u @ vt))
    rot = u @ np.diag([1.0, 1.0, d]) @ vt
    return float(np.max(np.linalg.norm(p @ rot - q, axis=1)))


def straight_rod(scene, *, n_elems, length, radius, density, youngs_modulus, shear_modulus,
                 law="gazzola2018", shear_coefficient=4.0 / 3.0, name="rod", **extra):
    """A straight rod from the origin along +x with d1 = +y [m, kg/m^3, Pa]."""
    return scene.add_cosserat_rod(name=name, start=(0.0, 0.0, 0.0), direction=(1.0, 0.0, 0.0),
                                  normal=(0.0, 1.0, 0.0), length=length, n_elems=n_elems,
                                  radius=radius, density=density, youngs_modulus=youngs_modulus,
                                  shear_modulus=shear_modulus, shear_coefficient=shear_coefficient,
                                  law=law, **extra)


def arc_centerline(radius, angle, n_elems):
    """Nodes (n + 1, 3) [m] on a circular arc of `radius` [m] spanning `angle` [rad] in the x-y
    plane, starting at the origin tangent to +x and turning towards +y."""
    theta = np.linspace(0.0, angle, n_elems + 1)
    return np.stack([radius * np.sin(theta), radius * (1.0 - np.cos(theta)),
                     np.zeros_like(theta)], axis=1)


__all__ = ["result", "validation_case", "rel_error", "section", "compile_stable", "compile_dt", "damping_for",
           "settle", "kabsch_rmsd", "straight_rod", "arc_centerline", "sm"]
