"""Optimization: CMA-ES campaigns over batched objectives (softmech.optimize.campaign), studies
of any scene (parameters by path, measured objectives: softmech.optimize.study, quantities,
paths, settings), chunked evaluation on this machine or on Ray (executors), sweeps (sweep), and
the snake gait problem of the ME498 handout (softmech.optimize.snake); `softmech optimize`,
`softmech sweep`."""
from softmech.optimize.campaign import Campaign, CampaignResult, Generation, read_log
from softmech.optimize.executors import (EvaluationJournal, LocalExecutor, RayExecutor,
                                         evaluate_batch, make_executor)
from softmech.optimize.quantities import QUANTITIES
from softmech.optimize.snake import (BETA_BOUND, NAMES, PUBLISHED_OPTIMUM, WAVELENGTH_RANGE,
                                     SnakeGaitProblem, optimize_snake, simulate_gaits)
from softmech.optimize.study import Parameter, Study

__all__ = ["Campaign", "CampaignResult", "Generation", "read_log", "SnakeGaitProblem",
           "optimize_snake", "simulate_gaits", "NAMES", "BETA_BOUND", "WAVELENGTH_RANGE",
           "PUBLISHED_OPTIMUM", "Study", "Parameter", "QUANTITIES", "evaluate_batch",
           "LocalExecutor", "RayExecutor", "EvaluationJournal", "make_executor"]
