"""Registry of the validation cases of the Cosserat rod engine.

Each case is a function of no arguments returning a record

    {"case": str, "measured": float, "reference": float, "error": float, "tolerance": float,
     "passed": bool, "detail": str}

with `error` relative to the reference unless the case's docstring says otherwise (absolute for
reference 0 and for convergence orders). The formula, its source and the reason for the
tolerance are in each case's docstring (statics.py, dynamics.py, rings.py, contact.py).

Static cases (axial stretch, cantilevers, pre-curved return) reach equilibrium with a ramped load
and strong mass-proportional damping, run until the measured value changes by < 1e-8 (relative)
between chunks; see softmech.validation.statics.
"""
from softmech.validation.contact import (friction_axial_push, friction_slope_slide,
                                         friction_slope_stick, friction_standing_wave,
                                         wall_interpenetration, wall_normal_velocity,
                                         wall_rest_under_gravity, wall_tangential_velocity)
from softmech.validation.dynamics import (angular_momentum_conservation, cantilever_first_mode,
                                          dt_convergence_pefrl, dt_convergence_pefrl_axial,
                                          dt_convergence_verlet, dt_convergence_verlet_3d,
                                          energy_conservation_gazzola2018,
                                          energy_conservation_hyperelastic,
                                          energy_conservation_planar_hyperelastic,
                                          linear_momentum_conservation)
from softmech.validation.rings import ring_breathing_mode, ring_flexural_mode
from softmech.validation.statics import (axial_stretch_gazzola2018, axial_stretch_hyperelastic,
                                         precurved_rest, precurved_return, timoshenko_cantilever,
                                         timoshenko_convergence, timoshenko_euler_bernoulli,
                                         timoshenko_euler_bernoulli_small_load)

CASES = {f.__name__: f for f in (
    axial_stretch_gazzola2018,
    axial_stretch_hyperelastic,
    timoshenko_cantilever,
    timoshenko_euler_bernoulli,
    timoshenko_euler_bernoulli_small_load,
    timoshenko_convergence,
    precurved_rest,
    precurved_return,
    cantilever_first_mode,
    energy_conservation_hyperelastic,
    energy_conservation_planar_hyperelastic,
    energy_conservation_gazzola2018,
    linear_momentum_conservation,
    angular_momentum_conservation,
    dt_convergence_verlet,
    dt_convergence_verlet_3d,
    dt_convergence_pefrl,
    dt_convergence_pefrl_axial,
    ring_breathing_mode,
    ring_flexural_mode,
    wall_rest_under_gravity,
    wall_interpenetration,
    wall_tangential_velocity,
    wall_normal_velocity,
    friction_slope_stick,
    friction_slope_slide,
    friction_axial_push,
    friction_standing_wave,
)}
"""Case name -> function returning its record (see module docstring)."""

RECORD_KEYS = ("case", "measured", "reference", "error", "tolerance", "passed")
"""Keys of the machine-readable (JSON) form of a record."""


def run_case(name):
    """Run one case by name; ValueError naming the allowed names if it does not exist."""
    if name not in CASES:
        raise ValueError(f"case = {name!r} is not allowed: must be one of {', '.join(CASES)}")
    return CASES[name]()
