"""Built-in scenes of discrete elastic rods, integrated implicitly (MAT-DiSMech's examples, ref.
004 section 7.1). The paper's parameter values were lost in the text extraction of
shared/references/004; the values below are ours, chosen to show the same behaviour, and say so.

falling_rod: two rods of the same shape, one soft (E = 1 MPa) and one stiff (E = 1 GPa), dropped
side by side from 5 cm, tilted by 20 degrees so that one end lands first, onto ground with
friction (GroundContact, mu = 0.5). The paper's observation: the soft rod deforms
visibly on impact, the stiff one hardly at all. Both land at the same time (free fall does not
depend on stiffness) and come to rest lying on the ground.

pneunet: three PneuNet-like actuators (DER rods clamped at one end, ref. 004 Fig. 4), whose
natural curvature is ramped from 0 to 0, 15 and 30 1/m over the first second (the pressurised
chambers), under gravity and a tip load; they settle into three different curled shapes.
"""
import numpy as np

import softmech as sm
from softmech import _checks
from softmech.scenarios.templates import GenericInfo

FALLING_ROD = {"length": 0.2, "radius": 2e-3, "density": 1200.0, "poisson_ratio": 0.5,
               "soft_modulus": 1e6, "stiff_modulus": 1e9, "height": 0.05, "tilt_deg": 20.0,
               "contact_stiffness": 200.0, "friction": 0.5, "n_elems": 30, "dt": 1e-3,
               "duration": 0.6}
"""Parameters of `falling_rod` (SI)."""

PNEUNET = {"length": 0.1, "radius": 5e-3, "density": 1100.0, "youngs_modulus": 2e6,
           "poisson_ratio": 0.5, "curvatures": (0.0, 15.0, 30.0), "ramp_time": 1.0,
           "tip_force": (0.0, 0.0, -0.01), "spacing": 0.05, "n_elems": 25, "dt": 5e-3,
           "duration": 2.0}
"""Parameters of `pneunet` (SI): natural curvatures [1/m], tip force [N]."""


def build_falling_rod(n_elems=FALLING_ROD["n_elems"], worlds=1, *, duration=None, dt=None):
    """The falling_rod scene (module docstring); returns (scene, GenericInfo)."""
    p = FALLING_ROD
    n_elems = _checks.integer("n_elems", n_elems, 3)
    duration = p["duration"] if duration is None else float(_checks.positive("duration", duration))
    dt = p["dt"] if dt is None else float(_checks.positive("dt", dt))
    tilt = np.radians(p["tilt_deg"])
    direction = (np.cos(tilt), 0.0, np.sin(tilt))
    scene = sm.Scene()
    for name, y, modulus in (("soft", 0.0, p["soft_modulus"]), ("stiff", 0.1, p["stiff_modulus"])):
        rod = scene.add_der_rod(name=name, start=(0.0, y, p["height"]), direction=direction,
                                length=p["length"], n_elems=n_elems, radius=p["radius"],
                                density=p["density"], youngs_modulus=modulus,
                                poisson_ratio=p["poisson_ratio"])
        scene.add(sm.GroundContact(rod, stiffness=p["contact_stiffness"], distance=p["radius"],
                                   friction=sm.IsotropicFriction(p["friction"], slip_velocity=1e-3),
                                   name=f"{name}_ground"))
    scene.add(sm.Gravity())
    return scene, GenericInfo(rod="soft", worlds=worlds, dt=dt, duration=duration,
                              n_elems=n_elems)


def build_pneunet(n_elems=PNEUNET["n_elems"], worlds=1, *, duration=None, dt=None):
    """The pneunet scene (module docstring); returns (scene, GenericInfo)."""
    p = PNEUNET
    n_elems = _checks.integer("n_elems", n_elems, 3)
    duration = p["duration"] if duration is None else float(_checks.positive("duration", duration))
    dt = p["dt"] if dt is None else float(_checks.positive("dt", dt))
    scene = sm.Scene()
    for i, kappa in enumerate(p["curvatures"]):
        name = f"actuator{i + 1}"
        # natural curvature kappa1 = -kappa: curls downward like a gripper finger; ramped from 0
        schedule = {"times": [0.0, p["ramp_time"]],
                    "values": [np.zeros((n_elems - 1, 2)),
                               np.tile([-kappa, 0.0], (n_elems - 1, 1))]}
        rod = scene.add_der_rod(name=name, start=(0.0, i * p["spacing"], 0.0),
                                direction=(1.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0),
                                length=p["length"], n_elems=n_elems, radius=p["radius"],
                                density=p["density"], youngs_modulus=p["youngs_modulus"],
                                poisson_ratio=p["poisson_ratio"], natural_curvature=schedule)
        scene.add(sm.FixNodes(rod, nodes=[0, 1], angles=[0], name=f"{name}_clamp"))
        scene.add(sm.NodeForce(rod, n_elems, p["tip_force"], name=f"{name}_tip"))
    scene.add(sm.Gravity())
    return scene, GenericInfo(rod="actuator3", worlds=worlds, dt=dt, duration=duration,
                              n_elems=n_elems)
