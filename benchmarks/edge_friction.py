"""Cost of the edge contact's static excess (sm.EdgeContact with sm.IsotropicFriction(kinetic,
static); softmech.kernels.edge_contact), not collected by pytest.

    python benchmarks/edge_friction.py

One force + Jacobian evaluation of the EdgeContact binding (binding.forces) on the validation
scene's 14 candidate pairs (softmech.validation.discrete_rods.rod_across_two_rods, every node
moving at 1 mm/s), without a static excess (mu_s = mu_k = 0.3: the one-coefficient law) and
with one (mu_s = 0.5: each pair also records its slip speed and its nodes' normal forces),
alternating, best of 5 x 2,000 calls each, microseconds per evaluation.
"""
import time

import numpy as np

from softmech.validation.discrete_rods import rod_across_two_rods


def main():
    sim = rod_across_two_rods(0.5, 0.3).compile(dt=1e-3)
    binding = next(bd for bd in sim.stepper.bindings if bd.name == "edge_contact")
    q = sim.q[0].copy()
    v = np.full_like(q, 1e-3)
    binding.begin_step(0, q, 0.0)
    F, J = np.zeros_like(q), np.zeros(len(binding.rows))
    binding.forces(0, q, v, 0.0, 1e-3, F, J)           # compiled
    for static in (0.3, 0.5, 0.3, 0.5):
        sim.params["edge_contact.static"] = static
        best = np.inf
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(2000):
                binding.forces(0, q, v, 0.0, 1e-3, F, J)
            best = min(best, (time.perf_counter() - t0) / 2000)
        print(f"static {static}, kinetic 0.3: {len(binding.pair_dofs)} pairs, "
              f"{best * 1e6:.1f} us per evaluation")


if __name__ == "__main__":
    main()
