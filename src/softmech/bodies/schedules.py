"""Time-varying values of a body's per-world parameters (actuation by natural curvature and
twist, ref. 004 sec. 6.1 "Actuation": DisMech reads them from a table file at every step).

A schedule is given as
- a function f(t) -> array [t in s] of the parameter's shape (all worlds) or with a leading
  B (one row per world);
- a table {"times": (k,) [s], "values": (k, ...)}: linear interpolation in time, held at the
  first / last value outside the times;
- a table file {"file": path}: a text file (whitespace or comma separated, '#' comments) whose
  first column is time [s] and whose other columns are the values flattened in C order (a
  rod's natural curvature: kappa1, kappa2 of spring 0, then of spring 1, ...).
Everything is checked when the body is built (the function is called once at t = 0).
"""
import numpy as np

from softmech import _checks


def is_schedule(value):
    """True for a function or a table (dict) -- a value that varies in time."""
    return callable(value) or isinstance(value, dict)


class Schedule:
    """A checked schedule of values of shape `shape`; `schedule(t)` returns (…shape) or
    (B, …shape) [the parameter's unit]."""

    def __init__(self, field, value, shape):
        self.field = field
        self.shape = tuple(shape)
        self.function = None
        if callable(value):
            self.function = value
            self.times = self.values = None
        elif isinstance(value, dict):
            self.times, self.values = self._table(field, value)
        else:  # pragma: no cover - callers test is_schedule first
            raise TypeError(f"{field}: not a function or a table")
        self(0.0)   # checks the function's output once, before any work starts

    def _table(self, field, spec):
        keys = set(spec)
        if keys == {"file"}:
            try:
                data = np.loadtxt(spec["file"], delimiter=None if ".csv" not in str(spec["file"])
                                  else ",", ndmin=2)
            except (OSError, ValueError) as err:
                raise ValueError(f"{field}.file = {spec['file']!r} could not be read: {err}") from None
            times, values = data[:, 0], data[:, 1:]
            if values.shape[1] != int(np.prod(self.shape)):
                raise ValueError(f"{field}.file = {spec['file']!r} has {values.shape[1]} value "
                                 f"columns after the time column, expected {int(np.prod(self.shape))} "
                                 f"(the values of shape {self.shape} flattened)")
            values = values.reshape((len(times),) + self.shape)
        elif keys == {"times", "values"}:
            times = _checks.finite(f"{field}.times", spec["times"], shape=(None,))
            values = _checks.finite(f"{field}.values", spec["values"],
                                    shape=(len(times),) + self.shape)
        else:
            raise ValueError(f"{field} = table with keys {sorted(keys)} is not allowed: give "
                             "{'times': (k,), 'values': (k, ...)} or {'file': path}")
        times = _checks.finite(f"{field}.times", times)
        if len(times) < 1 or np.any(np.diff(times) <= 0):
            raise ValueError(f"{field}.times is not allowed: must be one or more strictly "
                             "increasing times [s]")
        return times.astype(float), values.astype(float)

    def __call__(self, t):
        if self.function is None:
            k = np.searchsorted(self.times, t, side="right")
            if k == 0:
                return self.values[0]
            if k == len(self.times):
                return self.values[-1]
            w = (t - self.times[k - 1]) / (self.times[k] - self.times[k - 1])
            return (1.0 - w) * self.values[k - 1] + w * self.values[k]
        value = _checks.finite(f"{self.field}(t = {t:g})", self.function(t))
        if value.shape != self.shape and value.shape[1:] != self.shape:
            raise ValueError(f"{self.field}(t = {t:g}) has shape {value.shape}, expected "
                             f"{self.shape} or (B,) + {self.shape}")
        return value

    def write(self, t, b, target):
        """Write world b's value at time t into its row of the per-world array target
        (B_rows, …shape)."""
        value = self(t)
        row = target[b % target.shape[0]]
        row[...] = value if value.ndim == len(self.shape) else value[b % value.shape[0]]
