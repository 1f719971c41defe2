"""Zhang et al. 2019, Fig. 2c: the CMA-ES design campaign of the bio-hybrid swimmer improves on
the original by 2.44x. The campaign with the paper's soft contractile cell (`softmech optimize
swimmer --cell paper`: PAPER_MODEL, the cell's modulus from the original's measured speed, not
from the speed-up; docs/swimmer.md) is run whole, as a user would, and its best design's
speed-up asserted against the paper's number."""
import pytest

from softmech.optimize.swimmer import optimize_swimmer
from softmech.scenarios.swimmer import PAPER_OPTIMUM


@pytest.mark.slow   # 48 generations at most of 8 designs: 4.6 minutes on two idle cores
def test_the_soft_cell_campaign_reproduces_the_papers_speed_up(tmp_path):
    """The default campaign (population 8, seed 1, at most 48 generations as the paper's,
    fitness the speed over beats 1-2, two worker processes): its best design swims within 15 %
    of the paper's 2.44x the original (the paper states no scatter; 15 % is issue 28's bound).
    Measured 2026-12-01 02:31 UTC: 2.429x (18.17 against 7.48 um/s), found in generation 30,
    stopped at 40 after 10 generations without improvement, 4 min 37 s of wall time, the same
    numbers to all digits as the run recorded in docs/swimmer.md (the campaign is seeded and
    each evaluation independent of the worker that runs it). Like the paper's optimum its cell
    sits at the head-tail junction (within the first 5 % of the tail: measured 1.2 %); unlike
    it the head is long and narrow (950 x 18.3 um against 190 x 32.3 um), and the paper's own
    design, run in the same model, swims 1.04x (the last assertion: the campaign's optimum is
    the faster in this model, which is why the geometry is not reproduced; docs/swimmer.md)."""
    summary = optimize_swimmer(str(tmp_path), cell="paper", workers=2)
    assert summary["generations"] <= 48
    assert abs(summary["speedup"] / PAPER_OPTIMUM["speedup"] - 1.0) < 0.15, summary["speedup"]
    assert summary["best_params"]["cell_position"] < 0.05, summary["best_params"]
    assert summary["paper_optimum_speedup"] < summary["speedup"]
