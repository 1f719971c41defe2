"""An assembly: a soft rod pendulum hanging from a fixed rigid sphere (spherical joint) with a
rigid cylinder welded to its free end (fixed joint), swinging under gravity.

Run: python examples/rod_pendulum.py   (writes rod_pendulum.png; about 20 s the first time,
while the kernels compile, then a few seconds)
"""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import softmech as sm  # noqa: E402

L = 0.4                                     # rod length [m]
angle = math.radians(30.0)                  # released from 30 degrees
down = np.array([math.sin(angle), 0.0, -math.cos(angle)])

scene = sm.Scene()
anchor = scene.add_sphere(name="anchor", position=(0, 0, 0.05), radius=0.05, density=7800.0,
                          fixed=True)
rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=down, normal=(0, 1, 0),
                             length=L, n_elems=20, radius=0.005, density=1000.0,
                             youngs_modulus=1e7)
bob = scene.add_cylinder(name="bob", position=(L + 0.02) * down, direction=down, normal=(0, 1, 0),
                         radius=0.03, length=0.04, density=2700.0)
scene.add(sm.Gravity())
# the rod's first node rides on the sphere's lowest point; the bob is welded to the rod's end
scene.add(sm.SphericalJoint((rod, "first"), (anchor, (0, 0, -0.05)), stiffness=1e5))
scene.add(sm.FixedJoint((rod, "last"), (bob, "attach"), stiffness=1e5, rotational_stiffness=2.0,
                        rotational_damping=1e-4))
scene.add(sm.LinearDamping(rod, 1e-3))

sim = scene.compile(dt=2e-5)
out = sim.run(2.0, record=sm.Every(0.01, ("com", "positions")), progress=True)

path = out["bob.com"][0]
period = 2 * math.pi * math.sqrt((L + 0.02) / 9.81)
print(f"bob swings between x = {path[:, 0].min():+.3f} m and {path[:, 0].max():+.3f} m "
      f"(simple-pendulum period estimate {period:.2f} s)")
fig, ax = plt.subplots(figsize=(5, 4))
ax.plot(path[:, 0], path[:, 2], label="bob centre")
for i in range(0, len(out["time"]), 25):
    ax.plot(*out["rod.positions"][0, i][:, [0, 2]].T, color="0.6", lw=0.8)
ax.set_aspect("equal")
ax.set_xlabel("x [m]")
ax.set_ylabel("z [m]")
ax.legend()
fig.savefig("rod_pendulum.png", dpi=120)
