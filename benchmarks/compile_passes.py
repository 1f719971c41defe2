"""Where a cold compile goes, per compiled function and per LLVM pass (developer tool; not
collected by pytest).

    python benchmarks/compile_passes.py falling_rod --engine unified   # the implicit module
    python benchmarks/compile_passes.py snake                          # the README demo's step
    python benchmarks/compile_passes.py poseidron --scheme implicit_euler --passes implicit_block

Builds each built-in scene named (softmech.scenarios.SCENES), compiles it with empty, temporary
numba and softmech caches (set before numba is imported) and takes one step, then lists every
function numba compiled, largest LLVM time first: its own *function* passes (the optimization of
its own IR before linking), the *module* passes over it and every callee whose IR numba linked
into it (numba links a copy of each callee into its caller and optimizes it again there), the
machine code of that module, and the function passes of its Python wrapper (which unboxes the
arguments); with numba's pipeline times (type inference, which includes the compiles of the
callees it types, and lowering). --passes NAME prints the slowest LLVM passes of that
function's stages. This is how the implicit module's 15 s of SROA on copies of the scene's
argument tuples was found (docs/benchmarks.md, "The generated Newton module written out").
"""
import argparse
import os
import sys
import tempfile
import time
from typing import NamedTuple


class Compiled(NamedTuple):
    """One compiled overload's LLVM seconds by stage, numba's typing and lowering seconds."""
    all: float
    own: float
    module: float
    code: float
    wrapper: float
    typing: float
    lowering: float
    name: str
    timings: object     # numba's llvm_pass_timings records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", nargs="+", help="built-in scene names (softmech list)")
    parser.add_argument("--scheme", default=None, help="Scene.compile's scheme")
    parser.add_argument("--engine", default=None, choices=("unified", "discrete"))
    parser.add_argument("--top", type=int, default=20, help="functions listed")
    parser.add_argument("--passes", default=None, metavar="NAME",
                        help="also the slowest LLVM passes of the function named NAME")
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="softmech-passes-")
    os.environ.update(NUMBA_CACHE_DIR=folder, SOFTMECH_CACHE_DIR=folder,
                      NUMBA_LLVM_PASS_TIMINGS="1")
    t_start = time.perf_counter()
    import softmech  # noqa: F401  (imports numba after the settings above)
    from softmech.scenarios import SCENES

    options = {k: v for k, v in (("scheme", args.scheme), ("engine", args.engine)) if v}
    for name in args.scenes:
        scene, info = SCENES[name].build()
        scene.compile(worlds=1, dt=info.dt, **options).step(1)
    total = time.perf_counter() - t_start
    rows = _functions()
    print(f"cold compile of {', '.join(args.scenes)}{f' {options}' if options else ''}: "
          f"{total:.1f} s in all "
          f"(caches in {folder}); LLVM seconds per function:")
    print(f"  {'all':>6} {'own':>6} {'module':>6} {'code':>6} {'wrapper':>7}  "
          "numba: type inference, lowering  function")
    for row in rows[:args.top]:
        print("  {:6.2f} {:6.2f} {:6.2f} {:6.2f} {:7.2f}  {:5.2f} {:5.2f}  {}".format(*row[:8]))
    print("  sum: own {:.1f}, module {:.1f}, code {:.1f}, wrappers {:.1f}".format(
        *(sum(getattr(row, f) for row in rows) for f in ("own", "module", "code", "wrapper"))))
    if args.passes:
        for row in rows:
            if row.name.endswith("." + args.passes):
                _print_passes(row.timings)
                break
    return 0


def _functions():
    """A Compiled for every compiled overload in this process, largest first."""
    import gc

    from numba.core.registry import CPUDispatcher

    rows = []
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for result in obj.overloads.values():
            meta = result.metadata or {}
            timings = meta.get("llvm_pass_timings")
            if not timings:
                continue
            stage = {"own": 0.0, "module": 0.0, "code": 0.0, "wrapper": 0.0}
            for record in timings:
                seconds = record.timings.get_total_time()
                if record.name.startswith("Function passes"):
                    wrapper = "cpython" in record.name or "cfunc" in record.name
                    stage["wrapper" if wrapper else "own"] += seconds
                elif record.name.startswith("Module passes"):
                    stage["module"] += seconds
                elif record.name.startswith("Finalize"):
                    stage["code"] += seconds
            pipeline = {}
            for passes in meta.get("pipeline_times", {}).values():
                for pass_name, t in passes.items():
                    key = pass_name.split("_", 1)[-1]
                    pipeline[key] = pipeline.get(key, 0.0) + t.run
            name = f"{obj.py_func.__module__}.{obj.py_func.__name__}"
            rows.append(Compiled(sum(stage.values()), stage["own"], stage["module"],
                                 stage["code"], stage["wrapper"],
                                 pipeline.get("nopython_type_inference", 0.0),
                                 pipeline.get("native_lowering", 0.0), name, timings))
    return sorted(rows, key=lambda row: -row.all)


def _print_passes(timings, n=8):
    """The n slowest LLVM passes of each stage taking over 0.5 s."""
    for record in timings:
        if record.timings.get_total_time() < 0.5:
            continue
        print(f"  {record.name[:60]}: {record.timings.get_total_time():.2f} s")
        seen = {}
        for rec in record.timings.list_records():
            if rec.pass_name != "Total":
                seen[rec.pass_name] = max(seen.get(rec.pass_name, 0.0), rec.wall_time)
        for pass_name, seconds in sorted(seen.items(), key=lambda kv: -kv[1])[:n]:
            print(f"      {pass_name:40s} {seconds:6.2f} s")


if __name__ == "__main__":
    sys.exit(main())
