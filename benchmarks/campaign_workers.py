"""Evaluations per minute of a campaign locally and on a local Ray cluster with 1 and 2 worker
nodes (one CPU each; the head node takes no tasks), for docs/cluster.md.

    python benchmarks/campaign_workers.py [FILE.toml] [--generations 4] [--chunk 8]

The campaign is FILE's [optimize] table (default examples/snake_stiffness_gait.toml: the Table 2
snake, 16 candidates per generation, 3 s simulated each). The first generation is left out of
the rate (it includes the workers' start and loading the compiled kernels); the rate is
evaluations / summed evaluation wall time of the other generations. Prints one JSON line per
setting. The results of all settings are checked to be identical (bit for bit).
"""
import argparse
import json
import os
import tempfile

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")     # loopback only

from softmech.optimize.executors import RayExecutor                   # noqa: E402
from softmech.optimize.runs import optimize_study                     # noqa: E402
from softmech.scenefile import load_scenario                           # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def rate(folder):
    with open(os.path.join(folder, "campaign.jsonl")) as f:
        lines = [json.loads(line) for line in f][2:]          # header and generation 1 left out
    evaluations = sum(len(r["fitness"]) for r in lines)
    return evaluations, sum(r["wall_s"] for r in lines), [r["fitness"] for r in lines]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file", nargs="?",
                        default=os.path.join(HERE, "..", "examples", "snake_stiffness_gait.toml"))
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--chunk", type=int, default=8)
    args = parser.parse_args()
    settings = {"max_generations": args.generations, "chunk": args.chunk}
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (0, 1, 2):
            folder = os.path.join(tmp, f"w{workers}")
            scenario = load_scenario(args.file)
            if workers == 0:
                optimize_study(scenario, folder, settings=settings)
            else:
                from ray.cluster_utils import Cluster

                cluster = Cluster(initialize_head=True, connect=False, head_node_args=dict(
                    num_cpus=0, node_ip_address="127.0.0.1", include_dashboard=False,
                    object_store_memory=100 * 1024**2))
                try:
                    for _ in range(workers):
                        cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1",
                                         object_store_memory=100 * 1024**2)
                    cluster.wait_for_nodes()
                    executor = RayExecutor(cluster.address)
                    try:
                        optimize_study(scenario, folder, settings=settings, executor=executor)
                    finally:
                        executor.close()
                finally:
                    cluster.shutdown()
            n, wall, fitness = rate(folder)
            results[workers] = fitness
            print(json.dumps({"setting": "local (2 threads)" if workers == 0 else
                              f"ray, {workers} worker node(s) x 1 CPU", "chunk": args.chunk,
                              "evaluations": n, "wall_s": round(wall, 2),
                              "evaluations_per_minute": round(60 * n / wall, 1),
                              "identical_to_local": fitness == results[0]}), flush=True)


if __name__ == "__main__":
    main()
