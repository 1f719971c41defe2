"""The Cosserat swimmer of Zhang et al. 2019 (Fig. 2 geometry, 50 elements) without inertia
scaling, stepped by implicit Euler with the fast Newton settings (docs/implicit_cosserat.md):
converged in the step (issue 27's criterion) and equal to the default settings' run."""
import softmech as sm
from softmech.scenarios.swimmer import build_swimmer, centre_track

FAST = sm.ImplicitOptions(corotate=True, predictor=2, refresh_rate=0.5, tol=1e-7)


def _speed(steps_per_beat, newton, beats=3):
    """Mean speed [m/s] over `beats` beats (centre_track) and the integrator's counters."""
    period = 1 / 3.6
    scene, info = build_swimmer(model="cosserat", n_elems=50, rotary_inertia=1.0, cycles=beats,
                                dt=period / steps_per_beat)
    sim = scene.compile(dt=info.dt, scheme="implicit_euler", newton=newton)
    out = sim.run(info.duration, record=sm.Every(seconds=period / 50, fields=("flagellum.com",)))
    return centre_track(out["time"], out["flagellum.com"][0], period)[2], \
        sim.implicit_integrator().stats


def test_swimmer_speed_converges_in_the_step_with_the_fast_settings():
    """Implicit Euler is first order: the speed error halves with the step, so the speeds at
    dt and dt/2 differ by about the error at dt/2. Issue 27 asks for them within 1 %: at 1000
    and 2000 steps per beat they are 0.71 % apart (the explicit run at 16 ns, 3.92e-5 m/s,
    is 1.4 % and 0.7 % away: docs/benchmarks.md). The fast settings change how Newton reaches
    each step's solution, not the solution: their speed equals the default settings' within
    1e-4 relative (measured 3e-6; tol 1e-7 of an element per step), with under a third of the
    residual evaluations (measured 6.2 against 23.8 per step)."""
    coarse, fast_stats = _speed(1000, FAST)
    fine, _ = _speed(2000, FAST)
    assert abs(coarse / fine - 1) < 0.01
    assert abs(coarse / fine - 1) > 1e-3          # first order: the step does show
    default, default_stats = _speed(1000, None)
    assert abs(coarse / default - 1) < 1e-4
    per_step = lambda s: s["evaluations"] / s["steps"]
    assert per_step(fast_stats) < per_step(default_stats) / 3, (fast_stats, default_stats)
    assert fast_stats["halvings"] == 0
