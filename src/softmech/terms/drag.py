"""Viscous (resistive-force) drag on a rod; kernel and equation: softmech.kernels.drag.

    ViscousDrag(rod, normal=..., tangential=None)     # [N s/m^2]; tangential defaults to normal

Per-world parameters `<name>.normal` and `<name>.tangential`, shape (B,). For a slender rod in
Stokes flow, slender-body theory gives c_n ~ 2 c_t (Lighthill 1975); the caller chooses them
(e.g. from the fluid viscosity and the rod's aspect ratio).
"""
import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.drag import ViscousDragArgs, viscous_drag
from softmech.terms.base import Part, Term, rod_name

ORDER = 15
"""Place in the force pass: after damping, before point loads (it only adds)."""


class ViscousDrag(Term):
    """Drag force per unit length -c_t v_parallel - c_n v_perpendicular on a rod's elements."""

    section = "damping"

    def __init__(self, rod, normal, *, tangential=None, name="drag"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.normal = float(_checks.nonnegative(f"{name}.normal", normal))
        self.tangential = self.normal if tangential is None else float(
            _checks.nonnegative(f"{name}.tangential", tangential))

    def parameters(self):
        return {"normal": np.array([self.normal]), "tangential": np.array([self.tangential])}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        for key in ("normal", "tangential"):
            if np.any(p[key] < 0):
                raise ValueError(f"params['{self.name}.{key}'] has entries < 0 (must be >= 0)")
        coeff = np.stack([p["tangential"][:, None] * rod.rest_lengths,
                          p["normal"][:, None] * rod.rest_lengths], axis=-1)   # (B, n_elems, 2)
        ctx.part(ViscousDragPart).entries.append((ctx.rod_index[self.rod], coeff))


class ViscousDragPart(Part):
    """All ViscousDrag terms of a scene in one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def calls(self, engine):
        n_e = engine.slots.n_elems * engine.lanes.W
        args = engine.args(ViscousDragArgs,
                           drag_rod=np.array([e[0] for e in self.entries], dtype=np.int64),
                           drag_coeff=engine.elem_table(self.entries, 2),
                           drag_force=engine.zeros(3, n_e))
        return [Call("forces", ORDER, viscous_drag, args, "viscous_drag")]
