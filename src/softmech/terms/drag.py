"""Viscous (resistive-force) drag on a rod; kernel and equation: softmech.kernels.drag.

    ViscousDrag(rod, normal=..., tangential=None)     # [N s/m^2]; tangential defaults to normal

Per-world parameters `<name>.normal` and `<name>.tangential`, shape (B,).

    SlenderBodyDrag(rod, viscosity=1e-3, form="spheroid")          # [Pa s]

is the same kernel with c_t, c_n derived from the fluid's dynamic viscosity and the rod's aspect
ratio L / r (Stokes flow, slender-body theory; see `slender_body_coefficients`). On a discrete
elastic rod (the implicit integrator) SlenderBodyDrag gives the same local drag as consistent
nodal forces with their Jacobian (softmech.kernels.implicit_drag).
"""
import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.integrators.driver import Call
from softmech.kernels.drag import ViscousDragArgs, viscous_drag
from softmech.kernels.implicit_drag import slender_drag_forces
from softmech.terms.base import Part, Term, rod_name

ORDER = 15
"""Place in the force pass: after damping, before point loads (it only adds)."""


class ViscousDrag(Term):
    """Drag force per unit length -c_t v_parallel - c_n v_perpendicular on a rod's elements."""

    section = "damping"

    def __init__(self, rod, normal, *, tangential=None, name="drag"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.normal = float(_checks.nonnegative(f"{name}.normal", normal, shape=()))
        self.tangential = self.normal if tangential is None else float(
            _checks.nonnegative(f"{name}.tangential", tangential, shape=()))

    def parameters(self):
        return {"normal": np.array([self.normal]), "tangential": np.array([self.tangential])}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        for key in ("normal", "tangential"):
            if np.any(p[key] < 0):
                raise ValueError(f"params['{self.name}.{key}'] has entries < 0 (must be >= 0)")
        zero = np.zeros((len(p["normal"]), rod.n_elems))
        coeff = np.stack([p["tangential"][:, None] * rod.rest_lengths,
                          p["normal"][:, None] * rod.rest_lengths, zero, zero], axis=-1)
        ctx.part(ViscousDragPart).entries.append((ctx.rod_index[self.rod], coeff))


SLENDER_BODY_FORMS = ("spheroid", "gazzola2018")


def slender_body_coefficients(viscosity, aspect_ratio, form="spheroid"):
    """Drag coefficients per unit length (c_t, c_n) [N s/m^2] of slender-body theory for a rod of
    length L and radius r in a fluid of dynamic viscosity mu [Pa s], with eps = ln(L / r):

      form="spheroid":    c_t = 2 pi mu / (eps - 1/2),   c_n = 4 pi mu / (eps + 1/2)
      form="gazzola2018": c_t = 2 pi mu / eps,           c_n = 4 pi mu / eps

    "spheroid" keeps the O(1) terms of the slender-body expansion (Batchelor, J. Fluid Mech.
    44:419, 1970; Lighthill, Mathematical Biofluiddynamics, SIAM 1975): with them, uniform
    coefficients reproduce the exact Stokes drag of a prolate spheroid of length L and equatorial
    radius r (Oberbeck 1876; Chwang & Wu, J. Fluid Mech. 67:787, 1975) to O(r^2 / L^2), and
    c_n / c_t = 2 (eps - 1/2) / (eps + 1/2) tends to 2 as L / r grows. "gazzola2018" is the
    leading-order form of Gazzola et al., R. Soc. Open Sci. 5:171628 (2018), eq. 4.13 (c_n = 2 c_t
    at every aspect ratio). viscosity and aspect_ratio broadcast (any shapes)."""
    eps = np.log(np.asarray(aspect_ratio, dtype=float))
    shift = 0.5 if form == "spheroid" else 0.0
    mu = np.asarray(viscosity, dtype=float)
    return 2.0 * np.pi * mu / (eps - shift), 4.0 * np.pi * mu / (eps + shift)


MIN_ASPECT_RATIO = 10.0
"""Smallest L / r accepted by SlenderBodyDrag: below it the expansion in 1 / ln(L / r) is
meaningless (at L / r = 10 the O(1) terms already change c_t by 28 %)."""


class SlenderBodyDrag(Term):
    """Stokes drag of a slender rod: ViscousDrag with c_t, c_n from slender-body theory
    (`slender_body_coefficients`), aspect ratio L / r_e per element (L the rod's rest length,
    r_e the element's radius, so a tapered rod gets local coefficients), and the couples that
    resist each element's own rotation (softmech.kernels.drag: c_n l^^3 / 12 about d1, d2,
    4 pi mu r^2 l^ about d3): without them the elements' rotation against shear, the fastest
    mode of a thin rod, would ring undamped.

    SlenderBodyDrag(rod, viscosity [Pa s], form="spheroid" | "gazzola2018")
    Per-world parameter `<name>.viscosity`, shape (B,)."""

    section = "damping"

    def __init__(self, rod, viscosity=1e-3, *, form="spheroid", name="slender_body_drag"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.viscosity = float(_checks.positive(f"{name}.viscosity", viscosity, shape=()))
        self.form = _checks.choice(f"{name}.form", form, set(SLENDER_BODY_FORMS))

    def parameters(self):
        return {"viscosity": np.array([self.viscosity])}

    def coefficients(self, viscosity, length, radius):
        """(c_t, c_n) [N s/m^2] per element for viscosity (B, 1) [Pa s], the rod's length L [m]
        and element radii (B or 1, n_elems) [m]; checks both."""
        if np.any(viscosity <= 0):
            raise ValueError(f"params['{self.name}.viscosity'] has entries <= 0 (must be > 0)")
        aspect = length / radius
        if np.any(aspect < MIN_ASPECT_RATIO):
            raise ValueError(f"{self.name}: rod {self.rod!r} has length / radius = "
                             f"{aspect.min():.3g}, not allowed: slender-body theory needs >= "
                             f"{MIN_ASPECT_RATIO:g}")
        return slender_body_coefficients(viscosity, aspect, self.form)

    def contribute(self, ctx, p):
        der = ctx.der_index.get(self.rod)
        if der is not None:
            return self.contribute_discrete(ctx, p, der)
        rod = ctx.rod(self.rod, self.name)
        c_t, c_n = self.coefficients(p["viscosity"][:, None], rod.length,
                                     ctx.rod_params(self.rod)["radius"])
        l = rod.rest_lengths
        spin = 4.0 * np.pi * p["viscosity"][:, None] * ctx.rod_params(self.rod)["radius"] ** 2
        coeff = np.stack([c_t * l, c_n * l, c_n * l**3 / 12.0, spin * l], axis=-1)  # kernels.drag
        ctx.part(ViscousDragPart).entries.append((ctx.rod_index[self.rod], coeff))

    def contribute_discrete(self, ctx, p, rod):
        """A discrete rod in the unified engine (softmech.terms.der_loads.DerSlenderDrags): the
        discrete engine's consistent nodal drag and spin drag, per world (L = the sum of the
        rod's rest lengths, as bind_implicit)."""
        from softmech.terms.der_loads import DerSlenderDrags
        mu = p["viscosity"][:, None]
        c_t, c_n = self.coefficients(mu, float(rod.rest_lengths.sum()), rod.radius[None])
        spin = 4.0 * np.pi * mu * rod.radius ** 2 * rod.rest_lengths
        ctx.part(DerSlenderDrags).add(rod, c_t, c_n, spin)

    def bind_implicit(self, ctx):
        """A discrete elastic rod: consistent nodal drag per edge (L = the sum of its rest
        lengths) and the spin drag on its twist angles (softmech.kernels.implicit_drag)."""
        rod = ctx.body(self.name, self.rod)
        if getattr(rod, "kind", None) != "der_rod":
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: slender-body drag "
                             f"acts on rods ({rod.name!r} is a {rod.kind})")
        return [_SlenderDragBinding(self, rod, ctx)]


class _SlenderDragBinding(Binding):
    """SlenderBodyDrag on a discrete rod; coefficients recomputed when the world's viscosity
    (per-world parameter) differs from the last call's."""

    def __init__(self, term, rod, ctx):
        self.name = term.name
        self.term = term
        self.edge_dofs, self.twist_dofs, _ = rod.dofs(ctx.layout)
        self.rest_len = rod.rest_lengths
        self.length = float(rod.rest_lengths.sum())
        self.radius = rod.radius
        self.mu = ctx.params[f"{term.name}.viscosity"]
        n6 = np.repeat(self.edge_dofs, 6, axis=1).reshape(-1)
        self.rows = np.concatenate([n6, self.twist_dofs]).astype(np.int64)
        self.cols = np.concatenate([np.tile(self.edge_dofs, (1, 6)).reshape(-1),
                                    self.twist_dofs]).astype(np.int64)
        self._mu = None

    def _coefficients(self, b):
        mu = float(self.mu[b])
        if mu != self._mu:
            c_t, c_n = self.term.coefficients(np.array([[mu]]), self.length, self.radius[None])
            self._c = (np.ascontiguousarray(c_t[0]), np.ascontiguousarray(c_n[0]),
                       4.0 * np.pi * mu * self.radius ** 2 * self.rest_len)
            self._mu = mu
        return self._c

    def forces(self, b, q, v, t, h, F, J):
        c_t, c_n, spin = self._coefficients(b)
        inv_h = 0.0 if np.isinf(h) else 1.0 / h
        slender_drag_forces(q, v, self.edge_dofs, self.twist_dofs, self.rest_len, c_t, c_n,
                            spin, inv_h, F, J)


class ViscousDragPart(Part):
    """All ViscousDrag terms of a scene in one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def calls(self, engine):
        n_e = engine.slots.n_elems * engine.lanes.W
        layer, coeff = engine.elem_layers(self.entries, 4)
        args = engine.args(ViscousDragArgs,
                           drag_rod=np.array([e[0] for e in self.entries], dtype=np.int64),
                           drag_layer=layer, drag_coeff=coeff,
                           drag_force=engine.zeros(3, n_e))
        return [Call("forces", ORDER, viscous_drag, args, "viscous_drag")]
