"""Sizes of the slow step's long cases, scaled to a time budget.

SOFTMECH_SLOW_SCALE (default 1: the full sizes, whose results docs/reliability.md records)
multiplies the cases of the slow fuzz runs, the kills of the kill test and the length of the
soaks. CI sets 0.25 (`.ci/run`): its 90 minutes hold the default suite (~60 minutes from empty
caches, 2026-11-30) and the slow step, which at full size took more than the rest (the run of
2026-11-29 timed out in it). Every slow test still runs in CI, on fewer cases; the full sizes are
run by whoever changes what they guard (docs/reliability.md gives each command)."""
import os

_TEXT = os.environ.get("SOFTMECH_SLOW_SCALE", "1")
try:
    SCALE = float(_TEXT)
except ValueError:
    SCALE = float("nan")
if not 0.0 < SCALE <= 1.0:
    raise ValueError(f"SOFTMECH_SLOW_SCALE = {_TEXT!r} is not allowed: a fraction of the slow "
                     "step's full sizes in (0, 1]")


def scaled(full, minimum):
    """`full` x SCALE rounded, at least `minimum` (the smallest size the test's checks need)."""
    return max(minimum, round(full * SCALE))
