"""Run by tests/reliability/test_determinism.py in a fresh process (thread counts are set by its
environment): simulate a scene and print a JSON object {world: sha256 of the final state}.

usage: python determinism_probe.py SCENE WORLDS STEPS [--save FILE] [--load FILE]
SCENE: snake (explicit Cosserat rods: muscles, anisotropic ground friction), falling_rod
(implicit discrete rods: ground contact with friction) or manta (implicit discrete shell in
water). With WORLDS > 1 each world gets its own parameter value (a row of a sweep), so lanes
are not copies of each other; world 0 always has the built-in value, so a batch's world 0 is
comparable with a single-world run. --load starts from a state saved with --save (a resumed
run); the steps are then counted from there."""
import hashlib
import json
import sys

import numpy as np


def build(name, worlds):
    if name == "snake":
        from softmech.scenarios.snake import build_snake
        scene, _ = build_snake(10, worlds, dt=5e-5)
        sim = scene.compile(worlds=worlds, dt=5e-5)
        key = "muscle.wavelength"
    elif name == "falling_rod":
        from softmech.scenarios.discrete import build_falling_rod
        scene, info = build_falling_rod(6, worlds)
        sim = scene.compile(worlds=worlds, dt=info.dt)
        key = "soft.youngs_modulus"
    else:
        from softmech.scenarios.shells import build_manta
        scene, info = build_manta(2, worlds)
        sim = scene.compile(worlds=worlds, dt=info.dt)
        key = "water_drag.coefficient"
    if key is not None and worlds > 1:
        value = np.array(sim.params[key], dtype=float)
        scale = 1.0 + 0.05 * np.arange(worlds).reshape((worlds,) + (1,) * (value.ndim - 1))
        sim.params[key] = value[:1] * scale
    return sim


def state_hashes(sim):
    bodies = [b.name for b in sim.rods + sim.rigid_bodies + list(getattr(sim, "shells", ()))
              + list(getattr(sim, "implicit_bodies", ()))]
    out = {}
    for w in range(sim.worlds):
        h = hashlib.sha256()
        for body in dict.fromkeys(bodies):
            for key, value in sorted(sim.get_state(body).items()):
                h.update(key.encode())
                h.update(np.ascontiguousarray(np.asarray(value)[w], dtype=float).tobytes())
        h.update(np.float64(sim.time).tobytes())
        out[w] = h.hexdigest()
    return out


def main(argv):
    name, worlds, steps = argv[0], int(argv[1]), int(argv[2])
    sim = build(name, worlds)
    if "--load" in argv:
        sim.load_state(argv[argv.index("--load") + 1])
    sim.step(steps)
    if "--save" in argv:
        sim.save_state(argv[argv.index("--save") + 1])
    print(json.dumps(state_hashes(sim)))


if __name__ == "__main__":
    main(sys.argv[1:])
