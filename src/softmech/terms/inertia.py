"""Rotary-inertia scaling: a numerical device for thin rods whose explicit time step is limited
by the rotation of their elements against shear.

    RotaryInertiaScaling(rod, factor=100)        # J = factor x rho I l^ on every element

softmech.stability: an element's rotation restrained by shear has omega^2 = 2 S l^ / J =
8 alpha G / (rho r^2), so the stable dt of a rod of radius r is ~ r sqrt(rho / (2 alpha G))
whatever its element length: ~1e-7 s for the 7 um tail of the bio-hybrid swimmer. Scaling the
rotary inertia J by k raises that limit by sqrt(k), until the next mode (stretch, dt ~ l^ /
sqrt(E / rho)) limits. Statics and the translational inertia do not change; the dynamics
change by the rotary-inertia (Rayleigh) correction, relative ~ k (r / lambda)^2 for bending
waves of length lambda -- negligible for slender rods at low frequency (the swimmer: measured
in docs/swimmer.md). The scaled J is the rod's inertia everywhere: the kick, the stability
estimate and the diagnostics' rotational energy. Per-world parameter `<name>.factor` (B,).
"""
import numpy as np

from softmech import _checks
from softmech.terms.base import Term, rod_name


class RotaryInertiaScaling(Term):
    """Multiply a rod's rotary inertia rho I l^ by factor >= 1 (module docstring)."""

    section = "environment"
    modifies_bodies = True

    def __init__(self, rod, factor, *, name="rotary_inertia_scaling"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.factor = float(_checks.finite(f"{name}.factor", factor, shape=()))
        if self.factor < 1.0:
            raise ValueError(f"{name}.factor = {factor!r} is not allowed: must be >= 1")

    def parameters(self):
        return {"factor": np.array([self.factor])}

    def contribute(self, ctx, p):
        ctx.rod(self.rod, self.name)
        if np.any(p["factor"] < 1.0):
            raise ValueError(f"params['{self.name}.factor'] has entries < 1 (must be >= 1)")
        d = ctx.discrete[self.rod]
        d["elem_J"] = d["elem_J"] * p["factor"][:, None, None]
