"""Where a warm implicit batch spends its time, by compiled function (issue 27; not collected by
pytest). Needs Linux `perf` and `gdb`.

    OPENBLAS_NUM_THREADS=1 python benchmarks/perf_jit_profile.py --scene plate --engine unified \
        --worlds 16
    OPENBLAS_NUM_THREADS=1 python benchmarks/perf_jit_profile.py --scene falling_rod --worlds 16
    OPENBLAS_NUM_THREADS=1 python benchmarks/perf_jit_profile.py --scene plate --engine unified \
        --worlds 16 --restart --library-symbols

A child process builds the scene (benchmarks/implicit_batch.py's scenes: `falling_rod`, the
1,032-triangle `plate`), runs it once (compiles), then runs it again and again (continuing it, or
with --restart from its built state each time: the early phase that benchmarks/unified_batch.py
times, with its more frequent Jacobians); `perf record`
samples it for --seconds, and gdb, attached to the same process, names the sampled addresses:
numba registers its JIT code with gdb's JIT interface, which perf's own symbol lookup does not
read. Prints the share of samples per function (numba's kernels by module and name, shared
libraries by file: libm is the sin, cos, atan2, exp of the kernels, libopenblas LAPACK, libc
memset and memcpy). Shares, not times: with the run's wall time and Newton statistics
(implicit_batch.py, unified_batch.py) they give the time per world and evaluation of each
function.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

CHILD = """
import os, sys, time
sys.path.insert(0, {bench!r})
scene, engine, worlds, ready = {scene!r}, {engine!r}, {worlds}, {ready!r}
restart = {restart!r}
if engine == "unified":
    from unified_batch import build
    sim = build(scene, worlds)
else:
    from implicit_batch import build
    sim = build(scene, worlds)
duration = 0.02 if scene == "plate" else 0.1
if restart:
    sim.save_state(restart)
sim.run(duration)
open(ready, "w").write(str(os.getpid()))
t0 = time.time()
while time.time() - t0 < {budget}:
    if restart:
        sim.load_state(restart)
    sim.run(duration)
"""


def symbol(line):
    """A readable function name from one `info symbol` answer of gdb."""
    name = line.split("[abi")[0].split(" + ")[0].split(" in section")[0]
    if name.startswith("_ZN"):          # mangled: <len><name> ... (numba's itanium names)
        rest, parts = name[3:], []
        while rest and rest[0].isdigit():
            digits = re.match(r"\d+", rest).group(0)
            n = int(digits)
            parts.append(rest[len(digits):len(digits) + n])
            rest = rest[len(digits) + n:]
        name = "::".join(parts)
    return name.replace("softmech::kernels::", "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scene", default="falling_rod", choices=("falling_rod", "plate"))
    parser.add_argument("--engine", default="discrete", choices=("discrete", "unified"))
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--restart", action="store_true",
                        help="run the scene again and again from its built state (the early "
                             "phase that unified_batch.py times) instead of continuing it")
    parser.add_argument("--library-symbols", action="store_true",
                        help="split the shared libraries' time by function (libm: sin, cos, "
                             "atan2, ...)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ready = os.path.join(tmp, "ready")
        code = CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), scene=args.scene,
                            engine=args.engine, worlds=args.worlds, ready=ready,
                            restart=os.path.join(tmp, "start.npz") if args.restart else "",
                            budget=args.seconds + 120)
        child = subprocess.Popen([sys.executable, "-c", code])
        try:
            while not os.path.exists(ready):
                if child.poll() is not None:
                    raise SystemExit("the scene's process ended before its warm-up finished")
                time.sleep(0.5)
            time.sleep(1.0)
            data = os.path.join(tmp, "perf.data")
            subprocess.run(["perf", "record", "-q", "-F", "3000", "-p", str(child.pid), "-o",
                            data, "--", "sleep", str(args.seconds)], check=True,
                           stderr=subprocess.DEVNULL)
            script = subprocess.run(["perf", "script", "-i", data, "-F",
                                     "ip,sym,dso" if args.library_symbols else "ip,dso"],
                                    capture_output=True, text=True).stdout
            jit, other, total = collections.Counter(), collections.Counter(), 0
            for line in script.splitlines():
                fields = line.split()
                if len(fields) < 2:
                    continue
                total += 1
                if "perf-" in fields[-1]:       # JIT code (perf's map file: none written)
                    jit[fields[0]] += 1
                else:
                    library = os.path.basename(fields[-1].strip("()"))
                    if args.library_symbols and len(fields) > 2:
                        library += "::" + fields[1]
                    other[library] += 1
            addresses = [a for a, _ in jit.most_common(4000)]
            commands = os.path.join(tmp, "gdb")
            with open(commands, "w") as f:
                f.write("".join(f"info symbol 0x{a}\n" for a in addresses))
            answers = subprocess.run(["gdb", "-p", str(child.pid), "-batch", "-x", commands],
                                     capture_output=True, text=True).stdout
        finally:
            child.kill()
    names = [line for line in answers.splitlines()
             if " in section" in line or line.startswith("No symbol")]
    shares = collections.Counter()
    for address, line in zip(addresses, names):
        shares[symbol(line)] += jit[address]
    shares.update(other)
    print(f"{args.scene}, {args.engine} engine, B = {args.worlds}: {total} samples in "
          f"{args.seconds:g} s (load {os.getloadavg()[0]:.2f})")
    for name, count in shares.most_common(args.top):
        print(f"{100.0 * count / max(total, 1):6.2f} %  {name[:100]}")


if __name__ == "__main__":
    main()
