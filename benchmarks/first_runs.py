"""First runs of the built-in scenes: `softmech run SCENE` for a short time, cold (empty numba
and softmech caches, as on a fresh install) and then warm (the caches it filled), each in its
own process (issue 31: "first run of every built-in scene from empty caches <= 60 s to its first
simulated step ... a benchmark that measures all 16 cold and warm").

    python benchmarks/first_runs.py [--scenes snake wing ...] [--duration 0.02] [--markdown]

Per scene and run: the wall time until the compile line ("compiling the kernels ... done",
printed before the first step) -- the time to the first simulated step, start-up and compile
included --, the compile time the run reports, the whole run's wall time and its peak memory
(`/usr/bin/time -f %M`). The wing runs 0.002 s (its steps are 2.4 us).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

from softmech.scenarios import SCENES

DONE = re.compile(r"compiling the kernels .* done in ([0-9.]+) s")


def one_run(scene, duration, caches):
    """(seconds to the compile line, compile seconds reported, wall seconds, peak MB)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(caches, "numba"),
               SOFTMECH_CACHE_DIR=os.path.join(caches, "softmech"))
    with tempfile.TemporaryDirectory() as out, tempfile.NamedTemporaryFile("r") as mem:
        cmd = ["/usr/bin/time", "-f", "%M", "-o", mem.name, sys.executable, "-m", "softmech.cli",
               "run", scene, "--duration", str(duration), "--output", out]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, bufsize=1)
        first, compiled = None, None
        for line in proc.stdout:
            found = DONE.search(line)
            if found and first is None:
                first, compiled = time.perf_counter() - start, float(found.group(1))
        if proc.wait() != 0:
            raise RuntimeError(f"softmech run {scene} failed (exit code {proc.returncode})")
        wall = time.perf_counter() - start
        peak = int(mem.read().strip().splitlines()[-1]) / 1024.0
    return first, compiled, wall, peak


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenes", nargs="+", default=list(SCENES), choices=list(SCENES))
    p.add_argument("--duration", type=float, default=0.02)
    a = p.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    print("\n| scene | cold: first step | cold: compile | cold: whole run | cold: peak | "
          "warm: first step | warm: whole run | warm: peak |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for scene in a.scenes:
        duration = 0.002 if scene == "wing" else a.duration
        with tempfile.TemporaryDirectory() as caches:
            cold = one_run(scene, duration, caches)
            warm = one_run(scene, duration, caches)
        print(f"| {scene} | {cold[0]:.1f} s | {cold[1]:.1f} s | {cold[2]:.1f} s | "
              f"{cold[3]:.0f} MB | {warm[0]:.1f} s | {warm[2]:.1f} s | {warm[3]:.0f} MB |",
              flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
