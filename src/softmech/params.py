"""The per-world parameters of a simulation (`sim.params`), with the deprecated names of fields
that were renamed still read and written (softmech.simulation.Simulation.params).

Renamed fields (old -> new, the term's name unchanged): GroundContact on a rigid body named its
friction coefficients `static_friction` and `kinetic_friction`; every contact kind now names
them `static` and `kinetic` (docs/contact.md#friction-models-and-contact-kinds). Reading or
writing `params["<name>.static_friction"]` works on `params["<name>.static"]` with a
DeprecationWarning; scenario files never held these names (they hold the terms' arguments,
whose friction laws already say `static` and `kinetic`; the older RigidGroundContact tables
with static_friction = ... are read by softmech.scenefile.schema.TERM_ALIASES).
"""
import warnings

RENAMED_FIELDS = {"static_friction": "static", "kinetic_friction": "kinetic"}
"""Per-world parameter fields renamed: old name -> current name."""


class Params(dict):
    """A dict of per-world parameters `"<owner>.<field>" -> array` that maps a renamed field's
    old key to its current one (with a DeprecationWarning) when only the current one exists."""

    def _current(self, key):
        """The current key of a deprecated one present under its new name, else None."""
        if not isinstance(key, str):
            return None
        owner, _, field = key.rpartition(".")
        new = f"{owner}.{RENAMED_FIELDS[field]}" if field in RENAMED_FIELDS else None
        if new is None or not dict.__contains__(self, new):
            return None
        warnings.warn(f"params['{key}'] is deprecated: the parameter is params['{new}'] (every "
                      "contact kind names its coefficients static and kinetic)",
                      DeprecationWarning, stacklevel=3)
        return new

    def __missing__(self, key):
        new = self._current(key)
        if new is None:
            raise KeyError(key)
        return dict.__getitem__(self, new)

    def __setitem__(self, key, value):
        if not dict.__contains__(self, key):
            key = self._current(key) or key
        dict.__setitem__(self, key, value)
