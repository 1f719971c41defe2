"""What a run records: the field names a recorder accepts, `Every` (what to record and how often)
and `Results` (the recorded time series by '<body>.<field>')."""
from dataclasses import dataclass

from softmech import _checks
from softmech.diagnostics import ENERGY_KEYS
from softmech.io import atomic_save_npz

def rods_of(sim):
    """The rods that a results file describes (/rods), pictures draw and cost estimates count, in scene order: the
    Cosserat rods, then the discrete rods that the unified engine steps as a body kind
    (sim.der_rods; the discrete engine lists its polyline rods in sim.rods)."""
    return list(sim.rods) + list(getattr(sim, "der_rods", ()))


STATE_FIELDS = ("positions", "velocities", "directors", "angular_velocities")
PRINCIPAL = ("directors", "angular_velocities")
"""State fields of a rigid body that differ between its own and its principal frame."""
ROD_FIELDS = ("rod_contact_force",)
"""Recorded fields that only rods have (a bare name records them for the rods only)."""
IMPLICIT_FIELDS = ("angles",)
"""Recorded fields of discrete rods and shells only (their scalar DOFs, softmech.implicit)."""
DERIVED_FIELDS = ENERGY_KEYS + ("total_energy", "com", "com_velocity", "linear_momentum",
                                "angular_momentum", "contact_force", "rod_contact_force")


@dataclass(frozen=True)
class Every:
    """Record `fields` every `seconds` of simulated time (rounded to whole steps)."""
    seconds: float
    fields: tuple = ("com",)

    def __post_init__(self):
        _checks.positive("Every.seconds", self.seconds)
        for f in self.fields:
            base = f.split(".")[-1]
            allowed = STATE_FIELDS + DERIVED_FIELDS + IMPLICIT_FIELDS
            if base not in allowed:
                raise ValueError(f"Every.fields entry {f!r} is not allowed: must be one of "
                                 f"{sorted(allowed)} (optionally 'rod.field')")


class Results(dict):
    """Recorded time series: `'time'` (n_samples,) and `'<body>.<field>'` (B, n_samples, ...):
    `out['rod.positions']` is the one name of a recorded field, as in results files
    (/rods/rod/positions) and `softmech info`. A bare field name (`out['positions']`) is
    accepted where it is unambiguous: exactly one body recorded that field (always so with a
    single body in the scene); otherwise KeyError lists the full names to use."""

    rods = ()
    """Names of the scene's rods (set by Simulation.run)."""
    rigid_bodies = ()
    """Names of the scene's rigid bodies (set by Simulation.run)."""

    def __missing__(self, key):
        matches = self._full_names(key)
        if len(matches) == 1:
            return self[matches[0]]
        if len(matches) > 1:
            raise KeyError(f"{key!r} is ambiguous: {len(matches)} bodies recorded it; use one "
                           f"of {matches}")
        raise KeyError(f"{key!r} was not recorded; the results hold {sorted(self)}")

    def _full_names(self, key):
        """The '<body>.<field>' keys whose field is the bare name `key`."""
        if not isinstance(key, str) or "." in key:
            return []
        return [k for k in self if isinstance(k, str) and "." in k and k.split(".", 1)[1] == key]

    def get(self, key, default=None):
        """self[key] (a bare field name too, where unambiguous), else default."""
        if key in self or len(self._full_names(key)) == 1:
            return self[key]
        return default

    def save(self, path):
        atomic_save_npz(path, **self)
