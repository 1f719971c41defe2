"""Soak (issue 16, item 6; docs/reliability.md "Soak: long runs"): the ME498 snake for 10^7 steps
and a 100-generation CMA-ES campaign, with the process's resident memory measured and the
snake's energy watched.

Memory: the resident set size (RSS, /proc/self/statm: pages x page size) after a warm-up (the
compile and the first chunk or generations, which allocate the workspace, the recorders' buffers
and numba's and the allocator's pools) against the RSS at the end. A leak of 1 byte per step, or
of 80 kB per generation, would exceed the stated tolerance.

Energy: kinetic + elastic energy of the snake (softmech.diagnostics: translational, rotational,
bending, twisting, shear and stretch energies, recorded as `snake.total_energy`). The muscle
drives it and friction and damping dissipate, so in the periodic gait it oscillates within a
band set in the first periods; a drift of the explicit integrator (energy pumped in step after
step) or a slow blow-up would leave that band.

Run: `python -m pytest -q -m slow -n 0 tests/reliability/test_soak.py -s` (prints the figures).
"""
import os
import time

import numpy as np
import pytest

import softmech as sm
from slow_scale import scaled
from softmech.scenarios import SCENES

CHUNK_STEPS = 2 * 10 ** 5
"""Steps of one sim.run call of the snake soak (5 s simulated at dt = 2.5e-5 s: the RSS is read
between them)."""
CHUNKS = scaled(50, 10)
"""sim.run calls of the snake soak: 50 (10^7 steps, 250 s simulated, 250 muscle periods) at full
size; 12 in CI (slow_scale: 2.4 10^6 steps; a leak of 4 B per step would still exceed
MEMORY_TOLERANCE)."""
SNAKE_STEPS = CHUNK_STEPS * CHUNKS
MEMORY_TOLERANCE = 8 * 2 ** 20
"""Allowed RSS growth from warm-up to end [B]: a few allocator arenas (glibc grows its heap in
steps of up to a few MB); 10^7 steps or 100 generations turn any per-step or per-generation leak
above 1 B / 80 kB into more than this."""
GENERATIONS = scaled(100, 20)
"""CMA-ES generations of the campaign soak: 100 at full size; 25 in CI (slow_scale: a leak of
0.6 MB per generation would still exceed MEMORY_TOLERANCE)."""
needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                                reason="RSS read from Linux's /proc/self/statm (psutil not installed)")


def rss_bytes():
    """Resident set size of this process [B] (Linux /proc/self/statm, field 2)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.slow
@needs_proc
def test_snake_ten_million_steps_memory_flat_energy_bounded():
    """10^7 steps of the Table 2 snake (B = 1, Every 0.05 s recording of its total energy): RSS
    from the end of the first chunk to the end within MEMORY_TOLERANCE; the energy finite, and
    every later chunk's band within [0.9, 1.1] x the first chunk's band after the muscle's ramp
    (t in [1, 5] s; measured: docs/reliability.md)."""
    scene, info = SCENES["snake"].build()
    sim = scene.compile(dt=info.dt)
    chunk = SNAKE_STEPS // CHUNKS * info.dt
    record = sm.Every(seconds=0.05, fields=(f"{info.rod}.total_energy",))
    energies, rss, start = [], [], time.perf_counter()
    for k in range(CHUNKS):
        out = sim.run(chunk, record=record)
        e = np.asarray(out[f"{info.rod}.total_energy"])[0]
        t = np.asarray(out["time"])
        energies.append(e[t >= 1.0] if k == 0 else e)
        rss.append(rss_bytes())
    wall = time.perf_counter() - start
    steps = sim.clock[1]
    first = energies[0]
    later = np.concatenate(energies[1:])
    print(f"\nsnake soak: {steps} steps in {wall:.1f} s ({wall / steps * 1e6:.2f} us/step); RSS "
          f"after chunk 1 {rss[0] / 2**20:.1f} MiB, end {rss[-1] / 2**20:.1f} MiB (max "
          f"{max(rss) / 2**20:.1f}); energy first band [{first.min():.2f}, {first.max():.2f}] J, "
          f"later [{later.min():.2f}, {later.max():.2f}] J")
    assert steps == SNAKE_STEPS
    assert np.all(np.isfinite(later))
    assert later.max() <= 1.1 * first.max() and later.min() >= 0.9 * first.min()
    assert rss[-1] - rss[0] <= MEMORY_TOLERANCE


@pytest.mark.slow
@needs_proc
def test_campaign_hundred_generations_memory_flat(tmp_path):
    """100 generations of CMA-ES on the cheapest campaign problem (the snake gait problem on a
    20-element snake, popsize 4, a 0.1 s fitness window: one batched simulation of 0.1 s per
    generation), every generation logged: RSS after generation 10 to the end within
    MEMORY_TOLERANCE, all 100 generations in the log, fitnesses finite."""
    from softmech.optimize.campaign import Campaign, read_log
    from softmech.optimize.snake import SnakeGaitProblem

    problem = SnakeGaitProblem(popsize=4, n_elems=20, window=(0.0, 0.1))
    rss = []

    def objective(params, progress=None):
        value = problem(params, progress)
        rss.append(rss_bytes())
        return value

    log = tmp_path / "campaign.jsonl"
    campaign = Campaign(objective, names=problem.names, lower=problem.lower, upper=problem.upper,
                        log_path=str(log), popsize=4, seed=1, max_generations=GENERATIONS,
                        min_generations=GENERATIONS)
    start = time.perf_counter()
    result = campaign.run()
    wall = time.perf_counter() - start
    generations = read_log(str(log))[1]
    print(f"\ncampaign soak: {len(generations)} generations in {wall:.1f} s; RSS after "
          f"generation 10 {rss[9] / 2**20:.1f} MiB, end {rss[-1] / 2**20:.1f} MiB (max "
          f"{max(rss) / 2**20:.1f}); best fitness {result.best_fitness:.4f} m/s")
    assert len(rss) == GENERATIONS and len(generations) == GENERATIONS
    assert all(np.all(np.isfinite(np.asarray(g["fitness"], float))) for g in generations)
    assert rss[-1] - rss[9] <= MEMORY_TOLERANCE
