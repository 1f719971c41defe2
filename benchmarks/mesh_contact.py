"""Cost of rod contact with a triangle mesh (sm.RodBodyContact on a fixed mesh body,
softmech.kernels.rod_mesh_contact), not collected by pytest.

    python benchmarks/mesh_contact.py

A rod (L = 0.5 m, 50 elements, r = 5 mm) lying on a fixed terrain: a height field z = A sin(2 pi
x / 0.4) sin(2 pi y / 0.4) (A = 2 mm) on a square of side S triangulated by a regular n x n grid
(2 n^2 triangles), under gravity, k = 1e4 N/m, damping 1 kg/s, friction mu = 0.5. Cases:
about 1,000 and 20,000 triangles on the same 1 m square (finer triangles: 20k makes them
~0.7 cm, shorter than the 1 cm elements), and 20,000 triangles of the 1k case's size on a
4.5 m square (the same local patch, a larger mesh); and the analytic box (the convex kernel)
for reference. Reports microseconds per step with and without the contact term (best of 3,
one world, dt = 2e-5 s, 5,000 steps after a warm-up) and the contact's cost per element and
step in ns.
"""
import time

import numpy as np

import softmech as sm

N_ELEMS, R, L = 50, 0.005, 0.5
STEPS = 5000


def terrain(n, side):
    """(vertices, faces) of the height field on a side x side square, n x n cells."""
    s = np.linspace(-side / 2, side / 2, n + 1)
    x, y = np.meshgrid(s, s, indexing="ij")
    z = 0.002 * np.sin(2 * np.pi * x / 0.4) * np.sin(2 * np.pi * y / 0.4)
    v = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    idx = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
    a, b, c, d = idx[:-1, :-1].ravel(), idx[1:, :-1].ravel(), idx[1:, 1:].ravel(), idx[:-1, 1:].ravel()
    faces = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    return v, faces


def scene_for(case, contact):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(-0.25, 0.03, 0.003 + R), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=L, n_elems=N_ELEMS, radius=R,
                                 density=1000.0, youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
    if case == "box":
        scene.add_box(name="ground", position=(0, 0, -0.05), lengths=(1, 1, 0.1), fixed=True)
    else:
        n, side = case
        v, f = terrain(n, side)
        scene.add_rigid_body(name="ground", position=(0, 0, 0), vertices=v, faces=f, fixed=True)
    scene.add(sm.Gravity((0, 0, -9.81)))
    scene.add(sm.LinearDamping(rod, 0.5))
    if contact:
        scene.add(sm.RodBodyContact(stiffness=1e4, damping=1.0, friction=sm.CoulombFriction(0.5, 0.5),
                                    initial_overlap="warn"))
    return scene


def us_per_step(case, contact):
    sim = scene_for(case, contact).compile(dt=2e-5)
    sim.step(STEPS)                         # compile, settle onto the terrain

    def once():
        t0 = time.perf_counter()
        sim.step(STEPS)
        return time.perf_counter() - t0

    return min(once() for _ in range(3)) / STEPS * 1e6


def main():
    free = us_per_step((8, 1.0), False)
    print(f"without contact: {free:.2f} us per step")
    for label, case in (("box (analytic)", "box"), ("1,058 triangles, 1 m", (23, 1.0)),
                        ("20,000 triangles, 1 m", (100, 1.0)),
                        ("20,402 triangles, 4.5 m", (101, 4.5))):
        us = us_per_step(case, True)
        print(f"{label:26s} {us:7.2f} us per step, contact {(us - free) * 1e3 / N_ELEMS:6.0f} ns "
              f"per element")


if __name__ == "__main__":
    main()
