"""Three soft bending actuators as discrete elastic rods (after MAT-DiSMech's PneuNet, ref. 004
sec. 7.1): the same rod, clamped at one end, with three natural curvatures (the "pressure"),
ramped up in 0.5 s, under gravity and a 0.05 N downward tip load; one batched simulation of
three worlds (per-world natural curvature), implicit Euler at dt = 10 ms, then a static solve.

Run: python examples/der_pneunet.py   (a few seconds; writes output/der_pneunet.png)
"""
import os

import numpy as np

import softmech as sm
from softmech.implicit.newton import NewtonOptions

L, r, n = 0.1, 5e-3, 20                          # length [m], radius [m], edges
E, rho = 1e6, 1200.0                             # Young's modulus [Pa], density [kg/m^3]
curvatures = np.array([0.0, 20.0, 40.0])         # natural curvature per world [1/m]

l = L / (n + 0.5)                                # clamp at mid-edge 0 (docs/discrete_rods.md)
centerline = np.zeros((n + 2, 3))
centerline[:, 0] = (np.arange(n + 2) - 0.5) * l
springs = n                                      # one bending-twisting spring per inner node


def pressure(t):
    """Natural curvature (3 worlds, springs, 2) [1/m] at time t [s]: a 0.5 s ramp about m1,
    bending the rod upwards (+z) against the load."""
    kappa = np.zeros((3, springs, 2))
    kappa[:, :, 1] = min(t / 0.5, 1.0) * curvatures[:, None]
    return kappa


scene = sm.Scene()
rod = scene.add_der_rod(name="actuator", centerline=centerline, normal=(0, 1, 0), radius=r,
                        density=rho, youngs_modulus=E, natural_curvature=pressure)
scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0]))
scene.add(sm.Gravity((0.0, 0.0, -9.81)))
scene.add(sm.NodeForce(rod, n + 1, (0.0, 0.0, -0.05), name="tip_load"))
sim = scene.compile(worlds=3, dt=1e-2, newton=NewtonOptions(line_search=False))
out = sim.run(1.0, record=sm.Every(0.1, ("actuator.positions",)))
sim.solve_static()
shapes = sim.get_state("actuator")["positions"]  # (3, n_nodes, 3) [m]
print(f"{sim.newton_stats.iterations / max(sim.newton_stats.steps, 1):.1f} Newton iterations "
      f"per step")
for kappa, shape in zip(curvatures, shapes):
    print(f"natural curvature {kappa:4.0f} 1/m: tip at x = {shape[-1, 0]:+.4f} m, "
          f"z = {shape[-1, 2]:+.4f} m")

if __name__ == "__main__":
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 4))
    for kappa, shape in zip(curvatures, shapes):
        ax.plot(shape[:, 0], shape[:, 2], "o-", ms=2, label=f"natural curvature {kappa:g} 1/m")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("z [m]")
    ax.set_aspect("equal")
    ax.legend(fontsize=8)
    os.makedirs("output", exist_ok=True)
    fig.savefig("output/der_pneunet.png", dpi=120, bbox_inches="tight")
    print("wrote output/der_pneunet.png")
