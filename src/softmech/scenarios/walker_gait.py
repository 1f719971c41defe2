"""How a walker's feet make its step (issue 28): the gait of one period measured from a
recording of the skeleton's toes and centre of mass.

A walker whose feet stick in turn -- one holding while the other slides, during the contraction
and again during the relaxation -- walks an inchworm's gait: its step per period is the whole
approach of its feet, the most that its contraction can give. `inchworm_gait` measures how
close a walker comes to that (benchmarks/walker_inchworm.py over the campaign's design box;
docs/musculoskeletal.md, "On friction that sticks").
"""
import numpy as np


def inchworm_gait(time, back_toe, front_toe, com, frequency, settle, periods):
    """The gait of a walker averaged over `periods` whole periods from `settle` [s].

    time (n,) [s]; back_toe, front_toe, com (n,) [m]: x of the long pillar's toe (the skeleton's
    first node), of the short pillar's (its last) and of the centre of mass, recorded at least
    ~50 times a period; frequency [Hz]. Returns a dict of floats [m]:

    * approach: the toe-to-toe distance, longest minus shortest within a period;
    * step: the centre of mass's advance per period (interpolated at the period's ends);
    * contraction_back, contraction_front: how far each toe moves along x from the period's
      longest span to its shortest (the feet approaching); relaxation_back, relaxation_front:
      from the shortest back to the longest (the rest of the period); a toe that holds moves
      ~0, and an inchworm's sliding toes each move ~approach.
    """
    period = 1.0 / frequency
    rows = []
    for k in range(periods):
        start = settle + k * period
        inside = (time >= start - 1e-9) & (time <= start + period + 1e-9)
        toes = np.stack([back_toe[inside], front_toe[inside]])
        span = toes[1] - toes[0]
        longest, shortest = int(np.argmax(span)), int(np.argmin(span))
        first, second = sorted((longest, shortest))
        between = toes[:, second] - toes[:, first]
        around = toes[:, -1] - toes[:, second] + toes[:, first] - toes[:, 0]
        contraction, relaxation = (between, around) if longest < shortest else (around, between)
        ends = np.interp([start, start + period], time, com)
        rows.append([span.max() - span.min(), ends[1] - ends[0], *contraction, *relaxation])
    names = ("approach", "step", "contraction_back", "contraction_front", "relaxation_back",
             "relaxation_front")
    return dict(zip(names, (float(v) for v in np.mean(rows, axis=0))))
