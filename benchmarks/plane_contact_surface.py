"""Plane contact of a Cosserat rod on its surface (GroundContact(rod, surface=True)) against the
default model on the element centres, and Scene.time_step_limit() against a probe compile; not
collected by pytest.

    python benchmarks/plane_contact_surface.py

A/B: one 50-element rod (L = 1 m, r = 2.5 cm, the snake's material) lying on the floor under
gravity, isotropic kinetic friction 0.5 (centres: rolling, k = 1 N/m, the snake's wall; surface:
k = 1000 N/m, damping 1 kg/s), dt = 2.5e-5 s, both compiled and warmed first, then 5 alternating
samples of 20,000 steps each: microseconds per step, min and median. Then the snake scene's
time-step limit from the scene (assembly only) and from a probe compile, 5 each.
"""
import time, warnings, numpy as np, softmech as sm
from softmech.scenarios.snake import build_snake
warnings.simplefilter("ignore")
def scene(surface):
    s = sm.Scene()
    rod = s.add_cosserat_rod(name="rod", start=(0, 0, 0.025), direction=(1, 0, 0), normal=(0, 0, 1),
                             length=1.0, n_elems=50, radius=0.025, density=1000.0,
                             youngs_modulus=1e7, shear_modulus=2e7 / 3)
    s.add(sm.Gravity())
    fr = sm.IsotropicFriction(0.5, rolling=not surface)
    s.add(sm.GroundContact(rod, stiffness=1e3 if surface else 1.0, damping=1.0 if surface else 1e-6,
                           surface=surface, friction=fr))
    return s
sims = {k: scene(k).compile(dt=2.5e-5) for k in (False, True)}
for s in sims.values(): s.step(100)
t = {False: [], True: []}
for rep in range(5):
    for k, s in sims.items():
        t0 = time.perf_counter(); s.step(20000); t[k].append((time.perf_counter() - t0) / 20000 * 1e6)
for k, v in t.items():
    print(f"surface={k}: us/step min {min(v):.2f} median {np.median(v):.2f}")
snake = build_snake()[0]
a, b = [], []
for rep in range(5):
    t0 = time.perf_counter(); snake.time_step_limit(); a.append(time.perf_counter() - t0)
    t0 = time.perf_counter(); snake.compile(dt=1.0).time_step_limit(); b.append(time.perf_counter() - t0)
print(f"snake: scene.time_step_limit() min {min(a)*1e3:.2f} ms median {np.median(a)*1e3:.2f} ms; probe compile + limit min {min(b)*1e3:.2f} ms median {np.median(b)*1e3:.2f} ms")
