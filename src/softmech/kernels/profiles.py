"""Time profile of a load or prescribed motion, parameters (ramp_time, frequency, phase):
    p(t) = min(t / ramp_time, 1) * sin(2 pi f t + phase)
with the ramp factor 1 when ramp_time == 0 and the sine factor 1 when f == 0 (softmech.terms.base).
"""
import math

from softmech.kernels import kernel


@kernel(inline="always")
def profile_value(t, prof):
    ramp = prof[0]
    freq = prof[1]
    r = 1.0
    if ramp > 0.0:
        r = min(t / ramp, 1.0)
    s = 1.0
    if freq > 0.0:
        s = math.sin(2.0 * math.pi * freq * t + prof[2])
    return r * s


@kernel(inline="always")
def profile_rate(t, prof):
    """d p / dt of `profile_value`."""
    ramp = prof[0]
    freq = prof[1]
    r = 1.0
    dr = 0.0
    if ramp > 0.0 and t < ramp:
        r = t / ramp
        dr = 1.0 / ramp
    s = 1.0
    ds = 0.0
    if freq > 0.0:
        arg = 2.0 * math.pi * freq * t + prof[2]
        s = math.sin(arg)
        ds = 2.0 * math.pi * freq * math.cos(arg)
    return dr * s + r * ds
