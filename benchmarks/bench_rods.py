"""Rod benchmarks as a script: `python benchmarks/bench_rods.py [options]` is `softmech bench
[options]` (all logic lives in softmech.bench; see `--help` and docs/benchmarks.md)."""
import sys

from softmech.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
