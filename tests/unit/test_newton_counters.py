"""The unified engine's Newton counters (softmech.integrators.implicit.COUNTS) count what their
names say, as the discrete engine's NewtonStats do: `iterations` the corrections (linear
solves), `residuals` the residual evaluations at Newton's points (its iterates and line-search
trials). Until 2026-12-06 `iterations` counted the latter, so the engines' iteration counts
were compared in different units (docs/benchmarks.md, "The unified engine's Newton counters,
corrected")."""
from test_predictor_guard import soft_rod


def test_iterations_are_the_corrections_and_residuals_every_newton_point():
    """The built-in falling_rod's soft rod landing on frictional ground, one world, 0.25 s
    (it lands at ~0.1 s). After each step the lane's own count of the corrections it applied in
    that step (the solver's `iterations`, update_lanes; reset at each step's start) is read;
    their sum is the counter `iterations`, exactly (no step is halved, so each step is one
    solve). The landing's line search rejects trial points (the predictor guard's test): a
    pass whose only lane moved back along its line evaluates a residual and solves nothing,
    so `residuals` exceeds `iterations` (measured over 0.3 s: 1,562 against 1,225); every
    residual is one of the `evaluations`, which also count the finite differences."""
    _, sim = soft_rod(True)
    corrections = 0
    for _ in range(250):
        sim.step(1)
        integrator = sim.implicit_integrator()
        assert integrator.lanes.n_blocks == 1
        corrections += int(integrator.solver.iterations[0].sum())
    stats = integrator.stats
    assert stats["steps"] == 250 and stats["halvings"] == 0, stats
    assert stats["iterations"] == corrections, stats
    assert stats["iterations"] < stats["residuals"] <= stats["evaluations"], stats
