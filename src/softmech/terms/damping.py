"""Dissipation of rods.

LinearDamping (ME498 handout's gamma, Table 1-2): per unit length, force -gamma v dl on each node
(dl = rest length owned by the node) and couple -gamma_r w l^ on each element (local frame).
gamma has units kg m^-1 s^-1. For the couple to be a torque, gamma_r must have units kg m s^-1;
by default gamma_r = gamma I1 / A (= gamma r^2 / 4), which damps rotation of each element at the
same rate gamma / (rho A) as translation (mass-proportional damping). PyElastica's and the
snake's reference implementation use a rotational coefficient numerically equal to gamma:
pass rotational_coefficient explicitly to reproduce it.

KelvinVoigt: internal viscosity with retardation time tau [s]: n += tau S d(sigma)/dt and
m += tau B d(kappa)/dt (stiffness-proportional damping; Renda et al. 2018 use this form).
"""
import numpy as np

from softmech import _checks
from softmech.bodies.cosserat_rod import node_shares, section_properties
from softmech.integrators.driver import Call
from softmech.kernels.damping import LinearDampingArgs, linear_damping
from softmech.packing import Slots, to_blocks
from softmech.terms.base import Part, Term, rod_name

ORDER = 10
"""Place in the force pass: right after the rods' elasticity."""


class Dampers(Part):
    """All linear dampers of a scene in one kernel call: coefficients per node (gamma dl [kg/s])
    and per element (gamma_r l^ [N m s]) of every rod, (B, n) each, zero on undamped rods."""

    def __init__(self, ctx):
        super().__init__(ctx)
        B = ctx.worlds
        self.node = {r.name: np.zeros((B, r.n_nodes)) for r in ctx.rods}
        self.elem = {r.name: np.zeros((B, r.n_elems)) for r in ctx.rods}

    def calls(self, engine):
        def blocks(per_rod):
            return to_blocks(np.concatenate([Slots.with_ghost(r, per_rod[r.name]) for r in engine.rods],
                                            axis=1), engine.lanes)
        args = engine.args(LinearDampingArgs, node_damping=blocks(self.node),
                           elem_damping=blocks(self.elem))
        return [Call("forces", ORDER, linear_damping, args, "linear_damping")]


class LinearDamping(Term):
    """LinearDamping(rod, coefficient [kg/(m s)], rotational_coefficient=None [kg m/s])."""

    section = "damping"

    def __init__(self, rod, coefficient, *, rotational_coefficient=None, name="damping"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.coefficient = float(_checks.nonnegative(f"{name}.coefficient", coefficient, shape=()))
        self.rotational_coefficient = (None if rotational_coefficient is None else float(
            _checks.nonnegative(f"{name}.rotational_coefficient", rotational_coefficient, shape=())))

    def parameters(self):
        p = {"coefficient": np.array([self.coefficient])}
        if self.rotational_coefficient is not None:
            p["rotational_coefficient"] = np.array([self.rotational_coefficient])
        return p

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        gamma = p["coefficient"][:, None]
        dampers = ctx.part(Dampers)
        dampers.node[self.rod] += gamma * node_shares(rod.rest_lengths, rod.closed)
        if "rotational_coefficient" in p:
            gamma_r = p["rotational_coefficient"][:, None]
        else:
            area, inertia = section_properties(ctx.rod_params(self.rod)["radius"])
            gamma_r = gamma * inertia[..., 0] / area
        dampers.elem[self.rod] += gamma_r * rod.rest_lengths


class KelvinVoigt(Term):
    """KelvinVoigt(rod, retardation_time [s]) internal viscosity on stretch, shear, bend, twist."""

    section = "damping"

    def __init__(self, rod, retardation_time, *, name="kelvin_voigt"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.retardation_time = float(_checks.nonnegative(f"{name}.retardation_time", retardation_time, shape=()))

    def parameters(self):
        return {"retardation_time": np.array([self.retardation_time])}

    def contribute(self, ctx, p):
        ctx.rod(self.rod, self.name)
        ctx.kv_tau[self.rod] += p["retardation_time"][:, None]
