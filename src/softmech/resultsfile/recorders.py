"""User recorders: a quantity of the user's own, computed from the live simulation at every
sample and written next to the built-in fields (/recorders/<name>)."""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from softmech.resultsfile.layout import valid_name
from softmech.simulation import DERIVED_FIELDS, STATE_FIELDS


@dataclass(frozen=True)
class Recorder:
    """Record `function(sim)` at every sample under `name` (Results key and /recorders/<name>).

    function: called with the Simulation at each sample time; must return a float array of
    shape (B, ...) (B = sim.worlds, the same shape at every sample), for example
    `lambda sim: sim.get_state("snake")["positions"][:, -1, 2]` (head height [m], (B,)).
    units: a free-text unit stored with the dataset (e.g. "m").
    """
    name: str
    function: Callable
    units: str = ""

    def __post_init__(self):
        valid_name("Recorder.name", self.name)
        if self.name in ("time",) + STATE_FIELDS + DERIVED_FIELDS:
            raise ValueError(f"Recorder.name = {self.name!r} is not allowed: it is a built-in "
                             "field name (choose another)")
        if not callable(self.function):
            raise ValueError(f"Recorder.function = {self.function!r} is not allowed: must be "
                             "callable as function(sim) -> array (B, ...)")
        if not isinstance(self.units, str):
            raise ValueError(f"Recorder.units = {self.units!r} is not allowed: must be a string")

    def sample(self, sim):
        """function(sim) as a float64 array (B, ...); ValueError naming the recorder if not."""
        value = self.function(sim)
        try:
            arr = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"Recorder {self.name!r} returned {type(value).__name__}: must be "
                             "an array of numbers of shape (B, ...)") from None
        if arr.ndim < 1 or arr.shape[0] != sim.worlds:
            raise ValueError(f"Recorder {self.name!r} returned shape {arr.shape}: must be "
                             f"(B, ...) with B = {sim.worlds} worlds")
        return arr


def check_recorders(recorders):
    """A tuple of Recorder with distinct names; ValueError otherwise."""
    recorders = tuple(recorders)
    for r in recorders:
        if not isinstance(r, Recorder):
            raise ValueError(f"recorders entry {r!r} is not allowed: must be sm.Recorder(name, "
                             "function)")
    names = [r.name for r in recorders]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise ValueError(f"recorders: name {duplicate!r} is used twice (names must be distinct)")
    return recorders
