"""Elasticity of Cosserat rods: the rod body kind's own force term (kernel and equations:
softmech.kernels.cosserat_forces). Every rod has it; it runs first in the force pass and
initialises the force and couple accumulators."""
from softmech.integrators.driver import Call
from softmech.kernels.cosserat_forces import RodElasticityArgs, rod_elasticity
from softmech.terms.base import Part

ORDER = 0
"""First in the force pass: it overwrites the accumulators (no zeroing pass needed)."""


class RodElasticity(Part):
    """Stretch, shear, bend and twist of every rod (Gazzola et al. 2018), with Kelvin-Voigt
    viscosity where a KelvinVoigt term set a retardation time. Scratch per element slot: internal
    force Q^T n (lab) and couples (local) [N], [N m]; per Voronoi slot: moment m, phi x m / 2 and
    the exact log-Jacobian term [N m]."""

    def calls(self, engine):
        W, s = engine.lanes.W, engine.slots
        n_vor = max(s.n_vor, 0) * W
        args = engine.args(
            RodElasticityArgs,
            elem_n=engine.zeros(3, s.n_elems * W), elem_tau=engine.zeros(3, s.n_elems * W),
            vor_m=engine.zeros(3, n_vor), vor_h=engine.zeros(3, n_vor), vor_g=engine.zeros(3, n_vor))
        return [Call("forces", ORDER, rod_elasticity, args, "rod_elasticity")]
