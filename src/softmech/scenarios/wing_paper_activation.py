"""The wing's muscle activation as the paper's own code drives it (issue 28).

Zhang et al. 2019's Supplementary Eqs. 6-10 (the wing's activation) are not in our sources,
but the code the paper links (`mattialab/elastica`, source/ExternalContact.h, the FLAGWING
block of `RodRodAttach`, "hard tuned for initiation phase and one full cycle") writes them
out: each muscle's contractile force as pieces of sines, linear decays and constants of the
code's time (its Wing.cpp scales time by 4 and lengths by 2.5; the run lasts 0.51 s of it).
Read from that code (forces in its units / 1e6):

    muscle (its name)            initiation               the cycle, 0.11-0.49 s of code time
    supracoracoideus (LiftMu)    15 sin(w t), 0-0.125     0.28-0.3425 18 sin(w (t - 0.28)),
                                                          then 18 (1 - 0.6 (t - 0.3425)/0.0625)
                                                          to 0.405, then 7.2 to 0.4675
    pectoralis (PullMu)          -                        0.11-0.1725 18 sin(w (t - 0.11)), then
                                                          18 (1 - 0.5 (t - 0.1725)/0.0625) to
                                                          0.235, then 9 sin(w (t - 0.1725)) to
                                                          0.2975
    scapulotriceps (TriMu)       27 sin(2 w t), 0-0.0625  0.27-0.3325 8 sin(w (t - 0.27)), then
                                                          8 (1 - 0.35 (t - 0.3325)/0.0625) to
                                                          0.395, then 5.2 sin(w (t - 0.3325))
                                                          to 0.4575
    biceps (BiMu)                -                        0.11-0.1725 13.5 sin(w (t - 0.11)),
                                                          then 24 (1 - 0.7 (t - 0.1725)/0.0625)
                                                          to 0.235 (a jump from 13.5 to 24, as
                                                          written), then 7.2 sin(w (t - 0.1725))
                                                          to 0.2975

with w = 2 pi / 0.25 s. So the code pairs the biceps with the pectoralis (the elbow flexes in
the downstroke) and the scapulotriceps with the supracoracoideus (it extends in the upstroke),
the reverse of the EMG timing softmech's default follows (softmech.scenarios.wing,
activation_windows), and its supracoracoideus comes on at 45 % of the cycle (softmech's fitted
SUPRA_ON: 28 %).

softmech plays this schedule on its own period: code time PAPER_CODE_START (the cycle's
start, the pectoralis's onset) maps to the end of the wing's initiation, and the code's
PAPER_CODE_PERIOD (0.38 s, "the time-period of actuation of wing", Rod.cpp) to 1 / frequency;
cycles after the first repeat the first. Activation = force / the largest force of the
muscle's pair in the code (shoulder: 18, elbow: 27), so the code's ratios within each pair
hold and softmech's F_max per pair (build_wing's shoulder_force, elbow_force) stands for the
pair's largest force; no resting tone (the code has none).
"""
import numpy as np

from softmech import _checks

PAPER_CODE_PERIOD = 0.38
"""Period of the code's flapping cycle [s of code time] (Rod.cpp: "the time-period of
actuation of wing is 0.38s")."""
PAPER_CODE_START = 0.11
"""Code time [s] at which the cycle starts: the pectoralis's (and the biceps's) onset; the
initiation before it lifts the straight wing (supracoracoideus) and holds the elbow straight
(scapulotriceps)."""
_W = 2.0 * np.pi / 0.25                             # [rad/s of code time]
_INITIATION_END = 0.125                             # the supracoracoideus's initiation pulse

