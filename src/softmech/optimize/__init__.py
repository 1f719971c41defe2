"""Optimization: CMA-ES campaigns over batched objectives (softmech.optimize.campaign) and the
snake gait problem of the ME498 handout (softmech.optimize.snake); `softmech optimize snake`."""
from softmech.optimize.campaign import Campaign, CampaignResult, Generation, read_log
from softmech.optimize.snake import (BETA_BOUND, NAMES, PUBLISHED_OPTIMUM, WAVELENGTH_RANGE,
                                     SnakeGaitProblem, optimize_snake, simulate_gaits)

__all__ = ["Campaign", "CampaignResult", "Generation", "read_log", "SnakeGaitProblem",
           "optimize_snake", "simulate_gaits", "NAMES", "BETA_BOUND", "WAVELENGTH_RANGE",
           "PUBLISHED_OPTIMUM"]
