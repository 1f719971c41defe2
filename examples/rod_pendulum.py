"""An assembly: a soft rod pendulum hanging from a fixed rigid sphere (spherical joint), with a
rigid ball welded to its free end (fixed joint), swings under gravity into a second rod -- a
soft post clamped upright in its path -- and bounces off it (rod-body contact).

Run: python examples/rod_pendulum.py   (writes rod_pendulum.png; about a minute the first time,
while the kernels compile, then a few seconds)
"""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import softmech as sm  # noqa: E402

L, R = 0.4, 0.03                            # pendulum rod length, ball radius [m]
angle = math.radians(30.0)                  # released from 30 degrees
down = np.array([math.sin(angle), 0.0, -math.cos(angle)])

scene = sm.Scene()
anchor = scene.add_sphere(name="anchor", position=(0, 0, 0.05), radius=0.05, density=7800.0,
                          fixed=True)
rod = scene.add_cosserat_rod(name="rod", start=(0, 0, 0), direction=down, normal=(0, 1, 0),
                             length=L, n_elems=20, radius=0.005, density=1000.0,
                             youngs_modulus=1e7)
ball = scene.add_sphere(name="ball", position=(L + R) * down, radius=R, density=2700.0)
# the post: a soft rod standing in the ball's path, just left of the lowest point of the swing
post = scene.add_cosserat_rod(name="post", start=(-R - 0.012, 0, -0.6), direction=(0, 0, 1),
                              normal=(1, 0, 0), length=0.25, n_elems=25, radius=0.01,
                              density=1000.0, youngs_modulus=3e7)
scene.add(sm.Gravity())
# the rod's first node rides on the anchor's lowest point; the ball is welded to the rod's end
scene.add(sm.SphericalJoint((rod, "first"), (anchor, (0, 0, -0.05)), stiffness=1e5))
scene.add(sm.FixedJoint((rod, "last"), (ball, "attach"), stiffness=1e5, rotational_stiffness=2.0,
                        rotational_damping=1e-4))
scene.add(sm.Clamp(post, "first"))
scene.add(sm.RodBodyContact([post], [ball], stiffness=2e4, damping=1.0))
scene.add(sm.RodContact([rod, post], stiffness=2e4, damping=1.0))
scene.add(sm.LinearDamping(rod, 1e-3))
scene.add(sm.LinearDamping(post, 0.05, name="post_damping"))

sim = scene.compile(dt=2e-5)
out = sim.run(1.5, record=sm.Every(0.005, ("com", "com_velocity", "positions")), progress=True)

path, speed = out["ball.com"][0], out["ball.com_velocity"][0, :, 0]
hit = int(np.argmin(speed))                 # fastest towards -x: just before the impact
tip = out["post.positions"][0, :, -1, 0] - out["post.positions"][0, 0, -1, 0]
print(f"ball reaches {speed[hit]:+.3f} m/s at t = {out['time'][hit]:.3f} s, hits the post and "
      f"comes back at up to {speed[hit:].max():+.3f} m/s; the post's tip moves "
      f"{tip.min() * 1e3:.1f} mm")
fig, ax = plt.subplots(figsize=(5, 5))
ax.plot(path[:, 0], path[:, 2], label="ball centre")
for i in range(0, len(out["time"]), 30):
    ax.plot(*out["rod.positions"][0, i][:, [0, 2]].T, color="0.6", lw=0.8)
    ax.plot(*out["post.positions"][0, i][:, [0, 2]].T, color="C3", lw=0.8)
ax.set_aspect("equal")
ax.set_xlabel("x [m]")
ax.set_ylabel("z [m]")
ax.legend()
fig.savefig("rod_pendulum.png", dpi=120)
