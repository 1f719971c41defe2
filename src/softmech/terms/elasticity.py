"""Elasticity of Cosserat rods: the rod body kind's own force term (kernel and equations:
softmech.kernels.cosserat_forces). Every rod has it; it runs first in the force pass and
initialises the force and couple accumulators."""
from softmech.integrators.driver import Call
import numpy as np

from softmech.kernels.cosserat_forces import (ELEM_INV_REST_LEN, ELEM_KV_TAU, ELEM_S,
                                              ELEM_SIGMA0, N_ELEM_MATERIAL, N_VOR_MATERIAL,
                                              VARIANTS, VOR_B, VOR_INV_REST_LEN, VOR_KAPPA0,
                                              VOR_KV_TAU, VOR_REST_LEN, RodElasticityArgs)
from softmech.terms.base import Part

ORDER = 0
"""First in the force pass: it overwrites the accumulators (no zeroing pass needed)."""


class RodElasticity(Part):
    """Stretch, shear, bend and twist of every rod (Gazzola et al. 2018), with Kelvin-Voigt
    viscosity where a KelvinVoigt term set a retardation time. Scratch per element slot: internal
    force Q^T n (lab) and couples (local) [N], [N m]; per Voronoi slot: moment m, phi x m / 2 and
    the exact log-Jacobian term [N m]."""

    def calls(self, engine):
        """One call per law variant the rods use (softmech.kernels.cosserat_forces.VARIANTS:
        exact log-map Jacobian, Kelvin-Voigt), each over its rods; the rods' slots are disjoint,
        so the grouping does not change any result."""
        W, s = engine.lanes.W, engine.slots
        n_vor = max(s.n_vor, 0) * W
        scratch = dict(elem_n=engine.zeros(3, s.n_elems * W), elem_tau=engine.zeros(3, s.n_elems * W),
                       vor_m=engine.zeros(3, n_vor), vor_h=engine.zeros(3, n_vor),
                       vor_g=engine.zeros(3, n_vor))
        material = self.material(engine.bodies)
        law = engine.bodies.rod_law
        variants = [(bool(row[2] > 0), bool(row[3] > 0)) for row in law]
        calls = []
        for variant in dict.fromkeys(variants):  # first-use order
            rods = np.array([i for i, v in enumerate(variants) if v == variant], dtype=np.int64)
            args = engine.args(RodElasticityArgs, elastic_rods=rods, **material, **scratch)
            calls.append(Call("forces", ORDER, VARIANTS[variant], args, "rod_elasticity"))
        return calls

    @staticmethod
    def material(bodies):
        """elem_material and vor_material: the rods' elastic parameters as rows of two arrays."""
        nb = bodies.elem_S.shape[0]
        elem = np.empty((nb, N_ELEM_MATERIAL, bodies.elem_S.shape[2]))
        elem[:, ELEM_S:ELEM_S + 3] = bodies.elem_S
        elem[:, ELEM_SIGMA0:ELEM_SIGMA0 + 3] = bodies.elem_rest_sigma
        elem[:, ELEM_INV_REST_LEN] = bodies.elem_inv_rest_len
        elem[:, ELEM_KV_TAU] = bodies.elem_kv_tau
        vor = np.empty((nb, N_VOR_MATERIAL, bodies.vor_B.shape[2]))
        vor[:, VOR_B:VOR_B + 3] = bodies.vor_B
        vor[:, VOR_KAPPA0:VOR_KAPPA0 + 3] = bodies.vor_rest_kappa
        vor[:, VOR_REST_LEN] = bodies.vor_rest_len
        vor[:, VOR_INV_REST_LEN] = bodies.vor_inv_rest_len
        vor[:, VOR_KV_TAU] = bodies.vor_kv_tau
        return {"elem_material": elem, "vor_material": vor}
