"""Coulomb friction that sticks, for every contact kind (softmech.kernels.sticking: the law;
docs/contact.md#friction-that-sticks).

    StickingFriction(static, kinetic, *, tangential_stiffness, tangential_damping=0.0)

Accepted by RodContact (rod-rod and self contact), RodBodyContact (rods against rigid spheres,
cylinders and boxes) and GroundContact on a Cosserat rod or a rigid body; the regularized law (sm.CoulombFriction,
sm.IsotropicFriction) stays the default of every contact. Per-world parameters, beside the
contact's own: `<name>.static`, `<name>.kinetic` (the names of every contact kind),
`<name>.tangential_stiffness` [N/m], `<name>.tangential_damping` [N s/m]
(docs/contact.md#friction-models-and-contact-kinds).
"""
from dataclasses import dataclass

import numpy as np

from softmech import _checks


@dataclass(frozen=True)
class StickingFriction:
    """Amontons-Coulomb friction with a stick spring per contact: static and kinetic
    coefficients mu_s >= mu_k >= 0 [-]; tangential_stiffness k_t [N/m] > 0 of the spring that
    ties a contact point to its anchor on the other surface while it sticks (choose it like the
    normal stiffness: the stick displacement is at most mu_s F_n / k_t, and dt must resolve
    sqrt(m / k_t)); tangential_damping c_t [N s/m] >= 0 on the slip velocity while sticking.
    Held below the friction cone a contact does not creep; beyond it, it slides with
    mu_k F_n (softmech.kernels.sticking)."""
    static: float
    kinetic: float
    tangential_stiffness: float
    tangential_damping: float = 0.0

    def __post_init__(self):
        _checks.nonnegative("friction.static", self.static, shape=())
        _checks.nonnegative("friction.kinetic", self.kinetic, shape=())
        if self.kinetic > self.static:
            raise ValueError(f"friction.kinetic = {self.kinetic!r} is not allowed: must be <= "
                             f"friction.static = {self.static!r} (a sliding contact carries no "
                             "more than a sticking one)")
        _checks.positive("friction.tangential_stiffness", self.tangential_stiffness, shape=())
        _checks.nonnegative("friction.tangential_damping", self.tangential_damping, shape=())


STICK_FIELDS = ("tangential_stiffness", "tangential_damping")
"""Per-world parameters a contact with StickingFriction adds to its own."""


def sticking_rows(name, p):
    """The sticking kernels' rows (B, N_STICK_PARAMS) from the per-world parameters p of term
    `name`: its stiffness, damping, static, kinetic, tangential_stiffness and
    tangential_damping; checked (> 0 stiffnesses, >= 0 the rest, mu_k <= mu_s), ValueError
    naming the parameter."""
    static, kinetic = "static", "kinetic"
    for key in ("stiffness", "tangential_stiffness"):
        if np.any(p[key] <= 0):
            raise ValueError(f"params['{name}.{key}'] has entries <= 0 (must be > 0)")
    for key in ("damping", static, kinetic, "tangential_damping"):
        if np.any(p[key] < 0):
            raise ValueError(f"params['{name}.{key}'] has entries < 0 (must be >= 0)")
    rows = np.broadcast_arrays(p["stiffness"], p["damping"], p[static], p[kinetic],
                               p["tangential_stiffness"], p["tangential_damping"])
    rows = np.stack(rows, axis=1)
    if np.any(rows[:, 3] > rows[:, 2]):
        raise ValueError(f"params['{name}.{kinetic}'] exceeds params['{name}.{static}'] "
                         "(must be <= it)")
    return rows
