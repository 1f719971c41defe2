"""Friction at the contact point (issue 30), before and after: not collected by pytest.

    PYTHONPATH=<checkout>/src python benchmarks/friction_point.py [impact] [roll] [rails] [hold]

impact: |L1 - L0| / |L0| and |P1 - P0| / |P0| over 3,000 steps of two free rods colliding
obliquely and of a free rod hitting a free spinning sphere, without friction, with
CoulombFriction and with StickingFriction (the scenes of softmech.validation.friction_point,
loaded from this checkout's file: they use the public API only, so that a checkout from before
issue 30, which lacks the module, runs them too).
roll: the rolling acceleration of a thick rod on a fixed box and across two clamped rails
(rolling_rod there) against the rigid cylinder's (2/3) g sin(alpha); rails: the rails only.
hold: regularized rods held at 20 deg below the friction angle (mu_s = 0.6, mu_k = 0.4; the
scenes of tests/validation/test_rod_body_contact.py and softmech.validation.body_contact
rod_on_rail) with v_s = 1e-4 and 1e-3 m/s: displacement in 0.5 s and the creep rate from 0.3 s
against v_s tan(theta) / mu_s (docs/contact.md, "Choosing v_s").
Run it with PYTHONPATH at a checkout from before issue 30 and at one after to compare
(docs/contact.md, "Where friction acts").
"""
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

import softmech as sm

print(sm.__file__)


def validation_scenes():
    """softmech.validation.friction_point of the checkout this file is in, loaded from its file
    and run with the softmech on PYTHONPATH: its own imports (softmech.validation.common,
    validation.mesh_contact, bodies.meshes) are older than issue 30, the module is not."""
    path = Path(__file__).resolve().parents[1] / "src/softmech/validation/friction_point.py"
    spec = importlib.util.spec_from_file_location("friction_point_scenes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


scenes = validation_scenes()
G = scenes.G
colliding_rods, rod_hits_sphere, rolling_rod = (scenes.colliding_rods, scenes.rod_hits_sphere,
                                                scenes.rolling_rod)
momenta = scenes.momenta

laws = {"none": None, "regularized": sm.CoulombFriction(0.5, 0.4, slip_velocity=1e-4),
        "sticking": sm.StickingFriction(0.5, 0.4, tangential_stiffness=1e4, tangential_damping=0.5)}
what = sys.argv[1:] or ["impact", "roll"]
if "impact" in what:
    for build, names in ((colliding_rods, ("hit", "thrown")), (rod_hits_sphere, ("rod", "ball"))):
        for name, law in laws.items():
            t0 = time.time()
            sim = build(law)
            p0, l0 = momenta(sim, names)
            sim.step(3000)
            p1, l1 = momenta(sim, names)
            dl = np.linalg.norm(l1 - l0) / np.linalg.norm(l0)
            dp = np.linalg.norm(p1 - p0) / np.linalg.norm(p0)
            print(f"{build.__name__:16s} {name:12s} dL/L0 = {dl:.3e}  dP/P0 = {dp:.3e}  "
                  f"({time.time() - t0:.1f} s)", flush=True)
if "roll" in what or "rails" in what:
    alpha = np.radians(20.0)
    ref = 2 / 3 * G * np.sin(alpha)
    for on in (("rails",) if "rails" in what else ("box", "rails")):
        for name in ("regularized", "sticking"):
            law = (sm.CoulombFriction(0.5, 0.5, slip_velocity=1e-3) if name == "regularized" else
                   sm.StickingFriction(0.5, 0.5, tangential_stiffness=1e4, tangential_damping=1.0))
            t0 = time.time()
            try:
                t, v = rolling_rod(law, alpha, 0.2, on=on)
            except Exception as e:
                print(f"roll on {on} {name}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                continue
            a = scenes.rolling_acceleration(t, v, 0.05)
            print(f"roll on {on:5s} {name:12s} a = {a:.5f} m/s^2, (2/3) g sin = {ref:.5f}, "
                  f"rel {a / ref - 1:+.2e}"
                  f"  ({time.time() - t0:.1f} s)", flush=True)

HOLD_MU_S, HOLD_MU_K = 0.6, 0.4
def held_on_box(v_s, theta, duration=0.5, dt=1e-5):
    c, s = np.cos(theta), np.sin(theta)
    down, up, r = np.array([c, 0, -s]), np.array([s, 0, c]), 0.01
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=-0.1 * down + r * up, direction=down, normal=up,
                           length=0.2, n_elems=8, radius=r, density=1000.0, youngs_modulus=1e6,
                           shear_modulus=1e6 / 1.5)
    scene.add_box(name="ramp", position=-0.05 * up, lengths=(1.0, 0.5, 0.1), density=1000.0,
                  directors=[[c, 0, -s], [0, 1, 0], [s, 0, c]], fixed=True)
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.RodBodyContact(stiffness=1e4, damping=2.0, friction=sm.CoulombFriction(
        HOLD_MU_S, HOLD_MU_K, slip_velocity=v_s)))
    out = scene.compile(dt=dt, strict=True).run(duration, record=sm.Every(1e-3, ("rod.com",)))
    return out["time"], out["rod.com"][0] @ down

def held_on_rail(v_s, theta, duration=0.5, dt=1e-5):
    R = 0.01
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rail", start=(-0.3, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=0.6, n_elems=24, radius=2 * R, density=1000.0,
                           youngs_modulus=1e8, shear_modulus=1e8 / 1.5)
    scene.add_cosserat_rod(name="slider", start=(-0.2, 0, 3 * R), direction=(1, 0, 0),
                           normal=(0, 0, 1), length=0.2, n_elems=8, radius=R, density=1000.0,
                           youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
    w = 1000.0 * np.pi * R**2 * G
    scene.add(sm.UniformLoad("slider", force_per_length=(w * np.sin(theta), 0, -w * np.cos(theta)),
                             name="weight"))
    scene.add(sm.Clamp("rail", "first"))
    scene.add(sm.Clamp("rail", "last", name="clamp_last"))
    scene.add(sm.RodContact(stiffness=1e4, damping=2.0, friction=sm.CoulombFriction(
        HOLD_MU_S, HOLD_MU_K, slip_velocity=v_s)))
    out = scene.compile(dt=dt, strict=True).run(duration, record=sm.Every(1e-3, ("slider.com",)))
    return out["time"], out["slider.com"][0, :, 0]

if "hold" in what:
    theta = np.radians(20.0)
    for build in (held_on_box, held_on_rail):
        for v_s in (1e-4, 1e-3):
            t0 = time.time()
            t, x = build(v_s, theta)
            late = t >= 0.3
            rate = np.polyfit(t[late], x[late], 1)[0]
            print(f"{build.__name__:12s} v_s = {v_s:.0e}: moved {np.max(np.abs(x - x[0])):.3e} m in "
                  f"{t[-1]:.1f} s (bound v_s t = {v_s * t[-1]:.1e}), creep from 0.3 s {rate:.3e} m/s "
                  f"vs v_s tan/mu_s = {v_s * np.tan(theta) / HOLD_MU_S:.3e}  ({time.time() - t0:.1f} s)",
                  flush=True)