SEGMENTS = {
    # (start, end, shape, amplitude, origin, k): sine A sin(k w (t - origin)); decay
    # A (1 - k (t - origin) / 0.0625); constant A. Times in s of code time.
    "supracoracoideus": ((0.0, 0.125, "sine", 15.0, 0.0, 1.0),
                         (0.28, 0.3425, "sine", 18.0, 0.28, 1.0),
                         (0.3425, 0.405, "decay", 18.0, 0.3425, 0.6),
                         (0.405, 0.4675, "constant", 7.2, 0.0, 0.0)),
    "pectoralis": ((0.11, 0.1725, "sine", 18.0, 0.11, 1.0),
                   (0.1725, 0.235, "decay", 18.0, 0.1725, 0.5),
                   (0.235, 0.2975, "sine", 9.0, 0.1725, 1.0)),
    "scapulotriceps": ((0.0, 0.0625, "sine", 27.0, 0.0, 2.0),
                       (0.27, 0.3325, "sine", 8.0, 0.27, 1.0),
                       (0.3325, 0.395, "decay", 8.0, 0.3325, 0.35),
                       (0.395, 0.4575, "sine", 5.2, 0.3325, 1.0)),
    "biceps": ((0.11, 0.1725, "sine", 13.5, 0.11, 1.0),
               (0.1725, 0.235, "decay", 24.0, 0.1725, 0.7),
               (0.235, 0.2975, "sine", 7.2, 0.1725, 1.0)),
}
"""Each muscle's force in the code (its units / 1e6) as pieces of code time (module
docstring)."""
PAIRS = {"pectoralis": "shoulder", "supracoracoideus": "shoulder", "biceps": "elbow",
         "scapulotriceps": "elbow"}
PAIR_PEAK = {pair: max(s[3] for m, p in PAIRS.items() if p == pair for s in SEGMENTS[m])
             for pair in ("shoulder", "elbow")}
"""The largest force of each pair in the code (shoulder 18, elbow 27): activation 1."""


def _pieces(muscle, t, initiation):
    """The code's force of `muscle` at code times t (n,) from the pieces that start before
    (initiation=True) or at/after PAPER_CODE_START."""
    out = np.zeros_like(t)
    for start, end, shape, amp, origin, k in SEGMENTS[muscle]:
        if (start < PAPER_CODE_START) != initiation:
            continue
        on = (t >= start) & (t < end)
        if shape == "sine":
            out[on] += amp * np.sin(k * _W * (t[on] - origin))
        elif shape == "decay":
            out[on] += amp * (1.0 - k * (t[on] - origin) / 0.0625)
        else:
            out[on] += amp
    return out


def paper_code_force(muscle, t):
    """The code's force of `muscle` [its units / 1e6] at code times t (n,) [s]: the
    initiation's pieces, then the cycle (PAPER_CODE_START + PAPER_CODE_PERIOD) repeated."""
    t = np.asarray(t, dtype=float)
    cycle = PAPER_CODE_START + np.mod(t - PAPER_CODE_START, PAPER_CODE_PERIOD)
    return _pieces(muscle, t, True) + np.where(t >= PAPER_CODE_START,
                                               _pieces(muscle, cycle, False), 0.0)


def code_time(t, initiation, frequency):
    """Code time [s] of softmech times t (n,) [s]: [0, initiation] onto [0, PAPER_CODE_START],
    then one period 1 / frequency onto PAPER_CODE_PERIOD."""
    t = np.asarray(t, dtype=float)
    return np.where(t < initiation, t / initiation * PAPER_CODE_START,
                    PAPER_CODE_START + (t - initiation) * frequency * PAPER_CODE_PERIOD)


def paper_code_initiation(frequency):
    """The initiation [s] at `frequency` [Hz] in the code's proportion to its period."""
    return PAPER_CODE_START / PAPER_CODE_PERIOD / frequency


def paper_code_table(muscle, initiation, frequency, duration, samples_per_period=600):
    """(times (n,) [s], activation (n,) [-]) of `muscle` over [0, duration] [s]: the code's
    force over its pair's largest (PAIR_PEAK), sampled `samples_per_period` times a period
    (the table is interpolated linearly; its pieces last >= 0.0625 / 0.38 of a period, ~100
    samples)."""
    if muscle not in SEGMENTS:
        raise ValueError(f"muscle = {muscle!r} is not allowed: one of {sorted(SEGMENTS)}")
    initiation = float(_checks.positive("initiation", initiation))
    frequency = float(_checks.positive("frequency", frequency))
    duration = float(_checks.positive("duration", duration))
    n = int(np.ceil(duration * frequency * samples_per_period)) + 2
    times = np.linspace(0.0, duration, n)
    values = paper_code_force(muscle, code_time(times, initiation, frequency))
    return times, np.clip(values / PAIR_PEAK[PAIRS[muscle]], 0.0, 1.0)
