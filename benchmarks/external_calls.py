"""Cold compile with the generated modules' calls through slots against linked calls
(softmech.kernels.external_calls; not collected by pytest).

    python benchmarks/external_calls.py [--rounds 2]

Each case runs in a fresh process with empty numba and softmech caches, with
SOFTMECH_EXTERNAL_CALLS=1 (calls through slots, opt-in) and =0 (numba's linked copies, the default)
in turn, and prints the wall time of compiling and taking the first step:

- `snake`: the README demo's scene (the explicit engine's generated step);
- `falling_rod`: the built-in discrete rod scene on the unified engine (its generated Newton
  loop);
- `falling_rod + term`: the same scene with one more term (sm.LinearDamping), compiled in a
  second process on the caches the first one filled: what editing a scene costs once every
  kernel is cached;
- `falling_rod discrete`: the scene on the discrete engine (its generated Newton loop).

Then the warm time per step of the snake and of falling_rod, and a checksum of their final
positions, which must be the same for both settings.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
import numpy as np
import softmech as sm
from softmech.scenarios import SCENES
name, engine, extra, steps = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
scene, info = SCENES[name].build()
if extra:
    scene.add(sm.LinearDamping(scene.implicit_bodies[0], coefficient=0.01))
options = {"engine": engine} if engine != "-" else {}
t0 = time.perf_counter()
sim = scene.compile(worlds=1, dt=info.dt, **options)
sim.step(1)
t1 = time.perf_counter()
sim.step(steps)
t2 = time.perf_counter()
body = info.rod
positions = sim.get_state(body)["positions"]
print("RESULT", json.dumps({"compile": t1 - t0, "step": (t2 - t1) / steps,
                            "checksum": float(np.sum(positions * np.arange(1, positions.size + 1)
                                                     .reshape(positions.shape))).hex()}))
"""

CASES = (("snake", "snake", "-", "0", 20000, None),
         ("falling_rod", "falling_rod", "unified", "0", 200, None),
         ("falling_rod + term", "falling_rod", "unified", "1", 200, "falling_rod"),
         ("falling_rod discrete", "falling_rod", "discrete", "0", 200, None))


def child(folder, external, name, engine, extra, steps):
    env = {**os.environ, "NUMBA_CACHE_DIR": folder, "SOFTMECH_CACHE_DIR": folder,
           "XDG_CACHE_HOME": folder, "SOFTMECH_EXTERNAL_CALLS": external}
    done = subprocess.run([sys.executable, "-c", CHILD, name, engine, extra, str(steps)],
                          env=env, capture_output=True, text=True, check=True)
    line = [s for s in done.stdout.splitlines() if s.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.2f}")
    print(f"{'case':<22} {'slots: compile':>15} {'linked: compile':>16} {'slots: step':>12} "
          f"{'linked: step':>12}  same result")
    for _ in range(args.rounds):
        folders = {}
        for label, name, engine, extra, steps, after in CASES:
            row = {}
            for external in ("1", "0"):
                key = (after or label, external)
                folder = folders.get(key) or folders.setdefault(key, tempfile.mkdtemp())
                row[external] = child(folder, external, name, engine, extra, steps)
            same = row["1"]["checksum"] == row["0"]["checksum"]
            print(f"{label:<22} {row['1']['compile']:>13.1f} s {row['0']['compile']:>14.1f} s "
                  f"{row['1']['step'] * 1e6:>9.2f} us {row['0']['step'] * 1e6:>9.2f} us  {same}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
